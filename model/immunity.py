"""Immunity to a source: which source cards an `immunity` ability keeps off.

Clauses covered
---------------
* 132.0: a card immune to something cannot be affected by it ("nem lehet rá hatni").
* 132.4 (to magic: instants, sorceries, enchantments — rb7:varazslatok), 132.5 (to every source),
  132.6 (to enchantments), 132.7 (to instants and sorceries), 132.8 (to mental magic).
* 99.0: changing a card's characteristic (Sebzés, Ép, an ability, its cost) is affecting it — so a
  continuous or timed effect of a source never reaches a card immune to that source
  (model/continuous.py), as an effect step naming it does nothing (model/keywords.py `unaffected`).

The card's own `immunity` entries are read here (a look-up any module may make, below the
effects in force); an immunity granted by an effect in force is read by model/keywords.py.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

from .state import Card

SPELL_KINDS = ("instant", "sorcery", "enchantment")      # rb7:varazslatok

# immunity `to:` → (the clause, which source cards it keeps off)
IMMUNITY_TO: dict[str, tuple[str, Callable[[Card], bool]]] = {
    "source": ("132.5", lambda c: True),
    "magic": ("132.4", lambda c: c.kind in SPELL_KINDS),
    "enchantment": ("132.6", lambda c: c.kind == "enchantment"),
    "instant_sorcery": ("132.7", lambda c: c.kind in ("instant", "sorcery")),
    "mental": ("132.8", lambda c: c.kind in SPELL_KINDS and c.has_subtype("mentalis")),
}

__all__ = ["IMMUNITY_TO", "SPELL_KINDS", "immune_clause", "own_immunity"]


def immune_clause(to: Any, source: Card) -> str | None:
    """The clause under which an immunity `to:` keeps off `source`, or None."""
    rule = IMMUNITY_TO.get(to)
    return rule[0] if rule and rule[1](source) else None


def own_immunity(entries: Iterable[dict[str, Any]], source: Card) -> str | None:
    """The clause under which one of these `immunity` entries keeps off `source`, or None."""
    for ab in entries:
        if ab.get("keyword") == "immunity":
            clause = immune_clause(ab.get("to"), source)
            if clause:
                return clause
    return None
