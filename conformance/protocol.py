"""The harness side of the HKK implementation protocol, version 1.

Covers :class:`ProtocolClient`, which drives an implementation program (see
``docs/spec/hkk-protocol.md``): it starts the program from a command line
(split with :func:`shlex.split`, never through a shell), says ``hello`` and
checks ``ok`` and protocol 1, keeps the ``implementation``, ``rulesets`` and
``verbs`` it announced, sends one ``run`` per case and waits for the reply
with the same ``seq``, and says ``bye`` on :meth:`ProtocolClient.close`.

Standard output is read by a thread into a queue, so a hung program cannot
block the harness. Standard error is copied to a log file (default
``reports/runs/<implementation name>.stderr.log``).

A reply that is late (past the per-case deadline), malformed (not JSON, not an
object, a wrong ``seq``, none of ``state``/``refused``/``skipped``/
``errored``), or missing because the program died becomes a *harness reply*
for that case and the program is restarted (at most ``max_restarts`` times);
after that every remaining case gets "implementation unavailable". A harness
reply is ``{"seq": n, "harness": {"outcome": "timeout"|"error", "message": ...}}``
(this key is the harness's own, never sent by an implementation).

:func:`interpret_reply` maps a reply to what the runner does with it:
``state`` → the observed state is matched against ``then`` (the harness never
sends ``then``); ``refused`` → an observed refusal; ``skipped`` → ``skip``
(with the ``unsupported`` list); ``errored`` → ``error``.
"""
from __future__ import annotations

import json
import queue
import re
import shlex
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

PROTOCOL_VERSION = 1
_EOF = object()


CASE_FORMAT = "hkk-case/1"      # the case format the harness sends (conformance.loader.FORMAT)


def _formats(command: str, reply: dict) -> list[str]:
    """The case formats a hello reply lists. A reply without ``formats`` is taken to
    speak ``hkk-case/1`` (implementations written before the list existed); one that
    lists formats without the harness's is refused (docs/protocol-additions.md)."""
    formats = reply.get("formats")
    if formats is None:
        return [CASE_FORMAT]
    if not isinstance(formats, list) or not all(isinstance(f, str) for f in formats):
        raise ProtocolError(f"{command!r}: hello `formats` must be a list of strings, "
                            f"not {formats!r}")
    if CASE_FORMAT not in formats:
        raise ProtocolError(f"{command!r} speaks the case formats {formats}, not {CASE_FORMAT}")
    return list(formats)


class ProtocolError(RuntimeError):
    """The implementation cannot be used (failed to start or to say hello)."""


def _slug(name: str) -> str:
    s = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.")
    return s or "implementation"


class _StderrSink:
    """Copies a program's stderr to a file; buffers until the path is known."""

    def __init__(self, path: str | Path | None = None):
        self._lock = threading.Lock()
        self._buffer: list[bytes] = []
        self._fh = None
        self.path: Path | None = None
        if path is not None:
            self.set_path(path)

    def set_path(self, path: str | Path) -> None:
        with self._lock:
            if self._fh is not None:
                return
            self.path = Path(path)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = open(self.path, "ab")
            for chunk in self._buffer:
                self._fh.write(chunk)
            self._buffer.clear()
            self._fh.flush()

    def write(self, data: bytes) -> None:
        with self._lock:
            if self._fh is None:
                self._buffer.append(data)
            else:
                self._fh.write(data)
                self._fh.flush()

    def close(self) -> None:
        with self._lock:
            if self._fh is not None:
                self._fh.close()
                self._fh = None


