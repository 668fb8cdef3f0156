"""conformance.matching.all_differences: every difference, not only the first; empty exactly when
first_difference finds none (checked over the whole corpus run on the reference engine and on
a broken copy of each case's `then`)."""
from __future__ import annotations

import copy

from conformance.loader import load_files
from conformance.matching import all_differences, first_difference, observed_view, step_verbs
from conformance.runner import choose_ruleset, run_reference


def _observed(case):
    res = run_reference(case, choose_ruleset(case)[0])
    return observed_view(res.state, res.events, res.result, res.refused)


def test_a_state_with_three_wrong_fields_shows_all_three():
    then = {"players": {"A": {"hp": 1, "vp": 2, "hand": ["x"]}, "B": {"hp": 20}},
            "events": [{"event": "drew"}, {"event": "moved", "cause": "draw"}], "result": "ongoing"}
    observed = {"players": {"A": {"hp": 20, "vp": 0, "hand": []}, "B": {"hp": 20}},
                "events": [], "result": "ongoing"}
    diffs = all_differences(then, observed, 0)
    assert [d.path for d in diffs] == ["/players/A/hp", "/players/A/vp", "/players/A/hand",
                                       "/events/0", "/events/1"]
    assert first_difference(then, observed, 0).path == diffs[0].path


def test_a_refusal_comes_first_and_the_rest_follows():
    then = {"players": {"A": {"hp": 1}}}
    observed = {"players": {"A": {"hp": 20}}, "events": [], "error": {"step": 0, "clause": "4.8.4"}}
    assert [d.path for d in all_differences(then, observed, 1)] == ["/error", "/players/A/hp"]


def test_agrees_with_first_difference_over_the_corpus():
    cases = load_files().cases
    broken_seen = 0
    for case in cases:
        obs = _observed(case)
        verbs = step_verbs(case.when)
        assert all_differences(case.then, obs, len(case.when), verbs) == [], case.id
        # break each case's then: hp of player A off by 7 where it names one
        then = copy.deepcopy(case.then)
        a = (then.get("players") or {}).get("A")
        if isinstance(a, dict) and isinstance(a.get("hp"), int):
            a["hp"] += 7
            diffs = all_differences(then, obs, len(case.when), verbs)
            first = first_difference(then, obs, len(case.when), verbs)
            assert diffs and first is not None and "/players/A/hp" in [d.path for d in diffs]
            broken_seen += 1
    assert broken_seen > 100
