"""Z3 proofs about the priority policies of ``model.priority``.

Clauses covered: HKK Kódex VI. rész 102.0-102.4 (with 100.0/101.0 for the strong wording and
part I: points of a title are tried in their order) -- policy ``kodex-102``; M.A.G.U.S.
mk:5.10.C-H -- policy ``mk-5.10``.

Everything is encoded FROM THE COMPILED ``Policy`` (the same ``Criterion`` rows the engine's
comparator runs), over the finite attribute domain of ``model.priority.ATTRIBUTES``
(bools, a bounded int for the timestamp, an enum sort per enum attribute):

* ``beats(a, b)``: lexicographic -- the first criterion that distinguishes the pair says a wins;
* properties: irreflexive, asymmetric, transitive (three effects), and per criterion "live"
  (it decides at least one pair the preceding ones leave open -- no dead rule).  A proof is
  an unsat negation; when the negation is sat the model is decoded into Effects;
* the *flat* reading: the criteria marked ``mindig`` (102.1 and 102.2 both say "mindig",
  always) taken as independent rules -- a flat union at their position -- is checked for
  asymmetry, and is expected to fail (strong one-shot vs weak continuous);
* gap classes: the pairs a policy leaves unresolved, grouped by *why* (a signature over the
  criteria and the unread attributes), enumerated with Z3 (one class per model, class
  blocked, repeat) and cross-checked against the Python comparator;
* equivalence: ``Policy.resolve`` (winner and clause) against the Z3 relation on every pair,
  and transitivity consequences on every triple, as single Z3 queries over the whole domain
  (the Python table is encoded as a lookup).
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

import z3

from model.priority import ATTRIBUTES, Criterion, Effect, Policy, attribute_domain, describe

__all__ = [
    "Check",
    "GapClass",
    "Z3Effect",
    "beats",
    "check_equivalence",
    "check_flat_reading",
    "check_policy",
    "check_structure",
    "enumerate_gaps",
    "flat_beats",
    "python_gap_classes",
    "tie_signature",
    "unresolved",
]

CONFLICT = 1000

# --------------------------------------------------------------------------- sorts / symbols

_ENUMS: dict[str, tuple[z3.SortRef, dict[Any, z3.ExprRef]]] = {}


def _enum(attr: str) -> tuple[z3.SortRef, dict[Any, z3.ExprRef]]:
    if attr not in _ENUMS:
        domain = ATTRIBUTES[attr][1]
        names = ["none" if v is None else str(v) for v in domain]
        sort, consts = z3.EnumSort(f"HKK_{attr}", names)
        _ENUMS[attr] = (sort, dict(zip(domain, consts)))
    return _ENUMS[attr]


def _const(attr: str, v: Any) -> z3.ExprRef:
    kind = ATTRIBUTES[attr][0]
    if kind == "bool":
        return z3.BoolVal(bool(v))
    if kind == "int":
        return z3.IntVal(int(v))
    return _enum(attr)[1][v]


Z3Effect = dict  # attribute name -> z3 expression


def _sym(prefix: str) -> Z3Effect:
    out: Z3Effect = {}
    for attr, (kind, _dom) in ATTRIBUTES.items():
        name = f"{prefix}.{attr}"
        if kind == "bool":
            out[attr] = z3.Bool(name)
        elif kind == "int":
            out[attr] = z3.Int(name)
        else:
            out[attr] = z3.Const(name, _enum(attr)[0])
    return out


def _in_domain(s: Z3Effect) -> list[z3.BoolRef]:
    return [
        z3.Or([s[attr] == z3.IntVal(v) for v in dom])
        for attr, (kind, dom) in ATTRIBUTES.items()
        if kind == "int"
    ]


def _equals(s: Z3Effect, e: Effect) -> z3.BoolRef:
    return z3.And([s[attr] == _const(attr, getattr(e, attr)) for attr in ATTRIBUTES])


def _decode(m: z3.ModelRef, s: Z3Effect) -> Effect:
    vals: dict[str, Any] = {}
    for attr, (kind, dom) in ATTRIBUTES.items():
        v = m.eval(s[attr], model_completion=True)
        if kind == "bool":
            vals[attr] = z3.is_true(v)
        elif kind == "int":
            vals[attr] = v.as_long()
        else:
            consts = _enum(attr)[1]
            vals[attr] = next(k for k, c in consts.items() if z3.eq(c, v))
    return Effect(**vals)


# --------------------------------------------------------------------------- encoding


def win(c: Criterion, a: Z3Effect, b: Z3Effect) -> z3.BoolRef:
    """The criterion alone says ``a`` beats ``b``."""
    x, y = a[c.attribute], b[c.attribute]
    if c.type == "prefer":
        if c.prefer is True:
            return z3.And(x, z3.Not(y))
        if c.prefer is False:
            return z3.And(z3.Not(x), y)
        return x > y if c.prefer == "greater" else x < y
    terms = [
        z3.And(x == _const(c.attribute, v), y == _const(c.attribute, w))
        for v, w in sorted(c.pairs, key=repr)
    ]
    return z3.Or(terms) if terms else z3.BoolVal(False)


def decides(c: Criterion, a: Z3Effect, b: Z3Effect) -> z3.BoolRef:
    return z3.Or(win(c, a, b), win(c, b, a))


def _lex(steps: list[tuple[z3.BoolRef, z3.BoolRef]]) -> z3.BoolRef:
    """steps: (wins(a, b), distinguishes(a, b)) in order -> lexicographic beats."""
    terms, still_open = [], []
    for w, d in steps:
        terms.append(z3.And(*still_open, w))
        still_open.append(z3.Not(d))
    return z3.Or(terms) if terms else z3.BoolVal(False)


def beats(policy: Policy, a: Z3Effect, b: Z3Effect) -> z3.BoolRef:
    return _lex([(win(c, a, b), decides(c, a, b)) for c in policy.criteria])


def unresolved(policy: Policy, a: Z3Effect, b: Z3Effect) -> z3.BoolRef:
    return z3.And([z3.Not(decides(c, a, b)) for c in policy.criteria])


def flat_beats(policy: Policy, a: Z3Effect, b: Z3Effect) -> z3.BoolRef:
    """The flat reading: the ``mindig`` criteria form one unordered union ("beats if any of
    them says so") at the position of the first of them; the rest stay ordered."""
    steps, group_done = [], False
    group = [c for c in policy.criteria if c.mindig]
    for c in policy.criteria:
        if c.mindig:
            if not group_done:
                steps.append(
                    (z3.Or([win(g, a, b) for g in group]), z3.Or([decides(g, a, b) for g in group]))
                )
                group_done = True
            continue
        steps.append((win(c, a, b), decides(c, a, b)))
    return _lex(steps)


def _clause_index(policy: Policy) -> dict[str, int]:
    idx: dict[str, int] = {}
    for i, c in enumerate(policy.criteria):
        idx.setdefault(c.clause, i)
    return idx


def verdict_code(policy: Policy, a: Z3Effect, b: Z3Effect) -> z3.ArithRef:
    """0 unresolved; +k / -k: a / b wins by the clause with index k-1; CONFLICT+k: both."""
    cidx = _clause_index(policy)
    expr: z3.ArithRef = z3.IntVal(0)
    for c in reversed(policy.criteria):
        k = cidx[c.clause] + 1
        wa, wb = win(c, a, b), win(c, b, a)
        code = z3.If(z3.And(wa, wb), CONFLICT + k, z3.If(wa, k, -k))
        expr = z3.If(z3.Or(wa, wb), code, expr)
    return expr


def python_code(policy: Policy, a: Effect, b: Effect, cidx: Mapping[str, int]) -> int:
    v = policy.resolve(a, b)
    if v.clause is None:
        return 0
    k = cidx[v.clause] + 1
    if v.conflict:
        return CONFLICT + k
    return k if v.winner == "a" else -k


# --------------------------------------------------------------------------- checks


@dataclass
class Check:
    """One row of the prove table.

    verdict: "proved" | "counterexample" | "gap" | "unknown"
    status:  "ok" | "known" (allow-listed gap) | "finding" (expected counterexample, a
             finding for the rules editors) | "NEW" (gap not allow-listed) | "FAIL"
    """

    property: str
    policy: str
    verdict: str
    status: str
    ms: float
    detail: str = ""
    witness: list[Effect] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        return self.status in ("NEW", "FAIL") or self.verdict == "unknown"

    def to_json(self) -> dict[str, Any]:
        out = {
            "property": self.property,
            "policy": self.policy,
            "verdict": self.verdict,
            "status": self.status,
            "ms": round(self.ms, 2),
            "detail": self.detail,
        }
        if self.witness:
            out["witness"] = [effect_json(e) for e in self.witness]
        if self.data:
            out["data"] = self.data
        return out


def effect_json(e: Effect) -> dict[str, Any]:
    return {attr: getattr(e, attr) for attr in ATTRIBUTES} | {"text": describe(e)}


def _solve(constraints: Iterable[z3.BoolRef], syms: list[Z3Effect]) -> tuple[str, list[Effect]]:
    s = z3.Solver()
    for sym in syms:
        s.add(*_in_domain(sym))
    s.add(*constraints)
    r = s.check()
    if r == z3.sat:
        m = s.model()
        return "sat", [_decode(m, sym) for sym in syms]
    return ("unsat" if r == z3.unsat else "unknown"), []


def _fmt_pair(policy: Policy, effects: list[Effect]) -> str:
    names = "abc"
    return "; ".join(f"{names[i]} = {describe(e)}" for i, e in enumerate(effects))


def check_structure(policy: Policy) -> list[Check]:
    """Irreflexive, asymmetric, transitive, and every criterion live (no dead rule)."""
    a, b, c = _sym("a"), _sym("b"), _sym("c")
    out: list[Check] = []
    negations = [
        ("irreflexive", [beats(policy, a, a)], [a]),
        ("asymmetric", [beats(policy, a, b), beats(policy, b, a)], [a, b]),
        (
            "transitive",
            [beats(policy, a, b), beats(policy, b, c), z3.Not(beats(policy, a, c))],
            [a, b, c],
        ),
    ]
    for name, neg, syms in negations:
        t0 = time.perf_counter()
        res, model = _solve(neg, syms)
        ms = (time.perf_counter() - t0) * 1e3
        if res == "unsat":
            out.append(Check(name, policy.name, "proved", "ok", ms, "negation unsat"))
        elif res == "sat":
            verdicts = []
            for x, y in itertools.permutations(range(len(model)), 2):
                v = policy.resolve(model[x], model[y])
                if v.winner == "a" or v.conflict:
                    verdicts.append(f"{'abc'[x]} beats {'abc'[y]} by {v.clause}")
            out.append(
                Check(name, policy.name, "counterexample", "FAIL", ms,
                      _fmt_pair(policy, model) + (" — " + ", ".join(verdicts) if verdicts else ""),
                      model)
            )
        else:
            out.append(Check(name, policy.name, "unknown", "FAIL", ms, "solver returned unknown"))
    for i, crit in enumerate(policy.criteria):
        t0 = time.perf_counter()
        before = [z3.Not(decides(p, a, b)) for p in policy.criteria[:i]]
        res, model = _solve([*before, win(crit, a, b)], [a, b])
        ms = (time.perf_counter() - t0) * 1e3
        prop = f"live {crit.clause}"
        if res == "sat":
            out.append(Check(prop, policy.name, "proved", "ok", ms,
                             "decides e.g. " + _fmt_pair(policy, model), model))
        elif res == "unsat":
            out.append(Check(prop, policy.name, "counterexample", "FAIL", ms,
                             f"dead rule: criteria[{i}] ({crit.clause}) never decides a pair "
                             "the preceding criteria leave open"))
        else:
            out.append(Check(prop, policy.name, "unknown", "FAIL", ms, "solver returned unknown"))
    return out


def check_flat_reading(policy: Policy) -> list[Check]:
    """Flat reading of the ``mindig`` criteria: expected NOT asymmetric (a finding)."""
    group = [c for c in policy.criteria if c.mindig]
    if len(group) < 2:
        return []
    clauses = "∪".join(c.clause for c in group)
    a, b = _sym("a"), _sym("b")
    t0 = time.perf_counter()
    res, model = _solve([flat_beats(policy, a, b), flat_beats(policy, b, a)], [a, b])
    if res == "sat":
        # a readable instance: both sides agree on every attribute the group does not read,
        # at the first value of its domain
        read = {c.attribute for c in group}
        canon = [
            z3.And(a[attr] == b[attr], a[attr] == _const(attr, dom[0]))
            for attr, (_k, dom) in ATTRIBUTES.items()
            if attr not in read
        ] + [win(group[0], a, b)]  # present it as "a wins by the first clause of the group"
        res2, model2 = _solve([flat_beats(policy, a, b), flat_beats(policy, b, a), *canon], [a, b])
        if res2 == "sat":
            model = model2
    ms = (time.perf_counter() - t0) * 1e3
    prop = f"flat {clauses} asymmetric"
    if res == "unknown":
        return [Check(prop, policy.name, "unknown", "FAIL", ms, "solver returned unknown")]
    if res == "unsat":
        return [Check(prop, policy.name, "proved", "FAIL", ms,
                      "the flat reading is asymmetric: the recorded finding no longer reproduces")]
    ea, eb = model
    why_a = [c.clause for c in group if c.wins(ea, eb)]
    why_b = [c.clause for c in group if c.wins(eb, ea)]
    ordered = policy.resolve(ea, eb)
    detail = (
        f"{_fmt_pair(policy, model)} — flat: a beats b by {','.join(why_a)} and b beats a by "
        f"{','.join(why_b)}; ordered reading: winner {ordered.winner} by {ordered.clause}"
    )
    data = {
        "reading": f"flat union of {clauses} (each says 'mindig')",
        "a_beats_b_by": why_a,
        "b_beats_a_by": why_b,
        "ordered_verdict": {"winner": ordered.winner, "clause": ordered.clause},
    }
    return [Check(prop, policy.name, "counterexample", "finding", ms, detail, model, data)]


# --------------------------------------------------------------------------- gaps


def _relation_reason(c: Criterion, x: Any, y: Any) -> str:
    ranked = c.ranked
    if x not in ranked and y not in ranked:
        return "unranked-both"
    if (x in ranked) != (y in ranked):
        return "unranked-one"
    return "same-kind" if x == y else "unrelated"


def _reason_pred(c: Criterion, reason: str, a: Z3Effect, b: Z3Effect) -> z3.BoolRef:
    x, y = a[c.attribute], b[c.attribute]
    ranked = sorted(c.ranked, key=repr)
    rx = z3.Or([x == _const(c.attribute, v) for v in ranked]) if ranked else z3.BoolVal(False)
    ry = z3.Or([y == _const(c.attribute, v) for v in ranked]) if ranked else z3.BoolVal(False)
    if reason == "unranked-both":
        return z3.And(z3.Not(rx), z3.Not(ry))
    if reason == "unranked-one":
        return z3.Xor(rx, ry)
    if reason == "same-kind":
        return z3.And(rx, x == y)
    return z3.And(rx, ry, x != y)


def _relational(policy: Policy) -> list[Criterion]:
    return [c for c in policy.criteria if c.type in ("rank", "beats")]


def tie_signature(policy: Policy, a: Effect, b: Effect) -> tuple[str, ...]:
    """Why an unresolved pair is unresolved: the reason per rank/beats criterion, plus
    ``<attr>-unread`` for each attribute the policy neither reads nor declares ignored.
    (A prefer-criterion leaves a pair open only when both values are equal.)"""
    rel = _relational(policy)
    tokens = []
    for c in rel:
        r = _relation_reason(c, getattr(a, c.attribute), getattr(b, c.attribute))
        tokens.append(r if len(rel) == 1 else f"{c.attribute}-{r}")
    read = set(policy.read_attributes)
    tokens += [f"{attr}-unread" for attr in ATTRIBUTES if attr not in read and attr not in policy.ignores]
    return tuple(tokens)


def gap_id(policy: Policy, signature: tuple[str, ...]) -> str:
    return f"{policy.name}/tie-" + ("+".join(signature) if signature else "all-equal")


def _signature_pred(policy: Policy, signature: tuple[str, ...], a: Z3Effect, b: Z3Effect) -> z3.BoolRef:
    rel = _relational(policy)
    preds = []
    for c, tok in zip(rel, signature):
        reason = tok if len(rel) == 1 else tok[len(c.attribute) + 1:]
        preds.append(_reason_pred(c, reason, a, b))
    return z3.And(preds) if preds else z3.BoolVal(True)


def _why(policy: Policy, signature: tuple[str, ...]) -> dict[str, str]:
    rel = _relational(policy)
    reasons = dict(zip((id(c) for c in rel), signature))
    why = {}
    for c in policy.criteria:
        if c.type == "prefer":
            why[c.clause] = f"same {c.attribute}"
        else:
            tok = reasons[id(c)]
            order = c.rank if c.type == "rank" else sorted(c.pairs, key=repr)
            why[c.clause] = f"{c.attribute}: {tok} ({c.type}: {', '.join(map(str, order))})"
    for tok in signature[len(rel):]:
        why[tok] = f"attribute {tok[:-len('-unread')]} is read by no criterion and not declared ignored"
    return why


@dataclass
class GapClass:
    id: str
    policy: str
    signature: tuple[str, ...]
    clauses: list[str]
    why: dict[str, str]
    example: tuple[Effect, Effect]
    pairs: int = 0  # ordered pairs of the domain in the class (diagonal included)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "policy": self.policy,
            "clauses": self.clauses,
            "why": self.why,
            "example": [effect_json(e) for e in self.example],
            "ordered_pairs": self.pairs,
        }


