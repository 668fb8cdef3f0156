"""Hostile input: whatever comes from outside (protocol lines to ``kodex serve``, case
files to ``kodex check``) gets a clear error naming the limit or the problem, in bounded
time and memory, never a traceback; the server answers the next message and the valid
cases of a file still load. The limits: docs/spec/hkk-protocol-additions.md, "Limits".

The subprocess timeouts are generous and fail a test only on a hang; nothing here
asserts a speed."""
from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance import loader, serve
from conformance.loader import load_files, load_text

ROOT = Path(__file__).resolve().parents[1]
HANG = 120                                  # seconds: only a hang fails on this
ENV = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONIOENCODING="utf-8")

HELLO = b'{"cmd": "hello", "protocol": 1}'


# ---------------------------------------------------------------------------------------
# kodex serve: one bad line after another, each followed by a hello that must be answered

def _run_request(case: dict, seq: int = 7) -> bytes:
    return json.dumps({"cmd": "run", "seq": seq, "case": case}).encode()


def _cards(n: int) -> dict:
    return {f"c{i}": {"kind": "creature", "damage": 1, "hp": 1} for i in range(n)}


# (name, request line without newline, what the reply must say)
BAD_LINES = [
    ("invalid UTF-8", b'{"cmd": "hello", "x": "\xff\xfe"}', "not UTF-8"),
    ("lone continuation byte", b"\x80", "not UTF-8"),
    ("deep arrays", b"[" * 100_000 + b"]" * 100_000, "limits.depth"),
    ("deep arrays, never closed", b"[" * 100_000, "limits.depth"),
    ("deep objects", b'{"a":' * 5_000 + b"1" + b"}" * 5_000, "limits.depth"),
    ("deep inside a run", _run_request({"given": {"x": [[[[[]]]]]}}).replace(
        b"[[[[[]]]]]", b"[" * 2_000 + b"]" * 2_000), "limits.depth"),
    ("huge line", b'{"cmd": "hello", "pad": "' + b"a" * (serve.MAX_LINE_BYTES + 10) + b'"}',
     "limits.line_bytes"),
    ("integer over 4,300 digits as seq", b'{"cmd": "run", "seq": ' + b"9" * 5_000 + b"}",
     "limits.integer"),
    ("integer over 4,300 digits in the case",
     _run_request({"given": {"seed": 1}}).replace(b'"seed": 1', b'"seed": ' + b"9" * 5_000),
     "limits.integer"),
    ("integer beyond 2**53", _run_request({"given": {"seed": 2 ** 53}}), "limits.integer"),
    ("negative integer beyond 2**53", _run_request({"given": {"seed": -2 ** 60}}),
     "limits.integer"),
    ("number too large for a double", b'{"cmd": "hello", "x": 1e999}', "too large"),
    ("NaN", b'{"cmd": "hello", "x": NaN}', "not JSON"),
    ("too many steps", _run_request({"given": {}, "when": [{"pass": {}}] * (serve.MAX_STEPS + 1)}),
     "limits.steps"),
    ("too many cards", _run_request({"given": {"cards": _cards(serve.MAX_CARDS + 1)},
                                     "when": []}), "limits.cards"),
    ("a string of quotes", b'"' * 100_001, "not JSON"),
    ("not JSON", b"this is not json", "not JSON"),
    ("not an object", b"[1, 2, 3]", "not a JSON object"),
    ("unknown cmd, huge", b'{"cmd": "' + b"x" * 500_000 + b'"}', "unknown cmd"),
]


def _check_reply(name: str, line: bytes, reply: dict, needle: str) -> None:
    assert isinstance(reply, dict), name
    if "seq" in reply:          # a run with a usable seq: errored
        assert reply["seq"] == 7 and set(reply) == {"seq", "errored"}, (name, reply)
        message = reply["errored"]["message"]
    else:
        assert reply.get("ok") is False and set(reply) == {"ok", "error"}, (name, reply)
        message = reply["error"]
    assert needle in message, (name, message)
    assert len(message) < 1_000, (name, "the message quotes the input whole")


