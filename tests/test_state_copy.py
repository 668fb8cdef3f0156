"""A card's copy (model/state.py `Card.copy`, the copy-on-read of `Cards`) names every field, and
the empty values cards share (`SHARED_EMPTY_LIST`, `SHARED_EMPTY_DICT`) are never filled: the two
things a slotted card with shared empties could get wrong without any rule test noticing."""
from __future__ import annotations

from dataclasses import fields

import pytest

from model import state as state_module
from model.engine import run_case
from model.state import Card, card_from_def
from properties.driver import random_game

# a value for every field, none of them the default
SAMPLE = {
    "id": "x", "kind": "creature", "owner": "B", "reaction": True, "name": "Név",
    "subtypes": ["vízió"], "cost": {"any": 2}, "base_damage": 3, "base_hp": 4,
    "components_yield": 1, "active": False, "counters": {"poison": 1}, "wounds": 2,
    "premade": True, "standalone_token": True, "abilities": [{"keyword": "flying"}],
    "attached_to": "y", "bonus": {"damage": 1}, "effects": [{"draw": {"count": 1}}],
    "continuous": [{"set": {}}], "replace": [{"instead": {}}], "needs_target": True,
    "colors": ["red"], "icons": ["hegy"], "condition": [{"colors": ["red"]}],
    "play_as": {"instant": {"effects": []}}, "modes": [{"effects": []}, {"effects": []}],
    "original": {"kind": "creature"}, "enters_active": True, "timestamp": 7,
    "extra": {"note": [1]}, "marks": {"frozen_until": 3},
}
# the fields a copy gets its own container for (the rest are never changed in place)
OWN_CONTAINERS = ("subtypes", "colors", "icons", "cost", "counters", "bonus", "abilities", "effects",
                  "extra", "marks", "play_as", "modes", "original")


def test_the_sample_names_every_field_with_a_value_that_is_not_the_default():
    assert set(SAMPLE) == {f.name for f in fields(Card)}
    plain = Card(id="x", kind="instant", owner="A", reaction=False)
    assert all(getattr(plain, name) != value for name, value in SAMPLE.items() if name != "id")


def test_a_copy_equals_its_card_field_by_field_and_shares_no_container_it_may_change():
    card = Card(**SAMPLE)
    copy = card.copy()
    for name in SAMPLE:
        assert getattr(copy, name) == getattr(card, name), name
    assert copy == card
    for name in OWN_CONTAINERS:
        assert getattr(copy, name) is not getattr(card, name), name


def test_a_card_with_no_condition_modes_or_forms_shares_the_empty_values():
    card = card_from_def("c", {"kind": "creature", "hp": 1}, "A", "/cards/c")
    assert card.condition is state_module.SHARED_EMPTY_LIST and card.modes is state_module.SHARED_EMPTY_LIST
    assert card.play_as is state_module.SHARED_EMPTY_DICT
    formed = card_from_def("d", {"kind": "creature", "hp": 1, "play_as": {"instant": {}}}, "A", "/cards/d")
    assert formed.play_as is not state_module.SHARED_EMPTY_DICT and "instant" in formed.play_as


@pytest.mark.parametrize("seed", range(12))
def test_no_run_fills_the_shared_empty_values(seed):
    given, when = random_game(seed, 150)
    run_case(given, when)
    run_case(given, when, version=2)
    assert state_module.SHARED_EMPTY_LIST == [] and state_module.SHARED_EMPTY_DICT == {}


def test_the_corpus_cases_with_forms_modes_or_conditions_fill_no_shared_empty_value():
    from conformance.loader import load_files
    cases = [c for c in load_files().cases
             if any(k in d for d in (c.given or {}).get("cards", {}).values() if isinstance(d, dict)
                    for k in ("play_as", "modes", "condition", "original"))]
    assert len(cases) > 20
    for case in cases:
        run_case(case.given, case.when, version=case.version)
    assert state_module.SHARED_EMPTY_LIST == [] and state_module.SHARED_EMPTY_DICT == {}


def test_no_run_changes_its_given_or_shares_a_part_of_it_with_the_state():
    """`from_given` copies only what the state keeps (no copy of the whole `given`): every corpus
    case, run twice on the same `given` object, leaves it as it was and gives the same result."""
    import copy

    from conformance.loader import load_files
    for case in load_files().cases:
        before = copy.deepcopy(case.given)
        first = run_case(case.given, case.when, version=case.version)
        assert case.given == before, case.id
        again = run_case(case.given, case.when, version=case.version)
        assert (again.state, again.refused, again.events) == (first.state, first.refused, first.events), case.id


@pytest.mark.parametrize("seed", range(8))
def test_the_turn_bookkeeping_never_keeps_an_empty_list_set(seed):
    """`TurnInfo`'s `==` (a dataclass's, over every field) compares a field not set — an empty
    tuple — with what another state set: a list left set and empty would make two equal turns
    unequal. Every state of random play (both formats) holds none."""
    from properties.driver import play_random
    for version in (1, 2):
        for st in play_random(seed, 120, version=version):
            assert not [k for k, v in vars(st.turn_info).items() if isinstance(v, list) and not v], st.turn_info
