"""Z3 model of the number computation (Kódex 102 for ``kodex``; mk:5.11 with mk:5.10 for
``kodex-mk``) checked against the engine's ``model.numbers.compute`` over every combination of
up to three effects of a generated family.

Clauses covered
---------------
* HKK Kódex VI. rész 102.0-102.4 (procedure ``kodex-102``): of the settings of one number, the
  one that beats every other setting with a *different* value prevails (102.1 strong wording,
  102.2 continuous over one-shot, 102.3 later over earlier, 102.4 ability kinds — the very
  criteria of ``model/priority_policies.yaml``, encoded by ``properties/z3_priority.beats``);
  none prevails when they are tied (a declared gap); a modifier is overwritten when a prevailing
  setting beats it, else added; the built-in modifiers (counters, bonuses) are the effect
  ``numbers.BUILTIN`` (weak, continuous, latest) that only a strong setting overwrites.
* M.A.G.U.S. mk:5.11.B-D with mk:5.10.E-H (procedure ``mk-5.11``, policy ``mk-5.10``): the gyenge
  pass (its prevailing setting, then its modifiers and the built-in ones), then the erős pass
  (its prevailing setting, then its modifiers); tied settings of a pass: none of them applies.

The model is written from the rule text (above), not from the engine's code. The family
(``FAMILY``): op set/add × gyenge/erős × continuous (a card's entry, ability ``static``) /
one-shot (a timed effect, not an ability) × timestamp 0..2 × two values per op; plus a built-in
modifier absent/present. Limits (mk:5.11.A korlátozó tényező) are not in the family.

What is shown, per procedure:
* engine = model: one Z3 query per built-in value over every multiset of at most
  ``MAX_EFFECTS`` effects: the engine's results (value, "tied settings left out") are tabulated
  in Python and encoded as a lookup; the query "the model differs from the table" is unsat
  (else each model is a counterexample, decoded, and written as a ``hkk-case/1`` file);
* order independence: of the model, proved in Z3 (two transpositions generate every
  permutation of three slots); of the engine, checked exhaustively on every ordered list;
* a strong setting that prevails makes the weak terms irrelevant (102.1 / mk:5.10.E), and the
  prevailing setting is unique up to its value: Z3 proofs on the model (negation unsat).
* costs (99.7, mk:5.01.C; mk:5.11 on costs, ``check_costs``): a part of a summoning cost is the
  same procedure from the printed part (``COST_BASE``) with no built-in modifier, never below 0
  (rb7:idezesi-kihozasi-koltseg); the engine's ``model.numbers.cost_part`` equals
  ``max(0, model)`` on every multiset of the family — values below 0 occur, so the floor is
  exercised. Counterexamples are written as cases on a cost in A's hand.
"""

from __future__ import annotations

import hashlib
import itertools
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

import yaml
import z3

from model import numbers
from model.numbers import BUILTIN, Term
from model.priority import Effect, Policy, compile_policy
from properties.z3_priority import Check, _const, _ite, _or, beats

__all__ = [
    "ABSENT",
    "BASE",
    "COST_BASE",
    "check_costs",
    "BUILTINS",
    "FAMILY",
    "Kind",
    "NumberModel",
    "check_numbers",
    "clear_cases",
    "engine_table",
    "lookup",
    "transpositions",
    "model_for",
    "multisets",
    "number_case",
    "write_cases",
]

BASE = 5                  # the printed number
SET_VALUES = (2, 4)       # settings (two values: contradicting settings exist)
ADD_VALUES = (2, -1)      # modifiers (an increase and a decrease)
BUILTINS = (0, 3)         # the built-in modifier: absent / present (3 muscle counters in a case)
TIMESTAMPS = (0, 1, 2)
COST_BASE = 1             # a printed cost part: the family's modifiers take it below 0
MAX_EFFECTS = 3
MAX_MISMATCHES = 20
ERROR = -1                # the engine raised
_VMIN = -100              # value codes: (value - _VMIN) * 2 + unresolved

PROCEDURES = {"kodex-102": "kodex-102", "mk-5.10": "mk-5.11"}
CLAUSES = {
    "kodex-102": ["102.0", "102.1", "102.2", "102.3", "102.4"],
    "mk-5.10": ["mk:5.11.B", "mk:5.11.C", "mk:5.11.D", "mk:5.10.E", "mk:5.10.G", "mk:5.10.H"],
}
STRONG_CLAUSE = {"kodex-102": "102.1", "mk-5.10": "mk:5.10.E"}
RULESET = {"kodex-102": "kodex", "mk-5.10": "kodex-mk"}


# --------------------------------------------------------------------------- the family


