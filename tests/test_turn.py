"""Turn structure and playing cards: `pass` (4.11.6–4.11.8), timing, costs, where played cards go.

Known answers from the rule text: the Kódex (4.11, 4.20–4.22, 5.4) and the
7th-edition rulebook chapter 2 (phases, rb7:varazslatok, rb7:epitmenyek,
rb7:semmizos-idezesi-koltseg-nekron, rb7:vizio, rb7:helyszin, rb7:testreszek).
Every refusal is checked for its clause and for leaving the state unchanged.
"""
from __future__ import annotations

import json

from engine_helpers import ev, phase, refused, run  # noqa: F401
from model import engine


INSTANT_B = {"players": {"B": {"vp": 2, "hand": ["i1"]}},
             "cards": {"i1": {"kind": "instant", "cost": {"vp": 1}}}}


# ---------------------------------------------------------------- pass, 4.11.6–4.11.8

def test_both_pass_ends_the_phase_and_runs_the_next():
    res = run({}, [{"pass": {"player": "A"}}, {"pass": {"player": "B"}}])
    assert phase(res) == ("exchange", "A")
    assert [e["player"] for e in ev(res, "passed")] == ["A", "B"]
    assert ev(res, "phase_started")[-1] == {"event": "phase_started", "phase": "exchange", "player": "A"}


def test_one_pass_does_not_end_the_phase():
    res = run({}, [{"pass": {"player": "A"}}])
    assert phase(res) == ("main1", "A")


ENTER_MAIN1 = {"advance": {"to": "main1"}}   # the engine enters the phase: A has the first right to act


def test_non_active_player_cannot_pass_first():
    refused({"turn": {"active": "A", "phase": "draw"}}, [ENTER_MAIN1, {"pass": {"player": "B"}}], "4.11.7")


def test_non_active_player_cannot_act_first_4_11_6():
    refused({**INSTANT_B, "turn": {"active": "A", "phase": "draw"}},
            [ENTER_MAIN1, {"play": {"player": "B", "card": "i1"}}], "4.11.6")


def test_a_given_state_is_inside_its_phase_so_either_player_may_act():
    res = run(INSTANT_B, [{"play": {"player": "B", "card": "i1"}}])
    assert res.state["players"]["B"]["graveyard"] == ["i1"]


def test_non_active_acts_after_active_passes_and_cancels_the_pass():
    res = run(INSTANT_B, [{"pass": {"player": "A"}}, {"play": {"player": "B", "card": "i1"}},
                          {"pass": {"player": "B"}}])
    assert phase(res) == ("main1", "A")           # A has not passed since B acted
    assert res.state["players"]["B"]["graveyard"] == ["i1"]
    res = run(INSTANT_B, [{"pass": {"player": "A"}}, {"play": {"player": "B", "card": "i1"}},
                          {"pass": {"player": "B"}}, {"pass": {"player": "A"}}])
    assert phase(res) == ("exchange", "A")


def test_non_active_responds_after_active_acts():
    given = {"players": {"A": {"vp": 1, "hand": ["s1"]}, "B": {"vp": 1, "hand": ["i1"]}},
             "cards": {"s1": {"kind": "sorcery", "cost": {"vp": 1}},
                       "i1": {"kind": "instant", "cost": {"vp": 1}}}}
    res = run(given, [{"play": {"player": "A", "card": "s1"}}, {"play": {"player": "B", "card": "i1"}}])
    assert res.state["players"]["B"]["graveyard"] == ["i1"]


def test_active_player_acts_first_in_every_phase():
    given = {**INSTANT_B, "turn": {"active": "A", "phase": "main1"}}
    # A passed main1 and both passed: in the exchange phase A again acts first
    refused(given, [{"pass": {"player": "A"}}, {"pass": {"player": "B"}},
                    {"play": {"player": "B", "card": "i1"}}], "4.11.6")


def test_ended_phase_cannot_be_resumed_4_11_8():
    given = {"players": {"A": {"vp": 3, "hand": ["s1"]}}, "cards": {"s1": {"kind": "sorcery"}}}
    refused(given, [{"pass": {"player": "A"}}, {"pass": {"player": "B"}},
                    {"play": {"player": "A", "card": "s1"}}], "rb7:varazslatok")


def test_passing_through_the_end_phase_starts_the_other_players_turn():
    given = {"turn": {"active": "A", "phase": "end"}, "players": {"B": {"turn": 1, "vp": 0}}}
    res = run(given, [{"pass": {"player": "A"}}, {"pass": {"player": "B"}}])
    assert phase(res) == ("preparation", "B")
    assert res.state["players"]["B"]["turn"] == 2
    assert res.state["players"]["B"]["vp"] == 2                  # second own turn: 2 VP


