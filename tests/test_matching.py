"""conformance/matching.py: the `then` semantics of docs/spec/hkk-case-format.md
("Expectations") and the error-clause ancestor rule of docs/spec/hkk-refusals.md."""
from __future__ import annotations

import pytest

from conformance import profiles

from conformance.matching import (MISSING, NO_REFUSAL, Difference, clause_matches,
                                  first_difference, matches, observed_view)


def state(**over):
    s = {
        "turn": {"active": "A", "phase": "main1"},
        "players": {
            "A": {"hp": 20, "max_hp": 20, "vp": 0, "hand": ["c1", "c2"], "graveyard": []},
            "B": {"hp": 17, "max_hp": 20, "vp": 3, "hand": [], "graveyard": ["c3"]},
        },
        "cards": {
            "c1": {"kind": "creature", "damage": 2, "hp": 3, "zone": "hand", "active": True,
                   "counters": {"poison": 1}, "premade": False},
            "c2": {"kind": "instant", "zone": "hand"},
            "c3": {"kind": "creature", "zone": "graveyard", "counters": {}},
        },
        "removed": ["t1"],
    }
    s.update(over)
    return s


EVENTS = [
    {"event": "healed", "target": "A", "amount": 2},
    {"event": "moved", "card": "c1", "from": "reserve", "to": "void", "counts_as": "graveyard"},
    {"event": "damaged", "target": "c3", "amount": 2},
    {"event": "healed", "target": "B", "amount": 1},
]


def obs(refused=None, result="ongoing", events=EVENTS, **over):
    return observed_view(state(**over), events, result, refused)


def diff(then, observed=None, n_steps=1):
    return first_difference(then, observed if observed is not None else obs(), n_steps)


# --------------------------------------------------------------------------
# observed_view

def test_observed_view_contents():
    v = observed_view(state(), EVENTS, {"winner": "A"}, None)
    assert v["players"]["B"]["hp"] == 17 and v["removed"] == ["t1"]
    assert v["events"] == EVENTS and v["result"] == {"winner": "A"}
    assert "error" not in v
    v = observed_view(state(), [], "ongoing", {"step": 2, "clause": "4.17.5", "message": "m"})
    assert v["error"]["step"] == 2 and v["error"]["clause"] == "4.17.5"
    assert observed_view(None, None, None, None) == {"events": []}


# --------------------------------------------------------------------------
# mappings, lists, scalars

def test_mapping_matches_named_keys_only():
    assert diff({}) is None
    assert diff({"players": {"A": {"hp": 20}}}) is None
    assert diff({"players": {"B": {"hp": 17, "vp": 3}}, "turn": {"phase": "main1"}}) is None
    d = diff({"players": {"B": {"hp": 20}}})
    assert d == Difference("/players/B/hp", 20, 17, d.message)


def test_first_difference_in_then_order():
    d = diff({"turn": {"active": "B"}, "players": {"A": {"hp": 1}}})
    assert d.path == "/turn/active"
    d = diff({"players": {"A": {"hp": 1}}, "turn": {"active": "B"}})
    assert d.path == "/players/A/hp"


def test_missing_key_is_a_difference():
    d = diff({"cards": {"c1": {"wounds": 1}}})
    assert d.path == "/cards/c1/wounds" and d.expected == 1 and d.actual is MISSING
    d = diff({"cards": {"zz": {"zone": "hand"}}})
    assert d.path == "/cards/zz" and d.actual is MISSING
    d = diff({"pending": {"player": "A"}})
    assert d.path == "/pending" and d.actual is MISSING


def test_null_matches_absent_and_zero_counter_matches_absent_counter():
    assert diff({"pending": None}) is None
    assert diff({"cards": {"c1": {"counters": {"poison": 1, "sleep": 0}}}}) is None
    assert diff({"cards": {"c3": {"counters": {"poison": 0}}}}) is None
    d = diff({"cards": {"c3": {"counters": {"poison": 1}}}})
    assert d.path == "/cards/c3/counters/poison" and d.actual is MISSING
    # outside counters an absent key is not 0
    assert diff({"players": {"A": {"components": 0}}}).path == "/players/A/components"


def test_mapping_expected_but_scalar_found():
    d = diff({"players": {"A": {"hp": {"x": 1}}}})
    assert d.path == "/players/A/hp" and d.actual == 20


