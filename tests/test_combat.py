"""Combat: the attack declaration, the strike, combat abilities, regeneration, activated abilities.

Known answers from the rule text: rb7 chapter 2 combat sub-phases I–VII
(lines 56–64), the ability lines (65–99), rb7:epitmenyek, rb7:vedekezes-bonusz;
Kódex 5.4.2, 110.0, 129, 131.1–131.4, 134.4.7, 135.1, 136. Every refusal is
checked for its clause and for leaving the state unchanged.
"""
from __future__ import annotations

import json

from engine_helpers import ev, phase, refused, run  # noqa: F401
from model import engine


def cr(damage, hp, *abilities, **extra):
    return {"kind": "creature", "damage": damage, "hp": hp,
            "abilities": [dict(a) for a in abilities], **extra}


def combat(a_guards, b_guards=(), cards=None, a=None, b=None, **given):
    """A's combat phase with the given guard posts."""
    return {"turn": {"active": "A", "phase": "combat"},
            "players": {"A": {"guard_post": list(a_guards), **(a or {})},
                        "B": {"guard_post": list(b_guards), **(b or {})}},
            "cards": cards or {}, **given}


def attack(*pairs, player="A"):
    return {"attack": {"player": player, "attacks": [{"attacker": x, "target": t} for x, t in pairs]}}


END = {"advance": {"to": "main2"}}


# ---------------------------------------------------------------- II. declaration

def test_attack_on_the_player_strikes_when_combat_ends():
    given = combat(["g1"], cards={"g1": cr(2, 2)})
    res = run(given, [attack(("g1", "B"))])
    assert res.state["players"]["B"]["hp"] == 20                    # nothing before the strike (VI)
    assert res.state["cards"]["g1"]["attacking"] is True             # 110.0
    res = run(given, [attack(("g1", "B")), END])
    assert res.state["players"]["B"]["hp"] == 18
    assert {"event": "strike", "attacker": "g1", "target": "B", "amount": 2} in res.events
    assert res.state["cards"]["g1"]["attacking"] is True             # until the end of the turn
    res = run(given, [attack(("g1", "B")), {"advance": {"to": "preparation"}}])
    assert "attacking" not in res.state["cards"]["g1"]


def test_strike_when_both_players_pass_the_combat_phase():
    given = combat(["g1"], cards={"g1": cr(2, 2)})
    res = run(given, [attack(("g1", "B")), {"pass": {"player": "A"}}, {"pass": {"player": "B"}}])
    assert phase(res) == ("main2", "A") and res.state["players"]["B"]["hp"] == 18


def test_only_guard_post_creatures_attack_5_4_2():
    given = combat([], a={"reserve": ["r1"]}, cards={"r1": cr(2, 2)})
    refused(given, [attack(("r1", "B"))], "5.4.2")


def test_opponents_reserve_creature_cannot_be_attacked():
    given = combat(["g1"], b={"reserve": ["b1"]}, cards={"g1": cr(2, 2), "b1": cr(1, 1)})
    refused(given, [attack(("g1", "b1"))], "5.4.2")


def test_only_in_own_combat_phase_once_per_turn():
    given = combat(["g1"], cards={"g1": cr(2, 2)})
    given["turn"]["phase"] = "main2"
    refused(given, [attack(("g1", "B"))], "rb7:harci-fazis.II")
    given = combat(["g1"], cards={"g1": cr(2, 2)})
    refused(given, [attack(("g1", "B")), attack(("g1", "B"))], "rb7:harci-fazis.II")
    given = {"turn": {"active": "B", "phase": "combat"}, "players": {"A": {"guard_post": ["g1"]}},
             "cards": {"g1": cr(2, 2)}}
    refused(given, [attack(("g1", "B"))], "rb7:harci-fazis.II")


def test_breaking_through_needs_every_guard_attacked():
    cards = {"a1": cr(2, 2), "a2": cr(2, 2), "a3": cr(2, 2), "b1": cr(1, 1), "b2": cr(1, 1)}
    # as many guards as the opponent: no way to the player
    given = combat(["a1", "a2"], ["b1", "b2"], cards)
    refused(given, [attack(("a1", "b1"), ("a2", "B"))], "rb7:harci-fazis.II")
    # one more: the third breaks through
    given = combat(["a1", "a2", "a3"], ["b1", "b2"], cards)
    res = run(given, [attack(("a1", "b1"), ("a2", "b2"), ("a3", "B")), END])
    assert res.state["players"]["B"]["hp"] == 18


