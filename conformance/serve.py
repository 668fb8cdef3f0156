"""The reference engine as an implementation speaking the HKK protocol 1.

Covers :func:`serve` (``kodex serve``): reads one JSON request per line from
``stdin`` and writes one JSON reply per line to ``stdout``, flushing after
every line (see ``docs/spec/hkk-protocol.md``):

* ``hello`` → ``{"ok": true, "implementation": {...}, "formats": ["hkk-case/1"], "rulesets": [...],
  "verbs": [...]}`` (``ok: false`` for a protocol other than 1);
* ``run`` → exactly one reply with the request's ``seq``: ``state`` +
  ``events`` + ``result``; or ``refused`` + ``state`` (the state before the
  refused step) + ``events`` + ``result``; an exception inside the engine →
  ``errored`` with ``message`` and ``traceback``; a verb not in
  ``SUPPORTED_VERBS`` or a ruleset the engine does not know → ``skipped`` with
  ``unsupported``;
* ``bye`` → return (the program exits).

Additions to protocol 1 (to be listed in ``docs/spec/hkk-protocol.md`` under
"Additions"; nothing defined there is changed):
a request line that is not JSON, not an object, has no known ``cmd``, or is a
``run`` without an integer ``seq`` gets ``{"ok": false, "error": "..."}`` and
the server goes on with the next line; a ``run`` with a ``seq`` but no usable
``case`` gets ``errored``; refused replies carry ``result`` too; ``hello``
declares ``pipeline`` (``PIPELINE``): requests are read one line at a time and
answered in the order they came, so the harness may send the next ones before
a reply (docs/spec/hkk-protocol-additions.md, "Requests in flight").

Limits (``docs/spec/hkk-protocol-additions.md``, "Limits"; listed in the ``hello`` reply as
``limits``): every request is checked against them before any work is done, and a
request beyond one gets ``{"ok": false, "error": "..."}`` (a ``run`` with a usable
``seq``: ``errored``) naming the limit; the server goes on with the next line.
Standard input is read as bytes and decoded line by line, so a line that is not UTF-8
is one bad request, not the end of the server.

Anything the engine prints goes to stderr, never into the protocol stream.
"""
from __future__ import annotations

import contextlib
import functools
import json
import sys
import traceback
from pathlib import Path
from typing import IO, Any

from conformance.loader import MAX_INT
from conformance.verbs import FORMATS, version_of  # the formats the reference speaks: every one
from conformance.strictjson import deeper_than as _deeper_than

# Limits, checked before the work is done. The corpus today: a run request of at most
# ~1.3 KB, nesting depth 13 (11 in the case), 6 steps, 16 cards, integers up to 25.
# The engine's time grows with steps x cards^1.5-2: at 100 cards and 200 steps the worst
# case measured (a 50-attacker combat every third step) takes ~3 s; 200 x 200 took 9 s
# and 1000 x 1000 took six minutes.
MAX_LINE_BYTES = 1024 * 1024    # one request line, newline excluded
MAX_DEPTH = 64                  # nested arrays/objects in one request (the request is level 1)
MAX_STEPS = 200                 # steps in a case's ``when``
MAX_CARDS = 100                 # cards in a case's ``given.cards``
# MAX_INT (from conformance.loader, the same for case files): integer magnitude,
# 2**53 - 1, the integers every JSON implementation represents exactly
_DIGITS = len(str(MAX_INT))     # a longer literal is never converted

LIMITS = {"line_bytes": MAX_LINE_BYTES, "depth": MAX_DEPTH, "steps": MAX_STEPS,
          "cards": MAX_CARDS, "integer": MAX_INT}

# Requests that may be in flight (docs/spec/hkk-protocol-additions.md, "Requests in
# flight"): the server reads one line at a time and answers in order, so any number
# can wait in its input; this is what it declares in ``hello``.
PIPELINE = 256

PROTOCOL_VERSION = 1
IMPLEMENTATION_NAME = "hkk-kodex reference"
# The project's README; replaced by the package's Home-page / Project-URL
# metadata when the installed package declares one.
HOMEPAGE = "README.md"


@functools.lru_cache(maxsize=1)
def package_version() -> str:
    """The version of the hkk-kodex package (installed metadata or pyproject.toml); looked up
    once per process (reading the installed metadata scans sys.path)."""
    try:
        from importlib.metadata import PackageNotFoundError, version
        try:
            return version("hkk-kodex")
        except PackageNotFoundError:
            pass
    except ImportError:  # pragma: no cover
        pass
    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    try:
        import tomllib
        with open(pyproject, "rb") as fh:
            return str(tomllib.load(fh)["project"]["version"])
    except Exception:
        return "0+unknown"