@dataclass(frozen=True)
class Kind:
    """One effect of the family."""

    op: str            # "set" | "add"
    value: int
    strong: bool
    continuous: bool   # a card's continuous entry (ability static) / a one-shot timed effect
    timestamp: int

    @property
    def attrs(self) -> Effect:
        return Effect(strong=self.strong, continuous=self.continuous, timestamp=self.timestamp,
                      ability="static" if self.continuous else None)

    def term(self, ident: str | None = None) -> Term:
        a = self.attrs
        return Term(self.op, self.value, Effect(a.strong, a.continuous, a.timestamp, a.ability, id=ident))

    def text(self) -> str:
        what = f"set {self.value}" if self.op == "set" else f"{self.value:+d}"
        return (f"{'strong' if self.strong else 'weak'} {'continuous' if self.continuous else 'one-shot'} "
                f"{what} t{self.timestamp}")


FAMILY: tuple[Kind, ...] = tuple(
    Kind(op, v, strong, cont, t)
    for op in ("set", "add")
    for strong in (False, True)
    for cont in (False, True)
    for t in TIMESTAMPS
    for v in (SET_VALUES if op == "set" else ADD_VALUES)
)
ABSENT = len(FAMILY)      # the index of an empty slot (sorts after every kind)


def multisets(n: int, size: int = MAX_EFFECTS) -> Iterator[tuple[int, ...]]:
    """Every multiset of at most ``size`` of ``n`` kinds, as a sorted ``size``-tuple of indices in
    ``0..n`` (``n`` = an empty slot, sorting last)."""
    return itertools.combinations_with_replacement(range(n + 1), size)


def lookup(table: Mapping[tuple[int, ...], int], E: Sequence[Sequence[z3.BoolRef]]) -> z3.ArithRef:
    """An Int term equal to ``table[i, j, ...]`` when slot 0, 1, ... hold kinds i <= j <= ...
    (``E[s][i]``: slot s holds kind i). Only meaningful on sorted slots."""
    default = Counter(table.values()).most_common(1)[0][0]
    n, depth = len(E[0]), len(E)
    consts: dict[int, z3.ArithRef] = {}

    def val(v: int) -> z3.ArithRef:
        if v not in consts:
            consts[v] = z3.IntVal(v)
        return consts[v]

    def rec(prefix: tuple[int, ...], start: int) -> z3.ArithRef:
        s = len(prefix)
        out: z3.ArithRef = val(default)
        if s == depth - 1:
            by: dict[int, list[z3.BoolRef]] = {}
            for k in range(start, n):
                v = table[prefix + (k,)]
                if v != default:
                    by.setdefault(v, []).append(E[s][k])
            for v, conds in sorted(by.items()):
                out = _ite(_or(conds), val(v), out)
            return out
        for j in range(n - 1, start - 1, -1):
            out = _ite(E[s][j], rec(prefix + (j,), j), out)
        return out

    return rec((), 0)


def transpositions(n: int) -> list[tuple[int, ...]]:
    """The adjacent transpositions of n slots (they generate every permutation)."""
    out = []
    for i in range(n - 1):
        p = list(range(n))
        p[i], p[i + 1] = p[i + 1], p[i]
        out.append(tuple(p))
    return out


def index_of(E: Sequence[z3.BoolRef]) -> z3.ArithRef:
    """The index of the kind a slot holds (``E[i]``: it holds kind i; exactly one holds)."""
    return z3.Sum([z3.If(e, i, 0) for i, e in enumerate(E) if i])


def sorted_slots(E: Sequence[Sequence[z3.BoolRef]]) -> list[z3.BoolRef]:
    idx = [index_of(row) for row in E]
    return [idx[s] <= idx[s + 1] for s in range(len(idx) - 1)]


# --------------------------------------------------------------------------- Z3 slots


@dataclass
class Slot:
    present: z3.BoolRef
    is_set: z3.BoolRef
    strong: z3.BoolRef
    continuous: z3.BoolRef
    timestamp: z3.ArithRef
    value: z3.ArithRef

    @classmethod
    def fresh(cls, name: str) -> "Slot":
        return cls(z3.Bool(f"{name}.present"), z3.Bool(f"{name}.set"), z3.Bool(f"{name}.strong"),
                   z3.Bool(f"{name}.continuous"), z3.Int(f"{name}.timestamp"), z3.Int(f"{name}.value"))

    def domain(self) -> list[z3.BoolRef]:
        return [
            z3.Or([self.timestamp == t for t in TIMESTAMPS]),
            z3.If(self.is_set, z3.Or([self.value == v for v in SET_VALUES]),
                  z3.Or([self.value == v for v in ADD_VALUES])),
        ]

    def holds(self, k: Kind) -> z3.BoolRef:
        return z3.And(self.present, self.is_set == (k.op == "set"), self.strong == k.strong,
                      self.continuous == k.continuous, self.timestamp == k.timestamp, self.value == k.value)

    def kinds(self) -> list[z3.BoolRef]:
        """``[holds kind 0, ..., holds kind n-1, empty]``."""
        return [self.holds(k) for k in FAMILY] + [z3.Not(self.present)]

    def effect(self) -> dict[str, z3.ExprRef]:
        """The priority attributes (a ``z3_priority.Z3Effect``): a continuous entry is a static
        ability, a one-shot timed effect is no ability, neither is prohibiting."""
        return {
            "strong": self.strong,
            "continuous": self.continuous,
            "timestamp": self.timestamp,
            "ability": z3.If(self.continuous, _const("ability", "static"), _const("ability", None)),
            "prohibiting": z3.BoolVal(False),
        }

    def without_weak(self) -> "Slot":
        return Slot(z3.And(self.present, self.strong), self.is_set, self.strong, self.continuous,
                    self.timestamp, self.value)


