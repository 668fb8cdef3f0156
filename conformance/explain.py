"""``kodex explain``: what the reference engine does with a situation, step by step, and which
clause decided each thing.

A situation is a case without ``then`` (or with one: it is then checked too, every
difference shown), given as a case file and ``-k ID``, a directory (the corpus by default) and
``-k``, or YAML on standard input (``-``). Besides a case file, the input may be one case
mapping or a bare ``{given, when}``: what it leaves out (``id``, ``clause``, ``title``,
``then``) is filled in and said so; errors name the input's own lines.

Each situation runs in its case format (hkk-case/1 or hkk-case/2, docs/spec/hkk-versions.md):
a case file's ``format`` (a ``format`` beside one situation's ``given`` and ``when`` counts the
same), else ``--format`` (default hkk-case/1) — the same steps can mean different things in
the two (docs/spec/hkk-reactions.md, "What reads differently").

For each situation, under its ruleset (``--ruleset``, else the case's own, else ``kodex``):

* the conflicts of effects already in force in ``given`` and how the priority order decides
  them (no event reports them: they were there before the first step);
* each step with its events, each event with the clause that produced it (model/event_clauses.py,
  the ``clause`` field of docs/spec/hkk-vocabulary.md) and its Hungarian title, and where that
  clause is one of a conflict of the register (conformance/conflicts.yaml) the reading the
  ruleset uses; the ruleset's parameters traced to that clause (``regeneration_per_turn = 4``,
  136.7); a refused step with its clause and message;
* what happens when the steps run out (a dying creature dies, an unanswered decision takes its
  default);
* the final state against ``given``: every field that changed (before → after) and the result;
* with a ``then``, whether it holds and every difference (``conformance.matching.all_differences``);
* warnings: ``then: {}`` checks nothing; an effect whose scope reaches nothing (99.5);
* ``--all-rulesets``: the same situation under every ruleset, grouped by outcome, with the
  readings that differ between the groups.

``--json``: one object, schema ``hkk-explain/1``::

    {"schema": "hkk-explain/1", "kit": {...}, "situations": [{
        "id", "clause", "title", "file", "line", "format", "filled": [names], "ruleset",
        "readings": {conflict option: reading},
        "given_conflicts": [{"target", "subject", "winner", "losers", "clause"}],
        "steps": [{"index", "verb", "args", "by", "events": [EVENT], "refused"?: {...},
                   "pending"?: {...}}],
        "end_of_run": [EVENT],
        "changes": [{"path", "before", "after", "clause"?}], "result",
        "check": null | {"holds", "differences": [{"path", "expected", "actual", "message"}]},
        "warnings": [text],
        "rulesets"?: [{"rulesets": [names], "outcome": {...}, "differs_by": [...]}]}]}
    EVENT = the engine's event (with ``clause`` / ``clauses``) + "explained":
            [{"clause", "title", "readings": [...], "parameters": [...]}]

Exit status: 0 every situation explained (and every ``then`` given holds); 1 a ``then`` does
not hold; 2 bad input (a file, YAML, a case, ``-k`` matching nothing, an unknown ruleset, a step
the engine cannot read).
"""
from __future__ import annotations

import copy
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

SCHEMA = "hkk-explain/1"
PLACEHOLDER_CLAUSE = "3"          # a situation names no clause: checked, never shown
EXIT_OK, EXIT_NOT_HELD, EXIT_INPUT = 0, 1, 2


class ExplainInputError(Exception):
    """Bad input: reported as one line each, exit status 2."""


@dataclass
class Situation:
    case: Any                         # conformance.loader.Case
    has_then: bool = True
    filled: list = field(default_factory=list)   # the case fields the input left out


# --------------------------------------------------------------------------
# reading situations

def pointer_lines(text: str) -> dict[str, int]:
    """JSON pointer → 1-based line of every node of a YAML text (empty when it does not parse)."""
    import yaml
    from yaml.nodes import MappingNode, SequenceNode

    from conformance.loader import Loader, join
    try:
        root = yaml.compose(text, Loader=Loader)
    except yaml.YAMLError:
        return {}
    out: dict[str, int] = {}
    stack = [(root, "", None)] if root is not None else []
    while stack:
        node, ptr, line = stack.pop()
        out[ptr] = line or node.start_mark.line + 1       # a field: the line of its key
        if isinstance(node, MappingNode):
            for k, v in node.value:
                stack.append((v, join(ptr, getattr(k, "value", "")), k.start_mark.line + 1))
        elif isinstance(node, SequenceNode):
            for i, v in enumerate(node.value):
                stack.append((v, join(ptr, i), None))
    return out


