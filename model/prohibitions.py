"""Prohibitions of an action in force (99.1: "nem lehet valamit csinálni" — cannot heal, cannot
draw, cannot be passivated, cannot attack) and the requirement that contradicts one (must attack).

Clauses covered: 99.1 (a prohibition of an action: what it stops is refused or, inside an effect,
prevented with clause 99.1; `prohibit: play` forbids playing the spells of the characteristics
its `spells` names, 111 — the refusal adds the clauses of those it meets); 102 / mk:5.10 when a prohibition and a requirement of one action
meet (model/numbers.py `winner_of`). The entries: model/continuous.py.
"""
from __future__ import annotations

from . import continuous, numbers, overrides, stats
from .game import Game
from .shapes import CHARACTERISTICS


def prohibited(g: Game, subject: str, action: str, step: dict | None = None,
               spells: list[str] | None = None) -> None:
    """99.1: a prohibition in force on the card or player stops the action (unless a requirement
    that contradicts it prevails by the priority order — only `attack` has one — or the step
    says "mindenképpen" and the order puts it above every such prohibition, 101.0, 102.1).
    `spells`: the characteristics of the spell played (`play`): only a prohibition naming one of
    them stops it."""
    if not continuous.any_in_force(g.state):
        return
    found = continuous.reaching(g.state, subject, "prohibit", stats.frozen, action)
    if found and step is not None and overrides.prevails(g, step, [a.effect for a in found]):
        return
    if spells is not None:
        met = [c for c in CHARACTERISTICS if c in spells and any(c in a.entry["spells"] for a in found)]
        if met:
            g.refuse("99.1", f"an effect in force says {subject} cannot play a {' or '.join(met)} spell",
                     also=tuple(CHARACTERISTICS[c] for c in met))
        return
    if found:
        if continuous.reaching(g.state, subject, "require", stats.frozen, action) and numbers.winner_of(
                g.state, subject, f"action:{action}", g.rules.priority_policy, stats.frozen) is not False:
            return                  # the requirement prevails, or the order leaves them tied: neither holds
        g.refuse("99.1", f"an effect in force says {subject} cannot {action.replace('_', ' ')}")


def required(g: Game, subject: str, action: str) -> bool:
    """A requirement in force (must attack) that is not overridden by a prohibition."""
    if not continuous.any_in_force(g.state):
        return False
    if not continuous.reaching(g.state, subject, "require", stats.frozen, action):
        return False
    if continuous.reaching(g.state, subject, "prohibit", stats.frozen, action):
        return bool(numbers.winner_of(g.state, subject, f"action:{action}", g.rules.priority_policy,
                                      stats.frozen))
    return True


__all__ = ["prohibited", "required"]
