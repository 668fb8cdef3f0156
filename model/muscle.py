"""The muscle reward decided by the player (124.2–124.4).

Clauses covered: 124.2 (per muscle counter a draw or 1 VP for the creature's controller when it
leaves play or its owner's control), 124.3 (carried out together, one source), 124.4 (decided for
all the counters of one creature at once — a pending decision, `choose: {value: {draw, vp}}`;
unanswered, the default: 1 VP per counter below the maximum VP, a draw beyond). model/keywords.py
queues the reward when the creature has left (124.5); model/engine.py opens the decision when the
step is done and falls back to the default when it is not answered.
"""
from __future__ import annotations

from typing import Any

from . import resources
from .game import Game
from .zones import Cause, move_card


def muscle_default(g: Game, player: str, n: int) -> dict[str, int]:
    """The decision when the player does not answer: 1 VP per counter while below the maximum VP,
    a draw for each counter beyond."""
    pl = g.state.players[player]
    vps = min(n, max(0, resources.maximum(g.state, player, "vp", g.rules.priority_policy) - pl.vp))
    return {"draw": n - vps, "vp": vps}


def muscle_decision(g: Game, a: dict[str, Any], by: str) -> None:
    """`_muscle_reward` (the step a `choose` completes): `value: {draw: d, vp: v}` with d + v the
    number of counters (124.4: decided for all of them at once), or no value: the default."""
    cid, player, n = a["card"], a["player"], a["count"]
    value = a.get("value")
    if value is None:
        value = muscle_default(g, player, n)
    if isinstance(value, list):
        if not all(v in ("draw", "vp") for v in value):
            g.refuse("124.4", "each muscle counter is answered with draw or vp")
        value = {"draw": value.count("draw"), "vp": value.count("vp")}
    if not isinstance(value, dict) or set(value) - {"draw", "vp"} or \
            not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value.values()):
        g.refuse("124.4", "the muscle reward is answered with value: {draw: d, vp: v}")
    draws, vps = value.get("draw", 0), value.get("vp", 0)
    if draws + vps != n:
        g.refuse("124.4", f"{n} muscle counter(s): the decision covers all of them at once, "
                          f"{draws + vps} answered")
    _muscle_reward(g, cid, player, draws, vps, a.get("cause", "draw"))


def _muscle_reward(g: Game, cid: str, player: str, draws: int, vps: int, cause: str) -> None:
    """124.2–124.3: per muscle counter a draw or 1 VP, carried out together."""
    pl = g.state.players[player]
    g.emit("muscle_reward", card=cid, player=player, draw=draws, vp=vps)
    deck = pl.own_zone("deck")                       # the live list: the draws change it
    for _ in range(draws):                                           # 4.12.0: an empty deck gives nothing
        if not deck:
            break
        top = deck[0]
        move_card(g, top, "hand", Cause(cause))
        g.emit("drew", player=player, card=top)
    if vps:
        resources.gain_vp(g, player, vps)


__all__ = ["muscle_decision", "muscle_default"]
