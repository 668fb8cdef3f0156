"""The Z3 prover (properties/z3_priority.py, properties/prove.py): proofs on the real
tables, the flat-reading counterexample of Kódex 102.1/102.2, broken tables built here (the
YAML is not edited), the gap allowlist, and run_prove's exit code and reports."""

from __future__ import annotations

import copy
import hashlib
import json

import pytest

from model.priority import Effect, compile_policy, load_policy_table
from properties.prove import load_allowlist, main, number_setting_findings, run_prove
from properties.z3_priority import (
    check_equivalence,
    check_flat_reading,
    check_structure,
    enumerate_gaps,
)

KODEX = compile_policy("kodex-102")
MK = compile_policy("mk-5.10")
ALLOW = frozenset(load_allowlist())


def broken(mutate, name="kodex-102"):
    """A copy of the real table with policy ``name``'s criteria mutated in place."""
    table = copy.deepcopy(dict(load_policy_table()))
    table["policies"] = {name: copy.deepcopy(table["policies"][name])}
    mutate(table["policies"][name]["criteria"])
    return compile_policy(name, table=table)


def by_prop(checks):
    return {c.property: c for c in checks}


@pytest.mark.parametrize("policy", [KODEX, MK])
def test_real_tables_are_strict_orders_without_dead_rules(policy):
    checks = check_structure(policy)
    assert {c.verdict for c in checks} == {"proved"}
    assert {c.property for c in checks} >= {"irreflexive", "asymmetric", "transitive"}
    assert sum(c.property.startswith("live ") for c in checks) == len(policy.criteria)


def test_flat_reading_of_102_1_and_102_2_is_not_asymmetric():
    [c] = check_flat_reading(KODEX)
    assert c.verdict == "counterexample" and c.status == "finding" and not c.failed
    a, b = c.witness
    assert a.strong and not a.continuous and b.continuous and not b.strong
    assert c.data["a_beats_b_by"] == ["102.1"] and c.data["b_beats_a_by"] == ["102.2"]
    # the ordered reading removes it
    assert c.data["ordered_verdict"] == {"winner": "a", "clause": "102.1"}
    assert by_prop(check_structure(KODEX))["asymmetric"].verdict == "proved"
    assert check_flat_reading(MK) == []  # no "mindig" group in mk-5.10


def test_rank_list_with_a_cycle_is_a_counterexample():
    def cyc(crits):
        crits[3]["rank"] = ["static", "activated", "automatic", "static"]

    checks = by_prop(check_structure(broken(cyc)))
    for prop in ("irreflexive", "asymmetric"):
        assert checks[prop].verdict == "counterexample" and checks[prop].failed
    a, b = checks["asymmetric"].witness
    # Z3 may give any pair that beats each other (which one depends on the queries the process
    # made before): two abilities of the cycle, or the one listed twice beating itself
    assert {a.ability, b.ability} <= {"static", "activated", "automatic"}
    assert a.ability != b.ability or a.ability == "static"


def test_beats_cycle_breaks_transitivity():
    def cyc(crits):
        del crits[3]["rank"]
        crits[3]["beats"] = [["static", "activated"], ["activated", "automatic"], ["automatic", "static"]]

    checks = by_prop(check_structure(broken(cyc)))
    assert checks["asymmetric"].verdict == "proved"
    t = checks["transitive"]
    assert t.verdict == "counterexample" and t.failed and len(t.witness) == 3


def test_reversed_duplicate_criterion_is_a_dead_rule():
    def rev(crits):
        crits.append({"clause": "102.1-reversed", "attribute": "strong", "prefer": False})

    checks = by_prop(check_structure(broken(rev)))
    dead = checks["live 102.1-reversed"]
    assert dead.verdict == "counterexample" and dead.failed and "dead rule" in dead.detail
    assert checks["transitive"].verdict == "proved"


def test_reversed_criterion_changes_known_answers():
    # a criterion reversed is still a strict order; the known answers catch it instead
    def rev(crits):
        crits[2]["prefer"] = "less"

    pol = broken(rev)
    assert {c.verdict for c in check_structure(pol)} == {"proved"}
    assert pol.resolve(Effect(timestamp=2), Effect(timestamp=1)).winner == "b"  # 102.3 says "a"


def test_policy_missing_a_criterion_shows_a_new_gap():
    pol = broken(lambda crits: crits.pop(1))  # drop 102.2
    classes, checks = enumerate_gaps(pol, ALLOW)
    new = [c for c in checks if c.status == "NEW"]
    assert new and all(c.failed for c in new)
    assert {g.id for g in classes} == {
        "kodex-102/tie-same-kind+continuous-unread",
        "kodex-102/tie-unranked-one+continuous-unread",
        "kodex-102/tie-unranked-both+continuous-unread",
    }


def test_gap_classes_of_real_tables_are_known():
    classes, checks = enumerate_gaps(KODEX, ALLOW)
    assert {g.id for g in classes} == {
        "kodex-102/tie-same-kind",
        "kodex-102/tie-unranked-one",
        "kodex-102/tie-unranked-both",
    }
    assert all(c.status == "known" for c in checks)
    assert sum(g.pairs for g in classes) == 144 + 288 + 48
    classes, checks = enumerate_gaps(MK, ALLOW)
    assert [g.id for g in classes] == ["mk-5.10/tie-all-equal"]


def test_gap_not_in_allowlist_fails():
    classes, checks = enumerate_gaps(KODEX, ALLOW - {"kodex-102/tie-unranked-one"})
    new = [c for c in checks if c.status == "NEW"]
    assert [c.property for c in new] == ["gap kodex-102/tie-unranked-one"] and new[0].failed