@functools.lru_cache(maxsize=1)
def homepage() -> str:
    try:
        from importlib.metadata import PackageNotFoundError, metadata
        try:
            md = metadata("hkk-kodex")
        except PackageNotFoundError:
            return HOMEPAGE
        url = md.get("Home-page")
        if not url:
            for entry in md.get_all("Project-URL") or []:
                url = entry.split(",", 1)[-1].strip()
                break
        if url:
            return url if url.endswith(".md") else url.rstrip("/") + "/README.md"
    except Exception:
        pass
    return HOMEPAGE


def implementation_info() -> dict:
    return {"name": IMPLEMENTATION_NAME, "version": package_version(),
            "language": "python", "homepage": homepage()}


def _engine():
    from model import engine
    return engine




def hello_reply(request: dict) -> dict:
    protocol = request.get("protocol", PROTOCOL_VERSION)
    if protocol != PROTOCOL_VERSION or isinstance(protocol, bool):
        return {"ok": False, "error": f"protocol {_short(repr(protocol))} is not supported; "
                                      f"this implementation speaks protocol {PROTOCOL_VERSION}"}
    fmt = request.get("format", FORMATS[0])
    if not isinstance(fmt, str) or fmt not in FORMATS:
        return {"ok": False, "error": f"case format {_short(repr(fmt))} is not supported; this "
                                      f"implementation speaks {', '.join(FORMATS)}"}
    engine = _engine()
    return {"ok": True, "implementation": implementation_info(),
            "formats": list(FORMATS),
            "rulesets": list(engine.available_rulesets()),
            "verbs": list(engine.SUPPORTED_VERBS),
            "limits": dict(LIMITS),
            "pipeline": PIPELINE}


def _verbs(when: list) -> list[str]:
    verbs: list[str] = []
    for step in when:
        if isinstance(step, dict):
            for verb in step:
                if str(verb) not in verbs:
                    verbs.append(str(verb))
    return verbs


def run_reply(seq: int, case: Any, ruleset_default: str = "kodex") -> dict:
    """The one reply to a ``run`` request."""
    if not isinstance(case, dict):
        return {"seq": seq, "errored": {"message": "malformed request: 'case' must be an object",
                                        "traceback": ""}}
    given = case.get("given") or {}
    when = case.get("when") or []
    if not isinstance(given, dict) or not isinstance(when, list):
        return {"seq": seq, "errored": {"message": "malformed request: 'given' must be an object "
                                                   "and 'when' a list", "traceback": ""}}
    if len(when) > MAX_STEPS:
        return {"seq": seq, "errored": {"message": f"the case has {len(when)} steps, more than "
                                                   f"the limit of {MAX_STEPS} (limits.steps)",
                                        "traceback": ""}}
    cards = given.get("cards")
    if isinstance(cards, (dict, list)) and len(cards) > MAX_CARDS:
        return {"seq": seq, "errored": {"message": f"the case has {len(cards)} cards, more than "
                                                   f"the limit of {MAX_CARDS} (limits.cards)",
                                        "traceback": ""}}
    ruleset = case.get("ruleset") or ruleset_default
    fmt = case.get("format", FORMATS[0])
    if fmt not in FORMATS:
        return {"seq": seq, "skipped": f"case format {_short(repr(fmt))} is not spoken",
                "unsupported": [f"format:{_short(str(fmt))}"]}
    try:
        engine = _engine()
        known = _serving_rulesets
        if ruleset not in (known if known is not None else engine.available_rulesets()):
            return {"seq": seq, "skipped": f"unknown ruleset {ruleset}",
                    "unsupported": [f"ruleset:{ruleset}"]}
        missing = [v for v in _verbs(when) if v not in engine.SUPPORTED_VERBS]
        if missing:
            return {"seq": seq, "skipped": "verbs not supported by the reference engine",
                    "unsupported": missing}
        with contextlib.redirect_stdout(sys.stderr):
            res = engine.run_case(given, when, ruleset=ruleset, version=version_of(fmt))
    except Exception as exc:
        return {"seq": seq, "errored": {"message": f"{type(exc).__name__}: {exc}",
                                        "traceback": traceback.format_exc()}}
    reply: dict = {"seq": seq}
    if res.refused is not None:
        reply["refused"] = res.refused
    reply["state"] = res.state
    reply["events"] = list(res.events or [])
    reply["result"] = res.result
    return reply


