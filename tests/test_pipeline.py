"""Several requests in flight (docs/spec/hkk-protocol-additions.md, "Requests in
flight") and ``kodex run --jobs N``: the harness (conformance/protocol.py,
conformance/runner.py) sends ahead only to an implementation that declares
``pipeline`` in ``hello``, matches replies by ``seq``, keeps the cases' order,
times out the right case when one hangs in the middle of a window, and reports
every case in flight when the program crashes: none is lost, none passes
without having been answered."""
from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conformance import runner
from conformance.loader import Case
from conformance.protocol import ProtocolClient, ProtocolError, ProtocolPool

ROOT = Path(__file__).resolve().parents[1]
SERVE_CMD = f"{shlex.quote(sys.executable)} -m conformance serve"

from tiny_corpus import tiny_cases

# An implementation for these tests. argv: PIPELINE BATCH LOG [MARKER]
# - hello declares `pipeline: PIPELINE` (none when 0);
# - it reads requests and answers them BATCH at a time, the batch in reverse
#   order (so replies come out of order), answering a smaller batch when no
#   request comes within 0.2 s;
# - for every request it logs to LOG, as it answers it, whether a request it
#   has not read yet is waiting (within 0.05 s: "ahead") or not ("alone"): a
#   harness that waits for each reply can never be "ahead";
# - a batch holding a case whose id starts with "crash" makes it exit without
#   answering any of the batch (so several requests are in flight); with
#   MARKER, it first creates that file, and a program that finds the file at
#   its start exits before hello (it cannot be started again);
# - "hang": it stops answering (sleeps) when it reaches that case in its batch;
# - "stray": the reply carries a seq of no request;
# - "slow": the reply comes after 0.4 s.
PIPE_IMPL = textwrap.dedent("""\
    import json, os, select, sys, time
    PIPELINE, BATCH, LOG = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    MARKER = sys.argv[4] if len(sys.argv) > 4 else None
    if MARKER and os.path.exists(MARKER):
        sys.exit(7)
    buf = b""
    def waiting():
        return b"\\n" in buf or bool(select.select([0], [], [], 0.05)[0])
    def readline(timeout=None):
        global buf
        while b"\\n" not in buf:
            if timeout is not None and not select.select([0], [], [], timeout)[0]:
                return None
            chunk = os.read(0, 65536)
            if not chunk:
                return b""
            buf += chunk
        line, _, buf = buf.partition(b"\\n")
        return line
    def out(obj):
        sys.stdout.write(json.dumps(obj) + "\\n")
        sys.stdout.flush()
    log = open(LOG, "a")
    batch = []
    def answer():
        if any(req["case"]["id"].startswith("crash") for req in batch):
            if MARKER:
                open(MARKER, "w").close()
            os._exit(3)
        for req in reversed(batch):
            seq, cid = req["seq"], req["case"]["id"]
            log.write(f"{cid} {'ahead' if waiting() else 'alone'}\\n")
            log.flush()
            if cid.startswith("hang"):
                time.sleep(1000)
            if cid.startswith("slow"):
                time.sleep(0.4)
            if cid.startswith("stray"):
                seq += 1000
            out({"seq": seq, "state": {"players": {"A": {"hp": 20}}}, "events": [],
                 "result": "ongoing"})
        batch.clear()
    while True:
        line = readline(0.2 if batch else None)
        if line is None:
            answer()
            continue
        if line == b"":
            break
        req = json.loads(line)
        if req["cmd"] == "hello":
            reply = {"ok": True, "implementation": {"name": "pipe impl", "version": "0",
                     "language": "python", "homepage": "-"}, "rulesets": ["kodex"],
                     "verbs": ["heal"]}
            if PIPELINE:
                reply["pipeline"] = PIPELINE
            out(reply)
            continue
        if req["cmd"] == "bye":
            break
        batch.append(req)
        if len(batch) >= BATCH:
            answer()
""")


