"""Tests of reports/coverage.py on a fake catalog (counts per section and per
part, headings, untestable registry, conflicts, outcomes), its markdown/JSON
output, and ``kodex coverage`` on the real catalog with a tiny corpus."""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from conformance import cli
from reports import coverage


@dataclass(frozen=True)
class FakeClause:
    id: str
    title: str | None
    text: str
    section: str
    section_title: str
    part: str
    source: str = "fake.txt"
    line: int = 1


class FakeCatalog:
    def __init__(self, clauses):
        self.clauses = {c.id: c for c in clauses}

    def __iter__(self):
        return iter(self.clauses.values())

    def __contains__(self, cid):
        return cid in self.clauses

    def get(self, cid):
        return self.clauses.get(cid)

    def sections(self):
        seen = {}
        for c in self:
            seen.setdefault(c.section, (c.section, c.section_title, c.part))
        return list(seen.values())

    def in_section(self, s):
        return [c for c in self if c.section == s]


CATALOG = FakeCatalog([
    FakeClause("3", "A játék célja és lényege", "", "3", "A játék célja és lényege", "II"),
    FakeClause("3.1", None, "szöveg", "3", "A játék célja és lényege", "II"),
    FakeClause("3.2", None, "szöveg", "3", "A játék célja és lényege", "II"),
    FakeClause("3.3", None, "szöveg", "3", "A játék célja és lényege", "II"),
    FakeClause("4", "Alapfogalmak, alapdefiníciók", "", "4", "Alapfogalmak, alapdefiníciók", "II"),
    FakeClause("4.1", "Játékos, ellenfél", "", "4", "Alapfogalmak, alapdefiníciók", "II"),
    FakeClause("4.1.1", None, "szöveg", "4", "Alapfogalmak, alapdefiníciók", "II"),
    FakeClause("4.1.2", None, "szöveg", "4", "Alapfogalmak, alapdefiníciók", "II"),
    FakeClause("96", "Előre kikészített lapok", "", "96", "Előre kikészített lapok", "VI"),
    FakeClause("96.0", None, "szöveg", "96", "Előre kikészített lapok", "VI"),
    FakeClause("96.1", None, "szöveg", "96", "Előre kikészített lapok", "VI"),
])


@dataclass
class FakeCase:
    id: str
    clause: str
    also: list = field(default_factory=list)


CASES = [
    FakeCase("a", "3.1", ["4.1.1"]),
    FakeCase("b", "3.1"),
    FakeCase("c", "96.0", ["3.2"]),
    FakeCase("d", "4.1"),                # cites a heading: counted as a case, never covered
    FakeCase("e", "rb7:nincs-ilyen"),    # not in the catalog
]
OUTCOMES = [{"case_id": "a", "outcome": "pass"}, {"case_id": "b", "outcome": "fail"},
            {"case_id": "c", "outcome": "xpass"}, {"case_id": "d", "outcome": "pass"}]
UNTESTABLE = {"3.3": "layout only", "3.1": "listed but covered anyway"}
CONFLICTS = [{"id": "premade-bound-for-deck", "clauses": ["96.0", "4.15.1"],
              "summary": "A premade card bound for the deck",
              "readings": {"removed": "96.8: removed from the game",
                           "void": "4.15.1: to the Void"},
              "option": "premade_to_deck", "default": "removed", "why": "96 is more specific"}]


def compute():
    return coverage.compute(CATALOG, CASES, outcomes=OUTCOMES,
                            implementation={"name": "fake", "version": "1"},
                            untestable=UNTESTABLE, conflicts=CONFLICTS, ruleset="kodex")


def row(data, section):
    return next(r for r in data["sections"] if r["section"] == section)


def test_section_counts():
    data = compute()
    s3 = row(data, "3")
    assert s3["title"] == "A játék célja és lényege" and s3["part"] == "II"
    assert (s3["clauses"], s3["headings"]) == (3, 1)
    assert (s3["covered"], s3["untestable"], s3["uncovered"]) == (2, 1, 0)
    assert s3["testable"] == 2 and s3["percent"] == 100.0
    assert (s3["cases"], s3["passed"]) == (3, 2)       # a, b, c; a and c (xpass) passed
    s4 = row(data, "4")
    assert (s4["clauses"], s4["headings"], s4["covered"], s4["uncovered"]) == (2, 2, 1, 1)
    assert (s4["cases"], s4["passed"]) == (2, 2)       # a (also 4.1.1), d (heading 4.1)
    s96 = row(data, "96")
    assert (s96["clauses"], s96["covered"], s96["uncovered"], s96["cases"]) == (2, 1, 1, 1)


def test_part_totals_and_lists():
    data = compute()
    parts = {p["part"]: p for p in data["parts"]}
    assert parts["II"]["clauses"] == 5 and parts["II"]["sections"] == 2
    assert parts["II"]["cases"] == 4                   # distinct cases, not a sum of rows
    assert parts["VI"]["covered"] == 1
    t = data["totals"]
    assert (t["clauses"], t["headings"], t["covered"], t["untestable"], t["uncovered"]) == \
        (7, 4, 4, 1, 2)
    assert [u["id"] for u in data["uncovered"]] == ["4.1.2", "96.1"]
    assert data["unknown_citations"] == [{"clause": "rb7:nincs-ilyen", "cases": ["e"]}]
    assert data["conflicts"][0]["default"] == "removed"
    assert data["conflicts"][0]["readings"]["void"].startswith("4.15.1")
    assert data["implementation"]["name"] == "fake"
    assert data["schema"] == "hkk-coverage/1"


