"""Running conformance cases and collecting their outcomes.

Covers:

* the choice of ruleset per case (:func:`choose_ruleset`): a case runs under
  the selected ruleset (default ``kodex``) when it holds there (a case without
  ``rulesets`` holds under every ruleset); without an explicit ``--ruleset`` a
  case that names only other rulesets runs under the first one it names; with
  an explicit ``--ruleset X`` the cases that do not hold under X are skipped
  with the reason;
* running one case (:func:`run_one`) in-process through
  ``model.engine.run_case`` (:func:`run_reference`: in the case's own format)
  or through an implementation speaking the HKK protocol (a
  :class:`conformance.protocol.ProtocolClient`), and comparing the observed
  view with the case's ``then`` (``conformance.matching``);
* running many through an implementation with several requests in flight
  (:func:`run_cases` uses the client's ``run_many`` when it has one: the
  implementation works on the next cases while the harness judges a reply;
  ``kodex run --jobs N`` gives it a :class:`conformance.protocol.ProtocolPool`
  of N programs); the outcomes stay in the cases' order;
* running many (:func:`run_cases`): an exception inside the engine makes that
  case ``error`` (with the traceback) and never stops the run; expected
  failures (``--xfail FILE``, :func:`load_xfail`, bounded, matched by
  :class:`XfailList`) turn ``fail``/``error``/``timeout`` into ``xfail`` and a
  pass into ``xpass``; every outcome is cut to what the harness keeps
  (``conformance.bounds.bound_outcome``) before it is printed or written;
* conformance profiles (``conformance.profiles``): each outcome records what
  its case's ``then`` observes; a case needing an observation outside the
  profile an implementation declared in ``hello`` is skipped with the reason;
* the results JSON (:meth:`RunReport.to_json`), schema ``hkk-results/2``
  (docs/spec/hkk-results.md; JSON Schema
  ``conformance/schema/hkk-results-2.schema.json``)::

    {"schema": "hkk-results/2", "kit": {"name", "version"},
     "implementation": {...}, "profile": [...], "profile_declared": bool,
     "ruleset": ..., "started": ISO time, "finished": ISO time,
     "duration_ms": ..., "gave_up": null | {...}, "unavailable": null | "...",
     "cases": [CaseOutcome as dict, ...],
     "totals": {"pass": n, "fail": n, "error": n, "skip": n, "timeout": n,
                "xfail": n, "xpass": n, "not_run": n},
     "profiles": {observation: {"cases": n, outcome: n, ..., "pass_rate": r}}}

  ``hkk-results/1`` files (no ``not_run``, ``profile``, ``profiles``,
  ``gave_up``) are still read; every results file is read and checked by
  ``conformance.results_io.read_results``. :func:`merge_results` joins shards.

Outcomes: ``pass``, ``fail``, ``error``, ``skip``, ``timeout``, ``xfail``,
``xpass``, ``not_run`` (the harness gave up on the implementation before the
case).
"""
from __future__ import annotations

import bisect
import datetime as _dt
import fnmatch
import functools
import json
import re
import signal
import threading
import time
import traceback as _tb
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from conformance import bounds, parallel
from conformance.features import FEATURES as ALL_FEATURES
from conformance.features import missing as missing_features
from conformance.features import needs as features_of
from conformance.profiles import ALL as ALL_OBSERVATIONS
from conformance.profiles import missing as missing_observations
from conformance.profiles import observes as observations_of

