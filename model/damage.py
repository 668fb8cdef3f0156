"""Damage, healing and death of creatures and buildings; damage to players.

Clauses: 4.25.0 (a creature or player is damaged when its current Ép drops),
4.25.1 (wounded creature), 4.26 (healing raises current Ép, never above the
maximum), 109.0 (damage of at least 1), 132.9 (elemental immunity: no damage),
132.12 (cannot be damaged), rb7:lenyek (a creature at 0 Ép or less dies and
goes to the graveyard), rb7:epitmenyek (a building is destroyed when it has
taken at least its SP), rb7:lapok-elpusztitasa (destroyed: to the owner's graveyard).
"""
from __future__ import annotations

from typing import Any, Collection

from . import keywords, limits, numbers, replacement, stats
from .game import Game
from .prohibitions import prohibited
from .resources import raise_player_hp
from .state import PLAYERS
from .zones import Cause, move_card


def deal_damage(g: Game, target: str, amount: int, element: str | None = None,
                source: str | None = None, by: str | None = None,
                replaced: bool = False, modify: bool = True, limit: int | None = None) -> None:
    """Damage a player or a creature/building on the table.

    The amount is modified by the `damage_taken` effects that reach the target (model/numbers.py);
    a replacement of the damage (mk:5.12, model/replacement.py) carries out its steps instead."""
    if amount < 0:
        g.refuse("112.0", "damage is a non-negative number")
    st = g.state
    if modify and (target in PLAYERS or st.on_table(target)):
        amount = numbers.amount(st, amount, "damage_taken", target, g.rules.priority_policy, stats.frozen)
    amount = limits.bounded(g, "damage", target, amount, limit)      # mk:5.11.A: "nem csökkenthet … alá"
    if not replaced and (target in PLAYERS or st.on_table(target)):
        args = {"target": target, "amount": amount, "element": element, "source": source, "limit": limit}
        if replacement.replace(g, "damage", target, args, by or st.active,
                               lambda tg: deal_damage(tg, target, amount, element, source, by, True, False),
                               stats.frozen, _apply_step):
            return
    if target in PLAYERS:
        if amount:
            st.players[target].hp -= amount
            g.emit("damaged", target=target, amount=amount, element=element, source=source)
        return
    card = g.card(target)
    if not st.on_table(target):
        g.refuse("4.5.2", f"{target} is not on the table: only cards in play can be damaged")
    if card.kind not in ("creature", "building"):
        g.refuse("4.25.0", f"{target} is a {card.kind}: only creatures, buildings and players take damage")
    if (element and any(a.get("to") == element for a in keywords.entries(g, card, "immunity"))) \
            or keywords.has(g, card, "undamageable"):        # own or granted (128.1), not lost
        g.emit("damage_prevented", target=target, amount=amount, element=element)
        return
    if amount:
        card.wounds += amount
        g.emit("damaged", target=target, amount=amount, element=element, source=source)
        g.hit.append(target)
        dealer = g.sources[-1] if g.sources else (
            (st.controller(source) or st.cards[source].owner) if source in st.cards else by)
        if dealer:
            st.turn_info.own("damaged_by")[target] = dealer   # whose source (135.2)
        hurt = st.turn_info.own("damaged_by_damage")
        if target not in hurt:
            hurt.append(target)


def heal(g: Game, target: str, amount: int, step: dict | None = None) -> None:
    """4.26: heal a player or a creature on the table (a building regains SP). `step`: the
    healing step's arguments (a strong one may prevail over a prohibition, 101.0)."""
    if amount < 0:
        g.refuse("112.0", "healing is a non-negative number")
    st = g.state
    prohibited(g, target, "heal", step)               # 99.1: "cannot heal"
    if target in PLAYERS:
        raise_player_hp(g, target, amount)
        return
    card = g.card(target)
    if not st.on_table(target):
        g.refuse("4.5.2", f"{target} is not on the table")
    if card.kind not in ("creature", "building"):
        g.refuse("4.26", f"{target} is a {card.kind}: only creatures, buildings and players heal")
    healed = min(amount, card.wounds)
    card.wounds -= healed
    if healed:
        g.emit("healed", target=target, amount=healed)


def _replace_destroy(g: Game, cid: str) -> bool:
    """mk:5.12: a replacement of the creature's destruction carries out its steps instead."""
    def attempt(tg: Game) -> None:
        tg.emit("died", card=cid)
        move_card(tg, cid, "graveyard", Cause("destroy", damage=True))
    return replacement.replace(g, "destroy", cid, {"card": cid}, g.state.controller(cid) or g.state.active,
                               attempt, stats.frozen, _apply_step)


def _apply_step(g: Game, verb: str, args: dict, by: str) -> None:
    """A replacement's step (model/effects.py carries it out; imported late: effects imports this
    module)."""
    g.apply_effect(g, verb, args, by)


def _named_keyword(card, ability: Any) -> Any:
    """The keyword of the ability an `activate` step names: by keyword, by index, or (no
    `ability`) the card's only one, as abilities._find reads it."""
    if ability is None and len(card.abilities) == 1:
        ability = 0
    if isinstance(ability, str):
        return ability
    if isinstance(ability, int) and not isinstance(ability, bool) and 0 <= ability < len(card.abilities):
        return card.abilities[ability].get("keyword")
    return None


