"""Clause coverage of the corpus, per Kódex title (section) and per part.

Covers :func:`compute`, which joins

* the clause catalog (``conformance.catalog``; any object with iteration in
  document order, ``sections()``, ``in_section()``, ``get()`` and ``in``),
* the corpus cases (a case cites its ``clause`` and every id in ``also``),
* a run's outcomes (``CaseOutcome`` objects or their dicts from a results
  JSON; ``pass`` and ``xpass`` count as passed),
* the untestable registry (:func:`load_untestable`: ``conformance/untestable/
  *.yaml``, each ``entries: [{clause, reason}]``; may be absent),
* the conflicts register (:func:`load_conflicts`: ``conformance/conflicts.yaml``,
  entries ``{id, clauses, summary, readings, option, default, why}``; may be
  absent),

into the coverage data, schema ``hkk-coverage/1``::

    {"schema": "hkk-coverage/1", "generated": ISO time,
     "implementation": {"name", "version", ...}, "ruleset": ...,
     "sections": [{"section", "title", "part", "clauses", "headings",
                   "covered", "untestable", "uncovered", "testable",
                   "percent", "cases", "passed", "register"}, ...],
     "parts":    [{"part", "sections", "clauses", "headings", "covered",
                   "untestable", "uncovered", "testable", "percent",
                   "cases", "passed", "register"}, ...],
     "totals":   {... as a part row, "part": "all"},
     "uncovered": [{"id", "title", "section", "section_title", "part",
                    "source", "line"}, ...],
     "untestable": [{"clause", "reason"}, ...],
     "unknown_citations": [{"clause", "cases": [ids]}, ...],
     "conflicts": [{"id", "clauses", "summary", "readings", "option",
                    "default", "why"}, ...]}

Counting: ``clauses`` are the clauses with non-empty text; ``headings`` (no
text) are counted apart and never as uncovered. A clause is ``covered`` when
at least one case cites it; ``untestable`` when the registry lists it and no
case cites it; ``uncovered`` otherwise. ``testable`` = clauses − untestable;
``percent`` = covered / testable: how much of the Kódex **the corpus** covers,
the same for every implementation. ``register`` counts the entries of the
untestable register among the row's clauses, headings included: the register's
size per seed (part) and in all. ``cases`` counts the distinct cases citing
a clause of the row (headings included); ``passed`` those of them that passed.
Section titles keep the Kódex's Hungarian names.

With a run's outcomes (``kodex coverage --results RUN.json``, ``kodex run
--coverage``) every row also carries what **the implementation** did:
``verdicts`` — {outcome: count} of the cases whose own ``clause`` lies in the
row (the HTML report counts the same way), ``pass_rate`` = (pass + xpass) /
(cases − skip) (None when every case was skipped), and ``clauses_passed`` /
``clauses_percent`` — the covered clauses all of whose citing cases (as
``clause`` or in ``also``) with a verdict passed (at least one), over the
testable clauses. Cases the run
does not contain count as ``not_in_run``. ``run`` in the top level says how
many cases the results hold and ``no_cases`` flags a run without any.

:func:`print_table` / :func:`print_summary` show it with rich;
:func:`write_reports` writes ``coverage.md`` and ``coverage.json``.
"""
from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import Any, Iterable

from conformance.runner import PASSED

SCHEMA = "hkk-coverage/1"
ROOT = Path(__file__).resolve().parents[1]
UNTESTABLE_DIR = ROOT / "conformance" / "untestable"
CONFLICTS_PATH = ROOT / "conformance" / "conflicts.yaml"


# --------------------------------------------------------------------------
# inputs

def _yaml(path: Path) -> Any:
    import yaml

    from conformance.loader import Loader   # the safe loader, LibYAML's where present
    return yaml.load(path.read_text(encoding="utf-8"), Loader=Loader)  # noqa: S506 - safe


def load_untestable(directory: str | Path | None = None) -> dict[str, str]:
    """{clause id: reason} from every ``*.yaml`` under the registry directory."""
    directory = Path(directory) if directory is not None else UNTESTABLE_DIR
    out: dict[str, str] = {}
    if not directory.is_dir():
        return out
    for f in sorted(list(directory.glob("*.yaml")) + list(directory.glob("*.yml"))):
        data = _yaml(f)
        entries = data.get("entries", []) if isinstance(data, dict) else (data or [])
        for e in entries or []:
            if isinstance(e, dict) and e.get("clause") is not None:
                out.setdefault(str(e["clause"]), str(e.get("reason") or ""))
    return out


