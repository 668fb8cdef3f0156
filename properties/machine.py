"""A Hypothesis `RuleBasedStateMachine` that drives the reference engine.

The machine starts from a valid `given` (properties/strategies.py) and has one
rule per verb (the zone and resource verbs, `advance`, `exchange`, `play`, and
`choose` while a decision is pending); each rule draws its arguments from the
current state with `data()`. Every step goes through
`properties.invariants.check_step` (atomic refusal, apply never changes its
input, the state invariants before/after); `@invariant` re-checks the state
invariants after every step; at teardown the whole run is replayed from the
given state and must end in the same state (determinism).

`EngineMachine.TestCase` is a unittest case; `run_machine(settings)` runs it
with a settings object (properties/fuzz.py, tests/test_properties.py).
"""
from __future__ import annotations

import copy
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import (RuleBasedStateMachine, initialize, invariant, precondition, rule,
                                 run_state_machine_as_test)

from model.ruleset import DEFAULT_RULESET, load_ruleset
from model.state import from_given

from model.view import to_dict

from .invariants import Violation, check, check_step, replay_differs
from .strategies import ALL_VERBS, given_states, step_for_verb

__all__ = ["EngineMachine", "InvariantBroken", "run_machine", "machine_class"]


class InvariantBroken(AssertionError):
    """An invariant does not hold; `.violations` says which."""

    def __init__(self, violations: list[Violation], given: Any = None, when: Any = None):
        self.violations = list(violations)
        self.given, self.when = given, when
        super().__init__("; ".join(str(v) for v in self.violations[:5]))


class EngineMachine(RuleBasedStateMachine):
    ruleset = DEFAULT_RULESET
    only: frozenset[str] | None = None          # report just these invariants (None: all)

    def __init__(self) -> None:
        super().__init__()
        self.rs = load_ruleset(self.ruleset)
        self.given: dict[str, Any] = {}
        self.when: list[dict[str, Any]] = []
        self.trace: list[Any] = []
        self.state = None

    def _fail(self, violations: list[Violation]) -> None:
        if self.only is not None:
            violations = [v for v in violations if v.invariant in self.only]
        if violations:
            raise InvariantBroken(violations, self.given, list(self.when))

    @initialize(given=given_states())
    def start(self, given: dict[str, Any]) -> None:
        self.given = copy.deepcopy(given)
        self.state = from_given(given, self.rs)
        self._fail(check(self.state, self.rs))

    def _step(self, step: dict[str, Any]) -> None:
        self.when.append(copy.deepcopy(step))
        out, viol = check_step(self.state, step, self.rs, len(self.when) - 1)
        self._fail(viol)
        if out is None:
            raise InvariantBroken(viol, self.given, list(self.when))
        self.trace.append((out.refusal.clause if out.refusal else None, out.events))
        if out.refusal is None:
            self.state = out.state

    def _verb(self, verb: str, data: st.DataObject) -> None:
        self._step(data.draw(step_for_verb(self.state, verb), label=verb))

    @invariant()
    def state_invariants(self) -> None:
        if self.state is not None:
            self._fail(check(self.state, self.rs))

    @precondition(lambda self: self.state is not None and bool(self.state.pending))
    @rule(data=st.data())
    def choose(self, data: st.DataObject) -> None:
        self._verb("choose", data)

    def teardown(self) -> None:
        if self.state is None or not self.when:
            return
        v = replay_differs(self.given, self.when, self.rs, to_dict(self.state, self.rs), self.trace)
        self._fail([v] if v is not None else [])


def _make_rule(verb: str):
    def _r(self: EngineMachine, data: st.DataObject) -> None:
        self._verb(verb, data)
    _r.__name__ = f"do_{verb}"
    return rule(data=st.data())(_r)


for _verb in ALL_VERBS:
    setattr(EngineMachine, f"do_{_verb}", _make_rule(_verb))
del _verb

TestEngineMachine = EngineMachine.TestCase
TestEngineMachine.__test__ = False      # run through tests/test_properties.py


def machine_class(only: set[str] | frozenset[str] | None = None, ruleset: str = DEFAULT_RULESET):
    """A subclass that reports only the invariants in `only` (for focused mutation checks)."""
    return type("FocusedEngineMachine", (EngineMachine,),
                {"only": frozenset(only) if only else None, "ruleset": ruleset})


def run_machine(settings=None, machine: type[EngineMachine] = EngineMachine) -> None:
    """Run the machine (raises InvariantBroken, or another error, on a failure)."""
    run_state_machine_as_test(machine, settings=settings)