def test_no_outcomes_means_no_passes():
    data = coverage.compute(CATALOG, CASES, untestable={}, conflicts=[])
    assert data["totals"]["passed"] == 0 and data["totals"]["cases"] == 4


def test_write_reports(tmp_path):
    md, js = coverage.write_reports(compute(), tmp_path / "out")
    data = json.loads(js.read_text(encoding="utf-8"))
    assert data["schema"] == "hkk-coverage/1"
    text = md.read_text(encoding="utf-8")
    assert "3. A játék célja és lényege" in text and "96. Előre kikészített lapok" in text
    assert "`4.1.2`" in text and "premade-bound-for-deck" in text
    assert "**(default)**" in text


def test_print_table_keeps_hungarian_titles():
    from rich.console import Console
    console = Console(record=True, width=200)
    coverage.print_table(compute(), console)
    out = console.export_text()
    assert "4. Alapfogalmak, alapdefiníciók" in out and "II. rész" in out


def test_registry_loading(tmp_path):
    assert coverage.load_untestable(tmp_path / "absent") == {}
    assert coverage.load_conflicts(tmp_path / "absent.yaml") == []
    d = tmp_path / "untestable"
    d.mkdir()
    (d / "a.yaml").write_text("entries:\n  - {clause: '5.1', reason: layout}\n", encoding="utf-8")
    (d / "b.yaml").write_text("entries:\n  - {clause: '5.2', reason: physical}\n", encoding="utf-8")
    assert coverage.load_untestable(d) == {"5.1": "layout", "5.2": "physical"}
    c = tmp_path / "conflicts.yaml"
    c.write_text("conflicts:\n  - {id: x, clauses: ['1'], default: a}\n", encoding="utf-8")
    assert coverage.load_conflicts(c)[0]["id"] == "x"


def test_kodex_coverage_command(tmp_path, capsys):
    corpus = tmp_path / "c.yaml"
    corpus.write_text("""\
format: hkk-case/1
cases:
  - id: "cov/heal"
    clause: "3.18"
    title: "heal"
    given: {players: {A: {hp: 18}}}
    when: [{heal: {target: A, amount: 5}}]
    then: {players: {A: {hp: 20}}}
""", encoding="utf-8")
    res = tmp_path / "results.json"
    assert cli.main(["run", str(corpus), "--json", str(res)]) == 0
    capsys.readouterr()
    out_dir = tmp_path / "rep"
    assert cli.main(["coverage", str(corpus), "--results", str(res), "--out", str(out_dir)]) == 0
    printed = capsys.readouterr().out
    assert "Per Kódex title" in printed and "II. rész" in printed and "pass rate" in printed
    data = json.loads((out_dir / "coverage.json").read_text(encoding="utf-8"))
    s3 = row(data, "3")
    assert s3["covered"] == 1 and s3["cases"] == 1 and s3["passed"] == 1
    assert data["implementation"]["name"] == "hkk-kodex reference"
    assert "3. A játék célja és lényege" in (out_dir / "coverage.md").read_text(encoding="utf-8")


def test_register_size_per_part():
    """`register`: the untestable register's entries per seed (part), headings included, beside
    the `untestable` clauses with text; shown in the tables of `kodex coverage` and the markdown."""
    from rich.console import Console
    unt = {"3.3": "layout", "4.1": "a heading", "96.1": "editions", "3.1": "listed, cited"}
    data = coverage.compute(CATALOG, CASES, outcomes=OUTCOMES, untestable=unt, conflicts=[])
    parts = {p["part"]: p for p in data["parts"]}
    assert (parts["II"]["register"], parts["VI"]["register"], data["totals"]["register"]) == (3, 1, 4)
    assert parts["II"]["untestable"] == 1          # 3.3; the heading 4.1 and the cited 3.1 are not
    assert row(data, "4")["register"] == 1 and row(data, "96")["register"] == 1
    for printer in (coverage.print_table,
                    lambda d, c: coverage.print_table(dict(d, run=None), c)):
        console = Console(record=True, width=250)
        printer(data, console)
        lines = console.export_text().splitlines()
        assert any("register" in ln for ln in lines)
        ii = next(ln for ln in lines if ln.startswith("│ II. rész"))
        cells = [c.strip() for c in ii.strip("│ ").split("│")]
        head = next(ln for ln in lines if "register" in ln and ln.startswith("┃ part "))
        assert cells[[c.strip() for c in head.strip("┃ ").split("┃")].index("register")] == "3"
    md = coverage.to_markdown(data)
    header = next(ln for ln in md.splitlines() if ln.startswith("| part |"))
    ii = next(ln for ln in md.splitlines() if ln.startswith("| II. rész |"))
    assert ii.split("|")[header.split("|").index(" register ")].strip() == "3"