def life_saving_targets(state, verb: str, args: dict) -> set[str]:
    """The dying creatures this step tries to save (regeneration 136.8, healing 4.26, a card
    played at them, its own shadow — 136.9: "akár … életmentő cselekvésként is"): only they stay
    in the life-saving window for this step."""
    dying = state.turn_info.dying or []
    if not dying:
        return set()
    if verb == "activate":
        cid = args.get("card")
        card = state.cards.get(cid) if isinstance(cid, str) else None
        if card is None or cid not in dying:
            return set()
        return {cid} if _named_keyword(card, args.get("ability")) in ("regeneration", "shadow") else set()
    if verb == "heal":
        return {args.get("target")} & set(dying)
    if verb == "play":
        return set(args.get("targets") or []) & set(dying)
    return set()


def life_saving_step(state, verb: str, args: dict) -> bool:
    """Is the step a life-saving action for a creature damaged right before it (136.8, 4.23.3):
    regeneration of it, healing it, a card played at it?"""
    just = state.turn_info.just_damaged or []
    if not just:
        return False
    if verb == "activate":
        cid = args.get("card")
        card = state.cards.get(cid) if isinstance(cid, str) else None
        return card is not None and cid in just and _named_keyword(card, args.get("ability")) == "regeneration"
    if verb == "heal":
        return args.get("target") in just
    if verb == "play":
        return bool(set(args.get("targets") or []) & set(just))
    return False


# the counters that lower a creature's Ép (stats.COUNTER_BONUS: aging 123.1, weakness 117.4); every
# other counter leaves it as it is (life, poison, sleep …) or only adds (muscle, strength, level)
_LOWERING = frozenset(name for name, (_damage, hp) in stats.COUNTER_BONUS.items() if hp < 0)


def _safe(card, hosts: Collection[str]) -> bool:
    """Nothing can bring this permanent to 0 Ép / SP (with no effect in force): no wound, no
    card sitting on it, a creature's printed Ép above 0 and no counter that lowers it (the defence
    bonus and the other counters only add, or leave the Ép as it is)."""
    return not card.wounds and card.id not in hosts and (
        card.kind != "creature" or ((card.base_hp or 0) > 0 and _LOWERING.isdisjoint(card.counters)))


def settle(g: Game, window: bool = False, spare: frozenset[str] | set[str] = frozenset()) -> None:
    """State check after every step: creatures at 0 Ép or less die, broken buildings are destroyed.

    rb7:lenyek, rb7:lapok-elpusztitasa, 108.0, 136.8: a creature brought to 0 Ép or less by
    damage may still be saved by a life-saving action right after it. With `window=True` (at the
    end of a step of its own) such a creature stays on the table, listed in
    `turn_info.dying` (shown as `dying: true`); the next step either tries to save it
    (regeneration, healing, a card played at it: `life_saving_targets`, passed here as `spare`) or
    lets it die first. The end of a run lets it die too (model/engine.run_state).
    """
    st = g.state
    unsafe: list[str] | None = None
    if not st.effect_cards and not st.lasting:
        hosts, peek = st.hosts(), st.cards.peek
        unsafe = [cid for cid in st.permanent_ids() if not _safe(peek(cid), hosts)]
        if not unsafe and not st.turn_info.dying:
            return                             # no permanent can be at 0 Ép / SP: nothing to check
    damaged = st.turn_info.damaged_by_damage
    was_dying = list(st.turn_info.dying or [])
    dying: list[str] = []
    replaced_now: set[str] = set()
    changed = True
    while changed:
        changed = False
        # the first pass looks only at what can be at 0 Ép / SP (nothing else changed yet)
        ids = unsafe if unsafe is not None else list(st.permanent_ids())
        unsafe = None
        hosts = st.hosts()
        plain = not st.effect_cards and not st.lasting
        for cid in ids:
            card = st.cards.peek(cid)          # read only; copied below when it changes
            if card.kind == "creature":
                if plain and _safe(card, hosts):
                    continue                   # nothing can bring it to 0 Ép: printed Ép, no wound
                hp = stats.current_hp(st, card, g.rules)
                if hp is not None and hp <= 0:
                    if (window and (card.id in g.hit or card.id in was_dying)) or \
                            (card.id in spare and card.id in was_dying):
                        if card.id not in dying:
                            dying.append(card.id)
                            if card.id not in was_dying:
                                g.emit("dying", card=card.id)
                        continue
                    if card.id in replaced_now:
                        continue                           # mk:5.12.C: replaced once in this check
                    if _replace_destroy(g, card.id):
                        replaced_now.add(card.id)
                        changed = True
                        break
                    g.emit("died", card=card.id)
                    move_card(g, card.id, "graveyard",
                              Cause("destroy", damage=card.id in damaged,
                                    combat=st.turn_info.in_strike
                                    or card.id in st.turn_info.struck_dying))
                    changed = True
                    break
            elif card.kind == "building" and card.base_hp is not None and card.wounds >= card.base_hp \
                    and card.wounds > 0:
                g.emit("destroyed", card=card.id)
                move_card(g, card.id, "graveyard", Cause("destroy", damage=True))
                changed = True
                break
    for cid in was_dying:
        if cid not in dying and st.on_table(cid):
            g.emit("saved", card=cid)
    st.turn_info.put("dying", dying)
