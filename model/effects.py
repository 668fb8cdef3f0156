"""Effects of a source: the effect verbs of hkk-case/1 and the project's additions.

Each handler takes the Game and the step's arguments, checks what the rules
require and changes the state through the zone mover (model/zones.py) and the
resource functions (model/resources.py). Clauses by verb:
- draw 4.12 (3.2 own deck only; an empty deck draws nothing, rb7:huzasi-fazis)
- search 4.13 (4.13.2 to the graveyard/Void it is a mill)
- discard 4.17 (4.17.2 the hand's player chooses, 4.17.3 all when fewer, 4.17.5 as a cost)
- mill 4.18 (4.18.1 all when fewer, 4.18.3 as a cost)
- move 4.14, 4.15, 4.7, 4.8 (through the mover), exile 4.16
- damage / heal 4.25, 4.26; sacrifice 104.0–104.1 (forced: a graveyard-sending source), 105.0–105.2; sacrifice_hp / sacrifice_max_hp 103
- change_max_hp / change_max_vp 3.19; gain_vp / gain_components 3.13, 3.18, 115
- steal 5.3.2, 5.5.9, 131.10; create 96.0, 96.6, 96.7; passivate 5.5.7.1, 5.4.5, 5.5.4
- put_counter / remove_counter 117–127 (model/counters.py)
- resolve_conflict 102 (model/priority.py)

Actions are refused, effects are carried out as far as possible (4.24.2). An effect is never
refused by a rule: `apply_effect` carries every effect out through `as_far_as_possible`, the one
place where a rule's stop (a `Refusal` raised by a check) becomes an `effect_prevented {verb,
clause, card, target, player, source}` event. A handler whose effect has several parts (the cards
of a `discard`) carries out each part through it, so a stopped part leaves the others done. A
rule's check comes before the part it guards changes anything: a part stopped after it changed
the state is an engine error, never silently half done. Steps with `as_cost: true` are costs, an
action: refused in full (4.17.5, 4.18.3, 103.2, 4.20.3).
"""
from __future__ import annotations

from typing import Any, Callable

from . import counters, damage, resources, stats
from .errors import InputProblem, Refusal
from .game import Game
from .state import PLAYERS, TABLE_ZONES, card_from_def
from .zones import Cause, check_entry, check_leaves, move_card, shuffle_deck

Handler = Callable[[Game, dict[str, Any], str], None]


def as_far_as_possible(g: Game, verb: str, part: Callable[[], Any], **where: Any) -> bool:
    """4.24.2: carry out one part of an effect; where a rule stops it, the part does nothing.

    The stop is reported as `effect_prevented {verb, clause, **where}` (`where`: the `card`,
    `target`, `player`, `source` the part concerns) and the effect goes on with its next part, the
    step with its next effect. Returns whether the part was carried out.
    """
    mark = len(g.events)
    try:
        part()
    except Refusal as stop:
        if len(g.events) != mark:
            raise RuntimeError(f"{verb}: rule {stop.clause} stopped a part of the effect after it had "
                               f"changed the state ({g.events[mark:]!r}); a rule's check must come "
                               "before the change it guards") from stop
        g.emit("effect_prevented", verb=verb, clause=stop.clause,
               **{k: v for k, v in where.items() if v is not None})
        return False
    return True


def _count(args: dict[str, Any], key: str = "count", default: int = 1) -> int:
    n = args.get(key, default)
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise InputProblem(f"{key}: expected a non-negative integer, got {n!r}")
    return n


def _player(args: dict[str, Any], by: str, key: str = "player") -> str:
    p = args.get(key, by)
    if p not in PLAYERS:
        raise InputProblem(f"{key}: unknown player {p!r}")
    return p


def do_damage(g: Game, a: dict[str, Any], by: str) -> None:
    damage.deal_damage(g, a["target"], _count(a, "amount"), a.get("element"), a.get("source"), by=by)


