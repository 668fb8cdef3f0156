"""The engine as a function: decisions inside a card's effects, the life-saving window per
creature, round trips of returned states, a change of controller by `move`, effects carried
out as far as possible, and the state's card index and copy-on-read cards.

Known answers from 4.17.2 and 4.23.5 (an action ends when all its effects are done, the
hand's player chooses), rb7:lenyek / 136.8 / 4.23.3 (life-saving actions, not bound by the
order of acting), 5.3.2 / 131.10 (change of controller), 4.24.2 (an effect that cannot be
carried out in full is carried out as far as it can be), 4.8.4, 4.19.1."""
from __future__ import annotations

import copy

import pytest

from engine_helpers import refused, run
from model.engine import apply, run_case
from model.errors import InputProblem
from model.ruleset import load_ruleset
from model.state import from_given


def prevented(given, when, clause, **fields):
    """The last step is accepted, but a rule stopped its effect: an `effect_prevented` event names
    the clause (and `fields`); returns the result."""
    res = run(given, when)
    stops = [e for e in res.events if e["event"] == "effect_prevented" and e["clause"] == clause
             and all(e.get(k) == v for k, v in fields.items())]
    assert stops, res.events
    return res

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
    late = prevented(both, [{"play": {"player": "A", "card": "s"}}, {"heal": {"target": "c1", "amount": 2}},
                            {"heal": {"target": "c2", "amount": 2}}], "4.5.2", verb="heal", target="c2")
    assert late.state["cards"]["c2"]["zone"] == "graveyard"   # too late for c2: the heal does nothing


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
    res = prevented(fixed, [{"move": {"card": "c", "to": "reserve", "player": "B"}}], "131.10",
                    verb="move", card="c")
    assert res.state["players"]["A"]["reserve"] == ["c"]     # the effect did nothing


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


# ---------------------------------------------------------------------------
# 4.24.2: actions are refused, effects are carried out as far as possible

VOID_SORCERY = {
    "players": {"A": {"vp": 2, "hand": ["s"], "void": ["v"], "deck": ["d"]}},
    "cards": {"s": {"kind": "sorcery", "cost": {"vp": 2},
                    "effects": [{"move": {"card": "v", "to": "hand"}}, {"draw": {"player": "A"}}]},
              "v": {"kind": "instant"}, "d": {"kind": "instant"}},
}


def test_a_bare_effect_a_rule_stops_is_accepted_and_changes_nothing():
    given = {"players": {"A": {"void": ["c1"]}}, "cards": {"c1": {"kind": "instant"}}}
    res = run(given, [{"move": {"card": "c1", "to": "hand"}}])
    assert res.state["players"]["A"]["void"] == ["c1"]
    assert res.events == [{"event": "effect_prevented", "verb": "move", "card": "c1", "clause": "4.8.4"}]


def test_a_played_card_whose_effect_is_stopped_is_still_played():
    res = run(VOID_SORCERY, [{"play": {"player": "A", "card": "s"}}])
    a = res.state["players"]["A"]
    assert (a["vp"], a["graveyard"], a["void"], a["hand"]) == (0, ["s"], ["v"], ["d"])
    names = [e["event"] for e in res.events]
    assert names.index("effect_prevented") < names.index("drew")   # the later effect still happens
    stop = next(e for e in res.events if e["event"] == "effect_prevented")
    assert stop == {"event": "effect_prevented", "verb": "move", "card": "v", "source": "s", "clause": "4.8.4"}


def test_the_steps_after_a_stopped_effect_still_apply():
    res = run(VOID_SORCERY, [{"move": {"card": "v", "to": "hand"}}, {"draw": {"player": "A"}}])
    assert res.state["players"]["A"]["hand"] == ["s", "d"]


def test_an_action_is_still_refused_whole():
    given = {"players": {"A": {"vp": 1, "hand": ["s"]}}, "cards": {"s": {"kind": "sorcery", "cost": {"vp": 2}}}}
    refused(given, [{"play": {"player": "A", "card": "s"}}], "4.20.3")
    refused({"players": {"A": {"void": ["s"]}}, "cards": {"s": {"kind": "sorcery"}}},
            [{"play": {"player": "A", "card": "s"}}], "4.8.4")