def line_of(lines: dict[str, int], ptr: str) -> int:
    while ptr and ptr not in lines:
        ptr = ptr.rsplit("/", 1)[0]
    return lines.get(ptr, 1)


def situations_from_text(text: str, name: str, fmt: str | None = None
                         ) -> tuple[list[Situation], list[str]]:
    """The situations of one YAML text (a case file, one case or ``{given, when}``, a list of
    cases) and the input errors, each ``name:line: pointer: message``.

    Each situation is read in a case format (hkk-case/N): the ``format`` the text names (a case
    file's, or beside one situation's ``given`` and ``when``), else ``fmt`` (``--format``;
    default hkk-case/1). The loader reads it (``Case.version``) and refuses an unknown one."""
    import yaml

    from conformance.loader import FORMAT, FORMATS, Loader, load_text
    fmt = fmt or FORMAT
    try:
        data = yaml.load(text, Loader=Loader)  # noqa: S506 - the safe loader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        return [], [f"{name}:{line}: not valid YAML: {getattr(exc, 'problem', None) or exc}"]
    if isinstance(data, dict) and "format" in data:
        fmt = data["format"]                     # the input's own; the loader checks it
    if isinstance(data, dict) and "cases" in data:
        items, prefix = data.get("cases"), "/cases"
        complete = isinstance(items, list) and data.get("format") in FORMATS and all(
            isinstance(c, dict) and {"id", "clause", "title", "then"} <= set(c) for c in items)
        if complete or not isinstance(items, list):
            res = load_text(text, name)          # the runner's loading, the input's own lines
            return [Situation(c) for c in res.cases], [str(e) for e in res.errors]
    elif isinstance(data, dict):
        items, prefix = [{k: v for k, v in data.items() if k != "format"}], None
    elif isinstance(data, list):
        items, prefix = data, ""
    else:
        return [], [f"{name}:1: expected a case file, a case or a situation "
                    f"({{given, when}}), not {type(data).__name__}"]
    filled: list[list[str]] = []
    cases = []
    for i, c in enumerate(items):
        if not isinstance(c, dict):
            cases.append(c)
            filled.append([])
            continue
        c = dict(c)
        gaps = []
        for key, value in (("id", f"situation-{i + 1}"), ("clause", PLACEHOLDER_CLAUSE),
                           ("title", "a situation"), ("then", {})):
            if key not in c:
                c[key] = value
                gaps.append(key)
        cases.append(c)
        filled.append(gaps)
    doc = {"format": fmt, "cases": cases}
    try:
        made = yaml.safe_dump(doc, allow_unicode=True, sort_keys=False)
    except yaml.YAMLError as exc:        # pragma: no cover - the safe loader's data dumps
        return [], [f"{name}:1: cannot read: {exc}"]
    res = load_text(made, name)
    lines = pointer_lines(text)

    def original(ptr: str) -> str:
        if ptr == "/format" and isinstance(data, dict) and "format" in data:
            return ptr
        if not ptr.startswith("/cases"):
            return ""
        rest = ptr[len("/cases"):]
        if prefix is None:               # one case: /cases/0/x → /x
            rest = rest.split("/", 2)[2] if rest.count("/") >= 2 else ""
            return "/" + rest if rest else ""
        return prefix + rest

    errors = []
    for e in res.errors:
        ptr = original(e.pointer)
        errors.append(f"{name}:{line_of(lines, ptr)}: {ptr or '/'}: {e.message}")
    out = []
    for case in res.cases:
        i = case.index
        ptr = original(f"/cases/{i}")
        case.line = line_of(lines, ptr)
        gaps = filled[i] if i < len(filled) else []
        out.append(Situation(case, has_then="then" not in gaps, filled=gaps))
    return out, errors