def python_gap_classes(policy: Policy) -> dict[str, GapClass]:
    """Unresolved pairs of the domain, grouped by signature, by brute force in Python."""
    dom = list(attribute_domain(policy))
    out: dict[str, GapClass] = {}
    for x in dom:
        for y in dom:
            v = policy.resolve(x, y)
            if v.winner is not None or v.conflict:
                continue
            sig = tie_signature(policy, x, y)
            gid = gap_id(policy, sig)
            if gid not in out:
                out[gid] = GapClass(gid, policy.name, sig, [c.clause for c in policy.criteria],
                                    _why(policy, sig), (x, y))
            out[gid].pairs += 1
    return out


def enumerate_gaps(policy: Policy, allowlist: set[str] | frozenset[str]) -> tuple[list[GapClass], list[Check]]:
    """Enumerate the unresolved classes with Z3 (block each found class, repeat until unsat),
    cross-check with the Python comparator, and classify against ``allowlist``."""
    a, b = _sym("a"), _sym("b")
    t0 = time.perf_counter()
    s = z3.Solver()
    s.add(*_in_domain(a), *_in_domain(b), unresolved(policy, a, b))
    found: list[tuple[str, tuple[str, ...]]] = []
    status = None
    for _ in range(256):
        r = s.check()
        if r != z3.sat:
            status = r
            break
        m = s.model()
        ea, eb = _decode(m, a), _decode(m, b)
        sig = tie_signature(policy, ea, eb)
        found.append((gap_id(policy, sig), sig))
        s.add(z3.Not(_signature_pred(policy, sig, a, b)))
    z3_ms = (time.perf_counter() - t0) * 1e3
    py = python_gap_classes(policy)
    checks: list[Check] = []
    if status != z3.unsat:
        checks.append(Check("gap enumeration", policy.name, "unknown", "FAIL", z3_ms,
                            f"enumeration did not terminate with unsat ({status})"))
    z3_ids = [gid for gid, _ in found]
    if set(z3_ids) != set(py):
        checks.append(Check("gap enumeration", policy.name, "counterexample", "FAIL", z3_ms,
                            f"Z3 classes {sorted(z3_ids)} != Python classes {sorted(py)}"))
    classes = sorted((py[g] for g in z3_ids if g in py), key=lambda g: g.id)
    per = z3_ms / max(1, len(classes))
    for g in classes:
        known = g.id in allowlist
        ex = _fmt_pair(policy, list(g.example))
        checks.append(Check(f"gap {g.id}", policy.name, "gap", "known" if known else "NEW", per,
                            f"{g.pairs} ordered pairs, e.g. {ex}" + ("" if known else " — NOT IN ALLOWLIST"),
                            list(g.example), {"clauses": g.clauses}))
    return classes, checks


