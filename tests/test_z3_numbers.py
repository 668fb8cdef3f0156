"""Z3 models of the number computation (102 / mk:5.11) and of the replacement choice (mk:5.12.C)
against the engine (properties/z3_numbers.py, properties/z3_replacement.py, the rows of
`kodex prove`): the real engine agrees, a deliberately broken one is caught and its
counterexample written as a hkk-case/1 file (to tmp dirs only), the case files say what the
model says when run through the engine."""

from __future__ import annotations

import json
import math
import random

import pytest
import yaml

from model import numbers, replacement
from model.engine import run_case
from model.numbers import Computed, Term
from model.priority import Effect
from properties import z3_numbers as zn
from properties import z3_replacement as zr
from properties.prove import load_allowlist, run_prove

ALLOW = frozenset(load_allowlist())
REAL_COMPUTE = numbers.compute     # the broken engines below wrap it (also when it is patched)
POLICIES = ["kodex-102", "mk-5.10"]


def by_prop(checks):
    return {c.property: c for c in checks}


def test_family_and_combination_counts():
    assert len(zn.FAMILY) == 2 * 2 * 2 * 3 * 2 == 48
    assert sum(1 for _ in zn.multisets(len(zn.FAMILY))) == math.comb(48 + 3, 3) == 20825
    assert len(zr.DOMAIN) == 96
    assert sum(1 for _ in zn.multisets(len(zr.DOMAIN))) == math.comb(96 + 3, 3)
    assert zn.transpositions(3) == [(1, 0, 2), (0, 2, 1)] and zn.transpositions(1) == []


@pytest.mark.parametrize("policy", POLICIES)
def test_real_engine_numbers_two_effects(policy, tmp_path):
    counts, checks = zn.check_numbers(policy, out_dir=tmp_path, allowlist=ALLOW, max_effects=2)
    assert {c.status for c in checks} <= {"ok", "known"}, [c.detail for c in checks if c.failed]
    props = by_prop(checks)
    proc = zn.PROCEDURES[policy]
    for p in ("engine = model", "order-independent", "prevailing setting unique"):
        assert props[f"numbers {proc} {p}"].verdict == "proved"
    assert counts["combinations"] == 2 * math.comb(48 + 2, 2)
    assert counts["ordered_lists"] == 2 * (1 + 48 + 48 * 48)
    assert f"gap {policy}/numbers-tied-settings" in props
    assert list(tmp_path.iterdir()) == []          # no counterexample, no file


@pytest.mark.parametrize("policy", POLICIES)
def test_real_engine_replacement_two_candidates(policy, tmp_path):
    counts, checks = zr.check_replacement(policy, out_dir=tmp_path, allowlist=ALLOW, max_effects=2)
    assert {c.status for c in checks} <= {"ok", "known"}
    props = by_prop(checks)
    for p in ("engine = model", "unique (replaced at most once)", "order-independent"):
        assert props[f"replacement mk:5.12.C {p}"].verdict == "proved"
    assert counts["combinations"] == math.comb(96 + 2, 2)
    assert list(tmp_path.iterdir()) == []


def test_strong_setting_row_names_its_clause(tmp_path):
    _, checks = zn.check_numbers("kodex-102", out_dir=tmp_path, allowlist=ALLOW, max_effects=2)
    row = next(c for c in checks if "strong setting wins" in c.property)
    assert "(102.1)" in row.property and row.data["clauses"][0] == "102.1" and row.verdict == "proved"


# --------------------------------------------------------------------------- broken engines


def ignores_strength(base, terms, builtin=0, policy="kodex-102"):
    """Broken: reads every effect as weak (102.1 / mk:5.10.E lost)."""
    weak = [Term(t.op, t.value, Effect(False, t.attrs.continuous, t.attrs.timestamp, t.attrs.ability,
                                       t.attrs.prohibiting, id=t.attrs.id), t.limit) for t in terms]
    return REAL_COMPUTE(base, weak, builtin, policy)


def last_listed_setting_wins(base, terms, builtin=0, policy="kodex-102"):
    """Broken: depends on the order — the last setting listed wins, modifiers added on top."""
    sets = [t for t in terms if t.op == "set"]
    value = sets[-1].value if sets else base
    value += sum(t.value for t in terms if t.op == "add") + builtin
    return Computed(value, sets[-1] if sets else None, (), ())


def _cases(path):
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert data["format"] == "hkk-case/1" and data["cases"]
    return data["cases"]


