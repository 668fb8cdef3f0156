"""Adding a clause to a copy of the Kódex texts changes nothing but what concerns that clause.

A copy of the texts the kit reads gets one new clause in each text (tests/amended_texts.py:
136.10 at the end of title 136 of part VI, 3.20 in part II, rb7:uszas, mk:5.01.G on today's
texts, each with a text no clause has yet) and goes through the code paths the other tests exercise: the catalog, the case loader,
coverage and the registers' question, ``kodex amend``, the HTML report, and the commands pointed
at the copy with ``KODEX_TEXTS_DIR``. Each is compared with the texts as read: the only
differences are the new clauses and the lines after them moving down. (The whole of ``make
test`` against such a copy fails only test_registers'
test_every_clause_with_text_is_covered_or_untestable, which names the new clauses: no case
covers them yet.)
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import catalog_invariants as inv
from amended_texts import Amended, amended_copy
from conformance.catalog import Catalog, load_catalog, texts_dir
from conformance.loader import load_files
from reports import amendment, coverage

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "conformance" / "corpus"
LINE_REF = re.compile(r"(line |:)(\d+)")         # "… at line 686", "kodex-part-VI.txt:1047"


@pytest.fixture(scope="module")
def amended(tmp_path_factory) -> Amended:
    return amended_copy(tmp_path_factory.mktemp("texts") / "kodex")


@pytest.fixture(scope="module")
def base() -> Catalog:
    return load_catalog()


@pytest.fixture(scope="module")
def new(amended) -> Catalog:
    return load_catalog(amended.directory)


@pytest.fixture(scope="module")
def cases():
    return load_files([CORPUS], catalog=False).cases


def moved_refs(amended: Amended, source: str, text: str) -> str:
    """``text`` with the line numbers of ``source`` it names moved as the copy moved them."""
    return LINE_REF.sub(lambda m: m.group(1) + str(amended.new_line(source, int(m.group(2)))), text)


def new_sections(amended: Amended, new: Catalog) -> dict[str, int]:
    """The sections that gain clauses, with how many."""
    out: dict[str, int] = {}
    for cid in amended.added:
        out[new[cid].section] = out.get(new[cid].section, 0) + 1
    return out


# ------------------------------------------------------------------- catalog

def test_the_copy_has_the_new_clauses_and_keeps_every_invariant(amended, base, new):
    assert amended.added and not set(amended.added) & set(base.ids())
    assert set(new.ids()) - set(base.ids()) == set(amended.added)
    assert [c.id for c in new if c.id in amended.added] == amended.added
    assert all(new[cid].text for cid in amended.added)
    assert inv.all_problems(new, amended.directory) == []


def test_every_other_clause_is_unchanged_but_for_its_line(amended, base, new):
    assert [cid for cid in new.ids() if cid not in amended.added] == base.ids()
    changed = [c.id for c in base
               if new[c.id] != dataclasses.replace(c, line=amended.new_line(c.source, c.line))]
    assert changed == []
    assert any(new[c.id].line != c.line for c in base)      # the copy did move lines


def test_the_findings_are_unchanged_but_for_their_lines(amended, base, new):
    def key(f, shift):
        line = amended.new_line(f.source, f.line) if shift and f.line else f.line
        message = moved_refs(amended, f.source, f.message) if shift else f.message
        return (f.kind, f.clause, f.source, line, message)
    assert [key(f, True) for f in base.findings] == [key(f, False) for f in new.findings]


# ------------------------------------------------------- cases and coverage

def test_the_corpus_loads_the_same_and_a_case_may_cite_a_new_clause(amended, base, new, tmp_path):
    with_base, with_new = load_files([CORPUS], catalog=base), load_files([CORPUS], catalog=new)
    assert with_base.errors == with_new.errors == []
    assert [c.id for c in with_base.cases] == [c.id for c in with_new.cases]
    cid = amended.added[0]
    one = tmp_path / "new-clause.yaml"
    one.write_text(f'format: hkk-case/1\ncases:\n  - id: "{cid}/x"\n    clause: "{cid}"\n'
                   f'    title: "cites the new clause"\n    then: {{}}\n', encoding="utf-8")
    assert load_files([one], catalog=new).errors == []
    (err,) = load_files([one], catalog=base).errors
    assert err.field == "clause" and f"{cid!r} is not in the Kódex catalog" in err.message


def test_coverage_changes_by_the_new_clauses_alone(amended, base, new, cases):
    untestable, conflicts = coverage.load_untestable(), coverage.load_conflicts()
    before = coverage.compute(base, cases, untestable=untestable, conflicts=conflicts)
    after = coverage.compute(new, cases, untestable=untestable, conflicts=conflicts)
    # the uncovered list: the same clauses (lines moved) and the new ones
    got = [u for u in after["uncovered"] if u["id"] not in amended.added]
    assert got == [dict(u, line=amended.new_line(u["source"], u["line"]))
                   for u in before["uncovered"]]
    assert [u["id"] for u in after["uncovered"] if u["id"] in amended.added] == amended.added
    # the rows: a new clause counts once more among the clauses, the testable and the uncovered
    gained = new_sections(amended, new)
    parts: dict[str, int] = {}
    for cid in amended.added:
        parts[new[cid].part] = parts.get(new[cid].part, 0) + 1
    rows = [(before["sections"], after["sections"], "section", gained),
            (before["parts"], after["parts"], "part", parts),
            ([before["totals"]], [after["totals"]], "part", {"all": len(amended.added)})]
    for old_rows, new_rows, key, plus in rows:
        assert [r[key] for r in old_rows] == [r[key] for r in new_rows]
        for old, row in zip(old_rows, new_rows):
            n = plus.get(row[key], 0)
            assert {k: v for k, v in row.items() if k != "percent"} == dict(
                {k: v for k, v in old.items() if k != "percent"}, clauses=old["clauses"] + n,
                testable=old["testable"] + n, uncovered=old["uncovered"] + n), row[key]
            assert n or row["percent"] == old["percent"]


def test_the_registers_question_names_the_new_clauses_alone(amended, base, new, cases):
    """What test_registers.py asks of the catalog (every clause with text is cited or
    registered untestable) has, on the copy, exactly the new clauses for answer."""
    cited = {x for c in cases for x in [c.clause, *(c.also or [])]}
    untestable = coverage.load_untestable()

    def missing(cat):
        return [c.id for c in cat if c.text.strip() and c.id not in cited and c.id not in untestable]
    assert [cid for cid in missing(new) if cid not in missing(base)] == amended.added
    assert all(cid in new for cid in untestable)
    assert all(cid in new for entry in coverage.load_conflicts() for cid in entry["clauses"])


# ------------------------------------------------------------------- reports

def test_kodex_amend_reports_the_new_clauses_as_added_and_nothing_else(amended):
    d = amendment.analyse(amended.directory, base_dir=texts_dir())
    assert [a["id"] for a in d["added"]] == amended.added
    assert all(a["uncovered"] and not a["reuses_id"] for a in d["added"])
    assert d["changed"] == d["moved"] == d["removed"] == d["title_changed"] == []
    assert d["findings"] == {"new": [], "resolved": []}
    assert d["summary"]["cases_to_review"] == 0 and d["numbers"] == [] and d["still_old"] == []
    assert d["exit"] == 1                      # an added clause no case covers needs a case
    assert any(cid in step for step in d["next_steps"] for cid in amended.added)


def test_the_html_report_changes_by_the_new_clauses_alone(amended, base, new, cases, tmp_path):
    from conformance.runner import run_cases
    from reports.html.site import build_site, title_page
    results = run_cases([c for c in cases if c.clause == "3.18"][:3], progress=False).to_json()
    sites = {}
    for name, cat in (("base", base), ("new", new)):
        build_site([results], tmp_path / name, catalog=cat, case_pages=False)
        # (the overview says when it was generated, to the second: two builds may differ there)
        sites[name] = {p.relative_to(tmp_path / name).as_posix():
                       re.sub(r"Generated [0-9T:.+-]+", "Generated …", p.read_text(encoding="utf-8"))
                       for p in (tmp_path / name).rglob("*") if p.is_file()}
    assert sorted(sites["base"]) == sorted(sites["new"])
    gaining = {title_page(s) for s in new_sections(amended, new)}

    def timeless(page: str) -> str:              # the time of the build (index.html: "Generated …")
        return re.sub(r"Generated \S+ from", "Generated (time) from", page)

    def moved(page: str) -> str:                 # the source references of the base pages moved
        return re.sub(r"([\w.-]+\.txt):(\d+)",
                      lambda m: f"{m.group(1)}:{amended.new_line(m.group(1), int(m.group(2)))}",
                      timeless(page))
    differ = {name for name, page in sites["base"].items()
              if moved(page) != timeless(sites["new"][name]) and "generated" not in name}
    assert differ == gaining
    for section in new_sections(amended, new):
        page = sites["new"][title_page(section)]
        assert all(cid in page for cid in amended.added if new[cid].section == section)


def test_the_commands_read_the_copy_named_by_the_variable(amended, tmp_path):
    env = dict(os.environ, KODEX_TEXTS_DIR=str(amended.directory))
    cid = amended.added[0]
    out = subprocess.run([sys.executable, "-m", "conformance", "clause", cid], env=env,
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 0 and cid in out.stdout, out.stderr
    corpus = tmp_path / "one.yaml"
    corpus.write_text('format: hkk-case/1\ncases:\n  - id: "3.18/x"\n    clause: "3.18"\n'
                      '    title: "heal"\n    given: {players: {A: {hp: 18}}}\n'
                      '    when: [{heal: {target: A, amount: 5}}]\n'
                      '    then: {players: {A: {hp: 20}}}\n', encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "conformance", "coverage", str(corpus),
                          "--out", str(tmp_path / "cov")], env=env, capture_output=True,
                         text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    data = json.loads((tmp_path / "cov" / "coverage.json").read_text(encoding="utf-8"))
    assert set(amended.added) <= {u["id"] for u in data["uncovered"]}
    assert cid not in load_catalog()                # this process still reads the texts as read


def test_an_unusable_texts_dir_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    """KODEX_TEXTS_DIR naming no directory of texts: one line naming the variable, exit 2."""
    from conformance import cli
    monkeypatch.setenv("KODEX_TEXTS_DIR", str(tmp_path / "nowhere"))
    rc = cli.main(["clause", "3.12"])
    err = capsys.readouterr().err
    assert rc == 2 and "KODEX_TEXTS_DIR" in err and "Traceback" not in err
