"""The untestable and conflicts registers agree with the catalog and the corpus."""
from __future__ import annotations

from pathlib import Path

from conformance.catalog import load_catalog
from conformance.loader import load_files
from model.ruleset import available_rulesets, load_ruleset
from reports.coverage import load_conflicts, load_untestable

ROOT = Path(__file__).resolve().parent.parent


def _cited() -> set[str]:
    cases = load_files([ROOT / "conformance" / "corpus"]).cases
    return {x for c in cases for x in [c.clause, *(c.also or [])]}


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
    cited = _cited()
    for clause, reason in entries.items():
        assert clause in catalog, f"untestable entry {clause} is not a clause of the catalog"
        assert reason and len(reason.strip()) > 10, f"{clause}: a one-line reason is needed"
        assert clause not in cited, f"{clause} is listed untestable but cases cite it"


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
