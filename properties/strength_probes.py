"""The input probes of ``kodex strength``: malformed inputs, each with the input error the
reference engine must raise, and priority tables, each with the error or the verdicts its
policy must give — a second oracle beside the corpus.

A case of the corpus is well-formed by definition, so a mutant that only loosens a check of
the given or step data survives every case: it differs on malformed input alone. Saying so in
properties/strength_equivalent.yaml is a claim, not equivalence (the mutant does behave
differently). The probes replace the claim with a check: a mutant that survives the corpus
runs them (in its forked child, properties/strength.py ``_child``), and when any probe's
outcome differs from the reference engine's — another message, no error, another exception, a
timeout — the mutant is killed, its killer ``probe:<id>``. The report counts those kills apart
(the corpus's own strength stays visible).

The probe files: ``properties/input_probes/*.yaml``, one per engine module they exercise, in
the format ``kodex-input-probes/1`` (``properties/input_probes.schema.json``; the header of each
file and docs/development.md "Corpus strength" say how to write one). They are read with the
kit's safe loader and checked whole before anything runs: a problem is a :class:`ProbeError`,
one line naming the file, the line and the field, and nothing is loaded.

Two kinds of probe (docs/development.md "Input probes"):

- a *case probe* (``given``/``when``): its outcome (:meth:`Probe.outcome`) is
  ``model.engine.run_case(given, when, ruleset, version)`` run in-process under a deadline,
  whatever ``model`` imports at the time (the mutant in the child), as one text: the exception's
  class (module and name) and message, or, for a run that raised nothing, a digest of its state,
  events, refusal and result. Its reference outcome must be an input error containing ``expect``.
- a *policy probe* (``policy_table``, optional ``policy``): a priority table a rules editor could
  write (shaped like model/priority_policies.yaml). Its outcome is, as one JSON text, what
  ``model.priority`` makes of it: ``compile_policy(policy, table=...)`` and the check of the
  whole table that ``load_policy_table`` makes of a file (``_validate_table``, then
  ``policy_names``), each an exception (class and message) or its result; and, for ``resolve``,
  the verdict of each pair of effects (``Policy.resolve``: winner, clause, conflict; and
  ``Policy.beats`` both ways). Its reference outcome must be a ``PolicyError`` containing
  ``expect`` (from the first of the two steps that raises), or, for ``resolve``, the winners
  written by hand in the probe (from the criteria, never from the engine).
"""
from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
import time
from pathlib import Path
from typing import Any, Iterable

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_DIR = HERE / "input_probes"
SCHEMA_PATH = HERE / "input_probes.schema.json"
FORMAT = "kodex-input-probes/1"
PREFIX = "probe:"               # a mutant's killer when a probe killed it
# the input errors of the engine (model/errors.py, model/ruleset.py): what a probe's reference
# outcome must be
INPUT_ERRORS = ("InputProblem", "RulesetError")
POLICY_ERROR = "PolicyError"    # model/priority.py: a malformed priority table


class ProbeError(ValueError):
    """A probe file that cannot be used (one line: file, line, field), or probes that do not
    probe (the reference engine does not raise the input error they expect, or does not give
    the verdicts written in them)."""


