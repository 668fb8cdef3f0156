"""Results files from outside are hostile input too (issue 25): every command that takes
one (`kodex diff`, `kodex coverage --results`, `kodex merge`; `kodex report` through the
same reader, conformance.results_io.read_results) refuses a malformed, duplicated,
inconsistent, non-strict, oversized or non-regular file with one line naming the file and
the JSON pointer (exit 2), in bounded time, never with a traceback; names and ids from a
valid file reach the terminal with their control characters escaped."""
from __future__ import annotations

import copy
import json
import os
import threading
import time
from pathlib import Path

import pytest

from conformance import cli, results_io, runner
from conformance.infile import InputFileError

CASE_FILE = """\
format: hkk-case/1
cases:
  - id: "hr/heal-stops-at-cap"
    clause: "3.18"
    title: "Healing never lifts Ep above the maximum"
    given: {players: {A: {hp: 18}}}
    when: [{heal: {target: A, amount: 5}}]
    then: {players: {A: {hp: 20}}}
"""


def _case(cid: str, outcome: str, clause: str = "3.18") -> dict:
    return {"case_id": cid, "clause": clause, "also": [], "title": cid, "file": "x.yaml",
            "line": 1, "outcome": outcome, "difference": None, "message": "",
            "ruleset": "kodex", "duration_ms": 1.0, "traceback": None, "observes": ["state"],
            "unsupported": []}


def results(*cases: dict, **extra) -> dict:
    data = {"schema": "hkk-results/2", "kit": {"name": "hkk-kodex", "version": "0.1.0"},
            "implementation": {"name": "impl", "version": "1"},
            "profile": ["state"], "profile_declared": False, "ruleset": "kodex",
            "started": "2026-11-27T00:00:00+00:00", "finished": "2026-11-27T00:00:01+00:00",
            "duration_ms": 10.0, "gave_up": None, "unavailable": None,
            "cases": list(cases), "totals": runner.tally(c["outcome"] for c in cases),
            "profiles": runner.profile_tallies(cases)}
    data.update(extra)
    return data


def write(path: Path, data) -> Path:
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture
def ref(tmp_path) -> Path:
    return write(tmp_path / "ref.json", results(_case("hr/a", "pass"), _case("hr/b", "pass")))


@pytest.fixture
def corpus(tmp_path) -> Path:
    return write(tmp_path / "cases.yaml", CASE_FILE)


def commands(path: Path, ref: Path, corpus: Path, tmp_path: Path) -> dict[str, list[str]]:
    """Every command that reads ``path`` as a results file."""
    return {"diff": ["diff", str(ref), str(path)],
            "diff-old": ["diff", str(path), str(ref)],
            "coverage": ["coverage", str(corpus), "--results", str(path),
                         "--out", str(tmp_path / "cov")],
            "merge": ["merge", str(path), "--json", str(tmp_path / "merged.json")],
            "report": ["report", "--results", str(path), "--out", str(tmp_path / "site"),
                       "--no-strength"]}


def refused_everywhere(capsys, path, ref, corpus, tmp_path, needle: str) -> None:
    for name, argv in commands(path, ref, corpus, tmp_path).items():
        rc = cli.main(argv)
        captured = capsys.readouterr()
        out = captured.out + captured.err
        assert rc == 2, (name, out)
        assert "Traceback" not in out, (name, out)
        assert str(path) in out and needle in out, (name, out)
    assert not (tmp_path / "merged.json").exists()
    assert not (tmp_path / "cov").exists()
    assert not (tmp_path / "site").exists()


# ---------------------------------------------------------------- malformed documents

