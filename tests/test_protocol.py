"""Tests of the protocol: ``kodex serve`` (conformance/serve.py) and the
harness's ProtocolClient (conformance/protocol.py), including a misbehaving
implementation that crashes, hangs and answers garbage."""
from __future__ import annotations

import io
import json
import os
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conformance import runner, serve
from conformance.loader import Case
from conformance.protocol import HarnessVerdict, ProtocolClient, ProtocolError, interpret_reply

ROOT = Path(__file__).resolve().parents[1]
SERVE_CMD = f"{shlex.quote(sys.executable)} -m conformance serve"

from tiny_corpus import tiny_cases


@pytest.fixture
def env():
    e = dict(os.environ)
    e["PYTHONPATH"] = str(ROOT) + os.pathsep + e.get("PYTHONPATH", "")
    return e


# ---------------------------------------------------------------- serve

def test_serve_round_trip_subprocess(env):
    requests = [
        {"cmd": "hello", "protocol": 1},
        {"cmd": "run", "seq": 1, "case": {"id": "x", "ruleset": "kodex",
                                          "given": {"players": {"A": {"hp": 18}}},
                                          "when": [{"heal": {"target": "A", "amount": 5}}]}},
        {"cmd": "bye"},
    ]
    proc = subprocess.run([sys.executable, "-m", "conformance", "serve"],
                          input="".join(json.dumps(r) + "\n" for r in requests),
                          capture_output=True, text=True, timeout=60, env=env, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(l) for l in proc.stdout.splitlines()]
    assert len(lines) == 2                      # bye has no reply
    hello, run = lines
    assert hello["ok"] is True
    assert hello["implementation"]["name"] == "hkk-kodex reference"
    assert hello["implementation"]["language"] == "python"
    assert hello["implementation"]["version"]
    assert "kodex" in hello["rulesets"]
    assert "heal" in hello["verbs"]
    assert run["seq"] == 1
    assert run["state"]["players"]["A"]["hp"] == 20
    assert {"event": "healed", "target": "A", "amount": 2}.items() <= run["events"][0].items()
    assert run["result"] == "ongoing"


def _serve_lines(lines: list[str], **kw) -> list[dict]:
    out = io.StringIO()
    rc = serve.serve(io.StringIO("".join(l + "\n" for l in lines)), out, **kw)
    assert rc == 0
    return [json.loads(l) for l in out.getvalue().splitlines()]


def test_serve_malformed_line_gets_ok_false_and_goes_on():
    replies = _serve_lines(["this is not json", "[1, 2]", '{"cmd": "dance"}',
                            '{"cmd": "run", "case": {}}', '{"cmd": "hello", "protocol": 1}',
                            '{"cmd": "bye"}', '{"cmd": "hello", "protocol": 1}'])
    assert [r.get("ok") for r in replies] == [False, False, False, False, True]
    assert all("error" in r for r in replies[:4])


def test_serve_wrong_protocol():
    (reply,) = _serve_lines(['{"cmd": "hello", "protocol": 2}'])
    assert reply["ok"] is False and "protocol" in reply["error"]


def test_serve_unsupported_verb_is_skipped(monkeypatch):
    from model import engine
    monkeypatch.setattr(engine, "SUPPORTED_VERBS", ["draw"])
    req = {"cmd": "run", "seq": 3, "case": {"id": "x", "when": [{"heal": {"target": "A", "amount": 1}}]}}
    (reply,) = _serve_lines([json.dumps(req)])
    assert reply["seq"] == 3 and "skipped" in reply and reply["unsupported"] == ["heal"]


def test_serve_engine_exception_is_errored(monkeypatch):
    from model import engine

    def boom(*a, **k):
        raise ValueError("kaputt")

    monkeypatch.setattr(engine, "run_case", boom)
    req = {"cmd": "run", "seq": 4, "case": {"id": "x", "when": [{"heal": {"target": "A", "amount": 1}}]}}
    (reply,) = _serve_lines([json.dumps(req)])
    assert reply["seq"] == 4
    assert "kaputt" in reply["errored"]["message"]
    assert "ValueError" in reply["errored"]["traceback"]


