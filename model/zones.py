"""The one zone mover: every card that changes place goes through `move_card`.

It is the only code that changes a zone's members (`move_card`, `lift`, `put_back`; `arrange`
and the shuffles only reorder), and it keeps the state's card index (`State.where`, card id →
(player, zone)) with every change. A rule it checks raises `Refusal` before anything moves: for
an action that refuses the step, for an effect model/effects.py reports it as
`effect_prevented` (4.24.2).

It owns every zone rule:
- 4.7.3, 4.7.4 a card goes to its owner's graveyard (a premade card: the player
  who made it, 96.7); 4.14.1, 4.14.2 to its owner's hand; 4.2.4, 4.15.0 its
  owner's deck; 4.8.0 its owner's Void; 4.16.1 an exiled card to the Void of
  the graveyard it lay in.
- 4.8.4 nothing ever leaves the Void.
- 4.14.4, rb7:horgony a card with an anchor (`{keyword: anchor}`, an ability: a `lose` or a freeze
  counter takes it; it works while passive, on buildings too) is never moved from the table to a
  hand — by an effect, a cost or its own shadow (136.9: "semmilyen módon").
- 4.16.2 table → Void counts as going to the graveyard for related effects.
- 96.8 / 4.15.1 a premade card (96.0, tokens 96.3.1) never enters a deck or a
  Void: removed from the game (the reading for the deck is a ruleset option:
  conflict `premade-bound-for-deck`); rb7:jelzo a standalone token never
  enters a graveyard, hand, deck or Void: it leaves the game.
- 4.9.1 instants and sorceries never lie on the table; 5.3.1 creatures lie in
  the reserve (a creature sent to the "table" goes to the reserve), 5.4.1 only
  creatures stand in the guard post; 5.4.5 guard-post creatures are active and
  a passive one cannot enter; 5.3.2, 5.5.9 a permanent changing controller
  keeps its position, a creature lands in the reserve.
- 131.5–131.6 a creature (or building, 131.5.1) enters play passive unless it
  flies; 5.5.5 cards attached to a permanent that leaves go to the graveyard;
  a card leaving the table loses wounds, counters and position.
- 134.4.0–134.4.8 a life counter is removed instead of the creature leaving
  play or changing controller (not for unforced sacrifice, costs, combat, or
  the creature's own disadvantage); 134.4.2 from a damaging source it heals;
  134.4.3 the counters that sent it go with the life counter (model/keywords.py).
- 124.2–124.6, 135.2–135.5 muscle counters, penalty and compensation when a
  card leaves play or its owner's control: model/keywords.py, called from here.
- rb7:lapok-gazdaja-tulajdonosa cards attached to a permanent that changes
  controller change controller with it (and stay attached).
- rb7:lenyek a creature of a player that dies (table → graveyard/Void)
  outside the preparation phase yields its szörnykomponens to the opponent,
  except when sacrificed unforced (105.2) or paid as a cost.
- rb7:ketfelekeppen-hasznalhato-lapok a card played as another form is its
  original again once it is anywhere but the table (it left the table, or
  resolved into the graveyard); the mode chosen for a modal card (111.7) and
  abilities copied onto it (131.11) go with it (model/forms.py `restore`).
- 96.6 a new card (created, or a copy, 131.11) comes into being where its
  maker puts it (`enter_new`).
- rb7:avatar a second avatar coming under a player's control sends the first to the graveyard
  (model/avatars.py, called here after every arrival on a player's side).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import avatars, forms, keywords
from .errors import InputProblem
from .game import Game
from .resources import gain_components
from .state import PERMANENT_KINDS, TABLE_ZONES, Card, carries_effects, has_triggers, other
from .stats import counter_works, flies

# each destination and the zone it lands in. The zone is always this table's string, never the
# caller's: a zone name read from a case is replaced here by the module's own, as an enum member
# would be, so the location index and every event hold one canonical object per zone.
_ZONE_OF_DEST = {"hand": "hand", "deck_top": "deck", "deck_bottom": "deck", "deck_shuffle": "deck",
                 "graveyard": "graveyard", "void": "void", "reserve": "reserve",
                 "guard_post": "guard_post", "table": "table"}
DESTINATIONS = tuple(_ZONE_OF_DEST)


@dataclass(frozen=True)
class Cause:
    """Why a card moves: decides which rules apply (life counters, components, counts_as)."""
    kind: str = "effect"        # draw, search, return, shuffle, exile, discard, mill, nekron, sacrifice,
                                # destroy, play, resolve, effect, exchange, steal, opening_hand, attached, cost
                                # shadow (136.9: back to the hand, not leaving play for related effects)
    as_cost: bool = False
    forced: bool = True         # for sacrifice: kényszerített (104) or not (105)
    damage: bool = False        # sent by a damaging source (134.4.2)
    combat: bool = False        # by a strike or a combat ability (134.4.7)
    own_disadvantage: bool = False  # 134.4.8
    replacing: bool = False     # a step a replacement brings (mk:5.12.C: not replaced again, not by a life counter)
    counter: str | None = None  # the counter that sends it (134.4.3)


def life_counter_applies(cause: Cause) -> bool:
    """134.4.7–134.4.8: when the life counter does not work; mk:5.12.C: the life counter is a
    replacement (134.4.0 "ehelyett"), so it does not replace the step of another replacement."""
    if cause.kind == "sacrifice" and not cause.forced:
        return False
    if cause.replacing:
        return False
    return not (cause.as_cost or cause.combat or cause.own_disadvantage)


def _yields_components(g: Game, cause: Cause) -> bool:
    """rb7:lenyek, 105.2: who gets the szörnykomponens of a creature that leaves the table."""
    if g.state.phase == "preparation":
        return False
    if cause.kind == "sacrifice" and not cause.forced:
        return False
    return not cause.as_cost


def check_leaves(g: Game, card_id: str) -> None:
    """4.8.4: nothing ever leaves the Void. The mover checks it for every move; an effect that
    would take a card from where it lies checks it first, so 4.8.4 is the clause it reports."""
    if g.state.zone_of(card_id) == "void":
        g.refuse("4.8.4", f"{card_id} is in the Void: nothing ever leaves the Void")


def check_entry(g: Game, card: Card, dest: str) -> str:
    """The zone a card sent to `dest` lands in, as far as its kind decides: refused where the card
    cannot lie there (4.9.1 instants and sorceries never on the table; 5.3.1, 5.4.1 only creatures
    in the reserve and the guard post; a creature sent to the `table` lands in the reserve)."""
    zone = _ZONE_OF_DEST.get(dest, dest)
    if zone not in TABLE_ZONES:
        return zone
    if card.kind not in PERMANENT_KINDS:
        g.refuse("4.9.1", f"{card.id} is a {card.kind}: instants and sorceries never lie on the table")
    if zone == "table" and card.is_creature:
        zone = "reserve"  # 5.3.1
    if zone in ("reserve", "guard_post") and not card.is_creature:
        g.refuse("5.3.1" if zone == "reserve" else "5.4.1",
                 f"{card.id} is not a creature: only creatures lie in the {zone}")
    return zone


def move_card(g: Game, card_id: str, dest: str, cause: Cause = Cause(), *,
              to_player: str | None = None, active: bool | None = None) -> str:
    """Move one card; return where it ended: a zone name, "removed", or "stayed" (life counter).

    The stages, each a function of its own: where the card is and may leave from (`_source`);
    where it is going and may go (`_destination`); a life counter stepping in instead
    (`_life_counter_instead`); what the destination makes of the card (`_landing`); the move in
    the zone lists and the card's state on arrival (`_relocate`); what the move reports and sets
    off (`_after_move`)."""
    card = g.card(card_id)
    if dest not in DESTINATIONS:
        raise InputProblem(f"unknown destination {dest!r}")
    src_player, src_zone = _source(g, card, card_id, cause, to_player)
    was_on_table = src_zone in TABLE_ZONES
    zone, target = _destination(g, card, card_id, dest, src_player, was_on_table, to_player)
    leaving = was_on_table and zone not in TABLE_ZONES
    changing_controller = was_on_table and zone in TABLE_ZONES and target != src_player
    if _life_counter_instead(g, card, card_id, cause, leaving, changing_controller):
        return "stayed"
    # hook (keywords): what leaving play / the owner's control sets off, read before anything changes
    kw_record = keywords.before_move(g, card, src_player, target, zone, was_on_table, cause)
    final, counts_as, removed_by = _landing(g, card, zone, was_on_table)
    components = card.components_yield if (
        leaving and card.is_creature and zone in ("graveyard", "void") and not card.standalone_token
        and _yields_components(g, cause)) else 0
    _relocate(g, card, card_id, dest, src_player, src_zone, target, final, leaving, was_on_table,
              active)
    _after_move(g, card, card_id, dest, cause, src_player, src_zone, target, final, counts_as,
                removed_by, components, leaving, changing_controller, was_on_table, kw_record)
    return final


def _source(g: Game, card: Card, card_id: str, cause: Cause, to_player: str | None) -> tuple[str, str]:
    """(player, zone) the card leaves: 96.6 a new card comes from nowhere; 107.0, 4.5.2 a card in
    no zone cannot move; 4.8.4 nothing leaves the Void."""
    st = g.state
    loc = st.locate(card_id)
    if loc is None and cause.kind == "create" and card_id not in st.removed:
        loc = (to_player or card.owner, "created")       # a new card comes into being (96.6)
    if loc is None:
        if card_id in st.removed:
            g.refuse("107.0", f"{card_id} has left the game and is in no zone")
        g.refuse("4.5.2", f"{card_id} is in no zone")
    check_leaves(g, card_id)
    return loc


def _destination(g: Game, card: Card, card_id: str, dest: str, src_player: str, was_on_table: bool,
                 to_player: str | None) -> tuple[str, str]:
    """(zone, player) the card goes to: 4.14.4 an anchor never from the table to a hand; what may
    lie where (`check_entry`); 5.4.5 no passive creature in the guard post; a permanent stays with
    its controller, anything else goes to its owner's zone unless a player is named."""
    zone = _ZONE_OF_DEST[dest]
    if was_on_table and zone == "hand" and keywords.has(g, card, "anchor"):       # hook: keywords
        g.refuse("4.14.4", f"{card_id} has an anchor: it can in no way be returned from play to the hand",
                 also=("rb7:horgony",))

    if zone in TABLE_ZONES:
        zone = check_entry(g, card, zone)
        target = to_player or (src_player if was_on_table else card.owner)
        if zone == "guard_post" and was_on_table and not card.active:
            g.refuse("5.4.5", f"{card_id} is passive: a passive creature cannot be in the guard post")
    else:
        target = to_player or card.owner
    return zone, target