def test_at_most_two_attackers_per_defender():
    cards = {"a1": cr(1, 5), "a2": cr(1, 5), "a3": cr(1, 5), "b1": cr(1, 9)}
    given = combat(["a1", "a2", "a3"], ["b1"], cards)
    refused(given, [attack(("a1", "b1"), ("a2", "b1"), ("a3", "b1"))], "rb7:harci-fazis.II")
    run(given, [attack(("a1", "b1"), ("a2", "b1"))])


def test_invisible_attacker_breaks_through_unless_seen():
    cards = {"a1": cr(3, 3, {"keyword": "invisibility"}), "b1": cr(1, 1),
             "b2": cr(1, 1, {"keyword": "see_invisible"})}
    res = run(combat(["a1"], ["b1"], cards), [attack(("a1", "B")), END])
    assert res.state["players"]["B"]["hp"] == 17                    # 131.3
    refused(combat(["a1"], ["b2"], cards), [attack(("a1", "B"))], "131.3")   # 131.4
    # the see-invisible creature must stand in the guard post
    res = run(combat(["a1"], ["b1"], cards, b={"reserve": ["b2"]}), [attack(("a1", "B")), END])
    assert res.state["players"]["B"]["hp"] == 17


# ---------------------------------------------------------------- buildings

def test_only_active_buildings_are_attacked():
    given = combat(["g1"], cards={"g1": cr(5, 3), "bd": {"kind": "building", "hp": 2, "active": False}},
                   b={"table": ["bd"]})
    refused(given, [attack(("g1", "bd"))], "5.4.2")


def test_building_destroyed_when_the_turns_damage_reaches_its_sp():
    cards = {"a1": cr(2, 2), "a2": cr(2, 2), "bd": {"kind": "building", "hp": 4}}
    given = combat(["a1", "a2"], cards=cards, b={"table": ["bd"]})
    res = run(given, [attack(("a1", "bd"), ("a2", "bd")), END])
    assert res.state["cards"]["bd"]["zone"] == "graveyard"
    assert ev(res, "destroyed") == [{"event": "destroyed", "card": "bd"}]
    res = run(given, [attack(("a1", "bd")), END])
    assert res.state["cards"]["bd"]["zone"] == "table" and res.state["players"]["B"]["hp"] == 20


# ---------------------------------------------------------------- VI. the strike

def test_strike_is_simultaneous_with_the_defence_bonus():
    # A's 2/2 against B's 2/2: in A's turn B's creature is 3/3 (rb7:vedekezes-bonusz)
    cards = {"a1": cr(2, 2, components_yield=1), "b1": cr(2, 2, components_yield=1)}
    res = run(combat(["a1"], ["b1"], cards), [attack(("a1", "b1")), END])
    c = res.state["cards"]
    assert c["a1"]["zone"] == "graveyard" and c["b1"]["zone"] == "guard_post" and c["b1"]["hp"] == 1
    assert res.state["players"]["B"]["components"] == 1             # rb7:lenyek
    assert {"event": "strike", "attacker": "b1", "target": "a1", "amount": 3, "back": True} in res.events


def test_defender_strikes_back_at_the_first_or_the_chosen_attacker():
    cards = {"a1": cr(1, 2), "a2": cr(1, 2), "b1": cr(1, 9)}
    given = combat(["a1", "a2"], ["b1"], cards)
    res = run(given, [attack(("a1", "b1"), ("a2", "b1")), END])
    assert res.state["cards"]["a1"]["zone"] == "graveyard" and res.state["cards"]["a2"]["zone"] == "guard_post"
    res = run(given, [attack(("a1", "b1"), ("a2", "b1")),
                      {"strike_back": {"player": "B", "defender": "b1", "attacker": "a2"}}, END])
    assert res.state["cards"]["a2"]["zone"] == "graveyard" and res.state["cards"]["a1"]["zone"] == "guard_post"
    assert res.state["cards"]["b1"]["hp"] == 8                      # 10 (with bonus) - 1 - 1
    refused(given, [attack(("a1", "b1"), ("a2", "b1")),
                    {"strike_back": {"player": "A", "defender": "b1", "attacker": "a2"}}], "rb7:harci-fazis.II")
    given2 = combat(["a1", "a2"], ["b1", "b2"], {**cards, "b2": cr(1, 9)})
    refused(given2, [attack(("a1", "b1"), ("a2", "b2")),
                     {"strike_back": {"player": "B", "defender": "b1", "attacker": "a2"}}], "rb7:harci-fazis.II")


