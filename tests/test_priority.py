"""Known answers for model.priority from the clause text: Kódex 102.1-102.4 (kodex-102) and
mk:5.10.E/G/H (mk-5.10); table validation."""

from __future__ import annotations

import copy
import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from model.priority import (
    ABILITY_KINDS,
    Effect,
    PolicyError,
    Verdict,
    attribute_domain,
    compile_policy,
    load_policy_table,
    policy_names,
    resolve,
)

KODEX = compile_policy("kodex-102")
MK = compile_policy("mk-5.10")


def test_policies_defined_and_default():
    assert policy_names()[:2] == ["kodex-102", "mk-5.10"]
    assert compile_policy() is KODEX
    assert [c.clause for c in KODEX.criteria] == ["102.1", "102.2", "102.3", "102.4"]
    assert [c.clause for c in MK.criteria] == ["mk:5.10.E", "mk:5.10.G", "mk:5.10.H"]


def test_102_1_strong_one_shot_beats_weak_continuous():
    strong_one_shot = Effect(strong=True, continuous=False, timestamp=0)
    weak_continuous = Effect(strong=False, continuous=True, timestamp=2)
    assert resolve(strong_one_shot, weak_continuous) == Verdict("a", "102.1")
    assert resolve(weak_continuous, strong_one_shot) == Verdict("b", "102.1")
    assert KODEX.beats(strong_one_shot, weak_continuous)
    assert not KODEX.beats(weak_continuous, strong_one_shot)


def test_102_2_weak_continuous_beats_weak_one_shot():
    # even if the one-shot card was played later (102.2 comes before 102.3)
    assert resolve(Effect(continuous=True, timestamp=0), Effect(timestamp=2)) == Verdict("a", "102.2")


def test_102_3_later_wins():
    assert resolve(Effect(timestamp=1), Effect(timestamp=2)) == Verdict("b", "102.3")
    # ... even against a static ability (102.4 only if 102.1-102.3 do not apply)
    assert resolve(Effect(timestamp=2, ability="automatic"), Effect(timestamp=1, ability="static")) == Verdict(
        "a", "102.3"
    )


@pytest.mark.parametrize(
    "winner,loser",
    [("static", "activated"), ("static", "automatic"), ("activated", "automatic")],
)
def test_102_4_static_beats_activated_beats_automatic(winner, loser):
    assert resolve(Effect(ability=winner), Effect(ability=loser)) == Verdict("a", "102.4")
    assert resolve(Effect(ability=loser), Effect(ability=winner)) == Verdict("b", "102.4")


def test_full_tie_unresolved():
    v = resolve(Effect(ability="static"), Effect(ability="static"))
    assert v == Verdict(None, None) and v.unresolved
    assert not KODEX.beats(Effect(), Effect())


def test_102_4_does_not_rank_non_abilities():
    # documented choice: 102.4 speaks of abilities only; None is unranked
    assert resolve(Effect(ability="static"), Effect(ability=None)).unresolved
    assert resolve(Effect(ability=None), Effect(ability="automatic")).unresolved


def test_kodex_ignores_prohibiting():
    assert resolve(Effect(prohibiting=True), Effect()).unresolved


def test_mk_5_10_g_prohibiting_beats_permitting_at_same_strength():
    tilto, megengedo = Effect(prohibiting=True, timestamp=0), Effect(prohibiting=False, timestamp=2)
    assert resolve(tilto, megengedo, "mk-5.10") == Verdict("a", "mk:5.10.G")
    assert resolve(Effect(strong=True, prohibiting=True), Effect(strong=True), "mk-5.10") == Verdict("a", "mk:5.10.G")


def test_mk_5_10_e_strong_beats_weak_prohibiting():
    assert resolve(Effect(strong=True), Effect(prohibiting=True, timestamp=2), MK) == Verdict("a", "mk:5.10.E")


def test_mk_5_10_h_later_wins_and_tie():
    assert MK.resolve(Effect(timestamp=0), Effect(timestamp=1)) == Verdict("b", "mk:5.10.H")
    assert MK.resolve(Effect(continuous=True, ability="static"), Effect()).unresolved


def test_attribute_domain():
    dom = list(attribute_domain(KODEX))
    assert len(dom) == 2 * 2 * 3 * 4 * 2 == len(set(dom))
    assert {e.ability for e in dom} == {None, *ABILITY_KINDS}
    assert {e.timestamp for e in dom} == {0, 1, 2}


