"""The harness side of the HKK implementation protocol, version 1.

Covers :class:`ProtocolClient`, which drives an implementation program (see
``docs/spec/hkk-protocol.md``): it starts the program from a command line
(split with :func:`shlex.split`, never through a shell), says ``hello`` and
checks ``ok`` and protocol 1, keeps the ``implementation``, ``rulesets`` and
``verbs`` it announced, sends one ``run`` per case and waits for the reply
with the same ``seq``, and says ``bye`` on :meth:`ProtocolClient.close`.

The program runs in its own process group (a new session). Its pipes are
non-blocking and read with :mod:`selectors` against deadlines (no reader
threads), so neither a hung program nor a child of it that keeps standard
output open can block the harness. Standard error is copied to a log file
(default ``reports/runs/<implementation name>.stderr.log``, at most
``MAX_STDERR_BYTES`` kept); a reply line is at most ``MAX_REPLY_BYTES``; a
request must be taken within ``SEND_TIMEOUT``. Ending the program: ``bye``,
a short wait, SIGTERM to its process group, then SIGKILL to the group, so
nothing it started is left behind (:func:`kill_all` does the same for every
running program when ``kodex run`` is interrupted). The limits are in
``docs/spec/hkk-protocol-additions.md``.

A reply that is late (past the per-case deadline), malformed (not JSON, not an
object, a wrong ``seq``, none of ``state``/``refused``/``skipped``/
``errored``), or missing because the program died becomes a *harness reply*
for that case (a crashing case costs that case) and the program is restarted
for the next one. The harness gives up only when ``max_restarts`` cases in a
row have crashed, hung or answered garbage (a good reply resets the count) or
when the program cannot be started again: :attr:`ProtocolClient.gave_up`
then says why and after which case, and every remaining case is *not run*
(the runner's ``not_run`` outcome). A harness reply is
``{"seq": n, "harness": {"outcome": "timeout"|"error"|"not_run", "message": ...}}``
(this key is the harness's own, never sent by an implementation).

The ``hello`` reply may declare the implementation's conformance ``profile``:
which observations it supports (``conformance.profiles``); absent means all.

:func:`interpret_reply` maps a reply to what the runner does with it:
``state`` → the observed state is matched against ``then`` (the harness never
sends ``then``); ``refused`` → an observed refusal; ``skipped`` → ``skip``
(with the ``unsupported`` list); ``errored`` → ``error``.
"""
from __future__ import annotations

import collections
import json
import os
import re
import selectors
import shlex
import signal
import subprocess
import time
import weakref
from pathlib import Path
from typing import Any

from conformance import profiles

PROTOCOL_VERSION = 1
DEFAULT_MAX_RESTARTS = 10   # cases in a row that may crash, hang or answer garbage
START_ATTEMPTS = 3          # tries to start the program again before giving up
_EOF = object()
_TOO_LONG = object()

# limits (docs/spec/hkk-protocol-additions.md, "What the harness does with replies")
MAX_REPLY_BYTES = 16 * 1024 * 1024     # one reply line
MAX_STDERR_BYTES = 16 * 1024 * 1024    # stderr kept in the log per run
SEND_TIMEOUT = 10.0                    # a request must be taken within this
STOP_GRACE = 2.0                       # after bye, and after SIGTERM
POLL_INTERVAL = 0.1                    # how often a wait checks whether the program ended


CASE_FORMAT = "hkk-case/1"      # the case format the harness sends (conformance.loader.FORMAT)


def _formats(command: str, reply: dict) -> list[str]:
    """The case formats a hello reply lists. A reply without ``formats`` is taken to
    speak ``hkk-case/1`` (implementations written before the list existed); one that
    lists formats without the harness's is refused (docs/spec/hkk-protocol-additions.md)."""
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
    """Copies a program's stderr to a file; buffers until the path is known.

    At most ``limit`` bytes are kept (across restarts); the rest is dropped
    with one note in the log.
    """

    def __init__(self, path: str | Path | None = None, limit: int | None = None):
        self._buffer: list[bytes] = []
        self._fh = None
        self.path: Path | None = None
        self.limit = MAX_STDERR_BYTES if limit is None else limit
        self.kept = 0
        self.dropped = 0
        if path is not None:
            self.set_path(path)

    def set_path(self, path: str | Path) -> None:
        if self._fh is not None:
            return
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "wb")     # each run its own log
        for chunk in self._buffer:
            self._fh.write(chunk)
        self._buffer.clear()
        self._fh.flush()

    def _put(self, data: bytes) -> None:
        if self._fh is None:
            self._buffer.append(data)
        else:
            self._fh.write(data)
            self._fh.flush()

    def write(self, data: bytes) -> None:
        room = self.limit - self.kept
        if room <= 0:
            self.dropped += len(data)
            return
        if len(data) > room:
            self.dropped += len(data) - room
            data = data[:room]
            self.kept = self.limit
            self._put(data + (f"\n--- kodex: stderr kept up to {self.limit} bytes; "
                              "the rest is dropped ---\n").encode("utf-8"))
            return
        self.kept += len(data)
        self._put(data)

    def note(self, text: str) -> None:
        """A line of the harness's own (not counted against the limit)."""
        self._put(text.encode("utf-8"))

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


