"""Malformed spells, modes, forms, copies and mixed costs (docs/spec/hkk-cards.md) are input
errors naming the file, the line and the field — from `kodex check` (the loader) where the schema
can tell, from the engine (with the field's JSON pointer) where only the state can."""
from __future__ import annotations

import textwrap

import pytest

from conformance.loader import load_files
from model import engine
from model.errors import InputProblem

GOOD = """\
  - id: "x/ok"
    clause: "111.7"
    title: "a well-formed modal instant, a card usable two ways, a copy and a mixed breath"
    given:
      players:
        A: {hand: [m1, w1], reserve: [c1], table: [p1]}
      cards:
        m1: {kind: instant, modes: [{effects: [{draw: {}}]}, {needs_target: true, effects: []}]}
        w1: {kind: creature, damage: 1, hp: 1, play_as: {sorcery: {cost: {vp: 1}, effects: []}}}
        c1: {kind: creature, damage: 1, hp: 1, abilities: [{keyword: direct_damage, x: 2, cost_kinds: [vp, components]}]}
        p1: {kind: item, continuous: [{prohibit: play, spells: [drawing], scope: controller}]}
    when:
      - copy: {card: c1, id: k1}
      - play: {player: A, card: w1, as: sorcery}
    then:
      players: {A: {reserve: [c1, k1]}}
"""


def _errors(tmp_path, case: str) -> list[str]:
    f = tmp_path / "c.yaml"
    f.write_text("format: hkk-case/1\ncases:\n" + case, encoding="utf-8")
    return [str(e) for e in load_files([f]).errors]


def test_the_well_formed_case_loads(tmp_path):
    assert _errors(tmp_path, GOOD) == []


@pytest.mark.parametrize("change, line, pointer", [
    (("play_as: {sorcery: {cost: {vp: 1}, effects: []}}", "play_as: {sorcery: {name: x}}"),
     11, "/cases/0/given/cards/w1/play_as/sorcery/name"),
    (("play_as: {sorcery:", "play_as: {spell:"), 11, "/cases/0/given/cards/w1/play_as/spell"),
    (("modes: [{effects: [{draw: {}}]}, {needs_target: true, effects: []}]",
      "modes: [{effects: [{draw: {}}]}]"), 10, "/cases/0/given/cards/m1/modes"),
    (("{needs_target: true, effects: []}", "{needs_target: true}"), 10,
     "/cases/0/given/cards/m1/modes/1/effects"),
    (("cost_kinds: [vp, components]", "cost_kinds: [vp, hp]"), 12,
     "/cases/0/given/cards/c1/abilities/0/cost_kinds/1"),
    (("prohibit: play, spells: [drawing]", "prohibit: draw, spells: [drawing]"), 13,
     "/cases/0/given/cards/p1/continuous/0"),
    (("prohibit: play, spells: [drawing]", "prohibit: play"), 13,
     "/cases/0/given/cards/p1/continuous/0/spells"),
    (("spells: [drawing]", "spells: [thinking]"), 13, "/cases/0/given/cards/p1/continuous/0/spells/0"),
    (("copy: {card: c1, id: k1}", "copy: {card: c1, id: w1}"), 15, "/cases/0/when/0/copy/id"),
    (("copy: {card: c1, id: k1}", "copy: {card: c9, id: k1}"), 15, "/cases/0/when/0/copy/card"),
])
def test_a_malformed_field_is_named_with_its_line(tmp_path, change, line, pointer):
    errors = _errors(tmp_path, GOOD.replace(*change))
    assert errors, change
    assert any(e.split(": ", 2)[1] == pointer and e.split(": ", 1)[0].endswith(f"c.yaml:{line}")
               for e in errors), errors


@pytest.mark.parametrize("card, zone, message", [
    ({"kind": "item", "original": {"kind": "creature", "damage": 1, "hp": 1}}, "hand",
     "/cards/w1/original: only a card on the table"),
    ({"kind": "creature", "damage": 1, "hp": 1, "play_as": {"creature": {"damage": 2}}}, "hand",
     "/cards/w1/play_as/creature: the card's own kind is its original form"),
    ({"kind": "instant", "effects": [{"draw": {}}],
      "modes": [{"effects": []}, {"effects": []}]}, "hand",
     "/cards/w1/effects: a card with modes has its effects in its modes"),
])
def test_what_only_the_state_tells_is_an_engine_input_problem(card, zone, message):
    with pytest.raises(InputProblem, match=message.replace("(", r"\(")):
        engine.run_case({"players": {"A": {zone: ["w1"]}}, "cards": {"w1": card}}, [])


def test_a_mixed_pay_of_another_shape_is_an_input_problem():
    given = {"turn": {"active": "A", "phase": "combat"},
             "players": {"A": {"guard_post": ["a1"]}, "B": {"guard_post": ["b1"]}},
             "cards": {"a1": {"kind": "creature", "damage": 1, "hp": 1,
                              "abilities": [{"keyword": "direct_damage", "x": 2}]},
                       "b1": {"kind": "creature", "damage": 1, "hp": 3}}}
    steps = [{"attack": {"player": "A", "attacks": [{"attacker": "a1", "target": "b1"}]}},
             {"activate": {"player": "A", "card": "a1", "ability": "direct_damage", "targets": ["b1"],
                           "pay": {"vp": -1}}}]
    with pytest.raises(InputProblem, match=textwrap.shorten("pay: a combat ability is paid", 40)):
        engine.run_case(given, steps)
