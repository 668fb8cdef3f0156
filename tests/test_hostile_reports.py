"""Hostile input to `kodex amend` and `kodex report` (issue 25): whatever sits in the directory
of amended texts, the corpus paths or the results and side files, the command ends in bounded
time and memory with one clear line per problem and exit 2, never a traceback, and nothing is
half-written. Each test was seen to fail before the fix it guards.

Programs that could hang or exhaust memory when the guard is broken (a FIFO, a link to
/dev/zero) run as subprocesses with a memory limit and a deadline, so a regression fails the
test instead of the test session."""
from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conformance import runner
from conformance.atomicio import OutputError
from reports import amendment

ROOT = Path(__file__).resolve().parents[1]
KODEX = ROOT / "conformance" / "kodex"
PART_II = "kodex-part-II.txt"
HANG = 60                                    # seconds: only a hang fails on this
ENV = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONIOENCODING="utf-8")

CASE = """\
format: hkk-case/1
cases:
  - id: "hostile/deep"
    clause: "4.8.4"
    title: "a case at the bottom of a deep tree"
    then: {}
"""


def _amend(argv, capsys):
    rc = amendment.main([str(a) for a in argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


def _limited():
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))    # 1 GiB: /dev/zero cannot win


def _amend_process(argv, tmp_path):
    return subprocess.run([sys.executable, "-m", "conformance", "amend", *map(str, argv),
                           "--out", str(tmp_path / "out")], cwd=tmp_path, env=ENV,
                          capture_output=True, text=True, timeout=HANG, preexec_fn=_limited)


@pytest.fixture
def new_dir(tmp_path):
    d = tmp_path / "new"
    d.mkdir()
    shutil.copy(KODEX / PART_II, d / "part-two-amended.txt")
    return d


# --------------------------------------------------------------------------- kodex amend

@pytest.mark.parametrize("make, needle", [
    (lambda d: os.symlink(d / "loop.txt", d / "loop.txt"), "loop.txt"),
    (lambda d: (d / "folder.txt").mkdir(), "folder.txt: not a regular file"),
    (lambda d: os.symlink(d / "nowhere", d / "dangling.txt"), "dangling.txt"),
], ids=["symlink loop", "folder named *.txt", "dangling link"])
def test_amend_refuses_what_is_no_regular_file(new_dir, tmp_path, capsys, make, needle):
    make(new_dir)
    rc, _out, err = _amend([new_dir, "--out", tmp_path / "out"], capsys)
    assert rc == 2, err
    assert needle in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()            # nothing half-written


def test_amend_refuses_a_fifo_without_waiting_for_it(new_dir, tmp_path):
    os.mkfifo(new_dir / "pipe.txt")
    p = _amend_process([new_dir], tmp_path)
    assert p.returncode == 2, p.stderr
    assert "pipe.txt: not a regular file" in p.stderr and "Traceback" not in p.stderr


def test_amend_refuses_a_link_to_dev_zero(new_dir, tmp_path):
    os.symlink("/dev/zero", new_dir / "zero.txt")
    p = _amend_process([new_dir], tmp_path)
    assert p.returncode == 2, p.stderr[-2000:]
    assert "zero.txt: not a regular file" in p.stderr and "MemoryError" not in p.stderr


def test_amend_refuses_a_text_over_the_size_limit(new_dir, tmp_path, capsys):
    big = new_dir / "big.txt"
    with open(big, "wb") as fh:
        fh.write((KODEX / PART_II).read_bytes())
        fh.truncate(amendment.MAX_DOCUMENT_BYTES + 1)
    rc, _out, err = _amend([new_dir, "--out", tmp_path / "out"], capsys)
    assert rc == 2 and "big.txt" in err and "larger than" in err and "Traceback" not in err


def test_amend_reports_every_bad_entry_one_line_each(new_dir, tmp_path, capsys):
    (new_dir / "folder.txt").mkdir()
    os.symlink(new_dir / "nowhere", new_dir / "dangling.txt")
    rc, _out, err = _amend([new_dir, "--out", tmp_path / "out"], capsys)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert rc == 2 and len(lines) == 2, lines


