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
* ``added`` / ``removed``: cases only in NEW / only in OLD (a case that passed in OLD and
  is not in NEW is a pass lost: ``lost.removed``);
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
     "lost": {"not_implemented": n, "not_run": n, "removed": n},
     "added": [{"case_id", "clause", "title", "outcome"}],
     "removed": [{"case_id", "clause", "title", "outcome"}],
     "sections": [{"section", "title", "old_cases", "new_cases",
                   "old_passed", "new_passed", "delta"}],
     "totals": {outcome: {"old", "new", "delta"}}}

Both files are read with ``conformance.results_io.read_results`` (valid against the
results schema, each case once, totals that agree with the cases: anything else is exit 2
naming the file and the JSON pointer); names and ids from the files are printed through
``conformance.terminal.safe_text``.

Exit status of :func:`main` (``kodex diff``): 0 no case that passed lost its
pass; 1 at least one ``regression``; 3 no regression, but passes were lost
without a verdict: cases that passed are now skipped or not run
(``not_implemented`` / ``not_run``) or are not in NEW at all (``removed``); 2 a
file cannot be read or is not a valid results file.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conformance.runner import OUTCOMES, PASSED

SCHEMA = "hkk-results-diff/1"
KINDS = ("regression", "not_implemented", "not_run", "change", "fix")
EXIT_OK, EXIT_REGRESSION, EXIT_INPUT, EXIT_LOST = 0, 1, 2, 3


def _load(path: str | Path) -> dict:
    from conformance.results_io import read_results
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

    from conformance.runner import tally
    ta = tally(c.get("outcome") for c in a.values())
    tb = tally(c.get("outcome") for c in b.values())
    keys = list(OUTCOMES) + [k for k in list(ta) + list(tb) if k not in OUTCOMES]
    keys = list(dict.fromkeys(keys))
    return {
        "schema": SCHEMA,
        "old": _side(old, old_path), "new": _side(new, new_path),
        "changed": changed, "added": added, "removed": removed,
        "counts": {k: sum(1 for c in changed if c["kind"] == k) for k in KINDS},
        "lost": {"not_implemented": sum(1 for c in changed if c["kind"] == "not_implemented"),
                 "not_run": sum(1 for c in changed if c["kind"] == "not_run"),
                 "removed": sum(1 for c in removed if c["outcome"] in PASSED)},
        "sections": rows,
        "totals": {k: {"old": ta.get(k, 0), "new": tb.get(k, 0),
                       "delta": tb.get(k, 0) - ta.get(k, 0)} for k in keys},
    }


def _natural(s: str):
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in str(s).replace(":", ".").split(".")]


def render(d: dict, console=None) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from conformance.terminal import safe_text

    console = console or Console(highlight=False)

    def who(side):
        impl = d[side].get("implementation") or {}
        name = f"{impl.get('name', '?')} {impl.get('version', '')}".strip()
        return safe_text(f"{name} ({d[side].get('started') or '?'})")

    console.print(Text(f"old: {who('old')}", style="dim"))
    console.print(Text(f"new: {who('new')}", style="dim"))
    styles = {"regression": "bold red", "fix": "bold green", "change": "yellow",
              "not_implemented": "bold yellow", "not_run": "bold magenta"}
    if d["changed"]:
        t = Table(title=f"{len(d['changed'])} cases changed outcome")
        for c in ("case", "clause", "old", "new", "kind"):
            t.add_column(c, overflow="fold")
        for c in sorted(d["changed"], key=lambda c: KINDS.index(c["kind"])):
            st = styles[c["kind"]]
            t.add_row(Text(safe_text(c["case_id"])), Text(safe_text(c["clause"])),
                      Text(safe_text(c["old"])), Text(safe_text(c["new"]), style=st),
                      Text(c["kind"], style=st))
        console.print(t)
    else:
        console.print(Text("no case changed outcome", style="green"))
    for key, label, style in (("added", "new cases", "cyan"), ("removed", "removed cases", "yellow")):
        if d[key]:
            console.print(Text(f"{len(d[key])} {label}:", style=style))
            for c in d[key]:
                console.print(Text(safe_text(f"  {c['case_id']}  ({c['clause']})  {c['outcome']}",
                                             1000)), soft_wrap=True)
    moved = [r for r in d["sections"] if r["delta"] or r["old_cases"] != r["new_cases"]]
    if moved:
        from reports.coverage import section_label
        t = Table(title="per section")
        for c in ("section", "cases old→new", "passed old→new", "delta"):
            t.add_column(c, overflow="fold", justify="left" if c == "section" else "right")
        for r in moved:
            label = section_label(r["section"], r["title"])
            st = "green" if r["delta"] > 0 else ("red" if r["delta"] < 0 else "")
            t.add_row(Text(safe_text(label)), f"{r['old_cases']}→{r['new_cases']}",
                      f"{r['old_passed']}→{r['new_passed']}", Text(f"{r['delta']:+d}", style=st))
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
    regressions = d["counts"]["regression"]
    if regressions:
        console.print(Text(f"{regressions} regression{'s' if regressions != 1 else ''} "
                           "(passed before, fail now)", style="bold red"))
    lost = d["lost"]
    if sum(lost.values()):
        console.print(Text(f"{sum(lost.values())} passes lost without a verdict: "
                           f"{lost['not_implemented']} now skipped (not implemented), "
                           f"{lost['not_run']} not run, {lost['removed']} no longer in the "
                           "results", style="bold yellow"), soft_wrap=True)


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
        from conformance.terminal import safe_text
        print(f"kodex diff: {safe_text(exc, 2000)}", file=sys.stderr)
        return EXIT_INPUT
    from conformance import atomicio
    d = compare(old, new, _catalog(), args.old, args.new)
    if args.json == "-":
        sys.stdout.write(atomicio.json_text(d))
    else:
        render(d)
        if args.json:
            atomicio.write_text(args.json, atomicio.json_text(d))
    return exit_code(d)


def exit_code(d: dict) -> int:
    """0, 1 regression, 3 passes lost to skip, not run or removed (the module docstring)."""
    if d["counts"]["regression"]:
        return EXIT_REGRESSION
    if sum(d["lost"].values()):
        return EXIT_LOST
    return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
