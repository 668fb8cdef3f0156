"""JUnit XML and NDJSON outputs of ``kodex run`` (conformance/outputs.py)."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from conformance.cli import main as kodex
from conformance.outputs import NdjsonStream, junit_xml
from report_helpers import cached_reference, degraded


def _expected_counts(cases: list[dict]) -> dict:
    n = {"tests": len(cases), "failures": 0, "errors": 0, "skipped": 0}
    for c in cases:
        o = c["outcome"]
        if o in ("fail", "xpass"):
            n["failures"] += 1
        elif o in ("skip", "xfail"):
            n["skipped"] += 1
        elif o != "pass":
            n["errors"] += 1
    return n


def test_junit_counts_and_elements_of_every_outcome():
    fake = degraded(cached_reference())
    fake["cases"][2]["message"] = "bad \x00 byte \x1b[31m and \ud800 surrogate"
    text = junit_xml(fake["cases"], implementation=fake["implementation"])
    root = ET.fromstring(text.encode("utf-8"))          # well-formed XML
    suite = root.find("testsuite")
    want = _expected_counts(fake["cases"])
    for k, v in want.items():
        assert int(suite.get(k)) == v, k
        assert int(root.get(k)) == v, k
    assert want["failures"] and want["errors"] and want["skipped"]
    tcs = suite.findall("testcase")
    assert len(tcs) == len(fake["cases"])
    for tc, c in zip(tcs, fake["cases"]):
        assert tc.get("classname") == c["clause"] and tc.get("name") == c["case_id"]
        kids = [k.tag for k in tc]
        o = c["outcome"]
        expected = {"pass": [], "fail": ["failure"], "xpass": ["failure"], "skip": ["skipped"],
                    "xfail": ["skipped"]}.get(o, ["error"])
        assert kids == expected, (o, kids)
        if o == "fail":
            f = tc.find("failure")
            assert f.get("message").startswith("first difference at players.A.hp")
            assert "<b>8</b>" in f.get("message")       # kept as text, escaped by the writer
        if kids == ["error"]:
            assert tc.find("error").get("type") == o
    assert suite.find("properties/property[@name='implementation.name']").get("value") \
        == "degraded-fake"


def test_run_writes_junit_and_ndjson_files(tmp_path, capsys):
    junit, nd = tmp_path / "out" / "junit.xml", tmp_path / "out" / "run.ndjson"
    js = tmp_path / "out" / "results.json"
    rc = kodex(["run", "-q", "--clause", "4.2", "--junit", str(junit), "--ndjson", str(nd),
                "--json", str(js)])
    assert rc == 0
    results = json.loads(js.read_text(encoding="utf-8"))
    n = len(results["cases"])
    assert n > 5
    suite = ET.parse(junit).getroot().find("testsuite")
    assert int(suite.get("tests")) == n and suite.get("failures") == "0"
    assert [tc.get("name") for tc in suite.findall("testcase")] == \
        [c["case_id"] for c in results["cases"]]
    lines = [json.loads(x) for x in nd.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == n + 1
    assert [x["case_id"] for x in lines[:-1]] == [c["case_id"] for c in results["cases"]]
    assert all(x["type"] == "case" and x["outcome"] == "pass" for x in lines[:-1])
    assert lines[-1]["type"] == "totals" and lines[-1]["totals"]["pass"] == n


def test_ndjson_to_stdout_keeps_stdout_pure(capsys):
    rc = kodex(["run", "--clause", "4.2", "--ndjson", "-"])
    assert rc == 0
    cap = capsys.readouterr()
    lines = cap.out.splitlines()
    assert lines and all(json.loads(x)["type"] in ("case", "totals") for x in lines)
    assert "passed" in cap.err                          # the human summary went to stderr


def test_ndjson_lines_are_flushed_as_they_come(tmp_path):
    path = tmp_path / "live.ndjson"
    s = NdjsonStream(path)
    cases = cached_reference()["cases"][:3]
    for i, c in enumerate(cases, 1):
        s.case(c)
        # readable by another reader before the stream is closed
        assert len(path.read_text(encoding="utf-8").splitlines()) == i
    s.close()


def test_failing_run_junit_names_the_first_difference(tmp_path):
    """A real run of the tiny corpus (one pass, one wrong expectation, one under
    another ruleset): the JUnit file shows the failure with its first difference."""
    from tiny_corpus import TINY
    case = tmp_path / "tiny.yaml"
    case.write_text(TINY, encoding="utf-8")
    junit = tmp_path / "j.xml"
    rc = kodex(["run", "-q", str(case), "--ruleset", "kodex", "--junit", str(junit)])
    assert rc == 1
    suite = ET.parse(junit).getroot().find("testsuite")
    by_name = {tc.get("name"): tc for tc in suite.findall("testcase")}
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("3", "1", "1")
    f = by_name["t/heal-wrong-expectation"].find("failure")
    assert f is not None and f.get("message").startswith("first difference at")
    assert "14" in f.get("message") and "13" in f.get("message")
    assert by_name["t/heal-other-ruleset"].find("skipped") is not None
    assert len(by_name["t/heal-stops-at-cap"]) == 0
    assert by_name["t/heal-stops-at-cap"].get("classname") == "3.18"