# --------------------------------------------------------------------------- equivalence


def _or(conds: Sequence[z3.BoolRef]) -> z3.BoolRef:
    """z3.Or of Boolean terms, made by the C API directly: the prover's lookup tables
    (`_lookup` here, `properties.z3_numbers.lookup`) have tens of thousands of them, and
    z3.Or's per-argument coercion was most of the prover's time."""
    if len(conds) == 1:
        return conds[0]
    ctx = conds[0].ctx
    args = (z3.Ast * len(conds))(*[c.as_ast() for c in conds])
    return z3.BoolRef(z3.Z3_mk_or(ctx.ref(), len(conds), args), ctx)


def _ite(c: z3.BoolRef, a: z3.ArithRef, b: z3.ArithRef) -> z3.ArithRef:
    """z3.If(c, a, b) for an Int ``a`` and ``b``, by the C API (as `_or`)."""
    return z3.ArithRef(z3.Z3_mk_ite(c.ctx.ref(), c.as_ast(), a.as_ast(), b.as_ast()), c.ctx)


def _and(a: z3.BoolRef, b: z3.BoolRef) -> z3.BoolRef:
    """z3.And(a, b), by the C API (as `_or`)."""
    args = (z3.Ast * 2)(a.as_ast(), b.as_ast())
    return z3.BoolRef(z3.Z3_mk_and(a.ctx.ref(), 2, args), a.ctx)