def do_heal(g: Game, a: dict[str, Any], by: str) -> None:
    damage.heal(g, a["target"], _count(a, "amount"))


def draw_cards(g: Game, player: str, count: int, cause: str = "draw") -> int:
    """4.12.0: the top card(s) of the player's own deck into the hand; an empty deck gives nothing."""
    deck = g.player(player).zones["deck"]
    drawn = 0
    for _ in range(count):
        if not deck:
            break
        cid = deck[0]
        move_card(g, cid, "hand", Cause(cause))
        if cause == "draw":
            g.emit("drew", player=player, card=cid)
        drawn += 1
    return drawn


def do_draw(g: Game, a: dict[str, Any], by: str) -> None:
    draw_cards(g, _player(a, by), _count(a))


def do_discard(g: Game, a: dict[str, Any], by: str) -> None:
    player = _player(a, by)
    hand = g.player(player).zones["hand"]
    to = a.get("to", "graveyard")
    if to not in ("graveyard", "void"):
        raise InputProblem(f"to: discard goes to graveyard or void, not {to!r}")
    as_cost = bool(a.get("as_cost", False))
    chosen = a.get("cards")
    count = _count(a, default=len(chosen) if chosen is not None else 1)
    if as_cost and len(hand) < count:
        g.refuse("4.17.5", f"{player} holds {len(hand)} card(s), the cost discards {count}: "
                           "nothing is discarded and the cost is not paid")
    if chosen is None:
        if len(hand) <= count:
            chosen = list(hand)                          # 4.17.3
        else:
            g.state.pending = {"player": player, "choice": "discard", "count": count,
                               "options": list(hand), "step": {"discard": dict(a)}, "by": by}
            g.emit("decision_pending", player=player, choice="discard", count=count, clause="4.17.2")
            return
    chosen = list(chosen)
    if len(set(chosen)) != len(chosen):
        raise InputProblem("cards: a card is named twice")
    if len(chosen) > count:
        raise InputProblem(f"cards: {len(chosen)} card(s) named for a discard of {count}")
    if as_cost:                                          # a cost: all of it or nothing (4.17.5)
        for cid in chosen:
            if cid not in hand:
                g.refuse("4.17.0", f"{cid} is not in {player}'s hand")
        if len(chosen) != count:
            g.refuse("4.17.3", f"the cost discards {count} card(s), {len(chosen)} named")
    for cid in chosen:
        g.card(cid)
    for cid in chosen:                                   # 4.24.2: each card a part of its own
        as_far_as_possible(g, "discard", lambda cid=cid: _discard_one(g, player, hand, cid, to, as_cost),
                           card=cid, player=player, source=a.get("source"))
    rest = count - len(chosen)
    if rest > 0 and hand:                                # the step named fewer: the holder chooses the rest
        rest_args = {k: v for k, v in a.items() if k != "cards"}
        rest_args["count"] = rest
        do_discard(g, rest_args, by)


def _discard_one(g: Game, player: str, hand: list[str], cid: str, to: str, as_cost: bool) -> None:
    if cid not in hand:
        g.refuse("4.17.0", f"{cid} is not in {player}'s hand")
    where = move_card(g, cid, to, Cause("discard", as_cost=as_cost))
    g.emit("discarded", player=player, card=cid, to=where)


def do_mill(g: Game, a: dict[str, Any], by: str) -> None:
    player = _player(a, by)
    count = _count(a)
    to = a.get("to", "graveyard")
    if to not in ("graveyard", "void"):
        raise InputProblem(f"to: mill goes to graveyard or void, not {to!r}")
    as_cost = bool(a.get("as_cost", False))
    deck = g.player(player).zones["deck"]
    if as_cost and len(deck) < count:
        g.refuse("4.18.3", f"{player}'s deck holds {len(deck)} card(s), the cost mills {count}")
    for cid in list(deck[:count]):                       # 4.18.1
        where = move_card(g, cid, to, Cause("mill", as_cost=as_cost))
        g.emit("milled", player=player, card=cid, to=where)


