"""Z3 model of the choice among replacement effects (M.A.G.U.S. mk:5.12.C, with the ruleset's
priority order: Kódex 102 for ``kodex``, mk:5.10 for ``kodex-mk``) checked against the engine's
``model.replacement.choose`` over every set of up to three candidates.

Clauses covered
---------------
* mk:5.12.C: "Egy hatást csak egyszer lehet helyettesíteni": an event is replaced at most once;
  of several replacements that would replace it, the priority order chooses the one that does —
  the one that beats every other applicable one; none when no candidate does (a tie, declared
  in ``properties/gaps_allowlist.yaml``).
* 102.1-102.4 / mk:5.10.E-H through ``properties/z3_priority.beats`` (the compiled policy table,
  no second copy).

The family: the whole attribute domain of ``model.priority.attribute_domain`` (strong ×
continuous × timestamp 0..2 × ability none/static/activated/automatic × prohibiting: 96
effects), multisets of at most three, every ordered list for order independence.

Rows, per policy: engine = model (one Z3 query over the tabulated engine), the chosen
replacement is unique (so the event is replaced at most once: the model's choice is a single
index), order independence (the model in Z3 by transpositions; the engine exhaustively), and
the ties as a declared gap. Counterexamples are written as ``hkk-case/1`` files (cards with
``replace`` entries on the event ``damage``).
"""

from __future__ import annotations

import itertools
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import z3

from model import replacement
from model.priority import ATTRIBUTES, Effect, attribute_domain, compile_policy, describe
from properties.z3_numbers import MAX_EFFECTS, MAX_MISMATCHES, RULESET, _digest, decode, lookup, \
    clear_cases, multisets, sorted_slots, transpositions, write_cases
from properties.z3_priority import Check, _equals, _sym, beats

__all__ = ["DOMAIN", "check_replacement", "engine_choice", "model_choice", "replacement_case"]

DOMAIN: tuple[Effect, ...] = tuple(attribute_domain())
ABSENT = len(DOMAIN)
NONE = -1             # no replacement chosen
ERROR = -2            # the engine raised
CLAUSES = {
    "kodex-102": ["mk:5.12.C", "102.1", "102.2", "102.3", "102.4"],
    "mk-5.10": ["mk:5.12.C", "mk:5.10.E", "mk:5.10.G", "mk:5.10.H"],
}

ChooseFn = Callable[[Sequence[Effect], str], "int | None"]


# --------------------------------------------------------------------------- model


class Candidate:
    def __init__(self, name: str) -> None:
        self.present = z3.Bool(f"{name}.present")
        self.effect = _sym(name)

    def domain(self) -> list[z3.BoolRef]:
        t = self.effect["timestamp"]
        return [z3.Or([t == v for v in ATTRIBUTES["timestamp"][1]])]

    def kinds(self) -> list[z3.BoolRef]:
        return [z3.And(self.present, _equals(self.effect, e)) for e in DOMAIN] + [z3.Not(self.present)]


def model_chosen(policy: str, cands: Sequence[Candidate]) -> list[z3.BoolRef]:
    """mk:5.12.C: candidate i replaces iff it is there and beats every other candidate there."""
    pol = compile_policy(policy)
    return [z3.And(c.present, *[z3.Implies(d.present, beats(pol, c.effect, d.effect))
                                for j, d in enumerate(cands) if j != i])
            for i, c in enumerate(cands)]


def model_choice(chosen: Sequence[z3.BoolRef]) -> z3.ArithRef:
    """The index chosen (NONE when none); a single index by the uniqueness proof."""
    v: z3.ArithRef = z3.IntVal(NONE)
    for i in range(len(chosen) - 1, -1, -1):
        v = z3.If(chosen[i], z3.IntVal(i), v)
    return v


# --------------------------------------------------------------------------- engine


def engine_choice(fn: ChooseFn, policy: str, idx: Sequence[int]) -> int:
    items = [DOMAIN[i] for i in idx if i != ABSENT]
    try:
        k = fn(items, policy)
    except Exception:  # noqa: BLE001 - an engine error is a counterexample
        return ERROR
    if k is None:
        return NONE
    if not isinstance(k, int) or not 0 <= k < len(items):
        return ERROR
    return k


