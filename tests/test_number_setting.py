"""mk:5.11 number setting: the worked examples Példa1-3 under the reading(s) they fit, the
5.11.B set resolution by mk:5.10, 5.11.C limited-before-unlimited and unused parts, 5.11.D
weak-then-strong, and the cap modes."""

from __future__ import annotations

import pytest

from model.number_setting import READINGS, NumberEffect, UnresolvedSetting, number_trace, set_number


def mod(v, *, limit=None, strong=False, t=0):
    return NumberEffect("modify", v, strong=strong, limit=limit, timestamp=t)


def setting(v, *, strong=False, t=0, prohibiting=False):
    return NumberEffect("set", v, strong=strong, timestamp=t, prohibiting=prohibiting)


@pytest.mark.parametrize("reading", READINGS)
def test_pelda1_unused_part_used_up_first(reading):
    # Fizikum 5; -5 but not below 1; then +2 -> 2
    assert set_number(5, [mod(-5, limit=1, t=0), mod(+2, t=1)], reading) == 2


@pytest.mark.parametrize("reading", READINGS)
def test_pelda2_dies(reading):
    # Fizikum 10; -5 but not below 1; then -5 -> dies (limited first, so both apply in full)
    assert set_number(10, [mod(-5, limit=1, t=0), mod(-5, t=1)], reading) <= 0
    # the order within the list does not matter: limited ones are taken first (5.11.C)
    assert set_number(10, [mod(-5, t=0), mod(-5, limit=1, t=1)], reading) <= 0


def test_pelda3_strong_set_fits_strength_outer_only():
    effects = [mod(-2), setting(3, strong=True)]
    assert set_number(10, effects, "strength-outer") == 3
    assert set_number(10, effects) == 3  # the default reading
    # the kind-outer reading contradicts the worked example
    assert set_number(10, effects, "kind-outer") == 1


@pytest.mark.parametrize("reading", READINGS)
def test_pelda3_weak_variant(reading):
    assert set_number(10, [mod(-2), setting(3)], reading) == 1


def test_no_setting_effect_uses_base():
    assert set_number(7, []) == 7
    assert set_number(7, [mod(+1), mod(-3)]) == 5


def test_contradicting_sets_resolved_by_mk_5_10():
    assert set_number(0, [setting(4, t=1), setting(9, t=0)]) == 4  # 5.10.H later wins
    assert set_number(0, [setting(4, t=1), setting(9, t=0, prohibiting=True)]) == 9  # 5.10.G
    assert set_number(0, [setting(4, t=0), setting(4, t=0)]) == 4  # no contradiction
    with pytest.raises(UnresolvedSetting):
        set_number(0, [setting(4, t=0), setting(9, t=0)])


def test_strong_set_discards_weak_modifiers_and_strong_modifiers_apply_after():
    effects = [mod(+5), setting(2, strong=True), mod(+1, strong=True)]
    assert set_number(0, effects) == 3


def test_limit_binds_only_its_own_modifier():
    # 5.11.A: "Más hatás még módosíthatja ezen érték alá"
    assert set_number(3, [mod(-5, limit=1), mod(-4)]) == -3
    # a modifier already beyond its limit applies nothing (and never moves the other way)
    assert set_number(0, [mod(-3, limit=1)]) == 0
    assert set_number(9, [mod(+3, limit=8)]) == 9


def test_positive_limited_modifier_and_consumption():
    # +3 but not above 8 from 7 -> 8 (unused 2); then -3 first uses up the unused 2 -> 7
    assert set_number(7, [mod(+3, limit=8, t=0), mod(-3, t=1)]) == 7


def test_trace_and_errors():
    value, trace = number_trace(5, [mod(-5, limit=1, t=0), mod(+2, t=1)])
    assert value == 2 and trace == ["weak -5 (limit 1) -> 1", "weak +2 -> 2"]
    with pytest.raises(ValueError):
        set_number(0, [], reading="sideways")
    with pytest.raises(ValueError):
        NumberEffect("set", 3, limit=1)
    with pytest.raises(ValueError):
        NumberEffect("add", 3)  # type: ignore[arg-type]


def test_cap_per_step_vs_at_end():
    effects = [mod(-1, t=0), mod(+1, t=1)]
    def cap(v):
        return min(max(v, 0), 20)
    assert cap(set_number(0, effects)) == 0                          # the cap once, at the end
    assert cap(set_number(0, effects, after_step=cap)) == 1          # the cap after every step
    assert cap(set_number(19, [mod(+5)])) == 20
    seen = []
    set_number(3, [mod(+1), mod(-2)], after_step=lambda v: seen.append(v) or v)
    assert seen == [4, 2]                                           # once after each modifier
