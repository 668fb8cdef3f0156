"""In-process runs over several worker processes (``kodex run --jobs N`` without ``--impl``).

The harness forks N workers once the cases are loaded (POSIX ``fork``: the workers share the
loaded corpus, nothing is sent to them). Worker k runs the cases k, k+N, k+2N, … with the
harness's own one-case function (``conformance.runner.run_one``: the same per-case deadline as a
run in one process) and writes each outcome to its pipe, pickled and length-prefixed. The harness
yields the outcomes in the cases' order as they come, so what a run prints, writes and exits with
is what one process gives (only ``duration_ms`` differs).

Hostile ends: a worker that ends before it has written all its outcomes (killed, crashed, out of
memory) leaves each of its remaining cases ``error``, with the way it ended; the harness never
waits for a worker that is gone. Nor for one that is there but does nothing (stopped with
SIGSTOP, stuck where the per-case deadline cannot interrupt it): while the harness waits for a
worker's next outcome, the worker must send something within the per-case deadline plus
``WORKER_GRACE`` seconds (each case has that deadline inside the worker), else it is killed
(SIGKILL, which also ends a stopped process) and its remaining cases are ``error`` saying so.
A harness that stops early (interrupted, an exception, the caller closing the iterator) kills
its workers (SIGKILL) and reaps them: no process is left behind. Workers ignore SIGINT (a
terminal's Ctrl-C reaches the whole process group: the harness decides) and die of SIGTERM.
"""
from __future__ import annotations

import collections
import os
import pickle
import selectors
import signal
import struct
import sys
import time
from typing import Any, Callable, Iterator, Sequence

PARALLEL_MIN_CASES = 256      # fewer cases run in the harness's own process (a fork costs more)
MAX_DEFAULT_JOBS = 8
WORKER_GRACE = 10.0           # beyond the per-case deadline, for a worker's next outcome
_HEADER = struct.Struct("<I")


def available() -> bool:
    return hasattr(os, "fork")


def usable_cores() -> int:
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity else (os.cpu_count() or 1)


def default_jobs(n_cases: int) -> int:
    """The workers of an in-process run when ``--jobs`` is not given: one per usable core (at
    most MAX_DEFAULT_JOBS) for PARALLEL_MIN_CASES cases or more, else 1."""
    if n_cases < PARALLEL_MIN_CASES or not available():
        return 1
    return max(1, min(usable_cores(), MAX_DEFAULT_JOBS))


def run_forked(cases: Sequence[Any], run_one: Callable[[Any], Any], jobs: int,
               lost: Callable[[Any, str], Any], case_timeout: float | None = None
               ) -> Iterator[Any]:
    """Fork the workers now and return the iterator of the outcomes, in the cases' order.
    ``lost(case, reason)`` makes the outcome of a case whose worker ended before reporting it.
    ``case_timeout``: the per-case deadline inside the workers; a worker silent for that plus
    ``WORKER_GRACE`` seconds while its outcome is awaited is killed (None: no such limit)."""
    jobs = max(1, min(jobs, len(cases)))
    for stream in (sys.stdout, sys.stderr):      # nothing buffered is written twice
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    workers: list[tuple[int, int]] = []           # (pid, read end)
    try:
        for k in range(jobs):
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:                          # the worker
                os.close(r)
                for _pid, other in workers:
                    os.close(other)
                _work(cases, k, jobs, run_one, w)
            os.close(w)
            workers.append((pid, r))
    except BaseException:
        _stop(workers, kill=True)
        raise
    silence = None if not case_timeout or case_timeout <= 0 else case_timeout + WORKER_GRACE
    return _outcomes(cases, workers, lost, silence)


def _work(cases: Sequence[Any], k: int, jobs: int, run_one: Callable[[Any], Any], fd: int) -> None:
    """In the worker: run its share, write each outcome, exit without running the harness's
    exit handlers (os._exit)."""
    status = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        with os.fdopen(fd, "wb", buffering=1 << 16) as out:
            for i in range(k, len(cases), jobs):
                data = pickle.dumps(run_one(cases[i]), protocol=pickle.HIGHEST_PROTOCOL)
                out.write(_HEADER.pack(len(data)))
                out.write(data)
                out.flush()          # each outcome as it is known: a worker that dies loses none
    except BaseException:       # noqa: BLE001 - the harness reports the cases left as lost
        status = 1
    finally:
        os._exit(status)


def _outcomes(cases: Sequence[Any], workers: list[tuple[int, int]],
              lost: Callable[[Any, str], Any], silence: float | None = None) -> Iterator[Any]:
    jobs = len(workers)
    ready: list[collections.deque] = [collections.deque() for _ in range(jobs)]
    pending = [bytearray() for _ in range(jobs)]
    ended: dict[int, str] = {}
    sel = selectors.DefaultSelector()
    for k, (_pid, r) in enumerate(workers):
        sel.register(r, selectors.EVENT_READ, k)
    done = False
    try:
        for i, case in enumerate(cases):
            k = i % jobs
            heard = time.monotonic()             # worker k's last sign of life while awaited
            while not ready[k] and k not in ended:
                wait = None
                if silence is not None:
                    wait = heard + silence - time.monotonic()
                    if wait <= 0:
                        _silenced(k, sel, workers, ended, silence)
                        break
                for key, _events in sel.select(wait):
                    if key.data == k:
                        heard = time.monotonic()
                    _read(key, sel, workers, pending, ready, ended)
            if ready[k]:
                yield ready[k].popleft()
            else:
                yield lost(case, f"the worker process running it ended before reporting it "
                                 f"({ended[k]})")
        done = True
    finally:
        sel.close()
        _stop(workers, kill=not done)


def _silenced(k: int, sel, workers, ended, silence: float) -> None:
    """Worker ``k`` sent nothing for ``silence`` seconds while awaited: kill it (SIGKILL ends a
    stopped process too), reap it, and say so for its remaining cases."""
    pid, r = workers[k]
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        sel.unregister(r)
    except (KeyError, ValueError):
        pass
    how = _how_it_ended(pid)
    ended[k] = (f"it sent nothing for {silence:g} s, the per-case deadline and "
                f"{WORKER_GRACE:g} s more: stopped or stuck; {how}")


def _read(key, sel, workers, pending, ready, ended) -> None:
    k = key.data
    chunk = os.read(key.fd, 1 << 16)
    if chunk:
        buf = pending[k]
        buf += chunk
        while len(buf) >= _HEADER.size:
            (size,) = _HEADER.unpack_from(buf)
            if len(buf) < _HEADER.size + size:
                break
            ready[k].append(pickle.loads(bytes(buf[_HEADER.size:_HEADER.size + size])))
            del buf[:_HEADER.size + size]
        return
    sel.unregister(key.fd)
    ended[k] = _how_it_ended(workers[k][0])


def _how_it_ended(pid: int) -> str:
    try:
        _pid, status = os.waitpid(pid, 0)
    except ChildProcessError:
        return "already reaped"
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = str(sig)
        return f"killed by {name}"
    return f"exit status {os.WEXITSTATUS(status)}"


def _stop(workers: list[tuple[int, int]], kill: bool) -> None:
    """Close the pipes and reap every worker; ``kill``: SIGKILL the ones still running first."""
    for pid, r in workers:
        try:
            os.close(r)
        except OSError:
            pass
        if kill:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass                                 # reaped already (_how_it_ended)
