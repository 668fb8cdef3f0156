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
  condition `{colors: [...]}` of any card. A clan is its god's colour (model/colors.py).
* rb7:hegymelyi, rb7:hegymelyi-lenyek: the hegymélyi icon (`icons: [hegymelyi]`) is no subtype and
  no ability; a spell (instant, sorcery, enchantment: rb7:varazslatok) with it is hegymélyi magic,
  played only while its player controls a hegymélyi creature in play, active or passive (the
  condition `{controls: {icon: hegymelyi, kind: creature}}`, which any card may also carry). In
  the expansion every torzszülött but the goblins is a hegymélyi creature too (subtype
  `torzszulott` without `goblin`).
* rb7:szingularitas: a singularity (subtype `szingularitas`) is played only if its player has
  played no card from the hand this turn; once one has come into being, its player plays no more
  cards from the hand this turn. A card played from the graveyard that counts as played from the
  hand (4.22.1) counts here too.
* rb7:lenyek-szovegei: a creature's play condition holds however it is played, from the
  graveyard too, and nothing waives it (every play asks this module).

A condition that does not hold refuses the play (the card stays where it was, nothing is paid).
The steps of a condition are carried out after every cost check, as a cost is (4.20.3: all of
it or nothing): a discard names its cards in `play.pay.discard`.
"""
from __future__ import annotations

from typing import Any

from .colors import gods, of_color
from .game import Game
from .state import TABLE_ZONES, Card

__all__ = ["check", "fulfil", "color_condition", "controls_conditions", "is_hegymelyi", "note_played",
           "note_in_play"]

HEGYMELYI = "hegymelyi"
SINGULARITY = "szingularitas"
SPELL_KINDS = ("instant", "sorcery", "enchantment")      # rb7:varazslatok


def color_condition(card: Card) -> list[str] | None:
    """The colours a card's player must show or control: the `{colors}` condition, or both colours
    of a two-coloured card (rb7:ketszinu-lapok)."""
    for c in card.condition:
        if "colors" in c:
            return list(c["colors"])
    return list(card.colors) if len(gods(card.colors)) >= 2 else None


def is_hegymelyi(card: Card) -> bool:
    """rb7:hegymelyi: the card bears the hegymélyi icon; a torzszülött that is no goblin does too."""
    return HEGYMELYI in card.icons or (card.has_subtype("torzszulott") and not card.has_subtype("goblin"))


def controls_conditions(card: Card) -> list[dict[str, Any]]:
    """The `{controls: {...}}` conditions of the card: its own, and for hegymélyi magic (a spell
    with the hegymélyi icon) a hegymélyi creature (rb7:hegymelyi)."""
    found = [dict(c["controls"]) for c in card.condition if "controls" in c]
    if card.kind in SPELL_KINDS and HEGYMELYI in card.icons:
        found.append({"icon": HEGYMELYI, "kind": "creature"})
    return found


def _fits(card: Card, want: dict[str, Any]) -> bool:
    if "kind" in want and card.kind != want["kind"]:
        return False
    if "subtype" in want and not card.has_subtype(want["subtype"]):
        return False
    return "icon" not in want or (is_hegymelyi(card) if want["icon"] == HEGYMELYI else want["icon"] in card.icons)


def _played(g: Game) -> dict[str, Any]:
    return g.state.turn_info.own("from_hand")


def check(g: Game, player: str, card: Card, from_hand: bool) -> None:
    """Refuse the play when a condition does not hold: a colour (rb7:ketszinu-lapok), a card the
    player must control (rb7:hegymelyi, mk:5.01.C), the singularities' turn (rb7:szingularitas)."""
    if card.condition or card.colors or card.icons:     # without these it has neither kind
        _colors_and_controls(g, player, card)
    done = g.state.turn_info.from_hand.get(player, {})
    if card.has_subtype(SINGULARITY) and done.get("hand"):
        g.refuse("rb7:szingularitas", f"{player} has played a card from the hand this turn: a singularity "
                                      "is played only before any")
    if from_hand and done.get("singularity"):
        g.refuse("rb7:szingularitas", f"{player}'s singularity came into being this turn: no more cards "
                                      "from the hand this turn")


def _colors_and_controls(g: Game, player: str, card: Card) -> None:
    """The colour a card's player must show or control (rb7:ketszinu-lapok, mk:5.01.C) and the
    cards they must control (rb7:hegymelyi, mk:5.01.C)."""
    st = g.state
    zones = st.players[player].zones
    colors = color_condition(card)
    if colors is not None:
        shown = [cid for cid in zones["hand"] if cid != card.id and of_color(st.cards.peek(cid), colors)]
        held = [cid for z in TABLE_ZONES for cid in zones[z] if of_color(st.cards.peek(cid), colors)]
        if not shown and not held:
            g.refuse("rb7:ketszinu-lapok",
                     f"{card.id} needs a card of {' or '.join(colors)} in {player}'s hand or under {player}'s "
                     "control in play", also=("mk:5.01.C",))
    for want in controls_conditions(card):
        if not any(_fits(st.cards.peek(cid), want) for cid in st.permanent_ids(player)):
            hegy = want.get("icon") == HEGYMELYI
            g.refuse("rb7:hegymelyi" if hegy else "mk:5.01.C",
                     f"{card.id} is played only while {player} controls in play a card that is "
                     + ", ".join(f"{k} {v}" for k, v in sorted(want.items())),
                     also=("rb7:hegymelyi-lenyek", "mk:5.01.C") if hegy else ())


def note_played(g: Game, player: str, from_hand: bool) -> None:
    """The play counts from now on (4.21.0): a card from the hand (4.22.1) this turn."""
    if from_hand:
        _played(g).setdefault(player, {})["hand"] = True


def note_in_play(g: Game, player: str, card: Card) -> None:
    """A singularity played successfully (it came into being): no more cards from the hand."""
    if card.has_subtype(SINGULARITY):
        _played(g).setdefault(player, {})["singularity"] = True


def fulfil(g: Game, player: str, card: Card, pay: dict[str, Any]) -> None:
    """The condition's steps, carried out by the card's player as a cost is (all or nothing; a
    replaced one counts as fulfilled, mk:5.12.B)."""
    for c in card.condition:
        (verb, args), = c.items()
        if verb in ("colors", "controls"):
            continue
        a = {**args, "player": player, "as_cost": True}
        if verb == "discard":
            a["cards"] = list(pay.get("discard") or [])
            if card.id in a["cards"]:                   # 4.21.1: being played, it is in no zone
                g.refuse("4.17.0", f"{card.id} is being played: it is not in the hand to be discarded")
            a.setdefault("count", len(a["cards"]))
        g.apply_effect(g, verb, a, player)
