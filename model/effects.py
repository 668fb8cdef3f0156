"""Effects of a source: the effect verbs of hkk-case/1 and the project's additions.

Each handler takes the Game and the step's arguments, checks what the rules
require and changes the state through the zone mover (model/zones.py) and the
resource functions (model/resources.py). Clauses by verb:
- draw 4.12 (3.2 own deck only; an empty deck draws nothing, rb7:huzasi-fazis)
- search 4.13 (4.13.2 to the graveyard/Void a mill; onto the deck's top 4.13.1, or 4.13.5 by a reading)
- discard 4.17 (4.17.2 the hand's player chooses, 4.17.3 all when fewer, 4.17.5 as a cost)
- mill 4.18 (4.18.1 all when fewer, 4.18.3 as a cost)
- move 4.14, 4.15, 4.7, 4.8 (through the mover), exile 4.16
- damage / heal 4.25, 4.26; sacrifice 104.0–104.1 (forced: a graveyard-sending source), 105.0–105.2; sacrifice_hp / sacrifice_max_hp 103
- change_max_hp / change_max_vp 3.19; gain_vp / gain_components 3.13, 3.18, 115
- steal 5.3.2, 5.5.9, 131.10; create 96.0, 96.6, 96.7; passivate 5.5.7.1, 5.4.5, 5.5.4
- put_counter / remove_counter 117–127 (model/counters.py)
- resolve_conflict 102 (model/priority.py)
- damage / heal with `targets` (111.1.2–111.1.3, 111.2.3: one source, the modification for every
  target) or `split` (111.1.4, 111.2.4: modified once, then split)
- skip_phase 4.10.7 (a phase of the player's next turn does not take place: model/turn.py)
- add_effect 99.4–99.5 (a timed effect, model/continuous.py); delay 114 (model/delayed.py);
  repeat 106 (the effects of a card carried out again, decisions made again)
- prevent 137.3, 4.21.2 and modify (rb7:kijatszasi-sorrend): a reaction's effect on the card or
  ability it answers on the reaction queue (model/queue.py)
- a prohibition in force (99.1: cannot heal, cannot draw, cannot be passivated) stops that part;
  a replacement in force (mk:5.12, model/replacement.py) carries out its steps instead

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

from . import (activation_costs, continuous, copies, counters, damage, delayed, keywords, limits, numbers,
               overrides, queue, replacement, resources, stats)
from .decisions import wait_for_answer
from .prohibitions import prohibited
from .errors import InputProblem, Refusal
from .game import Game
from .shapes import COUNTED_MARK, repeats
from .state import PLAYERS, SKIPPABLE, TABLE_ZONES, card_from_def
from .zones import Cause, check_leaves, enter_new, move_card, shuffle_deck

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


SPELLS = ("instant", "sorcery", "enchantment")                # rb7:varazslatok


def _spell_controller(g: Game, source: Any, by: str) -> str | None:
    """The player whose spell the source is (111.1.3, 111.2.3), or None when it is no spell."""
    if not isinstance(source, str) or source not in g.state.cards:
        return None
    card = g.state.cards.peek(source)
    if card.kind not in SPELLS:
        return None
    return g.state.controller(source) or by


def _spell_amount(g: Game, a: dict[str, Any], by: str, number: str, n: int | None = None) -> int:
    """111.1.3–111.1.4, 111.2.3–111.2.4: the amount of a spell (`amount`, or `n`) after the
    modifiers of its player (`spell_damage`, `spell_healing`, `spell_discard`, `spell_draw`)."""
    n = _count(a, "amount") if n is None else n
    who = _spell_controller(g, a.get("source"), by)
    if who is None:
        return n
    return numbers.amount(g.state, n, number, who, g.rules.priority_policy, stats.frozen)


def _targets_and_amounts(g: Game, a: dict[str, Any], by: str, number: str, clause: str
                         ) -> list[tuple[str, int]]:
    """(target, amount) of a damage / heal step: one `target`; `targets` — the same modified amount
    to each (111.1.3 / 111.2.3); `split: {target: n}` — the modified amount shared out (111.1.4 /
    111.2.4: modified once, before the split; the shares must add up to it)."""
    amount = _spell_amount(g, a, by, number)
    if "split" in a:
        split = a["split"]
        if not isinstance(split, dict) or not split:
            raise InputProblem("split: a mapping of target -> amount")
        for t, n in split.items():
            if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                raise InputProblem(f"split/{t}: a non-negative integer")
        if sum(split.values()) != amount:
            g.refuse(clause, f"the split gives {sum(split.values())}, the amount to split is {amount} "
                             "(modified once, before it is split)")
        return list(split.items())
    if "targets" in a:
        targets = a["targets"]
        if not isinstance(targets, list) or not targets:
            raise InputProblem("targets: a non-empty list of cards or players")
        return [(t, amount) for t in targets]
    if "target" not in a:
        raise InputProblem("target: the card or player (or `targets`, or `split`)")
    return [(a["target"], amount)]


def do_damage(g: Game, a: dict[str, Any], by: str) -> None:
    parts = _targets_and_amounts(g, a, by, "spell_damage", "111.1.4")
    for target, amount in parts:
        where = {"target": target, "source": a.get("source") if isinstance(a.get("source"), str) else None}
        as_far_as_possible(g, "damage", lambda t=target, n=amount: damage.deal_damage(
            g, t, n, a.get("element"), a.get("source"), by=by, replaced=bool(a.get(replacement.REPLACED_MARK)),
            limit=a.get("limit")),
            **where)


def do_heal(g: Game, a: dict[str, Any], by: str) -> None:
    for target, amount in _targets_and_amounts(g, a, by, "spell_healing", "111.2.4"):
        as_far_as_possible(g, "heal", lambda t=target, n=amount: _heal_one(g, t, n, a, by), target=target)


def _heal_one(g: Game, target: str, amount: int, a: dict[str, Any], by: str) -> None:
    amount = limits.bounded(g, "heal", target, amount, a.get("limit"))         # mk:5.11.A
    if not a.get(replacement.REPLACED_MARK) and replacement.replace(
            g, "heal", target, {**a, "target": target, "amount": amount}, by,
            lambda tg: damage.heal(tg, target, amount, a), stats.frozen, apply_effect):
        return
    damage.heal(g, target, amount, a)


def draw_cards(g: Game, player: str, count: int, cause: str = "draw") -> None:
    """4.12.0: the top card(s) of the player's own deck into the hand; an empty deck gives nothing."""
    deck = g.player(player).own_zone("deck")       # the live list: the draws change it
    for _ in range(count):
        if not deck:
            break
        cid = deck[0]
        move_card(g, cid, "hand", Cause(cause))
        if cause == "draw":
            g.emit("drew", player=player, card=cid)


