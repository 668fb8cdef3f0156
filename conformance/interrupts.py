"""What ``kodex`` does when it is interrupted (SIGINT, SIGTERM).

Covers :func:`guarded`, which runs one subcommand with handlers for SIGINT
and SIGTERM installed: on either signal every running implementation
program is sent SIGTERM to its whole process group at once
(:func:`conformance.protocol.kill_all`; the programs run in their own
session, so a terminal's Ctrl-C does not reach them by itself), the
subcommand is unwound (its ``finally`` blocks end the programs, escalating
to SIGKILL), no results or report file is written (the files written before
stay as they were: every file goes through :mod:`conformance.atomicio`), and
the exit status is 130 for SIGINT and 143 for SIGTERM (128 + the signal
number, as a shell reports it).
"""
from __future__ import annotations

import signal
import sys
from typing import Callable

EXIT_SIGINT = 128 + signal.SIGINT      # 130
EXIT_SIGTERM = 128 + signal.SIGTERM    # 143


class Terminated(BaseException):
    """Raised in the main thread when SIGTERM arrives (like KeyboardInterrupt for SIGINT)."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _kill_implementations(sig: int = signal.SIGTERM) -> None:
    try:
        from conformance.protocol import kill_all
    except ImportError:  # pragma: no cover
        return
    kill_all(sig)


def _on_signal(signum, frame) -> None:
    _kill_implementations()
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated(signum)


def guarded(fn: Callable[[], int]) -> int:
    """``fn()`` with SIGINT/SIGTERM handled as above; its exit status, or 130/143."""
    previous = {}
    try:
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                previous[sig] = signal.signal(sig, _on_signal)
            except ValueError:          # not the main thread: leave the handlers alone
                pass
        return fn()
    except KeyboardInterrupt:
        _kill_implementations(signal.SIGKILL)     # whatever the unwinding left running
        _say("kodex: interrupted (SIGINT); implementations stopped, no results written")
        return EXIT_SIGINT
    except Terminated:
        _kill_implementations(signal.SIGKILL)
        _say("kodex: terminated (SIGTERM); implementations stopped, no results written")
        return EXIT_SIGTERM
    finally:
        for sig, handler in previous.items():
            try:
                signal.signal(sig, handler)
            except (ValueError, TypeError):
                pass


def _say(text: str) -> None:
    try:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
