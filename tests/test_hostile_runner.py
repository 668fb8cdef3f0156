"""Hostile implementations against the harness (conformance/protocol.py,
conformance/interrupts.py): a wrapper whose background child holds standard
output, a program that never answers, answers garbage or huge lines, floods
stderr, dies mid-run, ignores SIGTERM or stops reading. The run must end in
bounded time with a verdict per case and leave no process behind; SIGTERM
and SIGINT to ``kodex run`` end it with 143/130 and no results file."""
from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conformance import protocol, runner
from conformance.loader import Case
from conformance.protocol import HarnessVerdict, ProtocolClient, ProtocolError

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = Path(__file__).with_name("hostile_impl.py")
PY = shlex.quote(sys.executable)


def impl(mode: str, pidfile: Path | None = None) -> str:
    cmd = f"{PY} {shlex.quote(str(HOSTILE))} {mode}"
    return cmd + (f" --pidfile {shlex.quote(str(pidfile))}" if pidfile else "")


def case(cid: str, **given) -> Case:
    return Case(id=cid, clause="3.18", title=cid, given=given or {"players": {"A": {"hp": 18}}},
                when=[{"heal": {"target": "A", "amount": 5}}],
                then={"players": {"A": {"hp": 20}}}, file="mem.yaml", line=1)


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:   # a zombie waiting for its parent to reap it counts as ended
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z"
    except OSError:
        return True


def pids(pidfile: Path, n: int = 1, wait: float = 10.0) -> list[int]:
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if pidfile.exists():
            found = [int(x) for x in pidfile.read_text().split()]
            if len(found) >= n:
                return found
        time.sleep(0.02)
    raise AssertionError(f"{pidfile} did not appear")


def all_gone(found: list[int], wait: float = 3.0) -> bool:
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if all(gone(p) for p in found):
            return True
        time.sleep(0.02)
    return False


def group_gone(pgid: int, wait: float = 3.0) -> bool:
    """No live (non-zombie) process is left in process group ``pgid``."""
    deadline = time.monotonic() + wait
    while True:
        live = []
        for d in Path("/proc").iterdir():
            if d.name.isdigit():
                try:
                    fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if int(fields[2]) == pgid and fields[0] != "Z":
                    live.append(d.name)
        if not live or time.monotonic() > deadline:
            return not live
        time.sleep(0.02)


def client(tmp_path, mode, **kw) -> ProtocolClient:
    kw.setdefault("timeout", 1.0)
    kw.setdefault("max_restarts", 1)
    return ProtocolClient(impl(mode, kw.pop("pidfile", None)),
                          stderr_path=tmp_path / "impl.log", **kw)


# ---------------------------------------------------------------- children, ends

def test_background_child_holding_stdout_does_not_hang_the_run(tmp_path):
    pidfile = tmp_path / "pids"
    with client(tmp_path, "bg-child", pidfile=pidfile, timeout=30) as c:
        report = runner.run_cases([case("a"), case("b")], impl=c, progress=False)
        found = pids(pidfile, 2)
    assert [o.outcome for o in report.outcomes] == ["pass", "pass"]
    assert all_gone(found), "the background child was left behind"


@pytest.mark.parametrize("wrapper", ["sleep 1000 & exec {cmd}", "sleep 1000 & {cmd}"])
def test_shell_wrapper_with_background_process_ends(tmp_path, wrapper):
    """`kodex run --impl "sh -c '…'"` ends, every case passes, nothing is left."""
    inner = f"{PY} -m conformance serve"
    script = "echo $$ > {pf}; ".format(pf=shlex.quote(str(tmp_path / "shpid"))) + \
        wrapper.format(cmd=inner)
    cmd = "sh -c " + shlex.quote(script)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "conformance", "run", "-q", "--impl", cmd,
                           "--timeout", "30", "-k", "3.18/*", "--json", str(tmp_path / "r.json")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    elapsed = time.monotonic() - t0
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["cases"] and all(c["outcome"] == "pass" for c in data["cases"])
    sh = int((tmp_path / "shpid").read_text())
    assert all_gone([sh])
    # the sleeper is in the wrapper's process group: none of that group is left
    assert group_gone(sh)
    assert elapsed < 100   # bounded (it used to hang forever); speed is in benchmarks/


def test_ignores_sigterm_and_bye_is_killed(tmp_path, monkeypatch):
    monkeypatch.setattr(protocol, "STOP_GRACE", 0.5)
    pidfile = tmp_path / "pids"
    c = client(tmp_path, "ignore-term", pidfile=pidfile)
    found = pids(pidfile)
    t0 = time.monotonic()
    c.close()
    assert time.monotonic() - t0 < 10
    assert all_gone(found)


def test_never_answers_is_a_timeout_per_case_then_unavailable(tmp_path):
    pidfile = tmp_path / "pids"
    with client(tmp_path, "silent", pidfile=pidfile, timeout=0.3) as c:
        report = runner.run_cases([case("a"), case("b"), case("c")], impl=c, progress=False)
    outcomes = [o.outcome for o in report.outcomes]
    # two hung cases in a row exceed max_restarts=1: the harness gives up, loudly
    assert outcomes == ["timeout", "timeout", "not_run"]
    assert report.gave_up and report.gave_up["after_case"] == "b"
    assert not report.ok


def test_garbage_lines_are_malformed_replies(tmp_path):
    with client(tmp_path, "garbage") as c:
        report = runner.run_cases([case("a")], impl=c, progress=False)
    oc = report.outcomes[0]
    assert oc.outcome == "error" and "malformed" in oc.message


