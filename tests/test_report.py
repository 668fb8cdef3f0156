"""The static HTML report (reports/html, ``kodex report``): the matrix shows the
numbers of the results files, every clause and case has its place, text from
outside is escaped, two runs of one implementation get a diff page, bad input
is reported by file."""
from __future__ import annotations

import html
from collections import Counter
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conformance.catalog import load_catalog
from conformance.cli import main as kodex
from reports.html.site import FILTER_SCRIPT, ReportInputError, build_site, rate
from report_helpers import (SKIP_REASONS, HOSTILE, STRENGTH_HOSTILE_CHANGE, STRENGTH_HOSTILE_REASON,
                            agreeing, cached_reference, degraded, prove_json, real_amendment,
                            section_counts, strength_report)


class _Cells(HTMLParser):
    """Every matrix cell's data-* attributes."""

    def __init__(self):
        super().__init__()
        self.cells: list[dict] = []
        self.ids: set[str] = set()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and a.get("href"):
            self.hrefs.append(a["href"])
        if tag == "td" and "cell" in (a.get("class") or "").split():
            a["text"] = ""
            self.cells.append(a)
            self._in_cell = True

    def handle_endtag(self, tag):
        if tag == "td":
            self._in_cell = False

    def handle_data(self, data):
        if getattr(self, "_in_cell", False):
            self.cells[-1]["text"] += data + " "


def _parse(path: Path) -> _Cells:
    p = _Cells()
    p.feed(path.read_text(encoding="utf-8"))
    return p


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("runs")
    ref = cached_reference()
    fake = degraded(ref)
    ref["cases"][1]["title"] = HOSTILE        # titles come from outside: any run's
    paths = []
    for name, data in (("ref.json", ref), ("fake.json", fake)):
        (d / name).write_text(json.dumps(data), encoding="utf-8")
        paths.append(d / name)
    # the fake's stderr, kept beside its results as `kodex run --json` does
    erred = [c["case_id"] for c in fake["cases"] if c["outcome"] == "error"]
    (d / "fake.stderr.log").write_text("starting\n" + f"boom in {erred[0]}: KeyError\n"
                                       + "".join(f"line {i}\n" for i in range(30)), encoding="utf-8")
    return ref, fake, paths


@pytest.fixture(scope="module")
def site(runs, tmp_path_factory):
    _ref, _fake, paths = runs
    out = tmp_path_factory.mktemp("site")
    index = build_site(paths, out)
    return out, index


def test_matrix_numbers_are_those_of_the_json(runs, site, catalog):
    ref, fake, _paths = runs
    out, index = site
    cells = _parse(index).cells
    expected = [section_counts(ref, catalog), section_counts(fake, catalog)]
    checked = 0
    for cell in cells:
        run, row = int(cell["data-run"]), cell["data-row"]
        if row.startswith("part:") or row == "all":
            continue
        want = expected[run].get(row, {})
        assert int(cell["data-total"]) == sum(want.values()), (run, row)
        for outcome, n in want.items():
            key = "data-o-" + outcome.replace("_", "-")
            assert int(cell[key]) == n, (run, row, outcome)
        checked += 1
    sections = {s for s, _t, _p in catalog.sections()}
    assert checked == 2 * len(sections)
    totals = [c for c in cells if c["data-row"] == "all"]
    assert len(totals) == 2
    for cell, data in zip(totals, (ref, fake)):
        assert int(cell["data-total"]) == len(data["cases"])
        for outcome, n in data["totals"].items():
            if n:
                assert int(cell["data-o-" + outcome.replace("_", "-")]) == n
    # the degraded run shows every outcome (an unknown one is refused when the file is read:
    # test_hostile_reports.py)
    fake_all = totals[1]
    for outcome in ("fail", "error", "skip", "xfail", "timeout", "xpass", "not-run"):
        assert int(fake_all[f"data-o-{outcome}"]) > 0


