"""Counters (Kódex 117–127, model/counters.py): the parts the corpus states only through whole
games — bookkeeping that must survive turns, leaving play, refusals and edge values."""
from __future__ import annotations

import pytest

from model import engine, keywords
from model.errors import InputProblem
from model.ruleset import load_ruleset
from model.state import card_from_def


def run(given, when, ruleset="kodex"):
    res = engine.run_case(given, when, ruleset)
    assert res.refused is None, res.refused
    return res


def card(res, cid):
    return res.state["cards"][cid]


def ev(res, name):
    return [e for e in res.events if e["event"] == name]


def cr(damage=1, hp=2, **extra):
    return {"kind": "creature", "damage": damage, "hp": hp, **extra}


def test_negative_count_is_an_input_error():
    given = {"players": {"A": {"reserve": ["c1"]}}, "cards": {"c1": cr(counters={"muscle": 1})}}
    with pytest.raises(InputProblem):
        engine.run_case(given, [{"put_counter": {"card": "c1", "counter": "muscle", "count": -1}}])


def test_remove_more_than_present_removes_what_is_there():
    given = {"players": {"A": {"reserve": ["c1"]}}, "cards": {"c1": cr(counters={"sleep": 2})}}
    res = run(given, [{"remove_counter": {"card": "c1", "counter": "sleep", "count": 5}}])
    assert card(res, "c1")["counters"] == {}
    assert ev(res, "counter_removed")[0]["count"] == 2


def test_expired_timed_counters_are_forgotten_when_the_card_leaves_play():
    """127.0.6 holds while the permanent stays in play; a new play is a new object (107.0)."""
    given = {"players": {"A": {"vp": 5, "table": ["e1"]}},
             "cards": {"e1": {"kind": "enchantment", "counters": {"temporary": 1},
                              "abilities": [{"keyword": "poison_immunity", "temporary": 2}]}}}
    res = run(given, [
        {"remove_counter": {"card": "e1", "counter": "temporary", "count": 1}},
        {"put_counter": {"card": "e1", "counter": "temporary", "count": 1}},       # closed: 127.0.6
        {"move": {"card": "e1", "to": "hand"}},
        {"play": {"player": "A", "card": "e1"}},                                    # 127.0.0 again
        {"put_counter": {"card": "e1", "counter": "temporary", "count": 1}},
    ])
    assert card(res, "e1")["counters"] == {"temporary": 3}
    assert [e["clause"] for e in ev(res, "counter_prevented")] == ["127.0.6"]


def test_fading_on_a_free_card_ends_it_at_the_first_preparation():
    given = {"turn": {"active": "B", "phase": "main1"},
             "players": {"A": {"table": ["i1"]}},
             "cards": {"i1": {"kind": "item", "counters": {"fading": 1}}}}
    res = run(given, [{"advance": {"to": "main1"}}])
    assert card(res, "i1")["zone"] == "graveyard"


def test_cost_value_counts_sacrifice_by_kind_and_nekron_as_written():
    """rb7:lapaldozas: a sacrifice is 1 for items and buildings, 3 for everything else."""
    from model.game import Game
    from model.ruleset import load_ruleset
    from model.state import from_given
    rules = load_ruleset("kodex")
    g = Game(from_given({}, rules), rules)       # no effect in force: the printed cost (99.7)
    mk = lambda kind, cost: card_from_def("x", {"kind": kind, "cost": cost}, "A", "/x")  # noqa: E731
    assert keywords.cost_value(g, mk("creature", {"vp": 4, "sacrifice": 4})) == 16
    assert keywords.cost_value(g, mk("item", {"components": 2, "sacrifice": 1})) == 3
    assert keywords.cost_value(g, mk("building", {"builders": 2, "sacrifice": 1})) == 3
    assert keywords.cost_value(g, mk("creature", {"nekron": 3, "vp": 1})) == 4
    assert keywords.cost_value(g, mk("sorcery", {})) == 0


def test_unaffected_by_poison_gets_counters_that_never_grow_or_kill():
    given = {"turn": {"active": "B", "phase": "main1"},
             "players": {"A": {"reserve": ["c1"]}},
             "cards": {"c1": cr(hp=1, counters={"poison": 1},
                                abilities=[{"keyword": "unaffected_by", "counter": "poison"}])}}
    res = run(given, [{"advance": {"to": "main1"}}])
    assert card(res, "c1")["zone"] == "reserve"
    assert card(res, "c1")["counters"] == {"poison": 1}