def _life_counter_instead(g: Game, card: Card, card_id: str, cause: Cause, leaving: bool,
                          changing_controller: bool) -> bool:
    """134.4.0: a life counter comes off instead of the creature leaving play or changing
    controller (not when 134.4.7–134.4.8 or mk:5.12.C say so); True when it did."""
    own_disadvantage = cause.own_disadvantage or g.disadvantage_of == card_id    # 134.4.8
    if (leaving or changing_controller) and card.is_creature and card.counter("life") > 0 \
            and counter_works(card, "life") and life_counter_applies(cause) \
            and not own_disadvantage:                   # 132.13 (hook: keywords)
        card.counters["life"] -= 1                      # 134.4.0
        if not card.counters["life"]:
            del card.counters["life"]
        if cause.damage:
            card.wounds = 0                             # 134.4.2
        keywords.life_counter_used(g, card, cause)      # 134.4.3–134.4.4 (hook: keywords)
        g.emit("life_counter_used", card=card_id)
        return True
    return False


def _landing(g: Game, card: Card, zone: str, was_on_table: bool) -> tuple[str, str | None, str | None]:
    """(final zone, counts_as, the clause that removes it): rb7:jelzo a standalone token leaving
    the table is removed; 96.8 / 4.15.1 a premade card bound for a deck (the reading
    premade-bound-for-deck) or the Void; 4.16.2 the Void from the table counts as the graveyard."""
    final, counts_as, removed_by = zone, None, None
    if card.standalone_token and zone not in TABLE_ZONES:
        final, removed_by = "removed", "rb7:jelzo"
    elif card.premade and zone == "deck":
        if g.rules.reading("premade-bound-for-deck") == "void":
            final, counts_as = "void", "deck"           # 4.15.1
        else:
            final, removed_by = "removed", "96.8"
    elif card.premade and zone == "void":
        final, removed_by = "removed", "96.8"
    if was_on_table and zone == "void" and counts_as is None:
        counts_as = "graveyard"                          # 4.16.2
    return final, counts_as, removed_by