OUTCOMES = ("pass", "fail", "error", "skip", "timeout", "xfail", "xpass", "not_run")
DEFAULT_RULESET = "kodex"
DEFAULT_TIMEOUT = 5.0
MAX_XFAIL_BYTES = 4 * 1024 * 1024   # an expected-failures file (hostile input: bounded)
MAX_XFAIL_ENTRIES = 20_000          # entries of it (the corpus has ~2,200 cases)
MAX_XFAIL_GLOBS = 1_000             # of which globs (each is tried on the ids it may match)
MAX_XFAIL_ENTRY_CHARS = 1_024       # one entry (a case id or a glob)
RESULTS_SCHEMA = "hkk-results/2"
READ_SCHEMAS = ("hkk-results/1", "hkk-results/2")
# outcomes that make `kodex run` fail
BAD_OUTCOMES = ("fail", "error", "timeout", "xpass", "not_run")
PASSED = ("pass", "xpass")
# outcomes that are no verdict on the implementation (nothing was tested: exit 4)
NO_VERDICT = ("skip", "not_run")
# outcomes that are a verdict: the harness judged the implementation's reply (hkk-results.md)
VERDICTS = ("pass", "fail", "error", "timeout", "xpass")


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
    observes: list = field(default_factory=list)      # conformance.profiles.observes(then)
    unsupported: list = field(default_factory=list)   # why a skip: verbs, ruleset, observations, features
    needs: list = field(default_factory=list)         # conformance.features.needs(given, when, then)

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
    profile: list = field(default_factory=lambda: list(ALL_OBSERVATIONS))
    profile_declared: bool = False
    features: list = field(default_factory=lambda: list(ALL_FEATURES))
    features_declared: bool = False
    gave_up: dict | None = None
    unavailable: str | None = None

    @property
    def totals(self) -> dict:
        return tally(oc.outcome for oc in self.outcomes)

    @property
    def tested(self) -> int:
        """Cases that got a verdict (neither skipped nor not run)."""
        return sum(1 for oc in self.outcomes if oc.outcome not in NO_VERDICT)

    @property
    def verdicts(self) -> int:
        """Cases the harness judged (pass, fail, error, timeout, xpass): docs/spec/hkk-results.md."""
        return verdict_count(self.totals)

    def skip_reasons(self) -> dict[str, int]:
        """What kept the skipped cases from a verdict: ``unsupported`` entry -> cases."""
        return skip_reasons(self.outcomes)

    @property
    def ok(self) -> bool:
        return not any(oc.outcome in BAD_OUTCOMES for oc in self.outcomes) \
            and self.gave_up is None and self.unavailable is None

    def profile_tallies(self) -> dict:
        """Per observation: the outcomes of the cases whose ``then`` needs it."""
        return profile_tallies(self.outcomes)

    def to_json(self) -> dict:
        return {
            "schema": RESULTS_SCHEMA,
            "kit": kit_info(),
            "implementation": _jsonable(self.implementation),
            "profile": list(self.profile),
            "profile_declared": self.profile_declared,
            "features": list(self.features),
            "features_declared": self.features_declared,
            "ruleset": self.ruleset,
            "started": self.started,
            "finished": self.finished,
            "duration_ms": round(self.duration_ms, 3),
            "gave_up": _jsonable(self.gave_up),
            "unavailable": self.unavailable,
            "cases": [oc.to_dict() for oc in self.outcomes],
            "totals": self.totals,
            "verdicts": self.verdicts,
            "skip_reasons": self.skip_reasons(),
            "profiles": self.profile_tallies(),
        }

    def write_json(self, path: str | Path) -> None:
        from conformance import atomicio
        atomicio.write_text(path, atomicio.json_text(self.to_json()))


def tally(outcomes: Iterable[str]) -> dict:
    """{outcome: count} with every known outcome present (others appended)."""
    totals = {o: 0 for o in OUTCOMES}
    for o in outcomes:
        totals[o] = totals.get(o, 0) + 1
    return totals


def verdict_count(totals: dict) -> int:
    """How many cases got a verdict (docs/spec/hkk-results.md): pass, fail, error, timeout, xpass
    — not skip, xfail or not_run."""
    return sum(int(totals.get(o, 0) or 0) for o in VERDICTS)


def verdict_share(totals: dict, digits: int | None = 4) -> float | None:
    """The share of the cases that got a verdict (None for no case), rounded to `digits` (None:
    not rounded — a share shown as a percentage is rounded once, where it is shown)."""
    n = sum(int(v or 0) for k, v in totals.items() if k in OUTCOMES)
    if not n:
        return None
    share = verdict_count(totals) / n
    return share if digits is None else round(share, digits)


