"""Damage, healing and death of creatures and buildings; damage to players.

Clauses: 4.25.0 (a creature or player is damaged when its current Ép drops),
4.25.1 (wounded creature), 4.26 (healing raises current Ép, never above the
maximum), 109.0 (damage of at least 1), 132.9 (elemental immunity: no damage),
132.12 (cannot be damaged), rb7:lenyek (a creature at 0 Ép or less dies and
goes to the graveyard), rb7:epitmenyek (a building is destroyed when it has
taken at least its SP), rb7:lapok-elpusztitasa (destroyed: to the owner's graveyard).
"""
from __future__ import annotations

from . import stats
from .game import Game
from .resources import heal_player
from .state import PLAYERS
from .zones import Cause, move_card


def deal_damage(g: Game, target: str, amount: int, element: str | None = None,
                source: str | None = None, combat: bool = False) -> int:
    """Damage a player or a creature/building on the table; returns the damage dealt."""
    if amount < 0:
        g.refuse("112.0", "damage is a non-negative number")
    st = g.state
    if target in PLAYERS:
        if amount:
            st.players[target].hp -= amount
            g.emit("damaged", target=target, amount=amount, element=element, source=source)
        return amount
    card = g.card(target)
    if not st.on_table(target):
        g.refuse("4.5.2", f"{target} is not on the table: only cards in play can be damaged")
    if card.kind not in ("creature", "building"):
        g.refuse("4.25.0", f"{target} is a {card.kind}: only creatures, buildings and players take damage")
    if stats.immune_to(card, element) or stats.has_ability(card, "undamageable"):
        g.emit("damage_prevented", target=target, amount=amount, element=element)
        return 0
    if amount:
        card.wounds += amount
        g.emit("damaged", target=target, amount=amount, element=element, source=source)
        hurt = st.turn_info.setdefault("damaged_by_damage", [])
        if target not in hurt:
            hurt.append(target)
    return amount


def heal(g: Game, target: str, amount: int) -> int:
    """4.26: heal a player or a creature on the table (a building regains SP)."""
    if amount < 0:
        g.refuse("112.0", "healing is a non-negative number")
    st = g.state
    if target in PLAYERS:
        before = st.players[target].hp
        heal_player(g, target, amount)
        return st.players[target].hp - before
    card = g.card(target)
    if not st.on_table(target):
        g.refuse("4.5.2", f"{target} is not on the table")
    if card.kind not in ("creature", "building"):
        g.refuse("4.26", f"{target} is a {card.kind}: only creatures, buildings and players heal")
    healed = min(amount, card.wounds)
    card.wounds -= healed
    if healed:
        g.emit("healed", target=target, amount=healed)
    return healed


def settle(g: Game) -> None:
    """State check after every step: creatures at 0 Ép or less die, broken buildings are destroyed."""
    st = g.state
    damaged = st.turn_info.get("damaged_by_damage", [])
    changed = True
    while changed:
        changed = False
        for card in list(st.permanents()):
            if card.kind == "creature":
                hp = stats.current_hp(st, card, g.rules)
                if hp is not None and hp <= 0:
                    g.emit("died", card=card.id)
                    move_card(g, card.id, "graveyard",
                              Cause("destroy", damage=card.id in damaged,
                                    combat=st.turn_info.get("in_strike", False)))
                    changed = True
                    break
            elif card.kind == "building" and card.base_hp is not None and card.wounds >= card.base_hp \
                    and card.wounds > 0:
                g.emit("destroyed", card=card.id)
                move_card(g, card.id, "graveyard", Cause("destroy", damage=True))
                changed = True
                break