def load_conflicts(path: str | Path | None = None) -> list[dict]:
    """The entries of the conflicts register (empty when it is absent)."""
    path = Path(path) if path is not None else CONFLICTS_PATH
    if not path.is_file():
        return []
    data = _yaml(path)
    if isinstance(data, dict):
        data = data.get("conflicts", data.get("entries", []))
    return [dict(e) for e in (data or []) if isinstance(e, dict)]


def _outcome_map(outcomes: Iterable | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for oc in outcomes or []:
        if isinstance(oc, dict):
            cid, res = oc.get("case_id"), oc.get("outcome")
        else:
            cid, res = getattr(oc, "case_id", None), getattr(oc, "outcome", None)
        if cid is not None:
            out[str(cid)] = str(res)
    return out


def _cited(case) -> list[str]:
    ids = [str(case.clause)] + [str(a) for a in (case.also or [])]
    return list(dict.fromkeys(ids))


# --------------------------------------------------------------------------
# the computation

def _row(clauses: list, cited: dict[str, set], untestable: dict[str, str],
         passed_ids: set[str], results: dict[str, str] | None = None,
         own: dict[str, set] | None = None) -> dict:
    with_text = [c for c in clauses if (c.text or "").strip()]
    covered = [c for c in with_text if cited.get(c.id)]
    unt = [c for c in with_text if not cited.get(c.id) and c.id in untestable]
    cases: set[str] = set()
    for c in clauses:
        cases |= cited.get(c.id, set())
    testable = len(with_text) - len(unt)
    row = {
        "register": sum(1 for c in clauses if c.id in untestable),
        "clauses": len(with_text),
        "headings": len(clauses) - len(with_text),
        "covered": len(covered),
        "untestable": len(unt),
        "uncovered": len(with_text) - len(covered) - len(unt),
        "testable": testable,
        "percent": round(100.0 * len(covered) / testable, 1) if testable else 100.0,
        "cases": len(cases),
        "passed": len(cases & passed_ids),
        "_cases": cases,
    }
    if results is not None:
        from conformance.runner import pass_rate, tally, verdict_share
        mine: set[str] = set()
        for c in clauses:
            mine |= (own or {}).get(c.id, set())
        verdicts = tally(results.get(cid, "not_in_run") for cid in sorted(mine))
        if not verdicts.get("not_in_run"):
            verdicts.pop("not_in_run", None)
        row["verdicts"] = verdicts
        row["pass_rate"] = pass_rate({k: v for k, v in verdicts.items() if k != "not_in_run"})
        row["verdict_share"] = verdict_share({k: v for k, v in verdicts.items() if k != "not_in_run"},
                                             digits=None)       # rounded once, where it is shown
        ok = 0
        for c in covered:
            judged = [results[cid] for cid in cited.get(c.id, ()) if cid in results
                      and results[cid] not in ("skip",)]
            if judged and all(r in PASSED for r in judged):
                ok += 1
        row["clauses_passed"] = ok
        row["clauses_percent"] = round(100.0 * ok / testable, 1) if testable else None
    return row


def compute(catalog, cases: Iterable, outcomes: Iterable | None = None,
            implementation: dict | None = None, untestable: dict[str, str] | None = None,
            conflicts: list[dict] | None = None, ruleset: str | None = None) -> dict:
    """The coverage data (see the module docstring for its shape).

    ``untestable`` / ``conflicts`` default to the project's registry files.
    """
    from conformance.runner import tally

    cases = list(cases)
    untestable = load_untestable() if untestable is None else dict(untestable)
    conflicts = load_conflicts() if conflicts is None else list(conflicts)
    results = _outcome_map(outcomes) if outcomes is not None else None
    passed_ids = {cid for cid, res in (results or {}).items() if res in PASSED}

    cited: dict[str, set] = {}
    own: dict[str, set] = {}
    unknown: dict[str, list] = {}
    for case in cases:
        own.setdefault(str(case.clause), set()).add(str(case.id))
        for cid in _cited(case):
            cited.setdefault(cid, set()).add(str(case.id))
            if cid not in catalog:
                unknown.setdefault(cid, []).append(str(case.id))

    def row_of(clauses):
        return _row(clauses, cited, untestable, passed_ids, results, own)

    sections, parts_acc = [], {}
    for section, title, part in catalog.sections():
        clauses = list(catalog.in_section(section))
        row = row_of(clauses)
        sections.append({"section": section, "title": title, "part": part, **row})
        acc = parts_acc.setdefault(part, {"part": part, "sections": 0, "_clauses": []})
        acc["sections"] += 1
        acc["_clauses"].extend(clauses)
    parts = []
    for part, acc in parts_acc.items():
        row = row_of(acc["_clauses"])
        parts.append({"part": part, "sections": acc["sections"], **row})
    all_clauses = list(catalog)
    totals = {"part": "all", "sections": len(sections), **row_of(all_clauses)}

    uncovered = [{"id": c.id, "title": c.title, "section": c.section,
                  "section_title": c.section_title, "part": c.part,
                  "source": c.source, "line": c.line}
                 for c in all_clauses
                 if (c.text or "").strip() and not cited.get(c.id) and c.id not in untestable]
    for r in sections + parts + [totals]:
        r.pop("_cases", None)

    impl = dict(implementation or {})
    if not impl:
        impl = {"name": "(no run)"}
    return {
        "schema": SCHEMA,
        "generated": _dt.datetime.now(_dt.timezone.utc).astimezone().isoformat(timespec="seconds"),
        "implementation": impl,
        "ruleset": ruleset,
        "run": None if results is None else {
            "cases": len(results), "no_cases": not results, "verdicts": tally(results.values())},
        "sections": sections,
        "parts": parts,
        "totals": totals,
        "uncovered": uncovered,
        "untestable": [{"clause": k, "reason": v} for k, v in untestable.items()],
        "unknown_citations": [{"clause": k, "cases": v} for k, v in sorted(unknown.items())],
        "conflicts": [_conflict(c) for c in conflicts],
    }


def _conflict(entry: dict) -> dict:
    out = {k: entry.get(k) for k in ("id", "clauses", "summary", "readings", "option",
                                     "default", "why")}
    for k, v in entry.items():  # keep any further fields
        out.setdefault(k, v)
    return out


# --------------------------------------------------------------------------
# output

def _section_label(row: dict) -> str:
    return section_label(row["section"], row.get("title"))


def section_label(section: str, title: str | None) -> str:
    """``4. Alapfogalmak, alapdefiníciók``; ``mk:5.10 Képességek…``; ``7. kiadás …`` (rb7)."""
    s = str(section)
    if s.isdigit():
        return f"{s}. {title}" if title else s
    if s.startswith("mk:"):
        return f"{s} {title}" if title else s
    return title or s


def _part_label(part: str) -> str:
    return f"{part}. rész" if part and all(ch in "IVXLC" for ch in part) else part


def _impl_name(data: dict) -> str:
    """The implementation's name and version, from outside: printable
    (``conformance.terminal.safe_text``: no control character reaches a terminal)."""
    from conformance.terminal import safe_text
    impl = data.get("implementation") or {}
    return safe_text(" ".join(str(x) for x in (impl.get("name"), impl.get("version")) if x))


def print_table(data: dict, console=None, sections: bool = True) -> None:
    """The coverage table (per section, then per part and the total)."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = console or Console()
    run = data.get("run")
    if run is not None:
        _print_run_table(data, console, sections)
        return
    cols = ("clauses", "headings", "covered", "untestable", "uncovered", "percent",
            "cases", "passed", "register")
    if sections:
        t = Table(title=f"Coverage per Kódex title — {escape(_impl_name(data))}")
        t.add_column("section", overflow="fold")
        t.add_column("part")
        for c in cols:
            t.add_column(c, justify="right")
        for r in data["sections"]:
            t.add_row(escape(_section_label(r)), escape(_part_label(r["part"])),
                      *[_cell(r, c) for c in cols])
        console.print(t)
    t = Table(title=f"Coverage per part — {escape(_impl_name(data))}")
    t.add_column("part")
    for c in cols:
        t.add_column(c, justify="right")
    for r in data["parts"]:
        t.add_row(escape(_part_label(r["part"])), *[_cell(r, c) for c in cols])
    tot = data["totals"]
    t.add_row("[bold]all[/]", *[f"[bold]{_cell(tot, c)}[/]" for c in cols])
    console.print(t)
    if data.get("unknown_citations"):
        console.print(f"[yellow]{len(data['unknown_citations'])} cited ids are not in the "
                      f"catalog:[/] " + escape(", ".join(u["clause"]
                                                         for u in data["unknown_citations"])))


VERDICT_COLS = ("pass", "fail", "error", "timeout", "skip", "xfail", "xpass", "not_run",
                "not_in_run")


def _verdict_cols(data: dict) -> list[str]:
    """The outcome columns worth showing: pass, fail, error, skip, xfail always;
    the others when some row has them."""
    rows = data["sections"] + data["parts"] + [data["totals"]]
    shown = []
    for k in VERDICT_COLS:
        if k in ("pass", "fail", "error", "skip", "xfail") or any(
                (r.get("verdicts") or {}).get(k) for r in rows):
            shown.append(k)
    return shown


def _rate(v) -> str:
    return "—" if v is None else f"{100.0 * v:.1f}%"


def _print_run_table(data: dict, console, sections: bool) -> None:
    """Per title: the implementation's own verdicts and pass rate, beside the
    corpus's clause coverage."""
    from rich.markup import escape
    from rich.table import Table

    vcols = _verdict_cols(data)
    name = escape(_impl_name(data) or "?")

    def add(t, label, r, bold=False):
        v = r.get("verdicts") or {}
        cells = [f"{r['covered']}/{r['testable']}", str(r["register"]), str(sum(v.values()))]
        cells += [str(v.get(k, 0)) for k in vcols]
        rate = r.get("pass_rate")
        style = "green" if rate == 1.0 else ("red" if rate is not None and rate < 0.85 else
                                             "yellow" if rate is not None else "dim")
        share = r.get("verdict_share")
        cells += [f"[{style}]{_rate(rate)}[/]",
                  f"[{'yellow' if share is not None and share < 1 else 'default'}]{_rate(share)}[/]",
                  "—" if r.get("clauses_percent") is None else f"{r['clauses_percent']:.1f}%"]
        if bold:
            cells = [f"[bold]{c}[/]" for c in cells]
        t.add_row(label, *cells)

    heads = ["clauses covered", "register", "cases"] + [k.replace("_", " ") for k in vcols] + \
        ["pass rate", "with a verdict", "clauses passed"]
    if sections:
        t = Table(title=f"Per Kódex title — {name}")
        t.add_column("section", overflow="fold")
        for h in heads:
            t.add_column(h, justify="right")
        for r in data["sections"]:
            add(t, escape(_section_label(r)), r)
        console.print(t)
    t = Table(title=f"Per part — {name}")
    t.add_column("part")
    for h in heads:
        t.add_column(h, justify="right")
    for r in data["parts"]:
        add(t, escape(_part_label(r["part"])), r)
    add(t, "all", data["totals"], bold=True)
    console.print(t)
    run = data["run"]
    if run.get("no_cases"):
        console.print("[bold red]NO CASES: the results hold no case; no verdict on the "
                      "implementation[/]")
    else:
        tot = data["totals"]
        console.print(f"[bold]{name}[/]: pass rate {_rate(tot.get('pass_rate'))} of the "
                      f"{run['cases']} cases run "
                      f"({tot.get('verdicts', {}).get('skip', 0)} skipped; "
                      f"{_rate(tot.get('verdict_share'))} with a verdict); the corpus covers "
                      f"{tot['percent']:.1f}% of the testable clauses")


def print_summary(data: dict, console=None) -> None:
    """The per-part table only (for ``kodex run --coverage``)."""
    print_table(data, console, sections=False)


def _cell(row: dict, col: str) -> str:
    v = row.get(col)
    if col == "percent":
        return f"{v:.1f}%"
    return str(v)


def to_markdown(data: dict) -> str:
    impl = _impl_name(data) or "?"
    lines = [f"# Clause coverage — {impl}", "",
             f"Generated {data['generated']}"
             + (f", ruleset `{data['ruleset']}`" if data.get("ruleset") else "") + ".",
             "",
             "A clause is *covered* when at least one case cites it (as `clause` or in "
             "`also`); *untestable* clauses are listed in `conformance/untestable/`; "
             "headings without text are counted apart. *Cases* counts the cases citing "
             "the row's clauses, *passed* those that passed; *register* counts the "
             "untestable register's entries among them (headings included).", ""]
    cols = ("clauses", "headings", "covered", "untestable", "uncovered", "percent",
            "cases", "passed", "register")
    header = "| " + " | ".join(cols) + " |"
    lines += ["## Per part", "", "| part " + header, "|---" * (len(cols) + 1) + "|"]
    for r in data["parts"] + [data["totals"]]:
        lines.append(f"| {_part_label(r['part'])} | " + " | ".join(_cell(r, c) for c in cols)
                     + " |")
    lines += ["", "## Per Kódex title", "", "| section | part " + header,
              "|---" * (len(cols) + 2) + "|"]
    for r in data["sections"]:
        lines.append(f"| {_md(_section_label(r))} | {_part_label(r['part'])} | "
                     + " | ".join(_cell(r, c) for c in cols) + " |")
    if data.get("run") is not None:
        vcols = _verdict_cols(data)
        lines += ["", f"## The implementation's verdicts — {_md(impl)}", ""]
        if data["run"].get("no_cases"):
            lines += ["**NO CASES**: the results hold no case; no verdict on the implementation.",
                      ""]
        lines += ["Per Kódex title, the cases whose own clause lies in it: their outcomes, the "
                  "pass rate (pass + xpass) / (cases − skip), the share of the cases that got a "
                  "verdict (pass, fail, error, timeout, xpass), and the covered clauses all of "
                  "whose cases with a verdict passed.", "",
                  "| section | " + " | ".join(vcols) + " | pass rate | with a verdict | clauses passed |",
                  "|---" * (len(vcols) + 4) + "|"]
        for r in data["sections"] + data["parts"] + [data["totals"]]:
            label = _section_label(r) if "section" in r else _part_label(r["part"])
            v = r.get("verdicts") or {}
            cp = "—" if r.get("clauses_percent") is None else f"{r['clauses_percent']:.1f}%"
            lines.append(f"| {_md(label)} | " + " | ".join(str(v.get(k, 0)) for k in vcols)
                         + f" | {_rate(r.get('pass_rate'))} | {_rate(r.get('verdict_share'))} | {cp} |")
    lines += ["", f"## Uncovered testable clauses ({len(data['uncovered'])})", ""]
    current = None
    for u in data["uncovered"]:
        if u["section"] != current:
            current = u["section"]
            sec = section_label(current, u["section_title"])
            lines += ["", f"### {_md(sec)}", ""]
        lines.append(f"- `{u['id']}`" + (f" {_md(u['title'])}" if u.get("title") else "")
                     + f" ({u['source']}:{u['line']})")
    if data.get("untestable"):
        lines += ["", f"## Untestable ({len(data['untestable'])})", ""]
        for e in data["untestable"]:
            lines.append(f"- `{e['clause']}`: {_md(e['reason'])}")
    if data.get("unknown_citations"):
        lines += ["", "## Cited ids not in the catalog", ""]
        for u in data["unknown_citations"]:
            lines.append(f"- `{u['clause']}`: " + ", ".join(f"`{c}`" for c in u["cases"]))
    if data.get("conflicts"):
        lines += ["", f"## Conflicts between the sources ({len(data['conflicts'])})", ""]
        for c in data["conflicts"]:
            lines += [f"### `{c.get('id')}`", ""]
            if c.get("clauses"):
                lines.append("Clauses: " + ", ".join(f"`{x}`" for x in c["clauses"]))
            if c.get("summary"):
                lines += ["", _md(str(c["summary"]).strip())]
            readings = c.get("readings") or {}
            if isinstance(readings, dict) and readings:
                lines += ["", "Readings:", ""]
                for k, v in readings.items():
                    mark = " **(default)**" if str(k) == str(c.get("default")) else ""
                    if isinstance(v, dict):
                        head = f"- `{k}`{mark}"
                        if v.get("ruleset"):
                            head += f", ruleset `{v['ruleset']}`"
                        if v.get("clause"):
                            head += f", clause `{v['clause']}`"
                        rest = {kk: vv for kk, vv in v.items()
                                if kk not in ("ruleset", "clause", "text")}
                        if rest:
                            head += ": " + _md(_flat(rest))
                        lines.append(head)
                        if v.get("text"):
                            lines.append(f"  > {_md(_flat(v['text']))}")
                    else:
                        lines.append(f"- `{k}`{mark}: {_md(_flat(v))}")
            if c.get("option"):
                lines.append(f"\nOption: `{c['option']}`; default: `{c.get('default')}`")
            elif c.get("default") is not None:
                lines.append(f"\nDefault: `{c.get('default')}`")
            if c.get("why"):
                lines += ["", f"Why: {_md(str(c['why']).strip())}"]
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _flat(v: Any) -> str:
    if isinstance(v, dict):
        return "; ".join(f"{k}: {_flat(x)}" for k, x in v.items())
    if isinstance(v, list):
        return ", ".join(_flat(x) for x in v)
    return " ".join(str(v).split())


def _md(s: str | None) -> str:
    return (s or "").replace("|", "\\|").replace("\n", " ")


def write_reports(data: dict, out_dir: str | Path | None = None) -> tuple[Path, Path]:
    """Write ``coverage.md`` and ``coverage.json`` together (atomically; default
    directory: ``reports/`` of the working directory)."""
    from conformance import atomicio
    out = Path(out_dir) if out_dir is not None else Path("reports")
    md, js = out / "coverage.md", out / "coverage.json"
    return atomicio.write_pair(md, to_markdown(data), js, data)
