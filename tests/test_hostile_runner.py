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

from conformance import atomicio, protocol, runner
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


def kill_left(pidfile: Path) -> None:
    """A test that failed may leave what it checks for: end it (nothing is left behind)."""
    for pid in pids(pidfile, 1) if pidfile.exists() else []:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


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



# ---------------------------------------------------------------- issue 25: replies, hello

def canned(tmp_path, monkeypatch, reply: str, hello: str | None = None, **kw) -> ProtocolClient:
    monkeypatch.setenv("HOSTILE_REPLY", reply)
    if hello is not None:
        monkeypatch.setenv("HOSTILE_HELLO", hello)
    kw.setdefault("max_restarts", 5)
    kw.setdefault("timeout", 30)           # it answers at once: no deadline is tested here
    return client(tmp_path, "canned", **kw)


def _strict_results(report) -> dict:
    """The results as written, read back by the one strict reader."""
    from conformance import results_io
    data = report.to_json()
    assert results_io.results_problem(data) is None, results_io.results_problem(data)
    return json.loads(atomicio.json_text(data), parse_constant=lambda name: 1 / 0)


@pytest.mark.parametrize("value, needle", [
    ("NaN", "NaN is not JSON"),
    ("-Infinity", "-Infinity is not JSON"),
    ("1e999", "too large for a double"),
    ('"\\ud800"', "/state/players/A/hp: a lone surrogate"),
    ('{"\\udc00": 1}', "a lone surrogate"),
    ("[" * 5000 + "]" * 5000, "nested deeper than 64 levels"),
])
def test_a_reply_that_is_not_strict_json_is_an_error_of_its_case(tmp_path, monkeypatch, value,
                                                                  needle):
    """NaN/Infinity ended up in the results file (strict readers refuse it), a lone surrogate
    crashed the writing of the results (UnicodeEncodeError), a deep reply the run itself."""
    reply = '{"seq": {seq}, "state": {"players": {"A": {"hp": ' + value + '}}}}'
    with canned(tmp_path, monkeypatch, reply) as c:
        report = runner.run_cases([case("a")], impl=c, progress=False)
    [oc] = report.outcomes
    assert oc.outcome == "error" and "malformed reply" in oc.message, oc.message
    assert needle in oc.message
    _strict_results(report)


