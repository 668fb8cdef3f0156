"""The ``kodex`` command line (``kodex = conformance.cli:main``; also
``python -m conformance``).

Subcommands:

``clauses [--section N] [--part P] [--grep TEXT] [--json]``
    the clause catalog as a table (id, title, section, part, line) or a JSON
    array of clauses; ``--grep``: the clauses whose title or text contains
    TEXT, accents ignored (exit 1 when none does).
``clause ID [paths…]``
    one clause (the id as the Kódex writes it: ``136.8.``, ``mk:5.11.b``):
    title, section title, source:line, text, and the corpus cases citing it
    (as ``clause`` or in ``also``) with their file:line; an unknown id gets the
    nearest ids and, for words, the clauses containing them.
``check [paths…]``
    load and validate cases without running them; exit 2 on input errors.
``explain [paths…|-] [-k PATTERN] [--ruleset NAME] [--all-rulesets] [--format hkk-case/N]
[--json]``
    what the reference engine does with a situation (a case, ``then`` optional), step by
    step, each event with the clause that produced it, the final state against ``given``
    (``conformance.explain``).
``run [paths…] [-k PATTERN] [--clause PREFIX] [--impl COMMAND] [--ruleset NAME]
[--json FILE] [--xfail FILE] [--timeout S] [--max-restarts N] [-q] [--coverage]
[--junit FILE] [--ndjson FILE|-] [--shard K/N] [--jobs N] [--fail-on-skip] [--compare-rulesets]``
    run cases in-process (reference engine) or through an implementation
    speaking protocol 1 (``--jobs N``: N programs of it, each served a share
    of the cases; the results are the same, in the same order). In-process,
    ``--jobs N`` runs the cases in N worker processes (conformance/parallel.py;
    default: one per core, at most 8, for 256 cases or more), the results the
    same, in the same order.
    Exit status (docs/spec/hkk-results.md):
    0 every selected case that ran passed (skips and xfails allowed) and at
    least one was tested; 1 a fail, error, timeout or xpass; 2 invalid input
    (a case file's errors — the valid cases still run —, a selection that
    matches no case, an ``--xfail`` entry that matches no case, a bad option);
    3 the implementation could not be started or the harness gave up on it
    (cases not run; ``--json`` still writes the results, saying so); 4 nothing
    was tested (every selected case was skipped), or — with ``--fail-on-skip`` —
    any case was skipped. The headline says how many cases got a verdict, and
    the skipped cases are summed up by reason (``feature:…``, ``verb:…``, …). ``--coverage`` prints the
    coverage per Kódex title and part after the run into ``reports/`` of the
    working directory. ``--shard K/N`` runs only the K-th of N slices of the
    selection (a stable hash of each case id: a case keeps its slice when
    unrelated cases are added); an empty slice is exit 2 like any empty
    selection. An unknown ``--ruleset`` is exit 2 with the list of rulesets.
    ``--compare-rulesets``: the selection under every ruleset, and the cases
    whose outcome depends on it (``conformance.readings``).
``merge A.json B.json … --json OUT``
    join the results files of one run split with ``--shard`` into one
    (``hkk-results/2``; totals, verdicts and skip reasons recomputed from the cases). Inputs
    that overlap (a case twice) or disagree (kit, implementation, profile, declared features,
    ruleset) are refused: exit 2, nothing written. Otherwise the exit status is
    ``kodex run``'s for the merged cases: 3 when an input says the
    implementation was unavailable or the harness gave up, 1 a fail, error,
    timeout or xpass, 4 nothing tested, 0.
``serve [--ruleset NAME]``
    the reference engine speaking protocol 1 on stdin/stdout.
``coverage [paths…] [--impl COMMAND] [--results FILE] [--out DIR]``
    clause coverage per Kódex title and part and, with a run, the
    implementation's own verdicts and pass rate per title; writes
    ``coverage.md`` and ``coverage.json`` (default directory ``reports/`` of
    the working directory); exit 1 for a results file without cases.
``diff OLD.json NEW.json [--json [FILE]]``
    compare two results files; exit 1 on a regression (a pass became a fail,
    error, timeout or xfail), 3 when passes were only lost to skip / not run
    or to cases gone from NEW, 2 on an unreadable or invalid file
    (docs/spec/hkk-results.md).
``amend NEW_DIR [--base DIR] [--json FILE] [--out DIR] [--corpus PATH]``
    what an amended copy of the Kódex documents changes (clauses changed,
    renumbered, removed, added) and the cases, code and registers citing them;
    writes ``amendment.md`` and ``amendment.json``; exit 0 nothing cited
    changed, 1 review needed, 2 bad input (``reports.amendment``).
``report --results FILE [--results FILE …] --out DIR [--prove FILE] [--amendment FILE] [--strength FILE | --no-strength]``
    a static HTML site (``reports.html``): the implementation matrix, a page
    per Kódex title, registers, proofs, amendment, corpus strength (the
    ``strength.json`` next to the results files by default), run diffs.
``prove …``, ``fuzz …``, ``strength …``
    delegated to ``properties.<name>.main`` (imported only when used); each needs an extra
    of the distribution, and says which when it is missing (``conformance.extras``).

Before anything else, :func:`main` checks that no module of the user's would be imported in
place of the kit's packages (``conformance.shadowing``; exit 2). Every command and option, with
its help: docs/commands.md, generated from :func:`build_parser` (``conformance.command_docs``).

Paths default to the corpus, ``conformance/corpus``; a directory stands for
every ``*.yaml``/``*.yml`` file under it (``conformance.loader.case_files``). An unknown
command gets the nearest one (exit 2); each command's ``--help`` ends with examples, its exit
statuses (one table, ``EXIT_STATUSES``) and what it writes. Results files are read with
``conformance.results_io.read_results``. Any command whose output cannot be written exits 5 with
one line naming the file and the reason (``conformance.atomicio.OutputError``, one wrapper in
:func:`main`).
"""
from __future__ import annotations

import argparse
import difflib
import fnmatch
import json
import math
import re
import sys
import time
from pathlib import Path
from typing import Iterable

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from conformance import extras, shadowing
from conformance.atomicio import EXIT_OUTPUT
from conformance.terminal import safe_text

CORPUS_DIR = Path(__file__).resolve().parent / "corpus"
EXIT_OK, EXIT_FAIL, EXIT_INPUT, EXIT_UNAVAILABLE, EXIT_NOTHING_TESTED = 0, 1, 2, 3, 4

STYLE = {"pass": "bold green", "fail": "bold red", "error": "bold magenta",
         "timeout": "bold magenta", "skip": "yellow", "xfail": "cyan",
         "xpass": "bold red reverse", "not_run": "bold red"}
LABEL = {"pass": "PASS", "fail": "FAIL", "error": "ERROR", "timeout": "TIMEOUT",
         "skip": "SKIP", "xfail": "XFAIL", "xpass": "XPASS", "not_run": "NOT RUN"}
MAX_TIMEOUT = 3600.0     # the largest per-case deadline --timeout accepts


