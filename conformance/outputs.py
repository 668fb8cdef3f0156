"""Machine-readable run outputs: JUnit XML (``kodex run --junit FILE``) and
NDJSON streaming (``kodex run --ndjson FILE|-``).

JUnit (:func:`junit_xml`, :func:`write_junit`): one ``<testsuite name="kodex">``
inside ``<testsuites>``; one ``<testcase>`` per case with the clause as
``classname`` and the case id as ``name`` (file and line as attributes, the
time in seconds). The outcome maps to the JUnit element CI tools know:

* ``pass`` — no child;
* ``fail`` — ``<failure type="fail">`` whose message is the first difference
  (path, expected, actual) and whose text adds the message;
* ``xpass`` — ``<failure type="xpass">`` (an expected failure that passed makes
  the run fail, as in ``kodex run``);
* ``error``, ``timeout`` — ``<error type="error|timeout">`` with the message and
  traceback;
* ``skip`` — ``<skipped>`` with the reason; ``xfail`` — ``<skipped type="xfail">``;
* ``not_run`` (``hkk-results/2``: the implementation gave up before the case) —
  ``<error type="not_run">``: a case that was meant to run and did not is not
  a quiet skip;
* any other outcome — ``<error type="<outcome>">``.

The suite's ``tests``/``failures``/``errors``/``skipped`` attributes count
those elements. Characters XML 1.0 cannot hold are replaced by ``\\uFFFD``.

NDJSON (:class:`NdjsonStream`): one JSON object per line per case as soon as
its verdict is known (the ``CaseOutcome`` dict of the results JSON plus
``"type": "case"``), flushed after every line, then one last line
``{"type": "totals", ...}``. ``-`` streams to stdout (``kodex run`` then prints
its human output to stderr). A stream is read while it is being written: the file
is a new one of the run's own, renamed into place at once (:class:`NdjsonStream`),
never an older file written through; one that cannot be written is removed.
"""
from __future__ import annotations

import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, Iterable

from conformance import atomicio, strictjson

_BAD_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _x(value: Any) -> str:
    return _BAD_XML.sub("\ufffd", "" if value is None else str(value))


def _as_dict(oc: Any) -> dict:
    if isinstance(oc, dict):
        return oc
    return oc.to_dict()


def _short(value: Any, limit: int = 500) -> str:
    try:
        s = json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        s = repr(value)
    return s if len(s) <= limit else s[:limit] + "…"


def difference_text(d: dict | None) -> str:
    if not isinstance(d, dict):
        return ""
    return (f"first difference at {d.get('path') or '(top)'}: expected "
            f"{_short(d.get('expected'))}, actual {_short(d.get('actual'))}")