def test_advance_still_fast_forwards_without_passes():
    res = run({}, [{"advance": {"to": "combat"}}])
    assert phase(res) == ("combat", "A")
    assert not ev(res, "passed")


def test_turn_info_stays_json_like():
    state, _, _, refused_ = engine.run_state(INSTANT_B, [{"pass": {"player": "A"}},
                                                         {"play": {"player": "B", "card": "i1"}}])
    assert refused_ is None
    json.dumps(state.turn_info.acting)


# ---------------------------------------------------------------- timing

def test_nothing_in_preparation_not_even_an_instant():
    given = {"turn": {"active": "A", "phase": "preparation"},
             "players": {"A": {"vp": 1, "hand": ["i1"]}}, "cards": {"i1": {"kind": "instant"}}}
    refused(given, [{"play": {"player": "A", "card": "i1"}}], "rb7:elokeszito-fazis")


def test_nothing_in_the_draw_phase():
    given = {"turn": {"active": "A", "phase": "draw"},
             "players": {"A": {"hand": ["i1"]}}, "cards": {"i1": {"kind": "instant"}}}
    refused(given, [{"play": {"player": "A", "card": "i1"}}], "rb7:kijatszasi-sorrend")


def test_sorcery_and_enchantment_only_in_own_main_phase():
    for kind in ("sorcery", "enchantment"):
        for ph in ("exchange", "combat", "end"):
            given = {"turn": {"active": "A", "phase": ph},
                     "players": {"A": {"hand": ["s1"]}}, "cards": {"s1": {"kind": kind}}}
            refused(given, [{"play": {"player": "A", "card": "s1"}}], "rb7:varazslatok")
    given = {"turn": {"active": "A", "phase": "main2"},
             "players": {"A": {"hand": ["s1"]}}, "cards": {"s1": {"kind": "sorcery"}}}
    assert run(given, [{"play": {"player": "A", "card": "s1"}}]).state["cards"]["s1"]["zone"] == "graveyard"


def test_creature_not_between_exchange_and_combat():
    given = {"turn": {"active": "A", "phase": "combat"},
             "players": {"A": {"hand": ["c1"]}}, "cards": {"c1": {"kind": "creature", "damage": 1, "hp": 1}}}
    refused(given, [{"play": {"player": "A", "card": "c1"}}], "rb7:fo-fazis")
    given["turn"]["phase"] = "exchange"
    refused(given, [{"play": {"player": "A", "card": "c1"}}], "rb7:csere-fazis")


def test_non_active_player_plays_instants_only():
    given = {"players": {"B": {"hand": ["c1"]}}, "cards": {"c1": {"kind": "creature", "damage": 1, "hp": 1}}}
    refused(given, [{"pass": {"player": "A"}}, {"play": {"player": "B", "card": "c1"}}], "rb7:varazslatok")


def test_instant_in_opponents_combat_and_end_phase():
    for ph in ("combat", "end", "main2"):
        given = {**INSTANT_B, "turn": {"active": "A", "phase": ph}}
        res = run(given, [{"pass": {"player": "A"}}, {"play": {"player": "B", "card": "i1"}}])
        assert res.state["players"]["B"]["graveyard"] == ["i1"]


# ---------------------------------------------------------------- exchange, sacrifice for components

def test_overfilled_guard_post_must_be_brought_to_size_5_4_4():
    cards = {c: {"kind": "creature", "damage": 1, "hp": 1} for c in ("g1", "g2", "g3", "g4", "g5")}
    given = {"turn": {"active": "A", "phase": "exchange"},
             "players": {"A": {"guard_post": ["g1", "g2", "g3", "g4", "g5"]}}, "cards": cards}
    refused(given, [{"exchange": {"player": "A", "guard_post": ["g1", "g2", "g3", "g4"]}}], "5.4.4")
    res = run(given, [{"exchange": {"player": "A", "guard_post": ["g1", "g2", "g3"]}}])
    assert res.state["players"]["A"]["reserve"] == ["g4", "g5"]
    given = {"turn": {"active": "A", "phase": "exchange"},
             "players": {"A": {"reserve": ["g1", "g2", "g3", "g4"]}}, "cards": cards}
    refused(given, [{"exchange": {"player": "A", "guard_post": ["g1", "g2", "g3", "g4"]}}], "5.4.3")