def _relocate(g: Game, card: Card, card_id: str, dest: str, src_player: str, src_zone: str,
              target: str, final: str, leaving: bool, was_on_table: bool,
              active: bool | None) -> None:
    """The move in the zone lists, and the card's state on arrival: leaving the table loses
    wounds, counters, passivity and attachment; a form played as is given back
    (rb7:ketfelekeppen-hasznalhato-lapok); 4.2.3 a deck's top; entering the table: its timestamp
    (102.3), active or passive (131.5–131.6.1), 5.4.5 active in the guard post."""
    st = g.state
    st.hosts_cache = None                    # the permanents change: who sits on whom is read anew
    if src_zone != "created":
        st.players[src_player].own_zone(src_zone).remove(card_id)
        del st.where[card_id]
    if leaving:
        card.wounds = 0
        card.counters = {}
        card.active = True
        card.attached_to = None
    if card.original is not None and final not in TABLE_ZONES:
        forms.restore(card)                      # rb7:ketfelekeppen-hasznalhato-lapok: the original again
    if final == "removed":
        st.removed.append(card_id)
    else:
        ids = st.players[target].own_zone(final)
        if final == "deck" and dest not in ("deck_bottom", "deck_shuffle"):   # the top of a deck
            ids.insert(0, card_id)
        else:
            ids.append(card_id)
        st.where[card_id] = (target, final)
    if final in TABLE_ZONES and not was_on_table:
        card.timestamp = st.tick()
        card.wounds = 0
        if active is not None:
            card.active = active
        elif card.enters_active:
            card.active = True                           # 131.6.1: "comes into play active"
        elif card.kind in ("creature", "building"):
            card.active = flies(card)                    # 131.5–131.6, 131.5.1
        else:
            card.active = True
    if final == "guard_post":
        card.active = True                               # 5.4.5


