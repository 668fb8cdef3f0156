"""A tiny corpus shared by the runner and protocol tests: one passing case, one with a
deliberately wrong expectation, one holding only under another ruleset."""
from __future__ import annotations

from pathlib import Path

from conformance.loader import load_files

TINY = """\
format: hkk-case/1
cases:
  - id: "t/heal-stops-at-cap"
    clause: "3.18"
    also: ["4.2"]
    title: "Healing never lifts Ep above the maximum"
    given:
      players:
        A: {hp: 18}
    when:
      - heal: {target: A, amount: 5}
    then:
      players:
        A: {hp: 20}
      events:
        - {event: healed, target: A, amount: 2}

  - id: "t/heal-wrong-expectation"
    clause: "3.18"
    title: "A deliberately wrong expectation"
    given:
      players:
        A: {hp: 10}
    when:
      - heal: {target: A, amount: 3}
    then:
      players:
        A: {hp: 14}

  - id: "t/heal-other-ruleset"
    clause: "3.18"
    title: "Holds only under another ruleset"
    rulesets: [kodex-other]
    when:
      - heal: {target: B, amount: 1}
    then:
      players:
        B: {hp: 20}
"""


def tiny_cases(tmp_path: Path) -> list:
    f = tmp_path / "tiny.yaml"
    f.write_text(TINY, encoding="utf-8")
    res = load_files([f])
    assert not res.errors, [str(e) for e in res.errors]
    return res.cases
