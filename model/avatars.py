"""Avatars (rb7:avatar): one avatar under a player's control.

Clauses covered: rb7:avatar — an avatar (a card with the subtype `avatar`; the avatars are
creatures, neither monsters nor adventurers) is one per player's control: when a second comes under
a player's control (played, put into play, created, stolen or moved to the player's side), the
first goes to its owner's graveyard. A copy of an avatar (131.11, `copy`: it has the subtypes of
what it copies) is an avatar too.

The zone mover (model/zones.py) calls `one_per_player` after a card came onto a player's side of
the table; the move of the first avatar is handed in (this module imports no mover: no cycle).
"""
from __future__ import annotations

from typing import Callable

from .game import Game
from .state import Card

AVATAR = "avatar"

__all__ = ["AVATAR", "one_per_player"]


def one_per_player(g: Game, card: Card, player: str, send_away: Callable[[str], object]) -> None:
    """`card` has just come under `player`'s control: if it is an avatar, every other avatar the
    player controls goes to the graveyard (`send_away`)."""
    if not card.has_subtype(AVATAR) or g.state.controller(card.id) != player:
        return
    for cid in g.state.permanent_ids(player):
        if cid != card.id and g.state.cards.peek(cid).has_subtype(AVATAR):
            send_away(cid)