def test_a_cost_step_is_refused_whole():
    given = {"players": {"A": {"hand": ["h1"], "deck": ["d1"], "hp": 2}},
             "cards": {"h1": {"kind": "instant"}, "d1": {"kind": "instant"}}}
    refused(given, [{"discard": {"player": "A", "count": 2, "as_cost": True}}], "4.17.5")
    refused(given, [{"mill": {"player": "A", "count": 2, "as_cost": True}}], "4.18.3")
    refused(given, [{"sacrifice_hp": {"player": "A", "amount": 3, "as_cost": True}}], "103.2")
    refused(given, [{"discard": {"player": "A", "cards": ["d1"], "as_cost": True}}], "4.17.0")


def test_a_discard_does_each_named_card_it_can():
    given = {"players": {"A": {"hand": ["h1", "h2"], "reserve": ["c1"]}},
             "cards": {"h1": {"kind": "instant"}, "h2": {"kind": "instant"},
                       "c1": {"kind": "creature", "damage": 1, "hp": 1}}}
    res = prevented(given, [{"discard": {"player": "A", "cards": ["c1", "h2"]}}], "4.17.0",
                    verb="discard", card="c1", player="A")
    a = res.state["players"]["A"]
    assert (a["hand"], a["graveyard"], a["reserve"]) == (["h1"], ["h2"], ["c1"])


def test_a_discard_naming_fewer_cards_than_its_count_asks_for_the_rest():
    given = {"players": {"A": {"hand": ["h1", "h2", "h3"]}},
             "cards": {c: {"kind": "instant"} for c in ("h1", "h2", "h3")}}
    res = run(given, [{"discard": {"player": "A", "count": 2, "cards": ["h1"]}}])
    assert res.state["players"]["A"]["graveyard"] == ["h1"]
    assert res.state["pending"]["count"] == 1                      # 4.17.2: the holder chooses the rest
    assert res.state["pending"]["options"] == ["h2", "h3"]
    res = run(given, [{"discard": {"player": "A", "count": 2, "cards": ["h1"]}},
                      {"choose": {"player": "A", "cards": ["h3"]}}])
    assert res.state["players"]["A"]["graveyard"] == ["h1", "h3"]
    with pytest.raises(InputProblem):                              # names more than it discards
        run_case(given, [{"discard": {"player": "A", "count": 1, "cards": ["h1", "h2"]}}])


def test_a_choice_is_an_action_refused_when_it_does_not_fit():
    given = {"players": {"A": {"hand": ["h1", "h2"], "reserve": ["c1"]}},
             "cards": {"h1": {"kind": "instant"}, "h2": {"kind": "instant"},
                       "c1": {"kind": "creature", "damage": 1, "hp": 1}}}
    ask = [{"discard": {"player": "A", "count": 1}}]
    refused(given, ask + [{"choose": {"player": "A", "cards": ["c1"]}}], "4.17.0")
    refused(given, ask + [{"choose": {"player": "A", "cards": ["h1", "h2"]}}], "4.17.3")


def test_gates_refuse_effects_too():
    pending = {"players": {"A": {"hand": ["h1", "h2"], "deck": ["d1"]}},
               "cards": {c: {"kind": "instant"} for c in ("h1", "h2", "d1")}}
    refused(pending, [{"discard": {"player": "A", "count": 1}}, {"draw": {"player": "A"}}], "4.23.5")
    over = {"turn": {"active": "A", "phase": "main2"}, "players": {"A": {"hp": 1}}}
    refused(over, [{"damage": {"target": "A", "amount": 1}}, {"advance": {"to": "main1"}},
                   {"gain_vp": {"player": "A", "amount": 1}}], "4.19.1")


def test_create_a_rule_stops_makes_no_card():
    res = prevented({}, [{"create": {"player": "A", "card": {"id": "t", "kind": "instant"}, "zone": "table"}}],
                    "4.9.1", verb="create", card="t", player="A")
    assert "t" not in res.state["cards"]
    assert not [e for e in res.events if e["event"] == "created"]


def test_a_part_stopped_after_it_changed_the_state_is_an_engine_error():
    from model.effects import as_far_as_possible
    from model.game import Game
    rules = load_ruleset("kodex")
    g = Game(from_given({}, rules), rules)

    def half_done():
        g.emit("vp_gained", player="A", amount=1)
        g.refuse("4.8.4", "too late")
    with pytest.raises(RuntimeError):
        as_far_as_possible(g, "gain_vp", half_done)


# ---------------------------------------------------------------------------
# the card index (State.where) and copy-on-read cards (State.cards)