@pytest.mark.parametrize("name, line, needle", BAD_LINES, ids=[b[0] for b in BAD_LINES])
def test_handle_line_answers_bad_input(name, line, needle):
    reply, go_on = serve.handle_line(line + b"\n")
    assert go_on is True
    _check_reply(name, line, reply, needle)
    json.loads(serve._dump(reply))             # the reply itself is strict JSON


def test_kodex_serve_survives_every_bad_line_and_answers_the_next():
    """The real program on a pipe: stdin is read as bytes, each bad line gets its one
    reply, the hello after it is answered, and nothing goes to stderr as a traceback."""
    payload = b"".join(line + b"\n" + HELLO + b"\n" for _, line, _ in BAD_LINES)
    proc = subprocess.run([sys.executable, "-m", "conformance", "serve"], input=payload,
                          capture_output=True, cwd=ROOT, env=ENV, timeout=HANG)
    assert "Traceback" not in proc.stderr.decode("utf-8", "replace"), proc.stderr[-3000:]
    assert proc.returncode == 0
    replies = [json.loads(r) for r in proc.stdout.decode("utf-8").splitlines()]
    assert len(replies) == 2 * len(BAD_LINES)
    for i, (name, line, needle) in enumerate(BAD_LINES):
        _check_reply(name, line, replies[2 * i], needle)
        hello = replies[2 * i + 1]
        assert hello.get("ok") is True and hello["limits"] == serve.LIMITS, (name, hello)


def test_hello_announces_the_limits():
    reply, _ = serve.handle_line(HELLO)
    assert reply["ok"] is True
    assert reply["limits"] == {"line_bytes": serve.MAX_LINE_BYTES, "depth": serve.MAX_DEPTH,
                               "steps": serve.MAX_STEPS, "cards": serve.MAX_CARDS,
                               "integer": 2 ** 53 - 1}


def _serve_bytes(data: bytes) -> list[dict]:
    out = io.StringIO()
    assert serve.serve(io.BytesIO(data), out) == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_limits_are_inclusive():
    """A request at every limit is served, one past it is not."""
    at_line = HELLO[:-1] + b', "pad": "' + b"a" * serve.MAX_LINE_BYTES + b'"}'
    at_line = at_line[:serve.MAX_LINE_BYTES - 2] + b'"}'
    assert len(at_line) == serve.MAX_LINE_BYTES
    depth = serve.MAX_DEPTH - 1           # the request object is level 1
    at_depth = HELLO[:-1] + b', "x": ' + b"[" * depth + b"]" * depth + b"}"
    at_int = _run_request({"given": {"seed": 2 ** 53 - 1}, "when": []})
    at_steps = _run_request({"given": {}, "when": [{"pass": {}}] * serve.MAX_STEPS})
    at_cards = _run_request({"given": {"cards": _cards(serve.MAX_CARDS)}, "when": []})
    replies = _serve_bytes(b"\n".join([at_line, at_depth, at_int, at_steps, at_cards]) + b"\n")
    assert [r.get("ok") for r in replies[:2]] == [True, True]
    for r in replies[2:]:
        assert r["seq"] == 7 and "errored" not in r and "state" in r, r


def test_huge_line_is_dropped_and_the_following_lines_are_served():
    huge = b"[" + b"1," * serve.MAX_LINE_BYTES + b"1]"
    replies = _serve_bytes(huge + b"\n" + HELLO + b"\n" + b'{"cmd": "bye"}\n' + HELLO + b"\n")
    assert len(replies) == 2
    assert "limits.line_bytes" in replies[0]["error"] and replies[1]["ok"] is True


def test_huge_last_line_without_newline():
    replies = _serve_bytes(HELLO + b"\n" + b"x" * (serve.MAX_LINE_BYTES * 2))
    assert replies[0]["ok"] is True and "limits.line_bytes" in replies[1]["error"]