@dataclasses.dataclass
class Probe:
    id: str
    checks: str                 # module:Class.function whose input check it exercises
    title: str
    expect: str | None          # text the reference's input error must contain (None: resolve)
    given: dict | None = None
    when: list | None = None
    version: int = 1
    ruleset: str | None = None
    file: str = ""
    line: int = 0
    # a policy probe: a priority table, the policy compiled from it (None: the table's default),
    # and the pairs [{a, b, winner, clause?}] whose verdicts are written by hand
    policy_table: Any = None
    policy: str | None = None
    resolve: list | None = None

    @property
    def is_policy(self) -> bool:
        return self.policy_table is not None

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    @property
    def digest(self) -> str:
        """What decides the probe's outcome: a cached verdict it gave stays valid while this does."""
        what = ([self.given, self.when, self.version, self.ruleset] if not self.is_policy else
                ["policy", self.policy_table, self.policy,
                 [[r["a"], r["b"]] for r in self.resolve or ()]])
        return hashlib.sha256(json.dumps(what, sort_keys=True).encode("utf-8")).hexdigest()

    def outcome(self, package: str = "model", timeout: float = 2.0) -> str:
        """The run of the probe on the engine ``package`` imports now, as one text."""
        from conformance.runner import _CaseTimeout, _call_with_timeout
        if self.is_policy:
            return self._policy_outcome(package, timeout)
        engine = importlib.import_module(f"{package}.engine")
        given, when = json.loads(json.dumps([self.given, self.when]))     # the probe's own stay intact
        kw: dict[str, Any] = {"version": self.version}
        if self.ruleset is not None:
            kw["ruleset"] = self.ruleset
        try:
            res = _call_with_timeout(lambda: engine.run_case(given, when, **kw), timeout)
        except _CaseTimeout:
            return f"timeout: no result within {timeout:g} s"
        except Exception as exc:  # noqa: BLE001 - what the engine raises is the outcome
            return f"raised {type(exc).__module__}.{type(exc).__qualname__}: {exc}"
        ran = json.dumps({"state": res.state, "events": res.events, "refused": res.refused,
                          "result": res.result}, sort_keys=True, default=str)
        return f"ran: {hashlib.sha256(ran.encode('utf-8')).hexdigest()}"

    def _policy_outcome(self, package: str, timeout: float) -> str:
        """A policy probe's outcome: one JSON text of ``{"compile", "table", "verdicts"}``
        (:func:`policy_outcome` reads it back)."""
        from conformance.runner import _CaseTimeout, _call_with_timeout
        pr = importlib.import_module(f"{package}.priority")
        table = json.loads(json.dumps(self.policy_table))                  # the probe's stays intact

        def run() -> dict:
            out: dict[str, Any] = {"compile": None, "table": None, "verdicts": None}
            try:
                policy = pr.compile_policy(self.policy, table=table)
                out["compile"] = f"compiled {policy.name}"
            except Exception as exc:  # noqa: BLE001 - what it raises is the outcome
                policy = None
                out["compile"] = _raised(exc)
            try:                            # what load_policy_table does to a file's table
                pr._validate_table(table, "policy table")
                out["table"] = f"valid: {pr.policy_names(table)}"
            except Exception as exc:  # noqa: BLE001
                out["table"] = _raised(exc)
            if policy is not None and self.resolve is not None:
                verdicts = []
                for pair in self.resolve:
                    a, b = pr.Effect.from_dict(pair["a"]), pr.Effect.from_dict(pair["b"])
                    v = policy.resolve(a, b)
                    verdicts.append([v.winner, v.clause, v.conflict,
                                     policy.beats(a, b), policy.beats(b, a)])
                out["verdicts"] = verdicts
            return out

        try:
            got = _call_with_timeout(run, timeout)
        except _CaseTimeout:
            return f"timeout: no result within {timeout:g} s"
        except Exception as exc:  # noqa: BLE001 - e.g. an effect the mutant cannot build
            return _raised(exc)
        return json.dumps(got, sort_keys=True, default=str)

    def policy_problem(self, got: str) -> str | None:
        """Why a policy probe's reference outcome ``got`` does not probe, else None."""
        out = policy_outcome(got)
        if out is None:
            return f"the reference gave {got[:200]!r}"
        if self.expect is not None:
            first = next((x for x in (out["compile"], out["table"]) if x.startswith("raised ")), None)
            head, _, message = (first or "").partition(": ")
            if first is None or head.rsplit(".", 1)[-1] != POLICY_ERROR or self.expect not in message:
                return (f"the reference gave {(first or out['compile'] + '; ' + out['table'])[:200]!r}, "
                        f"not a {POLICY_ERROR} whose message contains {self.expect!r}")
            return None
        if not (out["compile"].startswith("compiled ") and out["table"].startswith("valid: ")):
            bad = out["compile"] if not out["compile"].startswith("compiled ") else out["table"]
            return f"the table is malformed: {bad[:200]!r}"
        wrong = []
        for i, (want, (winner, clause, conflict, ab, ba)) in enumerate(zip(self.resolve, out["verdicts"])):
            said = "conflict" if conflict else winner or "none"
            expected_beats = {"a": (True, False), "b": (False, True), "none": (False, False),
                              "conflict": (True, True)}[want["winner"]]
            if said != want["winner"] or ("clause" in want and clause != want["clause"]) \
                    or (ab, ba) != expected_beats:
                wrong.append(f"resolve.{i}: {said} by {clause} (beats: {ab}, {ba}), written "
                             f"{want['winner']}" + (f" by {want['clause']}" if "clause" in want else ""))
        return "; ".join(wrong) or None


def _raised(exc: BaseException) -> str:
    return f"raised {type(exc).__module__}.{type(exc).__qualname__}: {exc}"