def _const_effect(e: Effect) -> dict[str, z3.ExprRef]:
    return {"strong": z3.BoolVal(e.strong), "continuous": z3.BoolVal(e.continuous),
            "timestamp": z3.IntVal(e.timestamp), "ability": _const("ability", e.ability),
            "prohibiting": z3.BoolVal(e.prohibiting)}


def decode(m: z3.ModelRef, E: Sequence[Sequence[z3.BoolRef]]) -> tuple[int, ...]:
    out = []
    for row in E:
        out.append(next(i for i, e in enumerate(row) if z3.is_true(m.eval(e, model_completion=True))))
    return tuple(out)


# --------------------------------------------------------------------------- the model


@dataclass
class NumberModel:
    """The model's result on symbolic slots."""

    value: z3.ArithRef
    unresolved: z3.BoolRef                 # settings were tied: none of them applies
    has_setting: z3.BoolRef
    setting_value: z3.ArithRef
    #: groups of (slot prevails, its value): within a group at most one value may prevail
    prevailing: list[list[tuple[z3.BoolRef, z3.ArithRef]]] = field(default_factory=list)

    def code(self) -> z3.ArithRef:
        return (self.value - _VMIN) * 2 + z3.If(self.unresolved, 1, 0)


def _prevailing(pol: Policy, slots: Sequence[Slot], member: Sequence[z3.BoolRef]) -> list[z3.BoolRef]:
    """Per slot: it is a setting among ``member`` that beats every other one with a different value."""
    E = [s.effect() for s in slots]
    out = []
    for i, s in enumerate(slots):
        others = [z3.Implies(member[j], z3.Or(slots[j].value == s.value, beats(pol, E[i], E[j])))
                  for j in range(len(slots)) if j != i]
        out.append(z3.And(member[i], *others))
    return out


def _choose_value(flags: Sequence[z3.BoolRef], slots: Sequence[Slot], default: z3.ArithRef) -> z3.ArithRef:
    v = default
    for f, s in reversed(list(zip(flags, slots))):
        v = z3.If(f, s.value, v)
    return v


def model_102(pol: Policy, slots: Sequence[Slot], builtin: z3.ArithRef, base: int = BASE) -> NumberModel:
    """Kódex 102 (procedure kodex-102)."""
    E = [s.effect() for s in slots]
    sets = [z3.And(s.present, s.is_set) for s in slots]
    prevail = _prevailing(pol, slots, sets)
    has = z3.Or(prevail)
    setting = _choose_value(prevail, slots, z3.IntVal(base))
    value: z3.ArithRef = z3.If(has, setting, z3.IntVal(base))
    for j, s in enumerate(slots):
        overwritten = z3.Or([z3.And(prevail[i], beats(pol, E[i], E[j])) for i in range(len(slots))])
        value = value + z3.If(z3.And(s.present, z3.Not(s.is_set), z3.Not(overwritten)), s.value, 0)
    b = _const_effect(BUILTIN)
    builtin_overwritten = z3.Or([z3.And(prevail[i], beats(pol, E[i], b)) for i in range(len(slots))])
    value = value + z3.If(builtin_overwritten, 0, builtin)
    return NumberModel(value, z3.And(z3.Or(sets), z3.Not(has)), has, setting,
                       [list(zip(prevail, (s.value for s in slots)))])


def model_mk(pol: Policy, slots: Sequence[Slot], builtin: z3.ArithRef, base: int = BASE) -> NumberModel:
    """mk:5.11.B-D with mk:5.10 (procedure mk-5.11): the gyenge pass, then the erős pass."""
    value: z3.ArithRef = z3.IntVal(base)
    unresolved, groups, has_any = [], [], []
    setting: z3.ArithRef = z3.IntVal(base)
    for strong in (False, True):
        in_pass = [s.strong if strong else z3.Not(s.strong) for s in slots]
        sets = [z3.And(s.present, s.is_set, p) for s, p in zip(slots, in_pass)]
        prevail = _prevailing(pol, slots, sets)
        has = z3.Or(prevail)
        pass_setting = _choose_value(prevail, slots, z3.IntVal(base))
        value = z3.If(has, pass_setting, value)                 # 5.11.B: the setting first
        value = value + z3.Sum([z3.If(z3.And(s.present, z3.Not(s.is_set), p), s.value, 0)
                                for s, p in zip(slots, in_pass)])  # 5.11.C: then the modifiers
        if not strong:
            value = value + builtin                            # the built-in ones are gyenge
        unresolved.append(z3.And(z3.Or(sets), z3.Not(has)))
        groups.append(list(zip(prevail, (s.value for s in slots))))
        setting = z3.If(has, pass_setting, setting)
        has_any.append(has)
    return NumberModel(value, z3.Or(unresolved), z3.Or(has_any), setting, groups)