def test_text_streams_still_work():
    """io.StringIO (no binary buffer) as the tests of the protocol use it."""
    out = io.StringIO()
    assert serve.serve(io.StringIO('{"cmd": "hello"}\n[[\n'), out) == 0
    first, second = (json.loads(x) for x in out.getvalue().splitlines())
    assert first["ok"] is True and second["ok"] is False


def test_lone_surrogate_in_a_reply_is_escaped_for_the_output_encoding():
    case = {"given": {"cards": {"\ud800": {"kind": "creature", "damage": 1, "hp": 1}},
                      "players": {"A": {"hand": ["\ud800"]}}}, "when": []}
    line = json.dumps({"cmd": "run", "seq": 1, "case": case})     # ASCII: \ud800 escapes
    reply, _ = serve.handle_line(line.encode())
    text = serve._dump(reply, "utf-8")
    text.encode("utf-8")                                           # no UnicodeEncodeError
    assert json.loads(text)["state"]["players"]["A"]["hand"] == ["\ud800"]


def test_reply_that_cannot_be_json_becomes_errored():
    text = serve._dump({"seq": 3, "state": {"x": float("inf")}, "events": [], "result": None})
    reply = json.loads(text)
    assert reply["seq"] == 3 and "cannot be written as JSON" in reply["errored"]["message"]
    reply = json.loads(serve._dump({"ok": True, "x": float("nan")}))
    assert reply["ok"] is False and "cannot be written as JSON" in reply["error"]


def _depth(value) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


_JSON_SCALARS = (st.none() | st.booleans() | st.integers(-2 ** 53 + 1, 2 ** 53 - 1)
                 | st.floats(allow_nan=False, allow_infinity=False)
                 | st.text(alphabet=st.sampled_from('ab"\\[]{}:,\u00e9\ud800'), max_size=8))
_JSON = st.recursive(_JSON_SCALARS,
                     lambda kids: st.lists(kids, max_size=3)
                     | st.dictionaries(st.text(alphabet='a"[]{\\', max_size=3), kids, max_size=3),
                     max_leaves=20)


def _nested(value, levels: int):
    for i in range(levels):
        value = [value] if i % 2 else {"k": value}
    return value


@settings(max_examples=150, deadline=None)
@given(_JSON, st.integers(0, 80))
def test_depth_check_on_raw_text_is_exact(value, extra):
    """The bracket counting on the raw text agrees with the real depth, whatever
    brackets, quotes and backslashes the strings hold."""
    value = _nested(value, extra)
    text = json.dumps(value, ensure_ascii=False)
    assert serve._deeper_than(text, serve.MAX_DEPTH) == (_depth(value) > serve.MAX_DEPTH)


def _well_formed(reply, go_on: bool, request) -> None:
    """Exactly one protocol reply: ``ok: false`` with a message, a hello reply, or a
    run reply carrying the request's seq and one outcome; never our internal error."""
    if reply is None:
        assert go_on is False and isinstance(request, dict) and request.get("cmd") == "bye"
        return
    assert go_on is True
    line = serve._dump(reply)
    assert "\n" not in line
    parsed = json.loads(line)
    if "seq" in parsed:
        assert isinstance(request, dict) and request.get("cmd") == "run"
        assert parsed["seq"] == request["seq"]
        outcomes = {"state", "errored", "skipped"} & set(parsed)
        assert len(outcomes) == 1 or {"state", "refused"} <= set(parsed), parsed
    elif parsed.get("ok") is True:
        assert isinstance(request, dict) and request.get("cmd") == "hello"
    else:
        assert parsed.get("ok") is False and isinstance(parsed.get("error"), str), parsed
        assert not parsed["error"].startswith("internal error"), parsed["error"]


def _parsed(data: bytes):
    try:
        return json.loads(data.decode("utf-8"))
    except ValueError:
        return None