def policy_outcome(got: str) -> dict | None:
    """A policy probe's outcome read back, or None when it is not one (a timeout, an error)."""
    try:
        out = json.loads(got)
    except ValueError:
        return None
    return out if isinstance(out, dict) else None


# --------------------------------------------------------------------------
# reading the probe files

def _schema_validator():
    import jsonschema
    return jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


def _short(value: Any, limit: int = 60) -> str:
    text = " ".join(repr(value).split())
    return text if len(text) <= limit else text[:limit] + "…"


def _schema_message(err) -> tuple[list, str]:
    """(path, message) of a schema error, worded for a person (jsonschema's quotes the instance)."""
    path = list(err.absolute_path)
    v = err.validator
    if v == "additionalProperties" and isinstance(err.instance, dict):
        known = set((err.schema or {}).get("properties", {}))
        extra = sorted(str(k) for k in err.instance if k not in known)
        if extra:
            return path + [extra[0]], f"unknown field (known: {', '.join(sorted(known))})"
    if v == "required":
        missing = [k for k in err.validator_value if k not in err.instance]
        return path, f"`{missing[0] if missing else '?'}` is required"
    if v == "anyOf":                         # the probe's anyOf: given, when or policy_table
        return path, "a probe has a `given`, a `when` (or both), or a `policy_table`"
    if v == "oneOf":                         # a policy probe's expect or resolve
        return path, "a policy probe (`policy_table`) has an `expect` or a `resolve`, not both"
    if v == "not":
        where = list(err.schema_path)
        if "then" in where:
            return path, "a policy probe (`policy_table`) has no `given`, `when`, `version` or `ruleset`"
        if "else" in where:
            return path, "`resolve` and `policy` belong to a policy probe (one with a `policy_table`)"
        return path, "null is no table"
    if v == "pattern":
        return path, f"{_short(err.instance)} does not match {err.validator_value}"
    if v in ("type", "const", "enum", "minLength", "minItems"):
        return path, err.message if len(err.message) <= 120 else f"{_short(err.instance)}: {v}"
    return path, f"{_short(err.instance)}: {err.message[:120]}"


def _field(path: list) -> str:
    return ".".join(str(p) for p in path)


def _duplicate_key(text: str) -> tuple[int, str] | None:
    """(line, key) of the first key written twice in one mapping: YAML keeps the last one and the
    first would be lost without a word."""
    import yaml
    from yaml.nodes import MappingNode, SequenceNode

    from conformance.loader import Loader
    try:
        root = yaml.compose(text, Loader=Loader)
    except yaml.YAMLError:
        return None
    stack = [root] if root is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, MappingNode):
            seen: set = set()
            for k, v in node.value:
                key = getattr(k, "value", None)
                if key in seen:
                    return k.start_mark.line + 1, str(key)
                seen.add(key)
                stack.append(v)
        elif isinstance(node, SequenceNode):
            stack.extend(node.value)
    return None


def load_file(path: Path) -> list[Probe]:
    """The probes of one file, checked against the schema; a problem is a :class:`ProbeError`."""
    import yaml

    from conformance.explain import line_of, pointer_lines
    from conformance.loader import Loader, pointer
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ProbeError(f"{path}:1: cannot be read: {exc}") from None
    try:
        data = yaml.load(text, Loader=Loader)  # noqa: S506 - the kit's safe loader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ProbeError(f"{path}:{mark.line + 1 if mark else 1}: not YAML: "
                         f"{getattr(exc, 'problem', None) or exc}") from None
    dup = _duplicate_key(text)
    if dup:
        raise ProbeError(f"{path}:{dup[0]}: {dup[1]}: written twice in one mapping")
    lines = pointer_lines(text)
    errors = list(_schema_validator().iter_errors(data))
    if errors:
        # the one most worth saying: the deepest; at one depth an unknown field (a misspelt name)
        # before a missing one, which before a probe of no kind or of two kinds
        rank = {"additionalProperties": 0, "required": 2, "anyOf": 3, "oneOf": 3, "not": 3}
        err = min(errors, key=lambda x: (-len(x.absolute_path), rank.get(x.validator, 1),
                                         [str(p) for p in x.absolute_path]))
        where, message = _schema_message(err)
        field = _field(where)
        raise ProbeError(f"{path}:{line_of(lines, pointer(*where))}: "
                         f"{field + ': ' if field else ''}{message}")
    out = []
    for i, p in enumerate(data["probes"]):
        line = line_of(lines, pointer("probes", i))
        try:
            json.dumps(p, allow_nan=False)
        except (TypeError, ValueError):
            raise ProbeError(f"{path}:{line}: probes.{i}: not JSON data (a date, a timestamp or "
                             f"binary? quote it)") from None
        out.append(Probe(id=p["id"], checks=p["checks"], title=p["title"], expect=p.get("expect"),
                         given=p.get("given"), when=p.get("when"), version=p.get("version", 1),
                         ruleset=p.get("ruleset"), file=str(path), line=line,
                         policy_table=p.get("policy_table"), policy=p.get("policy"),
                         resolve=p.get("resolve")))
    return out


