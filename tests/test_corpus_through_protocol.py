"""The whole corpus gives the same verdicts in-process and through `kodex serve` (issue: foundation).

Every case of conformance/corpus runs twice: once in-process, once through the
JSON-lines protocol against the reference engine started as a subprocess.
Outcome and first difference must agree case by case, and every case must pass.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from conformance import runner
from conformance.loader import load_files
from conformance.protocol import ProtocolClient

ROOT = Path(__file__).resolve().parent.parent


def test_whole_corpus_same_verdicts_through_serve(tmp_path):
    loaded = load_files([ROOT / "conformance" / "corpus"])
    assert not loaded.errors, [str(e) for e in loaded.errors[:5]]
    assert len(loaded.cases) > 900
    local = runner.run_cases(loaded.cases, progress=False)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with ProtocolClient(f"{sys.executable} -m conformance serve", timeout=30,
                        stderr_path=tmp_path / "serve.log", env=env, cwd=ROOT) as client:
        remote = runner.run_cases(loaded.cases, impl=client, progress=False)
    pairs = list(zip(local.outcomes, remote.outcomes))
    assert len(pairs) == len(loaded.cases)
    differ = [(a.case_id, a.outcome, b.outcome) for a, b in pairs
              if (a.case_id, a.outcome, a.difference) != (b.case_id, b.outcome, b.difference)]
    assert not differ, differ[:10]
    assert all(o.outcome == "pass" for o in local.outcomes), \
        [(o.case_id, o.outcome, o.message) for o in local.outcomes if o.outcome != "pass"][:10]
