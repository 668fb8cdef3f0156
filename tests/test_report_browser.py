"""The HTML report in a real headless browser (system Chromium driven by Playwright).

The site is built from two implementations' results (the reference run and a
degraded fake) plus a second run of the fake (a diff page), the ``kodex
prove`` results and a real amendment, so that every kind of page is loaded.
Checked: every page loads without console errors, page errors or any request
other than the page itself (the network is closed and must not be needed);
the matrix shows the numbers of the JSON as the browser renders them, and so
does the corpus strength page (``kodex strength`` results); every
link between pages resolves (file and anchor); clicking through works; a
screenshot of the overview is kept ($KODEX_ARTIFACTS, else the pytest tmp dir).

The browser: $KODEX_CHROMIUM, else /usr/bin/chromium, else chromium /
chromium-browser / google-chrome on PATH. Without one (or without the
``playwright`` package) the tests SKIP and say so loudly; ``.ci/run``
installs Debian's chromium when it is missing.
"""
from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from conformance.catalog import load_catalog
from reports.html.site import build_site
from report_helpers import (agreeing, cached_reference, degraded, prove_json, real_amendment,
                            section_counts, strength_report)

FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
ROOT = Path(__file__).resolve().parents[1]


def _browser() -> str | None:
    env = os.environ.get("KODEX_CHROMIUM")
    if env:
        return env if Path(env).is_file() else None
    if Path("/usr/bin/chromium").is_file():
        return "/usr/bin/chromium"
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _skip_loudly(why: str):
    msg = (f"BROWSER TESTS NOT RUN — the HTML report was NOT checked in a browser: {why}. "
           "Install Debian's chromium (apt-get install chromium chromium-driver; .ci/run does "
           "this as root) and the test extra (pip install -e '.[test]').")
    import warnings
    warnings.warn(msg)
    pytest.skip(msg)