def read_input(paths: list[str], stdin=None, fmt: str | None = None
               ) -> tuple[list[Situation], list[str]]:
    """Situations from files, directories (the runner's loading) and ``-`` (standard input);
    ``fmt``: the case format of a situation that names none (:func:`situations_from_text`)."""
    from conformance.loader import MAX_FILE_BYTES, load_files
    situations: list[Situation] = []
    errors: list[str] = []
    for p in paths:
        if p == "-":
            stream = stdin if stdin is not None else sys.stdin.buffer
            raw = stream.read(MAX_FILE_BYTES + 1)
            if isinstance(raw, str):
                raw = raw.encode("utf-8")
            name = "<stdin>"
        else:
            path = Path(p)
            if path.is_dir():
                res = load_files([path])
                situations += [Situation(c) for c in res.cases]
                errors += [str(e) for e in res.errors]
                continue
            name = p
            try:
                if not path.exists():
                    raise FileNotFoundError
                if not path.is_file():
                    errors.append(f"{p}: not a regular file")
                    continue
                with open(path, "rb") as fh:
                    raw = fh.read(MAX_FILE_BYTES + 1)
            except FileNotFoundError:
                errors.append(f"{p}: no such file or directory")
                continue
            except OSError as exc:
                errors.append(f"{p}: cannot read: {exc.strerror or exc}")
                continue
        if len(raw) > MAX_FILE_BYTES:
            errors.append(f"{name}:1: larger than {MAX_FILE_BYTES} bytes")
            continue
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line = raw[:exc.start].count(b"\n") + 1
            errors.append(f"{name}:{line}: not UTF-8 (byte offset {exc.start})")
            continue
        found, errs = situations_from_text(text, name, fmt)
        situations += found
        errors += errs
    return situations, errors


# --------------------------------------------------------------------------
# what happens

def _conflict_options(conflicts: list[dict]) -> list[tuple[dict, set[str]]]:
    out = []
    for entry in conflicts:
        ids = {str(c) for c in entry.get("clauses") or []}
        for r in (entry.get("readings") or {}).values():
            if isinstance(r, dict) and r.get("clause"):
                ids.add(str(r["clause"]))
        out.append((entry, ids))
    return out


def _reading_of(rules, option: Any) -> str | None:
    option = str(option or "")
    if option == "priority_policy":
        return rules.priority_policy
    if option.startswith("readings."):
        return rules.readings.get(option.split(".", 1)[1])
    return None


def _under(cid: str, ids: Iterable[str]) -> bool:
    from conformance.catalog import Catalog
    return any(cid == i or Catalog.is_descendant(cid, i) for i in ids)


