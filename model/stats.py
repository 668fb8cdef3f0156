"""Computed values of cards: current Sebzés, maximum Ép and current Ép.

Clauses: rb7:sebzes-eletpont-alap-aktualis (base, maximum and current values),
rb7:vedekezes-bonusz (+1/+1 to every creature of the non-active player),
123.1 (aging −1/−1), 124.1 (muscle +1/+1), 125.2 (level +1/+1 on adventurers),
117.3–117.4 (strength / weakness counters, project reading: ±1/±1 each),
119.1 (a frozen card loses its abilities), 132.9 (elemental immunity).
The base state keeps printed values and wounds only; everything here is derived.
"""
from __future__ import annotations

from .ruleset import Ruleset
from .state import Card, State

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
    if not state.on_table(card.id):
        return 0, 0
    if card.is_creature and state.controller(card.id) != state.active:
        dmg += rules.defence_bonus_damage
        hp += rules.defence_bonus_hp
    for name, (dd, dh) in COUNTER_BONUS.items():
        n = card.counter(name)
        dmg += dd * n
        hp += dh * n
    if card.has_subtype(ADVENTURER):
        n = card.counter("level")  # 125.2
        dmg += n
        hp += n
    for other_id in state.attached_to(card.id):
        b = state.cards[other_id].bonus
        dmg += b.get("damage", 0)
        hp += b.get("hp", 0)
    return dmg, hp


def damage(state: State, card: Card, rules: Ruleset) -> int | None:
    if card.base_damage is None:
        return None
    return max(0, card.base_damage + bonuses(state, card, rules)[0])


def max_hp(state: State, card: Card, rules: Ruleset) -> int | None:
    if card.base_hp is None:
        return None
    bonus = bonuses(state, card, rules)[1] if card.is_creature else 0
    return max(0, card.base_hp + bonus)


def current_hp(state: State, card: Card, rules: Ruleset) -> int | None:
    m = max_hp(state, card, rules)
    return None if m is None else m - card.wounds


def has_ability(card: Card, keyword: str) -> bool:
    """Does the card have the keyword ability now? A freeze counter takes all abilities (119.1)."""
    if card.counter("freeze") > 0:
        return False
    return any(a.get("keyword") == keyword for a in card.abilities)


def flies(card: Card) -> bool:
    """131.5–131.6: flying is not an ability but a note on the card; freezing does not take it."""
    return any(a.get("keyword") == "flying" for a in card.abilities)


def immune_to(card: Card, what: str | None) -> bool:
    """132.9: immunity to an element (fire, ice, acid, lightning)."""
    if not what:
        return False
    return any(a.get("keyword") == "immunity" and a.get("to") == what for a in card.abilities
               if card.counter("freeze") == 0)