def pipe_cmd(tmp_path: Path, pipeline: int, batch: int = 1, marker: bool = False) -> str:
    script = tmp_path / "pipe_impl.py"
    script.write_text(PIPE_IMPL, encoding="utf-8")
    args = [sys.executable, str(script), str(pipeline), str(batch), str(tmp_path / "impl.log")]
    if marker:
        args.append(str(tmp_path / "crashed"))
    return " ".join(shlex.quote(a) for a in args)


def logged(tmp_path: Path) -> list[tuple[str, str]]:
    path = tmp_path / "impl.log"
    if not path.exists():
        return []
    return [tuple(line.split()) for line in path.read_text().splitlines()]


def case(cid: str) -> Case:
    return Case(id=cid, clause="3.18", title=cid, given={"players": {"A": {"hp": 18}}},
                when=[{"heal": {"target": "A", "amount": 5}}],
                then={"players": {"A": {"hp": 20}}}, file="mem.yaml", line=1)


def verdicts(report) -> list[tuple]:
    return [(o.case_id, o.outcome, o.difference, o.message) for o in report.outcomes]


@pytest.fixture
def env():
    return {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}


# ---------------------------------------------------------------- same results

def test_pipelined_run_gives_the_same_results_as_one_at_a_time(tmp_path, env):
    cases = tiny_cases(tmp_path) * 8
    runs = {}
    for window in (1, 32):
        with ProtocolClient(SERVE_CMD, timeout=30, window=window, env=env, cwd=ROOT,
                            stderr_path=tmp_path / f"serve-{window}.log") as client:
            assert client.pipeline > 1           # kodex serve declares it
            assert client.window == min(client.pipeline, window)
            runs[window] = runner.run_cases(cases, impl=client, progress=False)
            assert client.restarts == 0
    assert verdicts(runs[1]) == verdicts(runs[32])
    assert [o.case_id for o in runs[32].outcomes] == [c.id for c in cases]
    assert {o.outcome for o in runs[32].outcomes} >= {"pass", "fail", "skip"}


def test_replies_out_of_order_are_matched_by_seq(tmp_path):
    ids = [f"ok-{i}" for i in range(10)]
    with ProtocolClient(pipe_cmd(tmp_path, pipeline=8, batch=4), timeout=5,
                        stderr_path=tmp_path / "err.log") as client:
        assert client.window == 8
        report = runner.run_cases([case(i) for i in ids], impl=client, progress=False)
        assert client.restarts == 0
    assert [(o.case_id, o.outcome) for o in report.outcomes] == [(i, "pass") for i in ids]
    assert ("ok-3", "ahead") in logged(tmp_path)     # several were in flight


def test_a_program_that_does_not_declare_pipeline_gets_one_request_at_a_time(tmp_path):
    ids = [f"ok-{i}" for i in range(6)]
    with ProtocolClient(pipe_cmd(tmp_path, pipeline=0), timeout=5,
                        stderr_path=tmp_path / "err.log") as client:
        assert client.pipeline == 1 and client.window == 1
        report = runner.run_cases([case(i) for i in ids], impl=client, progress=False)
    assert [o.outcome for o in report.outcomes] == ["pass"] * 6
    assert logged(tmp_path) == [(i, "alone") for i in ids]


def test_the_harness_cap_holds_whatever_the_program_declares(tmp_path):
    with ProtocolClient(pipe_cmd(tmp_path, pipeline=10_000), timeout=5, window=3,
                        stderr_path=tmp_path / "err.log") as client:
        assert client.window == 3
    with ProtocolClient(pipe_cmd(tmp_path, pipeline=2), timeout=5,
                        stderr_path=tmp_path / "err.log") as client:
        assert client.window == 2


