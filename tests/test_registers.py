"""The untestable and conflicts registers agree with the catalog and the corpus."""
from __future__ import annotations

from pathlib import Path

import yaml

from conformance.catalog import load_catalog
from conformance.loader import Loader, load_files
from model.ruleset import available_rulesets, load_ruleset
from reports.coverage import load_conflicts, load_untestable

ROOT = Path(__file__).resolve().parent.parent


def _citing() -> dict[str, list[str]]:
    """clause id → the ids of the corpus cases citing it (as `clause` or in `also`)."""
    out: dict[str, list[str]] = {}
    for c in load_files([ROOT / "conformance" / "corpus"]).cases:
        for x in dict.fromkeys([c.clause, *(c.also or [])]):
            out.setdefault(str(x), []).append(c.id)
    return out


def _cited() -> set[str]:
    return set(_citing())


def registered_but_cited(entries, citing: dict[str, list[str]]) -> list[str]:
    """The register's entries that cases cite, each with the citing cases: the register says no
    case can show the clause, so a case citing it makes one of the two untrue."""
    return [f"{clause} (cited by {', '.join(citing[clause][:3])}"
            f"{' …' if len(citing[clause]) > 3 else ''})"
            for clause in entries if clause in citing]


def test_every_case_cites_clauses_of_the_catalog():
    """Each case's clause and also name clauses of the catalog (the loader refuses the others,
    and _cited above would then quietly leave them out)."""
    catalog = load_catalog()
    cases = load_files([ROOT / "conformance" / "corpus"], catalog=False).cases
    unknown = sorted({(c.id, x) for c in cases for x in [c.clause, *(c.also or [])]
                      if x not in catalog})
    assert cases and not unknown, unknown[:20]


def test_untestable_entries_are_real_clauses_with_reasons_and_not_cited():
    catalog = load_catalog()
    entries = load_untestable()
    assert entries
    for clause, reason in entries.items():
        assert clause in catalog, f"untestable entry {clause} is not a clause of the catalog"
        assert reason and len(reason.strip()) > 10, f"{clause}: a one-line reason is needed"
    stale = registered_but_cited(entries, _citing())
    assert not stale, ("listed untestable in conformance/untestable/ but cited by cases — remove "
                       "the entry or the citation: " + "; ".join(stale))


def test_a_case_citing_a_registered_clause_is_caught():
    """The check above on a register and corpus made to disagree: a registered clause cited in
    `also` of one case and as the `clause` of another is named with its cases."""
    citing = {"3.1": ["x/one"], "4.0": ["x/two", "x/three"]}
    assert registered_but_cited({"3.1": "r", "4.0": "r", "5.1": "r"}, citing) == [
        "3.1 (cited by x/one)", "4.0 (cited by x/two, x/three)"]
    assert registered_but_cited({"5.1": "r"}, citing) == []
    cases = load_files([ROOT / "conformance" / "corpus"]).cases
    case = next(c for c in cases if c.also)
    assert case.id in _citing()[str(case.also[-1])]     # a clause in `also` is cited too


def test_untestable_files_are_well_formed_and_list_a_clause_once():
    """Each register file is `entries: [{clause, reason}]`; a clause appears once in the whole
    register (load_untestable keeps the first of two entries, so a second would hide unread)."""
    seen: dict[str, str] = {}
    for f in sorted((ROOT / "conformance" / "untestable").glob("*.y*ml")):
        data = yaml.load(f.read_text(encoding="utf-8"), Loader=Loader)  # noqa: S506 - safe
        assert isinstance(data, dict) and set(data) == {"entries"}, f"{f.name}: entries: [...] only"
        for i, e in enumerate(data["entries"]):
            where = f"{f.name} entry {i}"
            assert isinstance(e, dict) and set(e) == {"clause", "reason"}, f"{where}: clause and reason"
            assert isinstance(e["clause"], str) and isinstance(e["reason"], str), where
            assert e["clause"] not in seen, f"{where}: {e['clause']} is listed in {seen.get(e['clause'])} too"
            seen[e["clause"]] = f.name
    assert set(seen) == set(load_untestable())


def test_every_clause_with_text_is_covered_or_untestable():
    catalog = load_catalog()
    cited, untestable = _cited(), set(load_untestable())
    missing = [c.id for c in catalog if c.text.strip() and c.id not in cited and c.id not in untestable]
    assert not missing, missing[:20]


def test_conflicts_name_real_clauses_and_ruleset_readings():
    catalog = load_catalog()
    rulesets = set(available_rulesets())
    for entry in load_conflicts():
        for clause in entry["clauses"]:
            assert clause in catalog, (entry["id"], clause)
        assert entry["default"] in entry["readings"], entry["id"]
        for name, reading in entry["readings"].items():
            assert reading["clause"] in catalog, (entry["id"], name)
            if reading.get("ruleset"):
                assert reading["ruleset"] in rulesets, (entry["id"], reading["ruleset"])
        option = entry.get("option") or ""
        if option.startswith("readings."):
            key = option.split(".", 1)[1]
            assert load_ruleset("kodex").readings[key] == entry["default"], entry["id"]
            for name, reading in entry["readings"].items():
                if reading.get("ruleset"):
                    assert load_ruleset(reading["ruleset"]).readings[key] == name, (entry["id"], name)