def _lookup(table: Mapping[tuple[int, int], int], dom: list[Effect], ea: list[z3.BoolRef],
            eb: list[z3.BoolRef], default: int = 0) -> z3.ArithRef:
    """An Int term equal to ``table[i, j]`` when a is dom[i] and b is dom[j]."""
    rows = []
    for i in range(len(dom)):
        by_val: dict[int, list[z3.BoolRef]] = {}
        for j in range(len(dom)):
            v = table[i, j]
            if v != default:
                by_val.setdefault(v, []).append(eb[j])
        row: z3.ArithRef = z3.IntVal(default)
        for v, conds in sorted(by_val.items()):
            row = _ite(_or(conds), z3.IntVal(v), row)
        rows.append(row)
    expr: z3.ArithRef = z3.IntVal(default)
    for i in range(len(dom) - 1, -1, -1):
        expr = _ite(ea[i], rows[i], expr)
    return expr


def _beats_lookup(table: Mapping[tuple[int, int], int], dom: list[Effect],
                  ea: list[z3.BoolRef], eb: list[z3.BoolRef]) -> z3.BoolRef:
    terms = []
    for i in range(len(dom)):
        ys = [eb[j] for j in range(len(dom)) if table[i, j] > 0]
        if ys:
            terms.append(_and(ea[i], _or(ys)))
    return _or(terms) if terms else z3.BoolVal(False)