def timeout_value(text: str) -> float:
    """``--timeout``: a finite number of seconds, more than 0 and at most MAX_TIMEOUT."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds")
    if not math.isfinite(v) or v <= 0 or v > MAX_TIMEOUT:
        raise argparse.ArgumentTypeError(
            f"{text!r}: a per-case deadline is a finite number of seconds, "
            f"more than 0 and at most {MAX_TIMEOUT:g}")
    return v


def count_value(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
    if v < 0 or v > 1000:
        raise argparse.ArgumentTypeError(f"{text!r}: expected 0 to 1000")
    return v


class CLIError(Exception):
    """A problem reported as one red line and exit status 2."""


def _console(stderr: bool = False) -> Console:
    c = Console(stderr=stderr, highlight=False)
    if not c.is_terminal:
        c = Console(stderr=stderr, highlight=False, width=max(c.width, 120))
    return c


# --------------------------------------------------------------------------
# loading and selecting cases

def expand_paths(paths: Iterable[str] | None) -> tuple[list[Path], list[str]]:
    """Files to load (directories expanded) and messages for missing paths."""
    files: list[Path] = []
    missing: list[str] = []
    for p in (list(paths) if paths else [_rel(CORPUS_DIR)]):
        path = Path(p)
        if path.is_dir():
            from conformance.loader import case_files
            files.extend(case_files(path))
        elif path.exists():
            files.append(path)
        else:
            missing.append(f"{p}: no such file or directory")
    return files, missing


def _rel(path: Path) -> str:
    """``path`` relative to the current directory when it lies under it."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _catalog_or_none():
    try:
        from conformance.catalog import load_catalog
        return load_catalog()
    except ImportError:
        return None


def load_cases(paths, catalog=None):
    """(cases, error messages) for the given paths."""
    try:
        from conformance.loader import load_files
    except ImportError as exc:
        raise CLIError(f"the case loader (conformance.loader) is not available: {exc}")

    files, missing = expand_paths(paths)
    if catalog is None:
        catalog = _catalog_or_none()
    result = load_files(files, catalog=catalog) if files else None
    cases = list(result.cases) if result else []
    errors = missing + ([str(e) for e in result.errors] if result else [])
    return cases, errors


def _print_errors(console: Console, errors: list[str]) -> None:
    for e in errors:
        console.print(Text(safe_text(with_suggestion(e), 2000), style="red"), soft_wrap=True)


_UNKNOWN_FIELD_RE = re.compile(r"unknown field '([^']*)'([^;]*); known: ([\w, -]+)$")


def with_suggestion(message: str) -> str:
    """An input error about an unknown field, with the nearest known field it may have meant
    (``unknown field 'titel' (did you mean 'title'?) …``)."""
    m = _UNKNOWN_FIELD_RE.search(message)
    if m is None or "did you mean" in message:
        return message
    known = [k.strip() for k in m.group(3).split(",") if k.strip()]
    near = difflib.get_close_matches(m.group(1), known, n=1)
    if not near:
        return message
    return (message[:m.start()] + f"unknown field '{m.group(1)}' (did you mean '{near[0]}'?)"
            + message[m.start() + len(f"unknown field '{m.group(1)}'"):])


def clause_matches(cid: str, prefix: str) -> bool:
    """``cid`` is ``prefix`` or under it: whole dotted components for Kódex
    numbers (``4.2`` matches ``4.2.1`` but not ``4.20``); plain string prefix
    for ``rb7:`` and ``mk:`` ids."""
    if not cid or not prefix:
        return False
    if cid == prefix:
        return True
    if ":" in prefix or ":" in cid:
        return cid.startswith(prefix)
    return cid.startswith(prefix.rstrip(".") + ".")


def select_cases(cases, pattern: str | None = None, clause: str | None = None) -> list:
    out = []
    for c in cases:
        if pattern:
            p = pattern.lower()
            hay = [str(c.id).lower(), str(c.title or "").lower()]
            if any(ch in p for ch in "*?["):
                if not any(fnmatch.fnmatchcase(h, p) for h in hay):
                    continue
            elif not any(p in h for h in hay):
                continue
        if clause:
            cited = [c.clause] + list(c.also or [])
            if not any(clause_matches(str(x), clause) for x in cited):
                continue
        out.append(c)
    return out


# --------------------------------------------------------------------------
# printing outcomes

def clause_label(catalog, cid: str) -> str:
    """``3.18 — <Hungarian title>`` (the section title when the point has none)."""
    return catalog.label(cid) if catalog is not None else cid


def _section_name(cl) -> str:
    from conformance.catalog import section_name
    return section_name(cl)


def _short(value, limit: int = 300) -> str:
    try:
        s = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        s = repr(value)
    return s if len(s) <= limit else s[:limit] + "…"


def print_outcome(console: Console, oc, catalog, quiet: bool = False) -> None:
    if quiet and oc.outcome in ("pass", "skip"):
        return
    line = Text()
    line.append(f"{LABEL.get(oc.outcome, oc.outcome.upper()):<7}", style=STYLE.get(oc.outcome, ""))
    line.append(" ")
    line.append(safe_text(oc.case_id), style="bold")
    if oc.title:
        line.append(f"  {safe_text(oc.title)}", style="dim")
    if oc.ruleset and oc.ruleset != "kodex":
        line.append(f"  [{oc.ruleset}]", style="cyan")
    console.print(line, soft_wrap=True)
    if oc.outcome == "pass":
        return
    pad = " " * 8
    if oc.outcome in ("fail", "error", "timeout", "xpass", "xfail"):
        detail = Text(pad)
        detail.append("clause ", style="dim")
        detail.append(safe_text(clause_label(catalog, oc.clause)))
        if oc.also:
            detail.append("  also " + safe_text(", ".join(map(str, oc.also))), style="dim")
        console.print(detail, soft_wrap=True)
        console.print(Text(f"{pad}at {safe_text(oc.file)}:{oc.line}", style="dim"), soft_wrap=True)
    if oc.difference:
        d = oc.difference
        console.print(Text(f"{pad}first difference at {safe_text(d.get('path') or '(top)')}"),
                      soft_wrap=True)
        console.print(Text(f"{pad}  expected: {safe_text(_short(d.get('expected')))}",
                           style="green"), soft_wrap=True)
        console.print(Text(f"{pad}  actual:   {safe_text(_short(d.get('actual')))}", style="red"),
                      soft_wrap=True)
    if oc.message:
        console.print(Text(f"{pad}{safe_text(oc.message, 2000)}"), soft_wrap=True)
    if oc.outcome == "error" and oc.traceback:
        tb = str(oc.traceback).rstrip().splitlines()
        shown = tb[-12:]
        if len(tb) > len(shown):
            shown = ["…"] + shown
        for t in shown:
            console.print(Text(f"{pad}| {safe_text(t)}", style="dim"), soft_wrap=True)


def totals_text(totals: dict, seconds: float | None = None) -> Text:
    """``2191 cases: 1906 passed, 285 skipped (87.0% with a verdict) in 1.20s``: every summary
    says how many cases got a verdict beside what passed (docs/spec/hkk-results.md)."""
    from conformance.runner import verdict_share
    names = [("pass", "passed"), ("fail", "failed"), ("error", "errors"),
             ("timeout", "timeouts"), ("skip", "skipped"), ("xfail", "xfailed"),
             ("xpass", "xpassed"), ("not_run", "NOT RUN")]
    n = sum(totals.values())
    t = Text(f"{n} case{'s' if n != 1 else ''}: ", style="bold")
    parts = [(f"{totals.get(k, 0)} {label}", STYLE[k]) for k, label in names
             if totals.get(k, 0) or k == "pass"]
    for i, (s, style) in enumerate(parts):
        if i:
            t.append(", ")
        t.append(s, style=style)
    share = verdict_share(totals, digits=None)
    if share is not None:
        t.append(f" ({100 * share:.1f}% with a verdict)",
                 style="bold yellow" if share < 1 else "")
    if seconds is not None:
        t.append(f" in {seconds:.2f}s")
    return t