def test_target_gone_before_the_strike_no_new_target():
    cards = {"a1": cr(3, 3), "b1": cr(1, 1)}
    res = run(combat(["a1"], ["b1"], cards),
              [attack(("a1", "b1")), {"move": {"card": "b1", "to": "reserve"}}, END])
    assert res.state["players"]["B"]["hp"] == 20 and res.state["cards"]["b1"]["zone"] == "reserve"
    assert not ev(res, "strike")


def test_magic_defence_takes_no_strike_damage_unless_magic_attack():
    cards = {"a1": cr(5, 9), "a2": cr(5, 9, {"keyword": "magic_attack"}),
             "b1": cr(1, 2, {"keyword": "magic_defense"}), "b2": cr(1, 2, {"keyword": "magic_defense"})}
    res = run(combat(["a1", "a2"], ["b1", "b2"], cards), [attack(("a1", "b1"), ("a2", "b2")), END])
    c = res.state["cards"]
    assert c["b1"]["zone"] == "guard_post" and c["b1"]["wounds"] == 0
    assert c["b2"]["zone"] == "graveyard"
    assert c["a1"]["wounds"] == 2                                   # the defender still strikes back
    assert {"event": "strike", "attacker": "a1", "target": "b1", "amount": 0} in res.events


def test_poison_on_the_creature_struck_even_without_damage():
    cards = {"a1": cr(1, 9, {"keyword": "poison", "x": 2}), "b1": cr(1, 5, {"keyword": "magic_defense"})}
    res = run(combat(["a1"], ["b1"], cards), [attack(("a1", "b1")), END])
    assert res.state["cards"]["b1"]["counters"] == {"poison": 2}     # 135.1
    assert res.state["cards"]["a1"]["counters"] == {}


def test_life_counter_does_not_save_in_the_strike():
    cards = {"a1": cr(5, 9), "b1": cr(1, 1, counters={"life": 1}, components_yield=2)}
    res = run(combat(["a1"], ["b1"], cards), [attack(("a1", "b1")), END])
    assert res.state["cards"]["b1"]["zone"] == "graveyard"           # 134.4.7
    assert res.state["players"]["A"]["components"] == 2


def test_combat_record_is_json_like():
    state, _, _, ref = engine.run_state(combat(["g1"], cards={"g1": cr(1, 1)}), [attack(("g1", "B"))])
    assert ref is None
    json.dumps(state.turn_info.combat)


# ---------------------------------------------------------------- 129: direct damage

FIRE = {"keyword": "direct_damage", "x": 3, "element": "fire"}


def dd(card, x, target, player="A"):
    return {"activate": {"player": player, "card": card, "ability": "direct_damage", "x": x,
                         "targets": [target]}}


def test_direct_damage_costs_vp_and_kills_at_once():
    cards = {"a1": cr(1, 3, FIRE), "b1": cr(1, 1, counters={"life": 1}, components_yield=1)}
    given = combat(["a1"], ["b1"], cards, a={"vp": 5})
    res = run(given, [attack(("a1", "b1")), dd("a1", 2, "b1")])
    assert res.state["players"]["A"]["vp"] == 3
    assert res.state["cards"]["b1"]["zone"] == "graveyard"           # V, 134.4.7
    assert res.state["players"]["A"]["components"] == 1
    assert {"event": "combat_ability", "card": "a1", "target": "b1", "amount": 2, "element": "fire"} in res.events
    res = run(given, [attack(("a1", "b1")), dd("a1", 2, "b1"), END])
    assert res.state["cards"]["a1"]["wounds"] == 0                  # dead defender does not strike back
    assert not ev(res, "strike")