_BYTES = st.one_of(
    st.binary(max_size=200),
    st.lists(st.sampled_from([b"{", b"}", b"[", b"]", b'"', b"\\", b":", b",", b"1", b"-",
                              b"e9", b"9" * 30, b'"cmd"', b'"run"', b'"hello"', b'"seq"',
                              b'"case"', b'"bye"', b"null", b"NaN", b"\xff", b"\xc3\xa9",
                              b"\xed\xa0\x80", b" ", b"\r", b"\n"]), max_size=40).map(b"".join))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_BYTES)
def test_server_fuzz_arbitrary_bytes(data):
    reply, go_on = serve.handle_line(data)
    _well_formed(reply, go_on, _parsed(data))


_CMDS = st.sampled_from(["hello", "run", "bye", "dance", 1, None])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(
    _JSON,
    st.fixed_dictionaries({"cmd": _CMDS}, optional={"seq": _JSON_SCALARS | st.integers(),
                                                    "case": _JSON, "protocol": _JSON_SCALARS,
                                                    "format": _JSON_SCALARS}),
    st.fixed_dictionaries({"cmd": st.just("run"), "seq": st.integers(0, 9),
                           "case": st.fixed_dictionaries({}, optional={
                               "given": _JSON, "when": st.lists(_JSON, max_size=3),
                               "ruleset": _JSON_SCALARS})}),
))
def test_server_fuzz_arbitrary_json(request):
    line = json.dumps(request).encode("ascii")       # lone surrogates as \\ud800 escapes
    reply, go_on = serve.handle_line(line)
    _well_formed(reply, go_on, request)


# ---------------------------------------------------------------------------------------
# the loader: kodex check on hostile files

GOOD_CASE = """
  - id: {id}
    clause: "3.18"
    title: "a valid case"
    given:
      players:
        A: {{hp: 18}}
    when:
      - heal: {{target: A, amount: 5}}
    then:
      players:
        A: {{hp: 20}}
"""
HEAD = "format: hkk-case/1\ncases:\n"


def _bad_case(field: str, value: str, cid: str = "t/bad") -> str:
    return (f'  - id: {cid}\n    clause: "3.18"\n    title: "bad"\n    given:\n'
            f"      {field}: {value}\n    then: {{}}\n")


def _file(*bad: str) -> str:
    return HEAD + GOOD_CASE.format(id="t/good-1") + "".join(bad) + GOOD_CASE.format(id="t/good-2")


def _deep(levels: int) -> str:
    return "[" * levels + "]" * levels


def _alias_bomb() -> str:
    lines = ["    x-a0: &a0 [x, x, x, x, x, x, x, x, x]\n"]
    lines += [f"    x-a{k}: &a{k} [" + ", ".join([f"*a{k - 1}"] * 9) + "]\n" for k in range(1, 9)]
    return (HEAD + '  - id: t/bomb\n    clause: "3.18"\n    title: "bomb"\n    then: {}\n'
            + "".join(lines))


def _merge_chain(n: int) -> str:
    """n anchored mappings, each merging the one before: deep only through aliases."""
    lines = ["    x-m0: &m0 {a: 1}\n"]
    lines += [f"    x-m{k}: &m{k} {{<<: *m{k - 1}, b{k}: 1}}\n" for k in range(1, n)]
    return '  - id: t/merge\n    clause: "3.18"\n    title: "merge"\n    then: {}\n' + "".join(lines)


def _alias_chain(n: int) -> str:
    """n anchored lists, each holding the one before: few nodes, deep through aliases."""
    lines = ["    x-l0: &l0 [1]\n"]
    lines += [f"    x-l{k}: &l{k} [*l{k - 1}]\n" for k in range(1, n)]
    return '  - id: t/alias\n    clause: "3.18"\n    title: "alias"\n    then: {}\n' + "".join(lines)


