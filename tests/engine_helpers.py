"""Helpers shared by the engine's unit tests: run a case, expect a refusal that changes nothing."""
from __future__ import annotations

from model import engine


def run(given, when, ruleset="kodex"):
    res = engine.run_case(given, when, ruleset)
    assert res.refused is None, res.refused
    res.events = plain(res.events)
    return res


def plain(events):
    """The events as the engine's unit tests compare them: without the clauses the registry adds
    to every event (model/event_clauses.py: `clauses`, and `clause` where the event's row lists
    none; tests/test_event_clauses.py tests those). A clause of an event's own meaning stays."""
    from model.event_clauses import PLAIN
    return [{k: v for k, v in e.items()
             if k != "clauses" and not (k == "clause" and e["event"] in PLAIN)} for e in events]


def refused(given, when, clause, ruleset="kodex"):
    """The last step is refused under `clause` (or names it among its clauses); nothing changes."""
    before = engine.run_case(given, when[:-1], ruleset)
    assert before.refused is None, before.refused
    after = engine.run_case(given, when, ruleset)
    assert after.refused is not None, "the step was accepted"
    assert after.refused["step"] == len(when) - 1
    clauses = after.refused.get("clauses") or [after.refused["clause"]]
    assert clause in clauses, after.refused
    assert after.state == before.state
    assert after.events == before.events
    return after.refused


def phase(res):
    return res.state["turn"]["phase"], res.state["turn"]["active"]


def ev(res, name):
    return [e for e in res.events if e["event"] == name]