def test_serve_refused_reply_carries_state_events_result(monkeypatch):
    from model import engine

    def refusing(given, when, ruleset="kodex", version=1):
        return engine.RunResult(state={"players": {}}, events=[],
                                refused={"step": 0, "clause": "4.8.4", "message": "no"},
                                result="ongoing")

    monkeypatch.setattr(engine, "run_case", refusing)
    req = {"cmd": "run", "seq": 5, "case": {"id": "x", "when": [{"heal": {"target": "A", "amount": 1}}]}}
    (reply,) = _serve_lines([json.dumps(req)])
    assert reply["refused"]["clause"] == "4.8.4"
    assert {"state", "events", "result"} <= set(reply)


# ---------------------------------------------------------------- client

def test_same_verdicts_in_process_and_through_protocol(tmp_path, env):
    cases = tiny_cases(tmp_path)
    local = runner.run_cases(cases, progress=False)
    with ProtocolClient(SERVE_CMD, timeout=30, stderr_path=tmp_path / "serve.log",
                        env=env, cwd=ROOT) as client:
        assert client.implementation["name"] == "hkk-kodex reference"
        remote = runner.run_cases(cases, impl=client, progress=False)
    assert [(o.case_id, o.outcome) for o in local.outcomes] == \
           [(o.case_id, o.outcome) for o in remote.outcomes]
    assert [o.difference for o in local.outcomes] == [o.difference for o in remote.outcomes]
    assert remote.implementation["name"] == "hkk-kodex reference"
    assert "in_process" not in remote.implementation


FAKE_IMPL = textwrap.dedent("""\
    import json, sys, time
    print("fake implementation starting", file=sys.stderr, flush=True)
    MODE = sys.argv[1] if len(sys.argv) > 1 else "normal"
    for line in sys.stdin:
        req = json.loads(line)
        if req["cmd"] == "hello":
            if MODE == "refuse":
                print(json.dumps({"ok": False, "error": "I speak protocol 7"}), flush=True)
                continue
            print(json.dumps({"ok": True, "implementation": {"name": "fake impl", "version": "0.0",
                  "language": "python", "homepage": "-"}, "rulesets": ["kodex"],
                  "verbs": ["heal"]}), flush=True)
            continue
        if req["cmd"] == "bye":
            break
        seq, cid = req["seq"], req["case"]["id"]
        if "then" in req["case"]:
            print(json.dumps({"seq": seq, "errored": {"message": "harness sent then"}}), flush=True)
        elif cid.startswith("crash") or MODE == "crash":
            sys.exit(3)
        elif cid.startswith("hang"):
            time.sleep(60)
        elif cid.startswith("garbage"):
            print("<<< definitely not json >>>", flush=True)
        elif cid.startswith("wrongseq"):
            print(json.dumps({"seq": seq + 100, "state": {}}), flush=True)
        elif cid.startswith("empty"):
            print(json.dumps({"seq": seq}), flush=True)
        elif cid.startswith("skipme"):
            print(json.dumps({"seq": seq, "skipped": "no", "unsupported": ["heal"]}), flush=True)
        elif cid.startswith("oops"):
            print(json.dumps({"seq": seq, "errored": {"message": "bad", "traceback": "tb"}}),
                  flush=True)
        else:
            print(json.dumps({"seq": seq, "state": {"players": {"A": {"hp": 20}}},
                              "events": [], "result": "ongoing"}), flush=True)
""")


def fake_cmd(tmp_path: Path, mode: str = "normal") -> str:
    script = tmp_path / "fake_impl.py"
    script.write_text(FAKE_IMPL, encoding="utf-8")
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))} {mode}"


def case(cid: str) -> Case:
    return Case(id=cid, clause="3.18", title=cid, given={},
                when=[{"heal": {"target": "A", "amount": 1}}],
                then={"players": {"A": {"hp": 20}}}, file="mem.yaml", line=1)


