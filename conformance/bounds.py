"""Limits on what the harness keeps of what an implementation sends.

Covers docs/spec/hkk-protocol-additions.md, "Limits on what the harness reads and keeps":

* :func:`hello_problem`: the ``hello`` reply's ``implementation`` object (its name, version,
  language, homepage; the whole object as JSON text) and its lists (``rulesets``, ``verbs``,
  ``formats``, ``profile``) within their limits; beyond one, the implementation is unusable
  with that one-line reason (``conformance.protocol`` refuses the hello).
* :func:`bound_outcome`: every case outcome, in-process or from a reply, is cut to the limits
  before it is judged further, printed, streamed or written: ``message`` and
  ``difference.path`` keep their beginning, ``traceback`` (text; an object becomes its JSON
  text) its end, each of ``difference.expected`` / ``.actual`` is kept when its JSON text is
  short and shallow enough and is otherwise replaced by a text that says so and shows the
  beginning; ``unsupported`` keeps a bounded list of short names. A cut always says so in the
  text itself (``… (cut by kodex: …)``), so nothing is shortened silently. The verdict is
  never changed by a cut: it was decided on the whole reply.

The limits keep one case's outcome to about 25 KB whatever the implementation sends, so the
results of a corpus run stay far below ``conformance.results_io.MAX_RESULTS_BYTES``; the
results schema (``conformance/schema/hkk-results-2.schema.json``) states the same lengths, so a
results file from elsewhere is held to them too.
"""
from __future__ import annotations

import json
from typing import Any

# what one case's outcome keeps (characters)
MAX_MESSAGE_CHARS = 4_096
MAX_TRACEBACK_CHARS = 8_192
MAX_PATH_CHARS = 1_024
MAX_VALUE_CHARS = 4_096          # JSON text of difference.expected / .actual each
MAX_VALUE_DEPTH = 32             # nesting of a kept expected / actual value
MAX_UNSUPPORTED = 32             # entries of `unsupported`
MAX_NAME_CHARS = 256             # a name: implementation name / version / language, a list entry
# the hello reply
MAX_HOMEPAGE_CHARS = 2_048
MAX_COMMAND_CHARS = 4_096        # the command line kept when the program could not be started
MAX_IMPLEMENTATION_CHARS = 16_384   # the `implementation` object as JSON text
MAX_HELLO_LIST = 1_000           # entries of `rulesets`, `verbs`, `formats`, `profile`

_CUT = "… (cut by kodex: {n:,} characters; the limit is {limit:,})"


def cut_text(text: str, limit: int) -> str:
    """``text``, or its beginning followed by a note saying what was cut; at most ``limit``
    characters either way."""
    if len(text) <= limit:
        return text
    note = _CUT.format(n=len(text), limit=limit)
    return text[:max(0, limit - len(note))] + note


def cut_text_keep_end(text: str, limit: int) -> str:
    """``text``, or a note saying what was cut followed by its end (a traceback's last
    lines say the most); at most ``limit`` characters."""
    if len(text) <= limit:
        return text
    note = f"(cut by kodex: {len(text):,} characters; the last part is kept; the limit is " \
           f"{limit:,}) …\n"
    return note + text[len(text) - max(0, limit - len(note)):]


def _depth_within(value: Any, limit: int) -> bool:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > limit:
                return False
            stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict)
                                                  else item))
    return True


