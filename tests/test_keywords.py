"""Keyword abilities (Kódex 128–137, model/keywords.py): decisions, chains of decisions, whose
source it is, and the module structure (no import cycle through the zone mover)."""
from __future__ import annotations

import ast
from pathlib import Path

from model import engine

MODEL = Path(__file__).resolve().parent.parent / "model"


def run(given, when, ruleset="kodex"):
    from engine_helpers import plain
    res = engine.run_case(given, when, ruleset)
    assert res.refused is None, res.refused
    res.events = plain(res.events)
    return res


def refused(given, when, clause):
    before = engine.run_case(given, when[:-1])
    assert before.refused is None, before.refused
    after = engine.run_case(given, when)
    assert after.refused is not None, "the step was accepted"
    assert after.refused["step"] == len(when) - 1
    assert clause in (after.refused.get("clauses") or [after.refused["clause"]]), after.refused
    assert after.state == before.state
    return after


def ev(res, name):
    return [e for e in res.events if e["event"] == name]


def cr(damage=1, hp=2, *abilities, **extra):
    return {"kind": "creature", "damage": damage, "hp": hp, "abilities": list(abilities), **extra}


# --------------------------------------------------------------------------- structure

def _imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                out.add(node.module.split(".")[0])
            else:
                out.update(a.name for a in node.names)
    return out


def test_no_import_cycle_in_the_model_and_nothing_imports_the_engine():
    graph = {p.stem: _imports(p) & {q.stem for q in MODEL.glob("*.py")} for p in MODEL.glob("*.py")}
    assert all("engine" not in deps for mod, deps in graph.items() if mod != "engine")
    state: dict[str, int] = {}

    def visit(mod, path):
        if state.get(mod) == 1:
            raise AssertionError(f"import cycle: {' -> '.join(path + [mod])}")
        if state.get(mod) == 2:
            return
        state[mod] = 1
        for dep in graph.get(mod, ()):
            visit(dep, path + [mod])
        state[mod] = 2

    for mod in graph:
        visit(mod, [])
    assert "zones" not in graph["keywords"] and "keywords" in graph["zones"]


# --------------------------------------------------------------------------- muscle (124)

def test_muscle_reward_with_full_vp_and_an_empty_deck_gives_nothing_but_is_reported():
    given = {"players": {"A": {"vp": 20, "reserve": ["c1"]}}, "cards": {"c1": cr(1, 1, counters={"muscle": 2})}}
    res = run(given, [{"move": {"card": "c1", "to": "graveyard"}}])
    assert ev(res, "muscle_reward") == [{"event": "muscle_reward", "card": "c1", "player": "A",
                                         "draw": 2, "vp": 0}]
    assert res.state["players"]["A"]["vp"] == 20 and res.state["players"]["A"]["hand"] == []


def test_muscle_reward_of_a_stolen_creature_goes_to_its_controller_when_it_dies():
    """A owns it, B controls it: leaving play (not the owner's control) rewards B, the controller."""
    given = {"players": {"B": {"vp": 0, "reserve": ["c1"]}},
             "cards": {"c1": cr(1, 1, owner="A", counters={"muscle": 1})}}
    res = run(given, [{"damage": {"target": "c1", "amount": 5}}])
    assert res.state["players"]["B"]["vp"] == 1 and res.state["players"]["A"]["vp"] == 0
    assert res.state["players"]["A"]["graveyard"] == ["c1"]


def test_muscle_counter_with_no_effect_gives_no_reward():
    given = {"players": {"A": {"vp": 0, "reserve": ["c1"]}},
             "cards": {"c1": cr(1, 1, {"keyword": "unaffected_by", "counter": "muscle"},
                                counters={"muscle": 2})}}
    res = run(given, [{"move": {"card": "c1", "to": "hand"}}])
    assert not ev(res, "muscle_reward") and res.state["players"]["A"]["vp"] == 0


# --------------------------------------------------------------------------- anti-magic (134.10)

