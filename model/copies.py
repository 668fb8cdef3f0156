"""Copies: a token copy of a card, and abilities copied onto a permanent (Nem másolható, 131.11).

Clauses covered:
- `copy: {card: X, player: P, id: NEW}`: a new premade card NEW (96.0; its owner P, 96.7) comes into
  being on P's side (96.6: a creature in the reserve, any other permanent on the table; a card
  that cannot lie there — an instant, a sorcery — is not made: 4.9.1) with what X is now: its kind,
  name, subtypes, cost, printed Sebzés and Ép, the szörnykomponens it yields, its abilities, its
  effects, continuous and replacement effects — never its counters, wounds, position or the card
  it sits on, nor another form it could have been played as. X may lie in any zone.
- `copy_abilities: {from: X, to: Y}`: the permanent Y gets X's abilities (a partial copy); Y keeps
  them while it stays on the table and loses them when it leaves (model/forms.py, model/zones.py).
  Only a permanent in play receives abilities (128.1): another Y is not changed.
- The abilities copied are those X has now: its own and those it receives (128.1: a received
  ability counts in every respect as the card's own), none it has lost or a freeze counter takes
  (119.1); blocking is never copied (134.8).
- 131.11 `uncopyable` (Nem másolható): no copy of the card is made in any way, its abilities are not
  copied even in part; the ability works in the graveyard, the hand and the deck too. The effect
  that would copy it does nothing (`effect_prevented {clause: 131.11}`, 4.24.2).
- 106.5: repeating an effect is not copying it (model/effects.py `repeat` never asks this module).
"""
from __future__ import annotations

from typing import Any

from . import forms, keywords
from .errors import InputProblem
from .game import Game
from .state import PLAYERS, TABLE_ZONES, Card, jcopy
from .zones import enter_new

UNCOPYABLE = "uncopyable"          # 131.11 Nem másolható
NOT_COPIED = ("blocking",)         # 134.8: copying cards do not copy blocking


def _copyable(g: Game, cid: Any) -> Card:
    """The card to copy from; refused when it has left the game (107.0) or is uncopyable (131.11)."""
    card = g.card(cid)
    if g.state.locate(cid) is None:
        g.refuse("107.0" if cid in g.state.removed else "4.5.2",
                 f"{cid} is in no zone: there is nothing to copy")
    if keywords.has(g, card, UNCOPYABLE):
        g.refuse("131.11", f"{cid} cannot be copied (Nem másolható): no copy of it, not even of its abilities")
    return card


def abilities_now(g: Game, card: Card) -> list[dict[str, Any]]:
    """The abilities the card has now, as a copy takes them: its own and the received ones (128.1),
    none lost or frozen (119.1), never blocking (134.8)."""
    names: list[str] = []
    for ab in [*card.abilities, *(x for x, _ in keywords.granted(g.state, card))]:
        kw = ab.get("keyword")
        if kw not in names and kw not in NOT_COPIED:
            names.append(kw)
    return [{k: jcopy(v) for k, v in ab.items() if not k.startswith("_")}
            for kw in names for ab in keywords.entries(g, card, kw)]


def do_copy(g: Game, a: dict[str, Any], by: str) -> None:
    player = a.get("player", by)
    if player not in PLAYERS:
        raise InputProblem(f"player: unknown player {player!r}")
    new = a.get("id")
    if not isinstance(new, str) or not new:
        raise InputProblem("id: the copy needs an id of its own")
    if new in g.state.cards:
        raise InputProblem(f"id: {new!r} already exists")
    source = _copyable(g, a.get("card"))
    copy = source.copy()
    copy.id, copy.owner = new, player                          # 96.7
    copy.abilities = abilities_now(g, source)
    copy.counters, copy.attached_to, copy.marks = {}, None, {}     # wounds: none on entering (zones)
    copy.premade, copy.standalone_token, copy.play_as, copy.original = True, False, {}, None
    enter_new(g, copy, player, "table", None)                  # 96.6; 131.5–131.6 as it enters


def do_copy_abilities(g: Game, a: dict[str, Any], by: str) -> None:
    source = _copyable(g, a.get("from"))
    target = g.card(a.get("to"))
    if g.state.zone_of(target.id) not in TABLE_ZONES:
        g.refuse("128.1", f"{target.id} is not in play: only a permanent receives abilities")
    copied = abilities_now(g, source)
    if not copied:
        return
    forms.take(target, {"abilities": [*target.abilities, *copied]})
    if any("trigger" in ab for ab in copied):
        g.state.trigger_cards = g.state.trigger_cards | {target.id}
    g.emit("abilities_copied", card=target.id, source=source.id,
           abilities=[ab.get("keyword") for ab in copied])


__all__ = ["UNCOPYABLE", "abilities_now", "do_copy", "do_copy_abilities"]