def _index_matches_zones(state):
    listed = {cid: (p, z) for p, pl in state.players.items() for z, ids in pl.zones.items() for cid in ids}
    assert state.where == listed


def test_the_card_index_follows_every_move():
    rules = load_ruleset("kodex")
    st = from_given({"players": {"A": {"hand": ["s", "c"], "deck": ["d1", "d2"], "graveyard": ["g"]},
                                 "B": {"reserve": ["b"]}},
                     "cards": {"s": {"kind": "sorcery", "effects": [{"draw": {"player": "A"}}]},
                               "c": {"kind": "creature", "damage": 1, "hp": 1},
                               "b": {"kind": "creature", "damage": 1, "hp": 1},
                               "g": {"kind": "instant"},
                               **{d: {"kind": "instant"} for d in ("d1", "d2")}}}, rules)
    _index_matches_zones(st)
    for step in ({"play": {"player": "A", "card": "s"}}, {"play": {"player": "A", "card": "c"}},
                 {"exile": {"card": "g"}}, {"steal": {"card": "b", "to": "A"}},
                 {"move": {"card": "d2", "to": "deck_shuffle"}}, {"move": {"card": "b", "to": "hand"}}):
        out = apply(st, step, rules)
        assert out.refusal is None, (step, out.refusal)
        _index_matches_zones(out.state)
        st = out.state
    assert st.locate("s") == ("A", "graveyard") and st.locate("g") == ("A", "void")
    assert st.locate("b") == ("B", "hand")


def test_a_clone_shares_no_card_with_its_state():
    rules = load_ruleset("kodex")
    st = from_given({"players": {"A": {"reserve": ["c"]}}, "cards": {"c": {"kind": "creature", "damage": 1,
                                                                           "hp": 3}}}, rules)
    st.cards["c"].wounds = 1                    # the state's own card, changed before the clone
    twin = st.clone()
    twin.cards["c"].wounds = 2
    assert st.cards["c"].wounds == 1
    st.cards["c"].counters["x-mark"] = 1
    assert twin.cards["c"].counters == {}
    assert twin.cards["c"].wounds == 2 and st.clone().cards["c"].wounds == 1
    assert set(twin.cards) == {"c"} and len(twin.cards) == 1 and twin.cards == twin.clone().cards
    twin.where["c"] = ("B", "reserve")
    assert st.locate("c") == ("A", "reserve")


def test_a_clone_and_its_state_share_a_zone_list_only_until_either_changes_it():
    rules = load_ruleset("kodex")
    st = from_given({"players": {"A": {"deck": ["d1", "d2"], "hand": ["h"]}},
                     "cards": {c: {"kind": "creature", "damage": 1, "hp": 1} for c in ("d1", "d2", "h")}},
                    rules)
    twin = st.clone()
    twin.players["A"].own_zone("deck").remove("d1")          # the clone's change
    assert st.players["A"].zones["deck"] == ["d1", "d2"] and twin.players["A"].zones["deck"] == ["d2"]
    st.players["A"].own_zone("hand").append("d1")            # the state's change, after the clone
    assert twin.players["A"].zones["hand"] == ["h"] and st.players["A"].zones["hand"] == ["h", "d1"]
    third = twin.clone()                                     # a clone of a clone: the same, again
    third.players["A"].own_zone("deck").clear()
    assert twin.players["A"].zones["deck"] == ["d2"] and st.players["A"].zones["deck"] == ["d1", "d2"]
    assert twin.players["A"].own_zone("deck") is twin.players["A"].zones["deck"]


def test_a_refused_step_leaves_the_given_state_untouched():
    rules = load_ruleset("kodex")
    st = from_given({"players": {"A": {"vp": 1, "reserve": ["c"], "hand": ["s"]}},
                     "cards": {"c": {"kind": "creature", "damage": 1, "hp": 3, "wounds": 1},
                               "s": {"kind": "sorcery", "cost": {"vp": 1}, "needs_target": True,
                                     "effects": [{"damage": {"target": "$target", "amount": 1}}]}}}, rules)
    before = (st.where.copy(), {cid: copy.deepcopy(c) for cid, c in st.cards.peek_items()})
    out = apply(st, {"play": {"player": "A", "card": "s"}}, rules)      # no target: refused
    assert out.refusal is not None and out.state is st
    assert (st.where, dict(st.cards.peek_items())) == before
    out = apply(st, {"play": {"player": "A", "card": "s", "targets": ["c"]}}, rules)
    assert out.refusal is None and out.state.cards["c"].wounds == 2
    assert st.cards["c"].wounds == 1 and st.locate("s") == ("A", "hand")