def _anti(x, a_hand, b_hand, kinds):
    cards = {"m1": cr(1, 1, {"keyword": "anti_magic", "x": x})}
    cards.update({c: {"kind": kinds[c]} for c in a_hand + b_hand})
    return {"players": {"A": {"hand": ["m1", *a_hand]}, "B": {"hand": list(b_hand)}}, "cards": cards}


def test_both_players_choose_the_playing_player_first():
    given = _anti(1, ["s1", "s2"], ["i1", "i2"],
                  {"s1": "sorcery", "s2": "instant", "i1": "instant", "i2": "enchantment"})
    res = run(given, [{"play": {"player": "A", "card": "m1"}}])
    assert res.state["pending"]["player"] == "A"
    res = run(given, [{"play": {"player": "A", "card": "m1"}}, {"choose": {"player": "A", "cards": ["s2"]}}])
    assert res.state["pending"]["player"] == "B" and res.state["pending"]["options"] == ["i1", "i2"]
    res = run(given, [{"play": {"player": "A", "card": "m1"}}, {"choose": {"player": "A", "cards": ["s2"]}},
                      {"choose": {"player": "B", "cards": ["i1"]}}])
    assert "pending" not in res.state
    assert res.state["players"]["A"]["void"] == ["s2"] and res.state["players"]["A"]["hand"] == ["s1"]
    assert res.state["players"]["B"]["graveyard"] == ["i1"] and res.state["players"]["B"]["hand"] == ["i2"]


def test_wrong_answers_to_an_anti_magic_decision_are_refused():
    given = _anti(1, [], ["i1", "i2", "c9"], {"i1": "instant", "i2": "instant", "c9": "creature"})
    play = {"play": {"player": "A", "card": "m1"}}
    refused(given, [play, {"choose": {"player": "B", "cards": ["c9"]}}], "134.10")         # not a spell
    refused(given, [play, {"choose": {"player": "B", "cards": ["i1", "i2"]}}], "134.10")   # too many
    refused(given, [play, {"choose": {"player": "A", "cards": ["i1"]}}], "4.17.2")         # not A's
    refused(given, [play, {"draw": {"player": "B", "count": 1}}], "4.23.5")                # must answer


def test_anti_magic_of_a_sorcery_comes_after_its_effects():
    """rb7:anti-magia: once the card's other effects (a draw here) have happened."""
    given = {"players": {"A": {"hand": ["s1"], "deck": ["i9"]}, "B": {}},
             "cards": {"s1": {"kind": "sorcery", "abilities": [{"keyword": "anti_magic", "x": 1}],
                              "effects": [{"draw": {"player": "A", "count": 1}}]},
                       "i9": {"kind": "instant"}}}
    res = run(given, [{"play": {"player": "A", "card": "s1"}}])
    assert res.state["players"]["A"]["void"] == ["i9"]
    assert res.state["players"]["A"]["graveyard"] == ["s1"]
    assert ev(res, "hand_revealed") == [{"event": "hand_revealed", "player": "B", "cards": [], "clause": "134.11"}]


# --------------------------------------------------------------------------- penalty / compensation

def test_penalty_of_a_damage_kill_goes_to_the_source_cards_controller():
    """A direct `damage` step whose source is B's creature: B's source, B pays."""
    given = {"players": {"A": {"reserve": ["c1"]}, "B": {"reserve": ["b1"]}},
             "cards": {"c1": cr(1, 1, {"keyword": "penalty", "hp": 2, "vp": 1}),
                       "b1": cr(1, 1)}}
    res = run(given, [{"gain_vp": {"player": "B", "amount": 3}},
                      {"damage": {"target": "c1", "amount": 1, "source": "b1"}}])
    assert res.state["players"]["B"]["hp"] == 18 and res.state["players"]["B"]["vp"] == 2
    assert res.state["players"]["A"]["hp"] == 20