def _after_move(g: Game, card: Card, card_id: str, dest: str, cause: Cause, src_player: str,
                src_zone: str, target: str, final: str, counts_as: str | None, removed_by: str | None,
                components: int, leaving: bool, changing_controller: bool, was_on_table: bool,
                kw_record: dict[str, Any]) -> None:
    """What the move reports and sets off: `moved`; 4.15.0 a deck shuffled after a card went into
    it; `removed_from_game`; rb7:lenyek the components of a creature to the opponent; 5.5.5 the
    cards sitting on a leaving permanent go too, and follow it to its new controller
    (rb7:lapok-gazdaja-tulajdonosa); muscle, penalty, compensation (keywords); rb7:avatar."""
    st = g.state
    g.emit("moved", card=card_id, **{"from": src_zone}, to=final,
           from_player=None if src_zone == "created" else src_player,
           to_player=None if final == "removed" else target, counts_as=counts_as, cause=cause.kind)
    if dest == "deck_shuffle" and final == "deck":
        shuffle_deck(g, target)                    # 4.15.0: shuffled into the deck, after it got there
    if removed_by:
        g.emit("removed_from_game", card=card_id, clause=removed_by)
    if components:
        gain_components(g, other(src_player), components, card_id)
    if leaving:
        for att in st.attached_to(card_id):
            move_card(g, att, "graveyard", Cause("attached"))  # 5.5.5
    elif changing_controller:
        for att in st.attached_to(card_id):                    # rb7:lapok-gazdaja-tulajdonosa
            before = st.controller(att)
            if before != target:
                move_card(g, att, "table", Cause("attached"), to_player=target)
                g.emit("control_changed", card=att, **{"from": before}, to=target)
    keywords.after_move(g, card, kw_record, move_card)   # hook (keywords): 124.2–124.6 muscle, 135.2–135.5, 127.0.4
    if final in TABLE_ZONES and (not was_on_table or changing_controller):       # rb7:avatar
        avatars.one_per_player(g, card, target, lambda cid: move_card(g, cid, "graveyard", Cause("effect")))