def test_sacrifice_for_components_only_in_own_preparation():
    given = {"players": {"A": {"reserve": ["m1"]}},
             "cards": {"m1": {"kind": "creature", "damage": 1, "hp": 1, "components_yield": 2}}}
    refused(given, [{"sacrifice_for_components": {"player": "A", "cards": ["m1"]}}], "rb7:elokeszito-fazis")


# ---------------------------------------------------------------- costs (4.20)

BUILD = {"players": {"A": {"reserve": ["r1", "r2"], "hand": ["b1"]}, "B": {"reserve": ["x1"]}},
         "cards": {"r1": {"kind": "creature", "damage": 1, "hp": 1},
                   "r2": {"kind": "creature", "damage": 1, "hp": 1, "active": False},
                   "x1": {"kind": "creature", "damage": 1, "hp": 1},
                   "b1": {"kind": "building", "hp": 4, "cost": {"builders": 1}}}}


def test_builders_become_passive_and_the_building_enters_passive():
    res = run(BUILD, [{"play": {"player": "A", "card": "b1", "pay": {"builders": ["r1"]}}}])
    cards = res.state["cards"]
    assert cards["r1"]["active"] is False and cards["b1"]["zone"] == "table"
    assert cards["b1"]["active"] is False                           # rb7:epitmenyek


def test_builder_refusals():
    refused(BUILD, [{"play": {"player": "A", "card": "b1", "pay": {"builders": ["x1"]}}}], "4.20.2")
    refused(BUILD, [{"play": {"player": "A", "card": "b1", "pay": {"builders": ["r2"]}}}], "4.20.3")
    refused(BUILD, [{"play": {"player": "A", "card": "b1", "pay": {"builders": []}}}], "4.20.3")


def test_one_card_cannot_pay_twice():
    given = {"players": {"A": {"reserve": ["r1"], "hand": ["b1"]}},
             "cards": {"r1": {"kind": "creature", "damage": 1, "hp": 1},
                       "b1": {"kind": "building", "hp": 4, "cost": {"builders": 1, "sacrifice": 1}}}}
    refused(given, [{"play": {"player": "A", "card": "b1",
                              "pay": {"builders": ["r1"], "sacrifice": ["r1"]}}}], "4.20.3")


def test_sacrifice_cost_gives_no_components_and_beats_the_life_counter():
    given = {"players": {"A": {"reserve": ["r1"], "hand": ["i1"]}},
             "cards": {"r1": {"kind": "creature", "damage": 1, "hp": 1, "components_yield": 2,
                              "counters": {"life": 1}},
                       "i1": {"kind": "item", "cost": {"sacrifice": 1}}}}
    res = run(given, [{"play": {"player": "A", "card": "i1", "pay": {"sacrifice": ["r1"]}}}])
    assert res.state["cards"]["r1"]["zone"] == "graveyard"
    assert res.state["players"]["B"]["components"] == 0             # 105.2


def test_vp_short_nothing_paid():
    given = {"players": {"A": {"vp": 1, "reserve": ["r1"], "hand": ["c1"]}},
             "cards": {"r1": {"kind": "creature", "damage": 1, "hp": 1},
                       "c1": {"kind": "creature", "damage": 3, "hp": 3, "cost": {"vp": 2, "sacrifice": 1}}}}
    refused(given, [{"play": {"player": "A", "card": "c1", "pay": {"sacrifice": ["r1"]}}}], "4.20.3")


def _deck(n):
    return {f"d{i}": {"kind": "instant"} for i in range(n)}


def test_nekron_one_card_per_turn_in_the_first_three_turns():
    cards = {**_deck(8), "n1": {"kind": "creature", "damage": 1, "hp": 1, "cost": {"nekron": 1}},
             "n2": {"kind": "creature", "damage": 1, "hp": 1, "cost": {"nekron": 1}}}
    deck = [f"d{i}" for i in range(8)]
    given = {"players": {"A": {"turn": 3, "deck": deck, "hand": ["n1", "n2"]}}, "cards": cards}
    refused(given, [{"play": {"player": "A", "card": "n1"}}, {"play": {"player": "A", "card": "n2"}}],
            "rb7:semmizos-idezesi-koltseg-nekron")
    given["players"]["A"]["turn"] = 4
    res = run(given, [{"play": {"player": "A", "card": "n1"}}, {"play": {"player": "A", "card": "n2"}}])
    assert len(res.state["players"]["A"]["void"]) == 8 and res.state["players"]["A"]["deck"] == []