def test_compensation_in_vp_and_no_compensation_from_counters():
    given = {"turn": {"active": "B", "phase": "main1"},
             "players": {"A": {"vp": 1, "reserve": ["c1", "c2"]}, "B": {"hand": ["s1"]}},
             "cards": {"c1": cr(1, 2, {"keyword": "compensation", "vp": 2}),
                       "c2": cr(1, 1, {"keyword": "compensation", "hp": 3}, counters={"poison": 1}),
                       "s1": {"kind": "sorcery", "effects": [{"move": {"card": "c1", "to": "hand"}}]}}}
    res = run(given, [{"play": {"player": "B", "card": "s1"}}, {"advance": {"to": "main1"}}])
    pl = res.state["players"]["A"]
    assert "c2" in pl["graveyard"] and pl["hp"] == 20          # died of poison: no compensation
    assert [e["card"] for e in ev(res, "compensation")] == ["c1"]


def test_seduced_creature_with_a_penalty_punishes_the_seducer():
    given = {"players": {"A": {"hand": ["c1"]}, "B": {"reserve": ["b1"]}},
             "cards": {"c1": cr(1, 1, {"keyword": "seduction", "x": 1}),
                       "b1": cr(1, 1, {"keyword": "penalty", "hp": 2}, cost={"vp": 1})}}
    res = run(given, [{"play": {"player": "A", "card": "c1", "targets": ["b1"]}}])
    assert res.state["players"]["A"]["reserve"] == ["c1", "b1"]
    assert res.state["players"]["A"]["hp"] == 18


# --------------------------------------------------------------------------- on play

def test_life_is_not_placed_on_a_creature_with_no_counters():
    given = {"players": {"A": {"hand": ["c1"]}},
             "cards": {"c1": cr(1, 1, {"keyword": "no_counters"}, {"keyword": "life", "x": 2})}}
    res = run(given, [{"play": {"player": "A", "card": "c1"}}])
    assert res.state["cards"]["c1"]["counters"] == {}


def test_recycled_premade_card_is_removed_and_heals_nothing():
    """96.8: a premade card bound for the deck leaves the game; it was not shuffled back."""
    given = {"players": {"A": {"hp": 10, "hand": ["r1"]}, "B": {"graveyard": ["t1", "g1"]}},
             "cards": {"r1": cr(1, 1, {"keyword": "recycling", "x": 2}),
                       "t1": {"kind": "creature", "damage": 1, "hp": 1, "premade": True},
                       "g1": {"kind": "instant"}}}
    res = run(given, [{"play": {"player": "A", "card": "r1", "pay": {"recycle": ["t1", "g1"]}}}])
    assert "t1" in res.state["removed"] and res.state["players"]["B"]["deck"] == ["g1"]
    assert res.state["players"]["A"]["hp"] == 11
    res = run(given, [{"play": {"player": "A", "card": "r1", "pay": {"recycle": ["t1", "g1"]}}}],
              "kodex-4.15.1")
    assert res.state["players"]["A"]["hp"] == 12                 # 4.15.1: counts as shuffled back


def test_shadow_only_by_the_controller():
    given = {"players": {"A": {"reserve": ["c1"]}, "B": {"vp": 3}},
             "cards": {"c1": cr(1, 1, {"keyword": "shadow", "cost": {"vp": 1}})}}
    refused(given, [{"pass": {"player": "A"}}, {"activate": {"player": "B", "card": "c1", "ability": "shadow"}}],
            "136.9")


def test_untargetable_creature_is_still_hit_by_an_untargeted_effect():
    """132.11 forbids choosing it as a target, nothing else."""
    given = {"players": {"A": {"hand": ["s1"]}, "B": {"reserve": ["b1"]}},
             "cards": {"s1": {"kind": "sorcery", "effects": [{"damage": {"target": "b1", "amount": 1}}]},
                       "b1": cr(1, 3, {"keyword": "untargetable"})}}
    res = run(given, [{"play": {"player": "A", "card": "s1"}}])
    assert res.state["cards"]["b1"]["wounds"] == 1
