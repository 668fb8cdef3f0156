"""``kodex run --compare-rulesets``: which cases' outcome depends on the ruleset (the reading).

Where the Kódex contradicts itself, the reading is a ruleset option (conformance/conflicts.yaml);
a case written for one reading fails under another, and that failure is a reading difference,
not a fault of the implementation. :func:`compare` runs the selected cases under every ruleset
(a case that names ``rulesets`` only under those) and lists the cases whose outcome is not the
same under all of them, with the outcome under each ruleset and the readings the rulesets set
differently. The reference engine is run in-process, or an implementation through the protocol
(``--impl``), once per ruleset.

JSON (``--json FILE``), schema ``hkk-ruleset-comparison/1``::

    {"schema", "implementation", "rulesets": [names], "readings": {ruleset: {option: value}},
     "cases": N, "same": N, "depends": [{"case_id", "clause", "title", "file", "line",
                                          "outcomes": {ruleset: outcome}, "first_difference":
                                          {ruleset: {...}}}],
     "skipped_everywhere": [case ids]}
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

SCHEMA = "hkk-ruleset-comparison/1"


def readings_of(name: str) -> dict[str, str]:
    from model.ruleset import load_ruleset
    r = load_ruleset(name)
    return {**{f"readings.{k}": v for k, v in r.readings.items()},
            "priority_policy": r.priority_policy}


def compare(cases: Iterable, rulesets: list[str], run: Callable[[list, str], Any]) -> dict:
    """``run(cases, ruleset)`` → a RunReport (conformance.runner.run_cases with the options of
    the command). The cases whose outcomes differ between the rulesets they ran under."""
    cases = list(cases)
    per: dict[str, dict[str, Any]] = {c.id: {} for c in cases}
    implementation = None
    for name in rulesets:
        report = run(cases, name)
        implementation = implementation or report.implementation
        for oc in report.outcomes:
            per[oc.case_id][name] = oc
    depends, skipped = [], []
    same = 0
    for case in cases:
        ran = {n: oc for n, oc in per[case.id].items() if oc.outcome not in ("skip", "not_run")}
        if not ran:
            skipped.append(case.id)
            continue
        verdicts = {n: ("pass" if oc.outcome in ("pass", "xpass") else oc.outcome)
                    for n, oc in ran.items()}
        if len(set(verdicts.values())) == 1:
            same += 1
            continue
        depends.append({
            "case_id": case.id, "clause": case.clause, "title": case.title,
            "file": str(case.file), "line": case.line,
            "outcomes": {n: per[case.id][n].outcome for n in rulesets if n in per[case.id]},
            "first_difference": {n: oc.difference for n, oc in ran.items() if oc.difference},
        })
    return {"schema": SCHEMA, "implementation": implementation, "rulesets": list(rulesets),
            "readings": {n: readings_of(n) for n in rulesets}, "cases": len(cases),
            "same": same, "depends": depends, "skipped_everywhere": skipped}


def render(data: dict, console, safe_text) -> None:
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text
    names = data["rulesets"]
    if data["depends"]:
        t = Table(title=f"{len(data['depends'])} cases whose outcome depends on the ruleset")
        for col in ("case", "clause", "passes under", "does not pass under"):
            t.add_column(col, overflow="fold")
        for row in data["depends"]:
            ok = [n for n in names if row["outcomes"].get(n) in ("pass", "xpass")]
            bad = [f"{n} ({row['outcomes'][n]})" for n in names
                   if row["outcomes"].get(n) not in (None, "pass", "xpass", "skip", "not_run")]
            t.add_row(escape(safe_text(row["case_id"])), escape(str(row["clause"])),
                      f"[green]{escape(', '.join(ok) or '—')}[/]", f"[red]{escape(', '.join(bad))}[/]")
        console.print(t)
    console.print(Text(
        f"{data['cases']} cases under {len(names)} rulesets: {data['same']} have the same outcome "
        f"under every ruleset they hold under, {len(data['depends'])} depend on the reading"
        + (f", {len(data['skipped_everywhere'])} ran under none" if data["skipped_everywhere"] else ""),
        style="bold"), soft_wrap=True)
    base = data["readings"].get("kodex") or data["readings"][names[0]]
    for n in names:
        own = {k: v for k, v in data["readings"][n].items() if base.get(k) != v}
        if own:
            console.print(Text(f"  {n}: " + ", ".join(f"{k} = {v}" for k, v in own.items()),
                               style="cyan"), soft_wrap=True)
    if data["depends"]:
        console.print(Text("A failure of such a case under another ruleset than the one it was "
                           "written for is a reading difference, not a fault: each reading is "
                           "recorded in the conflicts register (conformance/conflicts.yaml); "
                           "`kodex explain -k ID --all-rulesets` shows where the outcomes part.",
                           style="dim"), soft_wrap=True)


__all__ = ["SCHEMA", "compare", "readings_of", "render"]