def skip_reasons(outcomes: Iterable) -> dict[str, int]:
    """``unsupported`` entry (``feature:continuous``, ``verb:attack``, ``profile:events``,
    ``ruleset:kodex-mk`` …) -> how many skipped cases name it, the largest first: what to build
    next. A skip that names nothing counts under ``unstated``."""
    counts: dict[str, int] = {}
    for oc in outcomes:
        d = oc if isinstance(oc, dict) else oc.to_dict()
        if d.get("outcome") != "skip":
            continue
        for reason in d.get("unsupported") or ["unstated"]:
            counts[str(reason)] = counts.get(str(reason), 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def pass_rate(counts: dict) -> float | None:
    """(pass + xpass) / (cases − skip); None when every case was skipped.

    ``not_run`` counts as not passed: a case that was meant to run and did not
    is no pass. ``counts`` is {outcome: n} (a ``cases`` key is ignored)."""
    judged = sum(v for k, v in counts.items() if k not in ("skip", "cases", "pass_rate"))
    if not judged:
        return None
    return round(sum(counts.get(k, 0) for k in PASSED) / judged, 4)


def profile_tallies(outcomes: Iterable) -> dict:
    out: dict[str, dict] = {}
    for oc in outcomes:
        d = oc if isinstance(oc, dict) else oc.to_dict()
        for obs in d.get("observes") or []:
            row = out.setdefault(obs, {"cases": 0, **{o: 0 for o in OUTCOMES}})
            row["cases"] += 1
            row[d.get("outcome")] = row.get(d.get("outcome"), 0) + 1
    for row in out.values():
        row["pass_rate"] = pass_rate(row)
    return {k: out[k] for k in ALL_OBSERVATIONS if k in out}


def case_counts(cases: list[dict]) -> dict:
    """What a results file counts of its cases (dicts, as the file holds them): ``totals``,
    ``verdicts``, ``skip_reasons`` and ``profiles`` — made again from the cases by ``kodex
    merge``; a file whose counts disagree with its cases is refused (``conformance.results_io``)."""
    totals = tally(c.get("outcome") for c in cases)
    return {"totals": totals, "verdicts": verdict_count(totals),
            "skip_reasons": skip_reasons(cases), "profiles": profile_tallies(cases)}


def kit_info() -> dict:
    from conformance.serve import package_version
    return {"name": "hkk-kodex", "version": package_version()}


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

def load_xfail(path: str | Path) -> "XfailList":
    """Read an expected-failures file: {case id or glob pattern: reason}.

    Accepted shapes, by the file's suffix: any file but ``.yaml`` / ``.yml`` /
    ``.json`` is plain text, one case id per line followed by its reason
    (``4.13.2/some-case  why it fails``; ``#`` starts a comment line) — never
    parsed as YAML, so a reason holding ``: `` stays a reason; a ``.yaml`` /
    ``.yml`` / ``.json`` file is a list of ids (or of ``{id, reason}``), a
    mapping ``{xfail: [...]}`` (or ``cases:``) of the same, or a mapping
    ``{id: reason}``.

    Bounded (docs/spec/hkk-protocol-additions.md, "Limits"): a regular file of at most
    ``MAX_XFAIL_BYTES``, at most ``MAX_XFAIL_ENTRIES`` entries of which at most
    ``MAX_XFAIL_GLOBS`` globs, each entry at most ``MAX_XFAIL_ENTRY_CHARS`` characters;
    beyond one, ValueError naming the file and the line (or entry).
    """
    import yaml

    from conformance.infile import read_regular
    from conformance.loader import Loader

    path = Path(path)
    raw = read_regular(path, "expected-failures file", MAX_XFAIL_BYTES)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 (byte {raw[exc.start]:#04x} at offset "
                         f"{exc.start})") from None
    if path.suffix.lower() not in (".yaml", ".yml", ".json"):
        return _xfail_lines(text, path)
    try:
        data = yaml.load(text, Loader=Loader)  # noqa: S506 - the safe loader
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: not valid YAML/JSON ({exc})") from None
    if isinstance(data, str):
        return _xfail_lines(text, path)
    if data is None:
        return XfailList()
    if isinstance(data, dict) and set(data) & {"xfail", "cases"} and \
            isinstance(data.get("xfail", data.get("cases")), list):
        data = data.get("xfail", data.get("cases"))
    out = XfailList(source=path)
    if isinstance(data, dict):
        for n, (k, v) in enumerate(data.items(), 1):
            where = f"entry {n}"
            out.add(_xfail_text(k, path, where), _xfail_text(v, path, where), where)
    elif isinstance(data, list):
        for n, item in enumerate(data, 1):
            where = f"entry {n}"
            if isinstance(item, dict):
                cid = item.get("id") or item.get("case")
                if cid:
                    out.add(_xfail_text(cid, path, where),
                            _xfail_text(item.get("reason"), path, where), where)
            elif item is not None:
                for cid, reason in _xfail_lines(_xfail_text(item, path, where), path).items():
                    out.add(cid, reason, where)
    else:
        raise ValueError(f"{path}: expected case ids, one a line, or a YAML list or mapping")
    return out


def _xfail_text(value: Any, path: Path, where: str) -> str:
    """A case id or reason of a YAML/JSON expected-failures file: text (a number is taken as
    its text). A list or mapping is refused: written out it could be of any size (YAML
    aliases nest one inside the other)."""
    if value is None:
        return ""
    if isinstance(value, (str, int, float, bool)):
        return str(value)
    raise ValueError(f"{path}: {where}: a case id or reason is text, not a "
                     f"{'list' if isinstance(value, list) else 'mapping'}")


def _xfail_lines(text: str, source: str | Path | None = None) -> "XfailList":
    out = XfailList(source=source)
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        cid, _, reason = line.partition(" ")
        out.add(cid.rstrip(":"), reason.strip().lstrip("#:-").strip(), f"line {n}")
    return out


def _is_glob(entry: str) -> bool:
    return any(ch in entry for ch in "*?[")


class XfailList(dict):
    """Expected failures: {case id or glob: reason} (a dict, in the file's order) that
    matches case ids without trying every glob on every case: a glob is tried only on the
    ids that start with its literal beginning (the text before its first ``*``, ``?`` or
    ``[``), its pattern compiled once. An exact id wins; else the first glob in the file's
    order that matches."""

    def __init__(self, entries: dict[str, str] | None = None, source: str | Path | None = None):
        super().__init__()
        self.source = source
        self._globs: dict[str, list[tuple[int, str, Any]]] = {}   # literal beginning -> globs
        self._lengths: list[int] = []
        self._glob_count = 0
        for k, v in (entries or {}).items():
            self.add(str(k), "" if v is None else str(v))

    def add(self, entry: str, reason: str, where: str = "") -> None:
        """Add one entry (the limits apply: ValueError naming ``where`` in the file)."""
        at = f"{self.source}: {where}: " if self.source is not None and where else ""
        if len(entry) > MAX_XFAIL_ENTRY_CHARS:
            raise ValueError(f"{at}an entry of {len(entry):,} characters (the limit is "
                             f"{MAX_XFAIL_ENTRY_CHARS:,})")
        if entry not in self and len(self) >= MAX_XFAIL_ENTRIES:
            raise ValueError(f"{at}more than {MAX_XFAIL_ENTRIES:,} entries (the limit)")
        if _is_glob(entry) and entry not in self:
            if self._glob_count >= MAX_XFAIL_GLOBS:
                raise ValueError(f"{at}more than {MAX_XFAIL_GLOBS:,} globs (the limit; "
                                 "an exact case id has no such limit)")
            head = re.split(r"[*?\[]", entry, maxsplit=1)[0]
            self._globs.setdefault(head, []).append(
                (len(self), entry, re.compile(fnmatch.translate(entry))))
            self._glob_count += 1
            if len(head) not in self._lengths:
                self._lengths.append(len(head))
                self._lengths.sort()
        self[entry] = reason

    def reason(self, case_id: str) -> str | None:
        """The reason ``case_id`` is expected to fail, or None when it is not listed."""
        if case_id in self:
            return self[case_id]
        best = None
        for n in self._lengths:
            if n > len(case_id):
                break
            for order, _glob, rx in self._globs.get(case_id[:n], ()):
                if (best is None or order < best[0]) and rx.match(case_id):
                    best = (order, _glob)
                    break
        return None if best is None else self[best[1]]

    def unmatched(self, case_ids: Iterable[str]) -> list[str]:
        """The entries, in order, that match none of ``case_ids``."""
        ids = sorted(set(case_ids))
        matched = set()
        for head, globs in self._globs.items():
            start = bisect.bisect_left(ids, head)
            for _order, glob, rx in globs:
                for cid in ids[start:]:
                    if not cid.startswith(head):
                        break
                    if rx.match(cid):
                        matched.add(glob)
                        break
        idset = set(ids)
        return [e for e in self if e not in idset and e not in matched]


def _xfail_reason(case_id: str, xfail: dict[str, str] | None) -> str | None:
    if not xfail:
        return None
    if not isinstance(xfail, XfailList):
        xfail = XfailList(xfail)
    return xfail.reason(case_id)


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
    from conformance.matching import first_difference, observed_view, step_verbs

    observed = observed_view(state, events, result, refused)
    diff = first_difference(case.then, observed, len(case.when or []), step_verbs(case.when))
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
    oc = _new_outcome(case)
    try:
        chosen = _prepare(case, ruleset, impl, oc)
        if chosen is None:
            return oc
        if impl is None:
            _run_in_process(case, chosen, oc, timeout)
        else:
            _take_reply(case, oc, impl.run(case.id, chosen, case.given, case.when, case.format))
    except Exception as exc:  # a fault of the harness itself: still per case
        _harness_fault(oc, exc)
    finally:
        oc.duration_ms = round((time.perf_counter() - t0) * 1000.0, 3)
    return oc


def _new_outcome(case) -> CaseOutcome:
    return CaseOutcome(case_id=case.id, clause=case.clause, title=case.title or "",
                       file=str(case.file), line=case.line, outcome="error",
                       also=list(case.also or []), observes=observations_of(case.then),
                       needs=features_of(case.given, case.when, case.then))


def _lost(case, reason: str) -> CaseOutcome:
    """The outcome of a case whose worker process ended before reporting it (conformance.parallel)."""
    oc = _new_outcome(case)
    oc.outcome = "error"
    oc.message = reason
    return oc


def _harness_fault(oc: CaseOutcome, exc: Exception) -> None:
    oc.outcome = "error"
    oc.message = f"{type(exc).__name__}: {exc}"
    oc.traceback = _tb.format_exc()


def _prepare(case, ruleset: str | None, impl, oc: CaseOutcome) -> str | None:
    """The ruleset to run ``case`` under, or None when ``oc`` is already its
    outcome (a skip: the ruleset, a verb or an observation is not supported)."""
    chosen, why = choose_ruleset(case, ruleset)
    oc.ruleset = chosen
    if chosen is None:
        oc.outcome, oc.message = "skip", why
        oc.unsupported = [f"ruleset:{ruleset}"]
        return None
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
        oc.unsupported = [f"ruleset:{chosen}"]
        return None
    formats = getattr(impl, "formats", None) if impl is not None else None
    if formats and case.format not in formats:
        oc.outcome = "skip"
        oc.message = f"the case is {case.format}; the implementation speaks {', '.join(formats)}"
        oc.unsupported = [f"format:{case.format}"]
        return None
    if verbs is not None:
        missing = [v for v in _case_verbs(case) if v not in verbs]
        if missing:
            oc.outcome = "skip"
            oc.message = "unsupported: " + ", ".join(missing)
            oc.unsupported = [f"verb:{v}" for v in missing]
            return None
    if impl is not None and getattr(impl, "profile_declared", False):
        lacking = missing_observations(oc.observes, impl.profile)
        if lacking:
            oc.outcome = "skip"
            oc.message = ("profile: the case observes " + ", ".join(lacking)
                          + ", outside the implementation's declared profile")
            oc.unsupported = [f"profile:{o}" for o in lacking]
            return None
    if impl is not None and getattr(impl, "features_declared", False):
        lacking = missing_features(oc.needs, impl.features)
        if lacking:
            oc.outcome = "skip"
            oc.message = ("features: the case needs " + ", ".join(lacking)
                          + ", which the implementation does not declare")
            oc.unsupported = [f"feature:{f}" for f in lacking]
            return None
    return chosen


def run_reference(case, ruleset: str):
    """The reference engine (``model.engine.run_case``) on a loaded Case under ``ruleset``, its
    ``given`` and ``when`` read in the case's own format (``Case.version``: a hkk-case/2 case's
    steps mean what docs/spec/hkk-reactions.md says, not what they would mean in hkk-case/1).
    The one way the kit runs a Case in-process: the runner, the report's case pages and
    ``kodex explain`` call it, so none of them can forget the format."""
    from model import engine
    return engine.run_case(case.given, case.when, ruleset=ruleset, version=case.version)


def _run_in_process(case, ruleset: str, oc: CaseOutcome, timeout: float | None) -> None:
    try:
        res = _call_with_timeout(lambda: run_reference(case, ruleset), timeout)
    except _CaseTimeout:
        oc.outcome = "timeout"
        oc.message = f"no result within {timeout:g} s"
        return
    except Exception as exc:
        oc.outcome = "error"
        oc.message = f"engine raised {type(exc).__name__}: {exc}"
        oc.traceback = _tb.format_exc()
        return
    then = case.then if isinstance(case.then, dict) else {}
    # the events get their clauses when read (model.engine.RunResult): only a case that names them
    events = res.events if "events" in then or "no_events" in then else []
    _compare(case, oc, res.state, events, res.result, res.refused)


def _take_reply(case, oc: CaseOutcome, reply: dict) -> None:
    """Judge an implementation's reply to ``case`` (conformance.protocol)."""
    from conformance.protocol import interpret_reply

    kind, payload = interpret_reply(reply)
    if kind == "observed":
        problem = refusal_problem(payload["refused"])
        if problem:
            oc.outcome, oc.message = "error", f"malformed refusal: {problem}"
            return
        _compare(case, oc, payload["state"], payload["events"], payload["result"],
                 payload["refused"])
    else:
        oc.outcome = kind
        oc.message = payload.get("message", "")
        oc.traceback = payload.get("traceback")
        if payload.get("unsupported"):
            oc.unsupported = [str(u) for u in payload["unsupported"]]


MAX_REFUSAL_CLAUSES = 8        # refused.clauses: at most this many (docs/spec/hkk-refusals.md)


@functools.lru_cache(maxsize=1)
def _catalog_ids() -> frozenset[str]:
    from conformance.catalog import load_catalog
    return frozenset(load_catalog().ids())


def refusal_problem(refused: Any) -> str | None:
    """What is wrong with an implementation's ``refused`` (docs/spec/hkk-refusals.md): ``step`` an
    integer, ``clause`` a string; ``clauses``, when given, at most :data:`MAX_REFUSAL_CLAUSES`
    clause ids of the catalog, the first equal to ``clause``. None when it is well-formed."""
    if refused is None:
        return None
    step = refused.get("step")
    if not isinstance(step, int) or isinstance(step, bool):
        return f"refused.step must be the index of the refused step, not {step!r}"
    if not isinstance(refused.get("clause"), str):
        return f"refused.clause must be a clause id, not {refused.get('clause')!r}"
    if "clauses" not in refused or refused["clauses"] is None:
        return None
    clauses = refused["clauses"]
    if not isinstance(clauses, list) or not all(isinstance(c, str) for c in clauses):
        return "refused.clauses must be a list of clause ids"
    if len(clauses) > MAX_REFUSAL_CLAUSES:
        return f"refused.clauses lists {len(clauses)} clauses, at most {MAX_REFUSAL_CLAUSES} are allowed"
    if clauses and clauses[0] != refused["clause"]:
        return f"refused.clauses must start with refused.clause ({refused['clause']!r}), not {clauses[0]!r}"
    ids = _catalog_ids()
    unknown = [c for c in clauses if c not in ids]
    if unknown:
        return "refused.clauses names ids that are no clause of the catalog: " + ", ".join(unknown[:5])
    return None


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
              on_outcome: Callable[[CaseOutcome], None] | None = None,
              jobs: int = 1) -> RunReport:
    """Run every case; one outcome per case, in order.

    ``xfail``: a mapping from :func:`load_xfail` or a path to such a file.
    ``timeout``: per-case deadline for in-process runs (SIGALRM, main thread
    only); the ProtocolClient has its own. ``on_outcome`` is called after each
    case (the CLI prints verdicts with it). ``jobs`` > 1 (in-process runs only, where
    ``fork`` exists): the cases run in that many worker processes
    (``conformance.parallel``), the outcomes still in order.
    """
    cases = list(cases)
    if isinstance(xfail, (str, Path)):
        xfail = load_xfail(xfail)
    elif xfail and not isinstance(xfail, XfailList):
        xfail = XfailList(xfail)
    started = _now()
    t0 = time.perf_counter()
    implementation = dict(impl.implementation or {}) if impl is not None else _reference_info()
    if impl is not None and hasattr(impl, "run_many"):
        each = _run_pipelined(cases, ruleset, impl)
    elif impl is None and jobs > 1 and len(cases) > 1 and parallel.available():
        # forked before the progress bar starts its thread: a worker gets no thread's locks
        each = parallel.run_forked(cases, lambda case: run_one(case, ruleset, None, timeout=timeout),
                                   jobs, _lost, case_timeout=timeout)
    else:
        each = (run_one(case, ruleset, impl, timeout=timeout) for case in cases)
    bar = _Progress(len(cases), progress)
    outcomes: list[CaseOutcome] = []
    try:
        for oc in each:                      # one outcome per case, in order
            apply_xfail(oc, xfail)
            bounds.bound_outcome(oc)         # what is kept of it: within the limits
            outcomes.append(oc)
            if on_outcome is not None:
                on_outcome(oc)
            bar.advance(oc.case_id)
    finally:
        each.close()
        bar.close()
    report = RunReport(outcomes=outcomes, implementation=implementation,
                       ruleset=ruleset or DEFAULT_RULESET, started=started, finished=_now(),
                       duration_ms=(time.perf_counter() - t0) * 1000.0)
    if impl is not None:
        report.profile = list(getattr(impl, "profile", ALL_OBSERVATIONS))
        report.profile_declared = bool(getattr(impl, "profile_declared", False))
        report.features = list(getattr(impl, "features", ALL_FEATURES))
        report.features_declared = bool(getattr(impl, "features_declared", False))
        report.gave_up = getattr(impl, "gave_up", None)
    return report


def _run_pipelined(cases: list, ruleset: str | None, impl) -> Iterator[CaseOutcome]:
    """The outcomes of ``cases``, in order, through ``impl.run_many``: the
    implementation gets the next cases while the harness judges the replies
    (``docs/spec/hkk-protocol-additions.md``, "Requests in flight"). A case's
    ``duration_ms`` is the time from the previous case's verdict to its own."""
    prepared = []
    for case in cases:
        oc = _new_outcome(case)
        try:
            chosen = _prepare(case, ruleset, impl, oc)
        except Exception as exc:  # a fault of the harness itself: still per case
            _harness_fault(oc, exc)
            chosen = None
        prepared.append((case, oc, chosen))
    replies = impl.run_many((n, case.id, chosen, case.given, case.when, case.format)
                            for n, (case, _oc, chosen) in enumerate(prepared)
                            if chosen is not None)
    t0 = time.perf_counter()
    try:
        for n, (case, oc, chosen) in enumerate(prepared):
            if chosen is not None:
                key, reply = next(replies)
                if key != n:                 # pragma: no cover (drive keeps the order)
                    raise RuntimeError(f"reply for case {key} in place of {n}")
                try:
                    _take_reply(case, oc, reply)
                except Exception as exc:  # a fault of the harness itself: still per case
                    _harness_fault(oc, exc)
            now = time.perf_counter()
            oc.duration_ms = round((now - t0) * 1000.0, 3)
            t0 = now
            yield oc
    finally:
        replies.close()


def unavailable_report(cases: Iterable, reason: str, ruleset: str | None = None,
                       command: str | None = None) -> RunReport:
    """The report of a run whose implementation could not be started: every
    selected case ``not_run`` with the reason (written by ``--json`` so that
    a results file never claims what did not happen)."""
    now = _now()
    outcomes = [CaseOutcome(case_id=c.id, clause=c.clause, title=c.title or "",
                            file=str(c.file), line=c.line, outcome="not_run",
                            message=reason, also=list(c.also or []),
                            observes=observations_of(c.then),
                            needs=features_of(c.given, c.when, c.then)) for c in cases]
    return RunReport(outcomes=outcomes,
                     implementation=bounds.bound_implementation({"command": command})
                     if command else {},
                     ruleset=ruleset or DEFAULT_RULESET, started=now, finished=now,
                     unavailable=reason)


# --------------------------------------------------------------------------
# shards and merging (issue 10)

def shard_of(case_id: str, count: int) -> int:
    """The shard (1..count) of a case: a stable hash of its id alone, so a case
    stays in its shard when unrelated cases are added or removed."""
    import hashlib
    digest = hashlib.sha256(str(case_id).encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def select_shard(cases: Iterable, index: int, count: int) -> list:
    """The cases of shard ``index`` of ``count`` (1-based), in their order."""
    if count < 1 or not 1 <= index <= count:
        raise ValueError(f"shard {index}/{count}: expected K/N with 1 ≤ K ≤ N")
    return [c for c in cases if shard_of(c.id, count) == index]


# what every results file of one merged run must share
_MERGE_SAME = ("schema", "kit", "implementation", "profile", "profile_declared", "features",
               "features_declared", "ruleset")
# the fields of a merged results file, in the order ``kodex run --json`` writes them (those an
# input may lack — written before they were added — are written only when the inputs have them)
_MERGED_FIELDS = ("schema", "kit", "implementation", "profile", "profile_declared", "features",
                  "features_declared", "ruleset", "started", "finished", "duration_ms", "gave_up",
                  "unavailable", "cases", "totals", "verdicts", "skip_reasons", "profiles")
_MERGED_IF_GIVEN = ("features", "features_declared", "verdicts", "skip_reasons")


def merge_results(named: list[tuple[str, dict]]) -> dict:
    """One results file (``hkk-results/2``) from several of one run split in
    shards (``kodex run --shard K/N``). Refuses (ValueError) inputs that
    disagree on the kit, implementation, profile, declared features or ruleset
    (``_MERGE_SAME``), or that hold the same case twice. The totals, ``verdicts``,
    ``skip_reasons`` and per-observation tallies are recomputed from the cases (the sums of
    the inputs', which agree with their cases); ``duration_ms`` is the sum of the inputs';
    ``started`` the earliest, ``finished`` the latest; ``gave_up`` and ``unavailable`` are the
    first input's that has one (with the file named). The inputs are results files as
    ``conformance.results_io.read_results`` gives them (valid, totals that agree)."""
    if not named:
        raise ValueError("nothing to merge")
    problems = []
    first_name, first = named[0]
    for name, data in named:
        if data.get("schema") != RESULTS_SCHEMA:
            problems.append(f"{name}: schema {data.get('schema')!r}; merge reads "
                            f"{RESULTS_SCHEMA} files only")
    for key in _MERGE_SAME:
        for name, data in named[1:]:
            if data.get(key) != first.get(key):
                problems.append(f"{name}: {key} differs from {first_name}'s "
                                f"({_short_json(data.get(key))} vs {_short_json(first.get(key))})")
    seen: dict[str, str] = {}
    for name, data in named:
        for case in data.get("cases") or []:
            cid = str(case.get("case_id"))
            if cid in seen:
                problems.append(f"{name}: case {cid!r} is also in {seen[cid]} (overlapping inputs)")
            else:
                seen[cid] = name
    if problems:
        shown = problems[:20] + ([f"… and {len(problems) - 20} more"] if len(problems) > 20 else [])
        raise ValueError("cannot merge:\n  " + "\n  ".join(shown))
    cases = [c for _, data in named for c in data.get("cases") or []]
    gave_up = next(({**d["gave_up"], "file": n} if isinstance(d["gave_up"], dict) else d["gave_up"]
                    for n, d in named if d.get("gave_up")), None)
    unavailable = next((f"{n}: {d['unavailable']}" for n, d in named if d.get("unavailable")), None)
    merged = {key: first.get(key) for key in _MERGE_SAME}
    merged.update({
        "started": min(str(d.get("started") or "") for _, d in named),
        "finished": max(str(d.get("finished") or "") for _, d in named),
        "duration_ms": round(sum(float(d.get("duration_ms") or 0) for _, d in named), 3),
        "gave_up": gave_up,
        "unavailable": unavailable,
        "cases": cases,
        **case_counts(cases),
    })
    given = {k for k in _MERGED_IF_GIVEN if any(k in d for _, d in named)}
    return {k: merged[k] for k in _MERGED_FIELDS if k not in _MERGED_IF_GIVEN or k in given}


def exit_status(outcomes: Iterable[str], *, input_errors: bool = False,
                unusable: bool = False) -> int:
    """``kodex run``'s exit status (docs/spec/hkk-results.md), in the order 2, 3, 1, 4, 0:
    input errors; the implementation unusable or given up; a fail, error, timeout, xpass
    or not-run case; nothing tested; every tested case passed."""
    outcomes = list(outcomes)
    if input_errors:
        return 2
    if unusable:
        return 3
    if any(o in BAD_OUTCOMES for o in outcomes):
        return 1
    if all(o in NO_VERDICT for o in outcomes):
        return 4
    return 0


def merged_exit_code(data: dict) -> int:
    """``kodex run``'s exit status for a merged results file (no input errors
    are known from a results file)."""
    return exit_status((c.get("outcome") for c in data.get("cases") or []),
                       unusable=bool(data.get("unavailable") or data.get("gave_up")))


def _short_json(value: Any, limit: int = 120) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[:limit] + "…"