def test_a_lone_surrogate_reply_still_writes_results_and_junit(tmp_path):
    """`kodex run` wrote neither results nor JUnit: the writing crashed."""
    env = dict(os.environ, PYTHONPATH=str(ROOT),
               HOSTILE_REPLY='{"seq": {seq}, "state": {"players": {"\\ud800": {}}}}')
    out, junit = tmp_path / "r.json", tmp_path / "j.xml"
    proc = subprocess.run([sys.executable, "-m", "conformance", "run", "-q", "--timeout", "60",
                           "--impl", impl("canned"), "-k", "3.18/heal-at", "--max-restarts", "100",
                           "--json", str(out), "--junit", str(junit)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    from conformance import results_io
    data = results_io.read_results(out)
    assert data["cases"] and all(c["outcome"] == "error" for c in data["cases"])
    assert "lone surrogate" in data["cases"][0]["message"]
    assert junit.read_text(encoding="utf-8").count("<testcase") == len(data["cases"])


@pytest.mark.parametrize("hello, needle", [
    ('{"ok": true, "protocol": 1, "implementation": {"name": "x\\ud800"}}',
     "/implementation/name: a lone surrogate"),
    ('{"ok": true, "protocol": 1, "implementation": {"name": "' + "n" * 100_000 + '"}}',
     "beyond the limits: `implementation.name` is 100,000 characters long (the limit is 256)"),
    ('{"ok": true, "protocol": 1, "verbs": ["' + '", "'.join(["v"] * 1001) + '"]}',
     "`verbs` lists 1,001 entries (the limit is 1,000)"),
    ('{"ok": true, "protocol": 1, "pipeline": NaN}', "NaN is not JSON"),
    ('{"ok": true, "protocol": 1, "implementation": {"name": {"x": 1}}}',
     "`implementation.name` must be text, not dict"),
])
def test_a_hello_beyond_strict_json_or_the_limits_is_refused(tmp_path, monkeypatch, hello,
                                                            needle):
    """A lone surrogate in hello crashed `kodex run`; a 1 MB name went into every output."""
    with pytest.raises(ProtocolError) as info:
        canned(tmp_path, monkeypatch, "{}", hello=hello)
    assert needle in str(info.value)
    assert len(str(info.value)) < 2000


def test_a_hello_with_a_lone_surrogate_is_exit_3_with_results(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), HOSTILE_REPLY="{}",
               HOSTILE_HELLO='{"ok": true, "protocol": 1, "implementation": {"name": "\\udfff"}}')
    out = tmp_path / "r.json"
    proc = subprocess.run([sys.executable, "-m", "conformance", "run", "-q", "--timeout", "60",
                           "--impl", impl("canned"), "-k", "3.18/*", "--json", str(out)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr and "lone surrogate" in proc.stdout
    from conformance import results_io
    assert all(c["outcome"] == "not_run" for c in results_io.read_results(out)["cases"])


def test_a_big_value_per_case_is_not_kept_whole(tmp_path, monkeypatch):
    """A 10 MB value per case was kept whole: 53 cases gave a 450 MB results file."""
    monkeypatch.setenv("HOSTILE_HUGE", str(10_000_000))  # the 10 MB
    reply = '{"seq": {seq}, "state": {"players": {"A": {"hp": "{big}"}}}, "events": []}'
    with canned(tmp_path, monkeypatch, reply, timeout=30) as c:
        report = runner.run_cases([case("a"), case("b"), case("c")], impl=c, progress=False)
    from conformance import bounds
    for oc in report.outcomes:
        assert oc.outcome == "fail"                      # the verdict on the whole reply
        actual = oc.difference["actual"]
        assert isinstance(actual, str) and len(actual) <= bounds.MAX_VALUE_CHARS
        assert "cut by kodex: 10,000,000 characters" in actual
    assert len(atomicio.json_text(_strict_results(report))) < 100_000


def test_an_errored_traceback_that_is_an_object_is_kept_as_text(tmp_path, monkeypatch):
    """It broke the results schema (a traceback is text)."""
    reply = '{"seq": {seq}, "errored": {"message": "boom", "traceback": {"frames": [1, 2]}}}'
    with canned(tmp_path, monkeypatch, reply) as c:
        report = runner.run_cases([case("a")], impl=c, progress=False)
    [oc] = report.outcomes
    assert oc.outcome == "error" and isinstance(oc.traceback, str) and "frames" in oc.traceback
    _strict_results(report)


def test_a_program_that_dies_before_hello_says_why(tmp_path):
    """It was reported as "exit status None", with node's "Cannot find module" in a log
    nobody mentioned."""
    cmd = (f"{PY} -c " + shlex.quote("import sys; sys.stderr.write('internal/modules/cjs/loader\\n"
                                     "Error: Cannot find module /x/engine.js\\n'); sys.exit(1)"))
    with pytest.raises(ProtocolError) as info:
        ProtocolClient(cmd, stderr_path=tmp_path / "log")
    message = str(info.value)
    assert "exited before answering hello (exit status 1)" in message
    assert "its standard error ends: internal/modules/cjs/loader | Error: Cannot find module " \
           "/x/engine.js" in message
    assert "\n" not in message


# ---------------------------------------------------------------- issue 25: what is left

def test_a_grandchild_that_calls_setsid_does_not_survive(tmp_path):
    """It left the process group, so the group kill missed it."""
    pidfile = tmp_path / "pids"
    try:
        with client(tmp_path, "setsid-child", pidfile=pidfile, timeout=30) as c:
            report = runner.run_cases([case("a")], impl=c, progress=False)
            found = pids(pidfile, 2)
        assert report.outcomes[0].outcome == "pass"
        assert all_gone(found), "the setsid grandchild was left behind"
    finally:
        kill_left(pidfile)


STOPPING_RUN = """
import os, signal, sys
import conformance.parallel
conformance.parallel.WORKER_GRACE = 1.0
from model import engine
real = engine.run_case
def stopping(*a, **k):              # the first worker to get here stops itself (SIGSTOP)
    try:
        os.close(os.open(sys.argv[1], os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        os.kill(os.getpid(), signal.SIGSTOP)
    except FileExistsError:
        pass
    return real(*a, **k)
engine.run_case = stopping
from conformance.cli import main
sys.exit(main(["run", "-q", "--jobs", "2", "--timeout", "0.5", "-k", "3.18/"]))
"""


def test_a_stopped_worker_does_not_make_the_harness_wait_forever(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", STOPPING_RUN, str(tmp_path / "stopped")],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail("the harness waited for its stopped worker")
    assert proc.returncode == 1, out + err
    assert "Traceback" not in out + err
    assert "sent nothing for 1.5 s" in out and "stopped or stuck" in out
    assert group_gone(proc.pid)


# ---------------------------------------------------------------- issue 25: the stderr log

def test_the_stderr_log_never_writes_through_a_link(tmp_path, monkeypatch):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    log = tmp_path / "impl.log"
    log.symlink_to(victim)
    monkeypatch.setenv("HOSTILE_STDERR", "from the program\n")
    with canned(tmp_path, monkeypatch, '{"seq": {seq}, "state": {}}', timeout=30) as c:
        runner.run_cases([case("a")], impl=c, progress=False)
    assert victim.read_text(encoding="utf-8") == "precious\n"
    assert not log.is_symlink() and log.read_text(encoding="utf-8") == "from the program\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_two_runs_with_one_log_leave_one_runs_log(tmp_path, monkeypatch):
    """Each run writes a log of its own, renamed into place when it ends (just before its
    results): the log and the results at one path are of the same run."""
    log = tmp_path / "r.stderr.log"
    monkeypatch.setenv("HOSTILE_REPLY", '{"seq": {seq}, "state": {}}')
    monkeypatch.setenv("HOSTILE_STDERR", "the first run, which ends last\n")
    first = ProtocolClient(impl("canned"), timeout=30, stderr_path=log)
    monkeypatch.setenv("HOSTILE_STDERR", "the second\n")
    second = ProtocolClient(impl("canned"), timeout=30, stderr_path=log)
    second.run("b", "kodex", {}, [])
    first.run("a", "kodex", {}, [])
    second.close()
    assert log.read_text(encoding="utf-8") == "the second\n"
    first.close()
    assert log.read_text(encoding="utf-8") == "the first run, which ends last\n"


def test_an_unwritable_stderr_log_stops_the_program_and_says_so(tmp_path):
    """A read-only working directory and --impl without --json: the log failed after the
    program had started, with a traceback, and the program was left running."""
    (tmp_path / "reports").write_text("a file where the reports folder should be\n")
    pidfile = tmp_path / "pids"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    try:
        proc = subprocess.run([sys.executable, "-m", "conformance", "run", "-q", "--timeout", "60",
                               "--impl", impl("good", pidfile), "-k", "3.18/*"], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=120)
        output = proc.stdout + proc.stderr
        assert proc.returncode == 5, output
        assert "Traceback" not in output
        assert "cannot write reports/runs/" in output and ".stderr.log" in output
        assert all_gone(pids(pidfile)), "the program was left running"
    finally:
        kill_left(pidfile)


def test_an_unwritable_ndjson_stream_leaves_no_program_running(tmp_path):
    """The stream is opened after the implementation has started: its failure used to leave
    the program running past the end of `kodex run`."""
    (tmp_path / "blocker").write_text("a file where a folder should be\n")
    pidfile = tmp_path / "pids"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    try:                                  # a program that outlives the end of its input
        proc = subprocess.run([sys.executable, "-m", "conformance", "run", "-q", "--timeout", "60",
                               "--impl", impl("ignore-term", pidfile), "-k", "3.18/*",
                               "--ndjson", str(tmp_path / "blocker" / "s.ndjson")],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        output = proc.stdout + proc.stderr
        assert proc.returncode == 5 and "Traceback" not in output, output
        assert "cannot write" in output and "s.ndjson" in output
        assert all_gone(pids(pidfile)), "the program was left running"
    finally:
        kill_left(pidfile)