class _Rejected:
    """Stands, in the parsed request, for a number it may not carry."""

    __slots__ = ("message",)

    def __init__(self, message: str):
        self.message = message


def _number_parsers(rejected: list[_Rejected]):
    """``parse_int`` / ``parse_float`` for :func:`json.loads` that never convert a literal
    beyond the limits (Python's int-from-string is quadratic and stops at 4,300
    digits); such a number becomes a :class:`_Rejected`, also appended to ``rejected``."""

    def reject(message: str) -> _Rejected:
        marker = _Rejected(message)
        rejected.append(marker)
        return marker

    def parse_int(text: str) -> int | _Rejected:
        digits = len(text) - text.startswith("-")
        if digits > _DIGITS:
            return reject(f"an integer of {digits} digits is beyond the limit ±{MAX_INT} "
                          "(limits.integer)")
        value = int(text)
        if abs(value) > MAX_INT:
            return reject(f"the integer {value} is beyond the limit ±{MAX_INT} "
                          "(limits.integer)")
        return value

    def parse_float(text: str) -> float | _Rejected:
        value = float(text)
        if value in (float("inf"), float("-inf")):
            return reject(f"the number {_short(text)} is too large for a double")
        return value

    return parse_int, parse_float


def _parse_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def _short(value: Any, limit: int = 80) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} characters)"