def test_id_and_label_not_compared():
    assert Effect(id="x", label="one") == Effect(id="y", label="two")
    assert resolve(Effect(id="x"), Effect(id="y")).unresolved


def test_effect_rejects_unknown_ability():
    with pytest.raises(ValueError, match="ability"):
        Effect(ability="passive")


@pytest.mark.parametrize("policy", [KODEX, MK])
def test_resolve_is_antisymmetric_and_matches_beats(policy):
    dom = list(attribute_domain(policy))
    for a, b in itertools.product(dom, repeat=2):
        v, w = policy.resolve(a, b), policy.resolve(b, a)
        assert v.clause == w.clause
        assert (v.winner, w.winner) in {("a", "b"), ("b", "a"), (None, None)}
        assert policy.beats(a, b) == (v.winner == "a")


effects = st.builds(
    Effect,
    strong=st.booleans(),
    continuous=st.booleans(),
    timestamp=st.integers(-5, 50),
    ability=st.sampled_from([None, *ABILITY_KINDS]),
    prohibiting=st.booleans(),
)


@given(effects, effects, effects)
def test_transitive_beyond_the_finite_domain(a, b, c):
    for pol in (KODEX, MK):
        if pol.beats(a, b) and pol.beats(b, c):
            assert pol.beats(a, c)


# ------------------------------------------------------------------ validation


def _table(criteria, **extra):
    spec = {"criteria": criteria, **extra}
    return {"policies": {"broken": spec}}


def test_yaml_file_is_valid_and_clauses_are_strings():
    table = load_policy_table()
    for spec in table["policies"].values():
        assert all(isinstance(c["clause"], str) for c in spec["criteria"])


@pytest.mark.parametrize(
    "criteria,match",
    [
        ([{"clause": "1", "attribute": "strong", "prefer": True}, {"clause": "2", "attribute": "continous", "prefer": True}],
         r"'broken', criteria\[1\] \(clause 2\): unknown attribute 'continous'"),
        ([{"clause": "1", "attribute": "strong", "prefers": True}],
         r"'broken', criteria\[0\] \(clause 1\): unknown key"),
        ([{"clause": "1", "attribute": "strong"}], r"criteria\[0\].*exactly one criterion type"),
        ([{"clause": "1", "attribute": "strong", "prefer": "greater"}], r"criteria\[0\].*does not fit bool"),
        ([{"clause": "1", "attribute": "timestamp", "prefer": True}], r"criteria\[0\].*does not fit int"),
        ([{"clause": "1", "attribute": "ability", "rank": ["static", "passive"]}], r"criteria\[0\].*'passive' is not in the domain"),
        ([{"clause": "1", "attribute": "strong", "rank": [True, False]}], r"criteria\[0\].*needs an enum attribute"),
        ([{"clause": 102.1, "attribute": "strong", "prefer": True}], r"criteria\[0\].*quote it"),
        ([{"clause": "1", "attribute": "ability", "beats": [["static"]]}], r"criteria\[0\].*not a \[winner, loser\] pair"),
        ([], r"'broken': 'criteria' must be a non-empty list"),
    ],
)
def test_validation_errors_name_policy_and_index(criteria, match):
    with pytest.raises(PolicyError, match=match):
        compile_policy("broken", table=_table(criteria))


def test_unknown_policy_and_bad_ignores():
    with pytest.raises(PolicyError, match="unknown priority policy 'nope'"):
        compile_policy("nope", table=copy.deepcopy(dict(load_policy_table())))
    with pytest.raises(PolicyError, match="ignores"):
        compile_policy("broken", table=_table([{"clause": "1", "attribute": "strong", "prefer": True}], ignores=["colour"]))


def test_effect_from_case_file_mapping():
    e = Effect.from_dict({"id": "e1", "strong": True, "timestamp": 3, "ability": "automatikus"})
    assert e == Effect(strong=True, timestamp=3, ability="automatic") and e.id == "e1"
    assert Effect.from_dict({"id": "e2", "ability": False}).ability is None
    assert Effect.from_dict({"id": "e3"}) == Effect()
    with pytest.raises(ValueError, match="give the kind"):
        Effect.from_dict({"id": "e4", "ability": True})
    with pytest.raises(ValueError, match="unknown key"):
        Effect.from_dict({"id": "e5", "colour": "red"})