def test_list_same_items_same_order():
    assert diff({"players": {"A": {"hand": ["c1", "c2"]}}}) is None
    d = diff({"players": {"A": {"hand": ["c2", "c1"]}}})
    assert d.path == "/players/A/hand"
    assert d.expected == ["c2", "c1"] and d.actual == ["c1", "c2"]
    assert "item 0" in d.message
    d = diff({"players": {"A": {"hand": ["c1"]}}})             # a prefix is not enough
    assert d.path == "/players/A/hand" and "1 items, got 2" in d.message
    d = diff({"players": {"A": {"hand": ["c1", "c2", "c3"]}}})
    assert d.path == "/players/A/hand"
    assert diff({"players": {"A": {"graveyard": []}}}) is None
    assert diff({"players": {"B": {"graveyard": []}}}).path == "/players/B/graveyard"
    assert diff({"removed": ["t1"]}) is None
    assert diff({"removed": []}).path == "/removed"


def test_list_of_mappings_items_are_patterns():
    o = {"log": [{"a": 1, "b": 2}, {"a": 3, "b": 4}]}
    assert first_difference({"log": [{"a": 1}, {"b": 4}]}, o, 1) is None
    d = first_difference({"log": [{"a": 1}, {"b": 5}]}, o, 1)
    assert d.path == "/log/1/b" and d.expected == 5 and d.actual == 4
    d = first_difference({"log": [{"a": 1}]}, o, 1)
    assert d.path == "/log" and "1 items, got 2" in d.message


@pytest.mark.parametrize("expected,actual,ok", [
    (1, 1, True), (1, 1.0, True), (0, 0, True), ("a", "a", True), (None, None, True),
    (True, True, True), (False, False, True),
    (1, True, False), (True, 1, False), (0, False, False), (False, 0, False),
    (1, "1", False), ("1", 1, False), (None, 0, False), (0, None, False), ("a", "b", False),
    ([1], [True], False), ([True], [1], False), ({"a": 1}, {"a": True}, False),
    ([1, 2], [2, 1], False), ([], [], True), ({}, {"x": 1}, True), ({}, [], False),
    ("ongoing", {"winner": "A"}, False),
])
def test_scalars_match_only_themselves(expected, actual, ok):
    assert matches(expected, actual) is ok


def test_one_does_not_match_true_message():
    o = obs()
    o["cards"]["c1"]["active"] = True
    d = first_difference({"cards": {"c1": {"active": 1}}}, o, 1)
    assert d.path == "/cards/c1/active" and d.expected == 1 and d.actual is True
    assert "boolean" in d.message
    d = first_difference({"cards": {"c1": {"damage": True}}}, o, 1)
    assert d.path == "/cards/c1/damage"


def test_json_pointer_escaping():
    o = {"cards": {"a/b": {"x~y": 1}}}
    d = first_difference({"cards": {"a/b": {"x~y": 2}}}, o, 1)
    assert d.path == "/cards/a~1b/x~0y"


# --------------------------------------------------------------------------
# events

def test_events_in_order_subsequence():
    assert diff({"events": []}) is None
    assert diff({"events": [{"event": "healed"}]}) is None
    assert diff({"events": [{"event": "healed", "target": "A"},
                            {"event": "damaged", "amount": 2}]}) is None
    assert diff({"events": [{"event": "moved", "counts_as": "graveyard"},
                            {"event": "healed", "target": "B"}]}) is None
    assert diff({"events": [{"event": "healed"}, {"event": "healed"}]}) is None


def test_events_out_of_order_reports_first_missing():
    d = diff({"events": [{"event": "damaged"}, {"event": "moved", "card": "c1"}]})
    assert d.path == "/events/1"
    assert d.expected == {"event": "moved", "card": "c1"}
    assert "earlier" in d.message


def test_events_missing_or_wrong_fields():
    d = diff({"events": [{"event": "healed", "target": "A"}, {"event": "died"}]})
    assert d.path == "/events/1" and "no 'died' event" in d.message
    d = diff({"events": [{"event": "damaged", "target": "c3", "amount": 3}]})
    assert d.path == "/events/0"
    assert d.actual == [EVENTS[2]]                            # the candidates shown
    # each expected event consumes one observed event
    d = diff({"events": [{"event": "healed"}, {"event": "healed"}, {"event": "healed"}]})
    assert d.path == "/events/2"


