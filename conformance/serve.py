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
``case`` gets ``errored``; refused replies carry ``result`` too.

Anything the engine prints goes to stderr, never into the protocol stream.
"""
from __future__ import annotations

import contextlib
import json
import sys
import traceback
from pathlib import Path
from typing import IO, Any

PROTOCOL_VERSION = 1
IMPLEMENTATION_NAME = "hkk-kodex reference"
# The project's README; replaced by the package's Home-page / Project-URL
# metadata when the installed package declares one.
HOMEPAGE = "README.md"


def package_version() -> str:
    """The version of the hkk-kodex package (installed metadata or pyproject.toml)."""
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


FORMATS = ("hkk-case/1",)      # the case formats the reference speaks (docs/spec/hkk-versions.md)


def hello_reply(request: dict) -> dict:
    protocol = request.get("protocol", PROTOCOL_VERSION)
    if protocol != PROTOCOL_VERSION:
        return {"ok": False, "error": f"protocol {protocol!r} is not supported; "
                                      f"this implementation speaks protocol {PROTOCOL_VERSION}"}
    fmt = request.get("format", FORMATS[0])
    if fmt not in FORMATS:
        return {"ok": False, "error": f"case format {fmt!r} is not supported; this "
                                      f"implementation speaks {', '.join(FORMATS)}"}
    engine = _engine()
    return {"ok": True, "implementation": implementation_info(),
            "formats": list(FORMATS),
            "rulesets": list(engine.available_rulesets()),
            "verbs": list(engine.SUPPORTED_VERBS)}


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
    ruleset = case.get("ruleset") or ruleset_default
    try:
        engine = _engine()
        if ruleset not in engine.available_rulesets():
            return {"seq": seq, "skipped": f"unknown ruleset {ruleset}",
                    "unsupported": [f"ruleset:{ruleset}"]}
        missing = [v for v in _verbs(when) if v not in engine.SUPPORTED_VERBS]
        if missing:
            return {"seq": seq, "skipped": "verbs not supported by the reference engine",
                    "unsupported": missing}
        with contextlib.redirect_stdout(sys.stderr):
            res = engine.run_case(given, when, ruleset=ruleset)
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


def handle_line(line: str, ruleset_default: str = "kodex") -> tuple[dict | None, bool]:
    """(reply or None, keep going?) for one request line."""
    try:
        request = json.loads(line)
    except ValueError as exc:
        return {"ok": False, "error": f"malformed request (not JSON): {exc}"}, True
    if not isinstance(request, dict):
        return {"ok": False, "error": "malformed request: not a JSON object"}, True
    cmd = request.get("cmd")
    if cmd == "hello":
        try:
            return hello_reply(request), True
        except Exception as exc:  # the engine cannot even be imported
            return {"ok": False, "error": f"reference engine unavailable: "
                                          f"{type(exc).__name__}: {exc}"}, True
    if cmd == "bye":
        return None, False
    if cmd == "run":
        seq = request.get("seq")
        if not isinstance(seq, int) or isinstance(seq, bool):
            return {"ok": False, "error": "malformed request: 'run' needs an integer 'seq'"}, True
        return run_reply(seq, request.get("case"), ruleset_default), True
    return {"ok": False, "error": f"malformed request: unknown cmd {cmd!r}"}, True


def _dump(obj: dict) -> str:
    try:
        return json.dumps(obj, ensure_ascii=False)
    except (TypeError, ValueError):
        return json.dumps(obj, ensure_ascii=False, default=repr)


def serve(stdin: IO[str] | None = None, stdout: IO[str] | None = None,
          ruleset_default: str = "kodex") -> int:
    """Speak protocol 1 until ``bye`` or end of input; returns the exit status."""
    stdin = stdin if stdin is not None else sys.stdin
    stdout = stdout if stdout is not None else sys.stdout
    while True:
        line = stdin.readline()
        if not line:
            return 0
        if not line.strip():
            continue
        reply, go_on = handle_line(line, ruleset_default)
        if reply is not None:
            stdout.write(_dump(reply) + "\n")
            stdout.flush()
        if not go_on:
            return 0