class Explainer:
    """Runs situations on the reference engine and says why each thing happened."""

    def __init__(self, catalog=None, conflicts: list | None = None, numbers: list | None = None):
        from conformance.catalog import load_catalog
        self.catalog = catalog if catalog is not None else load_catalog()
        if conflicts is None:
            from reports.coverage import load_conflicts
            conflicts = load_conflicts()
        self.conflicts = _conflict_options(conflicts)
        if numbers is None:
            from conformance.rule_numbers import traced_numbers
            numbers = traced_numbers(catalog=self.catalog)
        self.numbers = numbers

    # ------------------------------------------------------------ one clause
    def why(self, cid: str, rules, event: dict | None = None) -> dict:
        """A clause with its title, the readings of the register behind it and the ruleset's
        parameters traced to it."""
        readings = []
        for entry, ids in self.conflicts:
            policy = event is not None and event.get("event") == "conflict_resolved" \
                and entry.get("option") == "priority_policy"
            if policy or _under(cid, ids):
                value = _reading_of(rules, entry.get("option"))
                if value is not None:
                    readings.append({"conflict": entry.get("id"), "option": entry.get("option"),
                                     "reading": value, "default": entry.get("default")})
        params = []
        for t in self.numbers:
            if t.file.startswith("model/rulesets/") and cid in t.clauses:
                value = getattr(rules, t.key, None)
                params.append({"key": t.key, "value": t.value if value is None else value,
                               "ruleset": rules.name, "defined": f"{t.file}:{t.line}"})
        cl = self.catalog.get(cid)
        text = " ".join((cl.text or "").split()) if cl is not None else ""
        return {"clause": cid, "title": self.catalog.label(cid),
                "text": text if len(text) <= 240 else text[:239].rstrip() + "…",
                "readings": readings, "parameters": params}

    def event(self, ev: dict, rules) -> dict:
        from model.event_clauses import clauses_of
        out = dict(ev)
        named = list(ev.get("clauses") or []) or clauses_of(ev)
        out["explained"] = [self.why(c, rules, ev) for c in named]
        return out

    # ------------------------------------------------------------ one situation
    def explain(self, sit: Situation, ruleset: str) -> dict:
        """The whole account of one situation under ``ruleset`` (raises ExplainInputError for a
        state or step the engine cannot read)."""
        from conformance.matching import all_differences, observed_view, step_verbs
        from conformance.runner import run_reference
        from model import continuous, engine, numbers, stats
        from model.errors import InputProblem
        from model.ruleset import load_ruleset
        from model.state import from_given, jcopy
        from model.view import to_dict

        case = sit.case
        rules = load_ruleset(ruleset)
        when = jcopy(case.when or [])
        try:
            state = from_given(case.given, rules, case.version)    # read in the case's format
            before = to_dict(state, rules)
            given_conflicts = []
            if continuous.any_in_force(state):
                for c in numbers.conflicts(state, rules.priority_policy, stats.frozen):
                    given_conflicts.append({**{k: c.get(k) for k in ("target", "subject", "winner",
                                                                     "losers", "clause")},
                                            "explained": [self.why(str(c["clause"]), rules,
                                                                   {"event": "conflict_resolved"})]
                                            if c.get("clause") else []})
            steps, refused, cur = [], None, state
            for i, step in enumerate(when):
                verb, args = next(iter(step.items())) if isinstance(step, dict) and step else (None, {})
                by = (args or {}).get("by", cur.active) if isinstance(args, dict) else cur.active
                out = engine.apply(cur, step, rules)
                row = {"index": i, "verb": verb, "args": args, "by": by}
                if out.refusal is not None:
                    r = out.refusal
                    refused = {"step": i, "clause": r.clause, "message": r.message}
                    if r.also:
                        refused["clauses"] = list(r.clauses)
                    row["refused"] = {**refused, "explained": [self.why(c, rules) for c in
                                                               (list(r.clauses) if r.also else [r.clause])]}
                    row["events"] = []
                    steps.append(row)
                    break
                row["events"] = [self.event(ev, rules) for ev in out.events]
                if out.state.pending:
                    row["pending"] = copy.deepcopy(out.state.pending)
                steps.append(row)
                cur = out.state
            run = run_reference(case, ruleset)
        except InputProblem as exc:
            raise ExplainInputError(f"{case.file}:{case.line}: {case.id}: the engine cannot read "
                                    f"it: {exc}") from None
        shown = [ev for s in steps for ev in s["events"]]
        plain = [{k: v for k, v in ev.items() if k != "explained"} for ev in shown]
        events, after, result = run.events, run.state, run.result
        if plain != events[:len(plain)]:          # pragma: no cover - one engine, one order
            raise RuntimeError(f"{case.id}: the step-by-step events differ from the run's")
        observed = observed_view(after, events, result, refused)
        check = None
        if sit.has_then:
            diffs = all_differences(case.then, observed, len(when), step_verbs(when))
            check = {"holds": not diffs, "differences": [d.to_dict() for d in diffs]}
        acc = {
            "id": case.id, "clause": None if "clause" in sit.filled else case.clause,
            "also": list(case.also or []), "title": None if "title" in sit.filled else case.title,
            "file": _rel(case.file), "line": case.line, "format": case.format,
            "filled": list(sit.filled), "ruleset": ruleset,
            "readings": {**rules.readings, "priority_policy": rules.priority_policy},
            "given_conflicts": given_conflicts, "steps": steps,
            "end_of_run": [self.event(ev, rules) for ev in events[len(plain):]],
            "changes": changes(before, after), "result": result, "check": check,
        }
        acc["warnings"] = warnings(sit, acc)
        holds = list(case.rulesets or [])
        if holds and ruleset not in holds:
            acc["warnings"].append(f"the case holds only under {', '.join(holds)}; explained under "
                                   f"{ruleset}")
        return acc

    def across_rulesets(self, sit: Situation) -> list[dict]:
        """The situation under every ruleset, grouped by what happens (state, events, refusal,
        result), each group with the readings and parameters that set it apart."""
        from model.engine import available_rulesets
        from model.ruleset import load_ruleset
        groups: list[dict] = []
        for name in available_rulesets():
            acc = self.explain(sit, name)
            key = _outcome(acc)
            for g in groups:
                if g["key"] == key:
                    g["rulesets"].append(name)
                    break
            else:
                groups.append({"key": key, "rulesets": [name], "account": acc})
        def readings(name: str) -> dict:
            r = load_ruleset(name)
            return {**r.readings, "priority_policy": r.priority_policy}

        out = []
        for g in groups:
            mine = [readings(n) for n in g["rulesets"]]
            others = [readings(n) for h in groups if h is not g for n in h["rulesets"]]
            differs = []       # a reading all of this group share and no other ruleset has
            for k, v in mine[0].items():
                if all(m.get(k) == v for m in mine) and others and \
                        all(o.get(k) != v for o in others):
                    differs.append(f"{k}: {v}")
            acc = g["account"]
            out.append({"rulesets": g["rulesets"], "differs_by": differs,
                        "refused": next((s["refused"] for s in acc["steps"] if "refused" in s), None),
                        "result": acc["result"], "changes": acc["changes"],
                        "events": [_plain(ev) for s in acc["steps"] for ev in s["events"]]
                        + [_plain(ev) for ev in acc["end_of_run"]],
                        "check": acc["check"]})
        return out