def test_one_vision_card_of_a_name_per_turn():
    given = {"players": {"A": {"hand": ["v1"], "graveyard": ["v2"]}},
             "cards": {"v1": {"kind": "sorcery", "name": "Latomas", "subtypes": ["vizio"]},
                       "v2": {"kind": "sorcery", "name": "Latomas", "subtypes": ["vizio"]}}}
    refused(given, [{"play": {"player": "A", "card": "v1"}},
                    {"play": {"player": "A", "card": "v2", "from": "graveyard"}}], "rb7:vizio")


# ---------------------------------------------------------------- where played cards go

def test_creature_enters_passive_flying_one_active():
    given = {"players": {"A": {"hand": ["c1", "f1"]}},
             "cards": {"c1": {"kind": "creature", "damage": 1, "hp": 1},
                       "f1": {"kind": "creature", "damage": 1, "hp": 1, "abilities": [{"keyword": "flying"}]}}}
    res = run(given, [{"play": {"player": "A", "card": "c1"}}, {"play": {"player": "A", "card": "f1"}}])
    assert res.state["players"]["A"]["reserve"] == ["c1", "f1"]
    assert res.state["cards"]["c1"]["active"] is False and res.state["cards"]["f1"]["active"] is True


def test_life_counters_only_when_played_from_the_hand():
    c = {"kind": "creature", "damage": 1, "hp": 1, "abilities": [{"keyword": "life", "x": 2}]}
    res = run({"players": {"A": {"hand": ["c1"]}}, "cards": {"c1": c}}, [{"play": {"player": "A", "card": "c1"}}])
    assert res.state["cards"]["c1"]["counters"] == {"life": 2}
    res = run({"players": {"A": {"deck": ["c1", "d1"]}}, "cards": {"c1": c, "d1": {"kind": "instant"}}},
              [{"play": {"player": "A", "card": "c1", "from": "deck"}}])
    assert res.state["cards"]["c1"]["counters"] == {}
    assert {"event": "moved", "card": "c1", "from": "deck", "to": "reserve", "from_player": "A",
            "to_player": "A", "cause": "search"} in res.events                   # 4.13.3


def test_played_sorcery_is_in_no_zone_while_it_resolves_4_21_1():
    given = {"players": {"A": {"hand": ["s1", "h1"]}},
             "cards": {"s1": {"kind": "sorcery", "effects": [{"discard": {"player": "A", "count": 1}}]},
                       "h1": {"kind": "instant"}}}
    res = run(given, [{"play": {"player": "A", "card": "s1"}}])
    assert res.state["players"]["A"]["graveyard"] == ["h1", "s1"]
    assert res.state.get("pending") is None


def test_target_required():
    given = {"players": {"A": {"hand": ["s1"]}},
             "cards": {"s1": {"kind": "sorcery", "needs_target": True}}}
    refused(given, [{"play": {"player": "A", "card": "s1"}}], "rb7:celpont")


def test_body_part_only_on_a_galetki():
    given = {"players": {"A": {"hand": ["p1"], "reserve": ["c1", "g1"]}},
             "cards": {"p1": {"kind": "body_part", "bonus": {"damage": 2, "hp": 0}},
                       "c1": {"kind": "creature", "damage": 1, "hp": 1},
                       "g1": {"kind": "creature", "damage": 1, "hp": 1, "subtypes": ["galetki"]}}}
    refused(given, [{"play": {"player": "A", "card": "p1", "targets": ["c1"]}}], "rb7:testreszek")
    refused(given, [{"play": {"player": "A", "card": "p1"}}], "rb7:testreszek")
    res = run(given, [{"play": {"player": "A", "card": "p1", "targets": ["g1"]}}])
    assert res.state["cards"]["p1"]["attached_to"] == "g1" and res.state["cards"]["g1"]["damage"] == 3


def test_one_location_in_play():
    given = {"players": {"A": {"hand": ["l2"]}, "B": {"table": ["l1"]}},
             "cards": {"l1": {"kind": "location"}, "l2": {"kind": "location"}}}
    res = run(given, [{"play": {"player": "A", "card": "l2"}}])
    assert res.state["cards"]["l1"]["zone"] == "graveyard" and res.state["cards"]["l2"]["active"] is True


def test_definition_active_true_enters_active_like_a_flyer_131_6_1():
    given = {"players": {"A": {"hand": ["c1"]}}, "cards": {"c1": {"kind": "creature", "damage": 1, "hp": 1,
                                                                  "active": True}}}
    res = run(given, [{"play": {"player": "A", "card": "c1"}}, {"advance": {"to": "exchange"}},
                      {"exchange": {"player": "A", "guard_post": ["c1"]}}])
    assert res.state["players"]["A"]["guard_post"] == ["c1"]
