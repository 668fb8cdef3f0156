"""``kodex prove``: machine-checked properties of the priority tables and of mk:5.11.

Clauses covered
* HKK Kódex VI. rész 102.0-102.4 (policy ``kodex-102``; 100.0/101.0 via the strong wording;
  part I: the points of a title are tried in their order) and M.A.G.U.S. mk:5.10.C-H
  (policy ``mk-5.10``): irreflexive, asymmetric, transitive, no dead rule, gap classes,
  Python-vs-Z3 equivalence (``properties/z3_priority.py``); the flat reading of 102.1/102.2
  ("mindig" ... "mindig") as a finding for the rules editors.
* mk:5.11.A-D with Példa1-3 (``model/number_setting.py``): the worked examples, the smallest
  example on which the "strength-outer" and "kind-outer" readings differ, and whether an
  Ép/VP-style cap (0..20) applied after each step vs only at the end changes the result.
* Effect combinations (issue 9, "Formal"): the number computation (102.0-102.4 / mk:5.11.B-D
  with mk:5.10; ``properties/z3_numbers.py``) and the choice among replacements (mk:5.12.C;
  ``properties/z3_replacement.py``) modelled in Z3 and compared with ``model.numbers.compute``
  and ``model.replacement.choose`` on every combination of up to three effects of a generated
  family, with order independence; counterexamples are written as ``hkk-case/1`` files into
  ``<out-dir>/prove-counterexamples/``.

Outputs ``reports/prove.md`` and ``reports/prove.json`` (``"schema": "hkk-prove/1"``; the
``reports/`` of the working directory, or ``--out-dir``; written atomically as a pair through
``conformance.atomicio``) and a rich table.  Exit code 0 unless there is a new counterexample, a new gap (not in
``properties/gaps_allowlist.yaml``), or a solver "unknown".
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import yaml

from conformance.atomicio import write_json, write_pair
from model.number_setting import READINGS, NumberEffect, UnresolvedSetting, number_trace, set_number
from model.priority import Policy, compile_policy, policy_names
from properties.z3_numbers import PROCEDURES, check_costs, check_numbers
from properties.z3_priority import Check, check_policy, effect_json
from properties.z3_replacement import check_replacement

SCHEMA = "hkk-prove/1"
ALLOWLIST_FILE = Path(__file__).with_name("gaps_allowlist.yaml")
CAP = (0, 20)


def _capped(value: int) -> int:
    """An Ép/VP-style cap: the value brought into CAP (after each step of mk:5.11, or at the end)."""
    return min(max(value, CAP[0]), CAP[1])


def _capped_trace(run: tuple[int, list[str]]) -> tuple[int, list[str]]:
    """A `number_trace` result with the cap applied to its value at the end."""
    return _capped(run[0]), run[1]

COUNTEREXAMPLES = "prove-counterexamples"   # under the out-dir
MAX_EFFECTS = 3

__all__ = [
    "ALLOWLIST_FILE",
    "SCHEMA",
    "collect",
    "load_allowlist",
    "main",
    "number_setting_findings",
    "run_prove",
]


# --------------------------------------------------------------------------- allowlist


def load_allowlist(path: Path | str | None = None) -> dict[str, dict[str, Any]]:
    """id -> entry of the known gap classes."""
    p = Path(path) if path is not None else ALLOWLIST_FILE
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    data = yaml.load(p.read_text(encoding="utf-8"), Loader=loader)  # noqa: S506 - safe loader
    known = (data or {}).get("known") or []
    if not isinstance(known, list) or not all(isinstance(k, Mapping) and "id" in k for k in known):
        raise ValueError(f"{p}: 'known' must be a list of mappings with an 'id'")
    return {str(k["id"]): dict(k) for k in known}


# --------------------------------------------------------------------------- mk:5.11


def _fx(kind: str, value: int, *, strong: bool = False, limit: int | None = None, t: int = 0) -> NumberEffect:
    return NumberEffect(kind, value, strong=strong, limit=limit, timestamp=t)  # type: ignore[arg-type]


#: the worked examples of mk:5.11.D: name -> (base, effects, expected per reading, quote)
EXAMPLES: dict[str, tuple[int, list[NumberEffect], dict[str, Callable[[int], bool]], str]] = {
    "Példa1": (
        5, [_fx("modify", -5, limit=1, t=0), _fx("modify", +2, t=1)],
        {"strength-outer": lambda v: v == 2, "kind-outer": lambda v: v == 2},
        "„Ez a +2 Fizikum először a csökkentés fel nem használt részét veszi igénybe, ezért a "
        "kalandozó Fizikuma 2 lesz.”",
    ),
    "Példa2": (
        10, [_fx("modify", -5, limit=1, t=0), _fx("modify", -5, t=1)],
        {"strength-outer": lambda v: v <= 0, "kind-outer": lambda v: v <= 0},
        "„Ekkor a kalandozó meghal, hiszen az egyik hatás csökkentheti 1 alá a Fizikumát”",
    ),
    "Példa3": (
        10, [_fx("modify", -2), _fx("set", 3, strong=True)],
        {"strength-outer": lambda v: v == 3},
        "„Fizikuma csökken 2-vel (gyenge) és Fizikuma mindenképpen 3 lesz (erős). Ekkor a "
        "kalandozó Fizikuma 3-as lesz.”",
    ),
    "Példa3 (gyenge)": (
        10, [_fx("modify", -2), _fx("set", 3)],
        {"strength-outer": lambda v: v == 1, "kind-outer": lambda v: v == 1},
        "„Ha a 3-ra beállító hatás „gyenge” lenne és nem „erős”, akkor a kalandozó Fizikuma 1-es lenne.”",
    ),
}


def _alphabet() -> list[NumberEffect]:
    out = []
    for strong in (False, True):
        out += [_fx("set", v, strong=strong) for v in (0, 1, 2)]
        out += [
            _fx("modify", v, strong=strong, limit=lim)
            for v in (-2, -1, 1, 2)
            for lim in (None, 0, 1, 2)
        ]
    return out


def _cost(base: int, effs: Sequence[NumberEffect]) -> tuple[int, int]:
    vals = [abs(base)] + [abs(e.value) + abs(e.limit or 0) for e in effs]
    return sum(vals), max(vals)


def _search(pred: Callable[[int, list[NumberEffect]], bool], max_n: int = 2,
            bases: Sequence[int] = (0, 1, 2)) -> tuple[dict[str, Any] | None, int]:
    """Smallest (fewest effects, then smallest absolute values) (base, effects) with pred."""
    alphabet = _alphabet()
    checked = 0
    for n in range(1, max_n + 1):
        best = None
        for combo in itertools.product(alphabet, repeat=n):
            effs = [replace(e, timestamp=i) for i, e in enumerate(combo)]
            for base in bases:
                checked += 1
                try:
                    hit = pred(base, effs)
                except UnresolvedSetting:
                    continue
                if hit:
                    key = _cost(base, effs)
                    if best is None or key < best[0]:
                        best = (key, base, effs)
        if best is not None:
            return {"base": best[1], "effects": best[2], "n": n, "cost": best[0][0]}, checked
    return None, checked


def _effs_text(effs: Sequence[NumberEffect]) -> str:
    parts = []
    for e in effs:
        s = "strong" if e.strong else "weak"
        if e.kind == "set":
            parts.append(f"{s} set {e.value} (t{e.timestamp})")
        else:
            lim = "" if e.limit is None else f", limit {e.limit}"
            parts.append(f"{s} {e.value:+d}{lim} (t{e.timestamp})")
    return "; ".join(parts)


def _effs_json(effs: Sequence[NumberEffect]) -> list[dict[str, Any]]:
    return [
        {"kind": e.kind, "value": e.value, "strong": e.strong, "limit": e.limit, "timestamp": e.timestamp}
        for e in effs
    ]


def number_setting_findings() -> tuple[dict[str, Any], list[Check]]:
    checks: list[Check] = []
    examples = {}
    for name, (base, effs, expect, quote) in EXAMPLES.items():
        t0 = time.perf_counter()
        results = {r: number_trace(base, effs, r) for r in READINGS}
        fits = [r for r in READINGS if r in expect and expect[r](results[r][0])]
        others = {r: results[r][0] for r in READINGS if r not in expect}
        ok = all(expect[r](results[r][0]) for r in expect)
        ms = (time.perf_counter() - t0) * 1e3
        detail = f"base {base}; {_effs_text(effs)} → " + ", ".join(
            f"{r} {results[r][0]}" for r in READINGS
        ) + (f"; fits {', '.join(fits)} only" if others else "; fits both readings")
        checks.append(Check(f"mk:5.11 {name}", "mk-5.11", "proved" if ok else "counterexample",
                            "ok" if ok else "FAIL", ms, detail))
        examples[name] = {
            "base": base, "effects": _effs_json(effs), "quote": quote,
            "results": {r: {"value": results[r][0], "trace": results[r][1]} for r in READINGS},
            "fits": fits, "reproduced": ok,
        }

    # smallest example on which the two readings differ
    t0 = time.perf_counter()
    diff, n_checked = _search(lambda b, e: set_number(b, e, READINGS[0]) != set_number(b, e, READINGS[1]))
    ms = (time.perf_counter() - t0) * 1e3
    readings: dict[str, Any] = {"searched": n_checked, "domain": _DOMAIN_TEXT}
    if diff:
        vals = {r: number_trace(diff["base"], diff["effects"], r) for r in READINGS}
        readings["smallest"] = {
            "base": diff["base"], "effects": _effs_json(diff["effects"]),
            "results": {r: {"value": v[0], "trace": v[1]} for r, v in vals.items()},
        }
        checks.append(Check("mk:5.11 readings differ", "mk-5.11", "counterexample", "finding", ms,
                            f"smallest: base {diff['base']}; {_effs_text(diff['effects'])} → "
                            + ", ".join(f"{r} {v[0]}" for r, v in vals.items())))
    else:
        checks.append(Check("mk:5.11 readings differ", "mk-5.11", "proved", "FAIL", ms,
                            "no difference found in the domain: the recorded finding no longer reproduces"))

    # the readings coincide whenever every effect has the same strength (one pass only)
    t0 = time.perf_counter()
    same, n_same = _search(lambda b, e: len({x.strong for x in e}) == 1
                           and set_number(b, e, READINGS[0]) != set_number(b, e, READINGS[1]))
    ms = (time.perf_counter() - t0) * 1e3
    readings["agree_on_single_strength"] = same is None
    checks.append(Check("mk:5.11 readings agree on one strength", "mk-5.11",
                        "proved" if same is None else "counterexample",
                        "ok" if same is None else "FAIL", ms,
                        f"exhaustive over {n_same} cases (≤2 effects): a difference needs both gyenge and erős effects"
                        if same is None else f"base {same['base']}; {_effs_text(same['effects'])}"))

    # cap (Ép/VP style, 0..20) after each step vs only at the end
    t0 = time.perf_counter()
    capd, n_cap = _search(lambda b, e: _capped(set_number(b, e, after_step=_capped))
                          != _capped(set_number(b, e)))
    ms = (time.perf_counter() - t0) * 1e3
    cap: dict[str, Any] = {"bounds": list(CAP), "reading": READINGS[0], "searched": n_cap, "changes_results": capd is not None}
    if capd:
        step = _capped_trace(number_trace(capd["base"], capd["effects"], after_step=_capped))
        end = _capped_trace(number_trace(capd["base"], capd["effects"]))
        cap["smallest"] = {
            "base": capd["base"], "effects": _effs_json(capd["effects"]),
            "step": {"value": step[0], "trace": step[1]}, "end": {"value": end[0], "trace": end[1]},
        }
        checks.append(Check("mk:5.11 cap per step vs at end", "mk-5.11", "counterexample", "finding", ms,
                            f"cap {CAP[0]}..{CAP[1]}, smallest: base {capd['base']}; {_effs_text(capd['effects'])} → "
                            f"per step {step[0]}, at end {end[0]}"))
    else:
        checks.append(Check("mk:5.11 cap per step vs at end", "mk-5.11", "proved", "ok", ms,
                            f"no difference over {n_cap} cases"))
    return {"examples": examples, "readings": readings, "cap": cap}, checks


_DOMAIN_TEXT = (
    "base 0..2; 1-2 effects, timestamps in list order; set 0..2; modify ±1, ±2 with limit "
    "none/0/1/2; gyenge or erős; ordered by (effects, Σ|values|, max|value|)"
)


# --------------------------------------------------------------------------- collect / render


def collect(
    policies: Sequence[Policy] | None = None,
    *,
    allowlist: Mapping[str, Any] | None = None,
    include_number_setting: bool = True,
    max_effects: int = MAX_EFFECTS,
    counterexample_dir: Path | str | None = None,
    progress: Any = None,
) -> dict[str, Any]:
    """Run every check; returns the report (``checks`` are ``Check`` objects). ``max_effects``
    bounds the effect combinations of the number and replacement rows (0: none of those rows);
    their counterexamples go to ``counterexample_dir`` (default
    ``reports/prove-counterexamples``). ``progress``: a properties.progress.Progress that says
    which phase runs (default: silent)."""
    from .progress import Progress
    progress = progress if progress is not None else Progress("prove", enabled=False)
    t0 = time.perf_counter()
    if policies is None:
        policies = [compile_policy(n) for n in policy_names()]
    allow = dict(load_allowlist() if allowlist is None else allowlist)
    checks: list[Check] = []
    gaps, equivalence, flat = [], {}, None
    for pol in policies:
        with progress.phase(f"the priority order of {pol.name} (Z3)"):
            res = check_policy(pol, frozenset(allow))
        checks += res["checks"]
        equivalence[pol.name] = res["equivalence"]
        for g in sorted(res["gaps"], key=lambda g: g.id):
            gaps.append(g.to_json() | {"known": g.id in allow})
        for c in res["checks"]:
            if c.property.startswith("flat ") and c.verdict == "counterexample":
                flat = {
                    "policy": pol.name,
                    "property": c.property,
                    "finding": (
                        "Read as independent rules (both 102.1 and 102.2 say 'mindig'), the flat "
                        "union is not asymmetric: each effect of the pair beats the other. The "
                        "ordered reading (part I: points tried in order) resolves it by 102.1."
                    ),
                    "counterexample": [effect_json(e) for e in c.witness],
                    **c.data,
                    "ordered_asymmetric": next(
                        (x.verdict for x in res["checks"] if x.property == "asymmetric"), None
                    ),
                    "quotes": {cr.clause: cr.quote for cr in pol.criteria if cr.mindig},
                }
    effects: dict[str, Any] = {}
    cx_dir = Path(counterexample_dir) if counterexample_dir is not None else Path("reports") / COUNTEREXAMPLES
    effect_gaps: set[str] = set()
    effect_checks: list[Check] = []
    if max_effects > 0:
        for pol in policies:
            if pol.name not in PROCEDURES:
                continue
            with progress.phase(f"numbers under {pol.name}, every combination of up to "
                                f"{max_effects} effects"):
                n_counts, n_checks = check_numbers(pol.name, out_dir=cx_dir,
                                                   allowlist=frozenset(allow), max_effects=max_effects)
            with progress.phase(f"costs under {pol.name} (99.7, never below 0)"):
                c_counts, c_checks = check_costs(pol.name, out_dir=cx_dir, max_effects=max_effects)
            with progress.phase(f"replacements under {pol.name} (mk:5.12.C)"):
                r_counts, r_checks = check_replacement(pol.name, out_dir=cx_dir,
                                                       allowlist=frozenset(allow),
                                                       max_effects=max_effects)
            effect_checks += n_checks + c_checks + r_checks
            effects[pol.name] = {"numbers": n_counts, "costs": c_counts, "replacement": r_counts}
            effect_gaps |= set(n_counts["gap_ids"]) | set(r_counts["gap_ids"])
    checked = {p.name for p in policies}
    found = {g["id"] for g in gaps} | effect_gaps
    if max_effects <= 0:   # the effect rows did not run: their allowlist entries are not stale
        found |= {i for i in allow if "/numbers-" in i or "/replacement-" in i}
    stale = sorted(i for i in allow if i.split("/")[0] in checked and i not in found)
    number_setting = None
    if include_number_setting:
        with progress.phase("setting numbers (mk:5.11)"):
            number_setting, ns_checks = number_setting_findings()
        checks += ns_checks
    checks += effect_checks
    exit_code = 1 if any(c.failed for c in checks) else 0
    return {
        "schema": SCHEMA,
        "policies": [p.name for p in policies],
        "checks": checks,
        "flat_reading": flat,
        "gaps": gaps,
        "stale_allowlist": stale,
        "equivalence": equivalence,
        "number_setting": number_setting,
        "effects": effects,
        "counterexamples": sorted({c.data["case_file"] for c in checks if c.data.get("case_file")}),
        "exit_code": exit_code,
        "elapsed_ms": round((time.perf_counter() - t0) * 1e3, 1),
    }


def to_json(report: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(report)
    out["rows"] = [c.to_json() for c in report["checks"]]
    del out["checks"]
    return {"schema": SCHEMA, **{k: v for k, v in out.items() if k != "schema"}}


def _md_escape(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def to_markdown(report: Mapping[str, Any]) -> str:
    L: list[str] = []
    w = L.append
    w("# kodex prove — priority tables (Kódex 102, mk:5.10) and mk:5.11 number setting\n")
    w(f"Schema `{SCHEMA}`; policies: {', '.join(f'`{p}`' for p in report['policies'])}; "
      f"exit code **{report['exit_code']}**; {report['elapsed_ms']} ms.\n")
    w("Proofs are Z3 queries over the finite attribute domain (strong, continuous, prohibiting ∈ "
      "{F,T}; timestamp ∈ {0,1,2}; ability ∈ {none, static, activated, automatic}: 96 effects), "
      "encoded from the compiled `model/priority_policies.yaml` the engine runs. *proved* = the "
      "negation is unsat (for `live` rows: a witness pair exists).\n")
    w("| property | policy | verdict | status | ms | detail |")
    w("|---|---|---|---|---:|---|")
    for c in report["checks"]:
        w(f"| {_md_escape(c.property)} | {c.policy} | {c.verdict} | {c.status} | {c.ms:.1f} | {_md_escape(c.detail)} |")
    w("")
    flat = report.get("flat_reading")
    if flat:
        w("## Finding for the rules editors: 102.1 and 102.2 must be read in order\n")
        for clause, q in flat["quotes"].items():
            w(f"> **{clause}** {q}\n")
        a, b = flat["counterexample"]
        w("Both points say *mindig* (always). Read as independent rules (\"a beats b if 102.1 "
          "or 102.2 says so\"), the relation is **not asymmetric**:\n")
        w(f"- a = {a['text']}, b = {b['text']}")
        w(f"- a beats b by {', '.join(flat['a_beats_b_by'])}; b beats a by {', '.join(flat['b_beats_a_by'])}.")
        ov = flat["ordered_verdict"]
        w(f"- Ordered reading (Kódex I. rész: the points of a title are tried in order): winner "
          f"**{ov['winner']}** by **{ov['clause']}**; asymmetry of the ordered policy: "
          f"{flat['ordered_asymmetric']}.\n")
        w("Suggestion: state in 102.2 that it applies only \"ha a 102.1. pont nem oldotta fel az "
          "ellentmondást\" (as 102.3 and 102.4 already do for the points above them).\n")
    w("## Unresolved pairs (gap classes)\n")
    w("| class | known | ordered pairs | example | why |")
    w("|---|---|---:|---|---|")
    for g in report["gaps"]:
        a, b = g["example"]
        why = "; ".join(f"{k}: {v}" for k, v in g["why"].items())
        w(f"| `{g['id']}` | {'yes' if g['known'] else '**NEW**'} | {g['ordered_pairs']} | "
          f"{a['text']} / {b['text']} | {_md_escape(why)} |")
    if report["stale_allowlist"]:
        w(f"\nAllow-listed but not found (stale): {', '.join(report['stale_allowlist'])}")
    w("\n102.4 („Ha egy képesség működésére a fenti három szempont egyike sem alkalmazható …”) "
      "speaks of abilities only: a non-ability (ability = none) is unranked, so 102.4 does not "
      "decide a pair with a non-ability side.\n")
    w("## Equivalence: `Policy.resolve` vs the Z3 relation\n")
    w("| policy | pairs checked | pair mismatches | triples checked | triple mismatches | Python transitivity violations |")
    w("|---|---:|---:|---:|---:|---:|")
    for name, e in report["equivalence"].items():
        w(f"| {name} | {e['pairs_checked']} | {e['pair_mismatches']} | {e['triples_checked']} | "
          f"{e['triple_mismatches']} | {e['python_transitivity_violations']} |")
    ns = report.get("number_setting")
    if ns:
        w("\n## mk:5.11 number setting\n")
        w("Readings: **strength-outer** = gyenge pass (beállító, korlátozott, korlátozatlan "
          "módosítók) then erős pass (5.11.D taken literally: „A fenti eljárást először végre kell "
          "hajtani a „gyenge” hatásokra, utána pedig alkalmazni kell az „erős” hatásokat.”); "
          "**kind-outer** = all beállító (gyenge→erős), then korlátozott, then korlátozatlan "
          "módosítók (each gyenge→erős).\n")
        w("| example | base | effects | strength-outer | kind-outer | fits |")
        w("|---|---:|---|---:|---:|---|")
        for name, ex in ns["examples"].items():
            effs = [NumberEffect(**e) for e in ex["effects"]]
            r = ex["results"]
            w(f"| {name} | {ex['base']} | {_effs_text(effs)} | {r['strength-outer']['value']} | "
              f"{r['kind-outer']['value']} | {', '.join(ex['fits'])} |")
        w("")
        for name, ex in ns["examples"].items():
            w(f"- {name}: {ex['quote']}")
        rd = ns["readings"]
        if "smallest" in rd:
            sm = rd["smallest"]
            effs = [NumberEffect(**e) for e in sm["effects"]]
            w(f"\nSmallest example where the readings differ ({rd['searched']} cases searched; {rd['domain']}): "
              f"base {sm['base']}; {_effs_text(effs)} → " + ", ".join(
                  f"{r}: {v['value']} ({' → '.join(v['trace'])})" for r, v in sm["results"].items()) + ".")
        w(f"Readings agree whenever all effects have the same strength: {rd['agree_on_single_strength']}.")
        cap = ns["cap"]
        if cap.get("smallest"):
            sm = cap["smallest"]
            effs = [NumberEffect(**e) for e in sm["effects"]]
            w(f"\nCap {cap['bounds'][0]}..{cap['bounds'][1]} after each step vs only at the end "
              f"changes results: base {sm['base']}; {_effs_text(effs)} → per step {sm['step']['value']} "
              f"({' → '.join(sm['step']['trace'])}), at end {sm['end']['value']}.")
        else:
            w(f"\nCap {cap['bounds']} per step vs at end: no difference found.")
    eff = report.get("effects")
    if eff:
        w("\n## Effect combinations: numbers (102 / mk:5.11) and replacements (mk:5.12.C)\n")
        w("Z3 models written from the rule text (`properties/z3_numbers.py`, "
          "`properties/z3_replacement.py`), using the priority criteria of the compiled policy "
          "table (`properties/z3_priority.beats`). *engine = model*: the engine's results on every "
          "multiset of at most three effects, tabulated and encoded as a lookup; Z3 is asked "
          "for a combination where the model differs (unsat = none; numbers: one query per "
          "built-in value). *order-independent*: the model "
          "by a Z3 proof (adjacent transpositions generate every permutation), the engine by an "
          "exhaustive check of every ordered list. Numbers family: set/add × strong/weak × "
          "continuous/one-shot × timestamp 0..2 × two values, built-in modifier absent/present; "
          "replacement family: the 96 effects of the priority domain.\n")
        w("| policy | part | combinations | mismatches | engine errors | ordered lists | order differences | ties (none applies) |")
        w("|---|---|---:|---:|---:|---:|---:|---:|")

        def mism(c: Mapping[str, Any]) -> str:
            return f"{c['mismatches']}{'+' if c.get('mismatches_capped') else ''}"

        for name, parts in eff.items():
            n, r = parts["numbers"], parts["replacement"]
            w(f"| {name} | numbers ({n['procedure']}) | {n['combinations']} | {mism(n)} | {n['engine_errors']} | "
              f"{n['ordered_lists']} | {n['order_differences']} | {n['tied_combinations']} |")
            w(f"| {name} | replacement (mk:5.12.C) | {r['combinations']} | {mism(r)} | {r['engine_errors']} | "
              f"{r['ordered_lists']} | {r['order_differences']} | {r['tied_sets']} |")
        if report.get("counterexamples"):
            w("\nCounterexamples written as `hkk-case/1` files (`then` = the model's result): "
              + ", ".join(f"`{p}`" for p in report["counterexamples"]))
    w("")
    return "\n".join(L)


def _print_table(report: Mapping[str, Any], console: Any = None) -> None:
    from rich.console import Console
    from rich.table import Table

    if console is None:
        console = Console() if sys.stdout.isatty() else Console(width=120)
    t = Table(title="kodex prove")
    for col, kw in (("property", {}), ("policy", {}), ("verdict", {}), ("status", {}), ("ms", {"justify": "right"})):
        t.add_column(col, **kw)
    style = {"ok": "green", "known": "cyan", "finding": "yellow", "NEW": "bold red", "FAIL": "bold red"}
    for c in report["checks"]:
        t.add_row(c.property, c.policy, c.verdict, f"[{style.get(c.status, '')}]{c.status}[/]", f"{c.ms:.1f}")
    console.print(t)
    failed = [c for c in report["checks"] if c.failed]
    console.print(
        f"exit {report['exit_code']}: {len(report['checks'])} rows, {len(failed)} failing, "
        f"{report['elapsed_ms']} ms"
    )
    for c in failed:
        console.print(f"[bold red]{c.property} ({c.policy}): {c.verdict}[/] — {c.detail}")


def run_prove(
    out_dir: Path = Path("reports"),
    *,
    policy: str | None = None,
    json_path: Path | str | None = None,
    allowlist_path: Path | str | None = None,
    table: Mapping[str, Any] | None = None,
    console: Any = None,
    max_effects: int = MAX_EFFECTS,
    quiet: bool = False,
) -> int:
    """Run all checks, print the table, write ``prove.md``/``prove.json`` into ``out_dir``
    (and the JSON also to ``json_path``); returns the exit code. Each phase is said on
    stderr as it starts and every few seconds while it runs, unless ``quiet``."""
    from .progress import Progress
    names = policy_names(table) if table is not None else policy_names()
    if policy is not None:
        if policy not in names:
            print(f"kodex prove: unknown policy {policy!r}; defined: {', '.join(names)}", file=sys.stderr)
            return 2
        names = [policy]
    policies = [compile_policy(n, table=table) for n in names]
    allow = load_allowlist(allowlist_path)
    out = Path(out_dir)
    report = collect(policies, allowlist=allow, include_number_setting=policy in (None, "mk-5.10"),
                     max_effects=max_effects if table is None else 0,
                     counterexample_dir=out / COUNTEREXAMPLES,
                     progress=Progress("prove", enabled=not quiet))
    _print_table(report, console)
    data = to_json(report)
    # atomically, as a pair (prove.md names the SHA-256 of prove.json): an interrupt
    # leaves the previous reports, never a half-written or mismatched one
    write_pair(out / "prove.md", to_markdown(report), out / "prove.json", data)
    if json_path is not None:
        write_json(json_path, data)
    return report["exit_code"]


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="kodex prove", description=__doc__.splitlines()[0])
    ap.add_argument("--json", metavar="FILE", help="also write the JSON report to FILE")
    ap.add_argument("--policy", metavar="NAME", help="check only this priority policy")
    ap.add_argument("--out-dir", metavar="DIR", default="reports", help="where prove.md/prove.json go")
    ap.add_argument("--allowlist", metavar="FILE", help="known gap classes (default properties/gaps_allowlist.yaml)")
    ap.add_argument("--max-effects", metavar="N", type=int, default=MAX_EFFECTS,
                    help=f"effects per combination in the number and replacement rows (default {MAX_EFFECTS}; "
                         "0 skips those rows); counterexamples go to DIR/prove-counterexamples/")
    ap.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")
    ap.epilog = ("examples:\n  kodex prove                       every policy; reports/prove.md and .json\n"
                 "  kodex prove --policy mk-5.10 --json p.json\n"
                 "exit status: 0 every property holds (known gaps allowed); 1 a failing property or a new "
                 "gap; 2 bad usage (an unknown policy).\n"
                 "Each phase is said on stderr as it starts and every few seconds while it runs (-q: not).")
    ap.formatter_class = argparse.RawDescriptionHelpFormatter
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(list(argv) if argv is not None else None)
    return run_prove(Path(args.out_dir), policy=args.policy, json_path=args.json, allowlist_path=args.allowlist,
                     max_effects=args.max_effects, quiet=args.quiet)


if __name__ == "__main__":
    sys.exit(main())
