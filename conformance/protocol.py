"""The harness side of the HKK implementation protocol, version 1.

Covers :class:`ProtocolClient`, which drives an implementation program (see
``docs/spec/hkk-protocol.md``): it starts the program from a command line
(split with :func:`shlex.split`, never through a shell), says ``hello`` and
checks ``ok`` and protocol 1, keeps the ``implementation``, ``rulesets`` and
``verbs`` it announced, sends one ``run`` per case and takes the reply with
the same ``seq``, and says ``bye`` on :meth:`ProtocolClient.close`.

The program runs in its own process group (a new session). Its pipes are
non-blocking and read with :mod:`selectors` against deadlines (no reader
threads), so neither a hung program nor a child of it that keeps standard
output open can block the harness. Standard error is copied to a log file
(default ``reports/runs/<implementation name>.stderr.log``, at most
``MAX_STDERR_BYTES`` kept; a new file of the run's own renamed into place
when the client closes, ``conformance.atomicio.open_new``); a reply line is
at most ``MAX_REPLY_BYTES`` and strict JSON (``conformance.strictjson``: no
NaN / Infinity, no lone surrogate, at most ``MAX_REPLY_DEPTH`` levels), a
``hello`` within ``conformance.bounds.hello_problem``; a request must be taken
within ``SEND_TIMEOUT``. Ending the program: ``bye``, a short wait, SIGTERM
to its process group, then SIGKILL to the group, and SIGKILL to every
process carrying the program's mark in its environment (``KODEX_IMPL_<hex>=1``,
inherited by all it starts: found in ``/proc`` also after it left the group
with ``setsid``), so nothing it started is left behind (:func:`kill_all`
signals the groups of every running program when ``kodex run`` is
interrupted). A program that ends before ``hello`` is reported with its exit
status and the last lines of its standard error. The limits are in
``docs/spec/hkk-protocol-additions.md``.

A reply that is late (past the per-case deadline), malformed (not JSON, not an
object, a wrong ``seq``, none of ``state``/``refused``/``skipped``/
``errored``), or missing because the program died becomes a *harness reply*
for that case (a crashing case costs that case) and the program is restarted
for the next one. The harness gives up only when ``max_restarts`` cases in a
row have crashed, hung or answered garbage (a good reply resets the count) or
when the program cannot be started again: :attr:`ProtocolClient.gave_up`
then says why and after which case, and every remaining case is *not run*
(the runner's ``not_run`` outcome). The harness's own verdict on a case is a
:class:`HarnessVerdict` (outcome ``timeout``, ``error`` or ``not_run``), never a
dict: nothing an implementation sends can be taken for one. A reply that carries
a key only the harness writes (:data:`HARNESS_KEYS`: ``outcome``, ``verdict``,
``harness``, ``difference`` …) is malformed (``error`` for that case): only the
harness judges.

Requests in flight (``docs/spec/hkk-protocol-additions.md``, "Requests in
flight"): when the ``hello`` reply declares ``pipeline: N``, up to
``min(N, window)`` requests are in flight per program (``window`` defaults to
``DEFAULT_WINDOW``); otherwise one at a time. :func:`drive` runs cases through
one or several clients (:meth:`ProtocolClient.run_many`, :class:`ProtocolPool`
for ``kodex run --jobs N``) with one selector loop, no threads: requests are
queued and written as the pipe takes them, replies are matched by ``seq`` and
yielded in the cases' order. The deadline runs for the oldest request in
flight from when it became the oldest. A timeout or a malformed reply to a
request in flight falls on that case and the others are sent again to the
restarted program; a failure that names no request (the program ended, a line
that is no reply to a request in flight) with several in flight sends each of
them again alone, so that it falls on the case that causes it
(``PIPELINE_STRIKES`` of those and the client keeps one in flight). Nothing in
flight is lost: when the harness gives up, it is not run.

The ``hello`` reply may declare the implementation's conformance ``profile``:
which observations it supports (``conformance.profiles``), and its ``features``:
which parts of the rules it implements (``conformance.features``); absent means all.

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
import select
import selectors
import shlex
import signal
import subprocess
import time
import weakref
from pathlib import Path
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

from conformance import bounds, features, profiles, strictjson

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
DEFAULT_WINDOW = 32                    # the harness's cap on requests in flight per program
PIPELINE_STRIKES = 3                   # failures with several in flight before one at a time
PACE = 0.002                           # with a window well filled, look for replies this often
PACE_MIN = 0.00025                     # (halved while the programs keep up; below this: off)
PACE_FLIGHTS = 8                       # ... when at least this many are in flight per program
MAX_REPLY_DEPTH = 64                   # nested arrays/objects in a reply (the reply is level 1)
TAIL_BYTES = 4096                      # of stderr kept for the messages (its last lines)
TAIL_LINES = 5                         # ... shown when the program could not say hello
EXIT_WAIT = 1.0                        # for the exit status of a program that closed its output
MARK_PREFIX = "KODEX_IMPL_"            # the environment mark of one program's descendants
MARK_ROUNDS = 5                        # rounds of SIGKILL to the marked processes at the end


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


def _parse_line(line: bytes) -> tuple[Any, str | None]:
    """(the value of one line of output, None), or (None, what is wrong with it): strict
    UTF-8 and strict JSON (``conformance.strictjson``: no NaN / Infinity, no lone
    surrogate, at most ``MAX_REPLY_DEPTH`` levels)."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"not UTF-8 (byte {line[exc.start]:#04x} at offset {exc.start})"
    try:
        return strictjson.loads(text, max_depth=MAX_REPLY_DEPTH), None
    except strictjson.StrictJSONError as exc:
        reason = str(exc)
        return None, reason if reason.startswith("not JSON") else f"not strict JSON ({reason})"


def _ending(status: int | None) -> str:
    """How a program ended, from its return code."""
    if status is None:
        return "it closed its standard output and has not ended"
    if status < 0:
        try:
            return f"killed by {signal.Signals(-status).name}"
        except ValueError:
            return f"killed by signal {-status}"
    return f"exit status {status}"


def _short(value: Any, limit: int = 200) -> str:
    from conformance.terminal import safe_text
    return safe_text(value, limit)


class ProtocolError(RuntimeError):
    """The implementation cannot be used (failed to start or to say hello)."""


def _slug(name: str) -> str:
    s = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.")
    return s or "implementation"


class _StderrSink:
    """Copies a program's stderr to a file; buffers until the path is known.

    At most ``limit`` bytes are kept (across restarts); the rest is dropped
    with one note in the log. The log is a new file of the run's own
    (``conformance.atomicio.open_new``: created exclusively beside its path,
    never through a link already there) renamed over its path when the run
    closes it, just before the results are written: two runs given one
    ``--json`` leave the log and the results of the same run. The last
    ``TAIL_BYTES`` received are kept apart for the messages (:meth:`tail`).
    """

    def __init__(self, path: str | Path | None = None, limit: int | None = None):
        self._buffer: list[bytes] = []
        self._file = None                    # conformance.atomicio.NewFile
        self.path: Path | None = None
        self.limit = MAX_STDERR_BYTES if limit is None else limit
        self.kept = 0
        self.dropped = 0
        self._tail = bytearray()
        if path is not None:
            self.set_path(path)

    def set_path(self, path: str | Path) -> None:
        """Where the log goes; ``conformance.atomicio.OutputError`` when it cannot be created."""
        if self._file is not None:
            return
        from conformance import atomicio
        self._file = atomicio.open_new(path)
        self.path = Path(path)
        buffered, self._buffer = self._buffer, []
        for chunk in buffered:
            self._put(chunk)

    def _put(self, data: bytes) -> None:
        if self._file is None:
            self._buffer.append(data)
            return
        from conformance import atomicio
        try:
            self._file.write(data)
        except atomicio.OutputError:
            self._file.close(publish=False)
            raise

    def write(self, data: bytes) -> None:
        self._tail += data
        del self._tail[:-TAIL_BYTES]
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

    def tail(self, lines: int = TAIL_LINES) -> str:
        """The last ``lines`` non-blank lines of standard error, as one line (" | " between
        them; control characters escaped), or "" when it said nothing."""
        from conformance.terminal import safe_text
        text = bytes(self._tail).decode("utf-8", errors="replace")
        kept = [ln.strip() for ln in text.splitlines() if ln.strip()][-lines:]
        return " | ".join(safe_text(ln, 200) for ln in kept)

    def close(self) -> None:
        """Rename the log into place (``conformance.atomicio.OutputError`` when it cannot be)."""
        if self._file is not None:
            f, self._file = self._file, None
            if f.fd >= 0:
                f.close(publish=True)


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


def stop_all() -> None:
    """End every implementation still running (a command that stopped on an error before it
    closed its clients): each is stopped as :meth:`_Process.stop` does, at once, with all it
    started."""
    for proc in list(_LIVE):
        proc.aborted = True
        proc.stop(grace=0.2)


class _Process:
    """One running instance of the program: its own process group (session),
    non-blocking pipes read with :mod:`selectors` against deadlines, no
    threads. Standard output is split into lines (each at most
    ``MAX_REPLY_BYTES``); standard error goes to the sink."""

    def __init__(self, argv: list[str], sink: _StderrSink, cwd=None, env=None):
        self.sink = sink
        self.aborted = False
        # every descendant inherits the mark (unless it clears its environment): found by it
        # when it has left the process group (setsid) and its parent is gone
        self.mark = f"{MARK_PREFIX}{os.urandom(8).hex()}"
        env = dict(os.environ if env is None else env)
        env[self.mark] = "1"
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
        # requests queued for standard input: written as the pipe takes them
        self._outbuf = bytearray()
        self.queued = 0                      # bytes queued so far
        self.written = 0                     # bytes the program has taken so far
        self.write_error: OSError | None = None
        self._want_write = False

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
            if key.data == "in":
                self._flush()
                continue
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

    def queue(self, obj: dict) -> int:
        """Queue one request line and write what the pipe takes now (never
        blocks); the rest is written while the harness waits for output.
        Returns the offset the program must have taken for the line to be
        read whole (compare :attr:`written`)."""
        text = json.dumps(obj, ensure_ascii=False) + "\n"
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:       # a lone surrogate from a case: sent as its escape
            data = (json.dumps(obj, ensure_ascii=True) + "\n").encode("ascii")
        if self.write_error is None:
            self._outbuf += data
        self.queued += len(data)
        self._flush()
        return self.queued

    def _flush(self) -> None:
        while self._outbuf and self.write_error is None:
            try:
                n = os.write(self._in, self._outbuf)
            except BlockingIOError:
                break
            except OSError as exc:           # the program closed its input or ended
                self.write_error = exc
                self._outbuf.clear()
                break
            del self._outbuf[:n]
            self.written += n
        want = bool(self._outbuf) and self.write_error is None
        if want != self._want_write:
            if want:
                self._sel.register(self._in, selectors.EVENT_WRITE, "in")
            else:
                self._sel.unregister(self._in)
            self._want_write = want

    def send(self, obj: dict, deadline: float | None = None) -> None:
        """Write one request line and wait until the program has taken it;
        raises OSError (SendTimeout past the deadline) when it does not."""
        if deadline is None:
            deadline = time.monotonic() + SEND_TIMEOUT
        end = self.queue(obj)
        while self.written < end:
            if self.write_error is not None:
                raise self.write_error
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise SendTimeout("the program does not read its input")
            if self.proc.poll() is not None:
                raise BrokenPipeError("the program has ended")
            # keep its output flowing while we wait, so it cannot block on it
            self._read_ready(min(remaining, POLL_INTERVAL))

    def selector_fds(self) -> list[tuple[int, int]]:
        """(fd, selector events) the program's pipes are waited on with now."""
        return [(key.fd, key.events) for key in self._sel.get_map().values()]

    # -- ending ----------------------------------------------------------

    def alive(self) -> bool:
        return self.proc.poll() is None

    def ended(self, seconds: float) -> int | None:
        """The return code once the program has ended (waiting up to ``seconds``, its
        output drained meanwhile and after), or None when it still runs."""
        self._wait(seconds)
        while self._read_ready(0):
            pass
        return self.proc.poll()

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
        self._outbuf.clear()                 # what was not taken is dropped
        self._flush()
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        ended = self._wait(grace if said_bye else 0.2)
        # descendants that left the group (setsid), found by the mark in their environment
        strays = _marked(self.mark)
        for pid in strays:
            _signal(pid, signal.SIGTERM)
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
        _kill_marked(self.mark)
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


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except OSError:
        pass


def _marked(mark: str) -> list[int]:
    """The live processes whose environment carries ``mark`` (``MARK=1``): every descendant
    of one program, also one that left its process group (``setsid``) and whose parent is
    gone. Read from ``/proc/PID/environ`` (Linux; the user's own processes); elsewhere
    none. A process that ended (a zombie) has an empty environment there."""
    proc = "/proc"
    if not os.path.exists("/proc/self/environ"):
        return []
    needle = f"{mark}=1".encode()
    me = os.getpid()
    found = []
    for entry in os.scandir(proc):
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            with open(os.path.join(entry.path, "environ"), "rb") as fh:
                data = fh.read(1 << 20)
        except OSError:
            continue
        if needle in data:
            found.append(int(entry.name))
    return found


def _kill_marked(mark: str) -> None:
    """SIGKILL every process still carrying ``mark``, until none is left (a few rounds: one
    may have forked meanwhile)."""
    for _round in range(MARK_ROUNDS):
        pids = _marked(mark)
        if not pids:
            return
        for pid in pids:
            _signal(pid, signal.SIGKILL)
        time.sleep(0.01)


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


class _Flight:
    """One ``run`` request sent and not yet answered."""

    __slots__ = ("key", "seq", "item", "end", "written_at")

    def __init__(self, key: Any, seq: int, item: tuple, end: int):
        self.key = key
        self.seq = seq
        self.item = item                 # (case_id, ruleset, given, when)
        self.end = end                   # the program has read it when written >= end
        self.written_at: float | None = None


def _pipeline_value(command: str, reply: dict) -> int:
    """How many requests a hello reply says may be in flight (absent: 1)."""
    declared = reply.get("pipeline")
    if declared is None:
        return 1
    if not isinstance(declared, int) or isinstance(declared, bool) or declared < 1:
        raise ProtocolError(f"{command!r}: hello `pipeline` must be an integer of at least 1, "
                            f"not {declared!r}")
    return declared


class ProtocolClient:
    """Drive one implementation program over protocol 1.

    ``command``: the command line (shlex-split, no shell). ``timeout``: the
    per-case deadline in seconds. ``max_restarts``: how many cases in a row
    may crash, hang or answer garbage (each one restarts the program) before
    the harness gives up; a good reply resets the count. ``stderr_path``:
    where the program's stderr goes (default
    ``reports/runs/<implementation name>.stderr.log`` under the current
    directory, truncated at the start of the run: each run its own log).
    ``hello_timeout``: the deadline for the hello reply. ``window``: the
    harness's cap on requests in flight (default ``DEFAULT_WINDOW``; 1: one
    at a time); the program's ``hello`` decides too (``pipeline``, absent: 1).
    ``worker``: the number of this program among several of one run (its
    stderr log is then ``….<worker>.stderr.log`` from 2 on).
    """

    def __init__(self, command: str, timeout: float = 5.0, max_restarts: int = DEFAULT_MAX_RESTARTS,
                 stderr_path: str | Path | None = None, *, hello_timeout: float | None = None,
                 cwd=None, env=None, window: int | None = None, worker: int = 1,
                 _launch_only: bool = False):
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
        self.features: list[str] = list(features.FEATURES)
        self.features_declared = False
        self.pipeline = 1                  # requests in flight the program accepts (hello)
        self.window_cap = max(1, int(window if window is not None else DEFAULT_WINDOW))
        self.pipeline_failures = 0         # failures with several requests in flight
        self.restarts = 0
        self.consecutive_failures = 0
        self.cases_sent = 0
        self.unavailable: str | None = None
        self.gave_up: dict | None = None
        self.worker = int(worker)
        self._last_case: str | None = None
        self._seq = 0
        self._explicit_stderr = stderr_path is not None
        if stderr_path is not None and self.worker > 1:
            stderr_path = _worker_path(Path(stderr_path), self.worker)
        self._sink = _StderrSink(stderr_path)
        self._proc: _Process | None = None
        self._needs_restart = False
        self._flights: dict[int, _Flight] = {}     # seq -> request in flight, oldest first
        self._head_since = 0.0                     # when the oldest in flight became the oldest
        self._requeue: collections.deque = collections.deque()   # to send again (not at fault)
        self._solo: collections.deque = collections.deque()      # to send again, one at a time
        try:
            if _launch_only:
                self._launch(first=True)
            else:
                self._start(first=True)
        except BaseException:
            self._close_sink_quietly()
            raise

    def _close_sink_quietly(self) -> None:
        """The log of a program that could not be used is kept (its path said); a log that
        cannot be written then does not hide why the program could not be used."""
        from conformance.atomicio import OutputError
        try:
            self._sink.close()
        except OutputError:
            pass

    # -- lifecycle -----------------------------------------------------------

    @property
    def name(self) -> str:
        return str(self.implementation.get("name") or Path(self.argv[0]).name)

    @property
    def stderr_path(self) -> Path | None:
        return self._sink.path

    @property
    def window(self) -> int:
        """Requests that may be in flight now: the program's ``pipeline``, the
        harness's cap, and 1 after ``PIPELINE_STRIKES`` failures with several
        in flight."""
        if self.pipeline_failures >= PIPELINE_STRIKES:
            return 1
        return min(self.pipeline, self.window_cap)

    def _start(self, first: bool = False) -> None:
        self._launch(first)
        self._greet(first)

    def _launch(self, first: bool = False) -> None:
        """Start the program and send ``hello`` (the reply is read by :meth:`_greet`)."""
        if not first:
            self._sink.note(f"--- kodex: restart {self.restarts} of {self.command} ---\n")
        try:
            self._proc = _Process(self.argv, self._sink, cwd=self.cwd, env=self.env)
        except OSError as exc:
            self._proc = None
            raise ProtocolError(f"cannot start {self.command!r}: {exc}") from exc
        try:
            self._proc.send({"cmd": "hello", "protocol": PROTOCOL_VERSION,
                             "format": CASE_FORMAT})
        except OSError as exc:
            self._hello_failed(first)
            raise ProtocolError(f"{self.command!r} did not take the hello request: {exc}")

    def _greet(self, first: bool = False) -> None:
        try:
            self._hello()
        except ProtocolError:
            self._hello_failed(first)
            raise
        if first:
            try:
                self._default_sink()
            except BaseException:         # the log cannot be written: nothing is left running
                self._proc.stop()
                self._proc = None
                raise

    def _hello_failed(self, first: bool) -> None:
        from conformance.atomicio import OutputError
        try:
            if first:
                self._default_sink()
        except OutputError:
            pass        # the reason the program is unusable is said; its stderr tail with it
        finally:
            self._proc.stop()
            self._proc = None

    def _default_sink(self) -> None:
        if not self._explicit_stderr:
            suffix = f".{self.worker}" if self.worker > 1 else ""
            self._sink.set_path(Path("reports") / "runs" /
                                f"{_slug(self.name)}{suffix}.stderr.log")

    def _hello(self) -> None:
        proc = self._proc
        item = proc.receive(time.monotonic() + self.hello_timeout)
        if item is None:
            raise ProtocolError(f"{self.command!r} did not answer hello within "
                                f"{self.hello_timeout:g} s{self._said()}")
        if item is _EOF:
            raise ProtocolError(f"{self.command!r} exited before answering hello "
                                f"({_ending(proc.ended(EXIT_WAIT))}){self._said()}")
        if item is _TOO_LONG:
            raise ProtocolError(f"{self.command!r}: hello reply longer than "
                                f"{MAX_REPLY_BYTES} bytes")
        reply, problem = _parse_line(item)
        if problem:
            raise ProtocolError(f"{self.command!r}: hello reply is {problem}: "
                                f"{item[:200]!r}{self._said()}")
        if not isinstance(reply, dict):
            raise ProtocolError(f"{self.command!r}: hello reply is not an object")
        if reply.get("ok") is not True:
            raise ProtocolError(f"{self.command!r} refused protocol {PROTOCOL_VERSION}: "
                                f"{_short(reply.get('error', 'no reason given'))}")
        if "protocol" in reply and reply["protocol"] != PROTOCOL_VERSION:
            raise ProtocolError(f"{self.command!r} speaks protocol {_short(reply['protocol'])}, "
                                f"not {PROTOCOL_VERSION}")
        beyond = bounds.hello_problem(reply)
        if beyond:
            raise ProtocolError(f"{self.command!r}: hello reply beyond the limits: {beyond}")
        self.formats = _formats(self.command, reply)
        self.pipeline = _pipeline_value(self.command, reply)
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
        declared = reply.get("features")
        if declared is not None:
            if not isinstance(declared, list) or not all(isinstance(x, str) for x in declared):
                raise ProtocolError(f"{self.command!r}: hello `features` must be a list of "
                                    f"strings (some of {', '.join(features.FEATURES)}), "
                                    f"not {declared!r}")
            unknown = [x for x in declared if x not in features.FEATURES]
            if unknown:
                raise ProtocolError(f"{self.command!r}: hello `features` names unknown "
                                    f"features {unknown} (known: {', '.join(features.FEATURES)})")
            self.features = [x for x in features.FEATURES if x in declared]
            self.features_declared = True

    def _said(self) -> str:
        """``; its standard error ends: …`` with the last lines the program wrote there
        (why it did not start, say "Cannot find module"), or ""."""
        tail = self._sink.tail()
        return f"; its standard error ends: {tail}" if tail else ""

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
        self._flights.clear()
        if self._proc is not None:
            self._proc.stop(say_bye=True)
            self._proc = None
        self._sink.close()

    def __enter__(self) -> "ProtocolClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- running -------------------------------------------------------------

    def _harness(self, seq: int, outcome: str, message: str) -> HarnessVerdict:
        if outcome != "not_run":
            self.consecutive_failures += 1
        return HarnessVerdict(seq, outcome, message)

    def run(self, case_id: str, ruleset: str, given: dict | None,
            when: list | None, fmt: str = CASE_FORMAT) -> dict | HarnessVerdict:
        """Send one case (without ``then``) and return the reply for it."""
        for _key, reply in self.run_many([(None, case_id, ruleset, given, when, fmt)]):
            return reply
        raise AssertionError("unreachable: one reply per case")  # pragma: no cover

    def run_many(self, items: Iterable[tuple]) -> Iterator[tuple[Any, dict | HarnessVerdict]]:
        """Send the cases ``items`` — ``(key, case_id, ruleset, given, when)``,
        taken lazily — with up to :attr:`window` requests in flight, and yield
        ``(key, reply)`` for each, in the order of ``items``."""
        return drive([self], items)

    # -- the requests in flight (used by :func:`drive`) --------------------------

    def _idle(self) -> bool:
        return not (self._flights or self._requeue or self._solo)

    def _room(self) -> int:
        if self.unavailable:
            return 0
        if self._solo:
            return 0 if self._flights else 1
        return self.window - len(self._flights)

    def _backlog(self) -> tuple | None:
        """The next case of this client's own to send again, if it may be sent now."""
        if self._solo:
            return self._solo.popleft() if not self._flights else None
        if self._requeue and len(self._flights) < self.window:
            return self._requeue.popleft()
        return None

    def _drop_backlog(self, message: str) -> list[tuple[Any, dict]]:
        """Every case waiting to be sent again: not run (the harness gave up)."""
        out = []
        while self._solo or self._requeue:
            key, _item = (self._solo or self._requeue).popleft()
            self._seq += 1
            out.append((key, self._harness(self._seq, "not_run", message)))
        return out

    def _submit(self, key: Any, item: tuple) -> list[tuple[Any, dict]]:
        """Send one case; the replies already known (a not-run case), if any."""
        self._seq += 1
        seq = self._seq
        if self.unavailable:
            return [(key, self._harness(seq, "not_run", self.unavailable))]
        if self._needs_restart or self._proc is None or not self._proc.alive():
            if self._flights:
                # the program ended with requests in flight: :meth:`_service` sees it
                return self._service() + self._submit(key, item)
            if self._proc is not None and not self._needs_restart:
                # the program ended between cases: that costs the case before
                self.consecutive_failures += 1
            if not self._restart():
                return [(key, self._harness(seq, "not_run", self.unavailable))] + \
                    self._drop_backlog(self.unavailable)
        case_id, ruleset, given, when, *fmt = item
        request = {"cmd": "run", "seq": seq,
                   "case": {"id": case_id, "ruleset": ruleset,
                            "given": given if given is not None else {},
                            "when": when if when is not None else []}}
        if fmt and fmt[0] != CASE_FORMAT:
            request["case"]["format"] = fmt[0]   # a later format (hkk-protocol-additions.md)
        proc = self._proc
        end = proc.queue(request)
        flight = _Flight(key, seq, item, end)
        now = time.monotonic()
        if proc.written >= end:
            flight.written_at = now
        if not self._flights:
            self._head_since = now
        self._flights[seq] = flight
        return []

    def _deadline(self) -> tuple[float, bool]:
        """(when the oldest request in flight times out, whether it was read whole)."""
        head = next(iter(self._flights.values()))
        if head.written_at is None and self._proc is not None and \
                self._proc.written >= head.end:
            head.written_at = time.monotonic()
        if head.written_at is None:
            return self._head_since + max(self.timeout, SEND_TIMEOUT), False
        return max(self._head_since, head.written_at) + self.timeout, True

    def _service(self) -> list[tuple[Any, dict]]:
        """Take every reply already read, notice the program's end and the
        oldest request's deadline, without waiting; the replies resolved."""
        out: list[tuple[Any, dict]] = []
        while self._flights and self._proc is not None and not self._needs_restart:
            proc = self._proc
            if proc._lines:
                out.extend(self._on_line(proc._lines.popleft()))
                continue
            if proc._too_long:
                out.extend(self._lost(f"malformed reply (a line longer than "
                                      f"{MAX_REPLY_BYTES} bytes)", "a reply line too long"))
                break
            if not proc._out_eof and proc.proc.poll() is not None:
                # the program ended; a child of it may hold the pipe open, so
                # take what is already there and call it the end
                while proc._read_ready(0):
                    pass
                if proc._lines or proc._too_long:
                    continue
                proc._out_eof = True
            if proc._out_eof:
                status = proc.proc.poll()
                out.extend(self._lost(f"implementation died without a reply "
                                      f"(exit status {status})", "the program ended"))
                break
            deadline, read = self._deadline()
            if proc.write_error is not None and not read:
                exc = proc.write_error
                out.extend(self._lost(f"implementation died (cannot send: {exc})",
                                      f"the program did not take its input ({exc})"))
                break
            if time.monotonic() >= deadline:
                out.extend(self._timed_out(read))
            break
        return out

    def _resolve(self, flight: _Flight, reply: dict) -> tuple[Any, dict]:
        head = next(iter(self._flights))
        del self._flights[flight.seq]
        if flight.seq == head:
            self._head_since = time.monotonic()
        self._last_case = flight.item[0]
        self.cases_sent += 1
        if not isinstance(reply, HarnessVerdict):
            self.consecutive_failures = 0
        return flight.key, reply

    def _fault(self, flight: _Flight, outcome: str, message: str) -> list[tuple[Any, dict]]:
        """``flight``'s case gets the harness's verdict; the program is
        restarted, the other requests in flight are sent again after it."""
        done = [self._resolve(flight, self._harness(flight.seq, outcome, message))]
        self._needs_restart = True
        self._requeue.extendleft(reversed([(f.key, f.item) for f in self._flights.values()]))
        self._flights.clear()
        return done

    def _lost(self, message: str, what: str) -> list[tuple[Any, dict]]:
        """A failure that names no request (the program died, a line that is
        not a reply to any request in flight). With one request in flight it
        is that one's; with several, each is sent again alone after a restart,
        so that the failure falls on the case that causes it."""
        if len(self._flights) == 1:
            return self._fault(next(iter(self._flights.values())), "error", message)
        flights = list(self._flights.values())
        self._flights.clear()
        self._needs_restart = True
        self._solo.extendleft(reversed([(f.key, f.item) for f in flights]))
        self.pipeline_failures += 1
        self._sink.note(f"--- kodex: {what} with {len(flights)} requests in flight; each is "
                        "sent again alone ---\n")
        if self.pipeline_failures == PIPELINE_STRIKES:
            self._sink.note(f"--- kodex: {PIPELINE_STRIKES} such failures: one request at "
                            "a time from now on ---\n")
        return []

    def _timed_out(self, read: bool) -> list[tuple[Any, dict]]:
        head = next(iter(self._flights.values()))
        if not read:
            limit = max(self.timeout, SEND_TIMEOUT)
            return self._fault(head, "timeout", "the implementation did not read the request "
                                                f"within {limit:g} s")
        return self._fault(head, "timeout", f"no reply within {self.timeout:g} s")

    def _on_line(self, line: bytes) -> list[tuple[Any, dict]]:
        text = line.decode("utf-8", errors="replace").strip()
        reply, problem = _parse_line(line)
        if problem:
            return self._lost(f"malformed reply ({problem}): {text[:200]!r}",
                              "a reply that is not strict JSON")
        seq = reply.get("seq") if isinstance(reply, dict) else None
        flight = self._flights.get(seq) if isinstance(seq, int) and \
            not isinstance(seq, bool) else None
        if flight is None:
            if len(self._flights) > 1:
                what = ("a reply that is not an object" if not isinstance(reply, dict)
                        else f"a reply with seq {seq!r}, of no request in flight")
                return self._lost(f"malformed reply ({what}): {text[:200]!r}", what)
            flight = next(iter(self._flights.values()))
        problem = _reply_problem(reply, flight.seq)
        if problem:
            return self._fault(flight, "error", f"malformed reply ({problem}): {text[:200]!r}")
        return [self._resolve(flight, reply)]

    def _abandon(self) -> None:
        """The caller stopped before every reply came: the program is restarted
        before the next case (the replies still due would be taken for it)."""
        if self._flights:
            self._flights.clear()
            self._needs_restart = True
        self._requeue.clear()
        self._solo.clear()


def _worker_path(path: Path, worker: int) -> Path:
    """``r.stderr.log`` → ``r.2.stderr.log`` (``x.log`` → ``x.2.log``)."""
    name = path.name
    if name.endswith(".stderr.log"):
        return path.with_name(f"{name[:-len('.stderr.log')]}.{worker}.stderr.log")
    return path.with_name(f"{path.stem}.{worker}{path.suffix}")


def drive(clients: list[ProtocolClient], items: Iterable[tuple]) -> Iterator[tuple[Any, dict | HarnessVerdict]]:
    """Run the cases ``items`` (``(key, case_id, ruleset, given, when)``, taken
    lazily) through ``clients``, each with up to its :attr:`ProtocolClient.window`
    requests in flight; yield ``(key, reply)`` in the order of ``items``. A
    client takes the next case whenever it has room, so the share of each
    depends on its speed, never the replies. When one client gives up, the
    cases not sent yet are not run (what is in flight still comes back)."""
    source = iter(items)
    results: dict[int, tuple[Any, dict]] = {}
    keys: dict[int, Any] = {}          # the item's position -> the caller's key
    count = 0
    emitted = 0
    exhausted = False
    pace = PACE

    def take() -> tuple | None:
        nonlocal count, exhausted
        if exhausted:
            return None
        try:
            key, *item = next(source)
        except StopIteration:
            exhausted = True
            return None
        n = count
        count += 1
        return n, key, tuple(item)

    def store(done: list) -> None:
        for n, reply in done:
            results[n] = reply

    def given_up() -> str | None:
        return next((c.unavailable for c in clients if c.unavailable), None)

    try:
        while True:
            for client in clients:
                store(client._service())
            stop = given_up()
            if stop:
                for client in clients:
                    store(client._drop_backlog(stop))
                while True:
                    nxt = take()
                    if nxt is None:
                        break
                    n, key, _item = nxt
                    keys[n] = key
                    store([(n, HarnessVerdict(None, "not_run", stop))])
            else:
                for client in clients:
                    while client._room() > 0:
                        own = client._backlog()
                        if own is not None:
                            store(client._submit(*own))
                            continue
                        nxt = take()
                        if nxt is None:
                            break
                        n, key, item = nxt
                        keys[n] = key
                        store(client._submit(n, item))
                        if client.unavailable:
                            break
            progressed = False
            while emitted in results:
                reply = results.pop(emitted)
                yield keys.pop(emitted), reply
                emitted += 1
                progressed = True
            if exhausted and emitted == count and \
                    all(c._idle() for c in clients):
                return
            if not progressed:
                pace = _wait(clients, pace)
    finally:
        for client in clients:
            client._abandon()


def _wait(clients: list[ProtocolClient], pace: float = 0.0) -> float:
    """Wait for output (or room to write) from any program with requests in
    flight, until the earliest deadline (at most ``POLL_INTERVAL``); returns
    the pace for the next wait.

    Pacing: while every such program has at least ``PACE_FLIGHTS`` requests
    (and half its window) in flight, the harness first sleeps ``pace`` seconds
    and takes the replies that came meanwhile, instead of waking on each one:
    a program with work queued loses nothing by it, and the harness is no
    longer woken by (and, by the scheduler, put beside) the program on every
    line. When the programs answered nearly all in that time (they are faster
    than the pace), the pace is halved, and below ``PACE_MIN`` it stops."""
    busy = [c for c in clients if c._flights and c._proc is not None and not c._needs_restart]
    if not busy:
        return pace
    now = time.monotonic()
    timeout = min(POLL_INTERVAL, max(0.0, min(c._deadline()[0] for c in busy) - now))
    if pace and timeout > pace and all(len(c._flights) >= max(PACE_FLIGHTS, c.window // 2)
                                       for c in busy):
        in_flight = sum(len(c._flights) for c in busy)
        time.sleep(pace)
        for c in busy:
            c._proc._read_ready(0)
        ready = sum(len(c._proc._lines) for c in busy)
        if ready * 4 >= in_flight * 3:
            pace = pace / 2 if pace / 2 >= PACE_MIN else 0.0
        if ready or any(c._proc._too_long or c._proc._out_eof for c in busy):
            return pace
        timeout = max(0.0, timeout - pace)
    if len(busy) == 1:
        busy[0]._proc._read_ready(timeout)
        return pace
    poller = select.poll()
    for c in busy:
        for fd, events in c._proc.selector_fds():
            poller.register(fd, (select.POLLIN if events & selectors.EVENT_READ else 0)
                            | (select.POLLOUT if events & selectors.EVENT_WRITE else 0))
    if poller.poll(timeout * 1000.0):
        for c in busy:
            c._proc._read_ready(0)
    return pace


class ProtocolPool:
    """Several programs of one implementation (``kodex run --jobs N``), each a
    :class:`ProtocolClient` served a share of the cases by :func:`drive`.
    Started together (hello to all, then the replies); what the runner reads
    (implementation, rulesets, verbs, profile) is the first program's."""

    def __init__(self, command: str, jobs: int, **kw):
        if jobs < 1:
            raise ValueError("jobs must be at least 1")
        self.clients: list[ProtocolClient] = []
        try:
            for k in range(1, jobs + 1):
                self.clients.append(ProtocolClient(command, worker=k, _launch_only=True, **kw))
            for client in self.clients:
                client._greet(first=True)
        except BaseException:
            for client in self.clients:
                client._flights.clear()
                if client._proc is not None:
                    client._proc.stop()
                    client._proc = None
                client._close_sink_quietly()
            raise

    def __getattr__(self, name: str) -> Any:
        if name in ("implementation", "rulesets", "verbs", "formats", "profile",
                    "profile_declared", "features", "features_declared", "pipeline", "window",
                    "name", "command", "timeout"):
            return getattr(self.clients[0], name)
        raise AttributeError(name)

    @property
    def gave_up(self) -> dict | None:
        return next((c.gave_up for c in self.clients if c.gave_up), None)

    @property
    def unavailable(self) -> str | None:
        return next((c.unavailable for c in self.clients if c.unavailable), None)

    @property
    def restarts(self) -> int:
        return sum(c.restarts for c in self.clients)

    @property
    def stderr_path(self) -> Path | None:
        return self.clients[0].stderr_path

    @property
    def stderr_paths(self) -> list[Path]:
        return [c.stderr_path for c in self.clients if c.stderr_path is not None]

    def run(self, case_id: str, ruleset: str, given: dict | None,
            when: list | None, fmt: str = CASE_FORMAT) -> dict | HarnessVerdict:
        for _key, reply in self.run_many([(None, case_id, ruleset, given, when, fmt)]):
            return reply
        raise AssertionError("unreachable: one reply per case")  # pragma: no cover

    def run_many(self, items: Iterable[tuple]) -> Iterator[tuple[Any, dict | HarnessVerdict]]:
        return drive(self.clients, items)

    def close(self) -> None:
        """Close every program (also when closing one fails: the first failure is raised
        after)."""
        failure = None
        for client in self.clients:
            try:
                client.close()
            except BaseException as exc:  # noqa: BLE001 - the others are closed first
                failure = failure or exc
        if failure is not None:
            raise failure

    def __enter__(self) -> "ProtocolPool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# keys a reply never carries: the harness writes them into its results, and an implementation that
# sends one is trying to judge itself (docs/spec/hkk-protocol-additions.md, "run replies")
HARNESS_KEYS = frozenset({"harness", "outcome", "verdict", "difference", "pass", "passed",
                          "totals", "case_id", "observes"})


@dataclass(frozen=True)
class HarnessVerdict:
    """The harness's own verdict on a case (a late, malformed or missing reply; a case not run):
    a separate type, so that no reply of an implementation can ever be taken for one."""
    seq: int | None
    outcome: str            # "timeout" | "error" | "not_run"
    message: str


def _reply_problem(reply: Any, seq: int) -> str | None:
    if not isinstance(reply, dict):
        return "not a JSON object"
    if reply.get("seq") != seq:
        return f"seq {reply.get('seq')!r}, expected {seq}"
    forged = sorted(k for k in reply if k in HARNESS_KEYS)
    if forged:
        return (f"it carries {', '.join(forged)}, which only the harness writes: an implementation "
                "reports what happened, the harness judges it")
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


def interpret_reply(reply: dict | HarnessVerdict) -> tuple[str, dict]:
    """Map a reply to ("observed", {state, events, result, refused}) or to
    (outcome, {message, traceback, unsupported}) with outcome in skip/error/timeout/not_run.
    Only the fields the protocol defines are read."""
    if isinstance(reply, HarnessVerdict):
        return reply.outcome, {"message": reply.message}
    if "errored" in reply:
        err = reply["errored"]
        if isinstance(err, dict):
            return "error", {"message": "implementation errored: " + str(err.get("message", "")),
                             "traceback": err.get("traceback")}
        return "error", {"message": f"implementation errored: {err}"}
    if "skipped" in reply:
        msg = str(reply.get("skipped") or "skipped by the implementation")
        unsupported = reply.get("unsupported")
        unsupported = [str(u) for u in unsupported] if isinstance(unsupported, list) else []
        if unsupported:
            msg += " (unsupported: " + ", ".join(unsupported) + ")"
        return "skip", {"message": msg, "unsupported": unsupported or ["implementation:skipped"]}
    refused = reply.get("refused")
    return "observed", {"state": reply.get("state") or {}, "events": reply.get("events") or [],
                        "result": reply.get("result", "ongoing"), "refused": refused}