def do_draw(g: Game, a: dict[str, Any], by: str) -> None:
    player = _player(a, by)
    prohibited(g, player, "draw", a)
    draw_cards(g, player, _count(a))


def do_discard(g: Game, a: dict[str, Any], by: str) -> None:
    player = _player(a, by)
    hand = g.player(player).own_zone("hand")       # the live list: the discards change it
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
    if repeats(chosen):
        raise InputProblem("cards: a card is named twice")
    if len(chosen) > count:
        raise InputProblem(f"cards: {len(chosen)} card(s) named for a discard of {count}")
    if as_cost:                                          # a cost: all of it or nothing (4.17.5)
        for cid in chosen:
            if cid not in hand:
                g.refuse("4.17.0", f"{cid} is not in {player}'s hand")
        if len(chosen) != count:
            g.refuse("4.17.3", f"the cost discards {count} card(s), {len(chosen)} named")
    for named in chosen:                                 # each a card of the case (an input error else)
        g.card(named)
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
    where = move_card(g, cid, to, Cause(kind, as_cost=bool(a.get("as_cost", False)),
                                        replacing=bool(a.get(replacement.REPLACED_MARK))), to_player=player)
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
    elif to == "deck_top" and g.rules.reading("search-to-deck-top") == "shuffle":
        # conflict search-to-deck-top: 4.13.5's "előveszel lapot és megkevered a paklit" — the
        # rest of the deck is shuffled, the card found stays on top; the default (4.13.1) keeps it
        shuffle_deck(g, player, keep_on_top=cid)


def do_shuffle(g: Game, a: dict[str, Any], by: str) -> None:
    shuffle_deck(g, _player(a, by))


def do_put_counter(g: Game, a: dict[str, Any], by: str) -> None:
    counters.put_counter(g, a["card"], str(a["counter"]), _count(a))


def do_remove_counter(g: Game, a: dict[str, Any], by: str) -> None:
    counters.remove_counter(g, a["card"], str(a["counter"]), _count(a))


