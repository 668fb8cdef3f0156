"""The limit (korlátozó tényező) of a step: "not above N" / "not below N".

Clauses covered
---------------
* mk:5.11.A for steps: a step may carry `limit` — a `gain_vp` or `heal` raises the value (VP, Ép)
  not above it, a `damage` lowers the Ép not below it ("de nem csökkenthet 1 alá"); the amount is
  cut to what the limit leaves (never below 0). The limit binds that step only.
* mk:5.12.D: a replaced step keeps its limits "mintha az eredeti hatás maradt volna érvényben":
  `$amount` in the `instead` steps is the amount after the limit, and an `instead` step of the
  same verb carries the original's limit (model/replacement.py).
"""
from __future__ import annotations

from typing import Any

from . import stats
from .errors import InputProblem
from .game import Game
from .state import PLAYERS

LIMITED = ("gain_vp", "heal", "damage")

__all__ = ["LIMITED", "bounded"]


def _current(g: Game, verb: str, subject: str) -> int | None:
    st = g.state
    if verb == "gain_vp":
        return st.players[subject].vp if subject in PLAYERS else None
    if subject in PLAYERS:
        return st.players[subject].hp
    if subject in st.cards and st.on_table(subject):
        return stats.current_hp(st, st.cards.peek(subject), g.rules)
    return None


def bounded(g: Game, verb: str, subject: Any, amount: int, limit: Any) -> int:
    """The amount of `verb` on `subject` that its `limit` leaves (the amount itself without one)."""
    if limit is None or verb not in LIMITED or amount < 0:
        return amount
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise InputProblem(f"{verb}.limit: an integer")
    now = _current(g, verb, subject) if isinstance(subject, str) else None
    if now is None:
        return amount
    room = now - limit if verb == "damage" else limit - now
    return max(0, min(amount, room))