class SendTimeout(OSError):
    """The program did not read its input within the send deadline."""


_LIVE: "weakref.WeakSet[_Process]" = weakref.WeakSet()


def kill_all(sig: int = signal.SIGTERM) -> None:
    """Send ``sig`` to the process group of every running implementation and
    mark them aborted (their :meth:`_Process.stop` then skips ``bye`` and
    escalates to SIGKILL at once). Safe to call from a signal handler."""
    for proc in list(_LIVE):
        proc.aborted = True
        proc.signal_group(sig)


class _Process:
    """One running instance of the program: its own process group (session),
    non-blocking pipes read with :mod:`selectors` against deadlines, no
    threads. Standard output is split into lines (each at most
    ``MAX_REPLY_BYTES``); standard error goes to the sink."""

    def __init__(self, argv: list[str], sink: _StderrSink, cwd=None, env=None):
        self.sink = sink
        self.aborted = False
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=cwd, env=env,
                                     start_new_session=True, bufsize=0)
        _LIVE.add(self)
        self.pgid = self.proc.pid
        self._in = self.proc.stdin.fileno()
        self._out = self.proc.stdout.fileno()
        self._err = self.proc.stderr.fileno()
        for fd in (self._in, self._out, self._err):
            os.set_blocking(fd, False)
        self._sel = selectors.DefaultSelector()
        self._sel.register(self._out, selectors.EVENT_READ, "out")
        self._sel.register(self._err, selectors.EVENT_READ, "err")
        self._partial = bytearray()
        self._lines: collections.deque = collections.deque()
        self._out_eof = False
        self._too_long = False
        self._closed = False

    # -- reading ---------------------------------------------------------

    def _read_ready(self, timeout: float) -> bool:
        """Wait up to ``timeout`` for output and read what is there; True when
        something was read."""
        if not self._sel.get_map():
            if timeout > 0:
                time.sleep(min(timeout, 0.05))
            return False
        got = False
        for key, _ in self._sel.select(max(0.0, timeout)):
            fd = key.fd
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                self._sel.unregister(fd)
                if key.data == "out":
                    self._out_eof = True
                continue
            got = True
            if key.data == "err":
                self.sink.write(chunk)
            else:
                self._take(chunk)
        return got

    def _take(self, chunk: bytes) -> None:
        if self._too_long:
            return
        self._partial += chunk
        while True:
            nl = self._partial.find(b"\n")
            if nl < 0:
                break
            line = bytes(self._partial[:nl + 1])
            del self._partial[:nl + 1]
            if len(line) > MAX_REPLY_BYTES:
                self._too_long = True
                self._partial.clear()
                return
            if line.strip():
                self._lines.append(line)
        if len(self._partial) > MAX_REPLY_BYTES:
            self._too_long = True
            self._partial.clear()

    def receive(self, deadline: float) -> Any:
        """The next non-blank line (bytes), _EOF (the program ended or closed
        its output), _TOO_LONG (a line over MAX_REPLY_BYTES), or None when
        the deadline passed."""
        while True:
            if self._lines:
                return self._lines.popleft()
            if self._too_long:
                return _TOO_LONG
            if self._out_eof:
                return _EOF
            if self.proc.poll() is not None:
                # the program ended; a child of it may hold the pipe open, so
                # take what is already there and call it the end
                while self._read_ready(0):
                    pass
                if self._lines:
                    continue
                return _TOO_LONG if self._too_long else _EOF
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            self._read_ready(min(remaining, POLL_INTERVAL))

    # -- writing ---------------------------------------------------------

    def send(self, obj: dict, deadline: float | None = None) -> None:
        """Write one request line; raises OSError (SendTimeout past the
        deadline) when the program does not take it."""
        if deadline is None:
            deadline = time.monotonic() + SEND_TIMEOUT
        data = memoryview((json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8"))
        with selectors.DefaultSelector() as wsel:
            wsel.register(self._in, selectors.EVENT_WRITE)
            while data:
                try:
                    n = os.write(self._in, data)
                    data = data[n:]
                    continue
                except BlockingIOError:
                    pass
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise SendTimeout("the program does not read its input")
                if self.proc.poll() is not None:
                    raise BrokenPipeError("the program has ended")
                # keep its output flowing while we wait, so it cannot block on it
                self._read_ready(0)
                wsel.select(min(remaining, POLL_INTERVAL))

    # -- ending ----------------------------------------------------------

    def alive(self) -> bool:
        return self.proc.poll() is None

    def signal_group(self, sig: int) -> bool:
        """Send ``sig`` to the program's process group; False when no member is left."""
        try:
            os.killpg(self.pgid, sig)
            return True
        except (ProcessLookupError, PermissionError):
            return False
        except OSError:
            return False

    def _wait(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for the program to end, draining its output."""
        deadline = time.monotonic() + seconds
        while self.proc.poll() is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            self._read_ready(min(remaining, POLL_INTERVAL / 2))
        return True

    def stop(self, grace: float | None = None, say_bye: bool = False) -> None:
        """``bye`` (when asked), close its input, wait briefly; then SIGTERM to
        its process group, wait ``grace``; then SIGKILL to the group. Whatever
        the program started is ended with it."""
        if self._closed:
            return
        grace = STOP_GRACE if grace is None else grace
        said_bye = False
        if say_bye and not self.aborted and self.alive():
            try:
                self.send({"cmd": "bye"}, time.monotonic() + min(grace, 1.0))
                said_bye = True
            except OSError:
                pass
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        ended = self._wait(grace if said_bye else 0.2)
        # the group: children left behind by the program, or the program itself
        if self.signal_group(signal.SIGTERM):
            if not ended:
                ended = self._wait(0.2 if self.aborted else grace)
            self._wait_group(0.2 if self.aborted else min(grace, 0.5))
            self.signal_group(signal.SIGKILL)
        if not ended:
            self.proc.kill()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover (unkillable)
            pass
        while self._read_ready(0):
            pass
        self._sel.close()
        for stream in (self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except OSError:
                pass
        self._closed = True
        _LIVE.discard(self)

    def _wait_group(self, seconds: float) -> None:
        """Give the group's remaining members ``seconds`` to go after SIGTERM."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if not self.signal_group(0) or not _group_has_live_member(self.pgid):
                return
            time.sleep(0.02)


def _group_has_live_member(pgid: int) -> bool:
    """Whether process group ``pgid`` has a member that is not a zombie (a
    killed child waiting to be reaped by init counts as ended). Without
    ``/proc``: True (the caller then waits its full time)."""
    proc = Path("/proc")
    if not (proc / "self" / "stat").exists():
        return True
    for entry in os.scandir(proc):
        if not entry.name.isdigit():
            continue
        try:
            with open(os.path.join(entry.path, "stat"), "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 2 and fields[2] == str(pgid).encode() and fields[0] != b"Z":
            return True
    return False


class ProtocolClient:
    """Drive one implementation program over protocol 1.

    ``command``: the command line (shlex-split, no shell). ``timeout``: the
    per-case deadline in seconds. ``max_restarts``: how many cases in a row
    may crash, hang or answer garbage (each one restarts the program) before
    the harness gives up; a good reply resets the count. ``stderr_path``:
    where the program's stderr goes (default
    ``reports/runs/<implementation name>.stderr.log`` under the current
    directory, truncated at the start of the run: each run its own log).
    ``hello_timeout``: the deadline for the hello reply.
    """

    def __init__(self, command: str, timeout: float = 5.0, max_restarts: int = DEFAULT_MAX_RESTARTS,
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
        self.profile: list[str] = list(profiles.ALL)
        self.profile_declared = False
        self.restarts = 0
        self.consecutive_failures = 0
        self.cases_sent = 0
        self.unavailable: str | None = None
        self.gave_up: dict | None = None
        self._last_case: str | None = None
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
            self._sink.note(f"--- kodex: restart {self.restarts} of {self.command} ---\n")
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
        except OSError as exc:
            raise ProtocolError(f"{self.command!r} did not take the hello request: {exc}")
        item = proc.receive(time.monotonic() + self.hello_timeout)
        if item is None:
            raise ProtocolError(f"{self.command!r} did not answer hello within "
                                f"{self.hello_timeout:g} s")
        if item is _EOF:
            raise ProtocolError(f"{self.command!r} exited before answering hello "
                                f"(exit status {proc.proc.poll()})")
        if item is _TOO_LONG:
            raise ProtocolError(f"{self.command!r}: hello reply longer than "
                                f"{MAX_REPLY_BYTES} bytes")
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
        declared = reply.get("profile")
        if declared is not None:
            if not isinstance(declared, list) or not all(isinstance(x, str) for x in declared):
                raise ProtocolError(f"{self.command!r}: hello `profile` must be a list of "
                                    f"strings (some of {', '.join(profiles.ALL)}), "
                                    f"not {declared!r}")
            unknown = [x for x in declared if x not in profiles.ALL]
            if unknown:
                raise ProtocolError(f"{self.command!r}: hello `profile` names unknown "
                                    f"observations {unknown} (known: {', '.join(profiles.ALL)})")
            self.profile = [x for x in profiles.ALL if x in declared]
            self.profile_declared = True

    def _give_up(self, reason: str) -> None:
        self.gave_up = {"reason": reason, "after_case": self._last_case,
                        "consecutive_failures": self.consecutive_failures,
                        "restarts": self.restarts, "cases_sent": self.cases_sent}
        self.unavailable = f"implementation unavailable: gave up ({reason})"
        self._sink.note(f"--- kodex: gave up: {reason} ---\n")

    def _restart(self) -> bool:
        """Restart the program for the next case; False (and :attr:`gave_up`
        set) when ``max_restarts`` cases in a row have failed or the program
        cannot be started again."""
        if self._proc is not None:
            self._proc.stop()
            self._proc = None
        if self.consecutive_failures > self.max_restarts:
            self._give_up(f"{self.consecutive_failures} cases in a row crashed, hung or "
                          f"answered garbage (the limit is {self.max_restarts})")
            return False
        last = None
        for _attempt in range(START_ATTEMPTS):
            self.restarts += 1
            try:
                self._start()
                self._needs_restart = False
                return True
            except ProtocolError as exc:
                last = exc
                self._sink.note(f"--- kodex: restart failed: {exc} ---\n")
        self._give_up(f"the program could not be started again ({START_ATTEMPTS} attempts): "
                      f"{last}")
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
        if outcome != "not_run":
            self.consecutive_failures += 1
        return {"seq": seq, "harness": {"outcome": outcome, "message": message}}

    def run(self, case_id: str, ruleset: str, given: dict | None, when: list | None) -> dict:
        """Send one case (without ``then``) and return the reply for it."""
        self._seq += 1
        seq = self._seq
        if self.unavailable:
            return self._harness(seq, "not_run", self.unavailable)
        if self._needs_restart or self._proc is None or not self._proc.alive():
            if self._proc is not None and not self._needs_restart:
                # the program ended between cases: that costs the case before
                self.consecutive_failures += 1
            if not self._restart():
                return self._harness(seq, "not_run", self.unavailable)
        reply = self._run(seq, case_id, ruleset, given, when)
        self._last_case = case_id
        self.cases_sent += 1
        if "harness" not in reply:
            self.consecutive_failures = 0
        return reply

    def _run(self, seq: int, case_id: str, ruleset: str, given: dict | None,
             when: list | None) -> dict:
        request = {"cmd": "run", "seq": seq,
                   "case": {"id": case_id, "ruleset": ruleset,
                            "given": given if given is not None else {},
                            "when": when if when is not None else []}}
        proc = self._proc
        try:
            proc.send(request, time.monotonic() + max(self.timeout, SEND_TIMEOUT))
        except SendTimeout:
            self._needs_restart = True
            return self._harness(seq, "timeout", "the implementation did not read the request "
                                                 f"within {max(self.timeout, SEND_TIMEOUT):g} s")
        except OSError as exc:
            self._needs_restart = True
            return self._harness(seq, "error", f"implementation died (cannot send: {exc})")
        item = proc.receive(time.monotonic() + self.timeout)
        if item is None:
            self._needs_restart = True
            return self._harness(seq, "timeout", f"no reply within {self.timeout:g} s")
        if item is _TOO_LONG:
            self._needs_restart = True
            return self._harness(seq, "error", f"malformed reply (a line longer than "
                                               f"{MAX_REPLY_BYTES} bytes)")
        if item is _EOF:
            self._needs_restart = True
            status = proc.proc.poll()
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
