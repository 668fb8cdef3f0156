"""A static HTML site from results files: ``kodex report``.

Covers :func:`build_site`, which writes into one directory

* ``index.html`` — the overview: the runs (one column per results file,
  labelled by implementation name and version), an inline SVG chart of their
  outcomes, and the **implementation matrix**: Kódex parts and titles as rows,
  implementations as columns, each cell the pass rate with the counts of
  pass / fail / error / skip / xfail (and of timeout, xpass, not_run and any
  unknown outcome when there are some), coloured by the rate;
  Each title row also lists (collapsed) the ids of its tested clauses;
* ``clauses.html`` — the clause matrix: every clause some case has as its own
  × implementation, each cell passed / cases with a verdict;
* ``title-<section>.html`` — one page per Kódex title (and per ``rb7`` /
  ``mk:`` section): each clause with its Hungarian text, the cases citing it
  as their ``clause`` with every implementation's verdict, and for a case that
  did not pass the first difference (path, expected, actual) and the message;
* ``unknown.html`` — cases whose clause the catalog does not know (only when
  there are some);
* ``registers.html`` — the untestable registry and the conflicts register;
* ``prove.html`` — the ``kodex prove`` results (``--prove PROVE.json``);
* ``amendment.html`` — the amendment impact (``--amendment AMEND.json``);
* ``strength.html`` — the corpus strength (``kodex strength``: mutation testing
  of ``model/`` against the corpus, ``--strength STRENGTH.json``): the score
  overall, per Kódex title (with its Hungarian title) and per clause, the
  surviving mutants (file, line, the change) and the equivalent ones with their
  reasons. Always written: without strength results it says so loudly (the
  strength is unknown, never shown as 0%);
* ``diff-<i>-<j>.html`` — the comparison of two runs of one implementation
  (same implementation name; each run with the next run of that name), from
  :func:`reports.diff.compare`.

Counting: a case counts in the row of the section of its ``clause``. The
pass rate of a cell is (pass + xpass) / (cases − skip): a skipped case (the
case does not hold under the ruleset run) is not a verdict; ``xfail``,
``not_run`` and unknown outcomes count as not passed. A cell without a case
shows a dash.

The pages are self-contained: the CSS is inline, the charts are inline SVG,
there is no script, and a Content-Security-Policy forbids every fetch, so the
site works from ``file://`` and never touches the network. Every text that
comes from outside (case titles, messages, differences, implementation names)
is HTML-escaped and cut to a bound. The site is built in a directory beside ``--out`` and swapped
in whole (:func:`_swap_in`): never a site of two builds.

Results files: ``hkk-results/1`` and ``hkk-results/2`` (which adds the
``not_run`` outcome, per-profile tallies and ``gave_up``); an outcome the page
does not know gets its own count, never a crash.
"""
from __future__ import annotations

import base64
import datetime as _dt
import hashlib
import html
import json
import os
import re
import shlex
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable
from urllib.parse import quote


ACCEPTED_SCHEMAS = ("hkk-results/1", "hkk-results/2")
STRENGTH_SCHEMA = "hkk-strength/2"
STRENGTH_SCHEMAS = ("hkk-strength/1", STRENGTH_SCHEMA)   # /2 adds the input probes (optional fields)
STRENGTH_FILE = "strength.json"
# the order outcomes are shown in; others follow in the order met
KNOWN = ("pass", "fail", "error", "skip", "xfail", "timeout", "xpass", "not_run")
ALWAYS = ("pass", "fail", "error", "skip", "xfail")     # shown in every cell
PASSED = ("pass", "xpass")
NOT_VERDICTS = ("skip",)
SHORT = {"pass": "pass", "fail": "fail", "error": "error", "skip": "skip", "xfail": "xfail",
         "timeout": "timeout", "xpass": "xpass", "not_run": "not run"}
COLOUR = {"pass": "#2e8b57", "fail": "#c0392b", "error": "#8e44ad", "timeout": "#d35400",
          "skip": "#b7950b", "xfail": "#2874a6", "xpass": "#e74c3c", "not_run": "#7f8c8d"}
MANIFEST = ".kodex-report-files"
V1_FIELDS = ("schema", "implementation", "ruleset", "started", "finished", "duration_ms",
             "cases", "totals", "profiles", "profile", "profile_declared", "gave_up",
             "unavailable", "kit", "_path")
PART_NAMES = {"rb7": "rb7 — 7th-edition rulebook, chapter 2",
              "mk": "mk — M.A.G.U.S. rules 5.00"}
MAX_NAME, MAX_VERSION = 80, 40        # characters of an implementation's name / version shown
MAX_TITLE = 300                       # characters of a case's title or id shown
NO_VERDICT = ("skip", "not_run")      # outcomes that are no verdict on the implementation
BAD = ("fail", "error", "timeout", "xpass", "not_run")
WORDS = {"pass": "passed", "fail": "failed", "error": "errors", "timeout": "timeouts",
         "skip": "skipped", "xfail": "expected failures", "xpass": "unexpected passes",
         "not_run": "not run"}


class ReportInputError(Exception):
    """A results, prove, amendment or strength file that cannot be used (names the file)."""


# --------------------------------------------------------------------------
# inputs

def _read_json(path: str | Path, what: str) -> Any:
    """A side file (prove, amendment, strength): bounded, strict JSON
    (``conformance.results_io.read_json_file``); a problem names the file."""
    from conformance.infile import InputFileError
    from conformance.results_io import read_json_file
    try:
        return read_json_file(path, what)
    except InputFileError as exc:
        raise ReportInputError(str(exc)) from None


def load_results(path: str | Path) -> dict:
    """A results file (``hkk-results/1`` or ``/2``), read and checked as every command that takes
    one reads it (``conformance.results_io.read_results``: a regular file, bounded, strict JSON,
    the results schema, an implementation within the limits of a ``hello``, no case id twice,
    totals that agree with the cases); a problem is a :class:`ReportInputError` naming the file
    and the JSON pointer (docs/spec/hkk-results.md, "Reading a results file")."""
    from conformance.infile import InputFileError
    from conformance.results_io import read_results
    try:
        return read_results(path)
    except InputFileError as exc:
        raise ReportInputError(str(exc)) from None


def load_strength(path: str | Path) -> dict:
    """A ``kodex strength`` report (``hkk-strength/1`` or ``/2``), checked enough to report on."""
    data = _read_json(path, "kodex strength JSON")
    if not isinstance(data, dict):
        raise ReportInputError(f"{path}: a strength file is a JSON object")
    check_strength(data, str(path))
    return data


def check_strength(data: dict, where: str = "the strength results") -> None:
    if data.get("schema") not in STRENGTH_SCHEMAS:
        raise ReportInputError(f"{where}: field 'schema' is {data.get('schema')!r}; expected "
                               f"{' or '.join(STRENGTH_SCHEMAS)}")
    if not isinstance(data.get("overall"), dict):
        raise ReportInputError(f"{where}: field 'overall' must be an object")
    for key in ("titles", "clauses", "mutants"):
        rows = data.get(key)
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise ReportInputError(f"{where}: field '{key}' must be a list of objects")
    check_fields(data, "strength", where)


# The fields of the side files the pages read, with the type each must have (absent or null is
# allowed): a wrong type is unusable input (exit 2, the file and field named), never a crash.
# "*" stands for every item of a list.
SIDE_FIELDS: dict[str, list[tuple[str, str]]] = {
    "prove": [("/policies", "list"), ("/rows", "list of objects"), ("/flat_reading", "object"),
              ("/flat_reading/quotes", "object"), ("/gaps", "list of objects"),
              ("/gaps/*/clauses", "list")],
    "amendment": [("/summary", "object"), ("/changed", "list of objects"),
                  ("/moved", "list of objects"), ("/removed", "list of objects"),
                  ("/added", "list of objects"), ("/changed/*/new", "object"),
                  ("/changed/*/impact", "object"), ("/changed/*/impact/cases", "list of objects"),
                  ("/moved/*/new", "object"), ("/moved/*/impact", "object"),
                  ("/removed/*/old", "object"), ("/removed/*/impact", "object"),
                  ("/added/*/new", "object"), ("/added/*/covered_by", "object"),
                  ("/added/*/covered_by/cases", "list"), ("/review", "object"),
                  ("/review/cases", "list of objects"), ("/review/cases/*/clauses", "list"),
                  ("/numbers", "list of objects"), ("/numbers/*/now", "list"),
                  ("/still_old", "list of objects"), ("/still_old/*/now", "list"),
                  ("/next_steps", "list")],
    "strength": [("/goal", "object"), ("/tool", "object"), ("/corpus", "object"),
                 ("/timing", "object"), ("/reachable", "object"), ("/unreachable_files", "list"),
                 ("/problems", "list"), ("/corpus/left_out", "list"), ("/probes", "object"),
                 ("/probes/kills", "list of objects"),
                 ("/mutants/*/clauses", "list")],
}


def _json_type(v: Any) -> str:
    return ("an object" if isinstance(v, dict) else "a list" if isinstance(v, list) else
            "a string" if isinstance(v, str) else "a boolean" if isinstance(v, bool) else
            "a number" if isinstance(v, (int, float)) else "null" if v is None else "a value")


def _select(data: Any, parts: list[str], ptr: str = ""):
    if not parts:
        yield ptr, data
        return
    head, rest = parts[0], parts[1:]
    if head == "*":
        if isinstance(data, list):
            for i, item in enumerate(data):
                yield from _select(item, rest, f"{ptr}/{i}")
    elif isinstance(data, dict) and head in data:
        yield from _select(data[head], rest, f"{ptr}/{head}")


def check_fields(data: Any, kind: str, where: str) -> None:
    """The side file ``data`` (``prove``, ``amendment``, ``strength``) has the types
    :data:`SIDE_FIELDS` says, or ReportInputError names the first field that has not."""
    if not isinstance(data, dict):
        raise ReportInputError(f"{where}: a {kind} file is a JSON object")
    for pattern, want in SIDE_FIELDS[kind]:
        for ptr, value in _select(data, pattern.strip("/").split("/")):
            if value is None:
                continue
            ok = (isinstance(value, dict) if want == "object" else isinstance(value, list)
                  and (want == "list" or all(isinstance(x, dict) for x in value)))
            if not ok:
                got = _json_type(value) if want != "list of objects" or not isinstance(value, list) \
                    else "a list with an item that is not an object"
                raise ReportInputError(f"{where}: field '{ptr}' must be {'an' if want == 'object' else 'a'} "
                                       f"{want}, not {got}")


def find_strength(results: Iterable[str | Path | dict]) -> Path | None:
    """The ``strength.json`` next to the results: in a results file's directory or the one
    above it (``make run`` writes ``reports/runs/reference.json`` and ``reports/strength.json``)."""
    for r in results:
        if isinstance(r, dict):
            continue
        here = Path(r).resolve().parent
        for d in (here, here.parent):
            if (d / STRENGTH_FILE).is_file():
                return d / STRENGTH_FILE
    return None


@dataclass
class Run:
    index: int
    path: str
    data: dict
    label: str = ""
    cases: dict = field(default_factory=dict)       # case_id -> case dict

    @property
    def impl(self) -> dict:
        return self.data.get("implementation") or {}

    @property
    def full_name(self) -> str:
        """The implementation's name as its results say (for grouping runs, never rendered)."""
        return str(self.impl.get("name") or "unnamed implementation")

    @property
    def name(self) -> str:
        """The name as pages show it: at most MAX_NAME characters."""
        return _cut(self.full_name, MAX_NAME)


def _runs(results: Iterable[str | Path | dict]) -> list[Run]:
    runs: list[Run] = []
    for i, r in enumerate(results):
        if isinstance(r, dict):
            run = Run(i, r.get("_path", f"run {i + 1}"), r)
        else:
            run = Run(i, str(r), load_results(r))
        run.cases = {c["case_id"]: c for c in run.data["cases"]}
        runs.append(run)
    seen: Counter = Counter()
    for run in runs:
        v = run.impl.get("version")
        run.label = run.name + (f" {_cut(v, MAX_VERSION)}" if v else "")
        seen[run.label] += 1
    dup: Counter = Counter()
    for run in runs:
        if seen[run.label] > 1:
            dup[run.label] += 1
            run.label = f"{run.label} · run {dup[run.label]} ({Path(run.path).name})"
    return runs


# --------------------------------------------------------------------------
# html helpers

def e(value: Any) -> str:
    """HTML-escaped text (quotes too: safe in attributes)."""
    return html.escape("" if value is None else str(value), quote=True)


def _slug(section: str) -> str:
    return re.sub(r"[^A-Za-z0-9.]+", "-", str(section)).strip("-") or "x"


def title_page(section: str) -> str:
    return f"title-{_slug(section)}.html"


