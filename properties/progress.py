"""Progress of the long commands (`kodex prove`, `kodex fuzz`): one line on stderr when a phase
starts, and every few seconds while it runs, so that a run of minutes never sits silent.

`Progress(name)` prints ``kodex NAME: [12.3 s] <phase>``; `progress.phase(text, count=...)` is
a context manager for one phase whose optional ``count`` callable says how far it got (read by
a background thread every ``interval`` seconds; the phase itself is never interrupted). Lines
go to stderr (standard output keeps the results); ``enabled=False`` prints nothing.
"""
from __future__ import annotations

import contextlib
import sys
import threading
import time
from typing import Callable, Iterator, TextIO


class Progress:
    def __init__(self, name: str, *, enabled: bool = True, interval: float = 5.0,
                 stream: TextIO | None = None):
        self.name, self.enabled, self.interval = name, enabled, interval
        self.stream = stream if stream is not None else sys.stderr
        self.started = time.monotonic()

    def say(self, text: str) -> None:
        if self.enabled:
            self.stream.write(f"kodex {self.name}: [{time.monotonic() - self.started:.1f} s] {text}\n")
            self.stream.flush()

    @contextlib.contextmanager
    def phase(self, text: str, count: Callable[[], str] | None = None) -> Iterator[None]:
        """Say that ``text`` starts; while it runs, say every ``interval`` seconds how far it got
        (``count()``, e.g. ``"830 cases"``); say when it is done."""
        self.say(f"{text} …")
        t0 = time.monotonic()
        stop = threading.Event()

        def tick() -> None:
            while not stop.wait(self.interval):
                so_far = ""
                if count is not None:
                    try:
                        so_far = f": {count()}"
                    except Exception:  # noqa: BLE001 - a progress line never breaks the run
                        so_far = ""
                self.say(f"{text} still running{so_far} ({time.monotonic() - t0:.0f} s)")

        ticker = threading.Thread(target=tick, name=f"kodex-{self.name}-progress", daemon=True)
        if self.enabled:
            ticker.start()
        try:
            yield
        finally:
            stop.set()
            if self.enabled:
                ticker.join()
            self.say(f"{text}: done in {time.monotonic() - t0:.1f} s")


__all__ = ["Progress"]