@pytest.mark.parametrize("value", [0, -1, "8", 2.5, True, [4]])
def test_a_bad_pipeline_value_stops_the_run(tmp_path, value):
    script = tmp_path / "bad.py"
    script.write_text(textwrap.dedent(f"""\
        import json, sys
        sys.stdin.readline()
        print(json.dumps({{"ok": True, "implementation": {{"name": "bad"}}, "rulesets": ["kodex"],
                          "pipeline": {json.dumps(value)}}}), flush=True)
        sys.stdin.readline()
    """))
    with pytest.raises(ProtocolError, match="pipeline"):
        ProtocolClient(f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}",
                       stderr_path=tmp_path / "err.log")


# ---------------------------------------------------------------- failures in a window

def test_a_crash_with_several_requests_in_flight_reports_them_all(tmp_path):
    """The program reads ok-1..ok-3 and crash-1 (its batch of 4) and dies without a
    reply, with all eight cases in flight: each is sent again alone to a new
    program, so the crash falls on crash-1 and the others get their own verdicts."""
    ids = ["ok-1", "ok-2", "ok-3", "crash-1", "ok-4", "ok-5", "ok-6", "ok-7"]
    log = tmp_path / "err.log"
    with ProtocolClient(pipe_cmd(tmp_path, pipeline=16, batch=4), timeout=5,
                        max_restarts=3, stderr_path=log) as client:
        report = runner.run_cases([case(i) for i in ids], impl=client, progress=False)
        # at least the crash with several in flight; under load a later batch may be in flight
        # when the re-sent crash-1 dies again, which counts once more — the verdicts are the same
        assert client.pipeline_failures >= 1
    out = {o.case_id: o for o in report.outcomes}
    assert [o.case_id for o in report.outcomes] == ids
    assert out["crash-1"].outcome == "error" and "died" in out["crash-1"].message
    assert all(out[i].outcome == "pass" for i in ids if i != "crash-1")
    assert "sent again alone" in log.read_text()
    assert report.gave_up is None


def test_a_crash_in_flight_when_the_program_cannot_start_again_passes_nothing(tmp_path):
    ids = ["ok-1", "ok-2", "ok-3", "crash-1", "ok-4", "ok-5"]
    with ProtocolClient(pipe_cmd(tmp_path, pipeline=16, batch=4, marker=True), timeout=5,
                        stderr_path=tmp_path / "err.log") as client:
        report = runner.run_cases([case(i) for i in ids], impl=client, progress=False)
    assert [o.case_id for o in report.outcomes] == ids
    assert [o.outcome for o in report.outcomes] == ["not_run"] * 6
    assert all("gave up" in o.message for o in report.outcomes)
    assert report.gave_up and "could not be started again" in report.gave_up["reason"]
    assert not report.ok


def test_a_hang_in_the_middle_of_a_window_times_out_that_case(tmp_path):
    """ok-1..ok-3 are answered, hang-1 is never answered while ok-4..ok-6 wait
    behind it: hang-1 is the timeout, the others pass on a new program."""
    ids = ["ok-1", "ok-2", "ok-3", "hang-1", "ok-4", "ok-5", "ok-6"]
    with ProtocolClient(pipe_cmd(tmp_path, pipeline=16), timeout=1.5, max_restarts=2,
                        stderr_path=tmp_path / "err.log") as client:
        report = runner.run_cases([case(i) for i in ids], impl=client, progress=False)
        assert client.restarts == 1
    assert [(o.case_id, o.outcome) for o in report.outcomes] == \
        [(i, "timeout" if i == "hang-1" else "pass") for i in ids]
    assert "no reply within 1.5 s" in report.outcomes[3].message
    assert ("hang-1", "ahead") in logged(tmp_path)   # ok-4 was already sent