MALFORMED = {
    "case-not-an-object": (lambda d: d["cases"].__setitem__(0, "hr/a"), "/cases/0"),
    "clause-an-object": (lambda d: d["cases"][0].__setitem__("clause", {"x": 1}),
                         "/cases/0/clause"),
    "implementation-a-string": (lambda d: d.__setitem__("implementation", "impl"),
                                "/implementation"),
    "outcome-rich-markup": (lambda d: d["cases"][1].__setitem__("outcome", "[/]"),
                            "/cases/1/outcome"),
    "traceback-an-object": (lambda d: d["cases"][0].__setitem__("traceback", {"a": 1}),
                            "/cases/0/traceback"),
    "cases-not-a-list": (lambda d: d.__setitem__("cases", {"hr/a": "pass"}), "/cases"),
    "totals-disagree": (lambda d: d["totals"].__setitem__("pass", 3), "/totals/pass"),
    "verdicts-disagree": (lambda d: d.__setitem__("verdicts", 7), "/verdicts"),
    "skip-reasons-disagree": (lambda d: d.__setitem__("skip_reasons", {"verb:attack": 1}),
                              "/skip_reasons/verb:attack"),
    "message-too-long": (lambda d: d["cases"][0].__setitem__("message", "m" * 5000),
                         "/cases/0/message"),
    "name-too-long": (lambda d: d["implementation"].__setitem__("name", "n" * 300),
                      "/implementation/name"),
    "name-a-million-long": (lambda d: d["implementation"].__setitem__("name", "n" * 1_000_000),
                            "/implementation/name"),
    "not-a-results-schema": (lambda d: d.__setitem__("schema", "hkk-results/9"), "/schema"),
}


@pytest.mark.parametrize("schema", ["hkk-results/2", "hkk-results/1"])
@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_results_file_is_one_line_exit_2(capsys, tmp_path, ref, corpus, name, schema):
    """``hkk-results/1`` files went unchecked: tracebacks (a rich markup error for "[/]")."""
    change, pointer = MALFORMED[name]
    data = results(_case("hr/a", "pass"), _case("hr/b", "fail"), schema=schema)
    change(data)
    if name != "totals-disagree" and isinstance(data.get("cases"), list) and \
            all(isinstance(c, dict) and isinstance(c.get("outcome"), str) for c in data["cases"]):
        data["totals"] = runner.tally(c["outcome"] for c in data["cases"])
    bad = write(tmp_path / "bad.json", data)
    with pytest.raises(InputFileError, match=f"^{bad}: {pointer}[/:]"):
        results_io.read_results(bad)
    refused_everywhere(capsys, bad, ref, corpus, tmp_path, pointer)


def test_a_duplicated_case_id_cannot_hide_a_failure(capsys, tmp_path, ref, corpus):
    """`fail` then `pass` of one id: diff and coverage used to keep the last (a pass)."""
    dup = write(tmp_path / "dup.json", results(_case("hr/a", "fail"), _case("hr/b", "pass"),
                                               _case("hr/a", "pass")))
    with pytest.raises(InputFileError, match=r"/cases/2/case_id: the case id 'hr/a' is also "
                                             r"at /cases/0"):
        results_io.read_results(dup)
    refused_everywhere(capsys, dup, ref, corpus, tmp_path, "/cases/2/case_id")


def test_every_pass_gone_is_not_exit_0(capsys, tmp_path, ref):
    """`kodex diff ref.json empty.json`: the passes lost are no verdict (exit 3), said so."""
    empty = write(tmp_path / "empty.json", results())
    assert cli.main(["diff", str(ref), str(empty)]) == 3
    out = capsys.readouterr().out
    assert "2 passes lost without a verdict" in out and "2 no longer in the results" in out
    assert cli.main(["diff", str(ref), str(empty), "--json"]) == 3
    assert json.loads(capsys.readouterr().out)["lost"] == {"not_implemented": 0, "not_run": 0,
                                                          "removed": 2}
    # a case that failed and is gone loses no pass
    fails = write(tmp_path / "fails.json", results(_case("hr/a", "fail")))
    assert cli.main(["diff", str(fails), str(empty)]) == 0


# ---------------------------------------------------------------- strict JSON, bounds

