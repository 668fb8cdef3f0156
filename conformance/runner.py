"""Running conformance cases and collecting their outcomes.

Covers:

* the choice of ruleset per case (:func:`choose_ruleset`): a case runs under
  the selected ruleset (default ``kodex``) when it holds there (a case without
  ``rulesets`` holds under every ruleset); without an explicit ``--ruleset`` a
  case that names only other rulesets runs under the first one it names; with
  an explicit ``--ruleset X`` the cases that do not hold under X are skipped
  with the reason;
* running one case (:func:`run_one`) in-process through
  ``model.engine.run_case`` or through an implementation speaking the HKK
  protocol (a :class:`conformance.protocol.ProtocolClient`), and comparing the
  observed view with the case's ``then`` (``conformance.matching``);
* running many (:func:`run_cases`): an exception inside the engine makes that
  case ``error`` (with the traceback) and never stops the run; expected
  failures (``--xfail FILE``, :func:`load_xfail`) turn ``fail``/``error``/
  ``timeout`` into ``xfail`` and a pass into ``xpass``;
* the results JSON (:meth:`RunReport.to_json`), schema ``hkk-results/1``::

    {"schema": "hkk-results/1", "implementation": {...}, "ruleset": ...,
     "started": ISO time, "finished": ISO time, "duration_ms": ...,
     "cases": [CaseOutcome as dict, ...],
     "totals": {"pass": n, "fail": n, "error": n, "skip": n,
                "timeout": n, "xfail": n, "xpass": n}}

  ``finished`` and ``duration_ms`` are additions; a CaseOutcome also carries
  ``also`` (the further clauses, for coverage) and ``traceback`` (errors).

Outcomes: ``pass``, ``fail``, ``error``, ``skip``, ``timeout``, ``xfail``,
``xpass``.
"""
from __future__ import annotations

import datetime as _dt
import fnmatch
import json
import signal
import threading
import time
import traceback as _tb
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

OUTCOMES = ("pass", "fail", "error", "skip", "timeout", "xfail", "xpass")
DEFAULT_RULESET = "kodex"
DEFAULT_TIMEOUT = 5.0
RESULTS_SCHEMA = "hkk-results/1"
# outcomes that make `kodex run` exit 1
BAD_OUTCOMES = ("fail", "error", "timeout", "xpass")


@dataclass
class CaseOutcome:
    case_id: str
    clause: str
    title: str
    file: str
    line: int | None
    outcome: str
    difference: dict | None = None      # {"path", "expected", "actual"}
    message: str = ""
    ruleset: str | None = None
    duration_ms: float = 0.0
    also: list = field(default_factory=list)
    traceback: str | None = None

    def to_dict(self) -> dict:
        return _jsonable(asdict(self))


@dataclass
class RunReport:
    outcomes: list[CaseOutcome]
    implementation: dict
    ruleset: str | None
    started: str
    finished: str = ""
    duration_ms: float = 0.0

    @property
    def totals(self) -> dict:
        totals = {o: 0 for o in OUTCOMES}
        for oc in self.outcomes:
            totals[oc.outcome] = totals.get(oc.outcome, 0) + 1
        return totals

    @property
    def ok(self) -> bool:
        return not any(oc.outcome in BAD_OUTCOMES for oc in self.outcomes)

    def to_json(self) -> dict:
        return {
            "schema": RESULTS_SCHEMA,
            "implementation": _jsonable(self.implementation),
            "ruleset": self.ruleset,
            "started": self.started,
            "finished": self.finished,
            "duration_ms": round(self.duration_ms, 3),
            "cases": [oc.to_dict() for oc in self.outcomes],
            "totals": self.totals,
        }

    def write_json(self, path: str | Path) -> None:
        path = Path(path)
        if path.parent and not path.parent.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_json(), ensure_ascii=False, indent=2) + "\n",
                        encoding="utf-8")


# --------------------------------------------------------------------------
# helpers

def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).astimezone().isoformat(timespec="seconds")


def _jsonable(obj: Any) -> Any:
    """A JSON-safe copy (unknown objects become their repr)."""
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in obj]
    if hasattr(obj, "__dataclass_fields__"):
        return _jsonable(asdict(obj))
    return repr(obj)


def _case_verbs(case) -> list[str]:
    verbs = []
    for step in case.when or []:
        if isinstance(step, dict):
            for verb in step:
                if verb not in verbs:
                    verbs.append(str(verb))
    return verbs


def _difference_dict(diff) -> dict | None:
    if diff is None:
        return None
    if not isinstance(diff, dict) and hasattr(diff, "to_dict"):
        diff = diff.to_dict()
    if isinstance(diff, dict):
        return {k: _jsonable(diff.get(k)) for k in ("path", "expected", "actual")}
    return {
        "path": _jsonable(getattr(diff, "path", None)),
        "expected": _jsonable(getattr(diff, "expected", None)),
        "actual": _jsonable(getattr(diff, "actual", None)),
    }