def probe_files(directory: Path) -> list[Path]:
    """The probe files of a directory: its ``*.yaml`` files (not recursive), in name order."""
    return sorted(p for p in Path(directory).glob("*.yaml") if p.is_file())


def load_probes(directory: Path | str = DEFAULT_DIR, root: Path = ROOT) -> list[Probe]:
    """Every probe of the directory's files, checked whole (each file against the schema, ids
    unique over all files, ``checks`` naming a function of the code under ``root``) before any
    is returned; a problem is a :class:`ProbeError`."""
    from properties.code_names import defines
    directory = Path(directory)
    if not directory.is_dir():
        raise ProbeError(f"{directory}: no such directory of input probes")
    files = probe_files(directory)
    if not files:
        raise ProbeError(f"{directory}: no probe file (*.yaml) in it")
    out: list[Probe] = []
    first: dict[str, Probe] = {}
    for path in files:
        for p in load_file(path):
            if p.id in first:
                raise ProbeError(f"{p.where}: id: {p.id!r} is already the id of the probe at "
                                 f"{first[p.id].where} (ids are unique over all probe files)")
            if not defines(p.checks, root):
                raise ProbeError(f"{p.where}: checks: {p.checks!r} names no function of the code "
                                 f"(`module:Class.function`, as the strength report's `where`)")
            first[p.id] = p
            out.append(p)
    return out


# --------------------------------------------------------------------------
# the oracle

def probe_killer(killer: str | None) -> str | None:
    """The probe id of a killer ``probe:<id>``, else None (a case of the corpus, or no killer)."""
    return killer[len(PREFIX):] if killer and killer.startswith(PREFIX) else None


