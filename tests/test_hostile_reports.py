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
