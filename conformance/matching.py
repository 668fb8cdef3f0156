"""Matching a case's ``then`` against what an implementation returned.

Implements docs/spec/hkk-case-format.md, "Expectations (`then`)", with the
refusal clauses of docs/spec/hkk-refusals.md:

* a mapping matches when every key it names matches (keys it does not name
  are not checked); a list matches only the same items in the same order
  (items that are mappings are themselves patterns); a scalar matches only
  itself (``1`` never matches ``True``; ``1`` matches ``1.0``). An expected
  ``null`` matches an absent key, and under ``counters`` an expected ``0``
  matches an absent counter, and a ``counters`` mapping whose counts are
  all 0 matches a card without a ``counters`` map (the spec: a count of 0
  and an absent counter are the same);
* ``events``: the expected events must occur in this order, others may come
  between (an in-order subsequence match, each expected event a pattern); a
  missing event names the field in which the closest event of its kind
  differs;
* ``no_events``: no observed event may match any of the patterns (what must
  not happen, project addition change 13);
* ``error``: ``true`` or ``{clause, step}``; ``step`` defaults to the last
  step; the expected clause matches the refusing clause, or a co-clause the
  refusal lists in ``clauses`` and the refusal table (conformance/refusals.yaml,
  docs/spec/hkk-refusals.md) names beside it for the refused step's verb, or
  an ancestor of either by dotted components (``4.8`` matches ``4.8.4``, not
  ``4.80``). When ``then`` names no ``error``, every step must have been accepted;
* ``result``: ``ongoing``, ``{winner: A}`` or ``{draw: true}``.

:func:`observed_view` builds what ``then`` is matched against;
:func:`first_difference` returns the first :class:`Difference` (or None),
:func:`all_differences` every one (each field of ``then`` on its own).
Paths are JSON pointers (``/players/A/hp``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Difference", "observed_view", "first_difference", "all_differences", "clause_matches",
           "matches", "accepted_clauses", "step_verbs"]


class _Missing:
    def __repr__(self) -> str:
        return "<absent>"

    def __bool__(self) -> bool:
        return False


MISSING = _Missing()
NO_REFUSAL = "no refusal"


@dataclass
class Difference:
    path: str
    expected: Any
    actual: Any
    message: str = ""

    def __str__(self) -> str:
        s = f"{self.path or '/'}: expected {_show(self.expected)}, got {_show(self.actual)}"
        return s + (f" ({self.message})" if self.message else "")

    def to_dict(self) -> dict:
        return {"path": self.path, "expected": self.expected,
                "actual": None if self.actual is MISSING else self.actual,
                "message": self.message}


def _show(v: Any) -> str:
    if v is MISSING:
        return "<absent>"
    return repr(v)


def _esc(seg: Any) -> str:
    return str(seg).replace("~", "~0").replace("/", "~1")


def _join(path: str, seg: Any) -> str:
    return f"{path}/{_esc(seg)}"


# --------------------------------------------------------------------------
# the observed view

def observed_view(state: dict | None, events: list | None, result: Any,
                  refused: dict | None) -> dict:
    """What ``then`` is matched against: the state's own fields (turn,
    players, cards, removed, pending, …) plus ``events``, ``result`` and,
    when a step was refused, ``error: {step, clause}``."""
    view = dict(state or {})
    view["events"] = list(events or [])
    if result is not None:
        view["result"] = result
    else:
        view.pop("result", None)
    view.pop("error", None)
    if refused:
        err = {"step": refused.get("step"), "clause": refused.get("clause")}
        if isinstance(refused.get("clauses"), list) and refused["clauses"]:
            err["clauses"] = [str(c) for c in refused["clauses"]]   # addition: every clause that forbids it
        if refused.get("message"):
            err["message"] = refused["message"]
        view["error"] = err
    return view


# --------------------------------------------------------------------------
# scalars and patterns

def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def scalar_equal(expected: Any, actual: Any) -> bool:
    """Equality that keeps booleans apart from numbers (``1`` is not ``True``)."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return isinstance(expected, bool) and isinstance(actual, bool) and expected == actual
    if _is_num(expected) and _is_num(actual):
        return expected == actual
    if type(expected) is not type(actual) and not (
            isinstance(expected, str) and isinstance(actual, str)):
        return False
    return expected == actual