def test_direct_damage_refusals():
    cards = {"a1": cr(1, 3, FIRE), "a2": cr(1, 3), "b1": cr(1, 9), "b2": cr(1, 9)}
    given = combat(["a1", "a2"], ["b1", "b2"], cards, a={"vp": 5, "reserve": []})
    decl = attack(("a1", "b1"), ("a2", "b2"))
    refused(given, [dd("a1", 1, "b1")], "rb7:harci-kepessegek")      # before the declaration
    refused(given, [decl, dd("a1", 4, "b1")], "129.5")
    refused(given, [decl, dd("a1", 1, "b2")], "rb7:direkt-sebzo-kepesseg")   # not what it fights
    refused(given, [decl, dd("a1", 1, "B")], "rb7:direkt-sebzo-kepesseg")
    refused(given, [decl, dd("a1", 1, "b1"), dd("a1", 1, "b1")], "rb7:direkt-sebzo-kepesseg")
    poor = combat(["a1", "a2"], ["b1", "b2"], cards, a={"vp": 1})
    refused(poor, [decl, dd("a1", 2, "b1")], "4.20.3")
    frozen = combat(["a1"], ["b1"], {**cards, "a1": cr(1, 3, FIRE, counters={"freeze": 1})}, a={"vp": 5})
    refused(frozen, [attack(("a1", "b1")), dd("a1", 1, "b1")], "119.1")
    main = combat(["a1"], [], cards, a={"vp": 5})
    main["turn"]["phase"] = "main1"
    refused(main, [dd("a1", 1, "B")], "rb7:harci-kepessegek")


def test_direct_damage_from_the_guard_post_only():
    cards = {"a1": cr(1, 3), "r1": cr(1, 3, FIRE), "b1": cr(1, 9)}
    given = combat(["a1"], ["b1"], cards, a={"vp": 5, "reserve": ["r1"]})
    refused(given, [attack(("a1", "b1")), dd("r1", 1, "b1")], "rb7:harci-kepessegek")


def test_direct_damage_at_the_attacked_player_and_fire_immunity():
    cards = {"a1": cr(1, 3, FIRE), "a2": cr(1, 3, FIRE), "b1": cr(1, 9, {"keyword": "immunity", "to": "fire"})}
    res = run(combat(["a1"], [], cards, a={"vp": 5}), [attack(("a1", "B")), dd("a1", 3, "B"), END])
    assert res.state["players"]["B"]["hp"] == 16                    # 3 + 1
    res = run(combat(["a2"], ["b1"], cards, a={"vp": 5}), [attack(("a2", "b1")), dd("a2", 3, "b1")])
    assert res.state["cards"]["b1"]["wounds"] == 0 and res.state["players"]["A"]["vp"] == 2


def test_defender_direct_damage_fixes_whom_it_strikes_back():
    cards = {"a1": cr(1, 9), "a2": cr(1, 9), "b1": cr(2, 9, FIRE)}
    given = combat(["a1", "a2"], ["b1"], cards, b={"vp": 5})
    res = run(given, [attack(("a1", "b1"), ("a2", "b1")), dd("b1", 1, "a2", player="B"), END])
    c = res.state["cards"]
    assert c["a1"]["wounds"] == 0 and c["a2"]["wounds"] == 1 + 3       # fire 1, strike 2 + bonus 1
    refused(given, [attack(("a1", "b1"), ("a2", "b1")),
                    {"strike_back": {"player": "B", "defender": "b1", "attacker": "a1"}},
                    dd("b1", 1, "a2", player="B")], "rb7:direkt-sebzo-kepesseg")


# ---------------------------------------------------------------- 136.6–136.8 regeneration

REGEN1 = {"keyword": "regeneration", "x": 1}
REGEN2 = {"keyword": "regeneration", "x": 2}


def regen(card, n, player="A"):
    return {"activate": {"player": player, "card": card, "ability": "regeneration", "x": n}}


def test_regeneration_costs_x_vp_per_ep():
    given = {"players": {"A": {"vp": 10, "reserve": ["c1", "c2"]}},
             "cards": {"c1": cr(1, 5, REGEN1, wounds=3, just_damaged=True),
                       "c2": cr(1, 5, REGEN2, wounds=3, just_damaged=True)}}
    res = run(given, [regen("c1", 2)])
    assert res.state["cards"]["c1"]["hp"] == 4 and res.state["players"]["A"]["vp"] == 8
    res = run(given, [regen("c2", 2)])
    assert res.state["cards"]["c2"]["hp"] == 4 and res.state["players"]["A"]["vp"] == 6