def _rel(path: Any) -> str:
    """``path`` relative to the working directory when it lies under it."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(path)


def _plain(ev: dict) -> dict:
    return {k: v for k, v in ev.items() if k != "explained"}


def _outcome(acc: dict) -> str:
    refused = next((s["refused"] for s in acc["steps"] if "refused" in s), None)
    events = [_plain(ev) for s in acc["steps"] for ev in s["events"]] + \
        [_plain(ev) for ev in acc["end_of_run"]]
    ref = {k: refused.get(k) for k in ("step", "clause")} if refused else None
    return json.dumps([ref, events, acc["changes"], acc["result"]], sort_keys=True, default=str)


# the clause of a computed value of a card (what the state view computes, not what a step set)
COMPUTED = {"damage": "rb7:sebzes-eletpont-alap-aktualis",
            "max_hp": "rb7:sebzes-eletpont-alap-aktualis",
            "hp": "rb7:sebzes-eletpont-alap-aktualis", "wounds": "4.25.1"}


def changes(before: Any, after: Any, path: str = "") -> list[dict]:
    """Every field that differs between two views of the state, by JSON pointer (lists whole);
    a card's computed Sebzés / Ép with the clause that computes them."""
    out = _changes(before, after, path)
    for c in out:
        parts = c["path"].split("/")
        if len(parts) == 4 and parts[1] == "cards" and parts[3] in COMPUTED:
            c["clause"] = COMPUTED[parts[3]]
    return out


def _changes(before: Any, after: Any, path: str = "") -> list[dict]:
    from conformance.loader import join
    if isinstance(before, dict) and isinstance(after, dict):
        out = []
        for k in list(before) + [k for k in after if k not in before]:
            if k in ("ruleset",):
                continue
            b, a = before.get(k), after.get(k)
            if b != a:
                out += _changes(b, a, join(path, k))
        return out
    return [{"path": path, "before": before, "after": after}] if before != after else []


def warnings(sit: Situation, acc: dict) -> list[str]:
    case = sit.case
    out = []
    if sit.has_then and not case.then:
        out.append("then: {} checks nothing: this case passes whatever the engine does; write "
                   "what must hold (docs/spec/hkk-case-format.md, Expectations)")
    for entry in (case.given or {}).get("lasting") or []:
        if isinstance(entry, dict) and entry.get("affects") == []:
            out.append(f"the timed effect {entry.get('id')!r} of given reaches nothing "
                       "(affects: []): it changes nothing (99.5: its scope was read when it was "
                       "created)")
    for s in acc["steps"]:
        for ev in s["events"]:
            if ev.get("event") == "effect_started" and not ev.get("affects"):
                src = f" of {ev['source']}" if ev.get("source") else ""
                out.append(f"step {s['index'] + 1}: the effect {ev.get('effect')!r}{src} reaches "
                           "nothing: its scope held no permanent in play when it was created "
                           "(99.5 hatókör)")
    return out


# --------------------------------------------------------------------------
# output

def _safe(value: Any, limit: int = 300) -> str:      # replaced by the caller's (render)
    s = str(value)
    return s if len(s) <= limit else s[:limit] + "…"