@pytest.mark.parametrize("text, needle", [
    ('{"schema": "hkk-results/2", "duration_ms": NaN}', "NaN is not JSON"),
    ('{"schema": "hkk-results/2", "duration_ms": Infinity}', "Infinity is not JSON"),
    ('{"schema": "hkk-results/2", "duration_ms": 1e999}', "too large for a double"),
    ('{"schema": "hkk-results/2", "implementation": {"name": "x\\ud800"}}',
     "/implementation/name: a lone surrogate"),
    ('{"schema": "hkk-results/2", "x\\udc00y": 1}', "/x\\udc00y: a lone surrogate"),
    ('{"schema": "hkk-results/2", "cases": ' + "[" * 5000 + "]" * 5000 + "}",
     "nested deeper than 64 levels"),
    ('{"schema": "hkk-results/2", ', "not JSON"),
])
def test_non_strict_json_is_refused(capsys, tmp_path, ref, corpus, text, needle):
    bad = write(tmp_path / "bad.json", text)
    with pytest.raises(InputFileError, match="^" + str(bad)) as info:
        results_io.read_results(bad)
    assert needle in str(info.value) and "\n" not in str(info.value)
    refused_everywhere(capsys, bad, ref, corpus, tmp_path, needle)


def test_a_valid_pair_is_still_accepted_with_a_surrogate_pair(tmp_path):
    """Only a *lone* surrogate is refused: an escaped pair is one character."""
    data = results(_case("hr/\\ud83d\\ude00", "pass"))
    path = tmp_path / "ok.json"
    path.write_text(json.dumps(data).replace("\\\\ud83d\\\\ude00", "\\ud83d\\ude00"),
                    encoding="utf-8")
    assert results_io.read_results(path)["cases"][0]["case_id"] == "hr/\U0001f600"


def test_a_results_file_over_the_limit_is_not_read(tmp_path, monkeypatch, capsys, ref, corpus):
    big = write(tmp_path / "big.json", results(*[_case(f"hr/{i}", "pass") for i in range(20)]))
    limit = ref.stat().st_size + 10
    monkeypatch.setattr(results_io, "MAX_RESULTS_BYTES", limit)
    read = []
    real_read = os.read
    monkeypatch.setattr(os, "read", lambda fd, n: read.append(n) or real_read(fd, n))
    with pytest.raises(InputFileError, match=f"bytes; the results file .* may have at most "
                                             f"{limit:,}"):
        results_io.read_results(big)
    assert not read                              # refused before a byte was read
    monkeypatch.undo()
    monkeypatch.setattr(results_io, "MAX_RESULTS_BYTES", limit)
    refused_everywhere(capsys, big, ref, corpus, tmp_path, "(the limit)")


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "directory"])
def test_a_results_path_that_is_no_regular_file_is_refused_at_once(capsys, tmp_path, ref,
                                                                   corpus, kind):
    """A FIFO nobody writes to used to hang the command; /dev/zero to read without end."""
    path = tmp_path / "r.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    else:
        path.mkdir()
    done = threading.Event()
    box = {}

    def go():
        t0 = time.monotonic()
        try:
            results_io.read_results(path)
        except InputFileError as exc:
            box["error"] = str(exc)
        box["seconds"] = time.monotonic() - t0
        done.set()

    threading.Thread(target=go, daemon=True).start()
    if not done.wait(20):
        if kind == "fifo":                  # let the thread go: open the FIFO's other end
            with open(path, "wb"):
                pass
        pytest.fail(f"reading a {kind} did not end")
    assert "must be a regular file" in box["error"]
    refused_everywhere(capsys, path, ref, corpus, tmp_path, "must be a regular file")


# ---------------------------------------------------------------- terminal escapes