def test_each_case_gets_the_whole_deadline_behind_slow_ones(tmp_path):
    """Six slow cases in one window, each answered 0.4 s after the one before
    it, 2.4 s for all: with a deadline of 1.5 s per case none times out, for
    the deadline of a case counts from when the one before it was answered."""
    ids = [f"slow-{i}" for i in range(6)]
    with ProtocolClient(pipe_cmd(tmp_path, pipeline=16), timeout=1.5,
                        stderr_path=tmp_path / "err.log") as client:
        report = runner.run_cases([case(i) for i in ids], impl=client, progress=False)
        assert client.restarts == 0
    assert [o.outcome for o in report.outcomes] == ["pass"] * 6


def test_a_reply_with_an_unknown_seq_in_a_window_falls_on_its_case(tmp_path):
    ids = ["ok-1", "ok-2", "stray-1", "ok-3", "ok-4"]
    with ProtocolClient(pipe_cmd(tmp_path, pipeline=16, batch=5), timeout=5,
                        max_restarts=3, stderr_path=tmp_path / "err.log") as client:
        report = runner.run_cases([case(i) for i in ids], impl=client, progress=False)
    out = {o.case_id: o for o in report.outcomes}
    assert out["stray-1"].outcome == "error" and "seq" in out["stray-1"].message
    assert all(out[i].outcome == "pass" for i in ids if i != "stray-1")


# ---------------------------------------------------------------- --jobs

def test_pool_gives_the_same_results_as_one_program(tmp_path, env):
    cases = tiny_cases(tmp_path) * 10
    with ProtocolClient(SERVE_CMD, timeout=30, env=env, cwd=ROOT,
                        stderr_path=tmp_path / "one.log") as client:
        one = runner.run_cases(cases, impl=client, progress=False)
    with ProtocolPool(SERVE_CMD, 3, timeout=30, env=env, cwd=ROOT,
                      stderr_path=tmp_path / "pool.stderr.log") as pool:
        assert len(pool.clients) == 3
        assert pool.implementation["name"] == "hkk-kodex reference"
        many = runner.run_cases(cases, impl=pool, progress=False)
        assert [p.name for p in pool.stderr_paths] == \
            ["pool.stderr.log", "pool.2.stderr.log", "pool.3.stderr.log"]
    assert verdicts(one) == verdicts(many)


def test_pool_reports_a_crash_in_any_program(tmp_path):
    ids = [f"ok-{i}" for i in range(6)] + ["crash-1"] + [f"ok-{i}" for i in range(6, 12)]
    with ProtocolPool(pipe_cmd(tmp_path, pipeline=4, batch=2), 2, timeout=5, max_restarts=3,
                      stderr_path=tmp_path / "err.log") as pool:
        report = runner.run_cases([case(i) for i in ids], impl=pool, progress=False)
    assert [o.case_id for o in report.outcomes] == ids
    assert [o.outcome for o in report.outcomes] == \
        ["error" if i == "crash-1" else "pass" for i in ids]


def _kodex_run(tmp_path: Path, env: dict, jobs: int) -> dict:
    out = tmp_path / f"jobs{jobs}.json"
    proc = subprocess.run([sys.executable, "-m", "conformance", "run", "-q", "--impl",
                           SERVE_CMD, "--jobs", str(jobs), "--timeout", "30",
                           "--clause", "4", "--json", str(out)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    return json.loads(out.read_text(encoding="utf-8"))


def test_kodex_run_jobs_n_gives_the_same_results_as_jobs_1(tmp_path, env):
    one, two = _kodex_run(tmp_path, env, 1), _kodex_run(tmp_path, env, 2)
    assert len(one["cases"]) > 100

    def stable(data):
        return [{k: v for k, v in c.items() if k != "duration_ms"} for c in data["cases"]]
    assert stable(one) == stable(two)
    for key in ("implementation", "profile", "totals", "profiles", "gave_up", "unavailable"):
        assert one[key] == two[key], key
    assert (tmp_path / "jobs2.2.stderr.log").is_file()


def test_jobs_must_be_a_positive_number(tmp_path, env):
    proc = subprocess.run([sys.executable, "-m", "conformance", "run", "--jobs", "0"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "--jobs" in proc.stderr

