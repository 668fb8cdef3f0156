"""Counters (nem önálló jelzők) on permanents, and what they do in the preparation phase.

Clauses: 117.0 (counters only on permanents they make sense for), 117.1
(counters of different names do not substitute), 118.1–118.3 (sleep: the
creature goes passive to its controller's reserve; it does not activate; one
comes off each preparation phase), 119.1, 119.3 (freeze: abilities lost; one
comes off), 121.1 (poison: one more each preparation phase; at least as many
as the current Ép → graveyard), 122.1 (fading: one more each preparation
phase; at least the base cost → graveyard), 123.2 (no aging counter on a
building), 125.1 (level counters only on adventurers), 127.0.1 (delay and
temporary counters: one comes off each preparation phase), 127.0.2 (not while
the permanent's abilities do not work), 127.0.6 (once down to zero no more may
be put on), 132.3 (poison immunity: no poison counter, those on it fall off).
"""
from __future__ import annotations

from . import stats
from .game import Game
from .state import Card
from .zones import Cause, move_card

ADVENTURER = stats.ADVENTURER
TIMED = ("delay", "temporary")


def _may_carry(g: Game, card: Card, counter: str) -> str | None:
    """The clause that keeps this counter off this card, or None."""
    if counter == "poison" and (stats.has_ability(card, "poison_immunity")
                                or stats.immune_to(card, "poison")):
        return "132.3"
    if counter == "aging" and card.kind == "building":
        return "123.2"
    if counter == "level" and not card.has_subtype(ADVENTURER):
        return "125.1"
    if counter in TIMED and counter in g.state.turn_info.get("expired", {}).get(card.id, ()):
        return "127.0.6"
    if counter == "life" and g.rules.reading("life-counters-modifiable") == "rulebook":
        return "rb7:elet"
    if counter in ("sleep", "poison", "muscle", "aging", "life") and not card.is_creature:
        return "117.0"
    return None


def put_counter(g: Game, card_id: str, counter: str, count: int = 1) -> None:
    card = g.card(card_id)
    if count < 0:
        g.refuse("117.0", "a negative number of counters")
    if not g.state.on_table(card_id):
        g.refuse("117.0", f"{card_id} is not on the table: counters go on permanents in play")
    blocked = _may_carry(g, card, counter)
    if blocked:
        g.emit("counter_prevented", card=card_id, counter=counter, count=count, clause=blocked)
        return
    if not count:
        return
    card.counters[counter] = card.counter(counter) + count
    g.emit("counter_added", card=card_id, counter=counter, count=count)
    if counter == "sleep":
        _fall_asleep(g, card)


def remove_counter(g: Game, card_id: str, counter: str, count: int = 1) -> None:
    card = g.card(card_id)
    if count < 0:
        g.refuse("117.0", "a negative number of counters")
    if not g.state.on_table(card_id):
        g.refuse("117.0", f"{card_id} is not on the table")
    if counter == "life" and g.rules.reading("life-counters-modifiable") == "rulebook":
        g.emit("counter_prevented", card=card_id, counter=counter, count=count, clause="rb7:elet")
        return
    n = min(count, card.counter(counter))  # 4.24.2: as far as possible
    if not n:
        return
    card.counters[counter] -= n
    if not card.counters[counter]:
        del card.counters[counter]
        if counter in TIMED:
            g.state.turn_info.setdefault("expired", {}).setdefault(card_id, []).append(counter)
    g.emit("counter_removed", card=card_id, counter=counter, count=n)


def _fall_asleep(g: Game, card: Card) -> None:
    """118.1: at once passive, into its controller's reserve."""
    st = g.state
    controller, zone = st.locate(card.id)
    if zone == "guard_post":
        move_card(g, card.id, "reserve", Cause("effect"), to_player=controller)
    if card.active:
        card.active = False
        g.emit("passivated", card=card.id)


def preparation_counters(g: Game, player: str) -> None:
    """The preparation-phase work of counters on the active player's permanents, in table order."""
    st = g.state
    for card in list(st.permanents(player)):
        if not st.on_table(card.id):
            continue
        frozen = card.counter("freeze") > 0
        if card.counter("poison") and card.is_creature:      # 121.1
            card.counters["poison"] += 1
            g.emit("counter_added", card=card.id, counter="poison", count=1)
            hp = stats.current_hp(st, card, g.rules)
            if hp is not None and card.counters["poison"] >= hp:
                g.emit("died", card=card.id)
                move_card(g, card.id, "graveyard", Cause("destroy", counter="poison"))
                continue
        if card.counter("fading"):                           # 122.1
            card.counters["fading"] += 1
            g.emit("counter_added", card=card.id, counter="fading", count=1)
            if card.counters["fading"] >= card.cost.get("vp", sum(card.cost.values())):
                move_card(g, card.id, "graveyard", Cause("destroy", counter="fading"))
                continue
        if card.counter("sleep"):                            # 118.3
            remove_counter(g, card.id, "sleep", 1)
        if card.counter("freeze"):                           # 119.3
            remove_counter(g, card.id, "freeze", 1)
        works = card.is_creature or (card.active and not frozen)   # 127.0.2
        for timed in TIMED:                                  # 127.0.1
            if card.counter(timed) and works:
                remove_counter(g, card.id, timed, 1)