def test_clause_matrix_numbers_and_clause_ids_on_the_overview(runs, site, catalog):
    ref, fake, _ = runs
    out, index = site
    per_clause = []
    for data in (ref, fake):
        rows: dict[str, dict[str, int]] = {}
        for c in data["cases"]:
            if c["clause"] in catalog:
                row = rows.setdefault(c["clause"], {})
                row[c["outcome"]] = row.get(c["outcome"], 0) + 1
        per_clause.append(rows)
    cells = _parse(out / "clauses.html").cells
    seen = set()
    for cell in cells:
        run, clause = int(cell["data-run"]), cell["data-row"]
        want = per_clause[run].get(clause, {})
        assert int(cell.get("data-total", 0)) == sum(want.values()), (run, clause)
        for outcome, n in want.items():
            assert int(cell["data-o-" + outcome.replace("_", "-")]) == n, (run, clause, outcome)
        seen.add(clause)
    assert seen == set(per_clause[0]) | set(per_clause[1])
    # the overview's matrix names the clause ids of each title, linking to them
    parsed = _parse(index)
    for clause in per_clause[0]:
        cl = catalog.get(clause)
        page = f"title-{re.sub(r'[^A-Za-z0-9.]+', '-', cl.section).strip('-')}.html"
        assert any(h.startswith(page + "#clause-") and h.endswith(clause.replace(":", "%3A"))
                   for h in parsed.hrefs), clause


def test_rate_excludes_skips_and_counts_other_non_passes():
    from collections import Counter
    assert rate(Counter({"pass": 3, "skip": 5, "fail": 1})) == pytest.approx(0.75)
    assert rate(Counter({"pass": 1, "xpass": 1, "xfail": 1, "not_run": 1})) == pytest.approx(0.5)
    assert rate(Counter({"skip": 2})) is None
    assert rate(Counter({"mystery": 2})) == 0


def test_rate_text_shown_in_cells(runs, site, catalog):
    ref, fake, _ = runs
    out, index = site
    text = index.read_text(encoding="utf-8")
    assert "hkk-kodex reference 0.1.0" in text and "degraded-fake 0.0.1" in text
    # the "all" row of the reference is 100%; the fake's is its computed rate
    from collections import Counter
    r = rate(Counter(fake["totals"]))
    cell = re.search(r'<td class="cell"[^>]*data-run="1" data-row="all"[^>]*>(.*?)</td>', text)
    assert cell and f"{100 * r:.1f}%" in cell.group(1)


def test_every_clause_and_case_has_its_place(runs, site, catalog):
    ref, _fake, _ = runs
    out, _index = site
    ids_by_page: dict[str, set[str]] = {}
    for sec, _title, _part in catalog.sections():
        page = out / f"title-{re.sub(r'[^A-Za-z0-9.]+', '-', sec).strip('-')}.html"
        assert page.is_file(), page
        ids_by_page[page.name] = _parse(page).ids
        for cl in catalog.in_section(sec):
            assert f"clause-{cl.id}" in ids_by_page[page.name], (page.name, cl.id)
    all_ids = set().union(*ids_by_page.values())
    for c in ref["cases"]:
        assert f"case-{c['case_id']}" in all_ids, c["case_id"]
    # the Hungarian text of a clause is on its title's page
    cl = catalog.get("4.0")
    assert html.escape(cl.text) in (out / "title-4.html").read_text(encoding="utf-8")


def test_failures_show_the_first_difference(site):
    out, _ = site
    text = "".join(p.read_text(encoding="utf-8") for p in out.glob("title-*.html"))
    assert "first difference at players.A.hp" in text
    assert "&lt;b&gt;8&lt;/b&gt;" in text          # the actual value, escaped


def test_hostile_titles_are_escaped(site):
    out, _ = site
    pages = list(out.glob("*.html")) + list(out.glob("cases/*.html"))
    seen = False
    ours = f"<script>{FILTER_SCRIPT}</script>"
    for p in pages:
        text = p.read_text(encoding="utf-8")
        if p.name == "cases.html":      # the search and filters: the one script, by its hash
            assert text.count(ours) == 1 and "script-src 'sha256-" in text
            assert "unsafe-inline'; img" in text and "script-src 'unsafe" not in text
            text = text.replace(ours, "")
        assert "<script" not in text, p.name
        assert "<img" not in text and "<em>" not in text, p.name
        if html.escape(HOSTILE, quote=True) in text:
            seen = True
    assert seen, "the hostile title is shown (escaped) somewhere"


