"""Outputs that cannot be written (issue 25): a full disk, a read-only place, a file where a
folder should be, a file-size limit. Every command says so in one line naming the path and
the reason, exits 5 (a status no command uses for anything else; 1 meant "failures" or
"regression"), never with a traceback, and leaves nothing half-written: the file that was
there stays whole, no temporary file is left, a stream that cannot go on is removed."""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from conformance import atomicio, cli, runner

ROOT = Path(__file__).resolve().parents[1]
CASES = """\
format: hkk-case/1
cases:
  - id: "ho/heal"
    clause: "3.18"
    title: "Healing stops at the maximum"
    given: {players: {A: {hp: 18}}}
    when: [{heal: {target: A, amount: 5}}]
    then: {players: {A: {hp: 20}}}
"""


@pytest.fixture
def place(tmp_path) -> dict:
    corpus = tmp_path / "cases.yaml"
    corpus.write_text(CASES, encoding="utf-8")
    results = tmp_path / "r.json"
    assert cli.main(["run", "-q", str(corpus), "--json", str(results)]) == 0
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where a folder should be\n", encoding="utf-8")
    amended = tmp_path / "amended"           # one document, unchanged
    amended.mkdir()
    first = sorted((ROOT / "conformance" / "kodex").glob("*.txt"))[0]
    (amended / first.name).write_bytes(first.read_bytes())
    return {"corpus": corpus, "results": results, "blocker": blocker, "amended": amended}


