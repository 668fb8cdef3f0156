"""Numbers set and modified by several effects at once: Sebzés, maximum Ép, damage and healing.

Clauses covered
---------------
* 102.0–102.4 (ruleset `kodex`, number procedure `kodex-102`): two settings of one number with
  different values contradict; the one the priority order puts above every other setting with a
  different value prevails. A modifier contradicts a setting too: it is overwritten when the
  prevailing setting beats it (102.1–102.4) and applies on top otherwise — a later continuous
  "+2" still counts after an earlier "Sebzése 1 lesz", a weak "+2" does not count under a
  "mindenképp 1". The built-in modifiers (counters 117/123/124/125, the defence bonus
  rb7:vedekezes-bonusz, the `bonus` of cards sitting on it) are rules, not effects: they apply
  after every weak setting and are overwritten by a strong one only.
* mk:5.11.A–D with mk:5.10 (ruleset `kodex-mk`, number procedure `mk-5.11`): model/number_setting.py
  — settings first, then limited, then unlimited modifiers, the weak pass before the strong.
* 111.1.3, 111.2.3: a spell damaging / healing several at once — the modification applies to
  every one of them; 111.1.4, 111.2.4: an amount to split — modified once, before the split
  (model/effects.py calls `amount`).

Settings the order cannot separate (a tie with different values) are *unresolved*: none of them
applies, the number is computed as if they did not exist (a documented choice: the Kódex gives
no rule; `properties/gaps_allowlist.yaml`). The result never depends on the order in which the
effects are listed: every choice is made on the set of effects (ids break no ties).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any, Callable, Sequence

from . import continuous
from .number_setting import NumberEffect, UnresolvedSetting, set_number
from .priority import Effect, compile_policy
from .state import Card, State

PROCEDURES = ("kodex-102", "mk-5.11")
# the built-in modifiers count as a weak, continuous, static modifier later than any effect: a
# timestamp is at most 2^53 - 1 (a `created` of a case, hkk-protocol-additions: integer) plus one
# tick per card and step of a case, far below 2^62
BUILTIN = Effect(strong=False, continuous=True, timestamp=1 << 62, ability="static", id="builtin")


@dataclass(frozen=True)
class Term:
    """One effect on a number: `set` or `add` (signed), with its priority attributes."""
    op: str                      # "set" | "add"
    value: int
    attrs: Effect
    limit: int | None = None     # mk:5.11.A korlátozó tényező (kodex-102 reads it as a bound of this term)

    @cached_property
    def number_effect(self) -> NumberEffect:
        """This term as mk:5.11 reads it (a setting or a modifier), built once per term."""
        return NumberEffect("set" if self.op == "set" else "modify", self.value, strong=self.attrs.strong,
                            limit=self.limit, timestamp=self.attrs.timestamp,
                            prohibiting=self.attrs.prohibiting, id=self.attrs.id,
                            settles=self.attrs.settles)


@dataclass(frozen=True)
class Computed:
    """The number, and for the prover (properties/z3_numbers.py; the engine reads only `value`)
    how it came about."""
    value: int
    setting: Term | None          # kodex-102: the prevailing setting, if any
    unresolved: tuple[Term, ...]  # tied settings with different values (none applies)


def procedure_of(policy: str) -> str:
    return "mk-5.11" if policy == "mk-5.10" else "kodex-102"


def _prevailing(sets: Sequence[Term], pol) -> list[Term]:
    """The settings that the order puts above every other setting with a different value (all of
    one value); none when the order leaves settings with different values tied."""
    beats = pol.beats
    out = []
    for s in sets:
        for t in sets:
            if t is not s and t.value != s.value and not beats(s.attrs, t.attrs):
                break
        else:
            out.append(s)
    return out


def compute(base: int, terms: Sequence[Term], builtin: int, policy: str = "kodex-102") -> Computed:
    """The number from its printed value, the built-in modifiers and the effects' terms."""
    if procedure_of(policy) == "mk-5.11":
        return _mk(base, terms, builtin)
    pol = compile_policy(policy)
    sets = [t for t in terms if t.op == "set"]
    winners = _prevailing(sets, pol)
    setting = winners[0] if winners else None
    unresolved = tuple(sets) if sets and not winners else ()
    value = setting.value if setting else base
    for t in terms:
        if t.op != "add":
            continue
        if setting is not None and any(pol.beats(w.attrs, t.attrs) for w in winners):
            continue                                       # overwritten by the prevailing setting
        value = _add(value, t)
    if builtin and not (setting is not None and any(pol.beats(w.attrs, BUILTIN) for w in winners)):
        value += builtin
    return Computed(value, setting, unresolved)


