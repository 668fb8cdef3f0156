"""The working context of one step: the state being changed, the ruleset, the events.

The engine (model/engine.py) hands every rule module a `Game` over a copy of
the state; a `Refusal` raised anywhere throws the copy away, so a refused step
changes nothing. The random generator is seeded from the state (`seed` and a
counter kept in the state), so the same seed and steps give the same game.
"""
from __future__ import annotations

import random
from typing import Any, Callable, NoReturn

from .errors import InputProblem, Refusal

from .ruleset import Ruleset
from .state import PLAYERS, Card, Player, State


class Game:
    def __init__(self, state: State, rules: Ruleset,
                 apply_effect: Callable[["Game", str, dict[str, Any], str], None] | None = None):
        self.state = state
        self.rules = rules
        # the one effect dispatcher (model/effects.py `apply_effect`), handed in by the engine:
        # rule modules below effects.py carry an effect out through it (`g.apply_effect(g, …)`)
        self.apply_effect = apply_effect
        self.events: list[dict[str, Any]] = []
        self.hit: list[str] = []   # creatures and buildings damaged during this step (life-saving window)
        self.sources: list[str] = []   # players whose card's effects are resolving (135.2, 135.4)
        self.deferred: list[Any] = []  # what waits until the resolving source is done (rb7:buntetes)
        self.replacing = False          # a trial run of an effect (mk:5.12.D): nothing is replaced in it
        self.by: str | None = None       # the player controlling the step's source (its `by`)
        self.answering: list[str] = []   # the queue entries the resolving reactions answer (model/queue.py)
        # the card whose disadvantage (hátrány) is being carried out: a source of its own (99.5.1);
        # its own creature leaving by it keeps its life counters (134.4.8, model/zones.py)
        self.disadvantage_of: str | None = None
        # the automatic abilities that watch the events (model/triggers.py `Watch`), or None when no
        # card in play has one; the engine hands it to the game (model/engine.py)
        self.watch: Any = None

    # -- events and refusals ----------------------------------------------
    def emit(self, event: str, **fields: Any) -> None:
        """Record an event. The clauses that produced it, when the call names none, come from the
        registry (model/event_clauses.py) when the step's events leave the engine (engine.Outcome)."""
        ev = {"event": event}
        for k, v in fields.items():
            if v is not None:
                ev[k] = v
        self.events.append(ev)        # its clauses come when the step's events are read (engine.Outcome)
        if self.watch is not None:
            self.watch.saw(ev)

    def after_effect(self) -> None:
        """An effect is done: the automatic abilities that must come at once (133.2) come now."""
        if self.watch is not None:
            self.watch.run_immediate()

    @staticmethod
    def refuse(clause: str, message: str, also: tuple[str, ...] = ()) -> NoReturn:
        raise Refusal(clause, message, also)

    # -- lookups -------------------------------------------------------------
    def peek(self, card_id: Any) -> Card:
        """The card, not copied (`Cards.peek`): only for reading; an unknown id is an input problem."""
        if not isinstance(card_id, str) or card_id not in self.state.cards:
            raise InputProblem(f"unknown card {card_id!r}")
        return self.state.cards.peek(card_id)

    def card(self, card_id: Any) -> Card:
        """The card as this step's state owns it (copied when first read): the one to change."""
        self.peek(card_id)
        return self.state.cards[card_id]

    def player(self, name: Any) -> Player:
        if name not in PLAYERS:
            raise InputProblem(f"unknown player {name!r}")
        return self.state.players[name]

    def rng(self) -> random.Random:
        """A generator derived from the state's seed; each use advances the state's counter."""
        self.state.rng_counter += 1
        return random.Random(f"{self.state.seed}/{self.state.rng_counter}")