class _Process:
    """One running instance of the program, with its reader threads."""

    def __init__(self, argv: list[str], sink: _StderrSink, cwd=None, env=None):
        self.lines: "queue.Queue[Any]" = queue.Queue()
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=cwd, env=env)
        self._out = threading.Thread(target=self._read_stdout, daemon=True)
        self._err = threading.Thread(target=self._read_stderr, args=(sink,), daemon=True)
        self._out.start()
        self._err.start()

    def _read_stdout(self) -> None:
        try:
            for raw in iter(self.proc.stdout.readline, b""):
                self.lines.put(raw)
        except (OSError, ValueError):
            pass
        finally:
            self.lines.put(_EOF)

    def _read_stderr(self, sink: _StderrSink) -> None:
        try:
            for raw in iter(lambda: self.proc.stderr.read1(65536), b""):
                sink.write(raw)
        except (OSError, ValueError):
            pass

    def send(self, obj: dict) -> None:
        data = (json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8")
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def receive(self, deadline: float) -> Any:
        """The next non-blank line (bytes), _EOF, or None when the deadline passed."""
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            try:
                item = self.lines.get(timeout=remaining)
            except queue.Empty:
                return None
            if item is _EOF or item.strip():
                return item

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self, grace: float = 2.0, say_bye: bool = False) -> None:
        if say_bye and self.alive():
            try:
                self.send({"cmd": "bye"})
            except (OSError, ValueError):
                pass
        try:
            self.proc.stdin.close()
        except (OSError, ValueError):
            pass
        try:
            self.proc.wait(timeout=grace if say_bye else 0.2)
        except subprocess.TimeoutExpired:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._err.join(timeout=1.0)
        for stream in (self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except (OSError, ValueError):
                pass


class ProtocolClient:
    """Drive one implementation program over protocol 1.

    ``command``: the command line (shlex-split, no shell). ``timeout``: the
    per-case deadline in seconds. ``max_restarts``: how many times the program
    is restarted after a late, malformed or missing reply. ``stderr_path``:
    where the program's stderr goes (default
    ``reports/runs/<implementation name>.stderr.log`` under the current
    directory). ``hello_timeout``: the deadline for the hello reply.
    """

    def __init__(self, command: str, timeout: float = 5.0, max_restarts: int = 5,
                 stderr_path: str | Path | None = None, *, hello_timeout: float | None = None,
                 cwd=None, env=None):
        self.command = command
        self.argv = shlex.split(command)
        if not self.argv:
            raise ProtocolError("empty implementation command")
        self.timeout = float(timeout)
        self.max_restarts = int(max_restarts)
        self.hello_timeout = float(hello_timeout if hello_timeout is not None
                                   else max(10.0, self.timeout))
        self.cwd, self.env = cwd, env
        self.implementation: dict = {}
        self.rulesets: list[str] = []
        self.verbs: list[str] | None = None
        self.formats: list[str] = [CASE_FORMAT]
        self.restarts = 0
        self.unavailable: str | None = None
        self._seq = 0
        self._explicit_stderr = stderr_path is not None
        self._sink = _StderrSink(stderr_path)
        self._proc: _Process | None = None
        self._needs_restart = False
        self._start(first=True)

    # -- lifecycle -----------------------------------------------------------

    @property
    def name(self) -> str:
        return str(self.implementation.get("name") or Path(self.argv[0]).name)

    @property
    def stderr_path(self) -> Path | None:
        return self._sink.path

    def _start(self, first: bool = False) -> None:
        if not first:
            self._sink.write(f"--- kodex: restart {self.restarts} of {self.command} ---\n"
                             .encode("utf-8"))
        try:
            self._proc = _Process(self.argv, self._sink, cwd=self.cwd, env=self.env)
        except OSError as exc:
            self._proc = None
            raise ProtocolError(f"cannot start {self.command!r}: {exc}") from exc
        try:
            self._hello()
        except ProtocolError:
            if first:
                self._default_sink()
            self._proc.stop()
            self._proc = None
            raise
        if first:
            self._default_sink()

    def _default_sink(self) -> None:
        if not self._explicit_stderr:
            self._sink.set_path(Path("reports") / "runs" / f"{_slug(self.name)}.stderr.log")

    def _hello(self) -> None:
        proc = self._proc
        try:
            proc.send({"cmd": "hello", "protocol": PROTOCOL_VERSION, "format": CASE_FORMAT})
        except (OSError, ValueError) as exc:
            raise ProtocolError(f"{self.command!r} closed its input before hello: {exc}")
        item = proc.receive(time.monotonic() + self.hello_timeout)
        if item is None:
            raise ProtocolError(f"{self.command!r} did not answer hello within "
                                f"{self.hello_timeout:g} s")
        if item is _EOF:
            raise ProtocolError(f"{self.command!r} exited before answering hello "
                                f"(exit status {proc.proc.poll()})")
        try:
            reply = json.loads(item.decode("utf-8", errors="replace"))
        except ValueError:
            raise ProtocolError(f"{self.command!r}: hello reply is not JSON: {item[:200]!r}")
        if not isinstance(reply, dict):
            raise ProtocolError(f"{self.command!r}: hello reply is not an object")
        if reply.get("ok") is not True:
            raise ProtocolError(f"{self.command!r} refused protocol {PROTOCOL_VERSION}: "
                                f"{reply.get('error', 'no reason given')}")
        if "protocol" in reply and reply["protocol"] != PROTOCOL_VERSION:
            raise ProtocolError(f"{self.command!r} speaks protocol {reply['protocol']}, "
                                f"not {PROTOCOL_VERSION}")
        self.formats = _formats(self.command, reply)
        impl = reply.get("implementation")
        self.implementation = dict(impl) if isinstance(impl, dict) else {}
        rulesets = reply.get("rulesets")
        self.rulesets = [str(r) for r in rulesets] if isinstance(rulesets, list) else []
        verbs = reply.get("verbs")
        self.verbs = [str(v) for v in verbs] if isinstance(verbs, list) else None

    def _restart(self) -> bool:
        """Restart the program; False when no restart is left or it failed."""
        if self._proc is not None:
            self._proc.stop()
            self._proc = None
        while self.restarts < self.max_restarts:
            self.restarts += 1
            try:
                self._start()
                self._needs_restart = False
                return True
            except ProtocolError as exc:
                self._sink.write(f"--- kodex: restart failed: {exc} ---\n".encode("utf-8"))
        self.unavailable = (f"implementation unavailable (gave up after "
                            f"{self.max_restarts} restarts)")
        return False

    def close(self) -> None:
        if self._proc is not None:
            self._proc.stop(say_bye=True)
            self._proc = None
        self._sink.close()

    def __enter__(self) -> "ProtocolClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- running -------------------------------------------------------------

    def _harness(self, seq: int, outcome: str, message: str) -> dict:
        return {"seq": seq, "harness": {"outcome": outcome, "message": message}}

    def run(self, case_id: str, ruleset: str, given: dict | None, when: list | None) -> dict:
        """Send one case (without ``then``) and return the reply for it."""
        self._seq += 1
        seq = self._seq
        if self.unavailable:
            return self._harness(seq, "error", self.unavailable)
        if self._needs_restart or self._proc is None or not self._proc.alive():
            if not self._restart():
                return self._harness(seq, "error", self.unavailable)
        request = {"cmd": "run", "seq": seq,
                   "case": {"id": case_id, "ruleset": ruleset,
                            "given": given if given is not None else {},
                            "when": when if when is not None else []}}
        proc = self._proc
        try:
            proc.send(request)
        except (OSError, ValueError) as exc:
            self._needs_restart = True
            return self._harness(seq, "error", f"implementation died (cannot send: {exc})")
        item = proc.receive(time.monotonic() + self.timeout)
        if item is None:
            self._needs_restart = True
            return self._harness(seq, "timeout", f"no reply within {self.timeout:g} s")
        if item is _EOF:
            self._needs_restart = True
            try:
                status = proc.proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                status = None
            return self._harness(seq, "error",
                                 f"implementation died without a reply (exit status {status})")
        text = item.decode("utf-8", errors="replace").strip()
        try:
            reply = json.loads(text)
        except ValueError:
            self._needs_restart = True
            return self._harness(seq, "error", f"malformed reply (not JSON): {text[:200]!r}")
        problem = _reply_problem(reply, seq)
        if problem:
            self._needs_restart = True
            return self._harness(seq, "error", f"malformed reply ({problem}): {text[:200]!r}")
        return reply


def _reply_problem(reply: Any, seq: int) -> str | None:
    if not isinstance(reply, dict):
        return "not a JSON object"
    if reply.get("seq") != seq:
        return f"seq {reply.get('seq')!r}, expected {seq}"
    if not any(k in reply for k in ("state", "refused", "skipped", "errored")):
        return "none of state/refused/skipped/errored"
    if "errored" not in reply and "skipped" not in reply:
        if "state" in reply and not isinstance(reply["state"], dict):
            return "state is not an object"
        if "refused" in reply and not isinstance(reply["refused"], dict):
            return "refused is not an object"
        if "events" in reply and not isinstance(reply["events"], list):
            return "events is not a list"
    return None


def interpret_reply(reply: dict) -> tuple[str, dict]:
    """Map a reply to ("observed", {state, events, result, refused}) or to
    (outcome, {message, traceback}) with outcome in skip/error/timeout."""
    if "harness" in reply:
        h = reply["harness"]
        return h.get("outcome", "error"), {"message": h.get("message", "")}
    if "errored" in reply:
        err = reply["errored"]
        if isinstance(err, dict):
            return "error", {"message": "implementation errored: " + str(err.get("message", "")),
                             "traceback": err.get("traceback")}
        return "error", {"message": f"implementation errored: {err}"}
    if "skipped" in reply:
        msg = str(reply.get("skipped") or "skipped by the implementation")
        unsupported = reply.get("unsupported")
        if unsupported:
            msg += " (unsupported: " + ", ".join(str(u) for u in unsupported) + ")"
        return "skip", {"message": msg}
    refused = reply.get("refused")
    return "observed", {"state": reply.get("state") or {}, "events": reply.get("events") or [],
                        "result": reply.get("result", "ongoing"), "refused": refused}