def sacrifice_permanent(g: Game, player: str, cid: str, forced: bool, as_cost: bool,
                        replacing: bool) -> str:
    """104 / 105: a player sacrifices one of their permanents: it goes to the graveyard."""
    clause = "104.0" if forced else "105.0"
    g.card(cid)
    check_leaves(g, cid)
    if g.state.controller(cid) != player:
        g.refuse(clause, f"{cid} is not a permanent of {player}: a player sacrifices only their own permanents")
    g.emit("sacrificed", player=player, card=cid, forced=forced)
    return move_card(g, cid, "graveyard", Cause("sacrifice", forced=forced, as_cost=as_cost, replacing=replacing))


def do_sacrifice(g: Game, a: dict[str, Any], by: str) -> None:
    sacrifice_permanent(g, _player(a, by), a["card"], bool(a.get("forced", False)),
                        bool(a.get("as_cost", False)), bool(a.get(replacement.REPLACED_MARK)))


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
    player = _player(a, by)
    resources.gain_vp(g, player, limits.bounded(g, "gain_vp", player, _amount(a), a.get("limit")))


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
    if keywords.has(g, card, "no_control_change"):
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
    card = card_from_def(cid, d, default_owner=player, where="/card")
    enter_new(g, card, player, a.get("zone") or "table", d.get("active"))     # 96.6


def do_passivate(g: Game, a: dict[str, Any], by: str) -> None:
    cid = a["card"]
    card = g.card(cid)
    zone = g.state.zone_of(cid)
    if zone not in TABLE_ZONES:
        g.refuse("5.5.7.1", f"{cid} is not on the table: only permanents are passivated")
    strong_wins = overrides.passes_strong_rule(g, a)       # 100.0 against 101.0 (a reading)
    if zone == "guard_post" and not strong_wins:
        g.refuse("5.4.5", f"{cid} is in the guard post: guard-post creatures cannot be passivated")
    if card.attached_to and not strong_wins:
        g.refuse("5.5.4", f"{cid} sits on {card.attached_to}: attached cards cannot be passivated")
    if not card.active:
        g.refuse("5.5.7.1", f"{cid} is already passive: only an active card can be passivated")
    prohibited(g, cid, "be_passivated", a)
    card.active = False
    g.emit("passivated", card=cid)


def do_skip_phase(g: Game, a: dict[str, Any], by: str) -> None:
    """4.10.7: the player's next turn passes over the phase (model/turn.py); the turn after this
    one when the player is active now. The end phase is never skipped (the turn ends in it)."""
    phase = a.get("phase")
    if phase not in SKIPPABLE:
        raise InputProblem(f"phase: one of {', '.join(SKIPPABLE)} (the end of the turn falls in the end phase)")
    pl = g.player(_player(a, by))
    if phase not in pl.skip:
        pl.skip = [*pl.skip, SKIPPABLE[SKIPPABLE.index(phase)]]     # the engine's own string (model/state.py)


def do_activate_card(g: Game, a: dict[str, Any], by: str) -> None:
    cid = a["card"]
    card = g.card(cid)
    if g.state.zone_of(cid) not in TABLE_ZONES:
        g.refuse("4.9.3", f"{cid} is not on the table: only permanents are active or passive")
    if not card.active:
        card.active = True
        g.emit("activated", card=cid)


def do_add_effect(g: Game, a: dict[str, Any], by: str) -> None:
    """99.4–99.5: a one-shot effect creates a timed effect; it reaches what is in play now."""
    entry = a.get("effect")
    if not isinstance(entry, dict):
        raise InputProblem("effect: a continuous-effect entry (number / grant / lose / prohibit / require)")
    source = a.get("source") if isinstance(a.get("source"), str) else None
    item = continuous.create_lasting(g.state, entry, source, by, a.get("until", "end_of_turn"), a.get("id"))
    g.emit("effect_started", effect=item["id"], source=source, affects=list(item["affects"]))


def do_delay(g: Game, a: dict[str, Any], by: str) -> None:
    """114: a delayed resource — the step comes at `at`; its decisions are made now (114.4)."""
    delayed.schedule(g, a, by)


