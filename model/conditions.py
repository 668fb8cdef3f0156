"""Play conditions (kijátszási feltétel): what must hold, or be fulfilled, for a card to be played.

Clauses covered
---------------
* mk:5.01.C: besides its costs, a card's play condition is fulfilled when it is played, by the
  card's player ("a kijátszási feltételt ő teljesíti").
* mk:5.12.B: a condition fulfilled by a step (`{discard: ...}`, `{mill: ...}`,
  `{sacrifice_hp: ...}`) that a replacement in force replaces counts as fulfilled, and the card
  is played.
* rb7:ketszinu-lapok: a card of two colours (`colors` lists two) may be played only if its player
  shows a card of one of the two colours from the hand (not the card itself) or controls a card of
  one of them in play — "minden esetben", so the condition needs no field; the same check is the
  condition `{colors: [...]}` of any card.

A condition that does not hold refuses the play (the card stays where it was, nothing is paid).
The steps of a condition are carried out after every cost check, as a cost is (4.20.3: all of
it or nothing): a discard names its cards in `play.pay.discard`.
"""
from __future__ import annotations

from typing import Any

from .game import Game
from .state import TABLE_ZONES, Card

__all__ = ["check", "fulfil", "color_condition"]


def color_condition(card: Card) -> list[str] | None:
    """The colours a card's player must show or control: the `{colors}` condition, or both colours
    of a two-coloured card (rb7:ketszinu-lapok)."""
    for c in card.condition:
        if "colors" in c:
            return list(c["colors"])
    return list(card.colors) if len(card.colors) >= 2 else None


def check(g: Game, player: str, card: Card) -> None:
    """Refuse the play when a colour condition does not hold (rb7:ketszinu-lapok)."""
    colors = color_condition(card)
    if colors is None:
        return
    st = g.state
    zones = st.players[player].zones
    shown = [cid for cid in zones["hand"] if cid != card.id and set(st.cards.peek(cid).colors) & set(colors)]
    held = [cid for z in TABLE_ZONES for cid in zones[z] if set(st.cards.peek(cid).colors) & set(colors)]
    if not shown and not held:
        g.refuse("rb7:ketszinu-lapok",
                 f"{card.id} needs a card of {' or '.join(colors)} in {player}'s hand or under {player}'s "
                 "control in play", also=("mk:5.01.C",))


def fulfil(g: Game, player: str, card: Card, pay: dict[str, Any]) -> None:
    """The condition's steps, carried out by the card's player as a cost is (all or nothing; a
    replaced one counts as fulfilled, mk:5.12.B)."""
    for c in card.condition:
        (verb, args), = c.items()
        if verb == "colors":
            continue
        a = {**args, "player": player, "as_cost": True}
        if verb == "discard":
            a["cards"] = list(pay.get("discard") or [])
            if card.id in a["cards"]:                   # 4.21.1: being played, it is in no zone
                g.refuse("4.17.0", f"{card.id} is being played: it is not in the hand to be discarded")
            a.setdefault("count", len(a["cards"]))
        g.apply_effect(g, verb, a, player)
