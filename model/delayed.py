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
* 114.2 (hkk-case/2, `trigger`): a delayed resource that comes when an event happens works by the
  mechanism of the automatic abilities (model/triggers.py `Watch`, 133.0): its `trigger` is an
  event pattern written as an automatic ability's (`$controller` / `$opponent` stand for the
  player who set it up and the other, `$self` for its `source`), matched by the same function; set
  off, it leaves the state's list (it comes once) and comes when the action that set it off is
  done, ordered with the automatic abilities set off together (4.10.4; by the time it was set up,
  102.3) — its step carried out then, under the effects in force then (`arrive`).

`delay: {at: end_of_turn | end_of_phase | next_preparation, step: {verb: args}}` stores the step in
the state's `delayed` list; model/turn.py calls `due` at the end of each phase / turn and at the
start of the preparation phase of the player who played it. `delay: {trigger: {event, field…},
step}` stores it there too, with `trigger` instead of `at`.
"""
from __future__ import annotations

from typing import Any

from .errors import InputProblem
from .game import Game
from .shapes import DELAYED_AT, check_pattern


def schedule(g: Game, a: dict[str, Any], by: str) -> None:
    trigger = a.get("trigger")
    if trigger is not None:
        if g.watch is None:
            raise InputProblem("trigger: hkk-case/2 only (a delayed resource that comes on an event, 114.2)")
        if "at" in a:
            raise InputProblem("delay: `at` or `trigger`, not both")
        check_pattern(trigger, "trigger")
    at = a.get("at", "end_of_turn")
    if at not in DELAYED_AT:
        raise InputProblem(f"at: one of {', '.join(DELAYED_AT)}")
    step = a.get("step")
    if not isinstance(step, dict) or len(step) != 1:
        raise InputProblem("step: one step (one verb and its arguments)")
    if "$target" in repr(step):
        raise InputProblem("step: 114.4 — the delayed step's decisions (its target) are made now")
    n = g.state.tick()
    item: dict[str, Any] = {"id": a.get("id") or f"delayed-{n}", "step": step, "by": by, "created": n}
    if trigger is None:
        item["at"] = at
    else:
        item["trigger"] = dict(trigger)
    if isinstance(a.get("source"), str):
        item["source"] = a["source"]
    # the event first: a resource waiting for an event is not set off by its own setting up
    g.emit("resource_delayed", effect=item["id"], at=item.get("at"), trigger=item.get("trigger"),
           player=by)
    g.state.delayed.append(item)


def _take(g: Game, moment: str, player: str | None) -> list[dict[str, Any]]:
    """The delayed resources whose moment is now, taken out of the state's list."""
    st = g.state
    now, keep = [], []
    for item in st.delayed:
        at = item.get("at")
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
    for item in _take(g, moment, player):
        arrive(g, item)


def arrive(g: Game, item: dict[str, Any]) -> None:
    """The delayed resource comes: its step is carried out now, as an effect, under the caps,
    prohibitions and replacements in force now (114.1, 114.2)."""
    (verb, args), = item["step"].items()
    args = dict(args or {})
    if item.get("source"):
        args.setdefault("source", item["source"])
    g.emit("resource_arrived", effect=item["id"], player=item.get("by"))
    g.apply_effect(g, verb, args, item.get("by", g.state.active))


def waiting(st: Any) -> list[dict[str, Any]]:
    """The delayed resources that wait for an event (`trigger`)."""
    return [item for item in st.delayed if "trigger" in item]


__all__ = ["arrive", "drop", "due", "schedule", "waiting"]