def test_amend_corpus_a_thousand_folders_deep(new_dir, tmp_path, capsys):
    """`amend --corpus` walks directories iteratively: 990 levels (a RecursionError before)."""
    d = tmp_path / "corpus"
    deep = d
    d.mkdir()
    for _ in range(990):                      # os.makedirs recurses: one level at a time
        deep = deep / "d"
        deep.mkdir()
    (deep / "case.yaml").write_text(CASE, encoding="utf-8")
    try:
        rc, out, err = _amend([new_dir, "--out", tmp_path / "out", "--corpus", d, "--json", "-"],
                              capsys)
        assert "RecursionError" not in err
        assert json.loads(out)["corpus"]["cases"] == 1, err
    finally:
        (deep / "case.yaml").unlink()
        while deep != d:                      # shutil.rmtree recurses too: bottom up
            deep.rmdir()
            deep = deep.parent


# --------------------------------------------------------------------------- kodex report

def _results(n: int = 12, **extra) -> dict:
    """A small results file of `n` corpus cases, all passed."""
    from conformance.loader import load_files
    cases = load_files([ROOT / "conformance" / "corpus" / "kodex-04a-alapfogalmak.yaml"]).cases[:n]
    data = {"schema": "hkk-results/2", "implementation": {"name": "tiny", "version": "1"},
            "ruleset": "kodex", "started": "2026-11-27T00:00:00+00:00",
            "cases": [{"case_id": c.id, "clause": c.clause, "title": c.title,
                       "file": str(c.file), "line": c.line, "outcome": "pass"} for c in cases],
            "totals": runner.tally(["pass"] * len(cases))}
    data.update(extra)
    return data


def _site_bytes(out: Path) -> int:
    return sum(p.stat().st_size for p in out.rglob("*") if p.is_file())


def test_a_build_that_fails_leaves_the_previous_site_whole(tmp_path, monkeypatch):
    """The site is built beside --out and swapped in whole: a build that dies half-way
    (here: on the strength page, after the overview and the case pages) changes nothing."""
    from reports.html import site
    out = tmp_path / "site"
    site.build_site([_results(8)], out)
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}

    def broken(self):
        raise RuntimeError("disk full")
    monkeypatch.setattr(site._Site, "strength_page", broken)
    other = _results(8)
    other["implementation"]["name"] = "second build"
    with pytest.raises(RuntimeError):
        site.build_site([other], out)
    after = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after == before                                   # not one page of the second build
    assert [p.name for p in tmp_path.iterdir()] == ["site"]  # no build directory left behind


def test_a_huge_implementation_name_is_cut_wherever_it_is_shown(tmp_path):
    from reports.html import site
    data = _results(6)
    data["implementation"] = {"name": "N" * 1_000_000, "version": "V" * 100_000}
    out = tmp_path / "site"
    site.build_site([data], out)
    assert _site_bytes(out) < 3_000_000                      # a 1 MB name made a 440 MB site
    assert "N" * (site.MAX_NAME + 1) not in (out / "index.html").read_text(encoding="utf-8")


def test_unknown_fields_are_cut_before_they_become_json_text(tmp_path, monkeypatch):
    """An 80 MB unknown field was turned into JSON text (47 s, 5.4 GB) and then cut: now the
    value is cut first, so no JSON text the report makes is large."""
    from reports.html import site
    big = "x" * 5_000_000
    data = _results(6, **{"x-junk": {"blob": big, "list": [big[:1000]] * 5000,
                                     "deep": [[[[[[[[[[big]]]]]]]]]]}})
    data["cases"][0]["difference"] = {"path": "/x", "expected": big, "actual": [big] * 3}
    data["cases"][0]["outcome"] = "fail"
    made: list[int] = []
    real = json.dumps

    def counting(value, *a, **k):
        text = real(value, *a, **k)
        made.append(len(text))
        return text
    monkeypatch.setattr(site.json, "dumps", counting)
    out = tmp_path / "site"
    site.build_site([data], out)
    assert made and max(made) < 200_000
    assert "x-junk" in (out / "index.html").read_text(encoding="utf-8")


def _set(data: dict, pattern: str, value) -> None:
    """Put ``value`` at ``pattern`` (``*``: the first item of a list, made when missing)."""
    parts = pattern.strip("/").split("/")
    node = data
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        nxt = parts[i + 1] if not last else None
        if part == "*":
            if not node:
                node.append({})
            if last:
                node[0] = value
            node = node[0]
            continue
        if last:
            node[part] = value
        else:
            if not isinstance(node.get(part), (dict, list)):
                node[part] = [] if nxt == "*" else {}
            node = node[part]


def _side_file(kind: str) -> dict:
    if kind == "prove":
        return {"schema": "hkk-prove/1", "policies": ["kodex-102"], "rows": [], "gaps": []}
    if kind == "amendment":
        return {"schema": "hkk-amendment/1", "summary": {}, "changed": [], "moved": [],
                "removed": [], "added": [], "review": {"cases": []}}
    from report_helpers import strength_report
    return strength_report()