def test_hostile_implementation_and_messages_are_escaped(runs, tmp_path):
    ref, _fake, _ = runs
    evil = degraded(ref, name='<svg onload=alert(1)>"', version="<i>1</i>")
    evil["cases"] = evil["cases"][:60]          # every page of it, case pages too, kept small
    for c in evil["cases"][:20]:
        c["outcome"] = "<b>odd</b>"
        c["message"] = "</td></tr><script>x</script>"
        c["clause"] = "<u>9.9</u>"
    out = tmp_path / "site"
    build_site([evil], out)
    for p in _pages(out):
        text = p.read_text(encoding="utf-8").replace(f"<script>{FILTER_SCRIPT}</script>", "")
        for raw in ("<svg onload", "<i>1</i>", "<b>odd</b>", "<script", "<u>9.9</u>"):
            assert raw not in text, (p.name, raw)
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "&lt;svg onload=alert(1)&gt;&quot;" in index
    assert "&lt;b&gt;odd&lt;/b&gt; 20" in index           # an unknown outcome: its own count
    assert "&lt;/td&gt;&lt;/tr&gt;&lt;script&gt;" in (out / "unknown.html").read_text("utf-8")


def test_internal_links_resolve(site):
    out, _ = site
    assert _links_resolve(out) > 1000


def test_no_network_no_script(site):
    """No page fetches anything; the only script is the search and filters of cases.html,
    inline and allowed by its hash alone."""
    out, _ = site
    pages = _pages(out)
    assert len(pages) > 2000                     # a page for every case
    for p in pages:
        text = p.read_text(encoding="utf-8")
        assert "default-src 'none'" in text
        assert not re.search(r'(src|href)="(https?:)?//', text), p.name
        if p.name == "cases.html":
            text = text.replace(f"<script>{FILTER_SCRIPT}</script>", "")
        assert "<script" not in text, p.name


def test_two_runs_of_one_implementation_get_a_diff_page(runs, tmp_path):
    ref, fake, paths = runs
    later = json.loads(json.dumps(fake))
    later["implementation"]["version"] = "0.0.2"
    fixed = [c for c in later["cases"] if c["outcome"] == "fail"][:5]
    for c in fixed:
        c["outcome"] = "pass"
    broke = [c for c in later["cases"] if c["outcome"] == "pass"][-3:]
    for c in broke:
        c["outcome"] = "fail"
    later["totals"] = dict(Counter(c["outcome"] for c in later["cases"]))   # they must agree
    p3 = tmp_path / "fake2.json"
    p3.write_text(json.dumps(later), encoding="utf-8")
    out = tmp_path / "site"
    build_site([paths[0], paths[1], p3], out, case_pages=False)
    page = out / "diff-2-3.html"
    assert page.is_file()
    text = page.read_text(encoding="utf-8")
    assert "3 regressions" in text and "5 fixes" in text
    for c in broke + fixed:
        assert html.escape(c["case_id"]) in text
    assert 'href="diff-2-3.html"' in (out / "index.html").read_text(encoding="utf-8")
    # the reference and the fake are different implementations: no diff page between them
    assert not (out / "diff-1-2.html").exists()
    # a rebuild without the second run removes the stale diff page, nothing else
    (out / "mine.txt").write_text("keep", encoding="utf-8")
    build_site([paths[0]], out, case_pages=False)
    assert not page.exists() and (out / "mine.txt").exists()


