"""`kodex prove` and `kodex fuzz` say what they are doing on stderr (properties/progress.py):
a line when a phase starts, while it runs every few seconds how far it got, and when it ends."""
from __future__ import annotations

import io
import time

from properties.progress import Progress


def test_a_phase_is_said_when_it_starts_while_it_runs_and_when_it_ends():
    out = io.StringIO()
    p = Progress("demo", interval=0.05, stream=out)
    seen = {"n": 0}
    with p.phase("counting", lambda: f"{seen['n']} things"):
        for _ in range(8):
            seen["n"] += 1
            time.sleep(0.04)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("kodex demo: [") and lines[0].endswith("counting …")
    ticks = [ln for ln in lines if "still running: " in ln]
    assert ticks and all(" things (" in ln for ln in ticks)
    assert lines[-1].split("] ", 1)[1].startswith("counting: done in ")


def test_silent_when_disabled():
    out = io.StringIO()
    with Progress("demo", enabled=False, interval=0.01, stream=out).phase("x", lambda: "1"):
        time.sleep(0.05)
    assert out.getvalue() == ""


def test_kodex_fuzz_and_prove_say_their_phases(capsys, tmp_path):
    from conformance import cli
    assert cli.main(["fuzz", "--examples", "10", "--profile", "quick", "--seed", "3"]) == 0
    err = capsys.readouterr().err
    for phase in ("the legal-play driver", "random cases (seeded)", "random cases (Hypothesis",
                  "the state machine"):
        assert any(ln.startswith("kodex fuzz: [") and phase in ln and ln.endswith("…")
                   for ln in err.splitlines()), phase
    assert err.count("done in") == 4
    assert cli.main(["prove", "--policy", "kodex-102", "--max-effects", "0",
                     "--out-dir", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "kodex prove: [" in err and "the priority order of kodex-102 (Z3) …" in err
    assert cli.main(["prove", "--policy", "kodex-102", "--max-effects", "0", "-q",
                     "--out-dir", str(tmp_path)]) == 0
    assert "kodex prove: [" not in capsys.readouterr().err
