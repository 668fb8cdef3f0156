"""The cost of using an activated ability (használati költség), as it is now.

Clauses covered
---------------
* 99.0: changing an ability's cost is affecting its card ("képesség, annak költsége"): a card's
  continuous entry on `ability_cost_vp` … `ability_cost_nekron` (set or modified, read like the
  summoning cost's parts, never below 0) changes the cost of the activated abilities of the cards in
  scope — an ability entry's printed `cost` (136: other activated abilities, 136.9 shadow, 4.16.4
  Semmizés, an activated related effect 4.24.3.0, and its repetition 106.4). The combat abilities
  (129.5: the VP spent is the damage) and regeneration (136.6: VP per Ép) are paid by their own
  rules, not by a printed cost.
* 99.3: the use costs of the abilities of rule cards (`szabalylap`), followers (`koveto`),
  locations, guilds (`ceh`) and cards immune to every source (`immunity` to `source`, own or
  granted, 128.1) can be neither modified nor replaced in any way: no entry changes them (`cost`)
  and a replacement in force does not replace their sacrifice (`fixed`, read by model/play.py
  `pay_cost`). A lich (`oslich`) is not on 99.3's list (unlike 99.2's).
"""
from __future__ import annotations

from typing import Any

from . import continuous, keywords, numbers, stats
from .game import Game
from .shapes import COST_KEYS
from .state import Card

FIXED_SUBTYPES = ("szabalylap", "koveto", "ceh")    # 99.3: rule cards, followers, guilds (no lich)


def fixed(g: Game, card: Card) -> bool:
    """99.3: the card's activation costs can be neither modified nor replaced."""
    return card.kind == "location" or any(card.has_subtype(s) for s in FIXED_SUBTYPES) \
        or any(e.get("to") == "source" for e in keywords.entries(g, card, "immunity"))


def cost(g: Game, card: Card, ab: dict[str, Any]) -> dict[str, Any]:
    """The ability's cost now: its printed `cost`, each part under the entries on
    `ability_cost_<part>` that reach the card (99.0), unless 99.3 fixes it."""
    printed = dict(ab.get("cost") or {})
    st = g.state
    if not continuous.any_in_force(st) or fixed(g, card):
        return printed
    for key in COST_KEYS:
        terms = numbers.terms_for(st, card.id, f"ability_cost_{key}", stats.frozen)
        printed[key] = numbers.cost_part(printed.get(key, 0), terms, g.rules.priority_policy)
    return printed


__all__ = ["FIXED_SUBTYPES", "cost", "fixed"]
