"""Verdicts nobody can forge or game (issue 24): only the harness judges.

Each test runs the whole corpus (or the part that matters) through an adversary
(tests/adversary_impl.py) over protocol 1, as `kodex run --impl` does, and checks
what the verdict says."""
from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from conformance import refusals
from conformance.matching import clause_matches, step_verbs

ROOT = Path(__file__).resolve().parents[1]
ADVERSARY = Path(__file__).with_name("adversary_impl.py")


def kodex_run(tmp_path: Path, mode: str, *extra: str, features: str | None = None):
    out = tmp_path / f"{mode}.json"
    impl = f"{shlex.quote(sys.executable)} {shlex.quote(str(ADVERSARY))} {mode}"
    if features is not None:
        impl += f" --features {shlex.quote(features) if features else ''}"
    proc = subprocess.run([sys.executable, "-m", "conformance", "run", "-q", "--impl", impl,
                           "--json", str(out), *extra],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    data = json.loads(out.read_text(encoding="utf-8")) if out.exists() else None
    return proc, data


def test_a_reply_that_judges_itself_passes_nothing(tmp_path):
    proc, data = kodex_run(tmp_path, "forge")
    assert data["totals"]["pass"] == 0, data["totals"]
    # the forged key makes the reply malformed: an error of that case; after 10 in a row the
    # harness gives up on the program (exit 3) and the rest are NOT RUN, never passed
    assert {c["outcome"] for c in data["cases"]} == {"error", "not_run"}
    assert "only the harness writes" in data["cases"][0]["message"]
    assert proc.returncode == 3 and "GAVE UP" in proc.stdout


def test_verdict_keys_in_an_otherwise_right_reply_are_an_error(tmp_path):
    proc, data = kodex_run(tmp_path, "forge-outcome", "-k", "4.8.4/", "--max-restarts", "100")
    assert data["totals"]["pass"] == 0 and data["totals"]["error"] == len(data["cases"]) > 0
    assert proc.returncode == 1


def _refusal_clause_cases():
    from conformance.loader import load_files
    out = {}
    for case in load_files().cases:
        err = (case.then or {}).get("error")
        if isinstance(err, dict) and err.get("clause"):
            out[case.id] = (case, err)
    return out


def test_a_refusal_naming_every_clause_passes_no_refusal_clause_case(tmp_path):
    proc, data = kodex_run(tmp_path, "clause-spray")
    cases = _refusal_clause_cases()
    judged = [c for c in data["cases"] if c["case_id"] in cases]
    assert len(judged) > 300
    assert not [c["case_id"] for c in judged if c["outcome"] == "pass"]
    assert proc.returncode == 1


def test_a_wrong_clause_followed_by_the_right_ones_passes_only_what_the_table_allows(tmp_path):
    """A wrong primary clause, then the reference's own clauses as co-clauses (well-formed: at
    most 8, catalog ids): an expected clause is accepted only as a co-clause the refusal table
    lists beside the (wrong) primary for that verb."""
    proc, data = kodex_run(tmp_path, "clause-wrong")
    cases = _refusal_clause_cases()
    table = refusals.load_table()
    passed = failed = 0
    for c in data["cases"]:
        if c["case_id"] not in cases:
            continue
        case, err = cases[c["case_id"]]
        if c["outcome"] == "pass":
            passed += 1
            verb = step_verbs(case.when)[err.get("step", len(case.when) - 1)]
            allowed = table.alternatives(verb, "4.20.3") | table.alternatives(verb, "4.21.0")
            assert any(clause_matches(err["clause"], a) for a in allowed), c["case_id"]
        else:
            failed += 1
    assert failed > 300 and passed < 10
    assert proc.returncode == 1


@pytest.fixture(scope="module")
def skip_attacks(tmp_path_factory):
    """The corpus through an implementation that skips every case with an attack (once for the
    module): (the process, its results, the folder holding skip-attacks.json and .xml)."""
    tmp = tmp_path_factory.mktemp("skip-attacks")
    proc, data = kodex_run(tmp, "skip-attacks", "--junit", str(tmp / "skip-attacks.xml"))
    return proc, data, tmp


def test_skipped_work_is_counted_kept_and_can_fail_the_run(tmp_path, skip_attacks):
    proc, data, _ = skip_attacks
    skipped = [c for c in data["cases"] if c["outcome"] == "skip"]
    assert skipped and all(c["unsupported"] == ["verb:attack"] for c in skipped)
    assert data["skip_reasons"] == {"verb:attack": len(skipped)}
    n = len(data["cases"])
    verdicts = n - len(skipped)
    assert data["verdicts"] == verdicts
    assert f"({100 * verdicts / n:.1f}% with a verdict)" in proc.stdout
    assert "skipped, by reason: verb:attack" in proc.stdout
    assert proc.returncode == 0
    proc, _ = kodex_run(tmp_path, "skip-attacks", "--fail-on-skip")
    assert proc.returncode == 4 and "SKIPPED WORK" in proc.stdout


def _verdict_shares(data: dict) -> dict[str, str]:
    """Per part of the Kódex (and "all"), the share of the cases whose own clause lies in it that
    got a verdict, as the reports print it — counted here from the cases and the catalog alone."""
    from conformance.catalog import load_catalog
    catalog = load_catalog()
    counts: dict[str, list[int]] = {}
    for c in data["cases"]:
        clause = catalog.get(c["clause"])
        for part in ([clause.part] if clause is not None else []) + ["all"]:
            row = counts.setdefault(part, [0, 0])
            row[0] += c["outcome"] in ("pass", "fail", "error", "timeout", "xpass")
            row[1] += 1
    return {part: f"{100 * judged / n:.1f}%" for part, (judged, n) in counts.items()}


def _column(lines: list[str], label: str, column: str = "with a verdict") -> str:
    """The cell in ``column`` of the row ``label`` of a table (rich's or Markdown's)."""
    rows = [[cell.strip() for cell in re.split(r"[│┃|]", x)] for x in lines
            if x.lstrip()[:1] in ("│", "┃", "|")]
    head = next(r for r in rows if column in r)
    row = next(r for r in rows if r[1:2] == [label])
    return row[head.index(column)]


def test_coverage_shows_per_part_how_many_cases_got_a_verdict(skip_attacks):
    """`kodex coverage --results` of a run that skipped work: the column "with a verdict" of
    its table and of coverage.md, per part, is the share counted from the cases."""
    from reports.coverage import _part_label
    _, data, tmp = skip_attacks
    want = _verdict_shares(data)
    assert want["all"] != "100.0%" and len(set(want.values())) > 2     # the skips show, unevenly
    proc = subprocess.run([sys.executable, "-m", "conformance", "coverage", "--results",
                           str(tmp / "skip-attacks.json"), "--out", str(tmp / "cov")],
                          cwd=tmp, capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "COLUMNS": "300"})
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    printed = proc.stdout.split("Per part", 1)[1].splitlines()
    md = (tmp / "cov" / "coverage.md").read_text(encoding="utf-8")
    verdicts_md = md.split("## The implementation's verdicts", 1)[1].split("\n## ", 1)[0]
    for part, share in want.items():
        label = _part_label(part)
        assert _column(printed, label) == share, part
        assert _column(verdicts_md.splitlines(), label) == share, part
    skipped = data["totals"]["skip"]
    assert f"({skipped} skipped; {want['all']} with a verdict)" in " ".join(proc.stdout.split())