def do_move(g: Game, a: dict[str, Any], by: str) -> None:
    cid = a["card"]
    g.card(cid)
    to = a["to"]
    kind = {"hand": "return", "deck_top": "shuffle", "deck_bottom": "shuffle",
            "deck_shuffle": "shuffle"}.get(to, "effect")
    if to == "hand" and g.state.zone_of(cid) == "deck":
        kind = "search"
    if to in ("graveyard", "void") and g.state.zone_of(cid) == "deck":
        kind = "mill"                                     # 4.13.2
    if to in ("graveyard", "void") and g.state.zone_of(cid) == "hand":
        kind = "discard"
    loc = g.state.locate(cid)
    if to == "void" and loc and loc[1] == "graveyard":
        do_exile(g, {"card": cid}, by)                    # 4.16.0: graveyard → Void is exile
        return
    player = a.get("player") if to in TABLE_ZONES else None
    if player is not None and loc and loc[1] in TABLE_ZONES and player != loc[0]:
        do_steal(g, {"card": cid, "to": player}, by)      # a change of controller: 5.3.2, 5.5.9, 131.10
        return
    where = move_card(g, cid, to, Cause(kind, as_cost=bool(a.get("as_cost", False))), to_player=player)
    if kind == "mill" and loc:
        g.emit("milled", player=loc[0], card=cid, to=where)
    elif kind == "discard" and loc:
        g.emit("discarded", player=loc[0], card=cid, to=where)


def do_exile(g: Game, a: dict[str, Any], by: str) -> None:
    cid = a["card"]
    g.card(cid)
    loc = g.state.locate(cid)
    check_leaves(g, cid)
    if not loc or loc[1] != "graveyard":
        g.refuse("4.16.0", f"{cid} is not in a graveyard: only a card in a graveyard can be exiled")
    where = move_card(g, cid, "void", Cause("exile"), to_player=loc[0])   # 4.16.1
    g.emit("exiled", card=cid, player=loc[0], to=where)


def do_search(g: Game, a: dict[str, Any], by: str) -> None:
    player = _player(a, by)
    cid = a["card"]
    g.card(cid)
    check_leaves(g, cid)
    if cid not in g.player(player).zones["deck"]:
        g.refuse("4.13.1", f"{cid} is not in {player}'s deck")
    to = a.get("to", "hand")
    cause = "mill" if to in ("graveyard", "void") else "search"   # 4.13.2
    where = move_card(g, cid, to, Cause(cause))
    if cause == "mill":
        g.emit("milled", player=player, card=cid, to=where)
    if cause == "search" and to != "deck_top":
        shuffle_deck(g, player)


def do_shuffle(g: Game, a: dict[str, Any], by: str) -> None:
    shuffle_deck(g, _player(a, by))


def do_put_counter(g: Game, a: dict[str, Any], by: str) -> None:
    counters.put_counter(g, a["card"], str(a["counter"]), _count(a))


def do_remove_counter(g: Game, a: dict[str, Any], by: str) -> None:
    counters.remove_counter(g, a["card"], str(a["counter"]), _count(a))


def sacrifice_permanent(g: Game, player: str, cid: str, forced: bool, as_cost: bool = False) -> str:
    """104 / 105: a player sacrifices one of their permanents: it goes to the graveyard."""
    clause = "104.0" if forced else "105.0"
    g.card(cid)
    check_leaves(g, cid)
    if g.state.controller(cid) != player:
        g.refuse(clause, f"{cid} is not a permanent of {player}: a player sacrifices only their own permanents")
    g.emit("sacrificed", player=player, card=cid, forced=forced)
    return move_card(g, cid, "graveyard", Cause("sacrifice", forced=forced, as_cost=as_cost))


def do_sacrifice(g: Game, a: dict[str, Any], by: str) -> None:
    sacrifice_permanent(g, _player(a, by), a["card"], bool(a.get("forced", False)),
                        bool(a.get("as_cost", False)))