@pytest.fixture(scope="module")
def browser_context(tmp_path_factory):
    exe = _browser()
    if exe is None:
        _skip_loudly("no Chromium found (KODEX_CHROMIUM, /usr/bin/chromium, PATH)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        _skip_loudly(f"the playwright package is not installed ({exc})")
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(
            str(profile), executable_path=exe, headless=True, args=FLAGS,
            viewport={"width": 1400, "height": 1000})
        try:
            yield ctx
        finally:
            ctx.close()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp("browser-site")
    ref = cached_reference()
    fake = degraded(ref)
    later = degraded(ref, version="0.0.2")
    for c in later["cases"][:100]:
        c["outcome"] = "pass"
    later = agreeing(later)
    paths = []
    for name, data in (("reference.json", ref), ("fake.json", fake), ("fake2.json", later)):
        (d / name).write_text(json.dumps(data), encoding="utf-8")
        paths.append(d / name)
    amend = d / "amend.json"
    amend.write_text(json.dumps(real_amendment(d / "amended"), ensure_ascii=False),
                     encoding="utf-8")
    out = d / "site"
    strength = strength_report()
    index = build_site(paths, out, prove=prove_json(d / "prove"), amendment=amend,
                       strength=strength)
    return out, index, (ref, fake, later, strength)


class _Tab:
    """One browser tab whose console errors, page errors and requests are recorded per page
    loaded in it (a crawl reuses one tab: opening a tab per page was most of its time)."""

    def __init__(self, ctx):
        self.page = ctx.new_page()
        self.errors: list[str] = []
        self.page_errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda exc: self.page_errors.append(str(exc)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("requestfailed", lambda r: self.errors.append(f"request failed: {r.url}"))

    def open(self, url: str):
        """Load ``url`` in this tab; (console errors, page errors, foreign requests) of it."""
        self.errors, self.page_errors, self.requests = [], [], []
        resp = self.page.goto(url, wait_until="load")
        assert resp is None or resp.ok, url
        foreign = [u for u in self.requests if not (u.split("#")[0] == url.split("#")[0]
                                                    or u.startswith("data:"))]
        return self.errors, self.page_errors, foreign


def _load(ctx, url: str):
    """Open ``url`` in a new tab; (page, console errors, page errors, foreign requests)."""
    tab = _Tab(ctx)
    return (tab.page, *tab.open(url))


def test_every_page_loads_cleanly_and_links_resolve(browser_context, built):
    out, _index, _data = built
    pages = sorted(out.glob("*.html"))
    assert len(pages) > 60
    ids: dict[str, set[str]] = {}
    links: dict[str, list[str]] = {}
    tab = _Tab(browser_context)
    try:
        for p in pages:
            errors, page_errors, foreign = tab.open(p.resolve().as_uri())
            assert not errors, (p.name, errors[:5])
            assert not page_errors, (p.name, page_errors[:5])
            assert not foreign, (p.name, foreign[:5])
            assert tab.page.title(), p.name
            ids[p.name] = set(tab.page.eval_on_selector_all("[id]", "els => els.map(e => e.id)"))
            links[p.name] = tab.page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
    finally:
        tab.page.close()
    checked = 0
    for name, hrefs in links.items():
        for href in hrefs:
            u = urlparse(href)
            assert u.scheme == "file", (name, href)
            target = Path(unquote(u.path))
            assert target.is_file(), (name, href)
            if u.fragment:
                assert unquote(u.fragment) in ids[target.name], (name, href)
            checked += 1
    assert checked > 1000


def test_matrix_shows_the_numbers_of_the_json(browser_context, built):
    out, index, (ref, fake, later, _strength) = built
    catalog = load_catalog()
    page, errors, page_errors, _ = _load(browser_context, index.resolve().as_uri())
    try:
        heads = page.eval_on_selector_all("#matrix tr:first-child th",
                                          "els => els.map(e => e.innerText.trim())")
        assert heads[1:] == ["hkk-kodex reference 0.1.0", "degraded-fake 0.0.1",
                             "degraded-fake 0.0.2"]
        cells = page.eval_on_selector_all(
            "#matrix td.cell", "els => els.map(e => [e.dataset.run, e.dataset.row, e.innerText, "
            "(e.querySelector('.counts') || {}).innerText || '', "
            "(e.querySelector('.verdicts') || {}).innerText || ''])")
        clause_links = page.eval_on_selector_all("#matrix th a",
                                                 "els => els.map(e => e.innerText)")
    finally:
        page.close()
    runs = (ref, fake, later)
    expected = [section_counts(r, catalog) for r in runs]
    seen_rows = 0
    for run, row, text, counts_text, verdicts in cells:
        run = int(run)
        if row == "all":
            want = {k: v for k, v in runs[run]["totals"].items() if v}
        elif row.startswith("part:"):
            continue
        else:
            want = expected[run].get(row, {})
        if not want:
            assert text.strip() == "—", (run, row, text)
            continue
        shown = {m.group(1): int(m.group(2))
                 for m in re.finditer(r"([a-z_ ]+?) (\d+)(?: ·|$)", " ".join(counts_text.split()))}
        shown = {k.strip().replace(" ", "_"): v for k, v in shown.items()}
        for outcome, n in want.items():
            assert shown.get(outcome) == n, (run, row, outcome, text)
        total = sum(want.values())
        judged = total - want.get("skip", 0) - want.get("not_run", 0)
        assert verdicts == f"{judged} of {total} with a verdict", (run, row, verdicts)
        passed = want.get("pass", 0) + want.get("xpass", 0)
        denom = sum(want.values()) - want.get("skip", 0)
        if denom:
            pct = 100 * (passed / denom)        # as the report computes it: 100 * 49/80 is 61.25000000000001
            assert (f"{pct:.1f}%" in text or (pct == 100 and "100%" in text)
                    or (99.95 <= pct < 100 and "99.9%" in text)), (run, row, text)
        seen_rows += 1
    assert seen_rows == sum(len([v for v in e.values() if v]) + 1 for e in expected)
    # the titles are there with their Kódex numbers and Hungarian names
    assert any(t.startswith("4. Alapfogalmak") for t in clause_links)


def test_click_through_to_a_clause_and_screenshot(browser_context, built):
    out, index, _ = built
    page, errors, page_errors, _ = _load(browser_context, index.resolve().as_uri())
    try:
        artefacts = Path(os.environ.get("KODEX_ARTIFACTS") or out.parent / "artefacts")
        artefacts.mkdir(parents=True, exist_ok=True)
        shot = artefacts / "report-overview.png"
        page.screenshot(path=str(shot), full_page=True)
        assert shot.stat().st_size > 10_000
        print(f"overview screenshot: {shot}")
        page.click("#matrix a[href='title-4.html']")
        page.wait_for_load_state("load")
        assert page.url.endswith("/title-4.html")
        assert page.locator("[id='clause-4.0'] .kodex").inner_text().startswith("Egyes")
        page.click("header a[href='index.html']")
        page.wait_for_load_state("load")
        assert page.url.endswith("/index.html")
        assert not errors and not page_errors
    finally:
        page.close()


def test_strength_page_shows_the_score_and_hungarian_titles(browser_context, built):
    out, _index, (_ref, _fake, _later, strength) = built
    page, errors, page_errors, _ = _load(browser_context, (out / "strength.html").resolve().as_uri())
    try:
        score = page.inner_text("#strength-score")
        titles = page.eval_on_selector_all(
            "#strength-titles tr[data-title]",
            "els => els.map(e => [e.dataset.title, e.querySelector('th').innerText.trim(), "
            "e.querySelector('td').innerText.trim()])")
        assert not errors and not page_errors
    finally:
        page.close()
    assert score == f"{strength['overall']['score']:.1f}%"
    want = {r["id"]: r["score"] for r in strength["titles"]}
    assert {t[0] for t in titles} == set(want)
    for rid, label, shown in titles:
        s = want[rid]
        assert shown == ("—" if s is None else "100%" if s == 100 else f"{s:.1f}%"), (rid, shown)
    assert ["124 Izomjelző", "124. Izomjelző"] in [t[:2] for t in titles]


# --------------------------------------------------------------------------
# issue 28: the page of every case, narrow and wide; the search and filters of cases.html

def _overflow(page) -> int:
    """How far the page is wider than the window (0: nothing to scroll sideways)."""
    return page.evaluate("document.documentElement.scrollWidth - window.innerWidth")


@pytest.mark.parametrize("width", [800, 1400])
def test_case_pages_at_800_and_1400_px(browser_context, built, width):
    """A sample of the case pages (a failing one, an erring one, spread over the corpus) and the
    overview load cleanly, keep to the window's width (tables scroll in their own box) and wrap
    the Hungarian text by words."""
    out, index, (ref, fake, _later, _s) = built
    from reports.html.site import case_page
    ids = [c["case_id"] for c in ref["cases"]]
    sample = ids[:: max(1, len(ids) // 10)]
    sample += [next(c["case_id"] for c in fake["cases"] if c["outcome"] == o)
               for o in ("fail", "error", "timeout", "skip")]
    tab = _Tab(browser_context)
    try:
        tab.page.set_viewport_size({"width": width, "height": 900})
        for cid in sample:
            url = (out / case_page(cid)).resolve().as_uri()
            errors, page_errors, foreign = tab.open(url)
            assert not errors and not page_errors and not foreign, (cid, errors, page_errors, foreign)
            page = tab.page
            assert page.title().startswith("Case ")
            assert _overflow(page) <= 0, (cid, width, _overflow(page))
            heads = page.eval_on_selector_all("h2", "els => els.map(e => e.innerText)")
            assert heads[:3] == ["Verdicts", "Expected and actual", "The case"], (cid, heads)
            assert "Run it again" in heads
            assert page.inner_text("pre.yaml").lstrip().startswith("- id:"), cid
            # every table sits in a box of its own that scrolls: none wider than the window
            boxes = page.eval_on_selector_all(
                "table", "els => els.map(t => [t.parentElement.className, "
                         "t.parentElement.getBoundingClientRect().right])")
            assert all(cls == "scroll" and right <= width for cls, right in boxes), (cid, boxes)
            # Hungarian prose breaks between words only
            styles = page.eval_on_selector_all(
                "[lang=hu]", "els => els.map(e => getComputedStyle(e).wordBreak)")
            assert styles and set(styles) == {"normal"}, (cid, set(styles))
        # the clause link of a case page leads to the clause's text on its title page
        tab.open((out / case_page(sample[0])).resolve().as_uri())
        tab.page.click("main p a")
        tab.page.wait_for_load_state("load")
        assert "/title-" in tab.page.url and "#clause-" in tab.page.url
        # the overview and the amendment page keep to the window too
        for name in ("index.html", "amendment.html", "cases.html"):
            errors, page_errors, _ = tab.open((out / name).resolve().as_uri())
            assert not errors and not page_errors, (name, errors, page_errors)
            assert _overflow(tab.page) <= 0, (name, width, _overflow(tab.page))
    finally:
        tab.page.close()


def test_cases_search_and_filters_work_without_a_server(browser_context, built):
    out, _index, (ref, fake, later, _s) = built
    page, errors, page_errors, foreign = _load(browser_context, (out / "cases.html").resolve().as_uri())
    try:
        assert not errors and not page_errors and not foreign
        total = len(ref["cases"])

        def shown() -> int:
            return page.evaluate("document.querySelectorAll('#cases tbody tr:not([hidden])').length")
        assert page.is_visible("#filters") and shown() == total
        assert page.inner_text("#shown") == str(total)
        page.check("#failures")
        bad = page.evaluate("document.querySelectorAll('#cases tbody tr[data-bad=\"1\"]').length")
        assert 0 < shown() == bad < total
        page.uncheck("#failures")
        page.check("#differ")
        differ = page.evaluate("document.querySelectorAll('#cases tbody tr[data-differs=\"1\"]').length")
        assert 0 < shown() == differ < total
        page.uncheck("#differ")
        # search: words of the id or title, accents ignored
        page.fill("#q", "4.8.4/")
        want = sum(1 for c in ref["cases"] if "4.8.4/" in c["case_id"].lower()
                   or "4.8.4/" in (c.get("title") or "").lower())
        assert shown() == want > 0 and page.inner_text("#shown") == str(want)
        page.fill("#q", "4.8.4/ zzzz-no-such-word")
        assert shown() == 0
        page.fill("#q", "")
        assert shown() == total
    finally:
        page.close()
    # a link may open it with a filter set
    page, errors, page_errors, _ = _load(browser_context,
                                         (out / "cases.html").resolve().as_uri() + "#failures")
    try:
        assert page.is_checked("#failures") and 0 < page.evaluate(
            "document.querySelectorAll('#cases tbody tr:not([hidden])').length") < len(ref["cases"])
    finally:
        page.close()
