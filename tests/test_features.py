"""What makes a case need a feature (conformance/features.py, docs/spec/hkk-profiles.md#features):
each rule in both directions, and one list of names wherever the names are written."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conformance import features as F

ROOT = Path(__file__).resolve().parents[1]
C1 = {"cards": {"c1": {"kind": "creature", "damage": 1, "hp": 1}}}


@pytest.mark.parametrize("given, when, then, needed", [
    (C1, [{"damage": {"target": "c1", "amount": 1}}], {}, []),
    ({"cards": {"c1": {"kind": "item", "continuous": [{"number": "damage", "add": 1}]}}}, [], {},
     ["continuous"]),
    ({"cards": {"c1": {"kind": "item", "continuous": []}}}, [], {}, []),
    ({}, [{"create": {"card": {"id": "x", "kind": "item",
                               "replace": [{"when": "damage", "instead": []}]}}}], {}, ["replace"]),
    ({}, [{"add_effect": {"effect": {"number": "damage", "add": 1}}}], {}, ["lasting"]),
    ({"lasting": [{"id": "e", "effect": {}, "affects": []}]}, [], {}, ["lasting"]),
    ({}, [{"damage": {"targets": ["A", "B"], "amount": 1}}], {}, ["split"]),
    ({}, [{"heal": {"split": {"A": 1}, "amount": 1}}], {}, ["split"]),
    ({}, [{"repeat": {"card": "c1"}}], {}, ["repeat"]),
    ({}, [{"delay": {"at": "next_turn", "step": {"draw": {}}}}], {}, ["delay"]),
    ({}, [], {"delayed": [{"id": "d"}]}, ["delay"]),
    # a delay *counter* and a delayed *ability* are core rules (127), not the verb `delay`
    ({"cards": {"c1": {"kind": "creature", "counters": {"delay": 2},
                       "abilities": [{"keyword": "x-a", "delay": 1, "effects": []}]}}}, [], {}, []),
    ({}, [{"advance": {"to": "combat", "step": "IV"}}], {}, ["combat_steps"]),
    ({}, [{"advance": {"to": "combat"}}], {}, []),
    ({"turn": {"phase": "combat", "combat_step": "III"}}, [], {}, ["combat_steps"]),
    ({}, [], {"events": [{"event": "combat_step"}]}, ["combat_steps"]),
    ({}, [], {"cards": {"c1": {"just_damaged": True}}}, ["windows"]),
    ({}, [{"activate": {"card": "c1", "ability": "regeneration"}}], {}, ["windows"]),
    ({"cards": {"c1": {"kind": "creature", "abilities": [{"keyword": "regeneration"}]}}},
     [{"activate": {"card": "c1", "ability": 0}}], {}, ["windows"]),
    ({"cards": {"c1": {"kind": "creature", "abilities": [{"keyword": "shadow"}]}}},
     [{"activate": {"card": "c1", "ability": 0}}], {}, []),
    ({}, [{"choose": {"player": "A"}}], {}, ["decisions"]),
    ({}, [], {"pending": None}, []),
    ({}, [], {"pending": {"player": "A"}}, ["decisions"]),
    ({}, [], {"no_events": [{"event": "decision_pending"}]}, ["decisions"]),
    ({}, [{"resolve_conflict": {"effects": [{"id": "a", "continuous": True}]}}], {},
     ["priority"]),                      # its entries' `continuous` is a flag, no card's list
    ({}, [], {"events": [{"event": "conflict_resolved"}]}, ["priority"]),
    # steps inside a card's effects count
    ({"cards": {"s": {"kind": "instant", "effects": [{"repeat": {"card": "c1"}}]}}}, [], {},
     ["repeat"]),
])
def test_what_a_case_needs(given, when, then, needed):
    assert F.needs(given, when, then) == needed


def test_missing():
    assert F.missing(["split", "repeat"], None) == []
    assert F.missing(["split", "repeat"], ["repeat"]) == ["split"]
    assert F.missing([], []) == []


def test_the_feature_names_are_one_list():
    schema = json.loads((ROOT / "conformance/schema/hkk-results-2.schema.json").read_text())
    assert tuple(schema["$defs"]["feature"]["enum"]) == F.FEATURES
    page = (ROOT / "docs/spec/hkk-profiles.md").read_text(encoding="utf-8")
    table = page.split("\n## Features\n", 1)[1]
    assert tuple(re.findall(r"^\| `([a-z_]+)` \|", table, flags=re.M)) == F.FEATURES