def _kind(v: Any) -> str:
    if v is MISSING:
        return "absent"
    if isinstance(v, dict):
        return "a mapping"
    if isinstance(v, list):
        return "a list"
    return type(v).__name__


def _match(expected: Any, actual: Any, path: str) -> Difference | None:
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return Difference(path, expected, actual, f"expected a mapping, got {_kind(actual)}")
        counters = path.endswith("/counters")
        for key, exp in expected.items():
            sub = _join(path, key)
            if key not in actual:
                if exp is None:
                    continue
                if counters and _is_num(exp) and exp == 0:
                    continue
                if key == "counters" and _all_zero_counters(exp):
                    continue        # no counters map: every counter is 0
                return Difference(sub, exp, MISSING, "absent")
            d = _match(exp, actual[key], sub)
            if d is not None:
                return d
        return None
    if isinstance(expected, (list, tuple)):
        if not isinstance(actual, (list, tuple)):
            return Difference(path, list(expected), actual, f"expected a list, got {_kind(actual)}")
        patterns = any(isinstance(x, (dict, list)) for x in expected)
        if patterns:
            for i, (exp, act) in enumerate(zip(expected, actual)):
                d = _match(exp, act, _join(path, i))
                if d is not None:
                    return d
            if len(expected) != len(actual):
                return Difference(path, list(expected), list(actual),
                                  f"expected {len(expected)} items, got {len(actual)}")
            return None
        for i, (exp, act) in enumerate(zip(expected, actual)):
            if isinstance(act, (dict, list)) or not scalar_equal(exp, act):
                return Difference(path, list(expected), list(actual),
                                  f"item {i} differs: expected {exp!r}, got {act!r}")
        if len(expected) != len(actual):
            return Difference(path, list(expected), list(actual),
                              f"expected {len(expected)} items, got {len(actual)}")
        return None
    if isinstance(actual, (dict, list)) or actual is MISSING or not scalar_equal(expected, actual):
        msg = ""
        if (isinstance(expected, bool) and _is_num(actual)) or \
                (isinstance(actual, bool) and _is_num(expected)):
            msg = "a boolean never matches a number"
        elif actual is MISSING:
            msg = "absent"
        return Difference(path, expected, actual, msg)
    return None


def _all_zero_counters(exp: Any) -> bool:
    """An expected ``counters`` mapping that an absent map satisfies: every
    count named is 0 (or null)."""
    return isinstance(exp, dict) and all(
        v is None or (_is_num(v) and v == 0) for v in exp.values())


def matches(pattern: Any, actual: Any) -> bool:
    """True when ``actual`` matches ``pattern`` (the rules above, no specials)."""
    return _match(pattern, actual, "") is None


# --------------------------------------------------------------------------
# events

def _match_events(expected: list, actual: Any) -> Difference | None:
    if not isinstance(actual, list):
        return Difference("/events", expected, actual, "no event list")
    pos = 0                              # first observed event not yet consumed
    for k, exp in enumerate(expected):
        found = None
        for j in range(pos, len(actual)):
            if _match(exp, actual[j], "") is None:
                found = j
                break
        if found is None:
            name = exp.get("event") if isinstance(exp, dict) else None
            after = actual[pos:]
            same = [e for e in after if isinstance(e, dict) and e.get("event") == name]
            where = "after the previous expected event" if k else "among the events"
            earlier = [e for e in actual[:pos] if _match(exp, e, "") is None]
            msg = f"expected event #{k} not found {where}"
            if earlier:
                msg += " (it occurred earlier: the order differs)"
            elif same:
                msg += f"; {len(same)} {name!r} event(s) with other fields follow"
                closest = _closest_event(exp, same)
                if closest is not None:
                    msg += f"; the closest differs at {closest}"
            elif name is not None:
                msg += f"; no {name!r} event follows"
            return Difference(_join("/events", k), exp, same if same else after, msg)
        pos = found + 1
    return None