def _add(value: int, t: Term) -> int:
    if t.limit is None:
        return value + t.value
    if t.value < 0:
        return value - min(-t.value, max(0, value - t.limit))
    return value + min(t.value, max(0, t.limit - value))


def _mk_order(t: Term) -> tuple:
    return (t.attrs.timestamp, t.op, t.value, t.limit or 0)


@lru_cache(maxsize=64)
def _builtin_effect(builtin: int) -> NumberEffect:
    return NumberEffect("modify", builtin, strong=False, timestamp=BUILTIN.timestamp, id="builtin")


def _mk(base: int, terms: Sequence[Term], builtin: int) -> Computed:
    effs = [t.number_effect for t in sorted(terms, key=_mk_order) if not (t.op == "add" and t.value == 0)]
    if builtin:
        effs.append(_builtin_effect(builtin))
    unresolved: tuple[Term, ...] = ()
    try:
        value = set_number(base, effs)
    except UnresolvedSetting:
        # tied settings of one pass: none of that pass applies (as under kodex-102)
        tied = _tied_passes(terms)
        unresolved = tuple(t for t in terms if t.op == "set" and t.attrs.strong in tied)
        value = set_number(base, [e for e in effs if not (e.kind == "set" and e.strong in tied)])
    return Computed(value, None, unresolved)


def _tied_passes(terms: Sequence[Term]) -> set[bool]:
    pol = compile_policy("mk-5.10")
    out = set()
    for strong in (False, True):
        sets = [t for t in terms if t.op == "set" and t.attrs.strong == strong]
        if sets and not _prevailing(sets, pol):
            out.add(strong)
    return out


# ---------------------------------------------------------------------------
# reading the state
# ---------------------------------------------------------------------------

def terms_for(state: State, target: str, number: str, frozen: Callable[[Card], bool]) -> list[Term]:
    out = []
    for act in continuous.reaching(state, target, "number", frozen, number):
        e = act.entry
        if "set" in e:
            out.append(Term("set", int(e["set"]), act.effect))
        else:
            out.append(Term("add", int(e["add"]), act.effect, e.get("limit")))
    return out


def cost_part(base: int, terms: Sequence[Term], policy: str) -> int:
    """One part of a summoning cost (99.7, mk:5.01.C): the printed part under the settings and
    modifiers that reach it, by the same procedure as every number (mk:5.11 on costs), with no
    built-in modifier; never below 0 (rb7:idezesi-kihozasi-koltseg)."""
    return max(0, compute(base, terms, 0, policy).value if terms else base)


def card_cost(state: State, card: Card, key: str, policy: str, frozen: Callable[[Card], bool]) -> int:
    """The card's cost part `key` (vp, components, ...) now."""
    base = card.cost.get(key, 0)
    if not continuous.any_in_force(state):
        return base
    return cost_part(base, terms_for(state, card.id, f"cost_{key}", frozen), policy)


def card_number(state: State, card: Card, number: str, base: int, builtin: int, policy: str,
                frozen: Callable[[Card], bool]) -> int:
    """A card's Sebzés (`damage`), maximum Ép (`hp`) or a part of its cost (`cost_vp`, ...) now,
    before the clamp at 0. Off the table only a zone scope reaches a card (99.6)."""
    if not continuous.any_in_force(state):
        return base + builtin
    terms = terms_for(state, card.id, number, frozen)
    if not terms:
        return base + builtin
    return compute(base, terms, builtin, policy).value


