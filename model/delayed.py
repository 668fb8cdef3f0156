"""Delayed resources: an effect that gives its resource later (114).

Clauses covered
---------------
* 114.1: until the delayed resource actually comes, what would hinder it does not matter; it is
  checked only when the resource comes (the step is carried out then, as far as possible, 4.24.2).
* 114.2: the effects tied to the delayed resource are looked at when the player actually gets it
  (or would have got it): the step runs at that moment, with the caps and prohibitions of then.
* 114.3: the same for searching and taking back (a `search` or a `move` to the hand as the step).
* 114.4: the decisions the resource needs are made when it is played: the step names its target
  now (`delay: {at, step}` is refused — an input error — when the step still says "$target").
* 4.10.7: a resource due in a phase that is skipped is lost with it (`drop`, model/turn.py).

`delay: {at: end_of_turn | end_of_phase | next_preparation, step: {verb: args}}` stores the step in
the state's `delayed` list; model/turn.py calls `due` at the end of each phase / turn and at the
start of the preparation phase of the player who played it.
"""
from __future__ import annotations

from typing import Any

from .errors import InputProblem
from .game import Game
from .shapes import DELAYED_AT


def schedule(g: Game, a: dict[str, Any], by: str) -> None:
    at = a.get("at", "end_of_turn")
    if at not in DELAYED_AT:
        raise InputProblem(f"at: one of {', '.join(DELAYED_AT)}")
    step = a.get("step")
    if not isinstance(step, dict) or len(step) != 1:
        raise InputProblem("step: one step (one verb and its arguments)")
    if "$target" in repr(step):
        raise InputProblem("step: 114.4 — the delayed step's decisions (its target) are made now")
    n = g.state.tick()
    item: dict[str, Any] = {"id": a.get("id") or f"delayed-{n}", "at": at, "step": step, "by": by,
                            "created": n}
    if isinstance(a.get("source"), str):
        item["source"] = a["source"]
    g.state.delayed.append(item)
    g.emit("resource_delayed", effect=item["id"], at=at, player=by)


def _take(g: Game, moment: str, player: str | None) -> list[dict[str, Any]]:
    """The delayed resources whose moment is now, taken out of the state's list."""
    st = g.state
    now, keep = [], []
    for item in st.delayed:
        at = item["at"]
        hit = (at == moment == "end_of_phase") or (at == "end_of_turn" and moment in ("end_of_turn",)) \
            or (at == "next_preparation" and moment == "preparation" and item.get("by") == player)
        (now if hit else keep).append(item)
    if now:
        st.delayed = keep
    return now


def drop(g: Game, moment: str, player: str | None, clause: str) -> None:
    """The moment never comes (4.10.7: the phase is skipped): the resources due then are lost,
    each an `effect_prevented` naming its step's verb and `clause`."""
    for item in _take(g, moment, player):
        (verb, _), = item["step"].items()
        g.emit("effect_prevented", verb=verb, clause=clause, player=item.get("by"), source=item.get("source"))


def due(g: Game, moment: str, player: str | None = None) -> None:
    """Carry out the delayed steps whose moment is now (114.1, 114.2): `end_of_phase`,
    `end_of_turn`, or `next_preparation` of `player`."""
    st = g.state
    for item in _take(g, moment, player):
        (verb, args), = item["step"].items()
        args = dict(args or {})
        if item.get("source"):
            args.setdefault("source", item["source"])
        g.emit("resource_arrived", effect=item["id"], player=item.get("by"))
        g.apply_effect(g, verb, args, item.get("by", st.active))


__all__ = ["drop", "due", "schedule"]