def test_broken_compute_gives_counterexample_and_case_file(tmp_path):
    _, checks = zn.check_numbers("kodex-102", compute=ignores_strength, out_dir=tmp_path, allowlist=ALLOW,
                                 max_effects=2)
    row = by_prop(checks)["numbers kodex-102 engine = model"]
    assert row.verdict == "counterexample" and row.status == "FAIL" and row.failed
    path = tmp_path / "numbers-kodex-102-engine-vs-model.yaml"
    assert row.data["case_file"] == str(path) and str(path) in row.detail
    cases = _cases(path)
    assert all(c["clause"] == "102.0" and "102.1" in c["also"] and c["rulesets"] == ["kodex"] for c in cases)
    # the real engine agrees with the model: every written case passes on it, and at least one
    # needs a strong effect (what the broken engine ignores)
    for c in cases:
        got = run_case(c["given"], c.get("when"), "kodex").state["cards"]["c1"]["damage"]
        assert got == c["then"]["cards"]["c1"]["damage"], c["id"]
    assert any("strong: true" in yaml.safe_dump(c["given"]) for c in cases)


def test_order_dependent_compute_fails_the_order_row(tmp_path):
    _, checks = zn.check_numbers("kodex-102", compute=last_listed_setting_wins, out_dir=tmp_path,
                                 allowlist=ALLOW, max_effects=2)
    row = by_prop(checks)["numbers kodex-102 order-independent"]
    assert row.verdict == "counterexample" and row.failed
    assert row.data["differences"] and (tmp_path / "numbers-kodex-102-order.yaml").is_file()
    d = row.data["differences"][0]
    assert sorted(d["order_a"]) == sorted(d["order_b"]) and d["result_a"] != d["result_b"]


def test_monkeypatched_compute_makes_run_prove_fail(tmp_path, monkeypatch):
    monkeypatch.setattr(numbers, "compute", ignores_strength)
    assert run_prove(tmp_path, policy="kodex-102", max_effects=2) == 1
    data = json.loads((tmp_path / "prove.json").read_text(encoding="utf-8"))
    row = next(r for r in data["rows"] if r["property"] == "numbers kodex-102 engine = model")
    assert row["status"] == "FAIL" and row["data"]["clauses"][0] == "102.0"
    case_file = tmp_path / "prove-counterexamples" / "numbers-kodex-102-engine-vs-model.yaml"
    assert row["data"]["case_file"] == str(case_file) and case_file.is_file()
    # costs are computed by the same procedure (numbers.cost_part calls compute): broken too
    costs_file = tmp_path / "prove-counterexamples" / "costs-kodex-102-engine-vs-model.yaml"
    assert data["counterexamples"] == sorted([str(case_file), str(costs_file)])
    assert "numbers-kodex-102-engine-vs-model.yaml" in (tmp_path / "prove.md").read_text(encoding="utf-8")
    # the next run with the engine repaired removes the stale case file
    monkeypatch.undo()
    assert run_prove(tmp_path, policy="kodex-102", max_effects=2) == 0
    assert not case_file.exists() and not costs_file.exists()


def test_broken_choose_gives_counterexample_and_case_file(tmp_path):
    def first_always(attrs, policy):       # broken: the first listed replaces
        return 0 if attrs else None

    _, checks = zr.check_replacement("mk-5.10", choose=first_always, out_dir=tmp_path, allowlist=ALLOW,
                                     max_effects=2)
    props = by_prop(checks)
    assert props["replacement mk:5.12.C engine = model"].failed
    assert props["replacement mk:5.12.C order-independent"].failed
    for name in ("replacement-mk-5.10-engine-vs-model.yaml", "replacement-mk-5.10-order.yaml"):
        for c in _cases(tmp_path / name):
            assert c["clause"] == "mk:5.12.C" and c["rulesets"] == ["kodex-mk"]
            r = run_case(c["given"], c["when"], "kodex-mk")   # the real engine agrees with the model
            assert r.state["players"]["A"]["vp"] == c["then"]["players"]["A"]["vp"], c["id"]
            assert r.state["cards"]["c1"]["wounds"] == c["then"]["cards"]["c1"]["wounds"], c["id"]