def _match_no_events(forbidden: list, actual: Any) -> Difference | None:
    """``then.no_events``: no observed event may match any of the patterns."""
    if not isinstance(actual, list):
        return Difference("/no_events", forbidden, actual, "no event list")
    for k, pat in enumerate(forbidden):
        for j, ev in enumerate(actual):
            if _match(pat, ev, "") is None:
                return Difference(_join("/no_events", k), pat, ev,
                                  f"event #{j} matches a pattern of no_events: it must not occur")
    return None


def _closest_event(expected: dict, candidates: list) -> str | None:
    """Where the candidate event that matches most of ``expected``'s fields
    differs from it: ``/to: expected 'void', got 'graveyard'``."""
    best, best_score = None, -1
    for cand in candidates:
        score = sum(1 for k, v in expected.items()
                    if k in cand and _match(v, cand[k], "") is None)
        if score > best_score:
            best, best_score = cand, score
    if best is None:
        return None
    d = _match(expected, best, "")
    if d is None:  # pragma: no cover (the candidates did not match)
        return None
    if d.actual is MISSING:
        return f"{d.path or '/'}: expected {_show(d.expected)}, the event has no such field"
    return f"{d.path or '/'}: expected {_show(d.expected)}, got {_show(d.actual)}"


# --------------------------------------------------------------------------
# errors

def clause_matches(expected: Any, actual: Any) -> bool:
    """``expected`` equals ``actual`` or is an ancestor of it by dotted
    components: ``4.8`` matches ``4.8.4`` (and ``4.8``), not ``4.80``."""
    if expected is None:
        return True
    if actual is None:
        return False
    e, a = str(expected), str(actual)
    return a == e or a.startswith(e + ".")


def _match_error(exp: Any, observed: dict, n_steps: int,
                 step_verbs: list[str] | None = None) -> Difference | None:
    refused = observed.get("error")
    if exp is None or exp is False:
        if refused:
            return Difference("/error", NO_REFUSAL, _brief(refused),
                              f"step {refused.get('step')} was refused under "
                              f"{refused.get('clause')}"
                              + (f": {refused['message']}" if refused.get("message") else ""))
        return None
    want = {"step": n_steps - 1}
    if isinstance(exp, dict):
        want.update({k: v for k, v in exp.items() if k in ("step", "clause")})
    if not refused:
        return Difference("/error", want, NO_REFUSAL, "every step was accepted")
    if refused.get("step") != want["step"]:
        return Difference("/error/step", want["step"], refused.get("step"),
                          f"a different step was refused (under {refused.get('clause')})")
    if "clause" in want and not any(clause_matches(want["clause"], c)
                                    for c in accepted_clauses(refused, step_verbs)):
        return Difference("/error/clause", want["clause"], refused.get("clause"),
                          "refused under another clause (the expected clause must equal it or be "
                          "an ancestor, or of a co-clause the refusal table lists for it: "
                          "docs/spec/hkk-refusals.md)")
    return None


def step_verbs(when: list | None) -> list[str]:
    """The verb of each step of a case's ``when`` ("" for a step that is not a one-verb mapping)."""
    return [next(iter(st)) if isinstance(st, dict) and len(st) == 1 else "" for st in when or []]


def accepted_clauses(refused: dict, step_verbs: list[str] | None) -> list[str]:
    """The clauses an expected ``error.clause`` is matched against (docs/spec/hkk-refusals.md):
    ``refused.clause``, and those entries of ``refused.clauses`` that the refusal table lists as
    co-clauses of it for the verb of the refused step. Nothing else a refusal lists is searched;
    without the steps' verbs only ``refused.clause`` counts."""
    clause = refused.get("clause")
    out = [clause]
    step = refused.get("step")
    if step_verbs and isinstance(step, int) and not isinstance(step, bool) \
            and 0 <= step < len(step_verbs) and isinstance(clause, str):
        from conformance.refusals import accepted_alternatives
        allowed = accepted_alternatives(step_verbs[step], clause)
        out.extend(c for c in refused.get("clauses") or [] if c in allowed)
    return out


