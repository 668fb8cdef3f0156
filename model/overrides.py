"""Strong ("mindenképpen") one-shot steps against what would stop them.

Clauses covered
---------------
* 101.0: what a text says happens "mindenképpen" other rules, rule cards or followers cannot
  prevent — an effect step with `strong: true` is carried out although a prohibition in force
  (99.1) or an immunity of the card it names (132.0, 132.4–132.8) would stop it, when the
  priority order puts the step above that effect.
* 102.1 (and mk:5.10.E under `kodex-mk`): of two contradicting effects the one whose text says
  "mindenképp" wins — the step is a strong one-shot effect (not an ability) that takes effect
  now, later than every effect in force; a strong prohibition or immunity in force is
  continuous, so 102.2 keeps it above the step (mk:5.10.G: a tiltó one).
* 100.0: what a rule says is possible "semmilyen módon" no other rule circumvents — the rules of
  that wording a step could meet are 5.4.5 and 5.5.4 (no passivation in the guard post, of a card
  sitting on another). A strong step against such a rule: the reading `strong-rule-vs-strong-step`
  of the conflicts register (`rule`, the default: the rule holds; `step`: the step happens).

Only a step that says `strong: true` is ever compared: a plain step is stopped as before.
"""
from __future__ import annotations

from typing import Any

from .game import Game
from .priority import Effect, compile_policy

__all__ = ["step_effect", "prevails", "passes_strong_rule"]


def step_effect(g: Game) -> Effect:
    """The priority attributes of a strong step taking effect now (102.1, 102.3)."""
    return Effect(strong=True, continuous=False, timestamp=g.state.clock + 1, ability=None, id="step")


def prevails(g: Game, args: dict[str, Any], stoppers: list[Effect]) -> bool:
    """101.0, 102.1: a step with `strong: true` prevails over every effect in ``stoppers`` that
    the priority order puts below it."""
    if not args.get("strong") or not stoppers:
        return False
    pol = compile_policy(g.rules.priority_policy)
    me = step_effect(g)
    return all(pol.beats(me, s) for s in stoppers)


def passes_strong_rule(g: Game, args: dict[str, Any]) -> bool:
    """100.0 against 101.0: a strong step meeting a rule that says "semmilyen módon"."""
    return bool(args.get("strong")) and g.rules.reading("strong-rule-vs-strong-step") == "step"
