"""Conformance profiles: what a case's ``then`` observes.

Covers docs/spec/hkk-profiles.md. An honest partial implementation (one that
keeps the state right but emits no events, say) declares in its ``hello``
reply the observations it supports, ``"profile": ["state", "refusal"]``; a
case whose ``then`` needs an observation outside that profile is skipped with
the reason, and reports give pass rates per observation, so "passes every
state case, emits no events" is a statement rather than hundreds of failures.

The observations, derived from ``then`` alone (:func:`observes`):

``state``
    the resulting state: players' fields and zones, cards' own fields (zone,
    owner, controller, counters, active …), ``turn``, ``removed``,
    ``result``, ``seed``;
``computed``
    a card's computed values (``damage``, ``hp``, ``max_hp`` of a card under
    ``then.cards``: the numbers with counters, bonuses and effects applied);
``refusal``
    ``then.error``: a step must be refused (which step);
``refusal_clause``
    ``then.error.clause``: the clause the refusal names;
``events``
    ``then.events``: events in order;
``pending``
    ``then.pending``: a decision the game waits for.

A case with a ``then`` that names none of these (``then: {}``) observes that
every step was accepted, which every implementation reports: it needs
nothing.
"""
from __future__ import annotations

from typing import Any

ALL = ("state", "computed", "refusal", "refusal_clause", "events", "pending")
COMPUTED_CARD_FIELDS = ("damage", "hp", "max_hp")

__all__ = ["ALL", "observes", "missing"]


def observes(then: Any) -> list[str]:
    """The observations ``then`` needs, in the order of :data:`ALL`."""
    found: set[str] = set()
    if not isinstance(then, dict):
        return []
    for key, value in then.items():
        if key == "error":
            if value is None or value is False:
                continue
            found.add("refusal")
            if isinstance(value, dict) and value.get("clause") is not None:
                found.add("refusal_clause")
        elif key in ("events", "no_events"):
            if value:
                found.add("events")
        elif key == "pending":
            found.add("pending")
        elif key == "cards" and isinstance(value, dict):
            for pattern in value.values():
                if not isinstance(pattern, dict):
                    found.add("state")
                    continue
                for field in pattern:
                    found.add("computed" if field in COMPUTED_CARD_FIELDS else "state")
        else:
            found.add("state")
    return [o for o in ALL if o in found]


def missing(needed: list[str], profile: list[str] | tuple[str, ...] | None) -> list[str]:
    """The observations in ``needed`` that ``profile`` lacks (None: the full profile)."""
    if profile is None:
        return []
    return [o for o in needed if o not in profile]