# (file name, text, what the error says): errors of one case, the others load
CASE_LEVEL = [
    ("int-5000-digits.yaml", _file(_bad_case("seed", "9" * 5_000)), "MAX_INT"),
    ("int-2-60.yaml", _file(_bad_case("seed", str(2 ** 60))), "MAX_INT"),
    ("int-hex.yaml", _file(_bad_case("seed", "0x" + "f" * 20)), "MAX_INT"),
    ("inf.yaml", _file(_bad_case("seed", ".inf")), "not a finite number"),
    ("deep-980.yaml", _file(_bad_case("x-deep", _deep(980))), "MAX_DEPTH"),
    ("deep-block.yaml", _file(_bad_case("x-deep", "\n" + "".join(
        " " * (8 + 2 * i) + f"k{i}:\n" for i in range(200)) + " " * 408 + "x: 1")), "MAX_DEPTH"),
    ("deep-merge-chain.yaml", _file(_merge_chain(100)), "MAX_DEPTH"),
    ("deep-alias-chain.yaml", _file(_alias_chain(100)), "MAX_DEPTH"),
]
FILE_LEVEL = [
    ("nodes.yaml", HEAD + GOOD_CASE.format(id="t/n") + "    tags: [" + "0," * 300_000 + "0]\n",
     "more than 200000 nodes (MAX_NODES)"),
    ("bomb.yaml", _alias_bomb(), "alias bomb"),
]


@pytest.mark.parametrize("name, text, needle", CASE_LEVEL, ids=[c[0] for c in CASE_LEVEL])
def test_loader_case_level_limits_keep_the_other_cases(tmp_path, name, text, needle):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    res = load_files([path], catalog=False)
    assert [c.id for c in res.cases] == ["t/good-1", "t/good-2"], [str(e) for e in res.errors]
    assert res.errors and all(e.pointer.startswith("/cases/1") for e in res.errors)
    assert any(needle in e.message for e in res.errors), [str(e) for e in res.errors]


@pytest.mark.parametrize("name, text, needle", FILE_LEVEL, ids=[c[0] for c in FILE_LEVEL])
def test_loader_file_level_limits(tmp_path, name, text, needle):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    res = load_files([path], catalog=False)
    assert res.cases == []
    [err] = res.errors
    assert needle in err.message and err.file == str(path)


def test_alias_message_only_for_aliases():
    """A file that is merely large never gets the alias-bomb message, a bomb does."""
    res = load_text(FILE_LEVEL[0][1], catalog=False)
    assert "alias" not in res.errors[0].message and "MAX_NODES" in res.errors[0].message
    res = load_text(_alias_bomb(), catalog=False)
    assert "alias bomb" in res.errors[0].message


def test_file_over_the_size_limit_is_not_read(tmp_path, monkeypatch):
    path = tmp_path / "big.yaml"
    with open(path, "wb") as fh:                    # sparse: no disk used
        fh.truncate(50 * 1024 * 1024)
    monkeypatch.setattr(Path, "read_bytes", lambda self: pytest.fail("read"))
    real_open = open

    def no_read_open(file, mode="r", *args, **kwargs):
        assert Path(file) != path, "the file over the limit was opened"
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr("builtins.open", no_read_open)
    res = load_files([path], catalog=False)
    [err] = res.errors
    assert "MAX_FILE_BYTES" in err.message and str(50 * 1024 * 1024) in err.message


