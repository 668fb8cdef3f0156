"""Computed values of cards: current Sebzés, maximum Ép and current Ép.

Clauses: rb7:sebzes-eletpont-alap-aktualis (base, maximum and current values),
rb7:vedekezes-bonusz (+1/+1 to every creature of the non-active player),
99.7, mk:5.01.C, rb7:idezesi-kihozasi-koltseg (the summoning cost with the effects on it, never
below 0),
123.1 (aging −1/−1), 124.1 (muscle +1/+1), 125.2 (level +1/+1 on adventurers),
117.3–117.4 (strength / weakness counters, project reading: ±1/±1 each),
119.1 (a frozen card loses its abilities), 132.9 (elemental immunity),
127.1, 127.2, 127.0.4 (an ability marked `delay: X` works only once no delay
counter is left and only if the card entered play with its counters; one
marked `temporary: X` only while a temporary counter is left), 132.13 (a
counter that has no effect on the card: `{keyword: unaffected_by, counter: C}`).
The base state keeps printed values and wounds only; everything here is derived.
Continuous effects on Sebzés and Ép (99.4, 102, mk:5.11): model/numbers.py.
Granted abilities (128.1, 119.2) need the state: model/keywords.py.
"""
from __future__ import annotations

from . import numbers
from .ruleset import Ruleset
from .shapes import COST_KEYS
from .state import TABLE_ZONES, Card, State

# counter -> (damage, hp) per counter
COUNTER_BONUS = {
    "muscle": (1, 1),      # 124.1
    "aging": (-1, -1),     # 123.1
    "strength": (1, 1),    # 117.3 (project reading: +1/+1 each)
    "weakness": (-1, -1),  # 117.4 (project reading: −1/−1 each)
}
ADVENTURER = "kalandozo"


def bonuses(state: State, card: Card, rules: Ruleset) -> tuple[int, int]:
    """(damage bonus, hp bonus) the rules give the card now."""
    dmg = hp = 0
    loc = state.locate(card.id)
    if loc is None or loc[1] not in TABLE_ZONES:
        return 0, 0
    if card.is_creature and loc[0] != state.active:            # loc[0]: the controller (5.6.2)
        dmg += rules.defence_bonus_damage
        hp += rules.defence_bonus_hp
    if card.counters:
        for name, n in card.counters.items():
            bonus = COUNTER_BONUS.get(name)
            if bonus and n and counter_works(card, name):               # 132.13 (hook: keywords)
                dmg += bonus[0] * n
                hp += bonus[1] * n
        if card.has_subtype(ADVENTURER) and counter_works(card, "level"):
            n = card.counter("level")  # 125.2
            dmg += n
            hp += n
    for other_id in state.sitting().get(card.id, ()):
        b = state.cards.peek(other_id).bonus
        dmg += b.get("damage", 0)
        hp += b.get("hp", 0)
    return dmg, hp


def damage(state: State, card: Card, rules: Ruleset) -> int | None:
    """Current Sebzés: printed, the built-in bonuses and the continuous effects (model/numbers.py)."""
    if card.base_damage is None:
        return None
    return max(0, numbers.card_number(state, card, "damage", card.base_damage,
                                      bonuses(state, card, rules)[0], rules.priority_policy, frozen))


def max_hp(state: State, card: Card, rules: Ruleset) -> int | None:
    """Maximum Ép: printed, the built-in bonuses (creatures) and the continuous effects."""
    if card.base_hp is None:
        return None
    bonus = bonuses(state, card, rules)[1] if card.is_creature else 0
    return max(0, numbers.card_number(state, card, "hp", card.base_hp, bonus, rules.priority_policy,
                                      frozen))


def cost(state: State, card: Card, rules: Ruleset) -> dict[str, int]:
    """The summoning cost now, part by part (99.7, mk:5.01.C): printed, then the effects on
    `cost_<part>` (set and modified, model/numbers.py); never below 0
    (rb7:idezesi-kihozasi-koltseg). A part the card does not print is there when an effect
    raises it."""
    if not numbers.continuous.any_in_force(state):
        return dict(card.cost)                          # no effect in force: the printed cost
    named = numbers.continuous.numbers_named(state, frozen)
    out = {}
    for key in COST_KEYS:
        if f"cost_{key}" not in named:                  # no entry in force on this part
            n = card.cost.get(key, 0)
        else:
            n = numbers.card_cost(state, card, key, rules.priority_policy, frozen)
        if n or key in card.cost:
            out[key] = n
    return out


def regeneration_cap(state: State, card: Card, rules: Ruleset) -> int:
    """136.7: at most this many Ép regenerated on the creature per turn — the ruleset's number
    (4) "ha egy kártya … mást nem diktál": the entries on `regeneration_cap` in force; never
    below 0."""
    return max(0, numbers.card_number(state, card, "regeneration_cap", rules.regeneration_per_turn, 0,
                                      rules.priority_policy, frozen))


def current_hp(state: State, card: Card, rules: Ruleset) -> int | None:
    m = max_hp(state, card, rules)
    return None if m is None else m - card.wounds


# which of a card's own abilities work (119.1, 127.x, 132.13): model/working.py, re-exported here
from .working import _timed_ok, ability_entries, counter_works, frozen, marks  # noqa: E402,F401



def flies(card: Card) -> bool:
    """131.5–131.6: flying is not an ability but a note on the card; freezing does not take it."""
    return any(a.get("keyword") == "flying" for a in card.abilities)