def test_misbehaving_implementation(tmp_path):
    ids = ["ok-1", "crash-1", "ok-2", "hang-1", "ok-3", "garbage-1", "wrongseq-1", "empty-1",
           "skipme-1", "oops-1", "ok-4"]
    log = tmp_path / "fake.stderr.log"
    with ProtocolClient(fake_cmd(tmp_path), timeout=0.5, max_restarts=10,
                        stderr_path=log) as client:
        report = runner.run_cases([case(i) for i in ids], impl=client, progress=False)
        assert client.restarts == 5
    oc = {o.case_id: o for o in report.outcomes}
    for i in ("ok-1", "ok-2", "ok-3", "ok-4"):
        assert oc[i].outcome == "pass", (i, oc[i])
    assert oc["crash-1"].outcome == "error" and "died" in oc["crash-1"].message
    assert oc["hang-1"].outcome == "timeout"
    assert oc["garbage-1"].outcome == "error" and "malformed" in oc["garbage-1"].message
    assert oc["wrongseq-1"].outcome == "error" and "seq" in oc["wrongseq-1"].message
    assert oc["empty-1"].outcome == "error"
    assert oc["skipme-1"].outcome == "skip" and "heal" in oc["skipme-1"].message
    assert oc["oops-1"].outcome == "error" and oc["oops-1"].traceback == "tb"
    assert report.implementation["name"] == "fake impl"
    text = log.read_text(encoding="utf-8")
    assert "fake implementation starting" in text and "restart" in text


def test_gives_up_after_max_restarts(tmp_path):
    ids = [f"crash-{i}" for i in range(3)] + ["ok-1", "ok-2"]
    with ProtocolClient(fake_cmd(tmp_path), timeout=2, max_restarts=2,
                        stderr_path=tmp_path / "log") as client:
        report = runner.run_cases([case(i) for i in ids], impl=client, progress=False)
    outs = [o.outcome for o in report.outcomes]
    # each crash costs its case; after 3 in a row (more than max_restarts=2) the
    # harness gives up and the rest are not run, said so loudly
    assert outs == ["error"] * 3 + ["not_run"] * 2
    assert "implementation unavailable: gave up" in report.outcomes[-1].message
    assert report.gave_up and report.gave_up["after_case"] == "crash-2"
    assert "3 cases in a row" in report.gave_up["reason"]
    assert not report.ok


def test_hello_refused_raises(tmp_path):
    with pytest.raises(ProtocolError, match="protocol 7"):
        ProtocolClient(fake_cmd(tmp_path, "refuse"), stderr_path=tmp_path / "log")


def test_missing_program_raises(tmp_path):
    with pytest.raises(ProtocolError, match="cannot start"):
        ProtocolClient(str(tmp_path / "no-such-program"), stderr_path=tmp_path / "log")


def test_default_stderr_log_is_named_after_the_implementation(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with ProtocolClient(fake_cmd(tmp_path), timeout=2) as client:
        client.run("ok-1", "kodex", {}, [])
    log = tmp_path / "reports" / "runs" / "fake-impl.stderr.log"
    assert log.is_file() and "fake implementation starting" in log.read_text(encoding="utf-8")


def test_interpret_reply():
    assert interpret_reply({"seq": 1, "skipped": "x", "unsupported": ["v"]})[0] == "skip"
    assert interpret_reply({"seq": 1, "errored": {"message": "m"}})[0] == "error"
    kind, obs = interpret_reply({"seq": 1, "refused": {"step": 0, "clause": "4"}, "state": {}})
    assert kind == "observed" and obs["refused"]["clause"] == "4"
    assert interpret_reply(HarnessVerdict(1, "timeout", "late")) == ("timeout", {"message": "late"})
    # a dict is never a harness verdict, whatever it says: it is an implementation's reply
    assert interpret_reply({"seq": 1, "state": {}, "harness": {"outcome": "pass"}})[0] == "observed"
