"""Comparing two results files (``hkk-results/1`` or ``/2``, written by ``kodex run --json``).

Covers :func:`compare` and ``kodex diff OLD.json NEW.json [--json [FILE]]``:

* ``changed``: the cases present in both whose outcome differs, each with a
  ``kind``:

  - ``regression`` — passed before (``pass``/``xpass``) and now ``fail``,
    ``error``, ``timeout`` or ``xfail``: the implementation got it wrong;
  - ``not_implemented`` — passed before and now ``skip``: the implementation
    no longer runs it (a verb, ruleset or observation it stopped announcing,
    or a ruleset not selected), no verdict either way;
  - ``not_run`` — passed before and now ``not_run``: the harness gave up on
    the implementation before the case;
  - ``fix`` — passes now and did not before;
  - ``change`` — any other move (``fail`` → ``error``, ``skip`` → ``fail`` …);
* ``added`` / ``removed``: cases only in NEW / only in OLD;
* ``sections``: per section (Kódex title, ``rb7``, ``mk:…`` point; from the
  catalog when it knows the clause, else the first dotted component) the
  number of cases and of passes in each file and the delta;
* ``totals``: per outcome, old, new and delta.

JSON shape (schema ``hkk-results-diff/1``)::

    {"schema": "hkk-results-diff/1",
     "old": {"file", "implementation", "ruleset", "started", "totals"},
     "new": {...},
     "changed": [{"case_id", "clause", "title", "old", "new", "kind"}],
     "counts": {kind: n},
     "warnings": [text],
     "added": [{"case_id", "clause", "title", "outcome"}],
     "removed": [{"case_id", "clause", "title", "outcome"}],
     "sections": [{"section", "title", "old_cases", "new_cases",
                   "old_passed", "new_passed", "delta"}],
     "totals": {outcome: {"old", "new", "delta"}}}

Totals are counted from the cases (a file whose ``totals`` disagree with its
cases is named in ``warnings``).

Exit status of :func:`main` (``kodex diff``): 0 no case that passed lost its
pass; 1 at least one ``regression``; 3 no regression, but cases that passed
are now skipped or not run (``not_implemented`` / ``not_run``: coverage lost
without a verdict); 2 a file cannot be read.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from conformance.runner import OUTCOMES, PASSED

SCHEMA = "hkk-results-diff/1"
KINDS = ("regression", "not_implemented", "not_run", "change", "fix")
EXIT_OK, EXIT_REGRESSION, EXIT_INPUT, EXIT_LOST = 0, 1, 2, 3


def _load(path: str | Path) -> dict:
    from conformance.runner import read_results
    return read_results(path)


def _catalog():
    try:
        from conformance.catalog import load_catalog
        return load_catalog()
    except Exception:
        return None


def section_of(clause: str, catalog=None) -> tuple[str, str]:
    """(section, section title) of a clause id."""
    cl = catalog.get(clause) if catalog is not None and clause else None
    if cl is not None:
        return str(cl.section), str(cl.section_title or "")
    clause = str(clause or "")
    if clause.startswith("rb7:"):
        return "rb7", ""
    if clause.startswith("mk:"):
        comps = clause[3:].split(".")
        return "mk:" + ".".join(comps[:2]), ""
    return clause.split(".")[0], ""


def _by_id(results: dict) -> dict[str, dict]:
    return {str(c.get("case_id")): c for c in results.get("cases", [])}


def _side(results: dict, path) -> dict:
    return {"file": str(path) if path is not None else None,
            "implementation": results.get("implementation"),
            "ruleset": results.get("ruleset"), "started": results.get("started"),
            "totals": results.get("totals")}


def compare(old: dict, new: dict, catalog=None, old_path=None, new_path=None) -> dict:
    a, b = _by_id(old), _by_id(new)
    changed, added, removed = [], [], []
    for cid, nc in b.items():
        oc = a.get(cid)
        if oc is None:
            added.append({"case_id": cid, "clause": nc.get("clause"), "title": nc.get("title"),
                          "outcome": nc.get("outcome")})
            continue
        o, n = oc.get("outcome"), nc.get("outcome")
        if o == n:
            continue
        if o in PASSED and n == "skip":
            kind = "not_implemented"
        elif o in PASSED and n == "not_run":
            kind = "not_run"
        elif o in PASSED and n not in PASSED:
            kind = "regression"
        elif n in PASSED and o not in PASSED:
            kind = "fix"
        else:
            kind = "change"
        changed.append({"case_id": cid, "clause": nc.get("clause"), "title": nc.get("title"),
                        "old": o, "new": n, "kind": kind})
    for cid, oc in a.items():
        if cid not in b:
            removed.append({"case_id": cid, "clause": oc.get("clause"), "title": oc.get("title"),
                            "outcome": oc.get("outcome")})

    sections: dict[str, dict] = {}
    for side, cases in (("old", a), ("new", b)):
        for c in cases.values():
            sec, title = section_of(c.get("clause"), catalog)
            row = sections.setdefault(sec, {"section": sec, "title": title, "old_cases": 0,
                                            "new_cases": 0, "old_passed": 0, "new_passed": 0})
            row[f"{side}_cases"] += 1
            if c.get("outcome") in PASSED:
                row[f"{side}_passed"] += 1
    order = {}
    if catalog is not None:
        try:
            order = {s: i for i, (s, _t, _p) in enumerate(catalog.sections())}
        except Exception:
            order = {}
    rows = sorted(sections.values(), key=lambda r: (order.get(r["section"], len(order)),
                                                    _natural(r["section"])))
    for r in rows:
        r["delta"] = r["new_passed"] - r["old_passed"]

    warnings = []

    def totals(res: dict, cases: dict, label: str) -> dict:
        from conformance.runner import tally, totals_disagree
        if totals_disagree(res):
            warnings.append(f"{label}: the file's totals disagree with its cases; "
                            "the cases are counted")
        return tally(c.get("outcome") for c in cases.values())

    ta, tb = totals(old, a, str(old_path or "old")), totals(new, b, str(new_path or "new"))
    keys = list(OUTCOMES) + [k for k in list(ta) + list(tb) if k not in OUTCOMES]
    keys = list(dict.fromkeys(keys))
    return {
        "schema": SCHEMA,
        "old": _side(old, old_path), "new": _side(new, new_path),
        "changed": changed, "added": added, "removed": removed,
        "counts": {k: sum(1 for c in changed if c["kind"] == k) for k in KINDS},
        "warnings": warnings,
        "sections": rows,
        "totals": {k: {"old": ta.get(k, 0), "new": tb.get(k, 0),
                       "delta": tb.get(k, 0) - ta.get(k, 0)} for k in keys},
    }


def _natural(s: str):
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in str(s).replace(":", ".").split(".")]


def render(d: dict, console=None) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    console = console or Console(highlight=False)

    def who(side):
        impl = d[side].get("implementation") or {}
        return f"{impl.get('name', '?')} {impl.get('version', '')}".strip() + \
            f" ({d[side].get('started') or '?'})"

    console.print(Text(f"old: {who('old')}", style="dim"))
    console.print(Text(f"new: {who('new')}", style="dim"))
    styles = {"regression": "bold red", "fix": "bold green", "change": "yellow",
              "not_implemented": "bold yellow", "not_run": "bold magenta"}
    for w in d.get("warnings") or []:
        console.print(Text(f"warning: {w}", style="bold yellow"), soft_wrap=True)
    if d["changed"]:
        t = Table(title=f"{len(d['changed'])} cases changed outcome")
        for c in ("case", "clause", "old", "new", "kind"):
            t.add_column(c, overflow="fold")
        for c in sorted(d["changed"], key=lambda c: KINDS.index(c["kind"])):
            st = styles[c["kind"]]
            t.add_row(escape(c["case_id"]), escape(str(c["clause"])), c["old"],
                      f"[{st}]{c['new']}[/]", f"[{st}]{c['kind']}[/]")
        console.print(t)
    else:
        console.print(Text("no case changed outcome", style="green"))
    for key, label, style in (("added", "new cases", "cyan"), ("removed", "removed cases", "yellow")):
        if d[key]:
            console.print(Text(f"{len(d[key])} {label}:", style=style))
            for c in d[key]:
                console.print(Text(f"  {c['case_id']}  ({c['clause']})  {c['outcome']}"),
                              soft_wrap=True)
    moved = [r for r in d["sections"] if r["delta"] or r["old_cases"] != r["new_cases"]]
    if moved:
        t = Table(title="per section")
        for c in ("section", "cases old→new", "passed old→new", "delta"):
            t.add_column(c, overflow="fold", justify="left" if c == "section" else "right")
        for r in moved:
            from reports.coverage import section_label
            label = section_label(r["section"], r["title"])
            st = "green" if r["delta"] > 0 else ("red" if r["delta"] < 0 else "")
            t.add_row(escape(label), f"{r['old_cases']}→{r['new_cases']}",
                      f"{r['old_passed']}→{r['new_passed']}",
                      f"[{st}]{r['delta']:+d}[/]" if st else f"{r['delta']:+d}")
        console.print(t)
    tot = Text("totals: ")
    first = True
    for k, v in d["totals"].items():
        if not (v["old"] or v["new"]):
            continue
        if not first:
            tot.append(", ")
        first = False
        tot.append(f"{k} {v['old']}→{v['new']}")
        if v["delta"]:
            tot.append(f" ({v['delta']:+d})", style="bold")
    console.print(tot)
    regressions = sum(1 for c in d["changed"] if c["kind"] == "regression")
    if regressions:
        console.print(Text(f"{regressions} regression{'s' if regressions != 1 else ''} "
                           "(passed before, fail now)", style="bold red"))
    lost = [c for c in d["changed"] if c["kind"] in ("not_implemented", "not_run")]
    if lost:
        skipped = sum(1 for c in lost if c["kind"] == "not_implemented")
        console.print(Text(f"{len(lost)} passes lost without a verdict: {skipped} now skipped "
                           f"(not implemented), {len(lost) - skipped} not run", style="bold yellow"))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="kodex diff", description="compare two results JSON files")
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("--json", metavar="FILE", nargs="?", const="-",
                   help="write the comparison as JSON (to FILE, or stdout)")
    try:
        args = p.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0) if not isinstance(exc.code, str) else 2
    try:
        old, new = _load(args.old), _load(args.new)
    except (OSError, ValueError) as exc:
        print(f"kodex diff: {exc}", file=sys.stderr)
        return EXIT_INPUT
    d = compare(old, new, _catalog(), args.old, args.new)
    if args.json == "-":
        sys.stdout.write(json.dumps(d, ensure_ascii=False, indent=2) + "\n")
    else:
        render(d)
        if args.json:
            from conformance import atomicio
            atomicio.write_text(args.json, json.dumps(d, ensure_ascii=False, indent=2) + "\n")
    return exit_code(d)


def exit_code(d: dict) -> int:
    """0, 1 regression, 3 passes lost to skip / not run (see the module docstring)."""
    kinds = {c["kind"] for c in d["changed"]}
    if "regression" in kinds:
        return EXIT_REGRESSION
    if kinds & {"not_implemented", "not_run"}:
        return EXIT_LOST
    return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