def test_names_and_ids_reach_the_terminal_escaped(capsys, tmp_path, ref, corpus):
    evil = "\x1b]0;owned\x07\x1b[2J"
    data = results(_case(f"hr/a{evil}", "fail"), _case("hr/b", "pass"),
                   implementation={"name": f"impl{evil}", "version": f"1{evil}"})
    old = copy.deepcopy(data)
    old["cases"][0]["outcome"] = "pass"
    old["totals"] = runner.tally(c["outcome"] for c in old["cases"])
    new = write(tmp_path / "new.json", data)
    old_path = write(tmp_path / "old.json", old)
    assert cli.main(["diff", str(old_path), str(new)]) == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "\\x1b]0;owned\\x07" in out
    assert cli.main(["coverage", str(corpus), "--results", str(new),
                     "--out", str(tmp_path / "cov")]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "impl\\x1b]0;owned" in out


# ---------------------------------------------------------------- the limits as documented

def test_the_documented_limits_are_the_codes():
    """docs/spec/hkk-protocol-additions.md states every limit; a changed constant must change
    the page (and the results schema states the kept lengths)."""
    from conformance import bounds, parallel, protocol
    page = (Path(__file__).resolve().parents[1] / "docs" / "spec" /
            "hkk-protocol-additions.md").read_text(encoding="utf-8")
    mib = 1024 * 1024
    expected = [
        f"| `message` | {bounds.MAX_MESSAGE_CHARS:,} characters",
        f"| `traceback` | {bounds.MAX_TRACEBACK_CHARS:,} characters",
        f"| `difference.path` | {bounds.MAX_PATH_CHARS:,} characters",
        f"JSON text has at most {bounds.MAX_VALUE_CHARS:,} characters and it nests at most "
        f"{bounds.MAX_VALUE_DEPTH} levels",
        f"| `unsupported` | {bounds.MAX_UNSUPPORTED} entries of {bounds.MAX_NAME_CHARS} characters",
        f"`name`, `version`, `language` at most {bounds.MAX_NAME_CHARS} characters each, "
        f"`homepage` {bounds.MAX_HOMEPAGE_CHARS:,}, the whole object "
        f"{bounds.MAX_IMPLEMENTATION_CHARS:,} characters of JSON",
        f"at most {bounds.MAX_HELLO_LIST:,} entries of at most {bounds.MAX_NAME_CHARS} characters",
        f"| nesting of a reply or of `hello` | {protocol.MAX_REPLY_DEPTH} levels",
        f"| {results_io.MAX_RESULTS_BYTES // mib} MiB, {results_io.MAX_RESULTS_DEPTH} levels; "
        "checked as",
        f"file | {results_io.MAX_SIDE_FILE_BYTES // mib} MiB, {results_io.MAX_SIDE_FILE_DEPTH} "
        "levels |",
        f"{runner.MAX_XFAIL_BYTES // mib} MiB; at most {runner.MAX_XFAIL_ENTRIES:,} entries, of "
        f"which at most {runner.MAX_XFAIL_GLOBS:,} globs, each at most "
        f"{runner.MAX_XFAIL_ENTRY_CHARS:,} characters",
        f"plus {parallel.WORKER_GRACE:g} s while its next outcome is awaited",
    ]
    text = " ".join(page.split())
    missing = [e for e in expected if " ".join(e.split()) not in text]
    assert missing == []
    schema = json.loads(results_io.SCHEMA_PATH.read_text(encoding="utf-8"))
    case = schema["$defs"]["case"]["properties"]
    assert case["message"]["maxLength"] == bounds.MAX_MESSAGE_CHARS
    assert case["traceback"]["maxLength"] == bounds.MAX_TRACEBACK_CHARS
    assert case["unsupported"]["maxItems"] == bounds.MAX_UNSUPPORTED
    impl = schema["properties"]["implementation"]["properties"]
    assert impl["name"]["maxLength"] == bounds.MAX_NAME_CHARS
    assert impl["command"]["maxLength"] == bounds.MAX_COMMAND_CHARS


def test_an_old_results_file_is_read_as_leniently_as_it_was_written(tmp_path):
    """hkk-results/1 predates the schema file: only `schema` and `cases` are required, its
    totals need not list every outcome; its cases are checked like any (types, ids, totals)."""
    old = write(tmp_path / "v1.json", {"schema": "hkk-results/1", "implementation": {"name": "x"},
                                       "cases": [_case("hr/a", "pass")], "totals": {"pass": 1}})
    assert results_io.read_results(old)["cases"][0]["case_id"] == "hr/a"
    bare = write(tmp_path / "v1-bare.json", {"schema": "hkk-results/1", "cases": []})
    assert results_io.read_results(bare)["cases"] == []
    bad = write(tmp_path / "v1-bad.json", {"schema": "hkk-results/1",
                                           "cases": [_case("hr/a", "pass")], "totals": {"pass": 2}})
    with pytest.raises(InputFileError, match="/totals/pass: 2, but 1"):
        results_io.read_results(bad)
