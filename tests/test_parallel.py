"""In-process runs over worker processes (conformance/parallel.py, `kodex run --jobs N`).

Checked: the outcomes are those of one process, in the same order; a hanging case times out
inside its worker; a worker that dies leaves its remaining cases `error` with the way it ended
and the other workers' cases stand; a harness that stops early kills and reaps its workers;
`kodex run` without --jobs uses them for a large selection and gives the same results file.
"""
from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conformance import parallel
from conformance.loader import load_files
from conformance.runner import run_cases

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(not parallel.available(), reason="no fork on this platform")


def _verdicts(report):
    return [(o.case_id, o.outcome, o.difference, o.message, o.ruleset) for o in report.outcomes]


@pytest.fixture(scope="module")
def corpus():
    return load_files().cases


def test_two_workers_give_the_outcomes_of_one_process(corpus):
    one = run_cases(corpus, progress=False)
    two = run_cases(corpus, progress=False, jobs=2)
    assert _verdicts(two) == _verdicts(one)
    assert two.totals == one.totals and one.totals.get("pass") == len(corpus)


def test_a_failing_case_fails_the_same_in_a_worker(corpus):
    case = next(c for c in corpus if isinstance(c.then, dict) and "players" in c.then)
    broken = dataclasses.replace(case, then={**case.then, "players": {"A": {"hp": 12345}}})
    cases = [broken, *corpus[:9]]
    one, three = run_cases(cases, progress=False), run_cases(cases, progress=False, jobs=3)
    assert _verdicts(three) == _verdicts(one)
    assert three.outcomes[0].outcome == "fail" and three.outcomes[0].difference


def test_a_hanging_case_times_out_inside_its_worker(corpus, monkeypatch):
    from model import engine
    slow = corpus[3].id
    real = engine.run_case

    def run_case(given, when, ruleset="kodex", version=1):
        if when is corpus[3].when:
            time.sleep(30)
        return real(given, when, ruleset=ruleset)
    monkeypatch.setattr(engine, "run_case", run_case)
    t0 = time.monotonic()
    report = run_cases(corpus[:8], progress=False, jobs=2, timeout=0.5)
    assert time.monotonic() - t0 < 10
    by_id = {o.case_id: o for o in report.outcomes}
    assert by_id[slow].outcome == "timeout"
    assert all(o.outcome == "pass" for o in report.outcomes if o.case_id != slow)


def _lost(case, reason):
    return ("lost", case, reason)


def test_a_worker_that_dies_leaves_its_cases_error_and_the_rest_stand():
    def run_one(n):
        if n == 4:                                   # worker 0 runs 0, 2, 4, 6, 8
            os.kill(os.getpid(), signal.SIGKILL)
        return ("ran", n, os.getpid())
    got = list(parallel.run_forked(list(range(10)), run_one, 2, _lost))
    assert [g[1] for g in got] == list(range(10))
    assert [g[0] for g in got] == ["ran"] * 4 + ["lost", "ran", "lost", "ran", "lost", "ran"]
    assert got[4][2] == got[6][2] == got[8][2]                  # one reason: how the worker ended
    assert all("killed by SIGKILL" in g[2] for g in got if g[0] == "lost")
    assert all(g[0] == "ran" for g in got if g[1] % 2)          # the other worker's cases stand


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_harness_that_stops_early_kills_and_reaps_its_workers():
    def run_one(n):
        if n >= 2:
            time.sleep(60)                           # both workers hang after their first case
        return ("ran", n, os.getpid())
    it = parallel.run_forked(list(range(6)), run_one, 2, _lost)
    first, second = next(it), next(it)
    pids = {first[2], second[2]}
    assert len(pids) == 2
    t0 = time.monotonic()
    it.close()
    assert time.monotonic() - t0 < 5
    assert all(_gone(pid) for pid in pids)


def test_kodex_run_uses_workers_by_default_and_writes_the_same_results(tmp_path):
    assert parallel.default_jobs(parallel.PARALLEL_MIN_CASES - 1) == 1
    assert parallel.default_jobs(parallel.PARALLEL_MIN_CASES) == min(parallel.usable_cores(),
                                                                     parallel.MAX_DEFAULT_JOBS)
    out = {}
    for name, extra in (("auto", []), ("one", ["--jobs", "1"])):
        path = tmp_path / f"{name}.json"
        proc = subprocess.run([sys.executable, "-m", "conformance", "run", "-q", "--json", str(path),
                               *extra], cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        data = json.loads(path.read_text(encoding="utf-8"))
        out[name] = [(c["case_id"], c["outcome"], c.get("difference")) for c in data["cases"]]
    assert out["auto"] == out["one"] and len(out["one"]) > parallel.PARALLEL_MIN_CASES


SLOW_RUN = """
import sys, time
from model import engine
real = engine.run_case
def slow(*a, **k):                      # every case takes 10 ms longer: the run lasts seconds
    time.sleep(0.01)
    return real(*a, **k)
engine.run_case = slow
from conformance.cli import main
sys.exit(main(["run", "-q", "--jobs", "2"]))
"""


def _children(pid: int) -> list[str]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return out.split()


@pytest.mark.parametrize("sig,status,group", [(signal.SIGINT, 130, True), (signal.SIGTERM, 143, False)])
def test_an_interrupted_run_stops_its_workers(sig, status, group):
    """Ctrl-C reaches the whole process group (the workers ignore it, the harness kills them);
    SIGTERM reaches the harness alone. Either way: the status a shell reports, nothing left."""
    proc = subprocess.Popen([sys.executable, "-c", SLOW_RUN], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 30
    while len(_children(proc.pid)) < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)
    workers = _children(proc.pid)
    assert len(workers) == 2, "the run never had its two workers"
    time.sleep(0.2)                                   # the workers at work
    t0 = time.monotonic()
    if group:
        os.killpg(proc.pid, sig)
    else:
        proc.send_signal(sig)
    _out, err = proc.communicate(timeout=30)
    assert time.monotonic() - t0 < 5, "the harness waited for its workers to finish"
    assert proc.returncode == status, err
    assert b"Traceback" not in err
    left = subprocess.run(["pgrep", "-g", str(proc.pid)], capture_output=True, text=True)
    assert left.stdout.strip() == "", left.stdout
    assert all(_gone(int(pid)) for pid in workers)