def _anchor(kind: str, ident: str) -> str:
    """An element id for a clause or case (whitespace is not allowed in ids; a very long id is
    cut and told apart by its hash)."""
    ident = str(ident)
    if len(ident) > 120:
        ident = ident[:80] + "-" + hashlib.sha1(ident.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return kind + "-" + re.sub(r"\s", "_", ident)


def case_page(cid: str) -> str:
    """The page of one case, under ``cases/``: a readable slug of its id and a hash (ids differ
    in characters a file name cannot hold)."""
    raw = str(cid).encode("utf-8", "surrogatepass")
    slug = re.sub(r"[^A-Za-z0-9.]+", "-", str(cid)[:60]).strip("-.") or "case"
    return f"cases/{slug}-{hashlib.sha1(raw).hexdigest()[:10]}.html"


def _href(page: str, kind: str, ident: str) -> str:
    return f"{page}#{quote(_anchor(kind, ident), safe='')}"


def _json_short(value: Any, limit: int = 400) -> str:
    """JSON text of an outside value, at most ``limit`` characters: the value is cut first
    (:func:`_shrink`), so a huge value costs no more than a small one."""
    try:
        s = json.dumps(_shrink(value, limit), ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        s = repr(value)[:limit + 1]
    return s if len(s) <= limit else s[:limit] + "…"


def _shrink(value: Any, chars: int = 400, items: int = 50, depth: int = 8) -> Any:
    """A copy of an outside value that is small whatever the value: strings cut to ``chars``,
    lists and mappings to ``items`` entries, nesting to ``depth`` (what is left out is counted)."""
    if isinstance(value, str):
        return value if len(value) <= chars else value[:chars] + f"… ({len(value) - chars} more)"
    if isinstance(value, (int, float, bool)) or value is None:
        return value
    if depth <= 0:
        return "…"
    if isinstance(value, dict):
        out: dict = {}
        for i, (k, v) in enumerate(value.items()):
            if i >= items:
                out["…"] = f"{len(value) - items} more fields"
                break
            out[_cut(k, 100)] = _shrink(v, chars, items, depth - 1)
        return out
    if isinstance(value, (list, tuple)):
        out_list = [_shrink(v, chars, items, depth - 1) for v in value[:items]]
        if len(value) > items:
            out_list.append(f"… {len(value) - items} more items")
        return out_list
    return _cut(repr(value), chars)


def _cut(value: Any, limit: int) -> str:
    """An outside text as shown: at most ``limit`` characters."""
    s = "" if value is None else str(value)
    return s if len(s) <= limit else s[:limit - 1] + "…"


CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#222;
background:#fafafa}
header{background:#1f2d3d;color:#fff;padding:.6em 1.2em}
header a{color:#cfe3ff;margin-right:1em}header h1{margin:.2em 0;font-size:1.3em}
main{padding:1em 1.2em;max-width:100%}
table{border-collapse:collapse;margin:.5em 0 1.5em}
th,td{border:1px solid #ccc;padding:.25em .45em;vertical-align:top;font-size:.9em}
th{background:#eef1f4;text-align:left}
td.cell{text-align:center;min-width:7.5em;max-width:12em}td.cell a{color:inherit;text-decoration:none}
td.cell .rate{font-weight:bold;font-size:1.05em}
.counts{font-size:.78em}.counts span{white-space:nowrap}
tr.part th{background:#d9e2ec;font-size:1em}table.matrix th:first-child{max-width:24em}
.none{color:#999}
.pass{color:#1e7b47;font-weight:bold}.fail,.xpass{color:#b03a2e;font-weight:bold}
.error,.timeout{color:#7d3c98;font-weight:bold}.skip{color:#9a7d0a}.xfail{color:#21618c}
.not_run,.unknown{color:#555;font-weight:bold}
.kodex{background:#fff;border-left:3px solid #9ab;padding:.3em .6em;margin:.3em 0;
max-width:60em}
.clause{margin:1.2em 0;border-top:1px solid #ddd;padding-top:.4em}
.clause h3{margin:.2em 0;font-size:1em}
.diff{font-family:ui-monospace,monospace;font-size:.85em;white-space:pre-wrap;
word-break:break-all}
.exp{color:#1e7b47}.act{color:#b03a2e}
.note{color:#555;font-size:.9em}
details.ids{font-weight:normal;font-size:.8em;max-width:22em}details.ids a{margin-right:.3em}
del{background:#fdd}ins{background:#dfd}
.loud{background:#fdecea;border:2px solid #c0392b;color:#922;padding:.6em .9em;font-weight:bold;
font-size:1.1em;max-width:60em}
.score{font-size:2em;font-weight:bold}
code{font-family:ui-monospace,monospace;font-size:.85em;white-space:pre-wrap;overflow-wrap:anywhere}
*,*::before,*::after{box-sizing:border-box}
header nav{display:flex;flex-wrap:wrap;gap:.2em 1em}header nav a{margin-right:0}
.scroll{overflow-x:auto;max-width:100%;margin:.5em 0 1.5em}.scroll>table{margin:0}
svg.chart{max-width:100%;height:auto}
[lang=hu]{overflow-wrap:break-word;word-break:normal;hyphens:manual}
.diff[lang=hu]{white-space:normal;word-break:normal;overflow-wrap:break-word}
.verdicts{font-size:.78em;color:#333}
pre.yaml{background:#fff;border:1px solid #ccc;padding:.5em;overflow-x:auto;font-size:.85em;
max-width:100%}
.filters{display:flex;flex-wrap:wrap;gap:.4em 1.2em;align-items:center;margin:.6em 0}
.filters input[type=search]{min-width:16em;padding:.25em}
ol.events{font-family:ui-monospace,monospace;font-size:.85em;padding-left:2em}
ol.events .why{font-family:system-ui,sans-serif;color:#1e7b47}
.rerun code{display:block;background:#fff;border:1px solid #ccc;padding:.3em .5em;margin:.2em 0}
a.xref{text-decoration:underline dotted}
"""

# a case page (thousands of them) carries only the rules it uses: the matrix, strength, chart,
# filter and amendment rules stay out (a tenth of a corpus report's size)
_NOT_ON_CASE_PAGES = ("td.cell", ".counts", "tr.part", "table.matrix", "details.ids", "del", ".loud",
                      ".score", "svg.chart", ".filters", ".verdicts{", "ins", ".clause")
CASE_CSS = "".join(rule + "}" for rule in CSS.replace("\n", "").split("}")
                   if rule.strip() and not rule.strip().startswith(_NOT_ON_CASE_PAGES))

# cases.html: search and filters, in the browser, without a server (the page's only script,
# allowed by its hash in the page's Content-Security-Policy)
FILTER_SCRIPT = r"""(function(){
var q=document.getElementById('q'),f=document.getElementById('failures'),
d=document.getElementById('differ'),n=document.getElementById('shown'),
rows=Array.prototype.slice.call(document.querySelectorAll('#cases tbody tr'));
function fold(s){return s.normalize('NFD').replace(/[\u0300-\u036f]/g,'').toLowerCase();}
rows.forEach(function(r){r.kodexText=fold(r.textContent);});
function apply(){var words=fold(q.value).split(/\s+/).filter(Boolean),c=0;
rows.forEach(function(r){var ok=(!f.checked||r.dataset.bad==='1')&&
(!d.checked||r.dataset.differs==='1')&&words.every(function(w){return r.kodexText.indexOf(w)>=0;});
r.hidden=!ok;if(ok){c++;}});n.textContent=String(c);}
[q,f,d].forEach(function(el){el.addEventListener('input',apply);el.addEventListener('change',apply);});
var h=location.hash.slice(1);if(h==='failures'){f.checked=true;}if(h==='differ'){d.checked=true;}
if(h.indexOf('q=')===0){q.value=decodeURIComponent(h.slice(2));}
document.getElementById('filters').hidden=false;apply();})();"""


def _page(title: str, body: str, nav: list[tuple[str, str]], depth: int = 0,
          script: str | None = None, css: str = CSS) -> str:
    """A page: ``depth`` folders below the site's root (the links are made relative to it);
    ``script``: its one inline script, allowed by its hash and nothing else (no fetch)."""
    up = "../" * depth
    links = "".join(f'<a href="{e(up + h)}">{e(t)}</a>' for h, t in nav)
    csp = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
    if script is not None:
        digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()
        csp += f"; script-src 'sha256-{digest}'"
    tail = f"<script>{script}</script>" if script is not None else ""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">"
            "<link rel=\"icon\" href=\"data:,\">"
            f"<title>{e(title)}</title><style>{css}</style></head><body>"
            f"<header><h1>{e(title)}</h1><nav>{links}</nav></header>"
            f"<main>{_scrolling(body)}</main>{tail}</body></html>\n")


def _scrolling(body: str) -> str:
    """Every table in a box that scrolls sideways on its own when the page is narrow."""
    return body.replace("<table", '<div class="scroll"><table').replace("</table>", "</table></div>")


def verdict_summary(counts: Counter) -> str:
    """``2191 cases: 1906 passed, 285 skipped (87.0% with a verdict)``: every outcome, and how
    many cases got a verdict (neither skipped nor not run)."""
    n = sum(counts.values())
    if not n:
        return "no case"
    parts = [f"{counts[k]} {WORDS.get(k, k)}" for k in outcome_keys([counts]) if counts.get(k)]
    judged = n - sum(counts.get(k, 0) for k in NO_VERDICT)
    return (f"{n} case{'s' if n != 1 else ''}: {', '.join(parts)} "
            f"({_pct(judged / n)} with a verdict)")


def skip_reasons(run: "Run", limit: int = 40) -> list[tuple[str, str, int]]:
    """(kind, name, count) of the reasons a run skipped cases, from ``cases[].unsupported``
    (``verb:attack``, ``ruleset:kodex-mk``, ``profile:events``, ``feature:NAME`` — any
    ``kind:name``), the most frequent first; a skip without one counts as ``other``."""
    c: Counter = Counter()
    for case in run.cases.values():
        if case.get("outcome") != "skip":
            continue
        reasons = case.get("unsupported")
        if not isinstance(reasons, list) or not reasons:
            c[("other", _cut(case.get("message") or "(no reason given)", 120))] += 1
            continue
        for r in reasons[:20]:
            kind, sep, name = _cut(r, 200).partition(":")
            c[(kind, name) if sep else ("other", kind)] += 1
    rows = sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))
    out = [(k, n, v) for (k, n), v in rows[:limit]]
    if len(rows) > limit:
        out.append(("…", f"{len(rows) - limit} more reasons", sum(v for _k, v in rows[limit:])))
    return out


# --------------------------------------------------------------------------
# counting

def _section_of(clause: str, catalog) -> str:
    from reports.diff import section_of
    return section_of(clause, catalog)[0]


def outcome_keys(counters: Iterable[Counter]) -> list[str]:
    """The outcomes to show: the known ones in order, then unknown ones as met."""
    extra: list[str] = []
    for c in counters:
        for k in c:
            if k not in KNOWN and k not in extra:
                extra.append(k)
    return list(KNOWN) + extra


def rate(counts: Counter) -> float | None:
    total = sum(counts.values()) - sum(counts.get(k, 0) for k in NOT_VERDICTS)
    if total <= 0:
        return None
    return sum(counts.get(k, 0) for k in PASSED) / total


def _colour(r: float | None) -> str:
    if r is None:
        return "#f0f0f0"
    return f"hsl({round(120 * r)},65%,{82 if r < 1 else 78}%)"


def _pct(r: float | None) -> str:
    if r is None:
        return "—"
    p = 100 * r
    if 99.95 <= p < 100:
        return "99.9%"
    return f"{p:.1f}%" if p != 100 else "100%"


def _cell(counts: Counter, href: str | None, run: Run, row: str) -> str:
    n = sum(counts.values())
    if not n:
        return (f'<td class="cell none" data-run="{run.index}" data-row="{e(row)}" '
                f'data-total="0">—</td>')
    r = rate(counts)
    shown = [k for k in outcome_keys([counts]) if k in ALWAYS or counts.get(k)]
    data = " ".join(f'data-{e(_data_name(k))}="{counts.get(k, 0)}"' for k in shown)
    counts_html = " · ".join(
        f'<span class="{e(k if k in KNOWN else "unknown")}" title="{e(k)}">'
        f'{e(SHORT.get(k, k))} {counts.get(k, 0)}</span>' for k in shown)
    rate_html = f'<span class="rate">{_pct(r)}</span>'
    if href:
        rate_html = f'<a href="{e(href)}">{rate_html}</a>'
    tip = f"{run.label}: {verdict_summary(counts)}"
    judged = n - sum(counts.get(k, 0) for k in NO_VERDICT)
    return (f'<td class="cell" style="background:{_colour(r)}" title="{e(tip)}" '
            f'data-run="{run.index}" data-row="{e(row)}" data-total="{n}" {data}>'
            f'{rate_html}<br><span class="counts">{counts_html}</span><br>'
            f'<span class="verdicts">{judged} of {n} with a verdict</span></td>')


def _bar(counts: Counter, width: int = 220, height: int = 12) -> str:
    """One stacked bar of outcomes (inline SVG), each part titled with its count."""
    total = sum(counts.values())
    if not total:
        return ""
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" role="img" aria-label="outcomes">']
    x = 0.0
    for k in outcome_keys([counts]):
        v = counts.get(k, 0)
        if v:
            w = width * v / total
            out.append(f'<rect x="{x:.2f}" y="0" width="{w:.2f}" height="{height}" '
                       f'fill="{COLOUR.get(k, "#34495e")}"><title>{e(k)} {v}</title></rect>')
            x += w
    return "".join(out) + "</svg>"


def _compact_cell(counts: Counter, run: Run, row: str) -> str:
    n = sum(counts.values())
    if not n:
        return f'<td class="cell none" data-run="{run.index}" data-row="{e(row)}">—</td>'
    r = rate(counts)
    passed = sum(counts.get(k, 0) for k in PASSED)
    denom = n - sum(counts.get(k, 0) for k in NOT_VERDICTS)
    data = " ".join(f'data-{e(_data_name(k))}="{v}"' for k, v in counts.items())
    tip = ", ".join(f"{k} {counts[k]}" for k in outcome_keys([counts]) if counts.get(k))
    return (f'<td class="cell" style="background:{_colour(r)}" title="{e(tip)}" '
            f'data-run="{run.index}" data-row="{e(row)}" data-total="{n}" {data}>'
            f'{passed}/{denom}</td>')


def _data_name(outcome: str) -> str:
    """``data-*`` attribute name for an outcome (``o-`` + letters, digits, ``-``)."""
    return "o-" + re.sub(r"[^a-z0-9]+", "-", outcome.lower()).strip("-")


# --------------------------------------------------------------------------
# the site

class _Site:
    def __init__(self, runs: list[Run], catalog, out: Path, prove: dict | None,
                 amendment: dict | None, untestable: dict, conflicts: list,
                 strength: dict | None = None, strength_note: str | None = None,
                 case_pages: bool = True, shown: Path | None = None):
        self.runs, self.catalog, self.out = runs, catalog, out
        self.shown = out if shown is None else shown       # the site's path as the user gave it
        self.case_pages = case_pages
        self.prove, self.amendment = prove, amendment
        self.strength, self.strength_note = strength, strength_note
        self.untestable, self.conflicts = untestable, conflicts
        self.sections = list(catalog.sections()) if catalog is not None else []
        self.known_sections = {s for s, _t, _p in self.sections}
        # every case id, in the order first met; its clause and title from the first run having it
        self.case_info: dict[str, dict] = {}
        for run in runs:
            for cid, c in run.cases.items():
                self.case_info.setdefault(cid, c)
        self.by_section: dict[str, list[str]] = {}
        self.by_clause: dict[str, list[str]] = {}
        self.also: dict[str, list[str]] = {}
        for cid, c in self.case_info.items():
            clause = str(c.get("clause") or "")
            sec = _section_of(clause, catalog) if clause else ""
            if sec not in self.known_sections or (catalog is not None and clause not in catalog):
                sec = "unknown"
            self.by_section.setdefault(sec, []).append(cid)
            self.by_clause.setdefault(clause, []).append(cid)
            for a in c.get("also") or []:
                self.also.setdefault(str(a), []).append(cid)
        self.diffs = self._diff_pairs()
        self.written: list[str] = []
        self._logs: dict[int, tuple[str | None, list[str]]] = {}
        self.definitions = _definitions(c.get("file") for c in self.case_info.values()) \
            if case_pages else {}
        self.definitions_by_file: dict[str, list] = {}
        for d in self.definitions.values():
            self.definitions_by_file.setdefault(str(d.file), []).append(d)

    # ---------------------------------------------------------------- pages
    def nav(self) -> list[tuple[str, str]]:
        nav = [("index.html", "Overview"), ("cases.html", "Cases"), ("clauses.html", "Clauses"),
               ("registers.html", "Registers")]
        if self.prove is not None:
            nav.append(("prove.html", "Proofs"))
        if self.amendment is not None:
            nav.append(("amendment.html", "Amendment"))
        nav.append(("strength.html", "Strength"))
        for (i, j), _d in self.diffs:
            nav.append((f"diff-{i + 1}-{j + 1}.html", f"Diff {i + 1}→{j + 1}"))
        return nav

    def write(self, name: str, title: str, body: str, script: str | None = None) -> None:
        """One page into the build directory (a fresh one: the site is swapped in whole)."""
        from conformance.atomicio import writing
        depth = name.count("/")
        path = self.out / name
        page = _page(title, body, self.nav(), depth, script,
                     CASE_CSS if name.startswith("cases/") else CSS)
        with writing(self.shown / name):   # a full disk, a file-size limit …: exit 5
            if depth:
                path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(page, encoding="utf-8")
        self.written.append(name)

    def counts(self, run: Run, ids: Iterable[str]) -> Counter:
        c: Counter = Counter()
        for cid in ids:
            case = run.cases.get(cid)
            if case is not None:
                c[case["outcome"]] += 1
        return c

    def build(self) -> list[str]:
        self.overview()
        self.cases_index()
        if self.case_pages:
            for cid in self.case_info:
                self.case_detail(cid)
        self.clause_matrix()
        for sec, title, part in self.sections:
            self.title(sec, title, part)
        if self.by_section.get("unknown"):
            self.unknown()
        self.registers()
        if self.prove is not None:
            self.prove_page()
        if self.amendment is not None:
            self.amendment_page()
        self.strength_page()
        for pair, d in self.diffs:
            self.diff_page(pair, d)
        return self.written

    # ------------------------------------------------------------- overview
    def profiles_table(self) -> str:
        """Per observation (docs/spec/hkk-profiles.md): each run's pass rate over
        the cases whose ``then`` needs it; "not in profile" where the run's
        implementation declared a profile without it."""
        from conformance.profiles import ALL
        runs = self.runs
        if not any(c.get("observes") for r in runs for c in r.cases.values()):
            return ""
        b = ['<h2 id="profiles">Per observation (conformance profiles)</h2>'
             '<table class="matrix"><tr><th>observation</th>'
             + "".join(f"<th>{e(r.label)}</th>" for r in runs) + "</tr>"]
        for obs in ALL:
            cells = []
            for r in runs:
                ids = [cid for cid, c in r.cases.items() if obs in (c.get("observes") or [])]
                declared = r.data.get("profile_declared") and \
                    obs not in (r.data.get("profile") or [])
                cnt = self.counts(r, ids)
                cells.append(f"<td>{_pct(rate(cnt))} <small>({len(ids)} cases"
                             + ("; not in profile" if declared else "") + ")</small></td>")
            b.append(f"<tr><th>{e(obs)}</th>" + "".join(cells) + "</tr>")
        b.append("</table>")
        return "".join(b)

    def overview(self) -> None:
        runs = self.runs
        b: list[str] = []
        b.append(f'<p class="note">Generated {e(_now())} from {len(runs)} results '
                 f'file{"s" if len(runs) != 1 else ""}. Pass rate = (pass + xpass) / '
                 f'(cases − skip); xfail, not run and unknown outcomes count as not passed.</p>')
        b.append('<h2>Runs</h2><table id="runs"><tr><th>#</th><th>implementation</th><th>file</th>'
                 "<th>ruleset</th><th>started</th><th>duration</th><th>cases</th>"
                 "<th>pass rate</th><th>notes</th></tr>")
        for run in runs:
            d = run.data
            tot = self.counts(run, run.cases)
            notes = []
            if d.get("schema") != ACCEPTED_SCHEMAS[-1]:
                notes.append(str(d.get("schema")))
            if not run.cases:
                notes.append("NO CASES: this run tested nothing")
            if d.get("unavailable"):
                notes.append("UNAVAILABLE: " + _json_short(d.get("unavailable"), 200))
            if d.get("gave_up"):
                notes.append("GAVE UP: " + _json_short(d.get("gave_up"), 200))
            if d.get("profile_declared"):
                notes.append("declared profile: " + ", ".join(str(x) for x in d.get("profile") or []))
            declared = d.get("totals")
            if isinstance(declared, dict) and {k: v for k, v in declared.items() if v} != \
                    {k: v for k, v in tot.items() if v}:
                notes.append("its 'totals' field disagrees with its cases (the cases are shown): "
                             + _json_short(declared, 200))
            dur = d.get("duration_ms")
            b.append(f"<tr><td>{run.index + 1}</td><td>{e(run.label)}</td>"
                     f"<td>{e(_cut(run.path, MAX_TITLE))}</td><td>{e(_cut(d.get('ruleset'), 80))}</td>"
                     f"<td>{e(_cut(d.get('started'), 40))}</td>"
                     f"<td>{e(f'{dur / 1000:.2f} s' if isinstance(dur, (int, float)) else '')}</td>"
                     f'<td class="summary">{e(verdict_summary(tot))}</td><td>{_pct(rate(tot))}</td>'
                     f'<td class="{"fail" if d.get("gave_up") or not run.cases else ""}">'
                     f"{e('; '.join(notes))}</td></tr>")
        b.append("</table>")
        b.append('<p>Every case, with search and filters: <a href="cases.html">all cases</a> · '
                 '<a href="cases.html#failures">failures only</a> · '
                 '<a href="cases.html#differ">where the implementations differ</a></p>')
        for run in runs:
            extra = {k: v for k, v in run.data.items() if k not in V1_FIELDS}
            if extra:
                keys = ", ".join(_cut(k, 60) for k in list(extra)[:20]) + (
                    f" and {len(extra) - 20} more" if len(extra) > 20 else "")
                text = json.dumps(_shrink(extra, 2000, 100), ensure_ascii=False, indent=1,
                                  default=str)
                b.append(f"<details><summary>Further fields of run {run.index + 1} "
                         f"({e(keys)})</summary><pre class=\"diff\">" + e(_cut(text, 20000))
                         + "</pre></details>")
        b.append(self.skips_table())
        b.append("<h2>Outcomes</h2>" + self.chart())
        b.append(self.profiles_table())
        b.append("<h2>Implementation matrix</h2>")
        b.append('<table class="matrix" id="matrix"><tr><th>Kódex part / title</th>'
                 + "".join(f'<th data-run="{r.index}">{e(r.label)}</th>' for r in runs)
                 + "</tr>")
        parts: dict[str, list[tuple[str, str]]] = {}
        for sec, title, part in self.sections:
            parts.setdefault(part, []).append((sec, title))
        from reports.coverage import _part_label, section_label
        for part, secs in parts.items():
            ids = [cid for sec, _t in secs for cid in self.by_section.get(sec, [])]
            b.append(f'<tr class="part"><th>{e(PART_NAMES.get(part, _part_label(part)))}</th>'
                     + "".join(_cell(self.counts(r, ids), None, r, f"part:{part}") for r in runs)
                     + "</tr>")
            for sec, title in secs:
                ids = self.by_section.get(sec, [])
                page = title_page(sec)
                b.append(f'<tr><th><a href="{e(page)}">{e(section_label(sec, title))}</a>'
                         + self.clause_ids(sec) + "</th>"
                         + "".join(_cell(self.counts(r, ids), page, r, sec) for r in runs)
                         + "</tr>")
        if self.by_section.get("unknown"):
            ids = self.by_section["unknown"]
            b.append('<tr><th><a href="unknown.html">clauses not in the catalog</a></th>'
                     + "".join(_cell(self.counts(r, ids), "unknown.html", r, "unknown")
                               for r in runs) + "</tr>")
        b.append('<tr class="part"><th>all</th>'
                 + "".join(_cell(self.counts(r, r.cases), None, r, "all") for r in runs)
                 + "</tr></table>")
        more = ['<li><a href="clauses.html">Clause matrix</a> (every tested clause × '
                'implementation)</li>',
                f'<li><a href="registers.html">Untestable and conflicts registers</a> '
                f'({len(self.untestable)} untestable, {len(self.conflicts)} conflicts)</li>']
        if self.prove is not None:
            more.append('<li><a href="prove.html">kodex prove results</a></li>')
        if self.amendment is not None:
            more.append('<li><a href="amendment.html">Amendment impact</a></li>')
        more.append('<li><a href="strength.html">Corpus strength</a> (mutation testing of model/ '
                    'against the corpus): ' + self.strength_summary() + "</li>")
        for (i, j), _d in self.diffs:
            more.append(f'<li><a href="diff-{i + 1}-{j + 1}.html">Diff of run {i + 1} → '
                        f'run {j + 1}</a> ({e(runs[i].name)})</li>')
        b.append("<h2>More</h2><ul>" + "".join(more) + "</ul>")
        self.write("index.html", "HKK Kódex conformance report", "".join(b))

    def skips_table(self) -> str:
        """Why cases were skipped, per implementation (``cases[].unsupported``): what to build
        next, the most frequent first."""
        per = [(r, skip_reasons(r)) for r in self.runs]
        if not any(rows for _r, rows in per):
            return ""
        b = ['<h2 id="skips">Why cases were skipped</h2><p class="note">Per implementation, '
             'each reason the harness or the implementation gave (<code>kind:name</code>: a verb, '
             'a ruleset, an observation of the profile, a feature …) and how many cases it '
             'skipped: what to build next.</p>']
        for run, rows in per:
            if not rows:
                continue
            b.append(f'<h3>{e(run.label)}</h3><table class="skips" data-run="{run.index}">'
                     "<tr><th>kind</th><th>name</th><th>cases</th></tr>")
            for kind, name, n in rows:
                b.append(f"<tr><td>{e(kind)}</td><td>{e(name)}</td><td>{n}</td></tr>")
            b.append("</table>")
        return "".join(b)

    def tested_clauses(self, sec: str) -> list:
        """The clauses of ``sec`` that some case has as its own, in document order."""
        return [cl for cl in self.catalog.in_section(sec) if self.by_clause.get(cl.id)]

    def clause_ids(self, sec: str) -> str:
        """The clause ids of a title row: a collapsed list linking to the clauses."""
        tested = self.tested_clauses(sec)
        if not tested:
            return ""
        page = title_page(sec)
        links = " ".join(f'<a href="{e(_href(page, "clause", cl.id))}">{e(cl.id)}</a>'
                         for cl in tested)
        span = (e(tested[0].id) if len(tested) == 1
                else f"{e(tested[0].id)} … {e(tested[-1].id)}")
        noun = "clause" if len(tested) == 1 else "clauses"
        return (f'<details class="ids"><summary>{len(tested)} {noun}: {span}</summary>'
                f'{links}</details>')

    def clause_matrix(self) -> None:
        """Every tested clause × implementation: passed / counted cases per cell."""
        from reports.coverage import section_label
        b = ['<p class="note">Each cell: cases passed / cases with a verdict (skips left out) '
             'among the cases that have the clause as their own; colour by the rate. '
             'The title pages show the cases.</p><table class="matrix" id="clause-matrix">'
             '<tr><th>clause</th>' + "".join(f'<th data-run="{r.index}">{e(r.label)}</th>'
                                           for r in self.runs) + "</tr>"]
        for sec, title, _part in self.sections:
            tested = self.tested_clauses(sec)
            if not tested:
                continue
            page = title_page(sec)
            b.append(f'<tr class="part"><th colspan="{len(self.runs) + 1}"><a href="{e(page)}">'
                     f'{e(section_label(sec, title))}</a></th></tr>')
            for cl in tested:
                ids = self.by_clause[cl.id]
                b.append(f'<tr><th><a href="{e(_href(page, "clause", cl.id))}">{e(cl.id)}</a>'
                         f'{(" " + e(cl.title)) if cl.title else ""} '
                         f'<span class="note" lang="hu">{e(_clip(cl.text, 90))}</span></th>'
                         + "".join(_compact_cell(self.counts(r, ids), r, cl.id)
                                   for r in self.runs) + "</tr>")
        b.append("</table>")
        self.write("clauses.html", "Clause matrix", "".join(b))

    def chart(self) -> str:
        """Stacked horizontal bars, one per run (inline SVG)."""
        keys = outcome_keys(self.counts(r, r.cases) for r in self.runs)
        width, bar_x, bar_w, row_h = 900, 300, 560, 26
        height = row_h * len(self.runs) + 40
        parts = [f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="{width}" '
                 f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
                 f'aria-label="outcomes per run">']
        for n, run in enumerate(self.runs):
            y = 10 + n * row_h
            c = self.counts(run, run.cases)
            total = sum(c.values()) or 1
            label = run.label if len(run.label) <= 44 else run.label[:43] + "…"
            parts.append(f'<text x="{bar_x - 8}" y="{y + 15}" text-anchor="end" '
                         f'font-size="12">{e(label)}</text>')
            x = float(bar_x)
            for k in keys:
                v = c.get(k, 0)
                if not v:
                    continue
                w = bar_w * v / total
                parts.append(f'<rect x="{x:.2f}" y="{y}" width="{w:.2f}" height="{row_h - 6}" '
                             f'fill="{COLOUR.get(k, "#34495e")}"><title>{e(run.label)}: '
                             f'{e(k)} {v}</title></rect>')
                x += w
            parts.append(f'<text x="{bar_x + bar_w + 6}" y="{y + 15}" font-size="11">'
                         f'{sum(c.values())}</text>')
        ly = height - 14
        lx = bar_x
        for k in keys:
            if not any(self.counts(r, r.cases).get(k) for r in self.runs):
                continue
            parts.append(f'<rect x="{lx}" y="{ly - 9}" width="10" height="10" '
                         f'fill="{COLOUR.get(k, "#34495e")}"/><text x="{lx + 14}" y="{ly}" '
                         f'font-size="11">{e(k)}</text>')
            lx += 24 + 7 * len(k)
        parts.append("</svg>")
        return "".join(parts)

    # ---------------------------------------------------------- title pages
    def verdicts_table(self, ids: list[str]) -> str:
        if not ids:
            return ""
        rows = ['<table class="cases"><tr><th>case</th>'
                + "".join(f"<th>{e(r.label)}</th>" for r in self.runs) + "</tr>"]
        for cid in ids:
            info = self.case_info[cid]
            where = f"{info.get('file')}:{info.get('line')}" if info.get("file") else ""
            cells = []
            for run in self.runs:
                case = run.cases.get(cid)
                if case is None:
                    cells.append('<td class="none">not in this run</td>')
                    continue
                cells.append("<td>" + _verdict(case) + "</td>")
            rows.append(f'<tr id="{e(_anchor("case", cid))}"><td><b><a href="{e(self.case_target(cid))}">'
                        f'{e(_cut(cid, MAX_TITLE))}</a></b><br>'
                        f'{e(_cut(info.get("title"), MAX_TITLE))}<br>'
                        f'<span class="note">{e(_cut(where, MAX_TITLE))}</span></td>'
                        + "".join(cells) + "</tr>")
        rows.append("</table>")
        return "".join(rows)

    def title(self, sec: str, title: str, part: str) -> None:
        from reports.coverage import _part_label, section_label
        clauses = self.catalog.in_section(sec)
        ids = self.by_section.get(sec, [])
        b = [f'<p class="note">{e(_part_label(part))} · {len(clauses)} clauses · '
             f'{len(ids)} cases</p>', '<table class="title-runs"><tr><th>implementation</th>'
             '<th>pass rate</th><th>outcomes</th><th>cases</th></tr>']
        for run in self.runs:
            c = self.counts(run, ids)
            b.append(f"<tr><td>{e(run.label)}</td><td>{_pct(rate(c))}</td><td>{_bar(c)}</td>"
                     f'<td class="summary">{e(verdict_summary(c))}</td></tr>')
        b.append("</table>")
        b.append(self.title_strength(sec, title))
        for cl in clauses:
            anchor = _anchor("clause", cl.id)
            head = f"{cl.id}" + (f" — {cl.title}" if cl.title else "")
            b.append(f'<section class="clause" id="{e(anchor)}"><h3>{e(head)}</h3>')
            if cl.text:
                b.append(f'<p class="kodex" lang="hu">{self.linked_text(cl.text, cl.id)}</p>')
            b.append(f'<p class="note">{e(cl.source)}:{cl.line}'
                     + (f" · untestable: {e(self.untestable[cl.id])}"
                        if cl.id in self.untestable else "") + "</p>")
            cases = self.by_clause.get(cl.id, [])
            if cases:
                b.append(self.verdicts_table(cases))
            elif cl.text:
                b.append('<p class="note">No case in these results has this clause as its '
                         'own.</p>')
            also = self.also.get(cl.id, [])
            if also:
                b.append('<p class="note">Also cited by: ' + ", ".join(
                    f'<a href="{e(self.case_href(cid))}">{e(cid)}</a>' for cid in also) + "</p>")
            b.append("</section>")
        self.write(title_page(sec), section_label(sec, title), "".join(b))

    def linked_text(self, text: str, own: str | None = None, up: str = "") -> str:
        """A clause's text, escaped, its cross-references to other clauses as the Kódex writes
        them (``(4.15.1.)``, ``a 134.4. pont``) linked to those clauses."""
        out, pos = [], 0
        for m in _XREF_RE.finditer(text):
            cid = m.group(1)
            if cid == own or self.catalog is None or cid not in self.catalog:
                continue
            cl = self.catalog.get(cid)
            out.append(e(text[pos:m.start()]))
            out.append(f'<a class="xref" href="{e(up + _href(title_page(cl.section), "clause", cid))}" '
                       f'title="{e(self.catalog.label(cid))}">{e(m.group(0))}</a>')
            pos = m.end()
        out.append(e(text[pos:]))
        return "".join(out)

    def case_target(self, cid: str) -> str:
        """Where a link to a case goes: its own page, or (built without them) its row on its
        title's page."""
        return case_page(cid) if self.case_pages else self.case_href(cid)

    def case_href(self, cid: str) -> str:
        clause = str(self.case_info[cid].get("clause") or "")
        sec = _section_of(clause, self.catalog) if clause else ""
        if sec not in self.known_sections or (self.catalog is not None
                                              and clause not in self.catalog):
            return _href("unknown.html", "case", cid)
        return _href(title_page(sec), "case", cid)

    def unknown(self) -> None:
        ids = self.by_section["unknown"]
        body = ('<p class="note">These cases cite a clause the clause catalog does not know '
                '(or cite none).</p>' + self.verdicts_table(ids))
        self.write("unknown.html", "Cases citing clauses not in the catalog", body)

    # ------------------------------------------------------------ registers
    def clause_link(self, cid: str, up: str = "") -> str:
        cl = self.catalog.get(cid) if self.catalog is not None else None
        if cl is None:
            return e(_cut(cid, 120))
        return f'<a href="{e(up + _href(title_page(cl.section), "clause", cid))}">{e(cid)}</a>'

    def registers(self) -> None:
        b = [f"<h2>Untestable clauses ({len(self.untestable)})</h2>",
             "<table><tr><th>clause</th><th>title</th><th>reason</th></tr>"]
        for cid, reason in sorted(self.untestable.items(), key=lambda kv: _natural(kv[0])):
            cl = self.catalog.get(cid) if self.catalog is not None else None
            b.append(f"<tr><td>{self.clause_link(cid)}</td>"
                     f"<td>{e(cl.title or cl.section_title if cl else '')}</td>"
                     f"<td>{e(reason)}</td></tr>")
        b.append(f"</table><h2>Conflicts register ({len(self.conflicts)})</h2>")
        for c in self.conflicts:
            clauses = ", ".join(self.clause_link(str(x)) for x in c.get("clauses") or [])
            b.append(f'<section class="clause" id="{e(_anchor("conflict", c.get("id")))}">'
                     f'<h3>{e(c.get("id"))}</h3><p>{clauses}'
                     + (f' · {e(c.get("kind"))}' if c.get("kind") else "")
                     + f'</p><p>{e(c.get("summary"))}</p>')
            readings = c.get("readings")
            if isinstance(readings, dict) and readings:
                b.append("<table><tr><th>reading</th><th>clause</th><th>text</th>"
                         "<th>effect</th><th>ruleset</th></tr>")
                for name, r in readings.items():
                    r = r if isinstance(r, dict) else {"text": r}
                    b.append(f"<tr><td>{e(name)}{' (default)' if name == c.get('default') else ''}"
                             f"</td><td>{self.clause_link(str(r.get('clause', '')))}</td>"
                             f'<td lang="hu">{e(r.get("text"))}</td><td>{e(r.get("effect"))}</td>'
                             f"<td>{e(r.get('ruleset'))}</td></tr>")
                b.append("</table>")
            b.append(f'<p class="note">option {e(c.get("option"))}; default '
                     f'{e(c.get("default"))}. {e(c.get("why"))}</p></section>')
        self.write("registers.html", "Untestable and conflicts registers", "".join(b))

    # ---------------------------------------------------------------- prove
    def prove_page(self) -> None:
        p = self.prove
        b = [f'<p class="note">schema {e(p.get("schema"))} · policies '
             f'{e(", ".join(map(str, p.get("policies") or [])))} · exit code '
             f'{e(p.get("exit_code"))} · {e(p.get("elapsed_ms"))} ms</p>']
        rows = p.get("rows") or []
        if rows:
            b.append("<h2>Properties</h2><table><tr><th>property</th><th>policy</th>"
                     "<th>verdict</th><th>status</th><th>ms</th><th>detail</th></tr>")
            for r in rows:
                if not isinstance(r, dict):
                    continue
                st = str(r.get("status", ""))
                b.append(f"<tr><td>{e(r.get('property'))}</td><td>{e(r.get('policy'))}</td>"
                         f"<td>{e(r.get('verdict'))}</td><td class=\"{e(_status_class(st))}\">"
                         f"{e(st)}</td><td>{e(r.get('ms'))}</td>"
                         f'<td class="diff">{e(_text(r.get("detail")))}</td></tr>')
            b.append("</table>")
        fr = p.get("flat_reading")
        if isinstance(fr, dict):
            b.append(f"<h2>Flat reading</h2><p>{e(fr.get('finding'))}</p>")
            for cid, q in (fr.get("quotes") or {}).items():
                b.append(f'<p>{self.clause_link(cid)}</p><p class="kodex" lang="hu">{e(q)}</p>')
        gaps = p.get("gaps") or []
        b.append(f"<h2>Gaps ({len(gaps)})</h2>")
        if gaps:
            b.append("<table><tr><th>id</th><th>policy</th><th>clauses</th><th>why</th>"
                     "<th>known</th></tr>")
            for g in gaps:
                if not isinstance(g, dict):
                    continue
                b.append(f"<tr><td>{e(g.get('id'))}</td><td>{e(g.get('policy'))}</td><td>"
                         + ", ".join(self.clause_link(str(x)) for x in g.get("clauses") or [])
                         + f"</td><td>{e(g.get('why'))}</td><td>{e(g.get('known'))}</td></tr>")
            b.append("</table>")
        rest = {k: v for k, v in p.items() if k not in
                ("schema", "policies", "rows", "flat_reading", "gaps", "exit_code", "elapsed_ms")}
        if rest:
            b.append('<h2>Further results</h2><pre class="diff">'
                     + e(json.dumps(rest, ensure_ascii=False, indent=1)[:20000]) + "</pre>")
        self.write("prove.html", "kodex prove", "".join(b))

    # ------------------------------------------------------------- strength
    def strength_scored(self) -> bool:
        """True when there are strength results with at least one scored mutant."""
        s = self.strength
        return bool(s) and bool((s.get("overall") or {}).get("scored"))

    def strength_summary(self) -> str:
        """One line for the overview: the score, or a loud note that there is none."""
        if not self.strength_scored():
            what = "NO STRENGTH RESULTS" if self.strength is None else "NO SCORED MUTANTS"
            return f'<span class="fail">{what}: the strength is unknown</span>'
        o = self.strength["overall"]
        return (f'<b>{e(_score(o.get("score")))}</b> of {e(o.get("scored"))} non-equivalent '
                f'mutants killed' + (f' (the corpus alone: {e(_score(o.get("corpus_score")))}; the '
                                     f'rest by the input probes)'
                                     if self.strength.get("probes") else ""))

    def _strength_titles(self) -> dict[str, tuple[str, str]]:
        """A strength title row's id (``"<section> <Hungarian title>"``, properties/strength.py)
        → (section, title) of the catalog."""
        return {f"{sec} {title}".strip(): (sec, title) for sec, title, _p in self.sections}

    def title_strength(self, sec: str, title: str) -> str:
        """The note on a title page: this title's mutation score, linking to the strength page."""
        if not self.strength_scored():
            return ""
        key = f"{sec} {title}".strip()
        for r in self.strength.get("titles") or []:
            if r.get("id") == key:
                probes = (f' ({e(r.get("by_probe"))} of them only by an input probe: the corpus '
                          f'alone {e(_score(r.get("corpus_score")))})'
                          if self.strength.get("probes") and r.get("by_probe") else "")
                return (f'<p class="note">Corpus strength of this title: <a href="'
                        f'{e(_href("strength.html", "strength", sec))}">{e(_score(r.get("score")))}'
                        f'</a> of {e(r.get("scored"))} non-equivalent mutants of model/ killed'
                        + (f'{probes}.</p>' if self.strength.get("probes") else ' by the corpus.</p>'))
        return ""

    def _strength_counts(self, r: dict) -> str:
        return "".join(f'<td class="num">{e(r.get(k, 0))}</td>'
                       for k in ("killed", "timeout", "survived", "equivalent"))

    def _score_cell(self, r: dict) -> str:
        s = r.get("score")
        frac = s / 100 if isinstance(s, (int, float)) and not isinstance(s, bool) else None
        return (f'<td class="cell" style="background:{_colour(frac)}" data-score="'
                f'{e("" if frac is None else s)}">{e(_score(s))}</td>')

    def _mutant_where(self, m: dict) -> str:
        return f"{e(m.get('file'))}:{e(m.get('line'))}"

    def _clause_links(self, ids: Any, shown: int = 3) -> str:
        """The first clauses linked; the rest counted (all of them in the tooltip)."""
        ids = [str(c) for c in (ids or [])]
        out = ", ".join(self.clause_link(c) for c in ids[:shown])
        if len(ids) > shown:
            out += (f' <span class="note" title="{e(", ".join(ids))}">and {len(ids) - shown} '
                    f'more</span>')
        return out

    def strength_page(self) -> None:
        s = self.strength
        b: list[str] = []
        if s is None:
            why = self.strength_note or ("no strength results were given (--strength) or found "
                                         "next to the results files (strength.json)")
            b.append(f'<p class="loud" id="no-strength">NO STRENGTH RESULTS — the corpus strength '
                     f'is UNKNOWN, not 0%: {e(why)}. Run <code>make strength</code> '
                     f'(<code>kodex strength</code>) and build the report again with '
                     f'<code>--strength reports/strength.json</code>.</p>')
            self.write("strength.html", "Corpus strength", "".join(b))
            return
        o = s.get("overall") or {}
        goal = s.get("goal") or {}
        tool = s.get("tool") or {}
        corpus = s.get("corpus") or {}
        t = s.get("timing") or {}
        if not o.get("scored"):
            b.append(f'<p class="loud" id="no-strength">NO SCORED MUTANTS — the strength results '
                     f'hold no mutant that was run and is not equivalent ({e(o.get("mutants", 0))} '
                     f'mutants, {e(o.get("equivalent", 0))} equivalent): the corpus strength is '
                     f'UNKNOWN, not 0%. Run <code>make strength</code> again.</p>')
        else:
            titles = [r for r in s.get("titles") or []]
            low = [r for r in titles if isinstance(r.get("score"), (int, float))
                   and isinstance(goal.get("title"), (int, float)) and r["score"] < goal["title"]]
            met = (isinstance(o.get("score"), (int, float)) and isinstance(goal.get("overall"), (int, float))
                   and o["score"] >= goal["overall"] and not low)
            probes = s.get("probes") or {}
            by_probe = (f', {e(o.get("by_probe"))} of them only by an input probe (the corpus '
                        f'alone: {e(_score(o.get("corpus_score")))})' if probes else "")
            b.append(f'<p><span class="score" id="strength-score">{e(_score(o.get("score")))}</span> '
                     f'of {e(o.get("scored"))} non-equivalent mutants of model/ killed by the corpus'
                     f'{" and the input probes" if probes else " alone"} ({e(o.get("killed"))} by a '
                     f'failing {"case or probe" if probes else "case"}, {e(o.get("timeout"))} by '
                     f'timeout{by_probe}); '
                     f'<span class="fail">{e(o.get("survived"))} survive</span>; '
                     f'{e(o.get("equivalent"))} declared equivalent (not scored).</p>')
            if goal:
                b.append(f'<p>Goal: at least {e(goal.get("overall"))}% overall and no Kódex title '
                         f'below {e(goal.get("title"))}%: <span class="{"pass" if met else "fail"}">'
                         f'{"met" if met else "not met"}</span>'
                         + (f" ({len(low)} titles below)" if low else "") + ".</p>")
        reach = s.get("reachable")
        if s.get("unreachable_files") and isinstance(reach, dict):
            b.append(f'<p class="note">Not reachable from the corpus (the engine never imports '
                     f'them; counted above, not declared equivalent): '
                     f'{e(", ".join(map(str, s["unreachable_files"])))}. Over the files the engine '
                     f'imports: <b>{e(_score(reach.get("score")))}</b> of {e(reach.get("scored"))} '
                     f'({e(reach.get("survived"))} survive).</p>')
        ops = tool.get("operators")
        b.append(f'<p class="note">Mutants by {e(tool.get("name"))} {e(tool.get("version"))}'
                 + (f" ({len(ops)} operators)" if isinstance(ops, list) else "")
                 + f'; the oracle is the corpus ({e(corpus.get("cases"))} cases passing on the '
                 f'reference engine, digest {e(str(corpus.get("digest") or "")[:12])})'
                 + (f', then {e((s.get("probes") or {}).get("count"))} input probes for a mutant '
                    f'the corpus lets through (reports/strength.md lists what only they killed)'
                    if s.get("probes") else " alone") + '. Run: '
                 f'{e(t.get("ran"))} mutants run, {e(t.get("cached"))} from the cache, '
                 f'{e(t.get("workers"))} workers, {e(t.get("total"))} s in all.</p>')
        cases = max((len(r.cases) for r in self.runs), default=0)
        measured = corpus.get("cases")
        if isinstance(measured, int) and cases and measured + len(corpus.get("left_out") or []) != cases:
            b.append(f'<p class="note">These results were measured on a corpus of {measured} '
                     f'passing cases; the results files here hold up to {cases} cases: the corpus '
                     f'may have changed since (run <code>make strength</code> again).</p>')
        problems = s.get("problems") or []
        if problems:
            b.append(f'<h2 class="fail">Problems ({len(problems)})</h2><ul>'
                     + "".join(f"<li>{e(p)}</li>" for p in problems) + "</ul>")
        head = ("<th>score</th><th>killed</th><th>timeout</th><th>survived</th>"
                "<th>equivalent</th></tr>")
        # per title
        names = self._strength_titles()
        from reports.coverage import section_label
        b.append('<h2 id="titles">Per Kódex title (lowest first)</h2>'
                 '<table class="matrix" id="strength-titles"><tr><th>Kódex title</th>' + head)
        for r in s.get("titles") or []:
            rid = str(r.get("id"))
            if rid in names:
                sec, title = names[rid]
                label = (f'<a href="{e(title_page(sec))}" lang="hu">'
                         f'{e(section_label(sec, title))}</a>')
                row_id = f' id="{e(_anchor("strength", sec))}"'
            else:
                label, row_id = f'<span lang="hu">{e(rid)}</span>', ""
            b.append(f'<tr{row_id} data-title="{e(rid)}"><th>{label}</th>{self._score_cell(r)}'
                     f'{self._strength_counts(r)}</tr>')
        b.append("</table>")
        # per clause
        clauses = s.get("clauses") or []
        full = sum(1 for r in clauses if r.get("score") == 100)
        b.append(f'<h2 id="clauses">Per clause (lowest first; {full} of {len(clauses)} at 100%)</h2>'
                 '<table class="matrix" id="strength-clauses"><tr><th>clause</th>' + head)
        for r in clauses:
            cid = str(r.get("id"))
            cl = self.catalog.get(cid) if self.catalog is not None else None
            text = ""
            if cl is not None:
                text = (f' <span class="note" lang="hu">{e(cl.title) if cl.title else e(_clip(cl.text, 80))}'
                        f"</span>")
            b.append(f'<tr data-clause="{e(cid)}"><th>{self.clause_link(cid)}{text}</th>'
                     f'{self._score_cell(r)}{self._strength_counts(r)}</tr>')
        b.append("</table>")
        mutants = [m for m in s.get("mutants") or [] if isinstance(m, dict)]
        # survivors
        surv = sorted((m for m in mutants if m.get("status") == "survived"),
                      key=lambda m: (str(m.get("file")), _int(m.get("line")), str(m.get("operator"))))
        b.append(f'<h2 id="survivors">Surviving mutants ({len(surv)})</h2>')
        if surv:
            b.append('<p class="note">Each a change of model/ that no case notices: a case written '
                     'from the clause text should kill it, or it is declared equivalent with a '
                     'reason (properties/strength_equivalent.yaml).</p>'
                     '<table id="strength-survivors"><tr><th>where</th><th>function</th>'
                     '<th>change</th><th>operator</th><th>clauses</th></tr>')
            for m in surv:
                b.append(f'<tr><td>{self._mutant_where(m)}</td><td>{e(m.get("function"))}</td>'
                         f'<td><code>{e(m.get("change"))}</code></td>'
                         f'<td>{e(str(m.get("operator") or "").split("/")[-1])}</td>'
                         f'<td>{self._clause_links(m.get("clauses"))}</td></tr>')
            b.append("</table>")
        else:
            b.append("<p>None.</p>")
        tos = [m for m in mutants if m.get("status") == "timeout"]
        if tos:
            b.append(f'<h2 id="timeouts">Killed by timeout ({len(tos)})</h2><ul>'
                     + "".join(f"<li>{self._mutant_where(m)} <code>{e(m.get('change'))}</code>: "
                               f"{e(m.get('detail'))}</li>" for m in tos) + "</ul>")
        # equivalents, by reason
        eqs = [m for m in mutants if m.get("status") == "equivalent"]
        by_reason: dict[str, list[dict]] = {}
        for m in eqs:
            by_reason.setdefault(str(m.get("equivalent_reason") or "(no reason given)"), []).append(m)
        b.append(f'<h2 id="equivalents">Equivalent mutants ({len(eqs)})</h2>')
        if eqs:
            b.append('<p class="note">Left out of the score, each with the reason why no input can '
                     'tell it from the engine.</p>')
        for n, (reason, ms) in enumerate(by_reason.items()):
            files = Counter(str(m.get("file")) for m in ms)
            b.append(f'<section class="clause" id="{e(_anchor("equivalent", str(n)))}">'
                     f'<h3>{len(ms)} mutant{"s" if len(ms) != 1 else ""}: {e(reason)}</h3>'
                     f'<p class="note">{e(", ".join(f"{f}: {c}" for f, c in sorted(files.items())))}</p>')
            rows = "".join(f"<tr><td>{self._mutant_where(m)}</td><td><code>{e(m.get('change'))}"
                           f"</code></td></tr>" for m in sorted(
                               ms, key=lambda m: (str(m.get("file")), _int(m.get("line")))))
            table = f"<table><tr><th>where</th><th>change</th></tr>{rows}</table>"
            b.append(table if len(ms) <= 10 else
                     f"<details><summary>the {len(ms)} mutants</summary>{table}</details>")
            b.append("</section>")
        self.write("strength.html", "Corpus strength", "".join(b))

    # ------------------------------------------------------------ amendment
    def amendment_page(self) -> None:
        """``kodex amend --json``: what the amended texts change and what to do next, in words
        (never the JSON's keys); Hungarian text wrapped by words."""
        a = self.amendment
        s = a.get("summary") or {}
        b = []
        files = [f for f in (a.get("new") or {}).get("files") or []
                 if isinstance(f, dict) and f.get("status") != "unchanged"]
        if files:
            b.append("<p>" + "; ".join(
                f"{e(_cut(f.get('name'), 120))}"
                + (f" (amends {e(_cut(f.get('matches'), 120))})" if f.get("matches")
                   and f.get("matches") != f.get("name") else "")
                + f": {e(AMEND_STATUS.get(str(f.get('status')), _cut(f.get('status'), 40)))}"
                for f in files) + "</p>")
        verdict = s.get("needs_review")
        if verdict is not None:
            b.append(f'<p class="{"fail" if verdict else "pass"}">'
                     f'{"Review needed." if verdict else "Nothing cited changed."}</p>')
        b.append('<h2>Summary</h2><table id="amendment-summary">')
        for k, v in s.items():
            if k == "needs_review":
                continue
            label = AMEND_LABELS.get(str(k), str(k).replace("_", " "))
            b.append(f"<tr><th>{e(_cut(label, 120))}</th><td>{e(_cut(_yes_no(v), 60))}</td></tr>")
        b.append("</table>")
        steps = a.get("next_steps") or []
        if steps:
            b.append('<h2 id="next-steps">Next steps</h2><ol>'
                     + "".join(f"<li>{e(_cut(x, 1500))}</li>" for x in steps[:50]) + "</ol>")
        for kind in ("changed", "moved", "removed", "added"):
            rows = [r for r in a.get(kind) or [] if isinstance(r, dict)]
            b.append(f'<h2 id="{kind}">{e(AMEND_SECTIONS[kind])} ({len(rows)})</h2>')
            if not rows:
                continue
            b.append("<table><tr><th>clause</th><th>title</th><th>text / difference</th>"
                     "<th>cases to review</th></tr>")
            for r in rows[:2000]:
                if kind == "moved":
                    cid = (f"{self.clause_link(str(r.get('from')))} → {e(_cut(r.get('to'), 60))}"
                           f'<br><span class="note">{e(_cut(r.get("match"), 20))}</span>')
                else:
                    cid = self.clause_link(str(r.get("id")))
                side = r.get("new") if isinstance(r.get("new"), dict) else r.get("old")
                text = r.get("word_diff") or (side or {}).get("text")
                impact = r.get("impact") or {}
                cases = [c.get("id") for c in impact.get("cases") or [] if isinstance(c, dict)]
                if kind == "added":
                    cov = r.get("covered_by") or {}
                    cases = [c.get("id") if isinstance(c, dict) else c for c in cov.get("cases") or []]
                    if r.get("uncovered"):
                        cases = cases or ["nothing covers it yet"]
                shown = ", ".join(self._case_link(c) for c in cases[:30])
                if len(cases) > 30:
                    shown += f" and {len(cases) - 30} more"
                b.append(f'<tr><td>{cid}</td><td lang="hu">{e(_cut(r.get("title") or r.get("heading"), 200))}'
                         f'</td><td class="diff" lang="hu">{_word_diff_html(_cut(text, 6000))}</td>'
                         f"<td>{shown}</td></tr>")
            b.append("</table>")
        numbers = [r for r in a.get("numbers") or [] if isinstance(r, dict)]
        if numbers:
            b.append('<h2 id="numbers">Numbers of the rulesets and data files</h2><table><tr>'
                     '<th>where</th><th>parameter</th><th>value</th><th>clause</th>'
                     '<th>the clause now says</th></tr>')
            for r in numbers[:200]:
                now = (f"renumbered {_cut(r.get('now_clause'), 40)}" if r.get("renumbered") else
                       ", ".join(_cut(x, 20) for x in r.get("now") or []) or "(no number)")
                b.append(f"<tr><td>{e(_cut(r.get('file'), 200))}:{e(_cut(r.get('line'), 10))}</td>"
                         f"<td><code>{e(_cut(r.get('key'), 80))}</code></td>"
                         f"<td>{e(_cut(r.get('value'), 80))}</td>"
                         f"<td>{self.clause_link(str(r.get('clause')))}</td><td>{e(now)}</td></tr>")
            b.append("</table>")
        old = [r for r in a.get("still_old") or [] if isinstance(r, dict)]
        if old:
            b.append('<h2 id="still-old">Sources that still state the old rule</h2>')
            for r in old[:100]:
                b.append(f'<section class="clause"><h3>{self.clause_link(str(r.get("clause")))} '
                         f'still says {e(_cut(r.get("old"), 20))} where '
                         f'{self.clause_link(str(r.get("changed")))} now says '
                         f'{e(", ".join(_cut(x, 20) for x in r.get("now") or []) or "otherwise")}</h3>'
                         f'<p class="kodex" lang="hu">{e(_cut(r.get("says"), 2000))}</p>'
                         '<p class="note">A conflicts-register entry to start from '
                         '(conformance/conflicts.yaml):</p>'
                         f'<pre class="yaml">{e(_cut(r.get("suggested_conflict"), 6000))}</pre></section>')
        review = [r for r in (a.get("review") or {}).get("cases") or [] if isinstance(r, dict)]
        b.append(f'<h2 id="review">Cases to review ({len(review)})</h2><ul>')
        for r in review[:2000]:
            b.append(f"<li>{self._case_link(r.get('id'))} — {e(_cut(r.get('title'), MAX_TITLE))} "
                     f"<span class=\"note\">{e(_cut(r.get('file'), 200))}:{e(_cut(r.get('line'), 10))} · "
                     f"{e(_cut(', '.join(map(str, r.get('clauses') or [])), 300))}</span></li>")
        b.append("</ul>")
        self.write("amendment.html", "Amendment impact", "".join(b))

    def _case_link(self, cid: Any) -> str:
        cid = str(cid)
        if cid in self.case_info:
            return f'<a href="{e(self.case_target(cid))}">{e(_cut(cid, MAX_TITLE))}</a>'
        return e(_cut(cid, MAX_TITLE))

    # ------------------------------------------------------------ case pages
    def cases_index(self) -> None:
        """Every case with each implementation's outcome; search and filters in the page."""
        runs = self.runs
        b = ['<p class="note">Each case links to its page: its YAML, what was expected and what '
             'each implementation gave, the events with their clauses, the stderr of a program that '
             'failed and the command that runs it again.</p>',
             '<div class="filters" id="filters" hidden><label>search <input type="search" id="q" '
             'placeholder="id, clause, title (accents ignored)"></label>'
             '<label><input type="checkbox" id="failures"> failures only</label>'
             '<label><input type="checkbox" id="differ"> where the implementations differ</label>'
             f'<span><b id="shown">{len(self.case_info)}</b> of {len(self.case_info)} shown</span>'
             '</div>',
             '<table id="cases"><thead><tr><th>case</th><th>clause</th><th>title</th>'
             + "".join(f'<th data-run="{r.index}">{e(r.label)}</th>' for r in runs)
             + "</tr></thead><tbody>"]
        for cid, info in self.case_info.items():
            outcomes = [r.cases[cid]["outcome"] if cid in r.cases else None for r in runs]
            present = [o for o in outcomes if o is not None]
            bad = any(o in BAD or o not in KNOWN for o in present)
            differs = len({("pass" if o in PASSED else o) for o in present}) > 1
            clause = str(info.get("clause") or "")
            cells = "".join(
                '<td class="none">—</td>' if o is None else
                f'<td class="{e(o if o in KNOWN else "unknown")}">{e(SHORT.get(o, _cut(o, 40)))}</td>'
                for o in outcomes)
            b.append(f'<tr data-bad="{int(bad)}" data-differs="{int(differs)}" '
                     f'data-case="{e(_cut(cid, MAX_TITLE))}"><td><a href="{e(self.case_target(cid))}">'
                     f'{e(_cut(cid, MAX_TITLE))}</a></td><td>{self.clause_link(clause)}</td>'
                     f'<td>{e(_cut(info.get("title"), MAX_TITLE))}</td>{cells}</tr>')
        b.append("</tbody></table>")
        self.write("cases.html", "Cases", "".join(b), script=FILTER_SCRIPT)

    def case_detail(self, cid: str) -> None:
        """The page of one case (``cases/…``)."""
        up = "../"
        info = self.case_info[cid]
        clause = str(info.get("clause") or "")
        cl = self.catalog.get(clause) if self.catalog is not None else None
        definition = self.definitions.get(cid)
        b = [f'<p><b>{e(_cut(info.get("title"), MAX_TITLE))}</b></p>']
        head = f'<p>clause {self.clause_link(clause, up)}'
        if cl is not None:
            head += f' — <span lang="hu">{e(self.catalog.label(clause).split(" — ", 1)[-1])}</span>'
        also = [str(a) for a in (info.get("also") or [])][:20]
        if also:
            head += " · also " + ", ".join(self.clause_link(a, up) for a in also)
        b.append(head + "</p>")
        if cl is not None and cl.text:
            b.append(f'<p class="kodex" lang="hu">{self.linked_text(cl.text, clause, up)}</p>')
        where = f"{info.get('file')}:{info.get('line')}" if info.get("file") else ""
        # each implementation's verdict
        b.append('<h2>Verdicts</h2><table class="verdicts-table"><tr><th>implementation</th>'
                 '<th>outcome</th><th>ruleset</th><th>time</th><th>detail</th></tr>')
        for run in self.runs:
            case = run.cases.get(cid)
            if case is None:
                b.append(f'<tr><td>{e(run.label)}</td><td class="none" colspan="4">not in this '
                         'run</td></tr>')
                continue
            o = str(case.get("outcome"))
            ms = case.get("duration_ms")
            why = ""
            if isinstance(case.get("unsupported"), list) and case["unsupported"]:
                why = ('<br>skipped for: ' + ", ".join(f"<code>{e(_cut(u, 100))}</code>"
                                                        for u in case["unsupported"][:10]))
            b.append(f"<tr><td>{e(run.label)}</td><td>{_verdict(case)}{why}</td>"
                     f"<td>{e(_cut(case.get('ruleset'), 60))}</td>"
                     f"<td>{e(f'{ms:.1f} ms' if isinstance(ms, (int, float)) else '')}</td>"
                     f"<td>{self.stderr_excerpt(run, cid, o)}</td></tr>")
        b.append("</table>")
        # expected and actual
        b.append("<h2>Expected and actual</h2>")
        b.append(self.expected_actual(cid, definition))
        # the case as written
        b.append(f"<h2>The case</h2><p class=\"note\">{e(_cut(where, MAX_TITLE))}</p>")
        text = self.case_yaml(cid, definition)
        b.append(f'<pre class="yaml">{e(text)}</pre>' if text else
                 '<p class="note">The case file is not here (it is read from the path in the '
                 'results file).</p>')
        # the events
        b.append(self.events_html(cid, definition, up))
        # run it again
        b.append(self.rerun(cid))
        self.write(case_page(cid), f"Case {_cut(cid, 120)}", "".join(b))

    def expected_actual(self, cid: str, definition) -> str:
        b = []
        rows = []
        for run in self.runs:
            case = run.cases.get(cid)
            d = case.get("difference") if case else None
            if isinstance(d, dict):
                rows.append(f"<tr><td>{e(run.label)}</td><td><code>{e(_cut(d.get('path') or '/', 200))}"
                            f"</code></td><td class=\"exp\"><code>{e(_json_short(d.get('expected'), 600))}"
                            f"</code></td><td class=\"act\"><code>{e(_json_short(d.get('actual'), 600))}"
                            "</code></td></tr>")
        if rows:
            b.append('<p class="note">The first difference each implementation reported (its '
                     'results file holds no more):</p><table><tr><th>implementation</th><th>where</th>'
                     '<th>expected</th><th>actual</th></tr>' + "".join(rows) + "</table>")
        ref = self.reference(cid, definition)
        if ref is None:
            if not rows:
                b.append('<p class="note">No implementation reported a difference.</p>')
            return "".join(b)
        if "error" in ref:
            b.append(f'<p class="fail">The reference engine cannot run it now: {e(_cut(ref["error"], 400))}</p>')
            return "".join(b)
        diffs = ref["differences"]
        if diffs:
            b.append(f'<p>The reference engine (ruleset {e(ref["ruleset"])}) does not meet '
                     f'{len(diffs)} expectation{"s" if len(diffs) != 1 else ""} of the case as it is '
                     'now:</p><table><tr><th>where</th><th>expected</th><th>the reference engine'
                     '</th><th>note</th></tr>')
            for d in diffs[:50]:
                b.append(f"<tr><td><code>{e(_cut(d['path'] or '/', 200))}</code></td>"
                         f"<td class=\"exp\"><code>{e(_json_short(d['expected'], 600))}</code></td>"
                         f"<td class=\"act\"><code>{e(_json_short(d['actual'], 600))}</code></td>"
                         f"<td>{e(_cut(d.get('message'), 300))}</td></tr>")
            b.append("</table>")
        else:
            b.append(f'<p class="pass">The reference engine (ruleset {e(ref["ruleset"])}) meets '
                     f'every expectation of the case ({ref["checked"]} '
                     f'field{"s" if ref["checked"] != 1 else ""} of <code>then</code>).</p>')
        return "".join(b)

    def events_html(self, cid: str, definition, up: str) -> str:
        ref = self.reference(cid, definition)
        if ref is None or "error" in ref:
            return ""
        b = [f'<h2>Events</h2><p class="note">What the reference engine does (ruleset '
             f'{e(ref["ruleset"])}), each event with the clause that produced it '
             f'(<code>kodex explain -k</code> shows it step by step).</p>']
        if ref["refused"]:
            r = ref["refused"]
            step = r.get("step")
            b.append(f'<p class="fail">step {e(step + 1 if isinstance(step, int) else step)} refused under '
                     f'{self.clause_link(str(r.get("clause")), up)}: {e(_cut(r.get("message"), 400))}</p>')
        if not ref["events"]:
            b.append('<p class="note">No event.</p>')
            return "".join(b)
        b.append('<ol class="events">')
        for ev in ref["events"][:400]:
            fields = " ".join(f"{k}={_json_short(v, 120)}" for k, v in ev.items()
                              if k not in ("event", "clause", "clauses"))
            named = list(ev.get("clauses") or []) or ([ev["clause"]] if ev.get("clause") else [])
            why = "; ".join(f'{self.clause_link(c, up)} <span lang="hu">'
                            f'{e(self.catalog.label(c).split(" — ", 1)[-1])}</span>' for c in named)
            b.append(f'<li><b>{e(ev.get("event"))}</b> {e(fields)}'
                     + (f' <span class="why">← {why}</span>' if why else "") + "</li>")
        if len(ref["events"]) > 400:
            b.append(f"<li>… {len(ref['events']) - 400} more</li>")
        b.append("</ol>")
        return "".join(b)

    def rerun(self, cid: str) -> str:
        q = shlex.quote(str(cid))
        lines = []
        for run in self.runs:
            case = run.cases.get(cid)
            if case is None:
                continue
            rs = case.get("ruleset")
            extra = f" --ruleset {shlex.quote(str(rs))}" if rs and rs != "kodex" and \
                isinstance(rs, str) and len(rs) < 80 else ""
            if run.impl.get("in_process") or run.full_name == REFERENCE_NAME:
                cmd = f"kodex run -k {q}{extra}"
            else:
                cmd = f'kodex run -k {q}{extra} --impl "<the command of {run.name}>"'
            if cmd not in lines:
                lines.append(cmd)
        lines.append(f"kodex explain -k {q}")
        return ('<h2>Run it again</h2><div class="rerun">'
                + "".join(f"<code>{e(_cut(x, 600))}</code>" for x in lines) + "</div>")

    def stderr_excerpt(self, run: "Run", cid: str, outcome: str) -> str:
        """The message and traceback of a case that did not pass, and for a program that erred,
        hung or was not run, the lines of the run's stderr log that name the case (else the
        log's last lines)."""
        case = run.cases.get(cid) or {}
        bits = []
        if case.get("traceback") and outcome not in PASSED:
            bits.append(f'<details><summary>traceback</summary><pre class="diff">'
                        f'{e(_cut(_text(case["traceback"]), 3000))}</pre></details>')
        if outcome in ("error", "timeout", "not_run"):
            log, lines = self.stderr_log(run)
            if log is not None:
                mine = [ln for ln in lines if str(cid) in ln][-20:]
                shown = mine or lines[-15:]
                what = ("its stderr lines naming this case" if mine else
                        "the last lines of its stderr (the log is the run's, not the case's)")
                bits.append(f'<details><summary>{e(what)}: {e(_cut(log, 200))}</summary>'
                            f'<pre class="diff">{e(_cut(chr(10).join(shown), 4000))}</pre></details>')
        return "".join(bits)

    def stderr_log(self, run: "Run") -> tuple[str | None, list[str]]:
        """The run's stderr log beside its results file (``kodex run --json FILE`` keeps
        ``FILE.stderr.log``): its last 64 KB, as lines."""
        if run.index in self._logs:
            return self._logs[run.index]
        found: tuple[str | None, list[str]] = (None, [])
        if not isinstance(run.data, dict) or str(run.path).startswith("run "):
            self._logs[run.index] = found
            return found
        p = Path(run.path)
        log = p.with_name(p.stem + ".stderr.log")
        try:
            if log.is_file():
                with open(log, "rb") as fh:
                    fh.seek(0, os.SEEK_END)
                    size = fh.tell()
                    fh.seek(max(0, size - 65536))
                    text = fh.read(65536).decode("utf-8", "replace")
                found = (str(log), text.splitlines()[-400:])
        except OSError:
            pass
        self._logs[run.index] = found
        return found

    def case_yaml(self, cid: str, definition) -> str:
        """The case as its file writes it (from its line to the next case's), at most 300 lines."""
        if definition is None:
            return ""
        lines = _file_lines(str(definition.file))
        if not lines:
            return ""
        start = max(definition.line - 1, 0)
        ends = [c.line - 1 for c in self.definitions_by_file.get(str(definition.file), [])
                if c.line > definition.line]
        end = min(ends) if ends else len(lines)
        block = lines[start:end]
        while block and (not block[-1].strip() or block[-1].lstrip().startswith("#")):
            block.pop()
        if len(block) > 300:
            block = block[:300] + [f"# … {len(block) - 300} more lines"]
        return "\n".join(block)

    def reference(self, cid: str, definition) -> dict | None:
        """What the reference engine does with the case as it is now (cached per process)."""
        if definition is None:
            return None
        ruleset = None
        for run in self.runs:
            rs = (run.cases.get(cid) or {}).get("ruleset")
            if isinstance(rs, str):
                ruleset = rs
                break
        return _reference_run(definition, ruleset)

    # ----------------------------------------------------------------- diff
    def _diff_pairs(self) -> list[tuple[tuple[int, int], dict]]:
        from reports.diff import compare
        pairs = []
        last: dict[str, int] = {}
        for run in self.runs:
            if run.full_name in last:
                i = last[run.full_name]
                old = self.runs[i]
                pairs.append(((i, run.index), compare(old.data, run.data, self.catalog,
                                                      old.path, run.path)))
            last[run.full_name] = run.index
        return pairs

    def diff_page(self, pair: tuple[int, int], d: dict) -> None:
        i, j = pair
        old, new = self.runs[i], self.runs[j]
        reg = [c for c in d["changed"] if c["kind"] == "regression"]
        fix = [c for c in d["changed"] if c["kind"] == "fix"]
        lost = [c for c in d["changed"] if c["kind"] in ("not_implemented", "not_run")]
        b = [f"<p>Run {i + 1}: {e(old.label)} — {e(old.path)}<br>Run {j + 1}: {e(new.label)} — "
             f"{e(new.path)}</p>",
             f'<p><span class="fail">{len(reg)} regressions</span> · <span class="pass">'
             f'{len(fix)} fixes</span> · <span class="skip">{len(lost)} passes lost without a '
             f'verdict (now skipped or not run)</span> · '
             f'{len(d["changed"]) - len(reg) - len(fix) - len(lost)} other changes'
             f' · {len(d["added"])} added · {len(d["removed"])} removed</p>',
             "<h2>Totals</h2><table><tr><th>outcome</th><th>before</th><th>after</th>"
             "<th>delta</th></tr>"]
        for k, t in d["totals"].items():
            if t["old"] or t["new"]:
                b.append(f"<tr><td>{e(k)}</td><td>{t['old']}</td><td>{t['new']}</td>"
                         f"<td>{t['delta']:+d}</td></tr>")
        b.append("</table><h2>Changed cases</h2>")
        if d["changed"]:
            b.append("<table><tr><th>case</th><th>clause</th><th>before</th><th>after</th>"
                     "<th>kind</th></tr>")
            order = {"regression": 0, "not_implemented": 1, "not_run": 2, "change": 3, "fix": 4}
            for c in sorted(d["changed"], key=lambda c: order.get(c["kind"], 5)):
                b.append(f"<tr><td>{self._case_link(c['case_id'])}<br>{e(c.get('title'))}</td>"
                         f"<td>{self.clause_link(str(c.get('clause')))}</td>"
                         f'<td class="{e(c["old"])}">{e(c["old"])}</td>'
                         f'<td class="{e(c["new"])}">{e(c["new"])}</td>'
                         f'<td class="{"fail" if c["kind"] == "regression" else ""}">'
                         f"{e(c['kind'])}</td></tr>")
            b.append("</table>")
        else:
            b.append("<p>No case changed its outcome.</p>")
        for kind in ("added", "removed"):
            if d[kind]:
                b.append(f"<h2>{kind.capitalize()} cases ({len(d[kind])})</h2><ul>"
                         + "".join(f"<li>{self._case_link(c['case_id'])} ({e(c['outcome'])})"
                                   f"</li>" for c in d[kind]) + "</ul>")
        b.append("<h2>Per title</h2><table><tr><th>title</th><th>passed before</th>"
                 "<th>passed after</th><th>delta</th></tr>")
        for r in d["sections"]:
            if r["delta"] or r["old_cases"] != r["new_cases"]:
                b.append(f"<tr><td>{e(r['section'])} {e(r['title'])}</td>"
                         f"<td>{r['old_passed']}/{r['old_cases']}</td>"
                         f"<td>{r['new_passed']}/{r['new_cases']}</td>"
                         f"<td>{r['delta']:+d}</td></tr>")
        b.append("</table>")
        self.write(f"diff-{i + 1}-{j + 1}.html", f"Diff: {old.name}, run {i + 1} → run {j + 1}",
                   "".join(b))


# a clause number in a Kódex text: dotted, the Kódex's own final dot optional (4.15.1., 134.4)
_XREF_RE = re.compile(r"(?<![\w.])(\d{1,3}(?:\.\d{1,2}){1,4})\.?(?![\w])")


def _verdict(case: dict) -> str:
    o = str(case.get("outcome"))
    cls = o if o in KNOWN else "unknown"
    out = f'<span class="{e(cls)}">{e(o)}</span>'
    if o in PASSED:
        return out
    bits = []
    d = case.get("difference")
    if isinstance(d, dict):
        bits.append(f"first difference at {e(d.get('path') or '(top)')}\n"
                    f'<span class="exp">expected: {e(_json_short(d.get("expected")))}</span>\n'
                    f'<span class="act">actual:   {e(_json_short(d.get("actual")))}</span>')
    if case.get("message"):
        bits.append(e(_text(case.get("message"))[:1500]))
    if bits:
        out += '<div class="diff">' + "\n".join(bits) + "</div>"
    return out


REFERENCE_NAME = "hkk-kodex reference"
MAX_CASE_FILES = 500          # distinct case files a report reads (hostile results: bounded)


def _definitions(files: Iterable[Any]) -> dict[str, Any]:
    """The cases of the case files the results name, as they are now: id → conformance.loader
    Case (regular ``*.yaml`` / ``*.yml`` files only, at most MAX_CASE_FILES)."""
    paths = []
    for f in dict.fromkeys(str(x) for x in files if isinstance(x, str) and x):
        p = Path(f)
        if p.suffix in (".yaml", ".yml") and p.is_file():
            paths.append(p)
        if len(paths) >= MAX_CASE_FILES:
            break
    if not paths:
        return {}
    from conformance.loader import load_files
    res = load_files(paths, catalog=False)
    out: dict[str, Any] = {}
    for c in res.cases:
        out.setdefault(str(c.id), c)
    return out


_LINES: dict[tuple, list[str]] = {}
_REFERENCE: dict[tuple, dict] = {}


def _file_lines(path: str) -> list[str]:
    try:
        st = os.stat(path)
    except OSError:
        return []
    key = (path, st.st_mtime_ns, st.st_size)
    if key not in _LINES:
        try:
            _LINES[key] = Path(path).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            _LINES[key] = []
    return _LINES[key]


def _reference_run(case, ruleset: str | None) -> dict:
    """The reference engine on ``case`` (a loaded Case): its events, refusal and every
    difference from its ``then``; kept per process by the case's file, line and ruleset."""
    from conformance.runner import choose_ruleset
    if ruleset is None:
        ruleset = choose_ruleset(case)[0] or "kodex"
    try:
        st = os.stat(case.file)
        stamp = (st.st_mtime_ns, st.st_size)
    except OSError:
        stamp = None
    key = (str(case.file), case.line, str(case.id), ruleset, stamp)
    if key in _REFERENCE:
        return _REFERENCE[key]
    from conformance.matching import all_differences, observed_view, step_verbs
    from conformance.runner import run_reference
    try:
        res = run_reference(case, ruleset)      # in the case's own format (hkk-case/N)
    except Exception as exc:     # an input the engine cannot read, an unknown ruleset …
        out = {"error": f"{type(exc).__name__}: {exc}", "ruleset": ruleset}
    else:
        observed = observed_view(res.state, res.events, res.result, res.refused)
        diffs = all_differences(case.then, observed, len(case.when or []), step_verbs(case.when or []))
        out = {"ruleset": ruleset, "events": res.events, "refused": res.refused,
               "differences": [d.to_dict() for d in diffs],
               "checked": _leaf_count(case.then)}
    if len(_REFERENCE) > 20000:
        _REFERENCE.clear()
    _REFERENCE[key] = out
    return out


def _leaf_count(then: Any) -> int:
    if isinstance(then, dict):
        return sum(1 if k in ("events", "no_events", "error", "result") else _leaf_count(v)
                   for k, v in then.items()) or 0
    return 1


def _score(p: Any) -> str:
    """A mutation score (a percentage, properties/strength.py) as text; none is a dash, never 0%."""
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        return "—"
    return _pct(p / 100)


def _int(v: Any) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def _clip(text: str | None, n: int) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def _text(v: Any) -> str:
    return v if isinstance(v, str) else _json_short(v, 2000)


def _status_class(status: str) -> str:
    s = status.lower()
    if s in ("ok", "proved", "pass", "known"):
        return "pass"
    if s in ("fail", "failed", "counterexample", "error", "new"):
        return "fail"
    return ""


AMEND_SECTIONS = {"changed": "Clauses whose text changed", "moved": "Clauses renumbered",
                  "removed": "Clauses removed", "added": "Clauses added"}
AMEND_LABELS = {
    "changed": "clauses whose text changed", "moved": "clauses renumbered",
    "removed": "clauses removed", "added": "clauses added", "title_changed": "headings changed",
    "uncovered_added": "added clauses no case covers", "new_findings": "new quirks of the text",
    "resolved_findings": "quirks of the text that are gone", "cases_to_review": "cases to review",
    "code_to_review": "places in the engine to review",
    "untestable_to_review": "untestable-register entries to review",
    "conflicts_to_review": "conflicts-register entries to review",
    "numbers_to_review": "ruleset numbers whose clause changed",
    "still_stating_old": "sources that still state the old rule",
}
AMEND_STATUS = {"amended": "amended", "identical": "identical to the vendored text",
                "extra": "a further source", "unchanged": "unchanged"}


def _yes_no(v: Any) -> str:
    return "yes" if v is True else "no" if v is False else str(v)


def _word_diff_html(text: str) -> str:
    """``[-old-]{+new+}`` markers of reports.amendment as <del>/<ins> (escaped)."""
    out, pos = [], 0
    for m in re.finditer(r"\[-(.*?)-\]|\{\+(.*?)\+\}", text, flags=re.S):
        out.append(e(text[pos:m.start()]))
        if m.group(1) is not None:
            out.append(f"<del>{e(m.group(1))}</del>")
        else:
            out.append(f"<ins>{e(m.group(2))}</ins>")
        pos = m.end()
    out.append(e(text[pos:]))
    return "".join(out)


def _natural(s: str):
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"[.:]", str(s))]


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).astimezone().isoformat(timespec="seconds")


# --------------------------------------------------------------------------
# entry point

def build_site(results: Iterable[str | Path | dict], out_dir: str | Path, *,
               prove: str | Path | dict | None = None,
               amendment: str | Path | dict | None = None,
               strength: str | Path | dict | None = None,
               strength_note: str | None = None,
               catalog=None, untestable: dict | None = None,
               conflicts: list | None = None, case_pages: bool = True) -> Path:
    """Write the site for ``results`` (paths or loaded results dicts) into
    ``out_dir``; returns the path of ``index.html``. ``strength`` is a ``kodex
    strength`` report (path or dict); without one the strength page says loudly
    that there are none (``strength_note``: why). ``case_pages=False`` leaves out
    the page of each case (``cases/``: a file per case costs a report of the corpus
    a few seconds of file creation; tests that look only at the other pages leave
    them out). Raises
    :class:`ReportInputError` on unusable input (nothing is written then)."""
    runs = _runs(results)
    if not runs:
        raise ReportInputError("no results file given")
    if prove is not None:
        where = str(prove) if isinstance(prove, (str, Path)) else "the prove results"
        if isinstance(prove, (str, Path)):
            prove = _read_json(prove, "kodex prove JSON")
        check_fields(prove, "prove", where)
    if amendment is not None:
        where = str(amendment) if isinstance(amendment, (str, Path)) else "the amendment"
        if isinstance(amendment, (str, Path)):
            amendment = _read_json(amendment, "amendment JSON (kodex amend --json)")
        if not isinstance(amendment, dict) or amendment.get("schema") != "hkk-amendment/1":
            raise ReportInputError(f"{where}: not an hkk-amendment/1 file")
        check_fields(amendment, "amendment", where)
    if isinstance(strength, (str, Path)):
        strength = load_strength(strength)
    elif strength is not None:
        if not isinstance(strength, dict):
            raise ReportInputError("the strength results are not a JSON object")
        check_strength(strength)
    if catalog is None:
        from conformance.catalog import load_catalog
        catalog = load_catalog()
    if untestable is None or conflicts is None:
        from reports.coverage import load_conflicts, load_untestable
        untestable = load_untestable() if untestable is None else untestable
        conflicts = load_conflicts() if conflicts is None else conflicts
    out = Path(out_dir)
    target = out.resolve() if out.exists() else out.parent.resolve() / out.name
    if target.exists() and not target.is_dir():
        raise ReportInputError(f"{out}: exists and is not a directory (--out)")
    _refuse_out(out, target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        build = Path(tempfile.mkdtemp(prefix=f".{target.name}.building-", dir=target.parent))
    except OSError as exc:                 # an output that cannot be written: exit 5 (hkk-results.md)
        from conformance.atomicio import OutputError
        blocked = next((p for p in target.parents if p.exists() and not p.is_dir()), None)
        reason = f"{blocked} is not a directory (Not a directory)" if blocked else (exc.strerror or str(exc))
        raise OutputError(out, f"cannot build the site beside it: {reason}") from None
    from conformance.atomicio import writing
    try:
        with writing(out):
            os.chmod(build, _site_mode())
        site = _Site(runs, catalog, build, prove, amendment, untestable, conflicts, strength,
                     strength_note, case_pages, shown=out)
        written = site.build()
        with writing(out / MANIFEST):
            (build / MANIFEST).write_text("\n".join(written) + "\n", encoding="utf-8")
        _swap_in(build, target, written, out)
    except BaseException:
        shutil.rmtree(build, ignore_errors=True)
        raise
    return out / "index.html"


def _site_mode() -> int:
    """The permissions of the site directory: those a plain ``mkdir`` gives (0777 less the
    umask), as its pages have theirs — never the 0700 of the temporary directory it is built
    in, which a web server running as another user cannot read (an earlier site's mode is not
    kept: sites built while it was 0700 would have stayed so)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o777 & ~mask


def _swap_in(build: Path, target: Path, written: list[str], out: Path | None = None) -> None:
    """Put the site built in ``build`` (a sibling of ``target``) in ``target``'s place whole:
    the pages of an earlier build go with it (never a site of two builds); what else the
    directory holds (files this report never wrote: not in the earlier build's manifest) is
    moved into the new site first, untouched. Any failure puts every moved file back, leaves
    the earlier site as it was and is an output that cannot be written (``OutputError`` naming
    ``out``, as the user gave it: exit 5)."""
    from conformance.atomicio import OutputError, writing
    if not target.exists():
        with writing(out or target):
            os.rename(build, target)
        return
    ours = set(written) | {MANIFEST, "cases"}
    manifest = target / MANIFEST
    moved: list[str] = []
    try:
        earlier = set(manifest.read_text(encoding="utf-8").split()) if manifest.is_file() else set()
        for entry in sorted(os.scandir(target), key=lambda en: en.name):
            name = entry.name
            if name in ours or name in earlier or name.startswith(f".{target.name}.building-"):
                continue
            os.rename(entry.path, build / name)      # not ours: kept, moved along
            moved.append(name)
        old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
        os.rename(target, old / "site")
        try:
            os.rename(build, target)
        except OSError:
            os.rename(old / "site", target)
            os.rmdir(old)
            raise
    except OSError as exc:
        for name in moved:                           # back where they were
            if (build / name).exists() or (build / name).is_symlink():
                os.rename(build / name, target / name)
        raise OutputError(out or target, f"cannot put the new site in place: "
                          f"{exc.strerror or exc}; the earlier site is unchanged") from None
    shutil.rmtree(old, ignore_errors=True)


def _refuse_out(out: Path, target: Path) -> None:
    """``--out`` must not be the working directory or one above it: the site directory is
    swapped whole."""
    here = Path.cwd().resolve()
    if target == here or target in here.parents:
        raise ReportInputError(f"{out}: the site directory is replaced whole when the report is "
                               "written; give it a directory of its own (--out reports/site), "
                               "not the working directory or one above it")


def command(results: list[str], out_dir: str, prove: str | None = None,
            amendment: str | None = None, console=None, strength: str | None = None,
            no_strength: bool = False) -> int:
    """``kodex report``: 0 when the site is written, 1 when it is written but a
    results file has no case at all (it tested nothing), 2 on unusable input.

    ``strength``: a ``kodex strength`` JSON (an unusable one is unusable input);
    without it the ``strength.json`` next to the results files is used when there
    is one (:func:`find_strength`; one that cannot be used is reported on the
    page and on stderr, the site is still written), unless ``no_strength``."""
    from rich.console import Console
    from rich.text import Text
    console = console or Console(highlight=False)
    err = Console(stderr=True, highlight=False)
    note = None
    strength_data: str | dict | None = strength
    if strength is None and not no_strength:
        found = find_strength(results)
        if found is not None:
            try:
                strength_data = load_strength(found)
                console.print(Text(f"strength results: {found}", style="dim"), soft_wrap=True)
            except ReportInputError as exc:
                note = f"{found} cannot be used: {exc}"
                err.print(Text(f"kodex report: {note}; the strength page says so", style="red"),
                          soft_wrap=True)
    elif no_strength:
        note = "left out (--no-strength)"
    try:
        loaded = []
        for r in results:                  # each results file read once
            data = load_results(r)
            data["_path"] = str(r)
            loaded.append(data)
        index = build_site(loaded, out_dir, prove=prove, amendment=amendment,
                           strength=strength_data, strength_note=note)
    except ReportInputError as exc:
        Console(stderr=True, highlight=False).print(Text(f"kodex report: {exc}", style="red"),
                                                    soft_wrap=True)
        return 2
    console.print(Text(f"report written: {index.resolve()}", style="bold"), soft_wrap=True)
    empty = [d["_path"] for d in loaded if not d["cases"]]
    for r in empty:
        Console(stderr=True, highlight=False).print(Text(
            f"kodex report: {r}: this results file has NO cases: it tested nothing", style="red"),
            soft_wrap=True)
    return 1 if empty else 0