COMMANDS = {
    "run --json": lambda p, out: ["run", "-q", str(p["corpus"]), "--json", out],
    "run --junit": lambda p, out: ["run", "-q", str(p["corpus"]), "--junit", out],
    "run --ndjson": lambda p, out: ["run", "-q", str(p["corpus"]), "--ndjson", out],
    "coverage": lambda p, out: ["coverage", str(p["corpus"]), "--results", str(p["results"]),
                                "--out", out],
    "merge": lambda p, out: ["merge", str(p["results"]), "--json", out],
    "diff --json": lambda p, out: ["diff", str(p["results"]), str(p["results"]), "--json", out],
    "report": lambda p, out: ["report", "--results", str(p["results"]), "--out", out,
                              "--no-strength"],
    "amend": lambda p, out: ["amend", str(p["amended"]), "--out", out],
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_an_output_under_a_file_is_exit_5_in_one_line(place, capsys, name):
    out = str(place["blocker"] / "out")
    capsys.readouterr()
    rc = cli.main(COMMANDS[name](place, out))
    captured = capsys.readouterr()
    err = captured.err
    assert rc == atomicio.EXIT_OUTPUT == 5, captured.out + err
    assert "Traceback" not in captured.out + err
    command = name.split()[0]
    line = next(x for x in err.splitlines() if "cannot write" in x)
    assert line.startswith(f"kodex {command}: cannot write {place['blocker']}/out")
    assert "Not a directory" in line
    assert place["blocker"].read_text(encoding="utf-8") == "a file where a folder should be\n"


def _limited(args: list[str], cwd: Path, limit: int, **env: str) -> subprocess.CompletedProcess:
    """``kodex ARGS`` with a file-size limit of ``limit`` bytes (RLIMIT_FSIZE: writing beyond
    it fails with EFBIG, as on a full disk). It writes no bytecode: Python writes a ``.pyc``
    with one unchecked write, so under the limit a module compiled afresh (the first run after
    a change) left a cut ``.pyc`` in the session's shared bytecode cache ("marshal data too
    short" in every later process)."""
    def limit_size():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    env = dict(os.environ, PYTHONPATH=str(ROOT), KODEX_NO_CACHE="1", PYTHONDONTWRITEBYTECODE="1",
               **env)
    return subprocess.run([sys.executable, "-m", "conformance", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300, preexec_fn=limit_size)


@pytest.mark.parametrize("flag", ["--json", "--junit", "--ndjson"])
def test_a_file_size_limit_leaves_the_file_before_whole(tmp_path, flag):
    """The results of 8 cases are a few KB: a 1,000-byte limit stops the writing half-way."""
    corpus = tmp_path / "cases.yaml"
    corpus.write_text("format: hkk-case/1\ncases:\n" + "".join(
        CASES.split("cases:\n", 1)[1].replace("ho/heal", f"ho/heal-{i}") for i in range(8)),
        encoding="utf-8")
    out = tmp_path / "out"
    out.write_text("the previous run's\n", encoding="utf-8")
    proc = _limited(["run", "-q", str(corpus), flag, str(out)], tmp_path, 1_000)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 5, output[-2000:]
    assert "Traceback" not in output
    assert f"kodex run: cannot write {out}: File too large" in output
    if flag == "--ndjson":           # a stream is new at the start; one that cannot go on goes
        assert not out.exists()
    else:                            # the file before stays whole
        assert out.read_text(encoding="utf-8") == "the previous run's\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cases.yaml"] + (
        [] if flag == "--ndjson" else ["out"])


def _files(folder: Path) -> dict:
    return {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_report_under_a_file_size_limit_is_exit_5_and_the_earlier_site_stays_whole(place, tmp_path):
    """It was a traceback (OSError: [Errno 27] File too large from a page) and exit 1."""
    site = tmp_path / "site"
    assert cli.main(["report", "--results", str(place["results"]), "--out", str(site),
                     "--no-strength"]) == 0
    before = _files(site)
    for out in (site, tmp_path / "new-site"):
        proc = _limited(["report", "--results", str(place["results"]), "--out", str(out),
                         "--no-strength"], tmp_path, 4_096)
        output = proc.stdout + proc.stderr
        assert proc.returncode == 5, output[-2000:]
        assert "Traceback" not in output
        line = next(x for x in output.splitlines() if "cannot write" in x)
        assert line.startswith(f"kodex report: cannot write {out}/") and \
            line.endswith(": File too large"), line
    assert _files(site) == before                        # the earlier site, whole
    assert not (tmp_path / "new-site").exists()
    assert not [p.name for p in tmp_path.iterdir() if ".building-" in p.name or ".old-" in p.name]


def test_amend_under_a_file_size_limit_is_exit_5_and_leaves_no_scratch(place, tmp_path):
    """Its scratch copy of the texts (in the temporary directory) met the limit: a traceback
    (OSError: [Errno 27] File too large), exit 1."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    out = tmp_path / "amout"
    proc = _limited(["amend", str(place["amended"]), "--out", str(out)], tmp_path, 4_096,
                    TMPDIR=str(scratch))
    output = proc.stdout + proc.stderr
    assert proc.returncode == 5, output[-2000:]
    assert "Traceback" not in output
    line = next(x for x in output.splitlines() if "cannot write" in x)
    name = sorted(place["amended"].iterdir())[0]
    assert line.startswith(f"kodex amend: cannot write {scratch}/kodex-amend-"), line
    assert line.endswith(f"(the scratch copy of {name}): File too large"), line
    assert list(scratch.iterdir()) == [] and not out.exists()


def test_the_ndjson_stream_never_writes_through_a_link(place, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    stream = tmp_path / "s.ndjson"
    stream.symlink_to(victim)
    assert cli.main(["run", "-q", str(place["corpus"]), "--ndjson", str(stream)]) == 0
    assert victim.read_text(encoding="utf-8") == "precious\n"
    lines = [json.loads(x) for x in stream.read_text(encoding="utf-8").splitlines()]
    assert [x["type"] for x in lines] == ["case", "totals"] and not stream.is_symlink()


def test_outputs_are_strict_json_whatever_the_strings(tmp_path):
    """A lone surrogate that reaches a string (a file name or an argument that is not UTF-8)
    is written as U+FFFD; NaN is never written."""
    path = tmp_path / "x.json"
    atomicio.write_json(path, {"name": "bad\udcff name"})
    assert json.loads(path.read_text(encoding="utf-8")) == {"name": "bad\ufffd name"}
    with pytest.raises(ValueError):
        atomicio.json_text({"x": float("nan")})
    report = runner.unavailable_report([], "gone", command="impl \udcff")
    report.write_json(path)
    assert json.loads(path.read_text(encoding="utf-8"))["implementation"] == \
        {"command": "impl \ufffd"}