def player_number(state: State, player: str, number: str, base: int, policy: str,
                  frozen: Callable[[Card], bool]) -> int:
    """A player's maximum Ép / VP (`max_hp`, `max_vp`), or a ruleset number of the player
    (`guard_post_size`, `draw_per_turn`), under the effects in force."""
    if not continuous.any_in_force(state):
        return base
    terms = terms_for(state, player, number, frozen)
    return compute(base, terms, 0, policy).value if terms else base


def amount(state: State, amount_: int, number: str, reach: str, policy: str,
           frozen: Callable[[Card], bool]) -> int:
    """A damage or healing amount after the modifiers that reach `reach` (the spell's controller
    for `spell_damage` / `spell_healing`, the target for `damage_taken`); never below 0."""
    if not continuous.any_in_force(state):
        return amount_
    terms = terms_for(state, reach, number, frozen)
    if not terms:
        return amount_
    return max(0, compute(amount_, terms, 0, policy).value)


def conflicts(state: State, policy: str, frozen: Callable[[Card], bool]) -> list[dict[str, Any]]:
    """The contradictions in force now and how the order decides them (for `conflict_resolved`):
    settings of one number with different values, a grant against a loss of one ability, a
    prohibition against a requirement of one action."""
    if not continuous.any_in_force(state):
        return []
    pol = compile_policy(policy)
    by_target: dict[tuple[str, str], list[continuous.Active]] = {}
    for act, members in continuous.in_force(state, frozen):
        e = act.entry
        keys: list[str] = []
        if "set" in e:
            keys = [f"number:{e['number']}"]
        elif "grant" in e:
            keys = [f"ability:{a['keyword']}" for a in e["grant"]]
        elif "lose" in e:
            keys = [f"ability:{k}" for k in e["lose"]]
        elif "prohibit" in e or "require" in e:
            keys = [f"action:{e.get('prohibit') or e.get('require')}"]
        for m in members:
            for k in keys:
                by_target.setdefault((m, k), []).append(act)
    out = []
    for (target, subject), acts in sorted(by_target.items()):
        if len(acts) < 2:
            continue
        if subject.startswith("number:"):
            if len({a.entry["set"] for a in acts}) < 2:
                continue
        else:
            sides = {("lose" in a.entry or "prohibit" in a.entry) for a in acts}
            if len(sides) < 2:
                continue
        best = [a for a in acts if all(pol.beats(a.effect, b.effect) or _same_side(a, b)
                                       for b in acts if b is not a)]
        if best:
            w = min(best, key=lambda a: a.id)        # agreeing settings prevail together: the first id names them
            losers = sorted(b.id for b in acts if not _same_side(w, b))
            clause = pol.resolve(w.effect, next(b for b in acts if b.id == losers[0]).effect).clause
            out.append({"target": target, "subject": subject, "winner": w.id, "losers": losers,
                        "clause": clause})
        else:
            out.append({"target": target, "subject": subject, "winner": None,
                        "losers": sorted(a.id for a in acts), "clause": None})
    return out


def _same_side(a: continuous.Active, b: continuous.Active) -> bool:
    if "set" in a.entry and "set" in b.entry:
        return a.entry["set"] == b.entry["set"]
    neg_a = "lose" in a.entry or "prohibit" in a.entry
    neg_b = "lose" in b.entry or "prohibit" in b.entry
    return neg_a == neg_b


def winner_of(state: State, target: str, subject: str, policy: str,
              frozen: Callable[[Card], bool]) -> bool | None:
    """For an ability or action subject: True when the permitting side (grant / require)
    prevails, False when the forbidding side (lose / prohibit) does, None when only one side
    or nothing is there (the caller reads the one side)."""
    for c in conflicts(state, policy, frozen):
        if c["target"] == target and c["subject"] == subject:
            if c["winner"] is None:
                return None
            return not _is_negative(state, c["winner"], frozen)
    return None


def _is_negative(state: State, ident: str, frozen: Callable[[Card], bool]) -> bool:
    for act, _ in continuous.in_force(state, frozen):
        if act.id == ident:
            return "lose" in act.entry or "prohibit" in act.entry
    return False


__all__ = ["BUILTIN", "PROCEDURES", "Computed", "Term", "amount", "card_cost", "card_number", "compute",
           "conflicts", "cost_part",
           "procedure_of", "terms_for", "winner_of"]