def model_for(policy: str, slots: Sequence[Slot], builtin: z3.ArithRef, base: int = BASE) -> NumberModel:
    pol = compile_policy(policy)
    if PROCEDURES[policy] == "mk-5.11":
        return model_mk(pol, slots, builtin, base)
    return model_102(pol, slots, builtin, base)


def _builtin_var(name: str = "builtin") -> tuple[z3.ArithRef, z3.BoolRef]:
    b = z3.Int(name)
    return b, z3.Or([b == v for v in BUILTINS])


def model_value(policy: str, kinds: Sequence[Kind], builtin: int) -> tuple[int, bool]:
    """The model's (value, unresolved) on one concrete combination (for the case files)."""
    slots = [Slot.fresh(f"v{i}") for i in range(len(kinds))]
    s = z3.Solver()
    for sl, k in zip(slots, kinds):
        s.add(sl.holds(k))
    m = model_for(policy, slots, z3.IntVal(builtin))
    assert s.check() == z3.sat
    mod = s.model()
    return (mod.eval(m.value, model_completion=True).as_long(),
            z3.is_true(mod.eval(m.unresolved, model_completion=True)))


# --------------------------------------------------------------------------- the engine


ComputeFn = Callable[..., Any]


#: one Term object per (position, kind): the engine tells terms apart by identity
_TERMS = [[k.term(f"e{pos}") for k in FAMILY] for pos in range(8)]
_KIND_OF = {id(t): i for row in _TERMS for i, t in enumerate(row)}


def _terms(idx: Sequence[int]) -> list[Term]:
    return [_TERMS[n][i] for n, i in enumerate(idx) if i != ABSENT]


def _code(value: int, unresolved: bool) -> int:
    return (value - _VMIN) * 2 + (1 if unresolved else 0)


def _decode_code(c: int) -> str:
    if c == ERROR:
        return "error"
    v, u = divmod(c, 2)
    return f"{v + _VMIN}" + (" (tied settings left out)" if u else "")


def _engine(fn: ComputeFn, policy: str, idx: Sequence[int], builtin: int) -> tuple[int, tuple, Any]:
    """(code, order-free signature, raw result) of the engine on the list ``idx``."""
    terms = _terms(idx)
    try:
        r = fn(BASE, terms, builtin, policy)
    except Exception as e:  # noqa: BLE001 - an engine error is a counterexample
        return ERROR, ("error", type(e).__name__), f"{type(e).__name__}: {e}"
    unresolved = tuple(sorted(_KIND_OF.get(id(t), -1) for t in r.unresolved))
    setting = r.setting.value if (r.setting is not None and PROCEDURES[policy] == "kodex-102") else None
    return _code(r.value, bool(r.unresolved)), (r.value, unresolved, setting), r.value


def engine_table(fn: ComputeFn, policy: str, size: int = MAX_EFFECTS,
                 signatures: dict[tuple[int, tuple[int, ...]], tuple] | None = None
                 ) -> dict[int, dict[tuple[int, ...], int]]:
    """builtin -> sorted tuple -> the engine's code; with ``signatures``, also fills it with
    (builtin, sorted tuple) -> the order-free signature of the same call (`order_dependence`
    starts from it instead of calling the engine on the sorted list again)."""
    out: dict[int, dict[tuple[int, ...], int]] = {}
    for b in BUILTINS:
        row = out[b] = {}
        for ms in multisets(len(FAMILY), size):
            code, sig, _raw = _engine(fn, policy, ms, b)
            row[ms] = code
            if signatures is not None:
                signatures[b, ms] = sig
    return out


def order_dependence(fn: ComputeFn, policy: str, size: int = MAX_EFFECTS, limit: int = MAX_MISMATCHES,
                     signatures: dict[tuple[int, tuple[int, ...]], tuple] | None = None
                     ) -> tuple[int, list[dict[str, Any]]]:
    """Every ordered list of at most MAX_EFFECTS kinds (and every built-in): the engine's value,
    its tied settings (as a multiset) and, under kodex-102, its prevailing setting's value do not
    depend on the order. ``signatures``: the engine's signature on each sorted list, as
    `engine_table` recorded it (else computed here). Returns (lists checked, differences)."""
    checked, found = 0, []
    for b in BUILTINS:
        for ms in multisets(len(FAMILY), size):
            items = tuple(i for i in ms if i != ABSENT)
            first = signatures[b, ms] if signatures is not None else _engine(fn, policy, items, b)[1]
            checked += 1
            if len(set(items)) < 2:
                continue
            for lst in sorted(set(itertools.permutations(items)))[1:]:
                checked += 1
                sig = _engine(fn, policy, lst, b)[1]
                if sig != first and len(found) < limit:
                    found.append({"builtin": b, "order_a": list(items), "order_b": list(lst),
                                  "result_a": _sig_text(first), "result_b": _sig_text(sig)})
    return checked, found