def test_regeneration_refusals():
    given = {"players": {"A": {"vp": 10, "reserve": ["c1", "c2"]}},
             "cards": {"c1": cr(1, 9, REGEN1, wounds=6, just_damaged=True), "c2": cr(1, 5, REGEN1)}}
    refused(given, [regen("c1", 3), regen("c1", 2)], "136.7")          # at most 4 a turn
    refused(given, [regen("c2", 1)], "136.8")                          # not wounded
    refused(given, [regen("c1", 7)], "rb7:regeneralodas")              # above the maximum
    poor = {"players": {"A": {"vp": 1, "reserve": ["c1"]}}, "cards": {"c1": cr(1, 9, REGEN2, wounds=2, just_damaged=True)}}
    refused(poor, [regen("c1", 1)], "4.20.3")
    prep = {"turn": {"active": "A", "phase": "preparation"}, **given}
    refused(prep, [regen("c1", 1)], "rb7:elokeszito-fazis")
    refused(given, [regen("c1", 1, player="B")], "136.6")


def test_regeneration_is_life_saving_not_bound_by_who_acts_first():
    given = {"players": {"B": {"vp": 2, "guard_post": ["c1"]}},
             "cards": {"c1": cr(1, 5, REGEN1, wounds=2, just_damaged=True)}}
    res = run(given, [regen("c1", 2, player="B")])
    assert res.state["cards"]["c1"]["wounds"] == 0


# ---------------------------------------------------------------- 136: other activated abilities

def ability(**kw):
    return {"keyword": "tap_draw", "cost": {"vp": 1}, "effects": [{"draw": {"player": "A", "count": 1}}], **kw}


def act(card, player="A", **kw):
    return {"activate": {"player": player, "card": card, "ability": "tap_draw", **kw}}


def test_activated_ability_pays_and_runs_its_effects():
    given = {"players": {"A": {"vp": 2, "table": ["i1"], "deck": ["d1"]}},
             "cards": {"i1": {"kind": "item", "abilities": [ability()]}, "d1": {"kind": "instant"}}}
    res = run(given, [act("i1")])
    assert res.state["players"]["A"]["hand"] == ["d1"] and res.state["players"]["A"]["vp"] == 1
    given["turn"] = {"active": "A", "phase": "combat"}                # 136.3: like an instant
    run(given, [act("i1")])


def test_activated_ability_refusals():
    base = {"players": {"A": {"vp": 2, "table": ["i1"], "deck": ["d1"]}},
            "cards": {"i1": {"kind": "item", "abilities": [ability(timing="main")]}, "d1": {"kind": "instant"}}}
    given = {**base, "turn": {"active": "A", "phase": "combat"}}
    refused(given, [act("i1")], "137.1")
    passive = {**base, "cards": {**base["cards"], "i1": {"kind": "item", "active": False,
                                                         "abilities": [ability()]}}}
    refused(passive, [act("i1")], "rb7:passzivizalas")
    refused(base, [act("i1", player="B")], "rb7:aktivalast-kivano-kepessegek")
    poor = {**base, "players": {"A": {"vp": 0, "table": ["i1"], "deck": ["d1"]}}}
    refused(poor, [act("i1")], "4.20.3")
    b_turn = {**base, "turn": {"active": "B", "phase": "draw"},
              "cards": {**base["cards"], "i1": {"kind": "item", "abilities": [ability()]}}}
    enter = {"advance": {"to": "main1"}}         # the engine enters B's main1: B acts first
    refused(b_turn, [enter, act("i1")], "4.11.6")
    run(b_turn, [enter, {"pass": {"player": "B"}}, act("i1")])


def test_passivating_ability_never_from_the_guard_post():
    tap = ability(cost={"passivate": True})
    given = {"players": {"A": {"reserve": ["c1"], "guard_post": ["c2"], "deck": ["d1", "d2"]}},
             "cards": {"c1": cr(1, 1, tap), "c2": cr(1, 1, tap), "d1": {"kind": "instant"},
                       "d2": {"kind": "instant"}}}
    res = run(given, [act("c1")])
    assert res.state["cards"]["c1"]["active"] is False and res.state["players"]["A"]["hand"] == ["d1"]
    refused(given, [act("c1"), act("c1")], "5.5.7.1")
    refused(given, [act("c2")], "5.4.5")