def _chosen_effect(fn: ChooseFn, policy: str, lst: Sequence[int]) -> int | None:
    k = engine_choice(fn, policy, lst)
    return k if k < 0 else lst[k]


def _text(idx: Sequence[int]) -> str:
    items = [i for i in idx if i != ABSENT]
    return "; ".join(f"r{n} = {describe(DOMAIN[i])}" for n, i in enumerate(items)) or "no candidate"


def _choice_text(idx: Sequence[int], k: int) -> str:
    if k == ERROR:
        return "error"
    if k == NONE:
        return "none"
    return f"r{k}"


# --------------------------------------------------------------------------- case files


def replacement_case(policy: str, idx: Sequence[int], *, case_id: str, title: str, note: str = ""
                     ) -> dict[str, Any]:
    """Creature c1 on A's table, the candidates as ``replace`` entries on items s0..s2 (one per
    timestamp, in that order) for the event `damage` to c1, each instead giving A a different
    number of VP; a damage of 1 to c1. ``then``: the model's choice. A card's entry is always
    continuous: a one-shot candidate is written as a continuous one (tagged), and ``then`` is
    the model's choice for what the case expresses."""
    items = [DOMAIN[i] for i in idx if i != ABSENT]
    realized = [Effect(e.strong, True, e.timestamp, e.ability, e.prohibiting) for e in items]
    cards: dict[str, Any] = {"c1": {"kind": "creature", "damage": 1, "hp": 5}}
    table = ["c1"]
    for t in ATTRIBUTES["timestamp"][1]:
        sid = f"s{t}"
        table.append(sid)
        entries = []
        for n, e in enumerate(realized):
            if e.timestamp != t:
                continue
            entry: dict[str, Any] = {"id": f"r{n}", "event": "damage", "scope": ["c1"],
                                     "instead": [{"gain_vp": {"player": "A", "amount": n + 1}}],
                                     "ability": e.ability}
            if e.strong:
                entry["strong"] = True
            if e.prohibiting:
                entry["prohibiting"] = True
            entries.append(entry)
        cards[sid] = {"kind": "item", "name": f"played {t + 1}."}
        if entries:
            cards[sid]["replace"] = entries
    k = _concrete_choice(policy, realized)
    then: dict[str, Any]
    if k == NONE:
        then = {"players": {"A": {"vp": 0}}, "cards": {"c1": {"wounds": 1}}}
    else:
        then = {"players": {"A": {"vp": k + 1}}, "cards": {"c1": {"wounds": 0}},
                "events": [{"event": "replaced", "effect": f"r{k}"}]}
    case: dict[str, Any] = {
        "id": case_id, "clause": "mk:5.12.C", "also": CLAUSES[policy][1:], "title": title,
        "rulesets": [RULESET[policy]], "tags": ["prove-counterexample"],
        "given": {"players": {"A": {"table": table}}, "cards": cards},
        "when": [{"damage": {"target": "c1", "amount": 1}}],
        "then": then,
    }
    if any(not e.continuous for e in items):
        case["tags"].append("one-shot-written-as-continuous")
    if note:
        case["x-engine"] = note
    return case


def _concrete_choice(policy: str, effects: Sequence[Effect]) -> int:
    cands = [Candidate(f"x{i}") for i in range(len(effects))]
    chosen = model_chosen(policy, cands)
    s = z3.Solver()
    for c, e in zip(cands, effects):
        s.add(c.present, _equals(c.effect, e))
    assert s.check() == z3.sat
    return s.model().eval(model_choice(chosen), model_completion=True).as_long()


# --------------------------------------------------------------------------- checks


def _solve(constraints: Sequence[z3.BoolRef]) -> tuple[str, z3.ModelRef | None]:
    s = z3.Solver()
    s.add(*constraints)
    r = s.check()
    return ("sat", s.model()) if r == z3.sat else ("unsat" if r == z3.unsat else "unknown", None)


