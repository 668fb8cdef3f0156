"""Ép, VP and szörnykomponens of the players, and their caps.

Clauses: 3.12 (starting Ép and VP), 3.13 (VP changes all game), 3.18 (Ép and
VP never above their maximum of 20, the excess lost at once), 3.19 (the
maxima may change), 4.25.3 (losing Ép above the maximum is not damage),
103.1–103.4 (sacrificing Ép and maximum Ép), 115.0 (VP destruction),
4.20.2 (costs paid from the player's own means).
"""
from __future__ import annotations

from . import numbers, stats
from .game import Game
from .state import State


def maximum(state: State, name: str, which: str, policy: str) -> int:
    """A player's maximum Ép (`hp`) or VP (`vp`) now: the base (3.12, changed by 3.19 effects and
    103 sacrifices) and the continuous effects in force on it (`{number: max_hp | max_vp}`,
    model/numbers.py); never below 0."""
    pl = state.players[name]
    base = pl.max_hp if which == "hp" else pl.max_vp
    return max(0, numbers.player_number(state, name, "max_" + which, base, policy, stats.frozen))


def rule_number(state: State, name: str, number: str, base: int, policy: str) -> int:
    """A ruleset number of a player that a card may change (`guard_post_size` 5.4.3,
    `draw_per_turn` rb7:huzasi-fazis): the ruleset's value (`base`) under the entries in force on the
    player; never below 0."""
    return max(0, numbers.player_number(state, name, number, base, policy, stats.frozen))


def cap_player(g: Game, name: str) -> None:
    """3.18: anything above a maximum is lost at once (4.25.3: not damage)."""
    pl = g.player(name)
    top = maximum(g.state, name, "hp", g.rules.priority_policy)
    if pl.hp > top:
        g.emit("hp_excess_lost", player=name, amount=pl.hp - top)
        pl.hp = top
    top = maximum(g.state, name, "vp", g.rules.priority_policy)
    if pl.vp > top:
        g.emit("vp_excess_lost", player=name, amount=pl.vp - top)
        pl.vp = top


def raise_player_hp(g: Game, name: str, amount: int) -> None:
    """The bare change of a heal of a player: current Ép up to the maximum (3.18), the event
    `healed`. No rule that may stop or change a heal applies here (99.1 prohibitions, replacements,
    modifiers): rule code heals through `damage.heal` or the effect dispatcher, the one caller
    (tests/test_architecture.py checks it)."""
    pl = g.player(name)
    if amount <= 0:
        return
    room = max(0, maximum(g.state, name, "hp", g.rules.priority_policy) - pl.hp)
    gained = min(amount, room)
    pl.hp += gained
    if gained:
        g.emit("healed", target=name, amount=gained)
    if amount > gained:
        g.emit("hp_excess_lost", player=name, amount=amount - gained)


def gain_vp(g: Game, name: str, amount: int) -> None:
    """3.13, 3.18: VP rises up to the maximum, the excess is lost; a negative amount destroys VP (115.0)."""
    pl = g.player(name)
    if amount >= 0:
        room = max(0, maximum(g.state, name, "vp", g.rules.priority_policy) - pl.vp)
        gained = min(amount, room)
        pl.vp += gained
        if gained:
            g.emit("vp_gained", player=name, amount=gained)
        if amount > gained:
            g.emit("vp_excess_lost", player=name, amount=amount - gained)
    else:
        lost = min(-amount, pl.vp)
        pl.vp -= lost
        if lost:
            g.emit("vp_lost", player=name, amount=lost)


def gain_components(g: Game, name: str, amount: int, card_id: str | None = None) -> None:
    pl = g.player(name)
    if amount >= 0:
        pl.components += amount
        if amount:
            g.emit("components_gained", player=name, amount=amount, **{"from": card_id})
    else:
        lost = min(-amount, pl.components)
        pl.components -= lost
        if lost:
            g.emit("components_lost", player=name, amount=lost)


def spend(g: Game, name: str, resource: str, amount: int, clause: str = "4.20.3") -> None:
    """Pay a cost from the player's own means (4.20.2), whole or not at all (4.20.3)."""
    pl = g.player(name)
    have = getattr(pl, resource)
    if amount > have:
        g.refuse(clause, f"{name} has {have} {resource}, the cost needs {amount}: "
                         "a cost is never paid in part")
    setattr(pl, resource, have - amount)
    if amount:
        g.emit(f"{resource}_spent" if resource == "components" else "vp_spent", player=name, amount=amount)


def change_max(g: Game, name: str, which: str, delta: int) -> None:
    """3.19: a maximum goes up or down (never below 0); the current value follows down (3.18)."""
    pl = g.player(name)
    attr = "max_hp" if which == "hp" else "max_vp"
    new = max(0, getattr(pl, attr) + delta)
    real = new - getattr(pl, attr)
    setattr(pl, attr, new)
    g.emit(f"{attr}_changed", player=name, delta=real, value=maximum(g.state, name, which, g.rules.priority_policy))
    cap_player(g, name)


def sacrifice_hp(g: Game, name: str, amount: int, as_cost: bool) -> None:
    """103.1–103.3: never below 0 (a negative amount is an input error of the step, effects.py
    `_count`); as a cost with too few Ép it cannot be done (103.2); not damage (103.4)."""
    pl = g.player(name)
    if as_cost and pl.hp < amount:
        g.refuse("103.2", f"{name} has {pl.hp} Ép, fewer than the {amount} the cost sacrifices")
    paid = max(0, min(amount, pl.hp))
    pl.hp -= paid
    if paid:
        g.emit("hp_sacrificed", player=name, amount=paid)


def sacrifice_max_hp(g: Game, name: str, amount: int, as_cost: bool) -> None:
    """103: the same for the maximum; it is also an Ép sacrifice only when current Ép drops (103.4)."""
    pl = g.player(name)
    if as_cost and pl.max_hp < amount:
        g.refuse("103.2", f"{name} has {pl.max_hp} maximum Ép, fewer than the {amount} the cost sacrifices")
    paid = max(0, min(amount, pl.max_hp))
    pl.max_hp -= paid
    if paid:
        g.emit("max_hp_sacrificed", player=name, amount=paid)
    top = maximum(g.state, name, "hp", g.rules.priority_policy)
    if pl.hp > top:
        drop = pl.hp - top
        pl.hp = top
        g.emit("hp_sacrificed", player=name, amount=drop)