def choose_ruleset(case, selected: str | None = None,
                   default: str = DEFAULT_RULESET) -> tuple[str | None, str | None]:
    """(ruleset to run the case under, None) or (None, reason to skip)."""
    rulesets = list(case.rulesets or [])
    if selected:
        if not rulesets or selected in rulesets:
            return selected, None
        return None, (f"case holds only under {', '.join(rulesets)}; "
                      f"not under the selected ruleset {selected}")
    if not rulesets or default in rulesets:
        return default, None
    return rulesets[0], None


# --------------------------------------------------------------------------
# expected failures

def load_xfail(path: str | Path) -> dict[str, str]:
    """Read an expected-failures file: {case id or glob pattern: reason}.

    Accepted shapes: plain text, one case id per line followed by its reason
    (``4.13.2/some-case  why it fails``; ``#`` starts a comment line); or YAML
    / JSON: a list of ids (or of ``{id, reason}``), a mapping ``{xfail: [...]}``
    (or ``cases:``) of the same, or a mapping ``{id: reason}``.
    """
    import yaml

    text = Path(path).read_text(encoding="utf-8")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        data = text
    if isinstance(data, str):
        return _xfail_lines(text)
    if data is None:
        return {}
    if isinstance(data, dict) and set(data) & {"xfail", "cases"} and \
            isinstance(data.get("xfail", data.get("cases")), list):
        data = data.get("xfail", data.get("cases"))
    out: dict[str, str] = {}
    if isinstance(data, dict):
        for k, v in data.items():
            out[str(k)] = "" if v is None else str(v)
    elif isinstance(data, list):
        for item in data:
            if isinstance(item, dict):
                cid = item.get("id") or item.get("case")
                if cid:
                    out[str(cid)] = str(item.get("reason") or "")
            elif item is not None:
                out.update(_xfail_lines(str(item)))
    else:
        raise ValueError(f"{path}: expected case ids, one a line, or a YAML list or mapping")
    return out