def junit_xml(outcomes: Iterable[Any], *, name: str = "kodex", implementation: dict | None = None,
              duration_ms: float | None = None, timestamp: str | None = None) -> str:
    """The JUnit XML text for ``outcomes`` (CaseOutcome objects or their dicts)."""
    cases = [_as_dict(oc) for oc in outcomes]
    suites = ET.Element("testsuites", name=_x(name))
    suite = ET.SubElement(suites, "testsuite", name=_x(name))
    if implementation:
        props = ET.SubElement(suite, "properties")
        for k, v in implementation.items():
            ET.SubElement(props, "property", name=_x(f"implementation.{k}"), value=_x(v))
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    total_ms = 0.0
    for c in cases:
        counts["tests"] += 1
        ms = float(c.get("duration_ms") or 0.0)
        total_ms += ms
        attrs = {"classname": _x(c.get("clause") or "(no clause)"), "name": _x(c.get("case_id")),
                 "time": f"{ms / 1000:.3f}"}
        if c.get("file"):
            attrs["file"] = _x(c.get("file"))
        if c.get("line") is not None:
            attrs["line"] = _x(c.get("line"))
        tc = ET.SubElement(suite, "testcase", attrs)
        outcome = str(c.get("outcome"))
        message = str(c.get("message") or "")
        diff = difference_text(c.get("difference"))
        body = "\n".join(x for x in (c.get("title") or "", diff, message,
                                     c.get("traceback") or "") if x)
        if outcome == "pass":
            pass
        elif outcome in ("fail", "xpass"):
            counts["failures"] += 1
            msg = diff or message or ("passed, but it was expected to fail" if outcome == "xpass"
                                      else "failed")
            el = ET.SubElement(tc, "failure", type=outcome, message=_x(msg))
            el.text = _x(body)
        elif outcome in ("skip", "xfail"):
            counts["skipped"] += 1
            attrs = {"message": _x(message or diff or outcome)}
            if outcome == "xfail":
                attrs["type"] = "xfail"
            el = ET.SubElement(tc, "skipped", attrs)
            if outcome == "xfail" and body:
                el.text = _x(body)
        else:  # error, timeout, not_run and any outcome not known here
            counts["errors"] += 1
            el = ET.SubElement(tc, "error", type=_x(outcome),
                               message=_x(message or diff or outcome))
            el.text = _x(body)
    seconds = (duration_ms if duration_ms is not None else total_ms) / 1000
    # how many cases got a verdict, beside the counts (docs/spec/hkk-results.md): a CI page
    # that shows only "0 failures" must not hide that most of the cases were skipped
    from conformance.runner import skip_reasons, tally, verdict_count, verdict_share
    totals = tally(str(c.get("outcome")) for c in cases)
    share = verdict_share(totals, digits=None)
    props = suite.find("properties")
    if props is None:
        props = ET.Element("properties")
        suite.insert(0, props)
    ET.SubElement(props, "property", name="kodex.verdicts",
                  value=f"{verdict_count(totals)} of {len(cases)} cases got a verdict"
                        + (f" ({100 * share:.1f}%)" if share is not None else ""))
    for reason, n in skip_reasons(cases).items():
        ET.SubElement(props, "property", name=_x(f"kodex.skipped.{reason}"), value=str(n))
    for k, v in counts.items():
        suite.set(k, str(v))
        suites.set(k, str(v))
    suite.set("time", f"{seconds:.3f}")
    suites.set("time", f"{seconds:.3f}")
    if timestamp:
        suite.set("timestamp", _x(timestamp))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def write_junit(path: str | Path, report) -> Path:
    """Write the JUnit XML of a :class:`conformance.runner.RunReport`."""
    return atomicio.write_text(path, junit_xml(report.outcomes, implementation=report.implementation,
                                               duration_ms=report.duration_ms,
                                               timestamp=report.started))


class NdjsonStream:
    """One JSON line per case, flushed at once; ``-`` is stdout.

    A file is a new one of this run's own (``conformance.atomicio.open_new``: created
    exclusively, never through a link, renamed over the path at once so that it can be read
    while it grows). When a line cannot be written (a full disk, a file-size limit) the file
    is removed — no half stream is left — and ``conformance.atomicio.OutputError`` says why."""

    def __init__(self, target: str | Path):
        self.target = str(target)
        self._own = self.target != "-"
        self._file = atomicio.open_new(self.target, publish=True) if self._own else None
        self.count = 0

    def write_line(self, obj: dict) -> None:
        text = strictjson.dumps(obj, default=str) + "\n"
        if self._file is None:
            sys.stdout.write(text)
            sys.stdout.flush()
            return
        try:
            self._file.write(text.encode("utf-8"))
        except atomicio.OutputError:
            self._file.close(publish=False)
            raise

    def case(self, oc: Any) -> None:
        self.count += 1
        self.write_line({"type": "case", **_as_dict(oc)})

    def totals(self, report) -> None:
        self.write_line({"type": "totals", "totals": report.totals, "cases": len(report.outcomes),
                         "implementation": report.implementation, "ruleset": report.ruleset,
                         "duration_ms": round(report.duration_ms, 3)})

    def close(self) -> None:
        if self._file is not None and self._file.fd >= 0:
            self._file.close()
