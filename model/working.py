"""Which of a card's own abilities work now: bookkeeping on the card alone (no effects in force).

Clauses covered: 119.1 (a freeze counter with effect takes every ability of the card), 127.1 and
127.0.4 (an ability marked `delay: X` works only once no delay counter is left, and only if the card
entered play with its counters), 127.2 (one marked `temporary: X` only while a temporary counter is
left), 132.13 (`{keyword: unaffected_by, counter: C}`: the counter may lie on the card but has no
effect). Abilities received from effects in force: model/keywords.py (`has`, `entries`).
"""
from __future__ import annotations

from .state import Card

__all__ = ["ability_entries", "counter_works", "frozen", "marks"]


def marks(card: Card) -> dict:
    """Engine-private marks of a permanent (freeze tick 119.2, expired timed counters 127.0.6,
    entered without its timed counters 127.0.4). Kept on the card object, never in a returned state;
    model/keywords.py clears them when the card leaves play."""
    return card.marks


def counter_works(card: Card, counter: str) -> bool:
    """132.13: `{keyword: unaffected_by, counter: C}` — the counter may lie on the card but has no effect."""
    return not any(a.get("keyword") == "unaffected_by" and a.get("counter") == counter
                   for a in card.abilities if _timed_ok(card, a))


def _timed_ok(card: Card, ab: dict) -> bool:
    """127.1 / 127.0.4: a `delay` ability works with no delay counter left, if the card entered with them;
    127.2: a `temporary` ability works while a temporary counter is left."""
    if ab.get("delay") and (card.counter("delay") > 0 or marks(card).get("bare")):
        return False
    if ab.get("temporary") and card.counter("temporary") <= 0:
        return False
    return True


def frozen(card: Card) -> bool:
    """119.1: a freeze counter (with effect, 132.13) takes every ability of the card."""
    return card.counter("freeze") > 0 and counter_works(card, "freeze")


def ability_entries(card: Card, keyword: str) -> list[dict]:
    """The card's own entries of a keyword that work now (119.1, 127.1, 127.2)."""
    if frozen(card):
        return []
    return [a for a in card.abilities if a.get("keyword") == keyword and _timed_ok(card, a)]