class ProbeOracle:
    """The probes, run against the reference engine once (:meth:`prepare`) and against each
    mutant the corpus lets through (:meth:`run`, in the mutant's child)."""

    package = "model"

    def __init__(self, probes: list[Probe], directory: Path | str | None = None,
                 timeout: float = 2.0):
        self.probes = {p.id: p for p in probes}
        self.directory = str(directory) if directory is not None else None
        self.timeout = timeout
        self.reference: dict[str, str] = {}
        self.digests = {p.id: p.digest for p in probes}
        self.digest = hashlib.sha256(json.dumps(sorted(self.digests.items())).encode()).hexdigest()
        self.baseline_seconds = 0.0

    @classmethod
    def from_dir(cls, directory: Path | str = DEFAULT_DIR, timeout: float = 2.0) -> "ProbeOracle":
        return cls(load_probes(directory), directory, timeout)

    @property
    def files(self) -> list[str]:
        return sorted({p.file for p in self.probes.values()})

    def baseline_problems(self) -> list[str]:
        """Runs every probe on the engine imported now (the reference) and keeps its outcome;
        returns one line per probe that does not probe: its outcome is not an input error whose
        message contains ``expect`` (a policy probe: :meth:`Probe.policy_problem`), or not the
        same when the probes run again in the reverse order."""
        out = []
        importlib.import_module(f"{self.package}.engine")     # its import is not the probes' cost
        t0 = time.perf_counter()
        for p in self.probes.values():
            got = self.reference[p.id] = p.outcome(self.package, self.timeout)
            if p.is_policy:
                why = p.policy_problem(got)
                if why:
                    out.append(f"{p.where}: policy probe {p.id} does not probe: {why}")
                continue
            head, _, message = got.partition(": ")
            if not (head.startswith("raised ") and head.rsplit(".", 1)[-1] in INPUT_ERRORS
                    and p.expect in message):
                out.append(f"{p.where}: input probe {p.id} does not probe: the reference engine "
                           f"gave {got[:200]!r}, not an input error ({' or '.join(INPUT_ERRORS)}) "
                           f"whose message contains {p.expect!r}")
        self.baseline_seconds = time.perf_counter() - t0
        for p in reversed(list(self.probes.values())):      # a mutant runs them in another order
            again = p.outcome(self.package, self.timeout)
            if again != self.reference[p.id]:
                out.append(f"{p.where}: input probe {p.id} gives another outcome when run again "
                           f"({again[:120]!r}): the engine keeps something between runs, so a "
                           f"difference on a mutant would prove nothing")
        return out

    def prepare(self) -> None:
        """The reference outcomes; a probe that does not probe stops the run (SystemExit, every
        such probe named)."""
        problems = self.baseline_problems()
        if problems:
            raise SystemExit("kodex strength: " + "\n".join(problems))

    def summary(self, mutants: list, detected: tuple[str, ...]) -> dict:
        """The probes in a strength report (``strength.json`` ``probes``): how many, what they
        cost, and the mutants only they killed (the corpus let them through), each with its probe.
        ``mutants``: properties/strength.py ``Mutant``; ``detected``: the statuses of a kill."""
        costs = [m.probe_seconds for m in mutants   # the whole suite ran: no probe killed it
                 if m.probe_seconds is not None and m.status not in detected]
        kills = [m for m in mutants if m.status in detected and probe_killer(m.killer)]
        return {"dir": _shown(self.directory), "files": [_shown(f) for f in self.files],
                "count": len(self.probes), "digest": self.digest,
                "baseline_seconds": round(self.baseline_seconds, 4),
                "seconds_per_survivor": round(sum(costs) / len(costs), 5) if costs else None,
                "survivors_run": len(costs),
                "kills": [{"id": m.id, "where": m.where, "snippet": m.snippet or m.change,
                           "status": m.status, "probe": probe_killer(m.killer)}
                          for m in sorted(kills, key=lambda m: (m.file, m.line, m.operator))]}

    def order(self, where: str, killed_before: Iterable[str] = ()) -> list[str]:
        """The probes for a mutant of function ``where``, likeliest killers first: those that
        killed other mutants of the function (``killed_before``, probe ids, most first), those
        whose ``checks`` names it, the rest."""
        groups = [list(killed_before), [i for i, p in self.probes.items() if p.checks == where],
                  list(self.probes)]
        return list(dict.fromkeys(i for g in groups for i in g if i in self.probes))

    def run(self, order: list[str]) -> tuple[str, str | None, str]:
        """(status, killer, detail) of the engine imported now (the mutant): ``killed`` by the
        first probe whose outcome differs from the reference's (``timeout`` when it overran),
        else ``survived``."""
        for pid in order:
            got = self.probes[pid].outcome(self.package, self.timeout)
            want = self.reference[pid]
            if got != want:
                status = "timeout" if got.startswith("timeout:") else "killed"
                return status, PREFIX + pid, f"input probe {pid}: {got[:160]} (the reference: {want[:120]})"
        return "survived", None, ""


def _shown(path: str | None) -> str | None:
    """A path as a report shows it: relative to the clone when it lies in it."""
    if path is None:
        return None
    try:
        return Path(path).resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return str(path)


def probe_cost(summary: dict) -> str:
    """What the probes cost, as a report says it (``summary``: :meth:`ProbeOracle.summary`)."""
    out = f"{summary['baseline_seconds'] * 1000:.0f} ms on the reference engine"
    if summary.get("seconds_per_survivor") is not None:
        out += (f", {summary['seconds_per_survivor'] * 1000:.0f} ms on a mutant that passes them "
                f"all (mean of {summary['survivors_run']})")
    return out


def probe_markdown(summary: dict, escape) -> list[str]:
    """The section of reports/strength.md on the mutants only a probe killed."""
    out = [f"## Killed only by an input probe ({len(summary['kills'])})", "",
           f"The corpus lets these mutants through; a malformed input of {summary['dir']} tells "
           f"them from the engine (properties/strength_probes.py): the reference engine raises "
           f"an input error on it, the mutant does not, or not the same. The "
           f"{summary['count']} probes cost {probe_cost(summary)}.", ""]
    if summary["kills"]:
        out += ["| mutant | function | change | probe |", "|---|---|---|---|"]
        out += [f"| {escape(k['id'])} | {escape(k['where'])} | `{escape(k['snippet'])}` | "
                f"{escape(k['probe'])} |" for k in summary["kills"]]
    return out


__all__ = ["DEFAULT_DIR", "FORMAT", "POLICY_ERROR", "PREFIX", "Probe", "ProbeError", "ProbeOracle",
           "load_file", "load_probes", "policy_outcome", "probe_cost", "probe_files", "probe_killer",
           "probe_markdown"]
