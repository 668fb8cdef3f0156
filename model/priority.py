"""Priority of contradicting effects, as data.

Clauses covered
---------------
* HKK Kódex, VI. rész, 100.0 ("semmiképp", "semmilyen módon") and 101.0 ("mindenképpen"):
  the *strong* wording an effect's text may carry (``Effect.strong``).
* HKK Kódex, VI. rész, 102.0-102.4 (Egymással ellentmondó lapok és hatások): the priority
  order of two contradicting effects.  Part I of the Kódex makes the order of the points
  within a title their priority order, so 102.1, 102.2, 102.3, 102.4 are tried in order
  (policy ``kodex-102``, the default).
* M.A.G.U.S. rules mk:5.10.C-H (Képességek/laphatások felülbírálásának sorrendje): erős
  beats gyenge (mk:5.10.E), at the same level tiltó beats megengedő (mk:5.10.G), otherwise the
  later one wins (mk:5.10.H) (policy ``mk-5.10``).

The policies are data (``priority_policies.yaml`` next to this module): an ordered list of
criteria, each naming its clause, the ``Effect`` attribute it reads and one criterion type
from a closed vocabulary:

``prefer: true|false``    (bool attribute)  the effect whose attribute has this value wins;
``prefer: greater|less``  (int attribute)   the greater / smaller value wins;
``rank: [v1, v2, ...]``   (enum attribute)  an earlier value beats a later one; a value not
                                            listed is *unranked*: the criterion does not
                                            apply to a pair with an unranked side;
``beats: [[v, w], ...]``  (enum attribute)  explicit pairs, ``v`` beats ``w``.

``Policy.resolve(a, b)`` tries the criteria in order; the first one that distinguishes the
two effects decides (``Verdict(winner, clause)``); when none does the verdict is unresolved
(``winner=None, clause=None``).  Semantic soundness of a table (irreflexive, asymmetric,
transitive, no dead rule) is not checked here but proved by ``properties/z3_priority.py``
from the very same compiled criteria; a table that is malformed (unknown attribute or
criterion type, values outside the attribute's domain) is rejected by ``PolicyError``.

102.4 and non-abilities: 102.4 speaks of abilities only ("Ha egy képesség működésére ..."),
so the kodex-102 rank list names the three ability kinds and leaves ``ability=None`` (a
spell's or other non-ability effect) unranked: 102.4 does not decide a pair in which either
side is not an ability; such a pair, if 102.1-102.3 left it open, stays unresolved (a known
gap, see ``properties/gaps_allowlist.yaml``).

The texts first (mk:5.10.A "és a szövegük alapján nem lehet eldönteni, hogy melyik
érvényesül"): an effect may name the effects its own text settles a contradiction with
(``Effect.settles``, ids; e.g. "Olyan ellen is véd, ami ellen nem védene vért" settles
"Vértek nem védenek ellene").  A policy declaring ``text_first`` consults that before its
criteria: the settling effect wins, with the ``text_first`` clause.  Two effects each
settling the other leave it to the order, as texts that say nothing do.  The policy ``kodex-102-order-only``
is the reading of 102.0 without that step (conflicts register ``text-settles``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterator, Literal, Mapping

import yaml

__all__ = [
    "ABILITY_KINDS",
    "ATTRIBUTES",
    "CRITERION_TYPES",
    "DEFAULT_POLICY",
    "POLICIES_FILE",
    "Criterion",
    "Effect",
    "Policy",
    "PolicyError",
    "Verdict",
    "attribute_domain",
    "clear_cache",
    "compile_policy",
    "describe",
    "load_policy_table",
    "policy_names",
    "resolve",
]

POLICIES_FILE = Path(__file__).with_name("priority_policies.yaml")
DEFAULT_POLICY = "kodex-102"

ABILITY_KINDS = ("static", "activated", "automatic")

#: attribute name -> (type, domain used for exhaustive checks).  Order = domain order.
ATTRIBUTES: dict[str, tuple[str, tuple[Any, ...]]] = {
    "strong": ("bool", (False, True)),
    "continuous": ("bool", (False, True)),
    "timestamp": ("int", (0, 1, 2)),
    "ability": ("enum", (None, *ABILITY_KINDS)),
    "prohibiting": ("bool", (False, True)),
}

CRITERION_TYPES = ("prefer", "rank", "beats")
_OPTIONAL_KEYS = ("quote", "note", "mindig")
_ALLOWED_KEYS = frozenset(("clause", "attribute", *CRITERION_TYPES, *_OPTIONAL_KEYS))
_POLICY_KEYS = frozenset(("criteria", "ignores", "title", "source", "description", "text_first"))
_TEXT_FIRST_KEYS = frozenset(("clause", "quote", "note"))


class PolicyError(ValueError):
    """A priority-policy table is malformed."""


# --------------------------------------------------------------------------- effects


@dataclass(frozen=True, slots=True)
class Effect:
    """The attributes of an effect that the priority tables read.

    strong       text has "mindenképp", "semmiképp(en sem)", "semmilyen módon" or the like
                 (Kódex 100.0, 101.0, 102.1; mk:5.10.D "erős")
    continuous   continuously working (állandóan működő) effect, else one-shot (egyszeri) (102.2)
    timestamp    when its card was played / it took effect; greater = later (102.3, mk:5.10.H)
    ability      "static" (állandóan működő), "activated" (aktiválást kívánó), "automatic"
                 (automatikus) or None when the effect is not an ability, e.g. a spell (102.4)
    prohibiting  text has "nem"/"sem" (mk:5.10.F "tiltó"), else permitting (megengedő)
    settles      ids of the effects this effect's text settles a contradiction with (mk:5.10.A)
    id, label    free identification; not compared, not hashed
    """

    strong: bool = False
    continuous: bool = False
    timestamp: int = 0
    ability: str | None = None
    prohibiting: bool = False
    id: str | None = field(default=None, compare=False)
    label: str | None = field(default=None, compare=False)
    settles: frozenset[str] = field(default=frozenset(), compare=False)
    _hash: int = field(default=0, init=False, compare=False, repr=False)
    # the compared attributes as one tuple: Policy.beats remembers its answers by it (hashed and
    # compared in C, never through __hash__/__eq__)
    _key: tuple = field(default=(), init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.ability is not None and self.ability not in ABILITY_KINDS:
            raise ValueError(
                f"Effect.ability must be one of {ABILITY_KINDS} or None, not {self.ability!r}"
            )
        key = (self.strong, self.continuous, self.timestamp, self.ability, self.prohibiting)
        object.__setattr__(self, "_key", key)
        object.__setattr__(self, "_hash", hash(key))

    def __hash__(self) -> int:      # computed once: effects are the memo keys of Policy.beats
        return self._hash

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Effect":
        """From a case-file mapping ``{id, strong, continuous, timestamp, ability, prohibiting}``
        (missing keys take the defaults).  ``ability`` is a kind (static/activated/automatic,
        or the Kódex's words állandó/aktiválást kívánó/automatikus), or null/false for a
        non-ability; ``true`` is refused because 102.4 needs the kind."""
        unknown = set(d) - _EFFECT_KEYS
        if unknown:
            raise ValueError(f"effect: unknown key(s) {sorted(unknown)}; expected {sorted(_EFFECT_KEYS)}")
        settles = d.get("settles", [])
        if not isinstance(settles, list) or not all(isinstance(x, str) and x for x in settles):
            raise ValueError(f"effect {d.get('id')!r}: 'settles' is a list of effect ids")
        ab = d.get("ability")
        if ab is False:
            ab = None
        elif ab is True:
            raise ValueError(
                f"effect {d.get('id')!r}: 'ability: true' - give the kind "
                f"({', '.join(ABILITY_KINDS)}); 102.4 ranks kinds"
            )
        elif isinstance(ab, str):
            ab = _ABILITY_ALIASES.get(ab.strip().lower(), ab)
        return cls(
            strong=bool(d.get("strong", False)),
            continuous=bool(d.get("continuous", False)),
            timestamp=d.get("timestamp", 0),
            ability=ab,
            prohibiting=bool(d.get("prohibiting", False)),
            id=d.get("id"),
            label=d.get("label"),
            settles=frozenset(settles),
        )


_EFFECT_KEYS = frozenset(("id", "label", "strong", "continuous", "timestamp", "ability", "prohibiting",
                          "settles"))
_ABILITY_ALIASES = {
    "állandó": "static",
    "állandóan működő": "static",
    "aktiválást kívánó": "activated",
    "aktivált": "activated",
    "automatikus": "automatic",
}


def describe(e: Effect) -> str:
    """Short human-readable form used in reports."""
    return " ".join(
        (
            "strong" if e.strong else "weak",
            "continuous" if e.continuous else "one-shot",
            f"t{e.timestamp}",
            e.ability or "non-ability",
            "prohibiting" if e.prohibiting else "permitting",
        )
    )


def attribute_domain(policy: "Policy | str | None" = None) -> Iterator[Effect]:
    """Every Effect over the finite domain used by the exhaustive checks.

    strong, continuous, prohibiting in {False, True}; timestamp in {0, 1, 2}; ability in
    {None, static, activated, automatic} -- 96 effects, in ``ATTRIBUTES`` order.  The domain
    is the same for every policy (``policy`` is accepted for symmetry with the checks); a
    policy that ignores an attribute simply never distinguishes on it.
    """
    names = list(ATTRIBUTES)
    for values in itertools.product(*(ATTRIBUTES[n][1] for n in names)):
        yield Effect(**dict(zip(names, values)))


# --------------------------------------------------------------------------- criteria


@dataclass(frozen=True)
class Criterion:
    """One compiled row of a policy table."""

    clause: str
    attribute: str
    type: Literal["prefer", "rank", "beats"]
    prefer: bool | str | None = None
    rank: tuple[Any, ...] = ()
    #: for rank/beats: the (winner value, loser value) pairs
    pairs: frozenset[tuple[Any, Any]] = frozenset()
    mindig: bool = False
    quote: str | None = None
    note: str | None = None

    @property
    def ranked(self) -> frozenset[Any]:
        """Values a rank/beats criterion speaks about (others are unranked)."""
        return frozenset(self.rank) | frozenset(v for p in self.pairs for v in p)

    def wins(self, a: Effect, b: Effect) -> bool:
        """True if this criterion, taken alone, says ``a`` beats ``b``."""
        return self.step(a, b) in (1, 2)

    def step(self, a: Effect, b: Effect) -> int:
        """1: a wins, -1: b wins, 0: does not distinguish, 2: both win (broken table)."""
        return _make_step(self)(a, b)


def _make_step(c: Criterion) -> Callable[[Effect, Effect], int]:
    attr = c.attribute
    if c.type == "prefer":
        if c.prefer is True or c.prefer is False:
            good = c.prefer

            def step(a: Effect, b: Effect) -> int:
                x = getattr(a, attr)
                y = getattr(b, attr)
                if x == y:
                    return 0
                return 1 if x == good else -1

        elif c.prefer == "greater":

            def step(a: Effect, b: Effect) -> int:
                x = getattr(a, attr)
                y = getattr(b, attr)
                return 1 if x > y else -1 if x < y else 0

        else:  # "less"

            def step(a: Effect, b: Effect) -> int:
                x = getattr(a, attr)
                y = getattr(b, attr)
                return 1 if x < y else -1 if x > y else 0

        return step
    pairs = c.pairs

    def step(a: Effect, b: Effect) -> int:
        x = getattr(a, attr)
        y = getattr(b, attr)
        wa = (x, y) in pairs
        wb = (y, x) in pairs
        if wa:
            return 2 if wb else 1
        return -1 if wb else 0

    return step


@dataclass(frozen=True)
class Verdict:
    """Outcome of ``Policy.resolve(a, b)``.

    winner   "a", "b" or None (unresolved; or ``conflict`` in a broken table)
    clause   the clause of the first criterion that distinguished the pair, else None
    conflict the deciding criterion said both win (only possible in a broken table)
    """

    winner: Literal["a", "b"] | None
    clause: str | None
    conflict: bool = False

    @property
    def unresolved(self) -> bool:
        return self.winner is None


_UNRESOLVED = Verdict(None, None)


@dataclass(frozen=True)
class Policy:
    name: str
    criteria: tuple[Criterion, ...]
    ignores: tuple[str, ...] = ()
    title: str | None = None
    source: str | None = None
    #: the clause under which an effect whose text settles the contradiction wins (mk:5.10.A)
    text_first: str | None = None
    _steps: tuple[tuple[str, Callable[[Effect, Effect], int]], ...] = field(
        default=(), repr=False, compare=False
    )
    # beats() answers remembered per pair of attribute tuples (the domain is small; the prover and
    # the engine ask the same pairs again and again); bounded, cleared when full
    _memo: dict = field(default_factory=dict, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "_steps", tuple((c.clause, _make_step(c)) for c in self.criteria)
        )

    def resolve(self, a: Effect, b: Effect) -> Verdict:
        """The texts first (``text_first``), then the criteria in order; the first that
        distinguishes ``a`` and ``b`` decides."""
        settled = self.settled(a, b)
        if settled is not None:
            return settled
        for clause, step in self._steps:
            r = step(a, b)
            if r:
                if r == 1:
                    return Verdict("a", clause)
                if r == -1:
                    return Verdict("b", clause)
                return Verdict(None, clause, conflict=True)
        return _UNRESOLVED

    def beats(self, a: Effect, b: Effect) -> bool:
        """The policy's relation: the first distinguishing criterion says ``a`` wins."""
        if a.settles or b.settles:
            settled = self.settled(a, b)
            if settled is not None:
                return settled.winner == "a"
        key = (a._key, b._key)
        got = self._memo.get(key)
        if got is not None:
            return got
        won = False
        for _clause, step in self._steps:
            r = step(a, b)
            if r:
                won = r != -1
                break
        if len(self._memo) > 50_000:
            self._memo.clear()
        self._memo[key] = won
        return won

    def settled(self, a: Effect, b: Effect) -> Verdict | None:
        """mk:5.10.A: the verdict of the texts, or None when they do not decide."""
        if self.text_first is None:
            return None
        a_says = b.id is not None and b.id in a.settles
        b_says = a.id is not None and a.id in b.settles
        if a_says == b_says:           # neither text, or each claims to prevail: they do not decide
            return None
        if a_says:
            return Verdict("a", self.text_first)
        if b_says:
            return Verdict("b", self.text_first)
        return None

    @property
    def read_attributes(self) -> tuple[str, ...]:
        seen = {c.attribute for c in self.criteria}
        return tuple(a for a in ATTRIBUTES if a in seen)

    def criterion(self, clause: str) -> Criterion:
        for c in self.criteria:
            if c.clause == clause:
                return c
        raise KeyError(clause)


# --------------------------------------------------------------------------- loading


def _yaml_load(text: str) -> Any:
    loader = getattr(yaml, "CSafeLoader", None)
    if loader is not None:
        return yaml.load(text, Loader=loader)  # noqa: S506 - CSafeLoader is the safe loader
    return yaml.safe_load(text)


@lru_cache(maxsize=8)
def _load_file(path: str, mtime_ns: int) -> Mapping[str, Any]:
    table = _yaml_load(Path(path).read_text(encoding="utf-8"))
    _validate_table(table, path)
    return table


def load_policy_table(path: Path | str | None = None) -> Mapping[str, Any]:
    """The parsed and validated policy file (cached by path and modification time)."""
    p = Path(path) if path is not None else POLICIES_FILE
    return _load_file(str(p), p.stat().st_mtime_ns)


def policy_names(table: Mapping[str, Any] | None = None) -> list[str]:
    table = load_policy_table() if table is None else table
    return list(table["policies"])


def _validate_table(table: Any, where: str = "policy table") -> None:
    if not isinstance(table, Mapping) or not isinstance(table.get("policies"), Mapping):
        raise PolicyError(f"{where}: expected a mapping with a 'policies' mapping")
    for name, spec in table["policies"].items():
        _compile_spec(str(name), spec)
    default = table.get("default")
    if default is not None and default not in table["policies"]:
        raise PolicyError(f"{where}: default policy {default!r} is not defined")


def _domain_value(attr: str, v: Any, where: str) -> Any:
    domain = ATTRIBUTES[attr][1]
    if v not in domain:
        raise PolicyError(f"{where}: value {v!r} is not in the domain of {attr!r} {domain}")
    return v


def _compile_criterion(name: str, i: int, spec: Any) -> Criterion:
    where = f"priority policy {name!r}, criteria[{i}]"
    if not isinstance(spec, Mapping):
        raise PolicyError(f"{where}: expected a mapping, got {type(spec).__name__}")
    clause = spec.get("clause")
    if not isinstance(clause, str) or not clause:
        raise PolicyError(
            f"{where}: 'clause' must be a non-empty string (quote it: \"102.1\"), got {clause!r}"
        )
    where = f"{where} (clause {clause})"
    unknown = set(spec) - _ALLOWED_KEYS
    if unknown:
        raise PolicyError(
            f"{where}: unknown key(s) {sorted(unknown)}; criterion types are "
            f"{list(CRITERION_TYPES)}, other keys {sorted(_ALLOWED_KEYS - set(CRITERION_TYPES))}"
        )
    attr = spec.get("attribute")
    if attr not in ATTRIBUTES:
        raise PolicyError(f"{where}: unknown attribute {attr!r}; expected one of {list(ATTRIBUTES)}")
    types = [t for t in CRITERION_TYPES if t in spec]
    if len(types) != 1:
        raise PolicyError(
            f"{where}: exactly one criterion type of {list(CRITERION_TYPES)} is required, got {types}"
        )
    ctype = types[0]
    kind = ATTRIBUTES[attr][0]
    mindig = spec.get("mindig", False)
    if not isinstance(mindig, bool):
        raise PolicyError(f"{where}: 'mindig' must be true or false")
    common = dict(
        clause=clause, attribute=attr, mindig=mindig, quote=spec.get("quote"), note=spec.get("note")
    )
    if ctype == "prefer":
        pref = spec["prefer"]
        if kind == "bool" and isinstance(pref, bool):
            return Criterion(type="prefer", prefer=pref, **common)
        if kind == "int" and pref in ("greater", "less"):
            return Criterion(type="prefer", prefer=pref, **common)
        expected = "true/false" if kind == "bool" else "greater/less" if kind == "int" else "(none)"
        raise PolicyError(
            f"{where}: 'prefer: {pref!r}' does not fit {kind} attribute {attr!r} (expected {expected}"
            + ("; use rank/beats for an enum attribute)" if kind == "enum" else ")")
        )
    if kind != "enum":
        raise PolicyError(f"{where}: {ctype!r} needs an enum attribute, {attr!r} is {kind}")
    if ctype == "rank":
        rank = spec["rank"]
        if not isinstance(rank, list) or not rank:
            raise PolicyError(f"{where}: 'rank' must be a non-empty list")
        vals = tuple(_domain_value(attr, v, where) for v in rank)
        # duplicates are kept on purpose: a cyclic rank list compiles to a cyclic relation,
        # which the prover reports (it is a semantic, not a syntactic, defect)
        pairs = frozenset((vals[x], vals[y]) for x in range(len(vals)) for y in range(x + 1, len(vals)))
        return Criterion(type="rank", rank=vals, pairs=pairs, **common)
    beats = spec["beats"]
    if not isinstance(beats, list) or not beats:
        raise PolicyError(f"{where}: 'beats' must be a non-empty list of [winner, loser] pairs")
    pairs = set()
    for p in beats:
        if not isinstance(p, list) or len(p) != 2:
            raise PolicyError(f"{where}: 'beats' entry {p!r} is not a [winner, loser] pair")
        pairs.add((_domain_value(attr, p[0], where), _domain_value(attr, p[1], where)))
    return Criterion(type="beats", pairs=frozenset(pairs), **common)


def _compile_spec(name: str, spec: Any) -> Policy:
    if not isinstance(spec, Mapping):
        raise PolicyError(f"priority policy {name!r}: expected a mapping")
    unknown = set(spec) - _POLICY_KEYS
    if unknown:
        raise PolicyError(
            f"priority policy {name!r}: unknown key(s) {sorted(unknown)}; allowed {sorted(_POLICY_KEYS)}"
        )
    crits = spec.get("criteria")
    if not isinstance(crits, list) or not crits:
        raise PolicyError(f"priority policy {name!r}: 'criteria' must be a non-empty list")
    ignores = spec.get("ignores", []) or []
    if not isinstance(ignores, list) or any(a not in ATTRIBUTES for a in ignores):
        raise PolicyError(
            f"priority policy {name!r}: 'ignores' must list attributes of {list(ATTRIBUTES)}, got {ignores!r}"
        )
    text_first = spec.get("text_first")
    if text_first is not None:
        if not isinstance(text_first, Mapping) or not isinstance(text_first.get("clause"), str) \
                or set(text_first) - _TEXT_FIRST_KEYS:
            raise PolicyError(
                f"priority policy {name!r}: 'text_first' is a mapping with a 'clause' (and quote, note)"
            )
        text_first = text_first["clause"]
    return Policy(
        name=name,
        criteria=tuple(_compile_criterion(name, i, c) for i, c in enumerate(crits)),
        ignores=tuple(ignores),
        title=spec.get("title"),
        source=spec.get("source"),
        text_first=text_first,
    )


_DEFAULT_CACHE: dict[str, Policy] = {}


def clear_cache() -> None:
    """Forget compiled policies and parsed files (after editing the YAML at run time)."""
    _DEFAULT_CACHE.clear()
    _load_file.cache_clear()


def _compile_named(name: str, table: Mapping[str, Any]) -> Policy:
    policies = table["policies"]
    if name not in policies:
        raise PolicyError(f"unknown priority policy {name!r}; defined: {list(policies)}")
    return _compile_spec(name, policies[name])


def compile_policy(
    name: str | None = None,
    *,
    table: Mapping[str, Any] | None = None,
    path: Path | str | None = None,
) -> Policy:
    """Compile policy ``name`` (default ``kodex-102``) from the YAML file, or from ``table``
    (a mapping shaped like the file: ``{"policies": {name: {"criteria": [...]}}}``)."""
    if table is not None:
        if not isinstance(table, Mapping) or not isinstance(table.get("policies"), Mapping):
            raise PolicyError("policy table: expected a mapping with a 'policies' mapping")
        return _compile_named(name or table.get("default") or DEFAULT_POLICY, table)
    if path is None:
        if name is None:
            name = load_policy_table().get("default") or DEFAULT_POLICY
        pol = _DEFAULT_CACHE.get(name)
        if pol is None:
            pol = _DEFAULT_CACHE[name] = _compile_named(name, load_policy_table())
        return pol
    table = load_policy_table(path)
    return _compile_named(name or table.get("default") or DEFAULT_POLICY, table)


def resolve(a: Effect, b: Effect, policy: str | Policy = DEFAULT_POLICY) -> Verdict:
    """``compile_policy(policy).resolve(a, b)`` (compiled policies are cached)."""
    pol = policy if isinstance(policy, Policy) else compile_policy(policy)
    return pol.resolve(a, b)
