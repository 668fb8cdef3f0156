"""Bad data in the fields of change 10 (docs/spec/hkk-effects.md) is an input error that names
the file, the line and the field — in a case file (the schema) and at the engine (a pointer into
`given`); nothing runs half-way."""
from __future__ import annotations

import textwrap

import pytest

from conformance.loader import load_text
from model.engine import run_case
from model.errors import InputProblem


class AnyClause:
    def __contains__(self, item):
        return True


CASE = """
format: hkk-case/1
cases:
  - id: "99.4/x"
    clause: "99.4"
    title: "t"
    given:
      players:
        A: {{reserve: [c1], table: [e1]}}
      cards:
        c1: {{kind: creature, damage: 1, hp: 2}}
        e1: {{kind: enchantment, {field}}}
    then:
      cards:
        c1: {{damage: 1}}
"""


@pytest.mark.parametrize("field, pointer", [
    ("continuous: [{number: damage, multiply: 2}]", "/cards/e1/continuous/0"),
    ("continuous: [{number: speed, add: 1}]", "/cards/e1/continuous/0/number"),
    ("continuous: [{prohibit: fly}]", "/cards/e1/continuous/0/prohibit"),
    ("continuous: [{number: damage, add: 1, scope: everyone}]", "/cards/e1/continuous/0/scope"),
    ("replace: [{event: explode, instead: []}]", "/cards/e1/replace/0/event"),
    ("replace: [{event: damage}]", "/cards/e1/replace/0"),
])
def test_a_bad_entry_names_file_line_and_field(field, pointer):
    text = textwrap.dedent(CASE.format(field=field)).lstrip("\n")
    res = load_text(text, name="bad.yaml", catalog=AnyClause())
    assert res.errors, "the bad entry must be reported"
    err = res.errors[0]
    assert err.file == "bad.yaml" and err.line == 11          # the line of e1
    assert pointer in err.pointer, (err.pointer, pointer)
    assert not res.cases                                       # nothing of the case runs


@pytest.mark.parametrize("given, where", [
    ({"cards": {"e1": {"kind": "item", "continuous": [{"number": "damage"}]}},
      "players": {"A": {"table": ["e1"]}}}, "/cards/e1/continuous/0"),
    ({"lasting": [{"id": "x", "effect": {"number": "damage", "add": 1}}]}, "/lasting/0"),
    ({"delayed": [{"at": "tomorrow", "step": {"draw": {}}}]}, "/delayed/0/at"),
    ({"turn": {"active": "A", "phase": "main1", "combat_step": "III"}}, "/turn/combat_step"),
    ({"turn": {"active": "A", "phase": "combat", "combat_step": "VIII"}}, "/turn/combat_step"),
])
def test_the_engine_names_the_field(given, where):
    with pytest.raises(InputProblem) as err:
        run_case(given, [])
    assert where in str(err.value)


def test_a_wrong_add_effect_step_changes_nothing():
    given = {"players": {"A": {"reserve": ["c1"]}}, "cards": {"c1": {"kind": "creature", "damage": 1, "hp": 2}}}
    with pytest.raises(InputProblem) as err:
        run_case(given, [{"add_effect": {"effect": {"number": "damage", "add": 1}, "until": "forever"}}])
    assert "until" in str(err.value)


@pytest.mark.parametrize("given, where", [
    ({"delayed": [{"at": "end_of_turn", "trigger": {"event": "drew"}, "step": {"draw": {}}}]},
     "/delayed/0: `at` or `trigger`, not both"),
    ({"delayed": [{"trigger": "drew", "step": {"draw": {}}}]}, "/delayed/0/trigger: an event pattern"),
    ({"delayed": [{"trigger": {"player": "A"}, "step": {"draw": {}}}]}, "/delayed/0/trigger: an event pattern"),
])
def test_a_given_resource_on_an_event_names_the_field(given, where):
    """114.2: a delayed resource of `given` with a `trigger` (hkk-case/2) is checked like one with `at`."""
    with pytest.raises(InputProblem) as err:
        run_case(given, [], version=2)
    assert where in str(err.value)


@pytest.mark.parametrize("args, message, version", [
    ({"at": "end_of_turn", "trigger": {"event": "drew"}, "step": {"draw": {}}}, "`at` or `trigger`, not both", 2),
    ({"trigger": ["drew"], "step": {"draw": {}}}, "trigger: an event pattern", 2),
    ({"trigger": {"event": "drew"}, "step": {"draw": {}}}, "trigger: hkk-case/2 only", 1),
])
def test_a_delay_step_on_an_event_is_checked(args, message, version):
    """114.2: `delay.trigger` is hkk-case/2's, instead of `at`, an event pattern; a wrong one is an
    input error and nothing is set up."""
    given = {"players": {"A": {"deck": ["d1"]}}, "cards": {"d1": {"kind": "instant"}}}
    with pytest.raises(InputProblem) as err:
        run_case(given, [{"delay": args}], version=version)
    assert message in str(err.value)


def test_a_delay_on_an_event_in_a_version_1_file_is_a_schema_error():
    text = textwrap.dedent("""
        format: hkk-case/1
        cases:
          - id: "114.2/x"
            clause: "114.2"
            title: "t"
            when:
              - delay: {trigger: {event: drew}, step: {draw: {player: A}}}
            then:
              players:
                A: {hand: []}
        """).lstrip("\n")
    res = load_text(text, name="bad.yaml", catalog=AnyClause())
    assert res.errors and not res.cases
    assert any("trigger" in e.pointer or "trigger" in e.message for e in res.errors), res.errors