def test_attachments_in_a_ring_are_an_input_error():
    # contract change 21: each card waits for the other to be played first — no order of play
    given = {"players": {"A": {"reserve": ["c1"], "table": ["e1", "e2"]}},
             "cards": {"c1": {"kind": "creature", "damage": 1, "hp": 1},
                       "e1": {"kind": "enchantment", "attached_to": "e2"},
                       "e2": {"kind": "enchantment", "attached_to": "e1"}}}
    with pytest.raises(InputProblem, match=r"/cards/e1/attached_to: .*e1, e2 form a ring"):
        from_given(given, load_ruleset("kodex"))
    given["cards"]["e2"].pop("attached_to")          # a chain, not a ring: e2 first, then e1
    state = from_given(given, load_ruleset("kodex"))
    assert state.cards["e2"].timestamp < state.cards["e1"].timestamp


def test_building_a_state_and_playing_it_leave_no_garbage_in_cycles():
    """Everything from_given, apply and run_case build is freed by reference counting, refused
    steps included: no reference cycle (a state kept alive by one waits for the cycle collector;
    random play once left several hundred objects per game so, the collections were 6% of its
    time, and a refusal kept its frames, the caller's among them, through its traceback)."""
    import gc
    rules = load_ruleset("kodex")
    given = {"players": {"A": {"deck": ["d1", "d2"], "table": ["h", "e1", "e2"]}},
             "cards": {"d1": {"kind": "creature", "damage": 1, "hp": 1},
                       "d2": {"kind": "instant", "effects": [{"draw": {"count": 1}}]},
                       "h": {"kind": "creature", "damage": 1, "hp": 2},
                       "e2": {"kind": "enchantment", "attached_to": "e1"},   # waits for its host
                       "e1": {"kind": "enchantment", "attached_to": "h"}}}
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        gc.collect()
        st = from_given(given, rules)
        assert st.cards.peek("e2").timestamp > st.cards.peek("e1").timestamp
        out = apply(st, {"draw": {"player": "A"}}, rules)
        assert out.refusal is None
        no = apply(st, {"play": {"player": "A", "card": "d1"}}, rules)      # d1 is in the deck
        assert no.refusal is not None and no.refusal.clause == "4.21.0"
        res = run_case(given, [{"play": {"player": "A", "card": "d1"}}])     # refused, in a run
        assert res.refused and res.refused["clause"] == "4.21.0"
        del st, out, no, res
        assert gc.collect() == 0
    finally:
        if was_enabled:
            gc.enable()


def _plain_json(value, path="") -> list[str]:
    """Where ``value`` holds anything but JSON data (dict with str keys, list, str, int, float,
    bool, None)."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return []
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _plain_json(v, f"{path}/{i}")]
    if isinstance(value, dict):
        return [f"{path}/{k!r}: key" for k in value if not isinstance(k, str)] + \
            [p for k, v in value.items() for p in _plain_json(v, f"{path}/{k}")]
    return [f"{path}: {type(value).__name__}"]


def test_every_result_over_the_corpus_is_plain_json_data():
    """What the reference returns is what `kodex serve` sends: no object of the engine's may leak
    into a state, an event or a refusal (a muscle reward's draw once carried a `Cause` object as
    its `moved.cause`, which the protocol sent as a repr string)."""
    from conformance.loader import load_files
    from conformance.runner import choose_ruleset, run_reference
    for case in load_files().cases:
        res = run_reference(case, choose_ruleset(case, None)[0])
        bad = _plain_json({"state": res.state, "events": res.events, "refused": res.refused,
                           "result": res.result})
        assert not bad, (case.id, bad[:3])


def test_a_verb_is_an_action_or_an_effect_never_both():
    """`SUPPORTED_VERBS` joins the actions, the effects and `choose` (model/engine.py); the
    strength declarations of its `|` → `^` mutants rely on the three being disjoint."""
    from model.engine import ACTIONS, EFFECTS, SUPPORTED_VERBS
    assert not set(ACTIONS) & set(EFFECTS)
    assert "choose" not in set(ACTIONS) | set(EFFECTS)
    assert set(SUPPORTED_VERBS) == {v for v in (*ACTIONS, *EFFECTS, "choose") if not v.startswith("_")}