def _sig_text(sig: tuple) -> str:
    if sig and sig[0] == "error":
        return f"error {sig[1]}"
    v, unres, setting = sig
    out = f"value {v}"
    if unres:
        out += ", tied " + "; ".join(FAMILY[i].text() for i in unres if i >= 0)
    if setting is not None:
        out += f", setting {setting}"
    return out


# --------------------------------------------------------------------------- case files


def number_case(policy: str, kinds: Sequence[Kind], builtin: int, expected: int, *, case_id: str,
                title: str, note: str = "") -> dict[str, Any]:
    """A hkk-case/1 case: creature c1 (printed Sebzés BASE) on A's table, one item per timestamp
    (s0, s1, s2, in that order: their entry into play is the timestamp, 102.3) carrying the
    continuous entries of that timestamp, the one-shot effects as timed effects created at the
    same moments; the built-in modifier as muscle counters (124.1). ``then`` is the model's."""
    cards: dict[str, Any] = {"c1": {"kind": "creature", "damage": BASE, "hp": 5}}
    if builtin:
        cards["c1"]["counters"] = {"muscle": builtin}
    table = ["c1"]
    lasting = []
    for t in TIMESTAMPS:
        sid = f"s{t}"
        table.append(sid)
        entries = [_entry(k) | {"scope": ["c1"]} for k in kinds if k.continuous and k.timestamp == t]
        cards[sid] = {"kind": "item", "name": f"played {t + 1}."}
        if entries:
            cards[sid]["continuous"] = entries
    for n, k in enumerate(k for k in kinds if not k.continuous):
        # the permanents get the timestamps 1 (c1), 2 (s0), 3 (s1), 4 (s2) in the order they lie
        lasting.append({"id": f"l{n}", "effect": _entry(k), "affects": ["c1"], "created": k.timestamp + 2,
                        "until": "end_of_turn"})
    given: dict[str, Any] = {"players": {"A": {"table": table}}, "cards": cards}
    if lasting:
        given["lasting"] = lasting
    clauses = CLAUSES[policy]
    case = {
        "id": case_id,
        "clause": clauses[0],
        "also": clauses[1:],
        "title": title,
        "rulesets": [RULESET[policy]],
        "tags": ["prove-counterexample"],
        "given": given,
        "then": {"cards": {"c1": {"damage": max(0, expected)}}},
    }
    if note:
        case["x-engine"] = note
    return case


def _entry(k: Kind) -> dict[str, Any]:
    e: dict[str, Any] = {"number": "damage", k.op: k.value}
    if k.strong:
        e["strong"] = True
    return e


def write_cases(out_dir: Path | str, name: str, cases: Sequence[Mapping[str, Any]]) -> Path:
    from conformance.atomicio import write_text

    path = Path(out_dir) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    text = ("# written by `kodex prove`: counterexamples (engine != Z3 model, or order dependence);\n"
            "# `then` is the Z3 model's result (docs/spec/hkk-case-format.md)\n"
            + yaml.safe_dump({"format": "hkk-case/1", "cases": list(cases)}, sort_keys=False,
                             allow_unicode=True, width=100))
    write_text(path, text)
    return path


def clear_cases(out_dir: Path | str, *names: str) -> None:
    """Remove the case files a previous run wrote under these names (a run rewrites the ones
    that still have counterexamples)."""
    for name in names:
        p = Path(out_dir) / name
        if p.is_file():
            p.unlink()


def _digest(*parts: Any) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:8]


def _kinds(idx: Sequence[int]) -> list[Kind]:
    return [FAMILY[i] for i in idx if i != ABSENT]


def _combo_text(idx: Sequence[int], builtin: int) -> str:
    ks = _kinds(idx)
    body = "; ".join(k.text() for k in ks) if ks else "no effect"
    return f"base {BASE}; {body}; built-in {builtin:+d}"


# --------------------------------------------------------------------------- checks


def _prove(neg: Sequence[z3.BoolRef], domain: Sequence[z3.BoolRef]) -> tuple[str, z3.ModelRef | None]:
    s = z3.Solver()
    s.add(*domain, *neg)
    r = s.check()
    if r == z3.sat:
        return "sat", s.model()
    return ("unsat" if r == z3.unsat else "unknown"), None


def _row(prop: str, policy: str, res: str, ms: float, ok_detail: str, bad_detail: str,
         clauses: list[str], **data: Any) -> Check:
    if res == "unsat":
        return Check(prop, policy, "proved", "ok", ms, ok_detail, data={"clauses": clauses, **data})
    if res == "sat":
        return Check(prop, policy, "counterexample", "FAIL", ms, bad_detail, data={"clauses": clauses, **data})
    return Check(prop, policy, "unknown", "FAIL", ms, "solver returned unknown", data={"clauses": clauses})


