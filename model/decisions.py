"""Effects that wait for a decision (4.23.5).

Clauses covered
---------------
* 4.23.5: while a decision is open (`pending`, e.g. 4.17.2 which cards to discard, 134.10
  anti-magic) the action is not finished: the effects after the one that opened it wait for the
  answer. A card's remaining effects (model/play.py), the remaining `instead` steps of a
  replacement (model/replacement.py, mk:5.12.B) and the remaining repeated effects (model/effects.py,
  106) all wait the same way, in `pending.then`, innermost first; model/engine.py `_choose`
  carries them out after the answer.
"""
from __future__ import annotations

from typing import Any, Callable

from .game import Game


def wait_for_answer(g: Game, card: str, player: str, rest: Callable[[], list[dict[str, Any]]]) -> bool:
    """After one effect: True when a decision is open (the effect opened it, or one opened before
    is still unanswered); then the effects `rest()` — steps in the `when` form, carried out as
    effects of `card` by `player` — wait for the answer, and the caller stops."""
    pending = g.state.pending
    if pending is None:
        return False
    steps = rest()
    if steps:
        pending.setdefault("then", []).append({"card": card, "player": player, "effects": steps})
    return True


__all__ = ["wait_for_answer"]