def cut_value(value: Any, limit: int = MAX_VALUE_CHARS) -> Any:
    """A JSON value kept as it is when its JSON text is at most ``limit`` characters and it
    nests at most ``MAX_VALUE_DEPTH`` levels; otherwise a text saying so, with the
    beginning of that JSON text."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return cut_text(value, limit)
    if not _depth_within(value, MAX_VALUE_DEPTH):
        return f"(cut by kodex: a value nested deeper than {MAX_VALUE_DEPTH} levels)"
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=repr)
    except (TypeError, ValueError) as exc:
        return cut_text(f"(cut by kodex: a value that is not JSON: {exc})", limit)
    if len(text) <= limit:
        return value
    note = f"(cut by kodex: a value of {len(text):,} characters of JSON; the limit is " \
           f"{limit:,}; it begins: "
    return note + text[:max(0, limit - len(note) - 2)] + "…)"


def _text_of(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=repr)
    except (TypeError, ValueError):
        return repr(value)


def bound_outcome(oc) -> Any:
    """Cut ``oc`` (a ``conformance.runner.CaseOutcome``) to the limits, in place; returns it."""
    if not isinstance(oc.message, str):
        oc.message = _text_of(oc.message)
    oc.message = cut_text(oc.message, MAX_MESSAGE_CHARS)
    if oc.traceback is not None:
        oc.traceback = cut_text_keep_end(_text_of(oc.traceback), MAX_TRACEBACK_CHARS)
    d = oc.difference
    if d is not None:
        if not isinstance(d, dict):
            d = {"path": None, "expected": None, "actual": _text_of(d)}
        path = d.get("path")
        oc.difference = {"path": None if path is None else cut_text(_text_of(path),
                                                                    MAX_PATH_CHARS),
                         "expected": cut_value(d.get("expected")),
                         "actual": cut_value(d.get("actual"))}
    if oc.unsupported:
        items = list(oc.unsupported) if isinstance(oc.unsupported, (list, tuple)) \
            else [oc.unsupported]
        kept = [cut_text(_text_of(u), MAX_NAME_CHARS) for u in items[:MAX_UNSUPPORTED]]
        if len(items) > MAX_UNSUPPORTED:
            kept[-1] = f"(cut by kodex: {len(items):,} entries; the limit is {MAX_UNSUPPORTED})"
        oc.unsupported = kept
    return oc


def implementation_problem(impl: Any) -> str | None:
    """Why an ``implementation`` object (from ``hello``, or in a results file) is beyond the
    limits (one line, naming the field), or None."""
    if not isinstance(impl, dict):
        return None
    for key, limit in (("name", MAX_NAME_CHARS), ("version", MAX_NAME_CHARS),
                       ("language", MAX_NAME_CHARS), ("homepage", MAX_HOMEPAGE_CHARS),
                       ("command", MAX_COMMAND_CHARS)):
        value = impl.get(key)
        if key in impl and not isinstance(value, str):
            return f"`implementation.{key}` must be text, not {type(value).__name__}"
        if isinstance(value, str) and len(value) > limit:
            return (f"`implementation.{key}` is {len(value):,} characters long "
                    f"(the limit is {limit:,})")
    try:
        size = len(json.dumps(impl, ensure_ascii=False))
    except (TypeError, ValueError, RecursionError):
        return "`implementation` cannot be written as JSON"
    if size > MAX_IMPLEMENTATION_CHARS:
        return (f"`implementation` is {size:,} characters of JSON "
                f"(the limit is {MAX_IMPLEMENTATION_CHARS:,})")
    return None


def hello_problem(reply: dict) -> str | None:
    """Why a ``hello`` reply is beyond the limits (one line), or None."""
    problem = implementation_problem(reply.get("implementation"))
    if problem:
        return problem
    for key in ("rulesets", "verbs", "formats", "profile"):
        items = reply.get(key)
        if not isinstance(items, list):
            continue
        if len(items) > MAX_HELLO_LIST:
            return f"`{key}` lists {len(items):,} entries (the limit is {MAX_HELLO_LIST:,})"
        for i, item in enumerate(items):
            if isinstance(item, str) and len(item) > MAX_NAME_CHARS:
                return (f"`{key}[{i}]` is {len(item):,} characters long "
                        f"(the limit is {MAX_NAME_CHARS})")
    return None


def bound_implementation(impl: dict) -> dict:
    """The ``implementation`` object the harness writes itself (``{command}`` of a program
    that could not be started): its texts cut to the limits."""
    out = dict(impl)
    if isinstance(out.get("command"), str):
        out["command"] = cut_text(out["command"], MAX_COMMAND_CHARS)
    return out