def test_no_events_forbids_every_matching_event():
    assert diff({"no_events": [{"event": "died"}]}) is None                    # none occurred
    assert diff({"no_events": [{"event": "healed", "target": "C"}]}) is None   # fields differ
    d = diff({"no_events": [{"event": "died"}, {"event": "healed", "target": "B"}]})
    assert d.path == "/no_events/1" and "must not occur" in d.message
    assert d.actual["event"] == "healed" and d.actual["target"] == "B"
    d = diff({"no_events": [{"event": "damaged"}]})                          # by kind alone
    assert d.path == "/no_events/0"
    assert profiles.observes({"no_events": [{"event": "died"}]}) == ["events"]


# --------------------------------------------------------------------------
# error

@pytest.mark.parametrize("expected,actual,ok", [
    ("4.8", "4.8.4", True), ("4.8", "4.8", True), ("4", "4.8.4", True),
    ("4.8.4", "4.8.4", True), ("4.8", "4.80", False), ("4.8", "4.80.1", False),
    ("4.8.4", "4.8", False), ("4.8.4", "4.8.41", False), ("hkk-case/1", "hkk-case/1", True),
    ("rb7:harci-fazis", "rb7:harci-fazis.II", True), ("rb7:harci", "rb7:harci-fazis", False),
    ("mk:5.10", "mk:5.10.G", True), (None, "4.1", True), ("4.1", None, False),
])
def test_clause_ancestor_rule(expected, actual, ok):
    assert clause_matches(expected, actual) is ok


def refused(step, clause):
    return obs(refused={"step": step, "clause": clause, "message": "no"})


def test_error_true_means_last_step():
    assert first_difference({"error": True}, refused(2, "4.17.5"), 3) is None
    d = first_difference({"error": True}, refused(1, "4.17.5"), 3)
    assert d.path == "/error/step" and d.expected == 2 and d.actual == 1


def test_error_clause_and_step():
    o = refused(0, "4.8.4")
    assert first_difference({"error": {"clause": "4.8.4"}}, o, 1) is None
    assert first_difference({"error": {"clause": "4.8"}}, o, 1) is None
    assert first_difference({"error": {"clause": "4.8", "step": 0}}, refused(0, "4.8.4"), 3) is None
    d = first_difference({"error": {"clause": "4.80"}}, o, 1)
    assert d.path == "/error/clause" and d.expected == "4.80" and d.actual == "4.8.4"
    d = first_difference({"error": {"clause": "4.8.4.1"}}, o, 1)
    assert d.path == "/error/clause"
    d = first_difference({"error": {"clause": "4.8"}}, o, 2)   # default step: the last (1)
    assert d.path == "/error/step" and d.expected == 1 and d.actual == 0
    assert first_difference({"error": {"step": 0}}, o, 5) is None


def test_unexpected_refusal_is_the_difference():
    o = refused(1, "4.17.5")
    d = first_difference({"players": {"A": {"hp": 1}}}, o, 3)   # checked before the state
    assert d.path == "/error" and d.expected == NO_REFUSAL
    assert d.actual == {"step": 1, "clause": "4.17.5"}
    assert "4.17.5" in d.message
    assert first_difference({}, o, 3).path == "/error"


def test_expected_refusal_missing():
    d = first_difference({"error": {"clause": "4.17.5"}}, obs(), 2)
    assert d.path == "/error" and d.actual == NO_REFUSAL
    assert d.expected == {"step": 1, "clause": "4.17.5"}
    assert first_difference({"error": True}, obs(), 1).path == "/error"


def test_state_after_refusal_is_still_matched():
    o = refused(0, "4.8.4")
    d = first_difference({"error": {"clause": "4.8"}, "players": {"A": {"hp": 19}}}, o, 1)
    assert d.path == "/players/A/hp"


# --------------------------------------------------------------------------
# result

def test_result():
    assert diff({"result": "ongoing"}) is None
    d = diff({"result": {"winner": "A"}})
    assert d.path == "/result" and d.expected == {"winner": "A"} and d.actual == "ongoing"
    o = obs(result={"winner": "B"})
    assert first_difference({"result": {"winner": "B"}}, o, 1) is None
    assert first_difference({"result": {"winner": "A"}}, o, 1).path == "/result"
    assert first_difference({"result": {"draw": True}}, o, 1).path == "/result"
    o = obs(result={"draw": True})
    assert first_difference({"result": {"draw": True}}, o, 1) is None
    assert first_difference({"result": "ongoing"}, o, 1).path == "/result"


def test_difference_str():
    d = Difference("/players/A/hp", 20, 23, "x")
    assert str(d) == "/players/A/hp: expected 20, got 23 (x)"
    assert str(Difference("/a", 1, MISSING)) == "/a: expected 1, got <absent>"