def enter_new(g: Game, card: Card, player: str, zone: str, active: bool | None = None) -> str:
    """96.6: a new card (`create`, a copy) comes into being in `zone` on `player`'s side (a card
    that cannot lie there is not made: 4.9.1, 5.3.1, 5.4.1); the event `created`, then its move
    from `created`. Returns where it ended."""
    st = g.state
    zone = {"deck": "deck_top", "table": "reserve" if card.is_creature else "table"}.get(zone, zone)
    check_entry(g, card, zone)
    st.cards[card.id] = card
    if carries_effects(card):
        st.effect_cards = st.effect_cards | {card.id}
    if has_triggers(card):
        st.trigger_cards = st.trigger_cards | {card.id}
    g.emit("created", card=card.id, player=player, zone=zone)
    return move_card(g, card.id, zone, Cause("create"), to_player=player, active=active)


def shuffle_deck(g: Game, player: str, keep_on_top: str | None = None) -> None:
    """4.15.0, 4.2.1: the deck in a random order, from the state's seeded generator; with
    `keep_on_top`, that card, when it is the deck's top card, stays there (4.13.5: a card searched
    onto the top of the deck, the rest shuffled)."""
    deck = g.player(player).own_zone("deck")
    if keep_on_top is not None and deck and deck[0] == keep_on_top:
        rest = deck[1:]
        g.rng().shuffle(rest)
        deck[1:] = rest
    else:
        g.rng().shuffle(deck)
    g.emit("shuffled", player=player)


def arrange(g: Game, player: str, zone: str, order: list[str]) -> None:
    """rb7:lenyek-helye: put the creatures of a reserve or guard post in the given left-to-right order.

    Only the order changes: `order` must name exactly the cards the zone holds.
    """
    ids = g.player(player).own_zone(zone)
    if sorted(order) != sorted(ids):
        raise InputProblem(f"{zone}: an arrangement names exactly the cards of {player}'s {zone}")
    ids[:] = list(order)


def lift(g: Game, card_id: str) -> tuple[str, str, int]:
    """4.21.1: a card being played is in no zone while it resolves; returns where it was."""
    player, zone = g.state.locate(card_id)
    ids = g.state.players[player].own_zone(zone)
    index = ids.index(card_id)
    ids.remove(card_id)
    del g.state.where[card_id]
    g.state.hosts_cache = None
    return player, zone, index


def put_back(g: Game, card_id: str, spot: tuple[str, str, int]) -> None:
    """Return a lifted card to where it was (before the mover sends it on, e.g. to the graveyard)."""
    player, zone, index = spot
    ids = g.state.players[player].own_zone(zone)
    ids.insert(min(index, len(ids)), card_id)
    g.state.where[card_id] = (player, zone)
    g.state.hosts_cache = None

