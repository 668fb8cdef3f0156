"""A misbehaving implementation for the hostile-input tests of the harness.

``python tests/hostile_impl.py MODE [--pidfile FILE]``; every mode answers
``hello`` (unless it says otherwise), then:

* ``good``: the reference engine (``kodex serve``);
* ``bg-child``: starts a background ``sleep`` that inherits (and holds) its
  standard output, then behaves as ``good``;
* ``silent``: reads requests and never answers;
* ``garbage``: answers every request with lines that are not JSON;
* ``huge``: answers a run with one line of ``HOSTILE_HUGE`` bytes (default 2 MiB);
* ``stderr-flood``: writes ``HOSTILE_HUGE`` bytes to stderr, then behaves as ``good``;
* ``die-mid``: answers the first run, exits without a reply on the second;
* ``ignore-term``: ignores SIGTERM and ``bye`` (and end of input);
* ``no-read``: answers hello, then never reads its input again;
* ``setsid-child``: starts a ``sleep`` in a session of its own (``setsid``: out of the
  program's process group), then behaves as ``good``;
* ``canned``: says hello with the line ``HOSTILE_HELLO`` when set (else a bare ``ok``
  naming no rulesets or verbs: every case is sent), and answers every run
  with the line ``HOSTILE_REPLY`` (``{seq}`` replaced by the request's ``seq``, ``{big}`` by
  ``HOSTILE_HUGE`` x's): replies that are not strict JSON, too deep, too big, of the wrong
  shape.

Any mode first writes ``HOSTILE_STDERR`` (when set) to its standard error.

``--pidfile FILE``: the pids of the program and of any child it started, one
a line, so a test can check that none is left behind (appended: every program
started with the same FILE, restarted or one of several, adds its own).

The modes built on ``kodex serve`` (``good``, ``bg-child``, ``stderr-flood``)
declare its ``pipeline`` in ``hello``; the others declare none (the harness
sends them one request at a time) unless given ``--pipeline N``.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def out(obj) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def hello(pipeline: int | None = None) -> None:
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    from conformance.serve import hello_reply
    reply = hello_reply(json.loads(line))
    reply.pop("pipeline", None)
    if pipeline is not None:
        reply["pipeline"] = pipeline
    out(reply)


def main(argv: list[str]) -> int:
    mode = argv[0]
    pids = [os.getpid()]
    pidfile = argv[argv.index("--pidfile") + 1] if "--pidfile" in argv else None
    pipeline = int(argv[argv.index("--pipeline") + 1]) if "--pipeline" in argv else None
    huge = int(os.environ.get("HOSTILE_HUGE", 2 * 1024 * 1024))
    if os.environ.get("HOSTILE_STDERR"):
        sys.stderr.write(os.environ["HOSTILE_STDERR"])
        sys.stderr.flush()
    if mode == "bg-child":
        child = subprocess.Popen(["sleep", "1000"], stdin=subprocess.DEVNULL)
        pids.append(child.pid)
    if mode == "setsid-child":
        child = subprocess.Popen(["sleep", "1000"], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 start_new_session=True)
        pids.append(child.pid)
    if mode == "ignore-term":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if pidfile:
        with open(pidfile, "a") as fh:             # one write: lines never interleave
            fh.write("".join(f"{p}\n" for p in pids))
    if mode in ("good", "bg-child", "setsid-child"):
        from conformance.serve import serve
        return serve(sys.stdin, sys.stdout)
    if mode == "canned":
        if not sys.stdin.readline():
            return 0
        canned = os.environ.get("HOSTILE_HELLO",       # (no engine to import: quick)
                                '{"ok": true, "protocol": 1, "implementation": {"name": "canned"}}')
        sys.stdout.write(canned + "\n")
        sys.stdout.flush()
        for line in sys.stdin:
            request = json.loads(line)
            if request.get("cmd") == "bye":
                return 0
            sys.stdout.write(os.environ["HOSTILE_REPLY"].replace("{seq}", str(request["seq"]))
                             .replace("{big}", "x" * huge) + "\n")
            sys.stdout.flush()
        return 0
    if mode == "stderr-flood":
        block = b"x" * 65536 + b"\n"
        for _ in range(huge // len(block) + 1):
            sys.stderr.buffer.write(block)
        sys.stderr.flush()
        from conformance.serve import serve
        return serve(sys.stdin, sys.stdout)
    hello(pipeline)
    if mode == "no-read":
        time.sleep(1000)
        return 0
    runs = 0
    while True:
        line = sys.stdin.readline()
        if not line:
            if mode == "ignore-term":
                time.sleep(1000)
            return 0
        request = json.loads(line)
        if request.get("cmd") == "bye":
            if mode == "ignore-term":
                time.sleep(1000)
            return 0
        runs += 1
        if mode == "silent":
            continue
        if mode == "garbage":
            sys.stdout.write("this is not JSON\n\x00\x01{{{\n")
            sys.stdout.flush()
        elif mode == "huge":
            sys.stdout.write("x" * huge)
            sys.stdout.flush()
        elif mode == "die-mid" and runs >= 2:
            os._exit(3)
        else:
            from conformance.serve import run_reply
            out(run_reply(request["seq"], request.get("case")))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