def _side_cases():
    from reports.html.site import SIDE_FIELDS
    return [(kind, pattern) for kind, fields in SIDE_FIELDS.items() for pattern, _t in fields]


@pytest.mark.parametrize("kind, pattern", _side_cases())
def test_a_side_file_field_of_the_wrong_type_is_exit_2(tmp_path, capsys, kind, pattern):
    """--prove / --amendment / --strength: a field the pages read, of the wrong type, is named
    (exit 2, nothing written) instead of crashing the report."""
    from conformance import cli
    data = _side_file(kind)
    _set(data, pattern, 7)
    side = tmp_path / f"{kind}.json"
    side.write_text(json.dumps(data), encoding="utf-8")
    results = tmp_path / "r.json"
    results.write_text(json.dumps(_results(2)), encoding="utf-8")
    out = tmp_path / "site"
    rc = cli.main(["report", "--results", str(results), "--out", str(out), f"--{kind}", str(side)])
    err = capsys.readouterr().err
    shown = "/" + "/".join("0" if p == "*" else p for p in pattern.strip("/").split("/"))
    assert rc == 2, err
    assert f"field '{shown}'" in err and str(side) in err and "Traceback" not in err
    assert not out.exists()


def test_a_swap_that_fails_puts_everything_back(tmp_path, monkeypatch):
    """The new site cannot be put in place (here: the last rename fails): the earlier site and
    the files beside it are as they were, and nothing of the new build is left."""
    from reports.html import site
    out = tmp_path / "site"
    site.build_site([_results(6)], out)
    (out / "mine.txt").write_text("mine", encoding="utf-8")
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    real = os.rename

    def rename(src, dst):
        if Path(dst) == out and ".building-" in str(src):    # the new site into its place
            raise OSError(16, "Device or resource busy")
        return real(src, dst)
    monkeypatch.setattr(site.os, "rename", rename)
    with pytest.raises(OutputError, match="earlier site is unchanged"):    # exit 5
        site.build_site([_results(3)], out)
    after = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after == before
    assert [p.name for p in tmp_path.iterdir()] == ["site"]


@pytest.mark.parametrize("umask, mode", [(0o022, 0o755), (0o027, 0o750), (0o077, 0o700)])
def test_the_site_directory_gets_the_mode_mkdir_would_give(tmp_path, umask, mode):
    """It is built in a temporary directory (created 0700) and renamed into place: a web server
    running as another user could not read the site. New or replaced, it gets 0777 less the
    umask, as its pages do."""
    from reports.html import site
    out = tmp_path / "site"
    old = os.umask(umask)
    try:
        site.build_site([_results(2)], out, case_pages=False)
        assert oct(out.stat().st_mode & 0o7777) == oct(mode)
        os.chmod(out, 0o700)
        site.build_site([_results(2)], out, case_pages=False)      # replaced whole
        assert oct(out.stat().st_mode & 0o7777) == oct(mode)
        assert oct((out / "index.html").stat().st_mode & 0o777) == oct(0o666 & ~umask)
    finally:
        os.umask(old)


def test_the_working_directory_is_never_the_site_directory(tmp_path, monkeypatch):
    from reports.html import site
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(site.ReportInputError, match="directory of its own"):
        site.build_site([_results(2)], ".")
    with pytest.raises(site.ReportInputError, match="directory of its own"):
        site.build_site([_results(2)], tmp_path.parent)
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == "mine"


@pytest.mark.parametrize("spoil, needle", [
    (lambda d: d["cases"][1].update(outcome="mystery"), "/cases/1/outcome"),
    (lambda d: d["cases"].append(dict(d["cases"][0])), "/cases/4/case_id: the case id"),
])
def test_report_refuses_unknown_outcomes_and_ids_twice(tmp_path, capsys, spoil, needle):
    """`kodex report` reads a results file as every command does
    (conformance.results_io.read_results): an unknown outcome or a case twice is exit 2, the
    file and the JSON pointer named, nothing written."""
    from conformance import cli
    data = _results(4)
    spoil(data)
    results = tmp_path / "r.json"
    results.write_text(json.dumps(data), encoding="utf-8")
    out = tmp_path / "site"
    rc = cli.main(["report", "--results", str(results), "--out", str(out)])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert str(results) in err and needle in err and "Traceback" not in err
    assert not out.exists()