def _args_text(args: Any, limit: int = 160) -> str:
    s = json.dumps(args, ensure_ascii=False, separators=(", ", ": "), default=str)
    return s if len(s) <= limit else s[:limit] + "…"


def _event_text(ev: dict) -> str:
    fields = [f"{k}={json.dumps(v, ensure_ascii=False, default=str)}" for k, v in ev.items()
              if k not in ("event", "clause", "clauses", "explained")]
    return f"{ev['event']} " + " ".join(fields)


def render(report: dict, console, safe_text=None) -> None:
    """The account as text (rich): steps, events with their clauses, the final state.
    ``safe_text``: how an outside text is made safe for a terminal (conformance.cli's)."""
    _Printer(console, safe_text or _safe).report(report)


class _Printer:
    def __init__(self, console, safe):
        self.console, self.safe = console, safe

    def line(self, text: str, style: str = "", limit: int = 600) -> None:
        from rich.text import Text
        self.console.print(Text(self.safe(text, limit), style=style), soft_wrap=True)

    def report(self, report: dict) -> None:
        for n, acc in enumerate(report["situations"]):
            if n:
                self.console.print()
            self.situation(acc)

    def situation(self, acc: dict) -> None:
        from rich.text import Text
        head = Text(self.safe(acc["id"]), style="bold")
        if acc.get("title"):
            head.append("  " + self.safe(acc["title"]))
        self.console.print(head, soft_wrap=True)
        where = f"{acc['file']}:{acc['line']} · {acc['format']}"
        if acc.get("clause"):
            where = f"clause {acc['clause']} · " + where
        if acc["filled"]:
            where += f" · not given, filled in: {', '.join(acc['filled'])}"
        self.line(where, "dim")
        readings = ", ".join(f"{k} = {v}" for k, v in acc["readings"].items())
        self.line(f"ruleset {acc['ruleset']} ({readings})", "cyan")
        if acc["given_conflicts"]:
            self.line("in force in given, decided before the first step (no event):", "bold")
            for c in acc["given_conflicts"]:
                self.line(f"  {c['subject']} of {c['target']}: winner {c['winner']} over "
                          f"{', '.join(map(str, c['losers'] or []))}")
                for w in c["explained"]:
                    self.why(w, "      ")
        for s in acc["steps"]:
            self.line(f"step {s['index'] + 1}: {s['verb']} {_args_text(s['args'])}  (by {s['by']})",
                      "bold")
            for ev in s["events"]:
                self.event(ev)
            if "refused" in s:
                r = s["refused"]
                self.line(f"  REFUSED: {r['message']}", "bold red", 1000)
                for w in r["explained"]:
                    self.why(w, "      ")
            elif not s["events"]:
                self.line("  (no event)", "dim")
            if s.get("pending"):
                p = s["pending"]
                self.line(f"  waits for {p.get('player')}'s decision: {p.get('choice')}", "yellow")
        if acc["end_of_run"]:
            self.line("when the steps run out:", "bold")
            for ev in acc["end_of_run"]:
                self.event(ev)
        self.line("the final state against given:", "bold")
        if not acc["changes"]:
            self.line("  nothing changed", "dim")
        for c in acc["changes"]:
            why = f"  ← {c['clause']}" if c.get("clause") else ""
            self.line(f"  {c['path']}: {_args_text(c['before'], 120)} → "
                      f"{_args_text(c['after'], 120)}{why}")
        self.line(f"result: {_args_text(acc['result'])}")
        chk = acc["check"]
        if chk is not None and chk["holds"]:
            self.line("then holds", "bold green")
        elif chk is not None:
            n = len(chk["differences"])
            self.line(f"then does NOT hold: {n} difference{'s' if n != 1 else ''}", "bold red")
            for d in chk["differences"]:
                self.line(f"  {d['path'] or '/'}: expected {_args_text(d['expected'], 200)}, got "
                          f"{_args_text(d['actual'], 200)}"
                          + (f" ({d['message']})" if d.get("message") else ""), "red", 1000)
        for w in acc["warnings"]:
            self.line(f"warning: {w}", "bold yellow")
        for g in acc.get("rulesets") or []:
            self.group(g, len(acc["rulesets"]))

    def event(self, ev: dict) -> None:
        self.line("  " + _event_text(ev), "", 400)
        for w in ev.get("explained") or []:
            self.why(w, "      ")

    def why(self, w: dict, pad: str) -> None:
        self.line(f"{pad}← {w['title']}", "green")
        if w.get("text"):
            self.line(f"{pad}  „{w['text']}”", "dim")
        for r in w["readings"]:
            note = "" if r["reading"] == r.get("default") else f" (the default is {r.get('default')})"
            self.line(f"{pad}  reading {r['conflict']}: {r['reading']}{note}", "cyan")
        for p in w["parameters"]:
            self.line(f"{pad}  ruleset {p['ruleset']}: {p['key']} = {p['value']} ({p['defined']})",
                      "cyan")

    def group(self, g: dict, count: int) -> None:
        if count == 1:
            self.line(f"every ruleset gives the same outcome ({', '.join(g['rulesets'])})",
                      "bold green")
            return
        head = f"under {', '.join(g['rulesets'])}"
        if g["differs_by"]:
            head += f"  (readings: {'; '.join(g['differs_by'])})"
        self.line(head, "bold magenta")
        if g["refused"]:
            self.line(f"  refused at step {g['refused']['step'] + 1} under {g['refused']['clause']}")
        for c in g["changes"][:12]:
            self.line(f"  {c['path']}: {_args_text(c['before'], 80)} → {_args_text(c['after'], 80)}")
        if len(g["changes"]) > 12:
            self.line(f"  … {len(g['changes']) - 12} more changes", "dim")
        if g["check"] is not None:
            self.line("  then holds" if g["check"]["holds"] else "  then does NOT hold",
                      "green" if g["check"]["holds"] else "red")


