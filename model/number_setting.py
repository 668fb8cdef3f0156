"""mk:5.11 -- determining a number (szint, alapképesség, fizikum ...) from setting and
modifying effects.  A pure function, kept apart from the engine's own stat computation.

Clauses covered (M.A.G.U.S. rules, the sister game of HKK):
* mk:5.11.A  módosító (modify by +/-n), beállító (set to n) effects; a modifier may carry a
          korlátozó tényező (``limit``): "nem növelhet X fölé / nem csökkenthet X alá".  The
          limit binds only that modifier ("Más hatás még módosíthatja ezen érték alá, vagy fölé").
* mk:5.11.B  setting effects first; contradicting ones are resolved by the override order of
          mk:5.10 (``model.priority`` policy ``mk-5.10``: erős > gyenge, tiltó > megengedő,
          later > earlier); with no setting effect the base value is used.
* mk:5.11.C  then modifiers: those with a limit first, those without last; "a módosítók fel nem
          használt részét fogja először csökkenteni egy esetleges ellenkező előjelű hatás":
          an opposite-sign modifier first uses up the unused part of a limited one.
* mk:5.11.D  the whole procedure first for the gyenge (weak), then for the erős (strong) effects.
* Példa1-3 of mk:5.11 are reproduced in tests/test_number_setting.py.

Readings of mk:5.11.B-D (``reading=``):
* ``"strength-outer"`` (default): weak pass (set, limited, unlimited), then strong pass
  (set, limited, unlimited).  The only reading that fits Példa3 ("Fizikuma mindenképpen 3
  lesz (erős)" after a weak -2 gives 3).
* ``"kind-outer"``: sets weak then strong, limited modifiers weak then strong, unlimited
  modifiers weak then strong.  Fits Példa1, Példa2 and the weak variant of Példa3, gives 1
  instead of 3 for Példa3 itself.

Choices where the text is silent (documented, tested):
* within a group, modifiers apply in timestamp order (list order on ties) -- the examples
  apply them in the order received ("Ezek után kap ...");
* a limit is a floor for a negative and a ceiling for a positive modifier; a modifier whose
  value is already beyond its limit applies nothing (it never moves the value the other way);
* an opposite-sign modifier consumes unused parts oldest first; the consumed amount counts
  as used by the consumer; unused parts persist across the weak and strong pass, but a
  setting effect that applies discards them (the value is set, earlier modifiers are gone);
* contradicting setting effects that mk:5.10 cannot order (same level, same tiltó/megengedő,
  same timestamp) with different values raise ``UnresolvedSetting``;
* ``after_step``, a function of the value, is applied after every setting and every modifier
  (the prover's question whether an Ép/VP-style cap applied after each step differs from one
  applied at the end: properties/prove.py; the engine caps Ép and VP itself, model/resources.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from operator import attrgetter
from typing import Callable, Literal, Sequence

from model.priority import Effect, compile_policy

__all__ = ["NumberEffect", "READINGS", "UnresolvedSetting", "number_trace", "set_number"]

READINGS = ("strength-outer", "kind-outer")
_BY_TIME = attrgetter("timestamp")     # modifiers in the order they took effect (mk:5.10.H)
_ORDER = {
    "strength-outer": (
        ("set", False), ("limited", False), ("unlimited", False),
        ("set", True), ("limited", True), ("unlimited", True),
    ),
    "kind-outer": (
        ("set", False), ("set", True),
        ("limited", False), ("limited", True),
        ("unlimited", False), ("unlimited", True),
    ),
}


class UnresolvedSetting(ValueError):
    """Two setting effects contradict and mk:5.10 cannot decide between them."""


@dataclass(frozen=True)
class NumberEffect:
    """One effect on a number (mk:5.11.A).

    kind         "set" (beállító) or "modify" (módosító)
    value        the value set, or the signed amount of the modification
    strong       erős ("mindenképpen", "semmiképpen sem"), else gyenge (mk:5.10.D)
    limit        korlátozó tényező of a modifier: floor for a negative, ceiling for a
                 positive one ("csökken 5-tel, de nem csökkenhet 1 alá" = value -5, limit 1)
    timestamp    when it took effect (mk:5.10.H); orders modifiers and contradicting sets
    prohibiting  tiltó wording (mk:5.10.F); only used to order contradicting sets
    """

    kind: Literal["set", "modify"]
    value: int
    strong: bool = False
    limit: int | None = None
    timestamp: int = 0
    prohibiting: bool = False
    id: str | None = field(default=None, compare=False)
    settles: frozenset = field(default=frozenset(), compare=False)   # mk:5.10.A

    def __post_init__(self) -> None:
        if self.kind not in ("set", "modify"):
            raise ValueError(f"NumberEffect.kind must be 'set' or 'modify', not {self.kind!r}")
        if self.kind == "set" and self.limit is not None:
            raise ValueError("a setting effect (beállító) has no limit (korlátozó tényező)")

    @cached_property
    def group(self) -> str:
        if self.kind == "set":
            return "set"
        return "unlimited" if self.limit is None else "limited"

    @cached_property
    def pass_key(self) -> tuple[str, bool]:
        """(group, strong): the pass of mk:5.11 this effect belongs to."""
        return self.group, bool(self.strong)

    @cached_property
    def attrs(self) -> Effect:
        """What mk:5.10 reads of it when settings contradict."""
        return Effect(strong=self.strong, timestamp=self.timestamp, prohibiting=self.prohibiting,
                      id=self.id, settles=self.settles)


def _winning_set(members: Sequence[NumberEffect]) -> NumberEffect:
    """The setting that prevails (mk:5.11.B): against every other setting it has the same value
    or overrides it by mk:5.10. Settings of the same value never contradict, so the comparison
    is made with every member, never pair by pair in list order."""
    policy = compile_policy("mk-5.10")
    for e in members:
        for o in members:
            if o is not e and o.value != e.value and policy.resolve(e.attrs, o.attrs).winner != "a":
                break
        else:
            return e
    raise UnresolvedSetting(
        f"setting effects {list(members)!r} contradict and mk:5.10 does not order them"
    )


def _run(
    base: int,
    effects: Sequence[NumberEffect],
    reading: str,
    after_step: Callable[[int], int] | None,
    trace: list[str] | None,
) -> int:
    if reading not in _ORDER:
        raise ValueError(f"unknown reading {reading!r}; expected one of {READINGS}")
    value = base
    pool: list[list[int]] = []  # [sign, unused amount] of limited modifiers, oldest first
    passes: dict[tuple[str, bool], list[NumberEffect]] = {}   # (group, strong) -> effects, in order
    for e in effects:
        key = e.pass_key
        if key in passes:
            passes[key].append(e)
        else:
            passes[key] = [e]
    for group, strong in _ORDER[reading]:
        members = passes.get((group, strong))
        if not members:
            continue
        strength = "strong" if strong else "weak"
        if group == "set":
            w = _winning_set(members)
            value = w.value
            pool.clear()
            if after_step is not None:
                value = after_step(value)
            if trace is not None:
                trace.append(f"{strength} set -> {value}")
            continue
        for e in sorted(members, key=_BY_TIME):
            sign = 1 if e.value > 0 else -1
            mag = abs(e.value)
            for entry in pool:  # 5.11.C: first use up the unused part of opposite modifiers
                if mag == 0:
                    break
                if entry[0] == -sign and entry[1] > 0:
                    k = min(mag, entry[1])
                    entry[1] -= k
                    mag -= k
            if e.limit is None:
                value += sign * mag
            else:
                room = max(0, value - e.limit) if sign < 0 else max(0, e.limit - value)
                applied = min(mag, room)
                value += sign * applied
                pool.append([sign, mag - applied])
            if after_step is not None:
                value = after_step(value)
            if trace is not None:
                lim = "" if e.limit is None else f" (limit {e.limit})"
                trace.append(f"{strength} {e.value:+d}{lim} -> {value}")
    return value


def set_number(
    base: int,
    effects: Sequence[NumberEffect],
    reading: str = "strength-outer",
    *,
    after_step: Callable[[int], int] | None = None,
) -> int:
    """The number after applying ``effects`` to ``base`` per mk:5.11 under ``reading``."""
    return _run(base, effects, reading, after_step, None)


def number_trace(
    base: int,
    effects: Sequence[NumberEffect],
    reading: str = "strength-outer",
    *,
    after_step: Callable[[int], int] | None = None,
) -> tuple[int, list[str]]:
    """Like ``set_number`` but also returns the steps taken (for reports)."""
    trace: list[str] = []
    return _run(base, effects, reading, after_step, trace), trace