def test_engine_error_is_a_counterexample(tmp_path):
    def raises(base, terms, builtin=0, policy="kodex-102"):
        if len([t for t in terms if t.op == "set"]) > 1:
            raise RuntimeError("boom")
        return REAL_COMPUTE(base, terms, builtin, policy)

    _, checks = zn.check_numbers("mk-5.10", compute=raises, out_dir=tmp_path, allowlist=ALLOW, max_effects=2)
    row = by_prop(checks)["numbers mk-5.11 engine = model"]
    assert row.failed and "RuntimeError" in row.detail
    assert all("RuntimeError" in c["x-engine"] for c in _cases(tmp_path / "numbers-mk-5.10-engine-vs-model.yaml"))


def test_tied_settings_not_allowlisted_is_new(tmp_path):
    _, checks = zn.check_numbers("kodex-102", out_dir=tmp_path, allowlist=ALLOW - {"kodex-102/numbers-tied-settings"},
                                 max_effects=2)
    gap = by_prop(checks)["gap kodex-102/numbers-tied-settings"]
    assert gap.status == "NEW" and gap.failed


# --------------------------------------------------------------------------- the case files


@pytest.mark.parametrize("policy", POLICIES)
def test_number_cases_say_what_the_model_says(policy):
    """The case encoding (items in order for the timestamps, timed effects created at the same
    moments, muscle counters for the built-in modifier) run through the engine gives the model's
    value, on a sample of three-effect combinations where the engine agrees with the model."""
    rng = random.Random(9)
    sample = rng.sample(list(zn.multisets(len(zn.FAMILY))), 40)
    ruleset = zn.RULESET[policy]
    for idx in sample:
        b = rng.choice(zn.BUILTINS)
        kinds = [zn.FAMILY[i] for i in idx if i != zn.ABSENT]
        try:
            engine = numbers.compute(zn.BASE, [k.term() for k in kinds], b, policy).value
        except Exception:  # noqa: BLE001 - the engine's own failures are the prove rows' business
            continue
        value, _ = zn.model_value(policy, kinds, b)
        assert engine == value, (idx, b)
        case = zn.number_case(policy, kinds, b, value, case_id="t", title="t")
        got = run_case(case["given"], case.get("when"), ruleset).state["cards"]["c1"]["damage"]
        assert got == max(0, value), (idx, b)


def test_mk_three_weak_settings_one_prevails():
    """mk:5.11.B with mk:5.10.H: of the gyenge settings 2 (t0), 4 (t0) and 4 (t1) the later 4
    overrides the 2; the other 4 has the same value: the number is 4 (found by `kodex prove`,
    row `numbers mk-5.11 engine = model`)."""
    terms = [Term("set", 2, Effect(timestamp=0)), Term("set", 4, Effect(timestamp=0)),
             Term("set", 4, Effect(timestamp=1))]
    assert zn.model_value("mk-5.10", [zn.Kind("set", 2, False, False, 0), zn.Kind("set", 4, False, False, 0),
                                      zn.Kind("set", 4, False, False, 1)], 0) == (4, False)
    assert numbers.compute(5, terms, 0, "mk-5.10").value == 4


def test_replacement_choose_is_the_engines():
    # the rows compare the engine's own function unless told otherwise
    assert zr.engine_choice(replacement.choose, "kodex-102", (0, zr.ABSENT)) == 0


# -- costs (99.7, mk:5.01.C, mk:5.11 on costs) ------------------------------------------------

@pytest.mark.parametrize("policy", POLICIES)
def test_real_engine_costs_two_effects(policy, tmp_path):
    counts, checks = zn.check_costs(policy, out_dir=tmp_path, max_effects=2)
    assert [c.verdict for c in checks] == ["proved"], [c.detail for c in checks]
    assert counts["combinations"] == math.comb(48 + 2, 2) and counts["at_zero"] > 0
    assert list(tmp_path.iterdir()) == []


def test_a_cost_below_zero_is_caught_and_written_as_cases(tmp_path):
    def no_floor(base, terms, policy):
        return numbers.compute(base, terms, 0, policy).value if terms else base
    counts, checks = zn.check_costs("kodex-102", cost_part=no_floor, out_dir=tmp_path, max_effects=2)
    assert checks[0].verdict == "counterexample" and counts["mismatches"] > 0
    doc = yaml.safe_load((tmp_path / "costs-kodex-102-engine-vs-model.yaml").read_text())
    for case in doc["cases"]:
        assert case["then"]["cards"]["c1"]["cost"]["vp"] == 0        # the model's floor
        r = run_case(case["given"], case.get("when") or [], ruleset=case["rulesets"][0])
        assert r.state["cards"]["c1"]["cost"] == {"vp": 0}            # the real engine agrees