def do_sacrifice_hp(g: Game, a: dict[str, Any], by: str) -> None:
    resources.sacrifice_hp(g, _player(a, by), _count(a, "amount"), bool(a.get("as_cost", False)))


def do_sacrifice_max_hp(g: Game, a: dict[str, Any], by: str) -> None:
    resources.sacrifice_max_hp(g, _player(a, by), _count(a, "amount"), bool(a.get("as_cost", False)))


def _delta(a: dict[str, Any]) -> int:
    d = a.get("delta")
    if isinstance(d, bool) or not isinstance(d, int):
        raise InputProblem(f"delta: expected an integer, got {d!r}")
    return d


def do_change_max_hp(g: Game, a: dict[str, Any], by: str) -> None:
    resources.change_max(g, _player(a, by), "hp", _delta(a))


def do_change_max_vp(g: Game, a: dict[str, Any], by: str) -> None:
    resources.change_max(g, _player(a, by), "vp", _delta(a))


def _amount(a: dict[str, Any]) -> int:
    n = a.get("amount")
    if isinstance(n, bool) or not isinstance(n, int):
        raise InputProblem(f"amount: expected an integer, got {n!r}")
    return n


def do_gain_vp(g: Game, a: dict[str, Any], by: str) -> None:
    resources.gain_vp(g, _player(a, by), _amount(a))


def do_gain_components(g: Game, a: dict[str, Any], by: str) -> None:
    resources.gain_components(g, _player(a, by), _amount(a))


def do_steal(g: Game, a: dict[str, Any], by: str) -> None:
    cid = a["card"]
    card = g.card(cid)
    new = _player(a, by, "to")
    st = g.state
    check_leaves(g, cid)
    old = st.controller(cid)
    if old is None:
        g.refuse("5.6.2", f"{cid} is not on the table: only a permanent has a controller to change")
    if old == new:
        g.refuse("5.6.2", f"{cid} is already {new}'s")
    if stats.has_ability(card, "no_control_change"):
        g.refuse("131.10", f"{cid} cannot change controller")
    zone = "reserve" if card.is_creature else "table"     # 5.3.2, 5.5.9
    where = move_card(g, cid, zone, Cause("steal"), to_player=new)
    if where != "stayed":
        g.emit("control_changed", card=cid, **{"from": old}, to=new)


def do_create(g: Game, a: dict[str, Any], by: str) -> None:
    player = _player(a, by)
    d = dict(a.get("card") or {})
    cid = d.pop("id", None)
    if not isinstance(cid, str) or not cid:
        raise InputProblem("card.id: a created card needs an id")
    st = g.state
    if cid in st.cards:
        raise InputProblem(f"card.id: {cid!r} already exists")
    d.setdefault("owner", player)                          # 96.7
    if not d.get("standalone_token"):
        d.setdefault("premade", True)                      # 96.0
    explicit_active = d.get("active")
    card = card_from_def(cid, d, default_owner=player, where="/card")
    zone = a.get("zone") or ("reserve" if card.is_creature else "table")   # 96.6
    zone = {"deck": "deck_top", "table": "reserve" if card.is_creature else "table"}.get(zone, zone)
    check_entry(g, card, zone)          # 4.9.1, 5.3.1, 5.4.1: a card that cannot lie there is not made
    st.cards[cid] = card
    g.emit("created", card=cid, player=player, zone=zone)
    move_card(g, cid, zone, Cause("create"), to_player=player, active=explicit_active)


def do_passivate(g: Game, a: dict[str, Any], by: str) -> None:
    cid = a["card"]
    card = g.card(cid)
    zone = g.state.zone_of(cid)
    if zone not in TABLE_ZONES:
        g.refuse("5.5.7.1", f"{cid} is not on the table: only permanents are passivated")
    if zone == "guard_post":
        g.refuse("5.4.5", f"{cid} is in the guard post: guard-post creatures cannot be passivated")
    if card.attached_to:
        g.refuse("5.5.4", f"{cid} sits on {card.attached_to}: attached cards cannot be passivated")
    if not card.active:
        g.refuse("5.5.7.1", f"{cid} is already passive: only an active card can be passivated")
    card.active = False
    g.emit("passivated", card=cid)