def check_replacement(policy: str, *, choose: ChooseFn | None = None, out_dir: Path | str | None = None,
                      allowlist: frozenset[str] | set[str] = frozenset(), max_effects: int = MAX_EFFECTS
                      ) -> tuple[dict[str, Any], list[Check]]:
    """Every row for one policy. ``choose`` defaults to ``model.replacement.choose`` (looked up at
    call time); counterexample cases go to ``out_dir`` (default ``reports/prove-counterexamples``)."""
    n_slots = max_effects
    fn = choose if choose is not None else replacement.choose
    clauses = CLAUSES[policy]
    out = Path(out_dir) if out_dir is not None else Path("reports/prove-counterexamples")
    clear_cases(out, f"replacement-{policy}-engine-vs-model.yaml", f"replacement-{policy}-order.yaml")
    cands = [Candidate(f"r{i}") for i in range(n_slots)]
    domain = [c for cd in cands for c in cd.domain()]
    E = [c.kinds() for c in cands]
    chosen = model_chosen(policy, cands)
    choice = model_choice(chosen)
    checks: list[Check] = []
    counts: dict[str, Any] = {"family": len(DOMAIN)}

    # engine = model
    t0 = time.perf_counter()
    table = {ms: engine_choice(fn, policy, ms) for ms in multisets(len(DOMAIN), n_slots)}
    s = z3.Solver()
    s.add(*domain, *sorted_slots(E), choice != lookup(table, E))
    found = []
    r = s.check()
    while r == z3.sat and len(found) < MAX_MISMATCHES:
        m = s.model()
        idx = decode(m, E)
        found.append((idx, m.eval(choice, model_completion=True).as_long(), table[idx]))
        s.add(z3.Not(z3.And(*[E[i][idx[i]] for i in range(n_slots)])))
        r = s.check()
    ms = (time.perf_counter() - t0) * 1e3
    counts["combinations"] = len(table)
    counts["mismatches"] = len(found)
    counts["mismatches_capped"] = bool(found) and r == z3.sat
    counts["engine_errors"] = sum(1 for k in table.values() if k == ERROR)
    prop = "replacement mk:5.12.C engine = model"
    if found:
        cases = [replacement_case(policy, idx, case_id=f"prove/replacement-{policy}-{_digest(idx)}",
                                  title=f"{_text(idx)}: the model chooses {_choice_text(idx, want)}",
                                  note=f"engine (replacement.choose) chose {_choice_text(idx, got)}")
                 for idx, want, got in found]
        path = write_cases(out, f"replacement-{policy}-engine-vs-model.yaml", cases)
        idx, want, got = found[0]
        checks.append(Check(prop, policy, "counterexample", "FAIL", ms,
                            f"{len(found)}{'+' if r == z3.sat else ''} of {len(table)} candidate sets differ, e.g. "
                            f"{_text(idx)}: model {_choice_text(idx, want)}, engine {_choice_text(idx, got)}; "
                            f"cases: {path}",
                            data={"clauses": clauses, "case_file": str(path)}))
    elif r == z3.unsat:
        checks.append(Check(prop, policy, "proved", "ok", ms,
                            f"{len(table)} candidate sets (multisets of ≤{n_slots} of {len(DOMAIN)} "
                            "effects): the engine's choice = the model's, one Z3 query over the engine's table, "
                            "0 mismatches", data={"clauses": clauses}))
    else:
        checks.append(Check(prop, policy, "unknown", "FAIL", ms, "solver returned unknown",
                            data={"clauses": clauses}))

    # unique: replaced at most once
    t0 = time.perf_counter()
    res, m = _solve([*domain, z3.Or([z3.And(chosen[i], chosen[j])
                                      for i, j in itertools.combinations(range(n_slots), 2)])])
    ms = (time.perf_counter() - t0) * 1e3
    prop = "replacement mk:5.12.C unique (replaced at most once)"
    if res == "unsat":
        checks.append(Check(prop, policy, "proved", "ok", ms,
                            "proved on the model: no two candidates both beat every other one, so the choice "
                            "is a single index (or none) and the event is replaced at most once",
                            data={"clauses": clauses}))
    else:
        detail = "solver returned unknown" if m is None else f"two chosen: {_text(decode(m, E))}"
        checks.append(Check(prop, policy, "counterexample" if m is not None else "unknown", "FAIL", ms,
                            detail, data={"clauses": clauses}))

    # order independence: the model in Z3, the engine exhaustively
    t0 = time.perf_counter()
    negs = []
    for perm in transpositions(n_slots):
        other = model_chosen(policy, [cands[p] for p in perm])
        negs.append(z3.Or([other[p] != chosen[perm[p]] for p in range(n_slots)]))
    res, _ = _solve([*domain, z3.Or(negs)]) if negs else ("unsat", None)
    checked, diffs = 0, []
    for ms_ in multisets(len(DOMAIN), n_slots):
        items = tuple(i for i in ms_ if i != ABSENT)
        k = table[ms_]                     # the engine on the sorted list (computed above)
        first = k if k < 0 else items[k]
        checked += 1
        if len(set(items)) < 2:
            continue
        for lst in sorted(set(itertools.permutations(items)))[1:]:
            checked += 1
            got = _chosen_effect(fn, policy, lst)
            if got != first and len(diffs) < MAX_MISMATCHES:
                diffs.append((items, lst, first, got))
    ms = (time.perf_counter() - t0) * 1e3
    counts["ordered_lists"] = checked
    counts["order_differences"] = len(diffs)
    prop = "replacement mk:5.12.C order-independent"
    if res != "unsat":
        checks.append(Check(prop, policy, "counterexample" if res == "sat" else "unknown", "FAIL", ms,
                            "the Z3 model depends on the order of the candidates", data={"clauses": clauses}))
    elif diffs:
        cases = [replacement_case(policy, lst, case_id=f"prove/replacement-order-{policy}-{_digest(a, lst)}",
                                  title=f"{_text(lst)}: the choice must not depend on the order",
                                  note=f"engine: order {list(a)} chose {_eff(f)}, order {list(lst)} chose {_eff(g)}")
                 for a, lst, f, g in diffs]
        path = write_cases(out, f"replacement-{policy}-order.yaml", cases)
        a, lst, f, g = diffs[0]
        checks.append(Check(prop, policy, "counterexample", "FAIL", ms,
                            f"{len(diffs)}{'+' if len(diffs) >= MAX_MISMATCHES else ''} order dependences, e.g. "
                            f"{_text(a)}: chose {_eff(f)}; in order {list(lst)}: {_eff(g)}; cases: {path}",
                            data={"clauses": clauses, "case_file": str(path)}))
    else:
        checks.append(Check(prop, policy, "proved", "ok", ms,
                            "model: proved in Z3 (the chosen candidate follows the adjacent transpositions, which "
                            "generate every permutation); "
                            f"engine: checked exhaustively on {checked} ordered lists (the chosen effect), "
                            "0 differences", data={"clauses": clauses}))

    # ties: several candidates, none chosen (declared gap)
    ties = [ms_ for ms_, k in table.items() if k == NONE and sum(i != ABSENT for i in ms_) >= 2]
    gid = f"{policy}/replacement-tie"
    counts["tied_sets"] = len(ties)
    counts["gap_ids"] = [gid] if ties else []
    if ties:
        known = gid in allowlist
        checks.append(Check(f"gap {gid}", policy, "gap", "known" if known else "NEW", 0.0,
                            f"{len(ties)} of {len(table)} candidate sets: no candidate beats every other one, "
                            f"none replaces (conflict_resolved winner null), e.g. {_text(ties[0])}"
                            + ("" if known else " — NOT IN ALLOWLIST"),
                            data={"clauses": clauses, "gap_id": gid}))
    return counts, checks


def _eff(k: int | None) -> str:
    if k is None or k < 0:
        return "error" if k == ERROR else "none"
    return describe(DOMAIN[k])