def print_skip_reasons(console: Console, reasons: dict[str, int], limit: int = 12) -> None:
    """What kept the skipped cases from a verdict, the largest first: what to build next."""
    if not reasons:
        return
    shown = list(reasons.items())[:limit]
    rest = len(reasons) - len(shown)
    console.print(Text("skipped, by reason: " + ", ".join(f"{safe_text(r, 80)} {n}" for r, n in shown)
                       + (f" … and {rest} more" if rest > 0 else ""), style="yellow"), soft_wrap=True)


# --------------------------------------------------------------------------
# subcommands

def _print_findings(catalog, as_json: bool) -> int:
    """The quirks of the source the parser found (duplicates, gaps, repeated ids …), never hidden."""
    from conformance.catalog import finding_to_json

    if as_json:
        sys.stdout.write(json.dumps([finding_to_json(f) for f in catalog.findings],
                                    ensure_ascii=False, indent=2) + "\n")
        return EXIT_OK
    console = _console()
    table = Table(title=f"{len(catalog.findings)} findings in the Kódex sources")
    for col in ("kind", "clause", "where", "message"):
        table.add_column(col, overflow="fold")
    for f in catalog.findings:
        table.add_row(escape(f.kind), escape(f.clause or ""), escape(f"{f.source}:{f.line}"),
                      escape(f.message))
    console.print(table)
    return EXIT_OK


def cmd_clauses(args) -> int:
    from conformance.catalog import load_catalog, to_json

    catalog = load_catalog()
    if args.findings:
        return _print_findings(catalog, args.json)
    clauses = list(catalog)
    if args.section:
        clauses = [c for c in clauses if str(c.section) == args.section]
    if args.part:
        clauses = [c for c in clauses if str(c.part).lower() == args.part.lower()]
    if args.grep is not None:
        found = {c.id for c in catalog.search(args.grep)}
        clauses = [c for c in clauses if c.id in found]
        if not clauses:
            _console(stderr=True).print(Text(safe_text(
                f"no clause's title or text contains {args.grep!r} (accents ignored; case too, "
                "unless it has a capital letter)"), style="yellow"), soft_wrap=True)
            return EXIT_FAIL
    if args.json:
        sys.stdout.write(json.dumps([to_json(c) for c in clauses], ensure_ascii=False,
                                    indent=2) + "\n")
        return EXIT_OK
    console = _console()
    table = Table(title=f"{len(clauses)} clauses" + (f" containing {args.grep!r}"
                                                      if args.grep is not None else ""),
                  show_lines=False)
    cols = ("id", "title", "section", "part", "line") + (("text",) if args.grep is not None else ())
    for col in cols:
        table.add_column(col, overflow="fold")
    for c in clauses:
        sec = _section_name(c)
        row = [escape(c.id), escape(c.title or ""), escape(sec), escape(c.part),
               f"{c.source}:{c.line}"]
        if args.grep is not None:
            row.append(escape(_excerpt(c.text, args.grep)))
        table.add_row(*row)
    console.print(table)
    return EXIT_OK