def do_activate_card(g: Game, a: dict[str, Any], by: str) -> None:
    cid = a["card"]
    card = g.card(cid)
    if g.state.zone_of(cid) not in TABLE_ZONES:
        g.refuse("4.9.3", f"{cid} is not on the table: only permanents are active or passive")
    if not card.active:
        card.active = True
        g.emit("activated", card=cid)


def do_resolve_conflict(g: Game, a: dict[str, Any], by: str) -> None:
    from . import priority  # the priority order (102) as data
    effs = a.get("effects") or []
    if len(effs) != 2:
        raise InputProblem("effects: exactly two contradicting effects")
    policy = a.get("policy", g.rules.priority_policy)
    e1, e2 = (priority.Effect.from_dict(e) for e in effs)
    verdict = priority.compile_policy(policy).resolve(e1, e2)
    winner = None if verdict.winner is None else (effs[0] if verdict.winner == "a" else effs[1]).get("id")
    g.emit("conflict_resolved", winner=winner, clause=verdict.clause, policy=policy,
           unresolved=True if verdict.winner is None else None)


EFFECTS: dict[str, Handler] = {
    "damage": do_damage, "heal": do_heal, "draw": do_draw, "discard": do_discard, "mill": do_mill,
    "move": do_move, "exile": do_exile, "put_counter": do_put_counter,
    "remove_counter": do_remove_counter, "sacrifice": do_sacrifice,
    "sacrifice_hp": do_sacrifice_hp, "sacrifice_max_hp": do_sacrifice_max_hp,
    "change_max_hp": do_change_max_hp, "change_max_vp": do_change_max_vp,
    "gain_vp": do_gain_vp, "gain_components": do_gain_components, "steal": do_steal,
    "create": do_create, "passivate": do_passivate, "activate_card": do_activate_card,
    "search": do_search, "shuffle": do_shuffle, "resolve_conflict": do_resolve_conflict,
}



# verbs whose `player` argument names the player the effect concerns
_PLAYER_VERBS = ("draw", "discard", "mill", "sacrifice", "sacrifice_hp", "sacrifice_max_hp",
                 "change_max_hp", "change_max_vp", "gain_vp", "gain_components", "search", "shuffle",
                 "create")


def _where(verb: str, args: dict[str, Any], by: str) -> dict[str, Any]:
    """The fields of an `effect_prevented` event for the whole effect: what the step names."""
    where: dict[str, Any] = {}
    card = args.get("card")
    if isinstance(card, dict):
        card = card.get("id")                                # create: the definition's id
    if isinstance(card, str):
        where["card"] = card
    if isinstance(args.get("target"), str):
        where["target"] = args["target"]
    if verb in _PLAYER_VERBS:
        where["player"] = args.get("player", by)
    if isinstance(args.get("source"), str):
        where["source"] = args["source"]
    return where


def apply_effect(g: Game, verb: str, args: dict[str, Any], by: str) -> None:
    """Carry out one effect verb (used by the engine and by a resolving card's `effects`).

    4.24.2: a rule never refuses an effect; it is carried out as far as possible
    (`as_far_as_possible`). A step with `as_cost: true` is a cost, part of an action: a rule
    refuses it in full.
    """
    handler = EFFECTS.get(verb)
    if handler is None:
        raise InputProblem(f"unknown effect verb {verb!r}")
    if args.get("as_cost"):
        handler(g, args, by)
        return
    as_far_as_possible(g, verb, lambda: handler(g, args, by), **_where(verb, args, by))


__all__ = ["EFFECTS", "apply_effect", "as_far_as_possible", "draw_cards", "sacrifice_permanent"]