def test_prove_and_amendment_pages(runs, tmp_path):
    _ref, _fake, paths = runs
    amend = real_amendment(tmp_path / "amended")
    ap = tmp_path / "amend.json"
    ap.write_text(json.dumps(amend, ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "site"
    pj = prove_json(tmp_path / "prove")
    build_site(paths, out, prove=pj, amendment=ap, case_pages=False)
    prove = (out / "prove.html").read_text(encoding="utf-8")
    data = json.loads(pj.read_text(encoding="utf-8"))
    for row in data["rows"]:
        assert html.escape(str(row["property"])) in prove
    am = (out / "amendment.html").read_text(encoding="utf-8")
    assert "4.0" in am and "<ins>" in am and "&lt;b&gt;új&lt;/b&gt;" in am
    assert "<b>új</b>" not in am
    # in words, never the JSON's keys; the Hungarian text wrapped by words; the next steps
    words = _text(out / "amendment.html")
    summary = re.findall(r'<table id="amendment-summary">(.*?)</table>', am, flags=re.S)[0]
    heads = re.findall(r"<th>([^<]*)</th>", summary)
    assert heads and not set(heads) & set(amend["summary"]) and not any("_" in h for h in heads)
    assert "clauses whose text changed" in words and "cases to review" in words
    assert 'class="diff" lang="hu"' in am and 'id="next-steps"' in am
    assert "Review needed." in words or "Nothing cited changed." in words


def test_cli_writes_site_and_names_index(runs, tmp_path, capsys):
    ref, fake, _paths = runs
    paths = []
    for name, data in (("ref.json", ref), ("fake.json", fake)):     # a slice: the command is tested
        paths.append(tmp_path / name)
        paths[-1].write_text(json.dumps(agreeing({**data, "cases": data["cases"][:120]})),
                             encoding="utf-8")
    out = tmp_path / "cli-site"
    rc = kodex(["report", "--results", str(paths[0]), "--results", str(paths[1]),
                "--out", str(out)])
    assert rc == 0
    assert str((out / "index.html").resolve()) in capsys.readouterr().out.replace("\n", "")
    assert len(list((out / "cases").glob("*.html"))) == 120


@pytest.mark.parametrize("content, needle", [
    ('{"schema": "hkk-results/9", "cases": []}', "/schema: "),
    ('{"schema": "hkk-results/1",\n "cases": [}', "line 2"),
    ('{"schema": "hkk-results/1", "cases": [{"case_id": "x", "clause": "3.18"}]}',
     "/cases/0: "),             # (the case has no outcome)
    ('[1, 2]', "JSON object"),
])
def test_bad_results_named_by_file_and_nothing_written(tmp_path, capsys, content, needle):
    bad = tmp_path / "bad.json"
    bad.write_text(content, encoding="utf-8")
    with pytest.raises(ReportInputError) as exc:
        build_site([bad], tmp_path / "site", case_pages=False)
    assert str(bad) in str(exc.value) and needle in str(exc.value)
    rc = kodex(["report", "--results", str(bad), "--out", str(tmp_path / "site")])
    err = capsys.readouterr().err
    assert rc == 2 and "bad.json" in err and "Traceback" not in err
    assert not (tmp_path / "site").exists()
    rc = kodex(["report", "--results", str(tmp_path / "missing.json"), "--out",
                str(tmp_path / "site")])
    assert rc == 2 and "missing.json" in capsys.readouterr().err


def test_report_module_not_imported_at_cli_start():
    import subprocess
    import sys
    code = ("import sys, conformance.cli; conformance.cli.build_parser(); "
            "print('reports.html' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_results_2_fields_gave_up_and_inconsistent_totals_are_shown(runs, tmp_path):
    ref, _fake, _ = runs
    v2 = degraded(ref)
    v2["gave_up"] = {"after": "4.2/x", "reason": "implementation crashed <twice>"}
    v2["profiles"] = {"kodex": {"pass": 1}}
    v2["totals"]["pass"] += 1                      # a file whose totals lie
    out = tmp_path / "site"
    build_site([v2], out, case_pages=False)
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "GAVE UP" in index and "implementation crashed &lt;twice&gt;" in index
    assert "disagrees with its cases" in index
    # the per-observation table, from each case's `observes`
    assert "Per observation (conformance profiles)" in index
    assert "not in profile" not in index
    declared = degraded(ref)
    declared["profile"], declared["profile_declared"] = ["state"], True
    build_site([declared], out, case_pages=False)
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "declared profile: state" in index and "not in profile" in index
    consistent = degraded(ref)
    build_site([consistent], out, case_pages=False)
    assert "disagrees" not in (out / "index.html").read_text(encoding="utf-8")


def test_a_results_file_without_cases_is_loud(tmp_path, capsys):
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({"schema": "hkk-results/1", "implementation": {"name": "x"},
                                 "cases": [], "totals": {}}), encoding="utf-8")
    out = tmp_path / "site"
    rc = kodex(["report", "--results", str(empty), "--out", str(out)])
    assert rc == 1
    assert "NO cases" in capsys.readouterr().err
    assert "NO CASES" in (out / "index.html").read_text(encoding="utf-8")


# --------------------------------------------------------------------------
# the corpus strength page (kodex strength, properties/strength.py)

def _pages(out: Path) -> list[Path]:
    """Every page of the site: the top level and the case pages (cases/)."""
    return sorted(out.glob("*.html")) + sorted(out.glob("cases/*.html"))


def _links_resolve(out: Path) -> int:
    """Every link of the site is internal and resolves (page and anchor, relative to the page
    that links); the number checked."""
    import posixpath
    from urllib.parse import unquote
    parsed = {p.relative_to(out).as_posix(): _parse(p) for p in _pages(out)}
    ids = {name: page.ids for name, page in parsed.items()}
    n = 0
    for name, page_html in parsed.items():
        for href in page_html.hrefs:
            assert "://" not in href and not href.startswith("//"), (name, href)
            page, _, frag = href.partition("#")
            page = posixpath.normpath(posixpath.join(posixpath.dirname(name), page)) if page \
                else name
            assert page in ids, (name, href)
            if frag:
                assert unquote(frag) in ids[page], (name, href)
            n += 1
    return n


def _strength_rows(text: str, attr: str) -> dict[str, str]:
    """{row key: its score cell's text} of the rows carrying ``data-<attr>``."""
    rows = {}
    for m in re.finditer(rf'<tr[^>]*data-{attr}="([^"]*)"[^>]*>.*?<td class="cell"[^>]*>([^<]*)</td>',
                         text):
        rows[html.unescape(m.group(1))] = m.group(2)
    return rows


def _shown(score: float | None) -> str:
    """How the page must show a score: none (all equivalent) is a dash, never 0%."""
    if score is None:
        return "—"
    return "100%" if score == 100 else f"{score:.1f}%"


def test_strength_page_shows_the_scores_of_the_json(runs, tmp_path, catalog):
    _ref, _fake, paths = runs
    data = strength_report()
    sp = tmp_path / "strength.json"
    sp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "site"
    build_site(paths, out, strength=sp, case_pages=False)
    text = (out / "strength.html").read_text(encoding="utf-8")
    o = data["overall"]
    assert f'id="strength-score">{o["score"]:.1f}%<' in text
    assert f"of {o['scored']} non-equivalent mutants" in text
    assert f"{o['survived']} survive" in text and f"{o['equivalent']} declared equivalent" in text
    assert "not met" in text                               # 50% is below the 95% goal
    # per title: every row of the JSON, with the Kódex's Hungarian title and its score
    titles = _strength_rows(text, "title")
    assert set(titles) == {r["id"] for r in data["titles"]}
    for r in data["titles"]:
        assert titles[r["id"]] == _shown(r["score"]), r
    assert ">124. Izomjelző</a>" in text and ">5. Játéktér felépítése</a>" in text
    assert ">7. kiadás szabálykönyv, 2. fejezet</a>" in text
    # per clause: every clause of the JSON with its score, linked to its place in the report
    clauses = _strength_rows(text, "clause")
    assert set(clauses) == {r["id"] for r in data["clauses"]}
    for r in data["clauses"]:
        assert clauses[r["id"]] == _shown(r["score"]), r
    assert "—" in clauses.values()                         # 3.18: only equivalent mutants
    assert 'href="title-124.html#clause-124.2"' in text
    # survivors: file, line and the change (escaped); equivalents with their reason (escaped)
    for m in data["mutants"]:
        if m["status"] == "survived":
            assert f"{m['file']}:{m['line']}" in text
            assert html.escape(m["change"]) in text
    assert html.escape(STRENGTH_HOSTILE_CHANGE) in text and "<script" not in text
    assert html.escape(STRENGTH_HOSTILE_REASON) in text and "<b>annotations" not in text
    assert "model/resources.py:5" in text and "model/resources.py:6" in text
    assert "and 2 more" in text                            # a survivor mapped to 5 clauses
    # the overview and the title pages point at it; every link of the site resolves
    index = (out / "index.html").read_text(encoding="utf-8")
    assert 'href="strength.html"' in index and f"<b>{o['score']:.1f}%</b>" in index
    t124 = (out / "title-124.html").read_text(encoding="utf-8")
    row = next(r for r in data["titles"] if r["id"].startswith("124 "))
    assert f'href="strength.html#strength-124">{row["score"]:.1f}%</a>' in t124
    assert _links_resolve(out) > 1000


def test_strength_page_keeps_the_corpus_score_beside_the_input_probes(runs, tmp_path):
    """A mutant only an input probe killed (hkk-strength/2 `probes`): the page, the overview and
    the title page say how many and the score of the corpus alone; an hkk-strength/1 file (no
    probes) still reads as the corpus alone."""
    _ref, _fake, paths = runs
    data = strength_report(probe_kill=True)
    o = data["overall"]
    assert o["by_probe"] == 1 and o["corpus_score"] < o["score"]
    out = tmp_path / "site"
    build_site(paths, out, strength=data, case_pages=False)
    text = html.unescape((out / "strength.html").read_text(encoding="utf-8"))
    assert (f"killed by the corpus and the input probes ({o['killed']} by a failing case or probe, "
            f"{o['timeout']} by timeout, 1 of them only by an input probe (the corpus alone: "
            f"{o['corpus_score']:.1f}%)") in text
    assert f"then {data['probes']['count']} input probes for a mutant the corpus lets through" in text
    index = html.unescape((out / "index.html").read_text(encoding="utf-8"))
    assert f"(the corpus alone: {o['corpus_score']:.1f}%; the rest by the input probes)" in index
    row = next(r for r in data["titles"] if r["by_probe"])
    page = html.unescape((out / f"title-{row['id'].split(' ')[0]}.html").read_text(encoding="utf-8"))
    assert "(1 of them only by an input probe: the corpus alone" in page
    old = strength_report()
    old["schema"] = "hkk-strength/1"
    del old["probes"]
    build_site(paths, out, strength=old, case_pages=False)
    text = html.unescape((out / "strength.html").read_text(encoding="utf-8"))
    assert "killed by the corpus alone (" in text and "input probe" not in text


def test_no_strength_results_is_loud_never_zero(runs, tmp_path):
    _ref, _fake, paths = runs
    out = tmp_path / "site"
    build_site(paths, out, case_pages=False)
    text = (out / "strength.html").read_text(encoding="utf-8")
    assert "NO STRENGTH RESULTS" in text and "UNKNOWN, not 0%" in text
    body = text.split("<main>", 1)[1]
    assert not re.search(r"\d%", body.replace("not 0%", "")), "no score is shown"
    assert "NO STRENGTH RESULTS" in (out / "index.html").read_text(encoding="utf-8")
    assert "Corpus strength of this title" not in (out / "title-124.html").read_text("utf-8")
    # results without a scored mutant (all equivalent): loud too, no 0%
    build_site(paths, out, strength=strength_report(scored=False), case_pages=False)
    text = (out / "strength.html").read_text(encoding="utf-8")
    assert "NO SCORED MUTANTS" in text and 'id="strength-score"' not in text
    assert "0.0%" not in text
    assert "NO SCORED MUTANTS" in (out / "index.html").read_text(encoding="utf-8")
    assert _links_resolve(out) > 1000


def test_cli_picks_up_strength_next_to_the_results(runs, tmp_path, capsys):
    ref, _fake, _paths = runs
    (tmp_path / "runs").mkdir()
    results = tmp_path / "runs" / "reference.json"       # as `make run` lays them out
    ref = agreeing({**ref, "cases": ref["cases"][:150]})  # the strength page is what is looked at
    results.write_text(json.dumps(ref), encoding="utf-8")
    data = strength_report()
    (tmp_path / "strength.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "site"
    assert kodex(["report", "--results", str(results), "--out", str(out)]) == 0
    assert "strength.json" in capsys.readouterr().out.replace("\n", "")
    score = f'id="strength-score">{data["overall"]["score"]:.1f}%<'
    assert score in (out / "strength.html").read_text(encoding="utf-8")
    # --no-strength leaves it out (and says so on the page)
    assert kodex(["report", "--results", str(results), "--out", str(out), "--no-strength"]) == 0
    text = (out / "strength.html").read_text(encoding="utf-8")
    assert "NO STRENGTH RESULTS" in text and "--no-strength" in text and score not in text
    # --strength names another file
    other = strength_report(scored=False)
    op = tmp_path / "other.json"
    op.write_text(json.dumps(other), encoding="utf-8")
    assert kodex(["report", "--results", str(results), "--out", str(out), "--strength",
                  str(op)]) == 0
    assert "NO SCORED MUTANTS" in (out / "strength.html").read_text(encoding="utf-8")
    # a broken strength.json found by default: the site is written, the page and stderr say why
    (tmp_path / "strength.json").write_text('{"schema": "hkk-strength/9"}', encoding="utf-8")
    capsys.readouterr()
    assert kodex(["report", "--results", str(results), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "strength.json" in err and "hkk-strength/9" in err
    text = (out / "strength.html").read_text(encoding="utf-8")
    assert "NO STRENGTH RESULTS" in text and "hkk-strength/9" in text


@pytest.mark.parametrize("content, needle", [
    ('{"schema": "hkk-strength/3", "overall": {}, "titles": [], "clauses": [], "mutants": []}',
     "field 'schema'"),
    ('{"schema": "hkk-strength/1", "overall": {}, "titles": {}, "clauses": [], "mutants": []}',
     "field 'titles'"),
    ('{"schema": "hkk-strength/1",\n "overall": [}', "line 2"),
    ('[1]', "JSON object"),
])
def test_bad_strength_file_named_and_nothing_written(runs, tmp_path, capsys, content, needle):
    _ref, _fake, paths = runs
    bad = tmp_path / "bad-strength.json"
    bad.write_text(content, encoding="utf-8")
    with pytest.raises(ReportInputError) as exc:
        build_site(paths, tmp_path / "site", strength=bad, case_pages=False)
    assert str(bad) in str(exc.value) and needle in str(exc.value)
    rc = kodex(["report", "--results", str(paths[0]), "--out", str(tmp_path / "site"),
                "--strength", str(bad)])
    err = capsys.readouterr().err
    assert rc == 2 and "bad-strength.json" in err and "Traceback" not in err
    assert not (tmp_path / "site").exists()


# --------------------------------------------------------------------------
# issue 28: the report as people read it; issue 24: verdicts beside the pass rate

def _text(path: Path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", path.read_text(encoding="utf-8")))


def test_every_summary_says_how_many_cases_got_a_verdict(runs, site):
    ref, fake, _paths = runs
    out, index = site
    text = " ".join(_text(index).split())
    n = len(ref["cases"])
    assert f"{n} cases: {n} passed (100% with a verdict)" in text
    counts = Counter(c["outcome"] for c in fake["cases"])
    judged = n - counts["skip"] - counts["not_run"]
    assert f"{counts['skip']} skipped" in text and f"({100 * judged / n:.1f}% with a verdict)" in text
    # every matrix cell: how many of its cases got a verdict
    for cell in _parse(index).cells:
        if cell["text"].strip() == "—":
            continue
        total = int(cell["data-total"])
        no_verdict = int(cell.get("data-o-skip", 0)) + int(cell.get("data-o-not-run", 0))
        assert f"{total - no_verdict} of {total} with a verdict" in cell["text"], cell
    # a title page
    t4 = " ".join(_text(out / "title-4.html").split())
    assert re.search(r"\d+ cases: \d+ passed, .*\(\d+\.\d% with a verdict\)", t4)


def test_skip_reasons_per_implementation(runs, site):
    _ref, fake, _paths = runs
    out, index = site
    page = index.read_text(encoding="utf-8")
    assert 'id="skips"' in page
    want = Counter(tuple(c["unsupported"][0].partition(":")[::2]) for c in fake["cases"]
                   if c["outcome"] == "skip")
    rows = re.findall(r'<table class="skips" data-run="1">(.*?)</table>', page, flags=re.S)[0]
    shown = {(html.unescape(k), html.unescape(n)): int(v) for k, n, v in
             re.findall(r"<tr><td>([^<]*)</td><td>([^<]*)</td><td>(\d+)</td></tr>", rows)}
    assert shown == dict(want)
    assert ("feature", "reaction-queue") in shown and ("verb", "attack") in shown
    assert "&lt;b&gt;odd&lt;/b&gt;" in rows and "<b>odd</b>" not in rows
    assert '<table class="skips" data-run="0">' not in page      # the reference skipped nothing


def test_a_page_for_every_case(runs, site):
    ref, fake, _paths = runs
    out, _index = site
    from reports.html.site import case_page
    pages = {p.relative_to(out).as_posix() for p in out.glob("cases/*.html")}
    ids = [c["case_id"] for c in ref["cases"]]
    assert pages == {case_page(cid) for cid in ids}
    listing = (out / "cases.html").read_text(encoding="utf-8")
    assert listing.count('<tr data-bad="') == len(ids)
    # a case the fake fails: its first difference, the reference's verdict, the YAML, events, rerun
    failing = next(c for c in fake["cases"] if c["outcome"] == "fail")
    page = _text(out / case_page(failing["case_id"]))
    assert "players.A.hp" in page and "The reference engine (ruleset" in page
    assert "id:" in page and "then:" in page                       # the case as its file writes it
    assert f"kodex run -k {failing['case_id']}" in page.replace("'", "")
    assert "kodex explain -k" in page
    # events with the clause that produced each, linked to the clause's text
    with_events = next(c for c in ref["cases"] if c["case_id"] == "4.12.0/draw-takes-top-card")
    raw = (out / case_page(with_events["case_id"])).read_text(encoding="utf-8")
    assert '<ol class="events">' in raw and 'class="why"' in raw and "../title-4.html#clause-4.12.0" in raw
    # an error of the fake: the lines of its stderr log that name the case
    erred = next(c for c in fake["cases"] if c["outcome"] == "error")
    page = _text(out / case_page(erred["case_id"]))
    assert f"boom in {erred['case_id']}" in page and "fake.stderr.log" in page
    # the filters: failures only and where the implementations differ
    rows = re.findall(r'<tr data-bad="(\d)" data-differs="(\d)" data-case="([^"]*)"', listing)
    bad = {html.unescape(cid) for b, _d, cid in rows if b == "1"}
    assert failing["case_id"] in bad and erred["case_id"] in bad
    outcome = {c["case_id"]: c["outcome"] for c in fake["cases"]}  # the reference passes all
    assert {html.unescape(c) for _b, d, c in rows if d == "1"} == {
        cid for cid, o in outcome.items() if o not in ("pass", "xpass")}
    # every page's reference verdict agrees with `kodex run`: a case it passes (a hkk-case/2 one
    # too, run in its own format) meets every expectation on its page
    passed = [c["case_id"] for c in ref["cases"] if c["outcome"] == "pass"]
    assert "rb7:kijatszasi-sorrend/borun-the-bell-waiting-on-the-queue" in passed
    wrong = []
    for cid in passed:
        raw = (out / case_page(cid)).read_text(encoding="utf-8")
        if "does not meet" in raw or "meets every expectation" not in raw:
            wrong.append(cid)
    assert wrong == [], f"{len(wrong)} pages of passing cases disagree with the run: {wrong[:5]}"


def test_clause_cross_references_link_to_the_clause(site):
    out, _index = site
    page = (out / "title-4.html").read_text(encoding="utf-8")
    links = re.findall(r'<a class="xref" href="([^"]+)"[^>]*>([^<]+)</a>', page)
    assert ("title-4.html#clause-4.13.1", "4.13.1.") in links
    assert all(h.split("#clause-")[1].replace("%3A", ":") == t.rstrip(".") for h, t in links)


def test_hungarian_prose_wraps_by_words_and_tables_scroll_in_their_box(site):
    out, index = site
    page = index.read_text(encoding="utf-8")
    assert '<div class="scroll"><table' in page and "</table></div>" in page
    assert ".diff[lang=hu]{white-space:normal;word-break:normal" in page
    assert "[lang=hu]{overflow-wrap:break-word;word-break:normal" in page
    assert '<svg class="chart"' in page and "svg.chart{max-width:100%" in page


def test_foreign_files_in_the_site_directory_are_kept(runs, tmp_path):
    _ref, fake, _paths = runs
    small = {**fake, "cases": fake["cases"][:30]}
    out = tmp_path / "site"
    build_site([small], out)
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    (out / "title-4.html").write_text("stale", encoding="utf-8")       # a page of ours: replaced
    build_site([{**small, "cases": small["cases"][:10]}], out)
    assert (out / "notes.txt").read_text(encoding="utf-8") == "mine"
    assert (out / "title-4.html").read_text(encoding="utf-8") != "stale"
    assert len(list((out / "cases").glob("*.html"))) == 10              # no page of the earlier build
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".site.")]