def do_repeat(g: Game, a: dict[str, Any], by: str) -> None:
    """106: the effects of a card (a spell just played, an ability) carried out again.
    106.2: decisions are made again (`targets`), the conditions must hold again: a part whose
    condition fails does not happen. 106.1/106.3: repeating is a step of its own — obligatory for
    an automatic ability or a spell, optional for an activated ability (the step is then simply
    not written). 106.8: the repeated effect is the effect of the card that repeats it (the step's
    `source`), not of the original; 106.5–106.6: repeating is not playing (no `played`).
    106.4: an activated ability is repeated only in the phases it may be used in and by paying its
    costs again (the step's `by` pays); otherwise the repeat does nothing (`effect_prevented`)."""
    cid = a.get("card")
    card = g.card(cid)
    ability = a.get("ability")
    if ability is None:
        steps = card.effects
    else:
        ab = card.abilities[ability] if isinstance(ability, int) and 0 <= ability < len(card.abilities) \
            else next((x for x in card.abilities if x.get("keyword") == ability), None)
        if ab is None:
            raise InputProblem(f"ability: {cid} has no ability {ability!r}")
        steps = ab.get("effects") or []
        if steps and not as_far_as_possible(g, "repeat", lambda: _repeat_cost(g, card, ab, by), card=cid):
            return                                       # 106.4: not paid again, not repeated
    if not steps:
        raise InputProblem(f"card: {cid} has no effects to repeat")
    targets = a.get("targets") or []
    from .keywords import check_targets, unaffected
    repeater = g.card(a["source"]) if isinstance(a.get("source"), str) else card   # 106.8

    def with_target(args: dict[str, Any]) -> dict[str, Any]:   # 106.2: the decision made again
        return {k: (targets[0] if v == "$target" and targets else v) for k, v in args.items()}
    for i, step in enumerate(steps):
        (verb, sargs), = step.items()
        sargs = dict(sargs or {})
        if any(v == "$target" for v in sargs.values()):
            if not targets:                              # 106.2: the decision must be made again
                g.emit("effect_prevented", verb=verb, clause="106.2", source=cid)
                continue
            sargs = with_target(sargs)
        sargs["source"] = a["source"] if isinstance(a.get("source"), str) else cid   # 106.8
        target = sargs.get("target") or sargs.get("card")
        if isinstance(target, str) and target in g.state.cards:
            # 106.2: the conditions must hold again — the target still in play, targetable, not immune
            if verb in _TABLE_VERBS and not g.state.on_table(target):
                g.emit("effect_prevented", verb=verb, clause="106.2", target=target, source=cid)
                continue
            if unaffected(g, repeater, verb, sargs):      # emits effect_prevented (132)
                continue
            if not as_far_as_possible(g, verb, lambda t=target: check_targets(g, [t], repeater),
                                      target=target, source=cid):
                continue
        apply_effect(g, verb, sargs, by)
        if wait_for_answer(g, repeater.id, by,          # 4.23.5: a decision opened
                           lambda: [{v: {**with_target(r or {}), "source": sargs["source"]}}
                                    for st_ in steps[i + 1:] for v, r in st_.items()]):
            break
    g.emit("repeated", card=cid, clause="106.1" if ability is None else "106.3")


def _repeat_cost(g: Game, card, ab: dict[str, Any], payer: str) -> None:
    """106.4: the costs of an activated ability paid again, in a phase it may be used in; the
    whole cost or nothing (4.20.3)."""
    st = g.state
    if ab.get("timing") == "main" and (st.active != payer or st.phase not in ("main1", "main2")):
        g.refuse("106.4", f"{card.id}'s {ab.get('keyword')} is used only in its controller's main phase: "
                          "it is not repeated now")
    cost = activation_costs.cost(g, card, ab)                  # 99.0, 99.3: as it is now
    pl = st.players[payer]
    if cost.get("vp", 0) > pl.vp or cost.get("components", 0) > pl.components:
        g.refuse("106.4", f"{payer} cannot pay {card.id}'s {ab.get('keyword')} again: it is not repeated",
                 also=("4.20.3",))
    if cost.get("passivate") and (not card.active or st.zone_of(card.id) not in TABLE_ZONES
                                  or st.zone_of(card.id) == "guard_post" or card.attached_to):
        g.refuse("106.4", f"{card.id} cannot be passivated again: its {ab.get('keyword')} is not repeated",
                 also=("5.5.7.1",))
    for what in ("vp", "components"):
        if cost.get(what):
            resources.spend(g, payer, what, cost[what])
    if cost.get("passivate"):
        st.cards[card.id].active = False
        g.emit("passivated", card=card.id)


_TABLE_VERBS = ("damage", "heal", "put_counter", "remove_counter", "passivate", "steal", "activate_card")


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


def do_prevent(g: Game, a: dict[str, Any], by: str) -> None:
    """137.3, 4.21.2: a reaction prevents the card or ability it answers (or the queue `entry` named)."""
    queue.mark(g, a.get("entry"), "prevent")