def test_freeze_time_is_the_time_the_first_counter_went_on():
    """119.2: adding a second freeze counter does not make the freeze later than a grant."""
    given = {"players": {"A": {"vp": 1, "reserve": ["c1"], "hand": ["e1"]}},
             "cards": {"c1": cr(hp=3),
                       "e1": {"kind": "enchantment", "cost": {"vp": 1},
                              "abilities": [{"keyword": "grant",
                                             "abilities": [{"keyword": "poison_immunity"}]}]}}}
    res = run(given, [
        {"put_counter": {"card": "c1", "counter": "freeze", "count": 1}},
        {"play": {"player": "A", "card": "e1", "targets": ["c1"]}},
        {"put_counter": {"card": "c1", "counter": "freeze", "count": 1}},
        {"put_counter": {"card": "c1", "counter": "poison", "count": 1}},
    ])
    assert card(res, "c1")["counters"] == {"freeze": 2}


def test_freeze_against_grant_under_the_mk_priority_order():
    """mk:5.10.H decides the same pair by the later one as well."""
    given = {"players": {"A": {"reserve": ["c1"], "table": ["e1"]}},
             "cards": {"c1": cr(hp=3),
                       "e1": {"kind": "enchantment", "attached_to": "c1",
                              "abilities": [{"keyword": "grant",
                                             "abilities": [{"keyword": "poison_immunity"}]}]}}}
    when = [{"put_counter": {"card": "c1", "counter": "freeze", "count": 1}},
            {"put_counter": {"card": "c1", "counter": "poison", "count": 1}}]
    assert card(run(given, when, "kodex-mk"), "c1")["counters"]["poison"] == 1
    assert load_ruleset("kodex-mk").priority_policy == "mk-5.10"


def test_frozen_giver_gives_nothing():
    given = {"players": {"A": {"reserve": ["c1"], "table": ["e1"]}},
             "cards": {"c1": cr(hp=3),
                       "e1": {"kind": "enchantment", "attached_to": "c1", "counters": {"freeze": 1},
                              "abilities": [{"keyword": "grant",
                                             "abilities": [{"keyword": "poison_immunity"}]}]}}}
    res = run(given, [{"put_counter": {"card": "c1", "counter": "poison", "count": 1}}])
    assert card(res, "c1")["counters"] == {"poison": 1}


def test_thawing_brings_back_poison_immunity_and_the_counters_fall_off():
    """132.3: 'if it had poison counters when it gained the immunity, they fall off'."""
    given = {"players": {"A": {"reserve": ["c1"]}},
             "cards": {"c1": cr(hp=5, counters={"freeze": 1, "poison": 2},
                                abilities=[{"keyword": "poison_immunity"}])}}
    res = run(given, [{"remove_counter": {"card": "c1", "counter": "freeze", "count": 1}}])
    assert card(res, "c1")["counters"] == {}
    assert any(e.get("clause") == "132.3" for e in ev(res, "counter_removed"))


def test_frozen_at_the_start_of_preparation_keeps_timed_counters_even_as_it_thaws():
    """127.0.2 with the order of the preparation phase: the freeze counter comes off first, but the
    abilities did not work when the phase's counter work began."""
    given = {"turn": {"active": "B", "phase": "main1"},
             "players": {"A": {"table": ["e1"]}},
             "cards": {"e1": {"kind": "enchantment", "counters": {"freeze": 1, "delay": 1}}}}
    res = run(given, [{"advance": {"to": "main1"}}])
    assert card(res, "e1")["counters"] == {"delay": 1}
    res = run(given, [{"advance": {"to": "main1"}}, {"advance": {"to": "main1"}},
                      {"advance": {"to": "main1"}}])
    assert card(res, "e1")["counters"] == {}


def test_last_sleep_counter_comes_off_before_the_activation_stage():
    """118.2–118.3: the counter comes off with the preparation-phase effects (stage 2); at the
    activation (stage 3) there is none left, so one counter means a single own turn asleep."""
    given = {"turn": {"active": "B", "phase": "main1"},
             "players": {"A": {"reserve": ["c1"]}},
             "cards": {"c1": cr(active=False, counters={"sleep": 1})}}
    res = run(given, [{"advance": {"to": "main1"}}])
    assert card(res, "c1")["active"] is True and card(res, "c1")["counters"] == {}
    removed = [i for i, e in enumerate(res.events) if e["event"] == "counter_removed"]
    activated = [i for i, e in enumerate(res.events) if e["event"] == "activated" and e["card"] == "c1"]
    assert removed and activated and removed[0] < activated[0]


def test_marks_never_reach_the_returned_state():
    given = {"players": {"A": {"reserve": ["c1"]}}, "cards": {"c1": cr()}}
    res = run(given, [{"put_counter": {"card": "c1", "counter": "freeze", "count": 1}}])
    assert "_marks" not in card(res, "c1")
    assert all(not k.startswith("_") for k in card(res, "c1"))