def test_junit_says_how_many_cases_got_a_verdict_and_why_the_rest_were_skipped(skip_attacks):
    import xml.etree.ElementTree as ET
    _, data, tmp = skip_attacks
    suite = ET.parse(tmp / "skip-attacks.xml").getroot().find("testsuite")
    props = {p.get("name"): p.get("value") for p in suite.find("properties")}
    n, judged = len(data["cases"]), data["verdicts"]
    assert judged < n
    assert props["kodex.verdicts"] == \
        f"{judged} of {n} cases got a verdict ({100 * judged / n:.1f}%)"
    assert props["kodex.skipped.verb:attack"] == str(n - judged)
    assert int(suite.get("skipped")) == n - judged


def test_the_share_shown_is_rounded_once():
    # 1934 of 2266 is 85.348%: rounded to 4 digits first (0.8535, as the results file keeps it)
    # and then to one decimal it showed 85.4%
    from conformance.cli import totals_text
    from conformance.outputs import junit_xml
    from conformance.runner import verdict_share
    totals = {"pass": 1934, "skip": 332}
    assert verdict_share(totals) == 0.8535
    assert "(85.3% with a verdict)" in totals_text(totals).plain
    cases = [{"case_id": f"c{i}", "outcome": "pass" if i < 1934 else "skip"} for i in range(2266)]
    assert "(85.3%)" in junit_xml(cases)


def test_undeclared_features_are_skipped_by_the_harness_with_the_feature_named(tmp_path):
    proc, data = kodex_run(tmp_path, "features", "-k", "mk:", features="continuous")
    assert data["features_declared"] is True and data["features"] == ["continuous"]
    by_id = {c["case_id"]: c for c in data["cases"]}
    replace = [c for c in by_id.values() if "replace" in c["needs"]]
    assert replace and all(c["outcome"] == "skip" and "feature:replace" in c["unsupported"]
                           for c in replace)
    plain = [c for c in by_id.values() if not set(c["needs"]) - {"continuous"}]
    assert plain and all(c["outcome"] == "pass" for c in plain)
    assert data["skip_reasons"].get("feature:replace") == len(replace)


def test_an_unknown_feature_in_hello_stops_the_run(tmp_path):
    proc, data = kodex_run(tmp_path, "features", "-k", "4.8.4/", features="continuous,telepathy")
    assert proc.returncode == 3
    assert "telepathy" in proc.stdout + proc.stderr


def test_fuzz_sends_only_what_the_implementation_declared(tmp_path):
    """The adversary errors on any case beyond its declared verbs and features: `kodex fuzz
    --impl` finds nothing only because it never sends one."""
    impl = (f"{shlex.quote(sys.executable)} {shlex.quote(str(ADVERSARY))} features "
            "--verbs heal,damage,discard,move,draw,gain_vp --features ''")
    proc = subprocess.run([sys.executable, "-m", "conformance", "fuzz", "--examples", "40",
                           "--seed", "3", "--impl", impl, "--out", str(tmp_path / "fuzz")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    out = " ".join(proc.stdout.split())
    assert "only the verbs, features and observations the implementation declared" in out
    assert "features none" in out and "0 finding(s)" in out
