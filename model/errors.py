"""Refusals (a rule forbids a step) and input problems (a case or step is malformed)."""
from __future__ import annotations


class Refusal(Exception):
    """The rules forbid the step. `clause` names the Kódex clause that forbids it."""

    def __init__(self, clause: str, message: str, also: tuple[str, ...] = ()):
        super().__init__(f"{clause}: {message}")
        self.clause = clause
        self.message = message
        self.also = tuple(also)     # further clauses that forbid the same step

    @property
    def clauses(self) -> list[str]:
        return [self.clause, *self.also]


class InputProblem(ValueError):
    """The state or a step is not well-formed hkk-case/1 (an input error, not a rule)."""
