"""Actions the rulebook gives a player through a card's subtype, not through an ability of it.

Clauses covered: rb7:szkritter — whenever the player could use an instant effect (the timing of
an instant, rb7:varazslatok, and the order of acting, 4.11.6), they may spend 1 VP to take a
szkritter creature of theirs (subtype `szkritter`: on their side of the table and owned by them,
"szkritter lapodat … visszavedd a kezedbe") back from the table into their hand. Being a
szkritter is a subtype, not an ability: a freeze counter or a `lose` does not take it, and the
step is no `activate`. The card goes through the zone mover like any return to the hand (an
anchor keeps it on the table, 4.14.4; a life counter is used instead, 134.4.0).
"""
from __future__ import annotations

from typing import Any

from .errors import InputProblem
from .game import Game
from .play import begin_action, check_timing, pay_cost
from .state import PLAYERS
from .zones import Cause, move_card

SZKRITTER = "szkritter"
SZKRITTER_COST = {"vp": 1}

__all__ = ["ACTIONS", "return_szkritter"]


def return_szkritter(g: Game, a: dict[str, Any], by: str) -> None:
    """`return_szkritter: {player, card}` (rb7:szkritter)."""
    st = g.state
    player = a.get("player", by)
    if player not in PLAYERS:
        raise InputProblem(f"player: unknown player {player!r}")
    card = g.card(a.get("card"))
    if not card.is_creature or not card.has_subtype(SZKRITTER):
        g.refuse("rb7:szkritter", f"{card.id} is no szkritter creature")
    if st.controller(card.id) != player or card.owner != player:
        g.refuse("rb7:szkritter", f"{card.id} is not a szkritter of {player}'s on {player}'s side of the table "
                                  f"(owner {card.owner}, controller {st.controller(card.id) or 'none'})")
    check_timing(g, player, "instant")            # whenever an instant could be used
    begin_action(g, player)                       # 4.11.6
    pay_cost(g, player, SZKRITTER_COST, {})       # 4.20.3
    move_card(g, card.id, "hand", Cause("return"))


ACTIONS = {"return_szkritter": return_szkritter}