def _excerpt(text: str, query: str, width: int = 70) -> str:
    """The words of ``text`` around the first word of ``query`` (accents and case ignored)."""
    from conformance.catalog import _fold_ascii, normalize
    flat = normalize(text or "")
    words = _fold_ascii(normalize(query)).split()
    at = _fold_ascii(flat).find(words[0]) if words else -1
    if at < 0:
        return flat[:width] + ("…" if len(flat) > width else "")
    start = max(0, at - width // 3)
    end = min(len(flat), start + width)
    return ("…" if start else "") + flat[start:end] + ("…" if end < len(flat) else "")


def _unknown_clause(console: Console, catalog, written: str) -> int:
    """An id the catalog does not know: the nearest ids, and for words the clauses containing
    them (``kodex clause regenerálódás``)."""
    console.print(Text(safe_text(f"unknown clause {written}"), style="red"), soft_wrap=True)
    near = difflib.get_close_matches(str(written).rstrip("."), [c.id for c in catalog], n=5)
    if near:
        console.print("did you mean: " + ", ".join(near))
    if re.search(r"[^\W\d_]{3}", str(written)) and ":" not in str(written):
        found = catalog.search(written)
        if found:
            shown = ", ".join(c.id for c in found[:12]) + (" …" if len(found) > 12 else "")
            console.print(Text(safe_text(f"{len(found)} clause{'s' if len(found) != 1 else ''} "
                                         f"contain {written!r}: {shown}"), style="bold"),
                          soft_wrap=True)
            console.print(Text(safe_text(f"(all of them: kodex clauses --grep {written!r})"),
                               style="dim"), soft_wrap=True)
    return EXIT_INPUT


def _case_line(c, role: str | None = None):
    """One case of `kodex clause`: its id, (how it cites the clause,) where it is, its title."""
    t = Text("  ")
    t.append(str(c.id), style="bold")
    t.append(f"  ({role})  {c.file}:{c.line}" if role else f"  {c.file}:{c.line}", style="dim")
    if c.title:
        t.append(f"  {c.title}")
    return t


def cmd_clause(args) -> int:
    from conformance.catalog import load_catalog

    catalog = load_catalog()
    console = _console()
    resolved = catalog.resolve(args.id)
    cl = catalog.get(resolved) if resolved is not None else None
    if cl is None:
        return _unknown_clause(console, catalog, args.id)
    head = Text(cl.id, style="bold")
    if cl.title:
        head.append(f"  {cl.title}")
    console.print(head)
    sec = _section_name(cl)
    console.print(Text(f"section: {sec}   part: {cl.part}", style="dim"))
    try:
        anc = catalog.ancestors(cl.id)
    except Exception:
        anc = []
    if anc:
        console.print(Text("under: " + " › ".join(anc), style="dim"))
    console.print(Text(f"source: {cl.source}:{cl.line}" + ("   [Kiegészítés]" if cl.supplement else ""),
                       style="dim"))
    console.print()
    console.print(Text(cl.text or "(no text: a heading)"))
    console.print()
    from conformance.traceability import modules_for
    code = modules_for(cl.id)
    if code:
        console.print(Text("implemented in: " + ", ".join(f"{f}:{n}" for f, n in code), style="bold"))
    else:
        console.print(Text("no engine module names this clause", style="yellow"))
    console.print()
    cases, errors = load_cases(args.paths, catalog=catalog)
    citing = [(c, "clause" if c.clause == cl.id else "also") for c in cases
              if c.clause == cl.id or cl.id in (c.also or [])]
    if not citing:
        console.print(Text("no case cites this clause", style="yellow"))
    else:
        console.print(Text(f"{len(citing)} case{'s' if len(citing) != 1 else ''} citing it:",
                           style="bold"))
        for c, role in citing:
            console.print(_case_line(c, role), soft_wrap=True)
    prefix = cl.id + "."
    cited = {id(c) for c, _ in citing}
    under = [c for c in cases if id(c) not in cited
             and any(isinstance(x, str) and x.startswith(prefix) for x in [c.clause, *(c.also or [])])]
    if under:
        console.print(Text(f"{len(under)} case{'s' if len(under) != 1 else ''} citing a clause under it:",
                           style="bold"))
        for c in under:
            console.print(_case_line(c), soft_wrap=True)
    if errors:
        console.print(Text(f"({len(errors)} input errors in the corpus; see `kodex check`)",
                           style="red"))
    return EXIT_OK


def cmd_check(args) -> int:
    console = _console()
    cases, errors = load_cases(args.paths)
    _print_errors(console, errors)
    style = "red" if errors else "green"
    console.print(Text(f"{len(cases)} cases valid, {len(errors)} errors", style=style))
    return EXIT_INPUT if errors else EXIT_OK


def _open_impl(command: str, timeout: float | None, console: Console, *,
               max_restarts: int | None = None, stderr_path=None, jobs: int = 1):
    """(client, None), or (None, reason) when the implementation cannot be used.
    ``jobs`` > 1: a pool of that many programs (``kodex run --jobs``)."""
    from conformance.protocol import (DEFAULT_MAX_RESTARTS, ProtocolClient, ProtocolError,
                                      ProtocolPool)
    from conformance.runner import DEFAULT_TIMEOUT
    kw = dict(timeout=timeout or DEFAULT_TIMEOUT,
              max_restarts=DEFAULT_MAX_RESTARTS if max_restarts is None else max_restarts,
              stderr_path=stderr_path)
    try:
        if jobs > 1:
            return ProtocolPool(command, jobs, **kw), None
        return ProtocolClient(command, **kw), None
    except ProtocolError as exc:
        reason = f"implementation unavailable: {exc}"
        console.print(Text(safe_text(reason, 2000), style="bold red"), soft_wrap=True)
        return None, reason


def _selection_words(args) -> str:
    words = []
    if getattr(args, "paths", None):
        words.append("paths " + " ".join(args.paths))
    if getattr(args, "k", None):
        words.append(f"-k {args.k!r}")
    if getattr(args, "clause", None):
        words.append(f"--clause {args.clause}")
    return ", ".join(words) or "the corpus"


def _unmatched_xfail(xfail: dict[str, str], cases) -> list[str]:
    """Entries of an expected-failures file that name no loaded case."""
    from conformance.runner import XfailList
    listed = xfail if isinstance(xfail, XfailList) else XfailList(xfail)
    return listed.unmatched(str(c.id) for c in cases)


def _stderr_log_for(json_path: str | None):
    """Each run its own stderr log: beside ``--json FILE`` as ``FILE.stderr.log``
    (else the client's default under ``reports/runs/``)."""
    if not json_path or json_path == "-":
        return None
    p = Path(json_path)
    return p.with_name(p.stem + ".stderr.log")


def run_exit_code(report, input_errors: bool) -> int:
    """The exit status of ``kodex run`` (module docstring; docs/spec/hkk-results.md)."""
    from conformance.runner import exit_status
    return exit_status((oc.outcome for oc in report.outcomes), input_errors=input_errors,
                       unusable=bool(report.unavailable or report.gave_up))


def shard_value(text: str) -> tuple[int, int]:
    """``K/N`` with 1 ≤ K ≤ N (argparse type of ``--shard``)."""
    k, sep, n = str(text).partition("/")
    try:
        index, count = int(k), int(n)
    except ValueError:
        index = count = 0
    if not sep or count < 1 or not 1 <= index <= count or count > 10_000:
        raise argparse.ArgumentTypeError(f"{text!r}: expected K/N, 1 ≤ K ≤ N ≤ 10000 (e.g. 2/4)")
    return index, count


def ruleset_value(text: str) -> str:
    """``--ruleset NAME``: a ruleset of the kit (model/rulesets/); an unknown one is a usage
    error (exit 2) naming the known ones, not a run that skips every case."""
    from model.ruleset import available_rulesets
    names = available_rulesets()
    if text in names:
        return text
    near = difflib.get_close_matches(text, names, n=1)
    raise argparse.ArgumentTypeError(
        f"unknown ruleset {text!r}" + (f" (did you mean {near[0]!r}?)" if near else "")
        + f"; the rulesets: {', '.join(names)}")


def jobs_value(text: str) -> int:
    """``--jobs N``: 1 to 64 implementation programs."""
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
    if not 1 <= v <= 64:
        raise argparse.ArgumentTypeError(f"{text!r}: expected 1 to 64")
    return v


def cmd_run(args) -> int:
    from conformance.runner import (DEFAULT_TIMEOUT, load_xfail, run_cases, select_shard,
                                    unavailable_report)

    console = _console(stderr=args.ndjson == "-")  # stdout carries the NDJSON then
    catalog = _catalog_or_none()
    all_cases, errors = load_cases(args.paths, catalog=catalog)
    _print_errors(console, errors)
    cases = select_cases(all_cases, args.k, args.clause)
    selected = len(cases)
    if args.shard and cases:
        cases = select_shard(cases, *args.shard)
    if not cases:
        what = ("no case was loaded from " + _selection_words(args) if not all_cases
                else f"the selection ({_selection_words(args)}) matches none of the "
                     f"{len(all_cases)} cases loaded" if not selected
                else f"shard {args.shard[0]}/{args.shard[1]} of the {selected} selected "
                     "cases is empty")
        console.print(Text(f"NOTHING TO RUN: {what}; a run that tests nothing is not a pass",
                           style="bold red"), soft_wrap=True)
        return EXIT_INPUT
    xfail = None
    if args.xfail:
        try:
            xfail = load_xfail(args.xfail)
        except Exception as exc:
            console.print(Text(f"cannot use the xfail file: {safe_text(exc, 2000)}",
                               style="red"), soft_wrap=True)
            return EXIT_INPUT
        stale = _unmatched_xfail(xfail, all_cases)
        if stale:
            console.print(Text(f"{args.xfail}: {len(stale)} expected-failure entr"
                               f"{'y matches' if len(stale) == 1 else 'ies match'} no case loaded: "
                               + safe_text(", ".join(stale), 1000), style="bold red"),
                          soft_wrap=True)
            return EXIT_INPUT
    impl = None
    if args.impl:
        impl, reason = _open_impl(args.impl, args.timeout, console,
                                  max_restarts=args.max_restarts,
                                  stderr_path=_stderr_log_for(args.json), jobs=args.jobs or 1)
        if impl is None:
            report = unavailable_report(cases, reason, args.ruleset, args.impl)
            if args.json:
                report.write_json(args.json)
                console.print(Text(f"results written to {args.json} "
                                   f"({len(cases)} cases not run)", style="dim"))
            if args.junit:
                from conformance import outputs
                outputs.write_junit(args.junit, report)
            return EXIT_UNAVAILABLE
        info = impl.implementation
        console.print(Text(safe_text(f"implementation: {info.get('name', '?')} "
                                     f"{info.get('version', '')} ({info.get('language', '?')})"),
                           style="dim"))
        if impl.profile_declared:
            console.print(Text("declared profile: " + ", ".join(impl.profile), style="dim"))
        if getattr(impl, "features_declared", False):
            console.print(Text("declared features: " + (", ".join(impl.features) or "none"),
                               style="dim"))
    from conformance import outputs
    stream = outputs.NdjsonStream(args.ndjson) if args.ndjson else None
    t0 = time.perf_counter()
    try:
        from conformance.parallel import default_jobs
        jobs = args.jobs or (1 if impl is not None else default_jobs(len(cases)))
        report = run_cases(cases, ruleset=args.ruleset, impl=impl, xfail=xfail, progress=True,
                           timeout=args.timeout or DEFAULT_TIMEOUT, jobs=jobs,
                           on_outcome=lambda oc: (print_outcome(console, oc, catalog, args.quiet),
                                                  stream and stream.case(oc)))
        if stream is not None:
            stream.totals(report)
    finally:
        if impl is not None:
            impl.close()
        if stream is not None:
            stream.close()
    if args.junit:
        outputs.write_junit(args.junit, report)
    console.print(totals_text(report.totals, time.perf_counter() - t0))
    print_skip_reasons(console, report.skip_reasons())
    if args.quiet and report.totals.get("skip"):
        console.print(Text(f"({report.totals['skip']} skipped cases not listed: -q)",
                           style="dim"))
    if impl is not None and report.profile_declared:
        _print_profiles(console, report)
    if report.gave_up:
        g = report.gave_up
        console.print(Text(safe_text(
            f"GAVE UP on the implementation after case {g.get('after_case')}: {g.get('reason')}; "
            f"{report.totals.get('not_run', 0)} cases NOT RUN", 2000), style="bold red"),
            soft_wrap=True)
    if report.tested == 0:
        console.print(Text("NOTHING TESTED: every selected case was skipped "
                           "(see the skip reasons); this run is not a pass", style="bold red"))
    if impl is not None and impl.stderr_path:
        logs = getattr(impl, "stderr_paths", None) or [impl.stderr_path]
        console.print(Text("implementation stderr: " + ", ".join(str(p) for p in logs),
                           style="dim"))
    if args.json:
        report.write_json(args.json)
        console.print(Text(f"results written to {args.json}", style="dim"))
    if args.coverage and catalog is not None:
        from reports import coverage as cov
        data = cov.compute(catalog, all_cases,
                           outcomes=report.outcomes, implementation=report.implementation,
                           ruleset=report.ruleset)
        cov.print_table(data, console)
        md, js = cov.write_reports(data, Path("reports"))
        console.print(Text(f"written: {md}, {js}", style="dim"))
    code = run_exit_code(report, bool(errors))
    if args.fail_on_skip and code == EXIT_OK and report.totals.get("skip"):
        console.print(Text(f"SKIPPED WORK: {report.totals['skip']} case(s) were skipped "
                           "(--fail-on-skip): exit 4", style="bold red"))
        return EXIT_NOTHING_TESTED
    return code


def _print_profiles(console: Console, report) -> None:
    table = Table(title="per observation (conformance profile)")
    for col in ("observation", "in profile", "cases", "pass", "fail", "skip", "pass rate"):
        table.add_column(col, justify="left" if col == "observation" else "right")
    tallies = report.profile_tallies()
    from conformance.profiles import ALL
    for obs in ALL:
        row = tallies.get(obs)
        if row is None:
            continue
        rate = row.get("pass_rate")
        table.add_row(obs, "yes" if obs in report.profile else "no", str(row["cases"]),
                      str(row.get("pass", 0) + row.get("xpass", 0)),
                      str(row.get("fail", 0) + row.get("error", 0) + row.get("timeout", 0)
                          + row.get("not_run", 0)),
                      str(row.get("skip", 0)), "—" if rate is None else f"{100 * rate:.1f}%")
    console.print(table)


def cmd_serve(args) -> int:
    from conformance.serve import serve
    for stream in (sys.stdin, sys.stdout):
        try:
            stream.reconfigure(encoding="utf-8")
        except (AttributeError, ValueError):
            pass
    return serve(sys.stdin, sys.stdout, ruleset_default=args.ruleset or "kodex")


def cmd_coverage(args) -> int:
    from conformance.results_io import read_results
    from conformance.runner import DEFAULT_TIMEOUT, run_cases
    from reports import coverage as cov

    console = _console()
    catalog = _catalog_or_none()
    if catalog is None:
        console.print(Text("the clause catalog (conformance.catalog) is not available",
                           style="red"))
        return EXIT_INPUT
    cases, errors = load_cases(args.paths, catalog=catalog)
    _print_errors(console, errors)
    implementation, ruleset = None, None
    if args.results:
        try:
            results = read_results(args.results)
        except (OSError, ValueError) as exc:
            console.print(Text(f"kodex coverage: {safe_text(exc, 2000)}", style="red"),
                          soft_wrap=True)
            return EXIT_INPUT
        outcomes = results.get("cases", [])
        implementation, ruleset = results.get("implementation"), results.get("ruleset")
    else:
        impl = None
        if args.impl:
            impl, _reason = _open_impl(args.impl, args.timeout, console)
            if impl is None:
                return EXIT_UNAVAILABLE
        try:
            report = run_cases(cases, ruleset=args.ruleset, impl=impl, progress=True,
                               timeout=args.timeout or DEFAULT_TIMEOUT)
        finally:
            if impl is not None:
                impl.close()
        outcomes, implementation, ruleset = report.outcomes, report.implementation, report.ruleset
    data = cov.compute(catalog, cases, outcomes=outcomes, implementation=implementation,
                       ruleset=ruleset)
    cov.print_table(data, console)
    md, js = cov.write_reports(data, args.out)
    console.print(Text(f"written: {md}, {js}", style="dim"))
    if errors:
        return EXIT_INPUT
    if data.get("run") is not None and data["run"].get("no_cases"):
        return EXIT_FAIL         # a results file without a case is no verdict
    return EXIT_OK


def cmd_diff(args) -> int:
    from reports import diff
    return diff.main([args.old, args.new] + (["--json", args.json] if args.json else []))


def cmd_merge(args) -> int:
    from conformance import atomicio
    from conformance.results_io import read_results, results_problem
    from conformance.runner import merge_results, merged_exit_code
    console = _console(stderr=True)
    named = []
    for path in args.files:
        try:
            named.append((path, read_results(path)))
        except (OSError, ValueError) as exc:
            console.print(Text(f"kodex merge: {safe_text(exc, 2000)}", style="bold red"),
                          soft_wrap=True)
            return EXIT_INPUT
    try:
        merged = merge_results(named)
    except ValueError as exc:
        for i, line in enumerate(str(exc).split("\n")):
            console.print(Text(("kodex merge: " if i == 0 else "") + safe_text(line),
                               style="bold red"), soft_wrap=True)
        return EXIT_INPUT
    problem = results_problem(merged)
    if problem:                     # pragma: no cover - the inputs were valid
        console.print(Text(f"kodex merge: the merged results break the schema: {problem}",
                           style="bold red"))
        return EXIT_INPUT
    atomicio.write_text(args.json, atomicio.json_text(merged))
    console.print(totals_text(merged["totals"], merged["duration_ms"] / 1000.0))
    print_skip_reasons(console, merged.get("skip_reasons") or {})
    console.print(Text(f"{len(named)} results files merged into {safe_text(args.json)}",
                       style="dim"))
    return merged_exit_code(merged)


def case_format_value(text: str) -> str:
    """``kodex explain --format hkk-case/N``: a case format of the kit (conformance.verbs.FORMATS);
    an unknown one is a usage error (exit 2) naming the known ones."""
    from conformance.verbs import FORMATS
    if text in FORMATS:
        return text
    near = difflib.get_close_matches(text, FORMATS, n=1)
    raise argparse.ArgumentTypeError(
        f"unknown case format {text!r}" + (f" (did you mean {near[0]!r}?)" if near else "")
        + f"; the formats: {', '.join(FORMATS)}")


def cmd_explain(args) -> int:
    from conformance import explain
    if not args.paths and not args.k:
        _console(stderr=True).print(Text(
            "kodex explain: name a situation: a case file (with -k ID to pick a case), -k ID in "
            "the corpus, or - for YAML on standard input", style="bold red"), soft_wrap=True)
        return EXIT_INPUT
    return explain.command(args.paths, k=args.k, ruleset=args.ruleset,
                           all_rulesets=args.all_rulesets, as_json=args.json, fmt=args.format,
                           select=select_cases, safe_text=safe_text,
                           print_errors=lambda errors: _print_errors(_console(stderr=True), errors))


def cmd_compare_rulesets(args) -> int:
    """``kodex run --compare-rulesets``: the cases whose outcome depends on the ruleset."""
    from conformance import readings
    from conformance.runner import DEFAULT_TIMEOUT, run_cases
    from model.engine import available_rulesets
    console = _console()
    if args.ruleset or args.xfail or args.shard or args.junit or args.ndjson:
        console.print(Text("kodex run: --compare-rulesets runs every ruleset; it takes none of "
                           "--ruleset, --xfail, --shard, --junit, --ndjson", style="bold red"))
        return EXIT_INPUT
    catalog = _catalog_or_none()
    all_cases, errors = load_cases(args.paths, catalog=catalog)
    _print_errors(console, errors)
    cases = select_cases(all_cases, args.k, args.clause)
    if not cases:
        console.print(Text(f"NOTHING TO RUN: the selection ({_selection_words(args)}) matches no "
                           "case", style="bold red"), soft_wrap=True)
        return EXIT_INPUT
    impl = None
    if args.impl:
        impl, _reason = _open_impl(args.impl, args.timeout, console,
                                   max_restarts=args.max_restarts, jobs=args.jobs or 1)
        if impl is None:
            return EXIT_UNAVAILABLE
    try:
        from conformance.parallel import default_jobs
        jobs = args.jobs or (1 if impl is not None else default_jobs(len(cases)))
        data = readings.compare(cases, available_rulesets(), lambda cs, name: run_cases(
            cs, ruleset=name, impl=impl, progress=False, timeout=args.timeout or DEFAULT_TIMEOUT,
            jobs=jobs))
    finally:
        if impl is not None:
            impl.close()
    readings.render(data, console, safe_text)
    if args.json:
        from conformance import atomicio
        atomicio.write_json(args.json, data)
        console.print(Text(f"comparison written to {args.json}", style="dim"))
    return EXIT_INPUT if errors else EXIT_OK


def _run_or_compare(args) -> int:
    return cmd_compare_rulesets(args) if args.compare_rulesets else cmd_run(args)


def cmd_report(args) -> int:
    from reports.html.site import command
    return command(args.results, args.out, prove=args.prove, amendment=args.amendment,
                   strength=args.strength, no_strength=args.no_strength)


def cmd_amend(args) -> int:
    from reports import amendment
    argv = [args.new_dir]
    for flag, value in (("--base", args.base), ("--json", args.json), ("--out", args.out)):
        if value:
            argv += [flag, value]
    for path in args.corpus or []:
        argv += ["--corpus", path]
    if args.apply:
        argv.append("--apply")
    return amendment.main(argv)


# subcommands carried out by properties.<name>.main(argv), imported only when used: the ones
# that need an extra of the distribution (conformance/extras.py; the lean install has none)
DELEGATED = tuple(extras.NEEDS)


def _delegate(name: str, argv: list[str]) -> int:
    import importlib
    hint = extras.missing(name)
    if hint is None:
        try:
            mod = importlib.import_module(f"properties.{name}")
        except ImportError as exc:
            hint = extras.missing(name, exc) or \
                f"kodex {name}: properties.{name} is not available ({exc})"
    if hint is not None:
        _console(stderr=True).print(Text(safe_text(hint), style="red"), soft_wrap=True)
        return EXIT_INPUT
    entry = getattr(mod, "main", None)
    if entry is None:
        _console(stderr=True).print(Text(f"kodex {name}: properties.{name} has no main()",
                                         style="red"))
        return EXIT_INPUT
    rc = entry(argv)
    return int(rc or 0)


# --------------------------------------------------------------------------
# the parser

# each command's help ends with examples, its exit statuses (EXIT_STATUSES) and what it writes
EXAMPLES = {
    "clauses": """examples:
  kodex clauses --section 136             the points of title 136
  kodex clauses --grep regenerálódás      clauses whose title or text says it (accents ignored)
  kodex clauses --grep Semmi --part II    a capital letter makes the search case-sensitive
  kodex clauses --findings                the quirks of the vendored texts""",
    "clause": """examples:
  kodex clause 4.8.4                      the text, the code that implements it, the cases citing it
  kodex clause 136.8.                     as the Kódex writes it (final dot), mk:5.11.b, rb7:regenerálódás
  kodex clause regenerálódás              not an id: the clauses whose text contains it""",
    "check": """examples:
  kodex check                             the whole corpus
  kodex check my-cases.yaml               one file: file, line and field of every error""",
    "run": """examples:
  kodex run -q                            the corpus on the reference engine, failures only
  kodex run --clause 4.8 -k void          a selection
  kodex run --impl "./my-engine --stdio" --xfail my-xfail.txt --json reports/runs/mine.json
  kodex run --ruleset kodex-mk            under another reading of the conflicts register
  kodex run --compare-rulesets            the cases whose outcome depends on the ruleset""",
    "explain": """examples:
  kodex explain -k 136.8/regeneration     a corpus case, step by step, each event with its clause
  kodex explain situation.yaml            a case file; then may be left out
  kodex explain - < situation.yaml        YAML on standard input: a case, or just given and when
  kodex explain --format hkk-case/2 -     standard input read as hkk-case/2 (the reaction queue)
  kodex explain -k 4.15.1 --all-rulesets  where the readings of the conflicts register disagree
  kodex explain situation.yaml --json     hkk-explain/1 for tools""",
    "serve": """example:
  kodex run --impl "kodex serve"           the reference engine through the protocol""",
    "coverage": """examples:
  kodex coverage                          the corpus's clause coverage per Kódex title
  kodex coverage --results reports/runs/mine.json   with an implementation's own pass rates""",
    "diff": """example:
  kodex diff reports/runs/old.json reports/runs/new.json""",
    "merge": """example:
  kodex merge results-*.json --json results.json      join the slices of kodex run --shard K/N""",
    "report": """examples:
  kodex report --results reports/runs/reference.json --out reports/site
  kodex report --results reports/runs/reference.json --results reports/runs/mine.json \\
      --prove reports/prove.json --amendment reports/amendment.json --out reports/site""",
    "amend": """examples:
  kodex amend ~/kodex-2027/               what the amended texts change, and what to review
  kodex amend ~/kodex-2027/ --apply       also rewrite clause:/also: of the cases after a renumbering""",
}

# what each command writes (a command without an entry writes nothing)
WRITES = {
    "run": """writes: --json FILE (hkk-results/2; with --impl its stderr beside it, FILE.stderr.log, else
  reports/runs/<name>.stderr.log), --junit FILE, --ndjson FILE, --coverage: reports/coverage.*""",
    "coverage": "writes: coverage.md and coverage.json in --out (default reports/ of the working "
                "directory)",
    "diff": "writes: --json: the comparison (to FILE, or stdout)",
    "merge": "writes: --json OUT",
    "report": "writes: the site into --out, replaced whole (built beside it, then swapped in)",
    "amend": """writes: amendment.md and amendment.json in --out (default reports/ of the working directory);
  --apply: the corpus's case files (clause:/also: lines only)""",
}

# an output that cannot be written: the same status for every command that writes one
# (conformance.atomicio.OutputError; docs/spec/hkk-results.md)
OUTPUT_STATUS = (EXIT_OUTPUT, "an output cannot be written (a full disk, a read-only place, a "
                              "file-size limit: one line names it; nothing is half-written)")

# every command's exit statuses (docs/spec/hkk-results.md): the one table its --help is
# written from (exit_status_help); a code None is a note on the statuses before it
EXIT_STATUSES: dict[str, tuple[tuple[int | None, str], ...]] = {
    "clauses": ((0, "listed"), (1, "--grep found nothing"), (2, "bad usage")),
    "clause": ((0, "shown"), (2, "unknown clause (with the nearest ids)")),
    "check": ((0, "every case valid"), (2, "input errors")),
    "run": ((0, "every case that ran passed (at least one tested)"),
            (1, "a fail, error, timeout or xpass"),
            (2, "invalid input (a case file's errors, a selection or xfail entry matching no "
                "case, a bad option, an unknown ruleset)"),
            (3, "the implementation unusable or given up (cases NOT RUN)"),
            (4, "nothing tested (every case skipped; with --fail-on-skip, any case skipped)"),
            OUTPUT_STATUS,
            (None, "when several apply, the first of 2, 3, 1, 4, 0"),
            (None, "--compare-rulesets: 0 compared, 2 invalid input")),
    "explain": ((0, "explained (and every then given holds)"), (1, "a then does not hold"),
                (2, "bad input (file, YAML, case, -k matching nothing, unknown ruleset)")),
    "serve": ((0, "after bye or the end of input"),),
    "coverage": ((0, "written"), (1, "a results file without cases"), (2, "input errors"),
                 OUTPUT_STATUS),
    "diff": ((0, "no regression"),
             (1, "a regression (a pass became a fail, error, timeout or xfail)"),
             (2, "an unreadable or invalid file"),
             (3, "passes lost only to skips, cases not run or cases gone from NEW"),
             OUTPUT_STATUS),
    "merge": ((None, "as kodex run for the merged cases (0, 1, 3, 4)"),
              (2, "inputs that overlap or disagree (nothing written)"), OUTPUT_STATUS),
    "report": ((0, "written"), (1, "written, but a results file has no case"),
               (2, "unusable input (named; nothing written)"), OUTPUT_STATUS),
    "amend": ((0, "nothing cited changed"),
              (1, "review needed (a cited clause changed, moved or was removed, a number in a "
                  "ruleset changed, a source still states the old rule, a clause added that no "
                  "case covers)"),
              (2, "bad input (a missing or unreadable file, a document matching no vendored "
                  "text, a file that is not a regular file or too large)"),
              OUTPUT_STATUS),
}


def _wrapped(first: str, text: str, indent: str, width: int = 96) -> list[str]:
    """``first`` then ``text`` in lines of at most ``width`` characters, the later ones
    indented by ``indent``."""
    lines, line = [], first
    for word in text.split():
        if line.strip() and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = indent + word
        else:
            line = f"{line} {word}" if line.strip() else line + word
    return lines + [line]


def exit_status_help(command: str) -> str:
    """The ``exit status:`` lines of ``command``'s --help, from EXIT_STATUSES: one per status."""
    lines = ["exit status:"]
    for code, text in EXIT_STATUSES[command]:
        lines += _wrapped("  " if code is None else f"  {code} ", text, "     ")
    return "\n".join(lines)


def epilog(command: str) -> str:
    """The end of ``command``'s --help: examples, exit statuses, what it writes."""
    return "\n".join([EXAMPLES[command], exit_status_help(command),
                      WRITES.get(command, "Writes nothing.")])


PATHS_HELP = "case files or directories (default: the corpus)"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kodex", description="The executable rulebook of "
                                "Hatalom Kártyái: catalog, corpus, runner, protocol, coverage.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    s = sub.add_parser("clauses", help="list the clause catalog")
    s.add_argument("--section", help="only this section (Kódex title number, e.g. 4; rb7; mk:5.10)")
    s.add_argument("--part", help="only this part (II, VI, rb7, mk)")
    s.add_argument("--json", action="store_true", help="a JSON array instead of a table")
    s.add_argument("--findings", action="store_true",
                   help="list the quirks of the source instead (duplicates, gaps, repeated ids, …)")
    s.add_argument("--grep", metavar="TEXT",
                   help="only the clauses whose title or text contains TEXT (every word of it; "
                        "accents ignored, case too unless TEXT has a capital letter)")
    s.set_defaults(func=cmd_clauses)

    s = sub.add_parser("clause", help="show one clause and the cases citing it")
    s.add_argument("id", help="a clause id as the Kódex writes it: 136.8, 136.8., mk:5.11.b, "
                              "rb7:regeneralodas")
    s.add_argument("paths", nargs="*", help=PATHS_HELP)
    s.set_defaults(func=cmd_clause)

    s = sub.add_parser("check", help="load and validate cases without running them")
    s.add_argument("paths", nargs="*", help=PATHS_HELP)
    s.set_defaults(func=cmd_check)

    s = sub.add_parser("run", help="run cases on the reference engine or, with --impl, on an "
                       "implementation (protocol 1): a verdict per case, the first difference of "
                       "each failure with its clause")
    s.add_argument("paths", nargs="*", help=PATHS_HELP)
    s.add_argument("-k", metavar="PATTERN", help="substring or glob on case id or title")
    s.add_argument("--clause", metavar="PREFIX", help="cases citing this clause or one under it")
    s.add_argument("--impl", metavar="COMMAND", help="run through an implementation (protocol 1)")
    s.add_argument("--ruleset", metavar="NAME", type=ruleset_value,
                   help="run under this ruleset only")
    s.add_argument("--json", metavar="FILE", help="write the results JSON (hkk-results/2)")
    s.add_argument("--xfail", metavar="FILE", help="expected failures of the implementation")
    s.add_argument("--junit", metavar="FILE", help="write JUnit XML (one testcase per case)")
    s.add_argument("--ndjson", metavar="FILE", help="stream one JSON line per case ('-': stdout)")
    s.add_argument("--timeout", metavar="S", type=timeout_value,
                   help=f"per-case deadline in seconds (default 5; at most {MAX_TIMEOUT:g})")
    s.add_argument("--max-restarts", metavar="N", type=count_value,
                   help="give up on the implementation after N cases in a row crashed, hung "
                        "or answered garbage (default 10); the rest are reported NOT RUN")
    s.add_argument("-q", "--quiet", action="store_true",
                   help="print only the cases that did not pass and were not skipped")
    s.add_argument("--coverage", action="store_true", help="print the coverage summary after")
    s.add_argument("--fail-on-skip", action="store_true",
                   help="exit 4 when any case was skipped (instead of 0), so that skipped work "
                        "never passes for done")
    s.add_argument("--shard", metavar="K/N", type=shard_value,
                   help="run only the K-th of N stable slices of the selection (by case id)")
    s.add_argument("--jobs", metavar="N", type=jobs_value, default=None,
                   help="with --impl: run N programs of the implementation, each served a "
                        "share of the cases (default 1); in-process: run the cases in N worker "
                        "processes (default: one per core, at most 8, for 256 cases or more; "
                        "else 1). The results are the same")
    s.add_argument("--compare-rulesets", action="store_true",
                   help="run the selection under every ruleset and list the cases whose outcome "
                        "depends on it (reading differences); --json FILE writes the comparison")
    s.set_defaults(func=_run_or_compare)

    s = sub.add_parser("explain", help="what the reference engine does with a situation, step "
                       "by step, and which clause decided each thing")
    s.add_argument("paths", nargs="*", help="case files or directories, or - for YAML on standard "
                   "input (a case file, one case, or just given and when; then may be left out)")
    s.add_argument("-k", metavar="PATTERN", help="only the cases whose id or title matches "
                   "(substring or glob); without paths, in the corpus")
    s.add_argument("--ruleset", metavar="NAME", type=ruleset_value,
                   help="explain under this ruleset (default: the case's own, else kodex)")
    s.add_argument("--all-rulesets", action="store_true",
                   help="also run it under every ruleset and show where the readings disagree")
    s.add_argument("--format", metavar="hkk-case/N", type=case_format_value,
                   help="the case format of a situation that names none (one case, just given "
                        "and when, a list of cases): hkk-case/1 (the default) or hkk-case/2; "
                        "a format: the input names wins")
    s.add_argument("--json", action="store_true", help="one JSON object (hkk-explain/1) on stdout")
    s.set_defaults(func=cmd_explain)

    s = sub.add_parser("serve", help="speak protocol 1 on stdin/stdout with the reference engine")
    s.add_argument("--ruleset", metavar="NAME", type=ruleset_value,
                   help="ruleset for runs that name none")
    s.set_defaults(func=cmd_serve)

    s = sub.add_parser("coverage", help="clause coverage per Kódex title and part; with a run, "
                       "the implementation's pass rate per title")
    s.add_argument("paths", nargs="*", help=PATHS_HELP)
    s.add_argument("--impl", metavar="COMMAND", help="run the corpus through this implementation")
    s.add_argument("--results", metavar="FILE", help="use a results JSON instead of running")
    s.add_argument("--ruleset", metavar="NAME", type=ruleset_value, help=argparse.SUPPRESS)
    s.add_argument("--timeout", metavar="S", type=timeout_value, help=argparse.SUPPRESS)
    s.add_argument("--out", metavar="DIR", default="reports",
                   help="where coverage.md and coverage.json go (default: reports)")
    s.set_defaults(func=cmd_coverage)

    s = sub.add_parser("diff", help="what changed between two runs: regressions kept apart from "
                       "passes lost to skips or cases not run")
    s.add_argument("old", help="the earlier results file (kodex run --json)")
    s.add_argument("new", help="the later results file")
    s.add_argument("--json", metavar="FILE", nargs="?", const="-",
                   help="write the comparison as JSON (to FILE, or stdout)")
    s.set_defaults(func=cmd_diff)

    s = sub.add_parser("merge", help="join the results files of a run split with --shard")
    s.add_argument("files", nargs="+", metavar="RESULTS.json",
                   help="the results files of the slices (kodex run --shard K/N --json)")
    s.add_argument("--json", metavar="OUT", required=True, help="where the merged results go")
    s.set_defaults(func=cmd_merge)

    s = sub.add_parser("report", help="a static HTML site from results files (implementation matrix)")
    s.add_argument("--results", metavar="FILE", action="append", required=True,
                   help="a results JSON (kodex run --json); repeatable, one column each")
    s.add_argument("--out", metavar="DIR", required=True, help="where the site goes")
    s.add_argument("--prove", metavar="FILE", help="kodex prove JSON to include")
    s.add_argument("--amendment", metavar="FILE", help="kodex amend JSON to include")
    g = s.add_mutually_exclusive_group()
    g.add_argument("--strength", metavar="FILE",
                   help="kodex strength JSON to include (default: the strength.json in a results "
                        "file's directory or the one above it, when there is one)")
    g.add_argument("--no-strength", action="store_true",
                   help="do not pick up a strength.json next to the results files")
    s.set_defaults(func=cmd_report)

    s = sub.add_parser("amend", help="what an amended Kódex changes; the cases and code to review")
    s.add_argument("new_dir", metavar="NEW_DIR", help="the amended documents (any file names: "
                   "each is matched to the text it amends by content; a text without an "
                   "amended copy is unchanged)")
    s.add_argument("--base", metavar="DIR", help="the documents before (default: conformance/kodex)")
    s.add_argument("--json", metavar="FILE", help="also write the JSON (hkk-amendment/1) to FILE; "
                   "'-': to stdout instead of the summary")
    s.add_argument("--out", metavar="DIR", help="where amendment.md and amendment.json go "
                   "(default: reports)")
    s.add_argument("--corpus", metavar="PATH", action="append",
                   help="case files or directories (default: the corpus); repeatable")
    s.add_argument("--apply", action="store_true",
                   help="rewrite clause:/also: of the cases citing a renumbered clause")
    s.set_defaults(func=cmd_amend)

    for name in DELEGATED:
        s = sub.add_parser(name, help={
            "prove": "Z3 proofs of the priority order (102, mk:5.10) and mk:5.11 findings",
            "fuzz": "random play against the invariants; with --impl, differences from the reference",
            "strength": "mutation testing of model/ against the corpus: the score per clause",
        }[name],
                           add_help=False)
        s.add_argument("rest", nargs=argparse.REMAINDER)
        s.set_defaults(func=lambda a, n=name: _delegate(n, a.rest))
    for name, parser in sub.choices.items():
        if name in EXAMPLES:
            parser.epilog = epilog(name)
            parser.formatter_class = argparse.RawDescriptionHelpFormatter
    p.epilog = ("examples:\n  kodex run -q                      the corpus on the reference engine\n"
                "  kodex explain -k 136.8/         what happens, and which clause says so\n"
                "  kodex clauses --grep regenerálódás\n"
                "  kodex COMMAND --help            each command's options, examples and exit codes")
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    return p


def _commands(parser: argparse.ArgumentParser) -> list[str]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices)
    return []  # pragma: no cover


