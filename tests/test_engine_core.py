"""The engine as a function: decisions inside a card's effects, the life-saving window per
creature, round trips of returned states, and a change of controller by `move`.

Known answers from 4.17.2 and 4.23.5 (an action ends when all its effects are done, the
hand's player chooses), rb7:lenyek / 136.8 / 4.23.3 (life-saving actions, not bound by the
order of acting), 5.3.2 / 131.10 (change of controller)."""
from __future__ import annotations

from engine_helpers import refused, run
from model.engine import run_case

TWO_CHOICES = {
    "players": {"A": {"hand": ["s", "a1", "a2"], "deck": ["d1"]}, "B": {"hand": ["b1", "b2"]}},
    "cards": {"s": {"kind": "sorcery", "effects": [{"discard": {"player": "B", "count": 1}},
                                                   {"discard": {"player": "A", "count": 1}},
                                                   {"draw": {"player": "A", "count": 1}}]},
              **{c: {"kind": "instant"} for c in ("a1", "a2", "b1", "b2", "d1")}},
}


def test_effects_wait_for_each_decision_in_order():
    res = run(TWO_CHOICES, [{"play": {"player": "A", "card": "s"}}])
    assert res.state["pending"]["player"] == "B"            # B decides first (4.17.2)
    assert res.state["players"]["A"]["hand"] == ["a1", "a2"]  # nothing after the decision ran yet
    res = run(TWO_CHOICES, [{"play": {"player": "A", "card": "s"}},
                            {"choose": {"player": "B", "cards": ["b2"]}}])
    assert res.state["players"]["B"]["graveyard"] == ["b2"]
    assert res.state["pending"]["player"] == "A"            # then A's own choice
    res = run(TWO_CHOICES, [{"play": {"player": "A", "card": "s"}},
                            {"choose": {"player": "B", "cards": ["b2"]}},
                            {"choose": {"player": "A", "cards": ["a1"]}}])
    assert "pending" not in res.state
    assert res.state["players"]["A"]["hand"] == ["a2", "d1"]  # the draw came last (4.23.5)
    assert res.state["players"]["A"]["graveyard"] == ["s", "a1"]


def test_other_steps_wait_for_the_decision():
    refused(TWO_CHOICES, [{"play": {"player": "A", "card": "s"}}, {"gain_vp": {"player": "A", "amount": 1}}],
            "4.23.5")


def test_a_returned_state_with_a_decision_can_be_given_back():
    first = run_case(TWO_CHOICES, [{"play": {"player": "A", "card": "s"}}])
    again = run(first.state, [{"choose": {"player": "B", "cards": ["b1"]}},
                              {"choose": {"player": "A", "cards": ["a2"]}}])
    assert again.state["players"]["B"]["graveyard"] == ["b1"]
    assert again.state["players"]["A"]["hand"] == ["a1", "d1"]


TWO_DYING = {
    "players": {"A": {"reserve": ["c1", "c2"], "components": 0}},
    "cards": {"c1": {"kind": "creature", "damage": 1, "hp": 2},
              "c2": {"kind": "creature", "damage": 1, "hp": 2}},
}


def test_saving_one_dying_creature_lets_the_other_die():
    res = run(TWO_DYING, [{"damage": {"target": "c1", "amount": 2}},
                          {"damage": {"target": "c2", "amount": 2}},
                          {"heal": {"target": "c2", "amount": 2}}])
    assert res.state["cards"]["c1"]["zone"] == "graveyard"   # its window closed at the next step
    assert res.state["cards"]["c2"]["zone"] == "reserve"
    both = {"players": {"A": {"reserve": ["c1", "c2"], "hand": ["s"]}},
            "cards": {**TWO_DYING["cards"],
                      "s": {"kind": "sorcery", "effects": [{"damage": {"target": "c1", "amount": 2}},
                                                           {"damage": {"target": "c2", "amount": 2}}]}}}
    res = run(both, [{"play": {"player": "A", "card": "s"}}, {"heal": {"target": "c1", "amount": 2}}])
    assert res.state["cards"]["c1"]["zone"] == "reserve"     # saved by the heal
    assert res.state["cards"]["c2"]["zone"] == "graveyard"   # healing c1 did not keep c2's window open
    refused(both, [{"play": {"player": "A", "card": "s"}}, {"heal": {"target": "c1", "amount": 2}},
                   {"heal": {"target": "c2", "amount": 2}}], "4.5.2")   # too late for c2


def test_a_life_saving_instant_is_not_bound_by_who_acts_first():
    given = {"turn": {"active": "B", "phase": "draw"},
             "players": {"A": {"reserve": ["a1"], "hand": ["h"], "vp": 1}},
             "cards": {"a1": {"kind": "creature", "damage": 1, "hp": 2},
                       "h": {"kind": "instant", "cost": {"vp": 1},
                             "effects": [{"heal": {"target": "$target", "amount": 2}}]}}}
    res = run(given, [{"advance": {"to": "main1"}},
                      {"damage": {"target": "a1", "amount": 3, "by": "B"}},   # 2/3 with the defence bonus
                      {"play": {"player": "A", "card": "h", "targets": ["a1"]}}])
    assert res.state["cards"]["a1"]["zone"] == "reserve"
    assert res.state["cards"]["a1"]["hp"] >= 1


def test_move_to_another_players_table_is_a_change_of_controller():
    given = {"players": {"A": {"guard_post": ["c"]}},
             "cards": {"c": {"kind": "creature", "damage": 1, "hp": 1}}}
    res = run(given, [{"move": {"card": "c", "to": "guard_post", "player": "B"}}])
    assert res.state["players"]["B"]["reserve"] == ["c"]       # 5.3.2: into the reserve, active
    assert any(e["event"] == "control_changed" for e in res.events)
    fixed = {"players": {"A": {"reserve": ["c"]}},
             "cards": {"c": {"kind": "creature", "damage": 1, "hp": 1,
                             "abilities": [{"keyword": "no_control_change"}]}}}
    refused(fixed, [{"move": {"card": "c", "to": "reserve", "player": "B"}}], "131.10")


def test_returned_only_fields_do_not_stick():
    from model.engine import apply
    from model.ruleset import load_ruleset
    from model.state import from_given
    from model.view import to_dict
    rules = load_ruleset("kodex")
    out = apply(from_given(TWO_DYING, rules), {"damage": {"target": "c1", "amount": 2}}, rules)
    shown = to_dict(out.state, rules)
    assert shown["cards"]["c1"]["dying"] is True          # the window is open after the step
    back = apply(from_given(shown, rules), {"gain_vp": {"player": "A", "amount": 1}}, rules)
    again = to_dict(back.state, rules)
    assert again["cards"]["c1"]["zone"] == "graveyard"   # given back, the window closed; no sticky field
    assert "dying" not in again["cards"]["c1"]