def _brief(refused: dict) -> dict:
    return {k: refused[k] for k in ("step", "clause") if k in refused}


# --------------------------------------------------------------------------
# the entry point

def first_difference(then: dict, observed: dict, n_steps: int,
                     step_verbs: list[str] | None = None) -> Difference | None:
    """The first way ``observed`` fails ``then`` (None when it matches).

    The refusal is checked first (an unexpected refusal explains any other
    difference), then the keys of ``then`` in their order. ``step_verbs``: the
    verbs of the case's steps, for the co-clauses of a refusal (:func:`accepted_clauses`).
    """
    then = then or {}
    d = _match_error(then.get("error"), observed, n_steps, step_verbs)
    if d is not None:
        return d
    for key, exp in then.items():
        if key == "error":
            continue
        if key == "events":
            d = _match_events(list(exp or []), observed.get("events", MISSING))
        elif key == "no_events":
            d = _match_no_events(list(exp or []), observed.get("events", MISSING))
        elif key == "result":
            act = observed.get("result", MISSING)
            d = _match(exp, act, "/result")
            if d is not None:
                d = Difference("/result", exp, act, d.message or "another result")
        else:
            path = _join("", key)
            if key not in observed:
                if exp is None:
                    continue
                d = Difference(path, exp, MISSING, "absent from the returned state")
            else:
                d = _match(exp, observed[key], path)
        if d is not None:
            return d
    return None


def all_differences(then: dict, observed: dict, n_steps: int,
                    step_verbs: list[str] | None = None) -> list[Difference]:
    """Every way ``observed`` fails ``then``, not only the first: the refusal, then each field
    of ``then`` down to its leaves (a mapping's keys one by one; a list, ``result`` and each
    pattern of ``no_events`` as a whole), and each expected event: the first one missing in
    order, then every later one that occurs nowhere. Empty exactly when
    :func:`first_difference` is None."""
    then = then or {}
    out: list[Difference] = []
    d = _match_error(then.get("error"), observed, n_steps, step_verbs)
    if d is not None:
        out.append(d)
    for key, exp in then.items():
        if key == "error":
            continue
        if key == "events":
            expected = list(exp or [])
            actual = observed.get("events", MISSING)
            d = _match_events(expected, actual)
            if d is not None:
                out.append(d)
                first = int(d.path.rsplit("/", 1)[1]) if d.path.startswith("/events/") else 0
                for k in range(first + 1, len(expected)):
                    if isinstance(actual, list) and not any(
                            _match(expected[k], ev, "") is None for ev in actual):
                        out.append(Difference(_join("/events", k), expected[k], MISSING,
                                              f"expected event #{k} does not occur"))
        elif key == "no_events":
            for k, pat in enumerate(exp or []):
                d = _match_no_events([pat], observed.get("events", MISSING))
                if d is not None:
                    out.append(Difference(_join("/no_events", k), d.expected, d.actual, d.message))
        elif key == "result":
            act = observed.get("result", MISSING)
            d = _match(exp, act, "/result")
            if d is not None:
                out.append(Difference("/result", exp, act, d.message or "another result"))
        elif key not in observed:
            if exp is not None:
                out.append(Difference(_join("", key), exp, MISSING, "absent from the returned state"))
        else:
            _leaves(exp, observed[key], _join("", key), out)
    return out


def _leaves(expected: Any, actual: Any, path: str, out: list[Difference]) -> None:
    """The differences under one field of ``then``, a mapping's keys each on their own."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key, exp in expected.items():
            if isinstance(exp, dict) and isinstance(actual.get(key), dict):
                _leaves(exp, actual[key], _join(path, key), out)
            else:
                d = _match({key: exp}, actual, path)
                if d is not None:
                    out.append(d)
        return
    d = _match(expected, actual, path)
    if d is not None:
        out.append(d)