def test_gap_not_in_allowlist_makes_run_prove_fail(tmp_path):
    allow = tmp_path / "allow.yaml"
    allow.write_text("schema: hkk-gaps/1\nknown:\n  - id: kodex-102/tie-same-kind\n", encoding="utf-8")
    assert run_prove(tmp_path / "out", policy="kodex-102", allowlist_path=allow, max_effects=0) == 1
    data = json.loads((tmp_path / "out" / "prove.json").read_text(encoding="utf-8"))
    assert {g["id"] for g in data["gaps"] if not g["known"]} == {
        "kodex-102/tie-unranked-one",
        "kodex-102/tie-unranked-both",
    }


@pytest.mark.parametrize("policy", [KODEX, MK])
def test_equivalence_python_vs_z3(policy):
    counts, checks = check_equivalence(policy)
    assert counts["pairs_checked"] == 96 * 96 and counts["triples_checked"] == 96 ** 3
    assert counts["pair_mismatches"] == 0 and counts["triple_mismatches"] == 0
    assert counts["python_transitivity_violations"] == 0
    assert {c.verdict for c in checks} == {"proved"}


def test_equivalence_holds_on_a_broken_table_too():
    # the Python comparator and the Z3 encoding agree even where the table is wrong
    def cyc(crits):
        del crits[3]["rank"]
        crits[3]["beats"] = [["static", "activated"], ["activated", "automatic"], ["automatic", "static"]]

    counts, _ = check_equivalence(broken(cyc))
    assert counts["pair_mismatches"] == 0 and counts["triple_mismatches"] == 0
    assert counts["python_transitivity_violations"] > 0


def test_number_setting_findings():
    data, checks = number_setting_findings()
    assert all(not c.failed for c in checks)
    assert data["examples"]["Példa3"]["fits"] == ["strength-outer"]
    sm = data["readings"]["smallest"]
    assert len(sm["effects"]) == 2
    assert sm["results"]["strength-outer"]["value"] != sm["results"]["kind-outer"]["value"]
    assert data["readings"]["agree_on_single_strength"] is True
    cap = data["cap"]["smallest"]
    assert cap["step"]["value"] != cap["end"]["value"] and len(cap["effects"]) == 2


@pytest.mark.parametrize("pol,proc", [("kodex-102", "kodex-102"), ("mk-5.10", "mk-5.11")])
def test_run_prove_exits_0_on_real_tables(tmp_path, pol, proc):
    """The whole `kodex prove` on the real tables, one policy per run (the two runs go to two
    cores): a run's rows are its own policy's, and an allowlist entry is stale only for a
    policy that ran, so the two runs check together what one run of both checks."""
    assert run_prove(tmp_path, policy=pol) == 0
    data = json.loads((tmp_path / "prove.json").read_text(encoding="utf-8"))
    # the effect-combination rows (issue 9): numbers and replacements, clauses named
    rows = {(r["property"], r["policy"]): r for r in data["rows"]}
    # the number-setting rows (mk:5.11's own procedure) come with the mk-5.10 run
    assert {p for _prop, p in rows} == ({pol} if pol == "kodex-102" else {pol, "mk-5.11"})
    for prop in (f"numbers {proc} engine = model", f"numbers {proc} order-independent",
                 f"numbers {proc} prevailing setting unique", "replacement mk:5.12.C engine = model",
                 "replacement mk:5.12.C unique (replaced at most once)",
                 "replacement mk:5.12.C order-independent"):
        assert rows[prop, pol]["verdict"] == "proved" and rows[prop, pol]["data"]["clauses"]
    assert data["effects"][pol]["numbers"]["combinations"] == 2 * 20825
    assert data["effects"][pol]["replacement"]["combinations"] == 156849
    if pol == "kodex-102":
        assert rows["numbers kodex-102 strong setting wins over weak terms (102.1)", pol]["status"] == "ok"
        assert data["flat_reading"]["counterexample"][0]["strong"] is True
    else:
        assert rows["gap mk-5.10/replacement-tie", pol]["status"] == "known"
    assert data["counterexamples"] == [] and data["stale_allowlist"] == []
    assert data["schema"] == "hkk-prove/1" and data["exit_code"] == 0
    assert data["equivalence"][pol]["pair_mismatches"] == 0
    assert {r["status"] for r in data["rows"]} <= {"ok", "known", "finding"}
    md = (tmp_path / "prove.md").read_text(encoding="utf-8")
    assert pol in md
    if pol == "kodex-102":
        assert "102.1" in md and "mindig" in md and "kodex-102/tie-same-kind" in md
    # written as a pair through conformance.atomicio: the Markdown names the JSON's hash
    js = (tmp_path / "prove.json").read_bytes()
    assert f"json-sha256: {hashlib.sha256(js).hexdigest()}" in md
    assert sorted(p.name for p in tmp_path.iterdir()) == ["prove.json", "prove.md"]


def test_cli_main(tmp_path):
    out = tmp_path / "x.json"
    assert main(["--policy", "mk-5.10", "--json", str(out), "--out-dir", str(tmp_path), "--max-effects", "0"]) == 0
    assert json.loads(out.read_text(encoding="utf-8"))["policies"] == ["mk-5.10"]
    assert main(["--policy", "nope", "--out-dir", str(tmp_path)]) == 2


def test_effect_rows_skipped_leave_their_allowlist_entries_alone(tmp_path):
    assert run_prove(tmp_path, policy="kodex-102", max_effects=0) == 0
    data = json.loads((tmp_path / "prove.json").read_text(encoding="utf-8"))
    assert data["stale_allowlist"] == [] and data["effects"] == {}
    assert not any(r["property"].startswith(("numbers ", "replacement ")) for r in data["rows"])