def _unknown_command(parser: argparse.ArgumentParser, argv: list[str]) -> int | None:
    """``kodex rnu``: exit 2 with the nearest command and the list (None: a known command)."""
    if not argv or argv[0].startswith("-"):
        return None
    names = _commands(parser)
    if argv[0] in names:
        return None
    near = difflib.get_close_matches(argv[0], names, n=1, cutoff=0.5)
    console = _console(stderr=True)
    console.print(Text(safe_text(f"kodex: unknown command {argv[0]!r}"
                                 + (f"; did you mean 'kodex {near[0]}'?" if near else "")),
                       style="bold red"), soft_wrap=True)
    console.print(Text("commands: " + ", ".join(names) + " (kodex --help)", style="dim"),
                  soft_wrap=True)
    return EXIT_INPUT


def _outputs_checked(command: str, fn) -> int:
    """``fn()``; an output that cannot be written (``conformance.atomicio.OutputError``: a
    full disk, a read-only directory, a file where a directory should be) is one line naming
    the file and the reason, and exit status 5, which no command uses for anything else
    (docs/spec/hkk-results.md); an implementation the command had started and not closed
    yet is stopped."""
    from conformance.atomicio import EXIT_OUTPUT, OutputError
    try:
        return fn()
    except OutputError as exc:
        if "conformance.protocol" in sys.modules:     # nothing is left running either
            sys.modules["conformance.protocol"].stop_all()
        _console(stderr=True).print(Text(f"kodex {command}: {safe_text(exc, 2000)}",
                                         style="bold red"), soft_wrap=True)
        return EXIT_OUTPUT


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    found = shadowing.shadowed()
    if found:            # a module of the user's would be imported in place of the kit's
        _console(stderr=True).print(Text(safe_text("kodex: " + shadowing.message(found), 2000),
                                         style="bold red"), soft_wrap=True)
        return EXIT_INPUT
    if argv and argv[0] in DELEGATED:
        return _outputs_checked(argv[0], lambda: _delegate(argv[0], argv[1:]))
    parser = build_parser()
    unknown = _unknown_command(parser, argv)
    if unknown is not None:
        return unknown
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: usage errors are 2, --help is 0
        return int(exc.code or 0) if not isinstance(exc.code, str) else EXIT_INPUT
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_INPUT
    from conformance.interrupts import guarded
    try:
        return _outputs_checked(args.command,
                                lambda: guarded(lambda: int(args.func(args) or 0)))
    except CLIError as exc:
        _console(stderr=True).print(Text(f"kodex: {exc}", style="red"), soft_wrap=True)
        return EXIT_INPUT
    except ValueError as exc:             # an unusable KODEX_TEXTS_DIR (catalog.TextsDirError)
        from conformance.catalog import TextsDirError
        if not isinstance(exc, TextsDirError):
            raise
        _console(stderr=True).print(Text(safe_text(f"kodex: {exc}", 2000), style="red"), soft_wrap=True)
        return EXIT_INPUT
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