def test_huge_reply_line_is_capped(tmp_path, monkeypatch):
    monkeypatch.setattr(protocol, "MAX_REPLY_BYTES", 256 * 1024)
    monkeypatch.setenv("HOSTILE_HUGE", str(1024 * 1024))
    with client(tmp_path, "huge", max_restarts=0) as c:
        report = runner.run_cases([case("a")], impl=c, progress=False)
    oc = report.outcomes[0]
    assert oc.outcome == "error" and "longer than 262144 bytes" in oc.message


def test_stderr_flood_is_capped_and_cases_still_run(tmp_path, monkeypatch):
    monkeypatch.setattr(protocol, "MAX_STDERR_BYTES", 100_000)
    monkeypatch.setenv("HOSTILE_HUGE", str(3 * 1024 * 1024))
    with ProtocolClient(impl("stderr-flood"), timeout=30, stderr_path=tmp_path / "e.log") as c:
        report = runner.run_cases([case("a")], impl=c, progress=False)
    assert report.outcomes[0].outcome == "pass"
    log = (tmp_path / "e.log").read_bytes()
    assert len(log) < 100_000 + 1000
    assert b"the rest is dropped" in log


def test_dies_mid_run_is_an_error_and_restarts(tmp_path):
    with client(tmp_path, "die-mid", max_restarts=2) as c:
        report = runner.run_cases([case("a"), case("b"), case("c")], impl=c, progress=False)
        assert c.restarts == 1
    assert [o.outcome for o in report.outcomes] == ["pass", "error", "pass"]
    assert "died" in report.outcomes[1].message


def test_program_that_stops_reading_hits_the_send_deadline(tmp_path, monkeypatch):
    monkeypatch.setattr(protocol, "SEND_TIMEOUT", 0.5)
    big = {"players": {"A": {"hp": 18}}, "cards": {f"c{i}": {"type": "creature",
                                                             "owner": "A", "note": "x" * 100}
                                                   for i in range(3000)}}
    t0 = time.monotonic()
    with client(tmp_path, "no-read", timeout=0.3, max_restarts=0) as c:
        reply = c.run("big", "kodex", big, [{"heal": {"target": "A", "amount": 1}}])
    assert time.monotonic() - t0 < 15
    assert isinstance(reply, HarnessVerdict) and reply.outcome == "timeout"
    assert "did not read" in reply.message


def test_hello_never_answered(tmp_path):
    cmd = f"{PY} -c 'import time; time.sleep(1000)'"
    t0 = time.monotonic()
    with pytest.raises(ProtocolError, match="did not answer hello"):
        ProtocolClient(cmd, hello_timeout=0.5, stderr_path=tmp_path / "log")
    assert time.monotonic() - t0 < 10


def test_client_close_is_idempotent_and_leaves_nothing(tmp_path):
    pidfile = tmp_path / "pids"
    c = client(tmp_path, "bg-child", pidfile=pidfile)
    found = pids(pidfile, 2)
    c.close()
    c.close()
    assert all_gone(found)


# ---------------------------------------------------------------- signals to kodex run

@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("sig,status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_signal_to_kodex_run_stops_the_implementation(tmp_path, sig, status, jobs):
    """With --jobs 2, two programs each hold requests in flight (the pidfile is
    appended by each): both process groups end."""
    pidfile = tmp_path / "pids"
    results = tmp_path / "results.json"
    results.write_text('{"previous": true}\n')
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    mode = "silent" if jobs == 1 else "silent --pipeline 8"
    proc = subprocess.Popen([sys.executable, "-m", "conformance", "run", "--impl",
                             impl(mode, pidfile), "--jobs", str(jobs),
                             "--timeout", "60", "--clause", "4", "--json", str(results)],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        found = pids(pidfile, jobs, wait=20)
        time.sleep(0.3)           # inside the first case(s), waiting for a reply
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == status, out + err
    assert "Traceback" not in err
    assert all_gone(found)
    assert results.read_text() == '{"previous": true}\n'
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".results.json")]


# ---------------------------------------------------------------- requests in flight

@pytest.mark.parametrize("mode", ["silent", "garbage", "huge"])
def test_hostile_program_with_requests_in_flight_gets_the_same_verdicts(tmp_path, monkeypatch,
                                                                        mode):
    """The same misbehaviour declared with `pipeline: 8` (every case in flight
    at once) gives each case the verdict it gets one request at a time, and the
    harness gives up after the same case (a failure that names no case costs
    one restart more: the cases in flight are sent again alone)."""
    monkeypatch.setattr(protocol, "MAX_REPLY_BYTES", 256 * 1024)
    monkeypatch.setenv("HOSTILE_HUGE", str(1024 * 1024))
    cases = [case("a"), case("b"), case("c")]
    found = {}
    for declared in ("", " --pipeline 8"):
        with client(tmp_path, mode + declared, timeout=0.3 if mode == "silent" else 5) as c:
            assert c.window == (8 if declared else 1)
            report = runner.run_cases(cases, impl=c, progress=False)
        found[declared] = ([(o.outcome, o.message) for o in report.outcomes],
                           {k: report.gave_up[k] for k in ("reason", "after_case")})
    assert found[""] == found[" --pipeline 8"]
    outcomes = [o for o, _ in found[""][0]]
    assert outcomes[-1] == "not_run" and "not_run" not in outcomes[:2]