def do_modify(g: Game, a: dict[str, Any], by: str) -> None:
    """rb7:kijatszasi-sorrend: a reaction changes the amounts of the damage and healing of what it
    answers by `amount` (never below 0)."""
    amount = a.get("amount")
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise InputProblem("modify.amount: an integer")
    queue.mark(g, a.get("entry"), "modify", amount)


EFFECTS: dict[str, Handler] = {
    "damage": do_damage, "heal": do_heal, "draw": do_draw, "discard": do_discard, "mill": do_mill,
    "move": do_move, "exile": do_exile, "put_counter": do_put_counter,
    "remove_counter": do_remove_counter, "sacrifice": do_sacrifice,
    "sacrifice_hp": do_sacrifice_hp, "sacrifice_max_hp": do_sacrifice_max_hp,
    "change_max_hp": do_change_max_hp, "change_max_vp": do_change_max_vp,
    "gain_vp": do_gain_vp, "gain_components": do_gain_components, "steal": do_steal,
    "create": do_create, "passivate": do_passivate, "activate_card": do_activate_card,
    "search": do_search, "shuffle": do_shuffle, "resolve_conflict": do_resolve_conflict,
    "add_effect": do_add_effect, "delay": do_delay, "repeat": do_repeat,
    "prevent": do_prevent, "modify": do_modify,
    "copy": copies.do_copy, "copy_abilities": copies.do_copy_abilities,
    "skip_phase": do_skip_phase,
}
# effects a replacement may replace at the step (damage: model/damage.py; destroy: settle) and
# whom the event happens to
_REPLACE_AT_STEP = {"draw": "player", "discard": "player", "mill": "player", "gain_vp": "player",
                    "sacrifice": "card", "put_counter": "card"}



# verbs whose `player` argument names the player the effect concerns
_PLAYER_VERBS = ("draw", "discard", "mill", "sacrifice", "sacrifice_hp", "sacrifice_max_hp",
                 "change_max_hp", "change_max_vp", "gain_vp", "gain_components", "search", "shuffle",
                 "create", "skip_phase")


def _where(verb: str, args: dict[str, Any], by: str) -> dict[str, Any]:
    """The fields of an `effect_prevented` event for the whole effect: what the step names."""
    where: dict[str, Any] = {}
    card = args.get("card", args.get("from"))              # copy_abilities: the card copied
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


# the count of these verbs is a spell's amount its player's modifiers change (111.3, 111.5)
_SPELL_COUNTS = {"discard": "spell_discard", "draw": "spell_draw"}


def _spell_count(g: Game, verb: str, args: dict[str, Any], by: str) -> dict[str, Any]:
    """A spell's discard / draw with the modifiers of its player applied to its `count`, once
    (before a replacement reads it); named cards beyond the modified count are not discarded."""
    named = args.get("cards")
    count = _count(args, default=len(named) if isinstance(named, list) else 1)
    n = _spell_amount(g, args, by, _SPELL_COUNTS[verb], count)
    if n == count:
        return args
    out = {**args, "count": n, COUNTED_MARK: True}
    if isinstance(named, list) and len(named) > n:
        out["cards"] = named[:n]
    return out


def apply_effect(g: Game, verb: str, args: dict[str, Any], by: str) -> None:
    """Carry out one effect verb (used by the engine and by a resolving card's `effects`).

    4.24.2: a rule never refuses an effect; it is carried out as far as possible
    (`as_far_as_possible`). A step with `as_cost: true` is a cost, part of an action: a rule
    refuses it in full.
    """
    handler = EFFECTS.get(verb)
    if handler is None:
        raise InputProblem(f"unknown effect verb {verb!r}")
    if verb in _SPELL_COUNTS and not args.get("as_cost") and not args.get(COUNTED_MARK):
        args = _spell_count(g, verb, args, by)
    if verb in _REPLACE_AT_STEP and not args.get(replacement.REPLACED_MARK):
        subject = args.get("player", by) if _REPLACE_AT_STEP[verb] == "player" else args.get("card")
        if isinstance(subject, str) and replacement.replace(
                g, verb, subject, args, by, lambda tg: handler(tg, args, by), stats.frozen, apply_effect):
            return                                       # mk:5.12.B: a replaced cost counts as paid
    if args.get("as_cost"):
        handler(g, args, by)
        return
    as_far_as_possible(g, verb, lambda: handler(g, args, by), **_where(verb, args, by))



__all__ = ["EFFECTS", "apply_effect", "as_far_as_possible", "draw_cards", "sacrifice_permanent"]