# --------------------------------------------------------------------------
# the command

def command(paths: list[str], k: str | None = None, ruleset: str | None = None,
            all_rulesets: bool = False, as_json: bool = False, stdin=None, out=None, *,
            fmt: str | None = None, select=None, safe_text=None, print_errors=None) -> int:
    """``kodex explain``: conformance/cli.py parses the options and hands over how it selects
    cases by ``-k`` (``select(cases, pattern)``), makes outside text safe (``safe_text``) and
    prints input errors (``print_errors(messages)``); ``fmt``: ``--format``, the case format of
    a situation that names none."""
    from rich.console import Console
    from rich.text import Text

    from conformance.runner import choose_ruleset, kit_info
    safe_text = safe_text or _safe
    err = Console(stderr=True, highlight=False)
    sits, errors = read_input(paths or [str(Path(__file__).resolve().parent / "corpus")], stdin,
                              fmt)
    if print_errors is not None:
        print_errors(errors)
    else:
        for e in errors:
            err.print(Text(safe_text(e, 2000), style="red"), soft_wrap=True)
    if k:
        chosen = {id(c) for c in select([s.case for s in sits], k)}
        sits = [s for s in sits if id(s.case) in chosen]
    if not sits:
        what = f"no situation matches -k {k!r}" if k and not errors else "no situation to explain"
        err.print(Text(f"kodex explain: {what}", style="bold red"), soft_wrap=True)
        return EXIT_INPUT
    ex = Explainer()
    report = {"schema": SCHEMA, "kit": kit_info(), "situations": []}
    try:
        for sit in sits:
            name = ruleset or choose_ruleset(sit.case)[0] or "kodex"
            acc = ex.explain(sit, name)
            if all_rulesets:
                acc["rulesets"] = ex.across_rulesets(sit)
            report["situations"].append(acc)
    except ExplainInputError as exc:
        err.print(Text(f"kodex explain: {safe_text(exc, 2000)}", style="red"), soft_wrap=True)
        return EXIT_INPUT
    if as_json:
        stream = out or sys.stdout
        stream.write(json.dumps(report, ensure_ascii=False, indent=1, default=str) + "\n")
    else:
        console = Console(highlight=False, file=out) if out is not None else Console(highlight=False)
        if not console.is_terminal:
            console = Console(highlight=False, file=out, width=max(console.width, 120))
        render(report, console, safe_text)
    if errors:
        return EXIT_INPUT
    held = all(a["check"] is None or a["check"]["holds"] for a in report["situations"])
    return EXIT_OK if held else EXIT_NOT_HELD


__all__ = ["Explainer", "Situation", "SCHEMA", "changes", "command", "read_input",
           "situations_from_text"]