def check_equivalence(policy: Policy) -> tuple[dict[str, Any], list[Check]]:
    """Python comparator vs Z3 relation on every pair (winner and clause) and on every
    triple (the transitivity consequence beats(a,b) ∧ beats(b,c) → beats(a,c))."""
    dom = list(attribute_domain(policy))
    n = len(dom)
    cidx = _clause_index(policy)
    t0 = time.perf_counter()
    table = {(i, j): python_code(policy, x, y, cidx) for i, x in enumerate(dom) for j, y in enumerate(dom)}
    a, b, c = _sym("a"), _sym("b"), _sym("c")
    E = {nm: [_equals(sym, e) for e in dom] for nm, sym in (("a", a), ("b", b), ("c", c))}
    s = z3.Solver()
    s.add(*_in_domain(a), *_in_domain(b))
    s.add(verdict_code(policy, a, b) != _lookup(table, dom, E["a"], E["b"]))
    mismatches: list[tuple[Effect, Effect]] = []
    r = s.check()
    while r == z3.sat and len(mismatches) < 20:
        m = s.model()
        ea, eb = _decode(m, a), _decode(m, b)
        mismatches.append((ea, eb))
        s.add(z3.Not(z3.And(_equals(a, ea), _equals(b, eb))))
        r = s.check()
    pair_ms = (time.perf_counter() - t0) * 1e3
    pair_status = "unknown" if r == z3.unknown and not mismatches else ("sat" if mismatches else "unsat")

    # triples: Python-side count of violated transitivity consequences (bitsets) and a Z3
    # query comparing the consequence under the Python table with the one under Z3's beats
    t1 = time.perf_counter()
    rows = [sum(1 << j for j in range(n) if table[i, j] > 0) for i in range(n)]
    py_violations = 0
    for i in range(n):
        ri = rows[i]
        for j in range(n):
            if ri >> j & 1:
                py_violations += (rows[j] & ~ri).bit_count()
    P = {
        ("a", "b"): _beats_lookup(table, dom, E["a"], E["b"]),
        ("b", "c"): _beats_lookup(table, dom, E["b"], E["c"]),
        ("a", "c"): _beats_lookup(table, dom, E["a"], E["c"]),
    }
    st = z3.Solver()
    st.add(*_in_domain(a), *_in_domain(b), *_in_domain(c))
    tr_py = z3.Implies(z3.And(P["a", "b"], P["b", "c"]), P["a", "c"])
    tr_z3 = z3.Implies(z3.And(beats(policy, a, b), beats(policy, b, c)), beats(policy, a, c))
    rt = st.check(tr_py != tr_z3)
    triple_mismatch = None
    if rt == z3.sat:
        m = st.model()
        triple_mismatch = [_decode(m, a), _decode(m, b), _decode(m, c)]
    triple_ms = (time.perf_counter() - t1) * 1e3

    counts = {
        "domain_effects": n,
        "pairs_checked": n * n,
        "pair_mismatches": len(mismatches),
        "triples_checked": n ** 3,
        "triple_mismatches": 0 if rt == z3.unsat else (1 if rt == z3.sat else None),
        "python_transitivity_violations": py_violations,
    }
    checks = []
    if pair_status == "unsat":
        checks.append(Check("equivalence pairs", policy.name, "proved", "ok", pair_ms,
                            f"{n * n} pairs: Policy.resolve (winner, clause) == Z3, 0 mismatches"))
    elif pair_status == "sat":
        checks.append(Check("equivalence pairs", policy.name, "counterexample", "FAIL", pair_ms,
                            f"{len(mismatches)}{'+' if len(mismatches) >= 20 else ''} mismatching pairs, e.g. "
                            + _fmt_pair(policy, list(mismatches[0])), list(mismatches[0])))
    else:
        checks.append(Check("equivalence pairs", policy.name, "unknown", "FAIL", pair_ms, "solver returned unknown"))
    if rt == z3.unsat:
        checks.append(Check("equivalence triples", policy.name, "proved", "ok", triple_ms,
                            f"{n ** 3} triples: transitivity consequence agrees, 0 mismatches; "
                            f"{py_violations} violating triples in the Python table"))
    elif rt == z3.sat:
        checks.append(Check("equivalence triples", policy.name, "counterexample", "FAIL", triple_ms,
                            "transitivity consequence differs: " + _fmt_pair(policy, triple_mismatch),
                            triple_mismatch))
    else:
        checks.append(Check("equivalence triples", policy.name, "unknown", "FAIL", triple_ms, "solver returned unknown"))
    return counts, checks


def check_policy(policy: Policy, allowlist: set[str] | frozenset[str]) -> dict[str, Any]:
    """All checks for one policy: ``{"checks": [...], "gaps": [...], "equivalence": {...}}``."""
    checks = check_structure(policy)
    checks += check_flat_reading(policy)
    gaps, gap_checks = enumerate_gaps(policy, allowlist)
    checks += gap_checks
    counts, eq_checks = check_equivalence(policy)
    checks += eq_checks
    return {"checks": checks, "gaps": gaps, "equivalence": counts}
