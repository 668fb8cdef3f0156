"""Counters (nem önálló jelzők) on permanents, and what they do in the preparation phase.

Clauses: 117.0 (counters only on permanents they make sense for: sleep, poison, muscle, aging,
life on creatures; 123.2 no aging counter on a building; 125.1 level counters only on
adventurers; a card with `no_counters` gets none), 117.1 (counters of different names never
stand for each other: each is kept and removed by its own name), 117.2 (a counter not listed in
the Kódex does only what the card that made it says: by itself nothing), 117.3–117.4 (strength /
weakness, project reading: ±1/±1 each, model/stats.py), 118.1–118.3 (sleep: at once passive into
its controller's reserve, an automatic ability; no activation while it has one; one comes off in
each of its controller's preparation phases), 119.1, 119.3 (freeze: abilities lost; one comes
off), 119.2 (the time a freeze counter is put on, for the later-one-wins rule: model/keywords.py),
121.1 (poison: one more in each preparation phase of its controller; at least as many as the
current Ép → graveyard), 122.1 (fading: one more each preparation phase; at least the base
summoning cost → graveyard; the cost as one number by rb7:lapaldozas), 124.1 (muscle +1/+1),
125.2 (level +1/+1 on adventurers), 127.0.1 (delay and temporary counters: one comes off in each
preparation phase; they have no ability of their own), 127.0.2 (not while the permanent's
abilities do not work: a frozen card, a passive non-creature, rb7:idoleges-hatas), 127.0.5
(sources may remove them), 127.0.6 (sources may add them; once down to zero no more may be put
on while the card stays in play), 132.3 (poison immunity: no poison counter, those on it fall
off), 132.13 (a counter with no effect on the card may lie on it), 134.4.6 and the conflict
life-counters-modifiable (rb7:elet: no other source changes life counters, ruleset
kodex-rb7-life).
"""
from __future__ import annotations

from . import keywords, stats
from .game import Game
from .state import Card
from .zones import Cause, move_card

ADVENTURER = stats.ADVENTURER
TIMED = ("delay", "temporary")


def _may_carry(g: Game, card: Card, counter: str) -> str | None:
    """The clause that keeps this counter off this card, or None."""
    if counter == "poison" and keywords.poison_immune(g, card):
        return "132.3"
    if counter == "aging" and card.kind == "building":
        return "123.2"
    if counter == "level" and not card.has_subtype(ADVENTURER):
        return "125.1"
    if counter in TIMED and counter in stats.marks(card).get("expired", ()):
        return "127.0.6"
    if counter == "life" and g.rules.reading("life-counters-modifiable") == "rulebook":
        return "rb7:elet"
    if counter in ("sleep", "poison", "muscle", "aging", "life") and not card.is_creature:
        return "117.0"
    if keywords.has(g, card, "no_counters"):
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
    if counter == "freeze" and not card.counter("freeze"):
        stats.marks(card)["freeze_since"] = g.state.tick()            # 119.2
    card.counters[counter] = card.counter(counter) + count
    g.emit("counter_added", card=card_id, counter=counter, count=count)
    if counter == "sleep" and stats.counter_works(card, "sleep"):
        _fall_asleep(g, card)
    keywords.refresh(g, card, _drop(g))


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
            stats.marks(card).setdefault("expired", []).append(counter)   # 127.0.6
    g.emit("counter_removed", card=card_id, counter=counter, count=n)
    keywords.refresh(g, card, _drop(g))


def _drop(g: Game):
    """An enchantment falling off a card that gained an immunity to it (132.5.1, 132.6)."""
    return lambda att: move_card(g, att, "graveyard", Cause("effect"))


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
    for cid in list(st.permanent_ids(player)):
        if not st.on_table(cid) or not st.cards.peek(cid).counters:
            continue                                         # no counter: nothing to do (read, not copied)
        card = st.cards[cid]
        frozen = stats.frozen(card)
        works = stats.counter_works
        if card.counter("poison") and card.is_creature and works(card, "poison"):      # 121.1
            card.counters["poison"] += 1
            g.emit("counter_added", card=card.id, counter="poison", count=1)
            hp = stats.current_hp(st, card, g.rules)
            if hp is not None and card.counters["poison"] >= hp:
                g.emit("died", card=card.id, clause="121.1")
                move_card(g, card.id, "graveyard", Cause("destroy", counter="poison"))
                continue
        if card.counter("fading") and works(card, "fading"):                            # 122.1
            card.counters["fading"] += 1
            g.emit("counter_added", card=card.id, counter="fading", count=1)
            if card.counters["fading"] >= keywords.cost_value(g, card):
                move_card(g, card.id, "graveyard", Cause("destroy", counter="fading"))
                continue
        if card.counter("sleep"):                            # 118.3
            remove_counter(g, card.id, "sleep", 1)
        if card.counter("freeze"):                           # 119.3
            remove_counter(g, card.id, "freeze", 1)
        abilities_work = not frozen and (card.is_creature or card.active)    # 127.0.2
        for timed in TIMED:                                  # 127.0.1
            if card.counter(timed) and abilities_work:
                remove_counter(g, card.id, timed, 1)