def check_numbers(policy: str, *, compute: ComputeFn | None = None, out_dir: Path | str | None = None,
                  allowlist: frozenset[str] | set[str] = frozenset(), max_effects: int = MAX_EFFECTS
                  ) -> tuple[dict[str, Any], list[Check]]:
    """Every row for one policy (``kodex-102`` or ``mk-5.10``). ``compute`` defaults to
    ``model.numbers.compute`` (looked up at call time); counterexample cases go to ``out_dir``
    (default ``reports/prove-counterexamples``); ``max_effects`` bounds the combinations."""
    n_slots = max_effects
    fn = compute if compute is not None else numbers.compute
    out = Path(out_dir) if out_dir is not None else Path("reports/prove-counterexamples")
    clear_cases(out, f"numbers-{policy}-engine-vs-model.yaml", f"numbers-{policy}-order.yaml")
    proc = PROCEDURES[policy]
    clauses = CLAUSES[policy]
    n_kinds = len(FAMILY)
    checks: list[Check] = []
    counts: dict[str, Any] = {"family": n_kinds, "base": BASE, "builtins": list(BUILTINS),
                              "procedure": proc}

    slots = [Slot.fresh(f"n{i}") for i in range(n_slots)]
    b, b_dom = _builtin_var()
    domain = [c for s in slots for c in s.domain()] + [b_dom]
    model = model_for(policy, slots, b)

    # (a) engine = model on every multiset
    t0 = time.perf_counter()
    signatures: dict[tuple[int, tuple[int, ...]], tuple] = {}
    table = engine_table(fn, policy, n_slots, signatures)
    E = [s.kinds() for s in slots]
    # one query per built-in value (each over that value's table; together they cover the
    # domain, and two smaller queries solve faster than one over both tables)
    mismatches = []
    r = z3.unsat
    for bv in BUILTINS:
        solver = z3.Solver()
        solver.add(*domain, *sorted_slots(E), b == bv, model.code() != lookup(table[bv], E))
        r = solver.check()
        while r == z3.sat and len(mismatches) < MAX_MISMATCHES:
            m = solver.model()
            idx = decode(m, E)
            want = m.eval(model.code(), model_completion=True).as_long()
            mismatches.append((idx, bv, want, table[bv][idx]))
            solver.add(z3.Not(z3.And(*[E[s][idx[s]] for s in range(n_slots)])))
            r = solver.check()
        if r != z3.unsat:
            break                                  # capped, or unknown: reported as such below
    ms = (time.perf_counter() - t0) * 1e3
    n_combos = sum(len(t) for t in table.values())
    counts["combinations"] = n_combos
    counts["mismatches"] = len(mismatches)
    counts["mismatches_capped"] = bool(mismatches) and r == z3.sat
    counts["engine_errors"] = sum(1 for t in table.values() for c in t.values() if c == ERROR)
    prop = f"numbers {proc} engine = model"
    if mismatches:
        cases = []
        for idx, bv, want, got in mismatches:
            _, _, raw = _engine(fn, policy, idx, bv)
            v = (want // 2) + _VMIN
            cases.append(number_case(
                policy, _kinds(idx), bv, v, case_id=f"prove/numbers-{policy}-{_digest(idx, bv)}",
                title=f"{_combo_text(idx, bv)}: the model gives {_decode_code(want)}",
                note=f"engine (numbers.compute) gave {raw!r}"))
        path = write_cases(out, f"numbers-{policy}-engine-vs-model.yaml", cases)
        idx, bv, want, got = mismatches[0]
        checks.append(Check(prop, policy, "counterexample", "FAIL", ms,
                            f"{len(mismatches)}{'+' if r == z3.sat else ''} of {n_combos} combinations differ, "
                            f"e.g. {_combo_text(idx, bv)}: model {_decode_code(want)}, engine "
                            f"{_engine(fn, policy, idx, bv)[2]!r}; cases: {path}",
                            data={"clauses": clauses, "case_file": str(path),
                                  "counterexamples": [{"effects": [k.text() for k in _kinds(i)], "builtin": x,
                                                       "model": _decode_code(w), "engine": _decode_code(g)}
                                                      for i, x, w, g in mismatches]}))
    elif r == z3.unsat:
        checks.append(Check(prop, policy, "proved", "ok", ms,
                            f"{n_combos} combinations (multisets of ≤{n_slots} of {n_kinds} effects × "
                            f"built-in {'/'.join(map(str, BUILTINS))}): value and tie agree, one Z3 query "
                            "per built-in value over the engine's table, 0 mismatches",
                            data={"clauses": clauses}))
    else:
        checks.append(Check(prop, policy, "unknown", "FAIL", ms, "solver returned unknown",
                            data={"clauses": clauses}))

    # (b) order independence: the model in Z3, the engine exhaustively
    t0 = time.perf_counter()
    negs = []
    for perm in transpositions(n_slots):
        other = model_for(policy, [slots[p] for p in perm], b)
        negs.append(z3.Or(other.value != model.value, other.unresolved != model.unresolved,
                          other.has_setting != model.has_setting,
                          z3.And(model.has_setting, other.setting_value != model.setting_value)))
    res, _ = _prove([z3.Or(negs)], domain) if negs else ("unsat", None)
    z3_ms = (time.perf_counter() - t0) * 1e3
    t1 = time.perf_counter()
    n_lists, diffs = order_dependence(fn, policy, n_slots, signatures=signatures)
    ms = z3_ms + (time.perf_counter() - t1) * 1e3
    counts["ordered_lists"] = n_lists
    counts["order_differences"] = len(diffs)
    prop = f"numbers {proc} order-independent"
    if res != "unsat":
        checks.append(_row(prop, policy, res, ms, "", "the Z3 model depends on the order of the slots", clauses))
    elif diffs:
        cases = []
        for d in diffs:
            idx = tuple(sorted(d["order_a"])) + (ABSENT,) * (n_slots - len(d["order_a"]))
            v, _u = model_value(policy, _kinds(idx), d["builtin"])
            cases.append(number_case(
                policy, [FAMILY[i] for i in d["order_b"]], d["builtin"], v,
                case_id=f"prove/numbers-order-{policy}-{_digest(d['order_a'], d['order_b'], d['builtin'])}",
                title=f"{_combo_text(idx, d['builtin'])}: the result must not depend on the order (model {v})",
                note=f"engine: in order {d['order_a']}: {d['result_a']}; in order {d['order_b']}: {d['result_b']}"))
        path = write_cases(out, f"numbers-{policy}-order.yaml", cases)
        d = diffs[0]
        checks.append(Check(prop, policy, "counterexample", "FAIL", ms,
                            f"{len(diffs)}{'+' if len(diffs) >= MAX_MISMATCHES else ''} order dependences, e.g. "
                            f"{' / '.join(FAMILY[i].text() for i in d['order_a'])} (built-in {d['builtin']}): "
                            f"{d['result_a']} vs order {d['order_b']}: {d['result_b']}; cases: {path}",
                            data={"clauses": clauses, "case_file": str(path), "differences": diffs}))
    else:
        checks.append(Check(prop, policy, "proved", "ok", ms,
                            "model: proved in Z3 (value, tie, prevailing value invariant under the "
                            "adjacent transpositions, which generate every permutation); engine: checked "
                            f"exhaustively on {n_lists} ordered lists (value, tied settings, "
                            + ("prevailing value" if proc == "kodex-102" else "—") + "), 0 differences",
                            data={"clauses": clauses}))

    # a prevailing strong setting: the weak terms do not count
    t0 = time.perf_counter()
    strong_set = [z3.And(s.present, s.is_set, s.strong) for s in slots]
    strong_prevails = z3.Or([z3.And(f, slots[i].strong) for grp in model.prevailing
                             for i, (f, _v) in enumerate(grp)])
    only_strong = model_for(policy, [s.without_weak() for s in slots], z3.IntVal(0))
    alone = [z3.And(strong_set[i], *[z3.Implies(slots[j].present, z3.Not(slots[j].strong))
                                     for j in range(n_slots) if j != i]) for i in range(n_slots)]
    neg = z3.Or(
        z3.And(strong_prevails, only_strong.value != model.value),
        z3.Or([z3.And(alone[i], model.value != slots[i].value) for i in range(n_slots)]),
    )
    res, cm = _prove([neg], domain)
    ms = (time.perf_counter() - t0) * 1e3
    sc = STRONG_CLAUSE[policy]
    checks.append(_row(f"numbers {proc} strong setting wins over weak terms ({sc})", policy, res, ms,
                       "proved on the model: a strong setting alone among weak terms gives its value; when a "
                       "strong setting prevails, removing every weak term and the built-in modifier leaves "
                       "the value unchanged (the engine agrees on the family by the engine = model row)",
                       "counterexample: " + (_combo_text(decode(cm, E), cm.eval(b, model_completion=True).as_long())
                                             if cm is not None else ""),
                       [sc, *clauses]))

    # the prevailing setting is unique up to its value
    t0 = time.perf_counter()
    neg = z3.Or([z3.And(fi, fj, vi != vj) for grp in model.prevailing
                 for (fi, vi), (fj, vj) in itertools.combinations(grp, 2)])
    res, cm = _prove([neg], domain)
    ms = (time.perf_counter() - t0) * 1e3
    checks.append(_row(f"numbers {proc} prevailing setting unique", policy, res, ms,
                       "proved on the model: two settings that both prevail"
                       + (" in one pass (gyenge / erős)" if proc == "mk-5.11" else "")
                       + " have the same value, so the result is a function of the set of effects",
                       "two prevailing settings with different values: "
                       + (_combo_text(decode(cm, E), 0) if cm is not None else ""), clauses))

    # tied settings: none applies (a declared gap)
    ties = sum(1 for t in table.values() for c in t.values() if c != ERROR and c % 2)
    gid = f"{policy}/numbers-tied-settings"
    counts["tied_combinations"] = ties
    known = gid in allowlist
    if ties:
        ex = next(ms_ for ms_, c in table[0].items() if c != ERROR and c % 2)
        checks.append(Check(f"gap {gid}", policy, "gap", "known" if known else "NEW", 0.0,
                            f"{ties} of {n_combos} combinations have settings the order cannot separate "
                            f"(different values): none of them applies, e.g. {_combo_text(ex, 0)}"
                            + ("" if known else " — NOT IN ALLOWLIST"),
                            data={"clauses": clauses, "gap_id": gid}))
    counts["gap_ids"] = [gid] if ties else []
    return counts, checks


# --------------------------------------------------------------------------- costs


def cost_case(policy: str, kinds: Sequence[Kind], expected: int, *, case_id: str, title: str,
              note: str = "") -> dict[str, Any]:
    """A hkk-case/1 case: creature h1 (printed cost COST_BASE VP) on A's table, one item per
    timestamp carrying the continuous `cost_vp` entries of that timestamp, the one-shot effects as
    timed effects created at the same moments (as `number_case` lays them out)."""
    case = number_case(policy, kinds, 0, expected, case_id=case_id, title=title, note=note)
    given = case["given"]
    given["cards"]["c1"]["cost"] = {"vp": COST_BASE}
    for c in given["cards"].values():
        for e in c.get("continuous", []):
            e["number"] = "cost_vp"
    for item in given.get("lasting", []):
        item["effect"]["number"] = "cost_vp"
    case["clause"], case["also"] = "99.7", ["rb7:idezesi-kihozasi-koltseg", *CLAUSES[policy]]
    case["then"] = {"cards": {"c1": {"cost": {"vp": expected}}}}
    return case


def check_costs(policy: str, *, cost_part: Callable[..., int] | None = None,
                out_dir: Path | str | None = None, max_effects: int = MAX_EFFECTS
                ) -> tuple[dict[str, Any], list[Check]]:
    """Costs as numbers: the engine's ``numbers.cost_part`` equals ``max(0, model)`` (from
    ``COST_BASE``, no built-in modifier) on every multiset of at most ``max_effects`` effects of
    the family; one Z3 query over the engine's table (unsat: they agree)."""
    fn = cost_part if cost_part is not None else numbers.cost_part
    out = Path(out_dir) if out_dir is not None else Path("reports/prove-counterexamples")
    name = f"costs-{policy}-engine-vs-model.yaml"
    clear_cases(out, name)
    proc = PROCEDURES[policy]
    clauses = ["99.7", "mk:5.01.C", "rb7:idezesi-kihozasi-koltseg", *CLAUSES[policy]]
    t0 = time.perf_counter()
    slots = [Slot.fresh(f"c{i}") for i in range(max_effects)]
    domain = [c for s in slots for c in s.domain()]
    model = model_for(policy, slots, z3.IntVal(0), base=COST_BASE)
    clamped = z3.If(model.value < 0, 0, model.value)
    table: dict[tuple[int, ...], int] = {}
    errors = 0
    for ms in multisets(len(FAMILY), max_effects):
        try:
            table[ms] = int(fn(COST_BASE, _terms(ms), policy))
        except Exception:  # noqa: BLE001 - an engine error is a counterexample
            table[ms] = ERROR
            errors += 1
    E = [s.kinds() for s in slots]
    solver = z3.Solver()
    solver.add(*domain, *sorted_slots(E), clamped != lookup(table, E))
    mismatches = []
    r = solver.check()
    while r == z3.sat and len(mismatches) < MAX_MISMATCHES:
        m = solver.model()
        idx = decode(m, E)
        mismatches.append((idx, m.eval(clamped, model_completion=True).as_long(), table[idx]))
        solver.add(z3.Not(z3.And(*[E[s][idx[s]] for s in range(max_effects)])))
        r = solver.check()
    ms_ = (time.perf_counter() - t0) * 1e3
    below = sum(1 for v in table.values() if v == 0)
    counts = {"combinations": len(table), "mismatches": len(mismatches), "engine_errors": errors,
              "base": COST_BASE, "procedure": proc, "at_zero": below}
    prop = f"costs {proc} engine = model (never below 0)"
    if mismatches:
        cases = [cost_case(policy, _kinds(idx), want,
                           case_id=f"prove/costs-{policy}-{_digest(idx)}",
                           title=f"cost {COST_BASE} VP; {'; '.join(k.text() for k in _kinds(idx))}: "
                                 f"the model gives {want}",
                           note=f"engine (numbers.cost_part) gave {got}")
                 for idx, want, got in mismatches]
        path = write_cases(out, name, cases)
        idx, want, got = mismatches[0]
        return counts, [Check(prop, policy, "counterexample", "FAIL", ms_,
                              f"{len(mismatches)}{'+' if r == z3.sat else ''} of {len(table)} combinations "
                              f"differ, e.g. {'; '.join(k.text() for k in _kinds(idx))}: model {want}, "
                              f"engine {got}; cases: {path}",
                              data={"clauses": clauses, "case_file": str(path)})]
    if r != z3.unsat:
        return counts, [Check(prop, policy, "unknown", "FAIL", ms_, "solver returned unknown",
                              data={"clauses": clauses})]
    return counts, [Check(prop, policy, "proved", "ok", ms_,
                          f"{len(table)} combinations (multisets of ≤{max_effects} of {len(FAMILY)} effects "
                          f"on a printed cost of {COST_BASE}, {below} of them at the floor 0): the "
                          "engine's cost equals max(0, model), one Z3 query over the engine's table",
                          data={"clauses": clauses})]