def test_load_text_over_the_size_limit():
    text = HEAD + "# " + "é" * (loader.MAX_FILE_BYTES // 2) + "\n"   # 2 bytes a character
    [err] = load_text(text, catalog=False).errors
    assert "MAX_FILE_BYTES" in err.message


_LINE = re.compile(r"^(?P<file>[^\n]+?):(?P<line>\d+): (?P<ptr>(/[^\n]*)?): (?P<msg>.+)$")


def test_kodex_check_names_file_and_limit_without_traceback(tmp_path):
    """The command itself: exit 2, every bad file named with its line and the limit, no
    traceback, the valid cases counted."""
    files = {}
    for name, text, needle in CASE_LEVEL + FILE_LEVEL:
        text = text.replace("t/good-", f"t/{name}/good-")      # ids are unique across files
        (tmp_path / name).write_text(text, encoding="utf-8")
        files[name] = needle
    big = tmp_path / "big.yaml"
    with open(big, "wb") as fh:
        fh.truncate(50 * 1024 * 1024)
    files["big.yaml"] = "MAX_FILE_BYTES"
    (tmp_path / "latin1.yaml").write_bytes(HEAD.encode() + b"# \xe9\n")
    files["latin1.yaml"] = "not UTF-8"
    proc = subprocess.run([sys.executable, "-m", "conformance", "check", str(tmp_path)],
                          capture_output=True, text=True, cwd=ROOT, env=dict(ENV, COLUMNS="400"),
                          timeout=HANG)
    output = proc.stdout + proc.stderr
    assert "Traceback" not in output, output[-3000:]
    assert proc.returncode == 2, output[-3000:]
    lines = [m for m in (_LINE.match(x) for x in output.splitlines()) if m]
    for name, needle in files.items():
        hits = [m for m in lines if Path(m["file"]).name == name and needle in m["msg"]]
        assert hits, f"{name}: no error line naming {needle!r}:\n{output[-3000:]}"
    good = 2 * len(CASE_LEVEL)
    assert f"{good} cases valid" in output


# ---------------------------------------------------------------------------------------
# the loader: fuzzing load_text

_YAMLISH = st.lists(st.sampled_from([
    "format: hkk-case/1\n", "cases:\n", "  - id: a\n", "    clause: '3.18'\n", "    title: t\n",
    "    then: {}\n", "    given: ", "    when: [", "- ", ": ", "[", "]", "{", "}", ",", "&a ", "*a",
    "&b ", "*b", "<<: ", "!!python/object:os.system ", "!!binary ", "!foo ", "? ", "|\n  ",
    "'", '"', "9" * 30, "0x1f", "1e400", ".inf", ".nan", "2001-12-14", "~", "null", "yes",
    "\n", "  ", "    ", "#c\n", "---\n", "...\n", "\t", "\\", "\u00e9", "\ud7ff", "1_000", "12:30",
]), max_size=40).map("".join)

_ERROR = re.compile(r"^[^\n]+:\d+: (/[^\n]*)?: .+", re.S)


def _check_load(text: str) -> None:
    res = load_text(text, name="fuzz.yaml", catalog=False)
    for e in res.errors:
        assert _ERROR.match(str(e)), str(e)
        assert e.file == "fuzz.yaml" and e.line >= 1
    for c in res.cases:
        json.dumps({"given": c.given, "when": c.when, "then": c.then}, allow_nan=False)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=300))
def test_loader_fuzz_arbitrary_text(text):
    _check_load(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_YAMLISH)
def test_loader_fuzz_yamlish(text):
    _check_load(text)


_YAML_SAFE_JSON = st.recursive(          # YAML has no \\ud800 escape: no lone surrogates
    st.none() | st.booleans() | st.integers(-2 ** 70, 2 ** 70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.sampled_from('ab"\\[]{}:,#&*!\u00e9 '), max_size=8),
    lambda kids: st.lists(kids, max_size=3)
    | st.dictionaries(st.text(alphabet='a"[]{\\~/', max_size=3), kids, max_size=3),
    max_leaves=20)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_YAML_SAFE_JSON)
def test_loader_fuzz_values_inside_a_case(value):
    """Any JSON value as a case field: the case loads or is an error of that case only."""
    text = HEAD + GOOD_CASE.format(id="t/good") + textwrap.indent(
        json.dumps({"id": "t/x", "clause": "3.18", "title": "x", "given": value, "then": {}}),
        "  - ")
    res = load_text(text, name="v.yaml", catalog=False)
    assert "t/good" in [c.id for c in res.cases], [str(e) for e in res.errors]
    assert all(e.pointer.startswith("/cases/1") for e in res.errors), [str(e) for e in res.errors]