def _xfail_lines(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        cid, _, reason = line.partition(" ")
        out[cid.rstrip(":")] = reason.strip().lstrip("#:-").strip()
    return out


def _xfail_reason(case_id: str, xfail: dict[str, str] | None) -> str | None:
    if not xfail:
        return None
    if case_id in xfail:
        return xfail[case_id]
    for pat, reason in xfail.items():
        if any(ch in pat for ch in "*?[") and fnmatch.fnmatchcase(case_id, pat):
            return reason
    return None


def apply_xfail(oc: CaseOutcome, xfail: dict[str, str] | None) -> CaseOutcome:
    reason = _xfail_reason(oc.case_id, xfail)
    if reason is None:
        return oc
    if oc.outcome in ("fail", "error", "timeout"):
        oc.message = (f"expected failure ({oc.outcome})" + (f": {reason}" if reason else "")
                      + (f" — {oc.message}" if oc.message else ""))
        oc.outcome = "xfail"
    elif oc.outcome == "pass":
        oc.outcome = "xpass"
        oc.message = "listed as an expected failure but passed" + (f" ({reason})" if reason else "")
    return oc


# --------------------------------------------------------------------------
# in-process timeout

class _CaseTimeout(BaseException):
    """Raised by SIGALRM inside a case that overran its deadline."""


def _call_with_timeout(fn: Callable[[], Any], timeout: float | None) -> Any:
    if (timeout and timeout > 0 and hasattr(signal, "setitimer")
            and threading.current_thread() is threading.main_thread()):
        def handler(signum, frame):
            raise _CaseTimeout()
        old = signal.signal(signal.SIGALRM, handler)
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            return fn()
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
    return fn()


# --------------------------------------------------------------------------
# one case

def _reference_info() -> dict:
    from conformance.serve import implementation_info
    info = dict(implementation_info())
    info["in_process"] = True
    return info


def _compare(case, oc: CaseOutcome, state, events, result, refused) -> CaseOutcome:
    from conformance.matching import first_difference, observed_view

    observed = observed_view(state, events, result, refused)
    diff = first_difference(case.then, observed, len(case.when or []))
    if diff is None:
        oc.outcome = "pass"
    else:
        oc.outcome = "fail"
        oc.difference = _difference_dict(diff)
        oc.message = str(getattr(diff, "message", "") or "")
    return oc


def run_one(case, ruleset: str | None = None, impl=None, *,
            timeout: float | None = None) -> CaseOutcome:
    """Run one case and return its outcome (never raises for engine faults).

    ``ruleset`` is the explicitly selected ruleset (None: the default rule of
    :func:`choose_ruleset`); ``impl`` a ProtocolClient (None: in-process).
    """
    t0 = time.perf_counter()
    oc = CaseOutcome(case_id=case.id, clause=case.clause, title=case.title or "",
                     file=str(case.file), line=case.line, outcome="error",
                     also=list(case.also or []))
    try:
        chosen, why = choose_ruleset(case, ruleset)
        oc.ruleset = chosen
        if chosen is None:
            oc.outcome, oc.message = "skip", why
            return oc
        if impl is None:
            from model import engine
            rulesets = list(engine.available_rulesets())
            verbs = set(engine.SUPPORTED_VERBS)
        else:
            rulesets = list(impl.rulesets or [])
            verbs = set(impl.verbs) if impl.verbs is not None else None
        if rulesets and chosen not in rulesets:
            oc.outcome = "skip"
            oc.message = f"unsupported ruleset {chosen} (available: {', '.join(rulesets)})"
            return oc
        if verbs is not None:
            missing = [v for v in _case_verbs(case) if v not in verbs]
            if missing:
                oc.outcome = "skip"
                oc.message = "unsupported: " + ", ".join(missing)
                return oc
        if impl is None:
            _run_in_process(case, chosen, oc, timeout)
        else:
            _run_through(case, chosen, impl, oc)
    except Exception as exc:  # a fault of the harness itself: still per case
        oc.outcome = "error"
        oc.message = f"{type(exc).__name__}: {exc}"
        oc.traceback = _tb.format_exc()
    finally:
        oc.duration_ms = round((time.perf_counter() - t0) * 1000.0, 3)
    return oc


def _run_in_process(case, ruleset: str, oc: CaseOutcome, timeout: float | None) -> None:
    from model import engine
    try:
        res = _call_with_timeout(
            lambda: engine.run_case(case.given, case.when, ruleset=ruleset), timeout)
    except _CaseTimeout:
        oc.outcome = "timeout"
        oc.message = f"no result within {timeout:g} s"
        return
    except Exception as exc:
        oc.outcome = "error"
        oc.message = f"engine raised {type(exc).__name__}: {exc}"
        oc.traceback = _tb.format_exc()
        return
    _compare(case, oc, res.state, res.events, res.result, res.refused)


def _run_through(case, ruleset: str, impl, oc: CaseOutcome) -> None:
    from conformance.protocol import interpret_reply

    reply = impl.run(case.id, ruleset, case.given, case.when)
    kind, payload = interpret_reply(reply)
    if kind == "observed":
        _compare(case, oc, payload["state"], payload["events"], payload["result"],
                 payload["refused"])
    else:
        oc.outcome = kind
        oc.message = payload.get("message", "")
        oc.traceback = payload.get("traceback")


# --------------------------------------------------------------------------
# many cases

class _Progress:
    """A transient rich progress bar on stderr, shown only on a TTY and only
    once the run has taken more than a second."""

    def __init__(self, total: int, enabled: bool):
        self.total = total
        self.enabled = enabled
        self.t0 = time.monotonic()
        self.progress = None
        self.task = None
        self.done = 0
        if enabled:
            from rich.console import Console
            self.console = Console(stderr=True)
            self.enabled = self.console.is_terminal

    def advance(self, label: str = "") -> None:
        self.done += 1
        if not self.enabled:
            return
        if self.progress is None and time.monotonic() - self.t0 > 1.0 and self.done < self.total:
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress,
                                       TextColumn, TimeElapsedColumn)
            self.progress = Progress(TextColumn("[bold]kodex run"), BarColumn(),
                                     MofNCompleteColumn(), TimeElapsedColumn(),
                                     TextColumn("{task.description}"),
                                     console=self.console, transient=True)
            self.progress.start()
            self.task = self.progress.add_task("", total=self.total, completed=self.done)
        if self.progress is not None:
            self.progress.update(self.task, completed=self.done, description=label)

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()
            self.progress = None


def run_cases(cases: Iterable, ruleset: str | None = None, impl=None,
              xfail: dict[str, str] | str | Path | None = None, progress: bool = True,
              *, timeout: float | None = DEFAULT_TIMEOUT,
              on_outcome: Callable[[CaseOutcome], None] | None = None) -> RunReport:
    """Run every case; one outcome per case, in order.

    ``xfail``: a mapping from :func:`load_xfail` or a path to such a file.
    ``timeout``: per-case deadline for in-process runs (SIGALRM, main thread
    only); the ProtocolClient has its own. ``on_outcome`` is called after each
    case (the CLI prints verdicts with it).
    """
    cases = list(cases)
    if isinstance(xfail, (str, Path)):
        xfail = load_xfail(xfail)
    started = _now()
    t0 = time.perf_counter()
    implementation = dict(impl.implementation or {}) if impl is not None else _reference_info()
    bar = _Progress(len(cases), progress)
    outcomes: list[CaseOutcome] = []
    try:
        for case in cases:
            oc = run_one(case, ruleset, impl, timeout=timeout)
            apply_xfail(oc, xfail)
            outcomes.append(oc)
            if on_outcome is not None:
                on_outcome(oc)
            bar.advance(case.id)
    finally:
        bar.close()
    return RunReport(outcomes=outcomes, implementation=implementation,
                     ruleset=ruleset or DEFAULT_RULESET, started=started, finished=_now(),
                     duration_ms=(time.perf_counter() - t0) * 1000.0)


def read_results(path: str | Path) -> dict:
    """Load a results JSON file written by ``kodex run --json`` (checks the schema)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("schema") != RESULTS_SCHEMA:
        raise ValueError(f"{path}: not a {RESULTS_SCHEMA} results file")
    return data