def _find_rejected(value: Any, path: str = "") -> tuple[str, _Rejected] | None:
    """(JSON pointer, marker) of the first number the request may not carry. The
    request is already bounded in size and depth."""
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        item, ptr = stack.pop()
        if isinstance(item, _Rejected):
            return ptr, item
        if isinstance(item, dict):
            stack.extend((v, f"{ptr}/{str(k).replace('~', '~0').replace('/', '~1')}")
                         for k, v in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend((v, f"{ptr}/{i}") for i, v in reversed(list(enumerate(item))))
    return None


def _error(message: str) -> dict:
    return {"ok": False, "error": message}


def _request(line: str | bytes) -> tuple[dict, bool]:
    """(the request on one line, whether it holds a rejected number), or raises
    ``_BadRequest`` with the ``ok: false`` reply."""
    line = line.rstrip(b"\r\n" if isinstance(line, bytes) else "\r\n")
    size = len(line)
    if isinstance(line, str) and size * 4 > MAX_LINE_BYTES:
        size = len(line.encode("utf-8", "surrogatepass"))
    if size > MAX_LINE_BYTES:
        raise _BadRequest(_error(f"request line longer than {MAX_LINE_BYTES} bytes "
                                 "(limits.line_bytes)"))
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _BadRequest(_error(f"malformed request: not UTF-8 (byte "
                                     f"{line[exc.start]:#04x} at offset {exc.start})"))
    if _deeper_than(line, MAX_DEPTH):
        raise _BadRequest(_error(f"malformed request: nested deeper than {MAX_DEPTH} levels "
                                 "(limits.depth)"))
    rejected: list[_Rejected] = []
    parse_int, parse_float = _number_parsers(rejected)
    try:
        request = json.loads(line, parse_int=parse_int, parse_float=parse_float,
                             parse_constant=_parse_constant)
    except RecursionError:              # not expected after the depth check
        raise _BadRequest(_error(f"malformed request: nested too deeply (limits.depth is "
                                 f"{MAX_DEPTH})"))
    except ValueError as exc:
        raise _BadRequest(_error(f"malformed request (not JSON): {_short(str(exc), 200)}"))
    if not isinstance(request, dict):
        raise _BadRequest(_error("malformed request: not a JSON object"))
    return request, bool(rejected)


class _BadRequest(Exception):
    pass


def handle_line(line: str | bytes, ruleset_default: str = "kodex") -> tuple[dict | None, bool]:
    """(reply or None, keep going?) for one request line (text, or bytes to be decoded
    as UTF-8). Never raises: whatever the line, the reply is a protocol reply (None
    only for ``bye``)."""
    try:
        return _handle(line, ruleset_default)
    except Exception as exc:                 # a bug of ours: still one well-formed reply
        return _error(f"internal error of kodex serve: {type(exc).__name__}: "
                      f"{_short(str(exc), 200)}"), True


def _handle(line: str | bytes, ruleset_default: str) -> tuple[dict | None, bool]:
    try:
        request, has_rejected = _request(line)
    except _BadRequest as bad:
        return bad.args[0], True
    cmd = request.get("cmd")
    rejected = _find_rejected(request) if has_rejected else None
    if cmd == "run" and rejected is not None and rejected[0].startswith("/case/"):
        seq = request.get("seq")
        if isinstance(seq, int) and not isinstance(seq, bool):
            return {"seq": seq, "errored": {"message": f"{rejected[0]}: {rejected[1].message}",
                                            "traceback": ""}}, True
    if rejected is not None:
        return _error(f"malformed request: {rejected[0]}: {rejected[1].message}"), True
    if cmd == "hello":
        try:
            return hello_reply(request), True
        except Exception as exc:  # the engine cannot even be imported
            return _error(f"reference engine unavailable: {type(exc).__name__}: "
                          f"{_short(str(exc), 200)}"), True
    if cmd == "bye":
        return None, False
    if cmd == "run":
        seq = request.get("seq")
        if not isinstance(seq, int) or isinstance(seq, bool):
            return _error("malformed request: 'run' needs an integer 'seq'"), True
        return run_reply(seq, request.get("case"), ruleset_default), True
    return _error(f"malformed request: unknown cmd {_short(repr(cmd))}"), True


def _dump(obj: dict, encoding: str = "utf-8") -> str:
    """One reply line of strict JSON; ASCII escapes where ``encoding`` cannot carry a
    character (a lone surrogate from a ``\\ud800`` in the request, say). A reply that
    cannot be JSON (an infinite number the engine computed) becomes ``errored`` (with
    its ``seq``) or ``ok: false``."""
    try:
        text = json.dumps(obj, ensure_ascii=False, allow_nan=False, default=repr)
    except (TypeError, ValueError, RecursionError) as exc:
        problem = f"the reply cannot be written as JSON: {type(exc).__name__}: {_short(str(exc))}"
        seq = obj.get("seq")
        if isinstance(seq, int) and not isinstance(seq, bool):
            obj = {"seq": seq, "errored": {"message": problem, "traceback": ""}}
        else:
            obj = _error(problem)
        text = json.dumps(obj, ensure_ascii=False)
    try:
        text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        text = json.dumps(json.loads(text), ensure_ascii=True)
    return text


_DISCARD_CHUNK = 64 * 1024


def _lines(stdin: IO) -> Any:
    """The request lines of ``stdin``, at most MAX_LINE_BYTES + 1 each: a longer line is
    read and dropped in chunks (memory stays bounded) and stands as one over-long line.
    A binary stream (``sys.stdin.buffer``) is preferred, so that decoding is per line."""
    stream = getattr(stdin, "buffer", stdin)
    newline: str | bytes | None = None
    while True:
        line = stream.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        if newline is None:
            newline = b"\n" if isinstance(line, bytes) else "\n"
        if len(line) > MAX_LINE_BYTES and not line.endswith(newline):
            while True:                             # the rest of the line, not kept
                rest = stream.readline(_DISCARD_CHUNK)
                if not rest or rest.endswith(newline):
                    break
        yield line


class _Rulesets:
    """The engine's rulesets, asked of it once per :func:`serve` (on the first
    ``in`` test): the engine lists its ruleset files on every call."""

    __slots__ = ("_names",)

    def __init__(self):
        self._names: frozenset | None = None

    def __contains__(self, name: object) -> bool:
        if self._names is None:
            self._names = frozenset(_engine().available_rulesets())
        return name in self._names


# the rulesets while serve() runs (None outside it: run_reply asks the engine)
_serving_rulesets: _Rulesets | None = None


def serve(stdin: IO | None = None, stdout: IO[str] | None = None,
          ruleset_default: str = "kodex") -> int:
    """Speak protocol 1 until ``bye`` or end of input; returns the exit status.

    ``stdin``: a text stream with a binary ``buffer`` (``sys.stdin``; the buffer is
    read), a binary stream, or a text stream without one (``io.StringIO``)."""
    stdin = stdin if stdin is not None else sys.stdin
    stdout = stdout if stdout is not None else sys.stdout
    encoding = getattr(stdout, "encoding", None) or "utf-8"
    global _serving_rulesets
    _serving_rulesets = _Rulesets()
    try:
        for line in _lines(stdin):
            if not line.strip():
                continue
            reply, go_on = handle_line(line, ruleset_default)
            if reply is not None:
                try:
                    stdout.write(_dump(reply, encoding) + "\n")
                    stdout.flush()
                except BrokenPipeError:                 # the harness is gone
                    return 0
            if not go_on:
                return 0
        return 0
    finally:
        _serving_rulesets = None
