"""Strict JSON in and out: what the kit reads from outside and what it writes.

Covers docs/spec/hkk-protocol-additions.md, "Limits on what the harness reads", and
docs/spec/hkk-results.md, "Reading results files" (the JSON rules):

* In (:func:`loads`): the text must be JSON as RFC 8259 has it and nothing more. Refused,
  each with a one-line :class:`StrictJSONError` (with the JSON pointer where there is one):
  text that is not JSON; ``NaN``, ``Infinity``, ``-Infinity`` and a number too large for a
  double (Python's parser takes them; strict readers do not); nesting deeper than
  ``max_depth`` levels (decided on the raw text before parsing, without recursion:
  :func:`deeper_than`); a **lone surrogate** — a ``\\ud800``-style escape without its
  other half — in a string or a key: such text is not Unicode (RFC 8259 §8.2, I-JSON
  RFC 7493 §2.1), cannot be written as UTF-8, and is refused rather than guessed at.
* Out (:func:`dumps`): never ``NaN`` or ``Infinity`` (a ``ValueError``: a bug of the
  writer); a lone surrogate that reached a string anyway (a file name or a command-line
  argument that is not UTF-8, which Python carries as ``\\udcXX``) is written as U+FFFD,
  so writing never fails on it.
* :func:`surrogate_free`: the same replacement for a text printed to a terminal.
"""
from __future__ import annotations

import json
import math
import re
from typing import Any

__all__ = ["StrictJSONError", "loads", "dumps", "deeper_than", "surrogate_free", "lone_surrogate"]

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_PAIRS = str.maketrans("[{]}", "(())")
_SURROGATE = re.compile("[\ud800-\udfff]")
# a surrogate written as an escape (paired or not): only then can a parsed string hold a lone one
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class StrictJSONError(ValueError):
    """Text that is not strict JSON, or beyond a limit: one line, with the JSON pointer
    (``pointer``, "" when there is none) of the place when it is known."""

    def __init__(self, message: str, pointer: str = ""):
        super().__init__(f"{pointer}: {message}" if pointer else message)
        self.pointer = pointer
        self.reason = message


def deeper_than(text: str, limit: int) -> bool:
    """Whether the JSON text nests arrays/objects more than ``limit`` levels deep (or
    has more brackets open than closed beyond that), decided on the raw text without
    recursion: strings are removed, then innermost bracket pairs are stripped ``limit``
    times (each round removes one level); anything still paired is deeper."""
    if text.count("[") + text.count("{") <= limit:
        return False
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text)).translate(_PAIRS)
    for _ in range(limit):
        stripped = brackets.replace("()", "")
        if stripped == brackets:
            break
        brackets = stripped
    return "()" in brackets or brackets.count("(") > limit


def _escape(segment: Any) -> str:
    return str(segment).replace("~", "~0").replace("/", "~1")


def lone_surrogate(value: Any) -> str | None:
    """The JSON pointer of the first string or key of ``value`` holding a lone surrogate
    ("" for ``value`` itself), or None. Iterative: any depth."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, ptr = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return ptr
        elif isinstance(item, dict):
            for k, v in reversed(list(item.items())):
                if isinstance(k, str) and _SURROGATE.search(k):
                    return f"{ptr}/{_escape(_visible(k))}"
                stack.append((v, f"{ptr}/{_escape(k)}"))
        elif isinstance(item, list):
            stack.extend((v, f"{ptr}/{i}") for i, v in reversed(list(enumerate(item))))
    return None


def _visible(text: str) -> str:
    """``text`` with each lone surrogate written as its escape (``\\ud800``)."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is too large for a double")
    return value


def _parse_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def loads(text: str, *, max_depth: int) -> Any:
    """The value of the strict JSON ``text`` (module docstring), or raises
    :class:`StrictJSONError`."""
    if deeper_than(text, max_depth):
        raise StrictJSONError(f"nested deeper than {max_depth} levels (the limit)")
    try:
        value = json.loads(text, parse_float=_parse_float, parse_constant=_parse_constant)
    except RecursionError:              # not expected after the depth check
        raise StrictJSONError(f"nested deeper than {max_depth} levels (the limit)") from None
    except json.JSONDecodeError as exc:
        raise StrictJSONError(f"not JSON ({exc.msg}, line {exc.lineno} column {exc.colno})") \
            from None
    except ValueError as exc:           # a NaN / Infinity, a too-large number, a huge integer
        raise StrictJSONError(f"not strict JSON ({_short(str(exc))})") from None
    if _SURROGATE_ESCAPE.search(text) or _SURROGATE.search(text):
        where = lone_surrogate(value)
        if where is not None:
            raise StrictJSONError("a lone surrogate (a \\ud800-\\udfff escape without its other "
                                  "half): not Unicode text", where or "/")
    return value


def _short(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def surrogate_free(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD."""
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


def dumps(value: Any, *, indent: int | None = None, default=None) -> str:
    """Strict JSON text of ``value`` (UTF-8-safe: lone surrogates become U+FFFD; NaN and
    Infinity raise ValueError)."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, indent=indent,
                      default=default)
    return surrogate_free(text)
