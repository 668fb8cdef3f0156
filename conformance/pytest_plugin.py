"""pytest plugin: every `hkk-case/1` case of the corpus is a test item.

Registered by the entry point ``pytest11: kodex_corpus`` (pyproject.toml);
without the installed package use ``-p conformance.pytest_plugin``.

* Collects the YAML files under the corpus directories (ini option
  ``kodex_corpus``, default ``conformance/corpus`` relative to the rootdir)
  whose top level names ``format: hkk-case…`` or ``cases`` (other YAML is
  ignored). The whole corpus is loaded once (``conformance.loader.load_files``)
  so duplicate ids across files are found.
* One item per valid case, named by the case id (``-k <id>`` selects it); one
  failing item per input error of a file (file:line: pointer: message). A
  broken file never stops the collection of the others.
* Running an item: ``conformance.runner.run_one`` when that module exists,
  else ``model.engine.run_case`` + ``conformance.matching``. ``fail`` shows the
  case id, clause, title, file:line and the first difference (path, expected,
  actual); ``skip`` skips; ``error``/``timeout``/``not_run`` fail with the
  message. Option ``--kodex-ruleset NAME`` selects the ruleset.
* ``--kodex-impl CMD`` runs the cases against another implementation speaking
  the protocol (one program for the whole session, started at the first
  case, stopped with its process group at the end; a program that cannot be
  started fails every case with the reason). ``--kodex-xfail FILE`` reads its
  expected failures (``xfail`` is reported as pytest's xfail; a listed case
  that passes fails loudly), ``--kodex-timeout S`` the per-case deadline.

Spec: docs/spec/hkk-case-format.md (cases, expectations).
"""
from __future__ import annotations

import functools
import importlib.util
import json
import os
import traceback
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.loader import FORMAT, Case, InputError, Loader, load_files

_RESULT_KEY = pytest.StashKey[dict]()
_YAML_SUFFIXES = (".yaml", ".yml")


def pytest_addoption(parser):
    parser.addini("kodex_corpus", "directories of hkk-case/1 files collected as tests "
                                  "(relative to the rootdir)",
                  type="linelist", default=["conformance/corpus"])
    group = parser.getgroup("kodex", "HKK conformance corpus")
    group.addoption("--kodex-ruleset", default=None, metavar="NAME",
                    help="run the corpus cases under this ruleset (default: each case's own "
                         "rule: kodex, or the first ruleset the case names)")
    group.addoption("--kodex-impl", default=None, metavar="CMD",
                    help="run the corpus against this implementation (protocol 1) instead of "
                         "the reference engine in-process")
    group.addoption("--kodex-xfail", default=None, metavar="FILE",
                    help="the implementation's expected failures (as kodex run --xfail)")
    group.addoption("--kodex-timeout", default=None, type=float, metavar="S",
                    help="per-case deadline in seconds (default 5)")


_IMPL_KEY = pytest.StashKey[dict]()


def _impl_state(config) -> dict:
    """The session's implementation client: {"client", "error", "xfail"} (created once)."""
    state = config.stash.get(_IMPL_KEY, None)
    if state is not None:
        return state
    state = {"client": None, "error": None, "xfail": None}
    config.stash[_IMPL_KEY] = state
    xfail_path = config.getoption("kodex_xfail", None)
    if xfail_path:
        from conformance.runner import load_xfail
        try:
            state["xfail"] = load_xfail(xfail_path)
        except Exception as exc:  # noqa: BLE001 - every case then says why
            state["error"] = f"{xfail_path}: cannot read the expected failures: {exc}"
            return state
    command = config.getoption("kodex_impl", None)
    if command:
        from conformance.protocol import ProtocolClient, ProtocolError
        from conformance.runner import DEFAULT_TIMEOUT
        timeout = config.getoption("kodex_timeout", None) or DEFAULT_TIMEOUT
        try:
            state["client"] = ProtocolClient(command, timeout=timeout)
        except ProtocolError as exc:
            state["error"] = f"implementation unavailable: {exc}"
    return state


def pytest_unconfigure(config):
    state = config.stash.get(_IMPL_KEY, None)
    if state and state.get("client") is not None:
        state["client"].close()
        state["client"] = None


def _corpus_dirs(config) -> list[Path]:
    root = Path(config.rootpath)
    return [(root / d).resolve() for d in config.getini("kodex_corpus")]


def _under(path: Path, dirs: list[Path]) -> bool:
    path = path.resolve()
    return any(path == d or d in path.parents for d in dirs)


def looks_like_case_file(path: Path) -> bool:
    """A YAML file whose top level names ``format: hkk-case…`` or ``cases``.
    Unparsable files count (so their error is shown), and so do files of several documents
    (the loader reports them). Reads the YAML event stream only as far as the top-level keys
    decide it: a case file is known from its first key or two, nothing is composed."""
    try:
        from conformance.loader import MAX_FILE_BYTES
        if path.stat().st_size > MAX_FILE_BYTES:
            return True          # the loader reports the size limit for it
        text = path.read_text(encoding="utf-8-sig")
        return _top_level_says_cases(yaml.parse(text, Loader=Loader))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return True


_OPENS = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
_CLOSES = (yaml.MappingEndEvent, yaml.SequenceEndEvent)


def _skip_node(first, events) -> None:
    """Consume the rest of the node that starts with event ``first`` (nothing for a scalar)."""
    depth = 1 if isinstance(first, _OPENS) else 0
    while depth:
        ev = next(events)
        depth += isinstance(ev, _OPENS) - isinstance(ev, _CLOSES)


def _top_level_says_cases(events) -> bool:
    events = iter(events)
    root = next((ev for ev in events
                 if not isinstance(ev, (yaml.StreamStartEvent, yaml.DocumentStartEvent))), None)
    if not isinstance(root, yaml.MappingStartEvent):
        return False                           # empty, a scalar or a list
    try:
        while not isinstance(key := next(events), yaml.MappingEndEvent):
            name = key.value if isinstance(key, yaml.ScalarEvent) else None
            if name == "cases" or isinstance(key, yaml.AliasEvent):
                return True                    # an alias only the loader resolves (or rejects)
            _skip_node(key, events)            # a complex key is skipped whole
            value = next(events)
            if name == "format" and (isinstance(value, yaml.AliasEvent) or (
                    isinstance(value, yaml.ScalarEvent)
                    and str(value.value).startswith(FORMAT.split("/")[0]))):
                return True
            _skip_node(value, events)
    except StopIteration:                      # the parser raises first; a cut stream counts too
        return True
    # a second document makes the file unparsable as one: the loader reports it
    return any(isinstance(ev, yaml.DocumentStartEvent) for ev in events)


def pytest_collect_file(file_path: Path, parent):
    if file_path.suffix not in _YAML_SUFFIXES:
        return None
    if not _under(file_path, _corpus_dirs(parent.config)):
        return None
    if not _looks_like_case_file(parent.config, file_path):
        return None
    return CaseFile.from_parent(parent, path=file_path)


def _load(config, path: Path) -> tuple[list, list]:
    """The input errors and the cases of the file ``path``, from the whole corpus loaded once
    (grouped by file once, so collecting a file does not look at every other file's cases)."""
    cache = config.stash.setdefault(_RESULT_KEY, {})
    key = path.resolve()
    if key not in cache:
        files = []
        for d in _corpus_dirs(config):
            if d.is_dir():
                files += [p for p in sorted({q for pat in ("*.yaml", "*.yml") for q in d.rglob(pat)})
                          if p.is_file() and _looks_like_case_file(config, p)]
        if key not in {p.resolve() for p in files}:
            files = [path]
        res = load_files([_display(p) for p in files])
        resolved: dict[str, Path] = {}

        def file_of(name: str) -> Path:
            if name not in resolved:
                resolved[name] = Path(name).resolve()
            return resolved[name]
        for p in files:
            cache[p.resolve()] = ([], [])
        for err in res.errors:
            cache.setdefault(file_of(err.file), ([], []))[0].append(err)
        for case in res.cases:
            cache.setdefault(file_of(case.file), ([], []))[1].append(case)
    return cache[key]


_LOOKS_KEY = pytest.StashKey[dict]()


def _looks_like_case_file(config, path: Path) -> bool:
    """`looks_like_case_file`, asked once per file in a session (collection asks it again)."""
    seen = config.stash.setdefault(_LOOKS_KEY, {})
    key = path.resolve()
    if key not in seen:
        seen[key] = looks_like_case_file(path)
    return seen[key]


def _display(path: Path) -> Path:
    """The path relative to the working directory when that is shorter (messages)."""
    try:
        rel = Path(os.path.relpath(path))
    except ValueError:
        return path
    return rel if len(str(rel)) < len(str(path)) else path


@functools.lru_cache(maxsize=1)
def _shadowing() -> str | None:
    """A module of the user's that would be imported in place of the kit's engine or harness
    (conformance/shadowing.py), checked once per session before the first case file loads."""
    from conformance import shadowing
    found = shadowing.shadowed()
    return shadowing.message(found) if found else None


class CaseFile(pytest.File):
    def collect(self):
        shadow = _shadowing()           # loading the cases imports the engine's vocabularies
        if shadow:
            yield LoadFailureItem.from_parent(self, name="load-failure", message=shadow)
            return
        try:
            errors, cases = _load(self.config, self.path)
        except Exception as exc:  # noqa: BLE001 - shown as a failing item
            yield LoadFailureItem.from_parent(
                self, name="load-failure",
                message=f"loading the corpus failed: {type(exc).__name__}: {exc}\n"
                        + traceback.format_exc())
            return
        names: set[str] = set()
        for err in errors:
            name = f"input-error:{err.line}:{err.pointer or '/'}"
            n, base = 2, name
            while name in names:
                name, n = f"{base}#{n}", n + 1
            names.add(name)
            yield InputErrorItem.from_parent(self, name=name, error=err)
        for case in cases:
            yield CaseItem.from_parent(self, name=case.id, case=case)


# --------------------------------------------------------------------------
# items

class CaseFailed(AssertionError):
    def __init__(self, difference: Any, message: str):
        super().__init__(message)
        self.difference = difference
        self.message = message


class CaseErrored(Exception):
    def __init__(self, message: str, tb: str | None = None):
        super().__init__(message)
        self.message = message
        self.tb = tb


def _diff_parts(diff: Any) -> tuple[Any, Any, Any, str]:
    if diff is None:
        return None, None, None, ""
    if isinstance(diff, dict):
        return diff.get("path"), diff.get("expected"), diff.get("actual"), diff.get("message", "")
    return (getattr(diff, "path", None), getattr(diff, "expected", None),
            getattr(diff, "actual", None), getattr(diff, "message", ""))


def _show(v: Any) -> str:
    try:
        return json.dumps(v, ensure_ascii=False, default=repr)
    except (TypeError, ValueError):
        return repr(v)


def _run_fallback(case: Case, ruleset: str | None):
    """Without conformance.runner: run in-process and match here."""
    from conformance.matching import first_difference, observed_view, step_verbs
    from model import engine

    chosen = ruleset
    if chosen is None:
        chosen = "kodex" if not case.rulesets or "kodex" in case.rulesets else case.rulesets[0]
    elif case.rulesets and chosen not in case.rulesets:
        return "skip", None, f"case holds only under {', '.join(case.rulesets)}"
    avail = getattr(engine, "available_rulesets", lambda: [chosen])()
    if chosen not in avail:
        return "skip", None, f"unsupported ruleset {chosen}"
    try:
        res = engine.run_case(case.given, case.when, chosen, version=case.version)
    except NotImplementedError as exc:
        return "skip", None, f"not implemented by the engine: {exc}"
    except Exception as exc:  # noqa: BLE001
        return "error", None, f"engine raised {type(exc).__name__}: {exc}\n{traceback.format_exc()}"
    diff = first_difference(case.then, observed_view(res.state, res.events, res.result,
                                                     res.refused), len(case.when),
                            step_verbs(case.when))
    if diff is None:
        return "pass", None, ""
    return "fail", diff, diff.message


class CaseItem(pytest.Item):
    def __init__(self, *, case: Case, **kw):
        super().__init__(**kw)
        self.case = case
        self.add_marker(pytest.mark.kodex_case)
        for tag in case.tags:
            self.keywords[str(tag)] = True

    def runtest(self):
        ruleset = self.config.getoption("kodex_ruleset", None)
        outside = self.config.getoption("kodex_impl", None) or \
            self.config.getoption("kodex_xfail", None)
        if outside:
            state = _impl_state(self.config)
            if state["error"]:
                raise CaseErrored(state["error"])
            from conformance.runner import apply_xfail, run_one
            oc = apply_xfail(run_one(self.case, ruleset, state["client"]), state["xfail"])
            outcome, diff, message = oc.outcome, oc.difference, oc.message
            tb = getattr(oc, "traceback", None)
        elif importlib.util.find_spec("conformance.runner") is not None:
            from conformance.runner import run_one
            oc = run_one(self.case, ruleset)
            outcome, diff, message = oc.outcome, oc.difference, oc.message
            tb = getattr(oc, "traceback", None)
        else:
            outcome, diff, message = _run_fallback(self.case, ruleset)
            tb = None
        if outcome == "pass":
            return
        if outcome == "skip":
            pytest.skip(message or "skipped")
        if outcome == "xfail":
            pytest.xfail(message or "expected failure")
        if outcome == "xpass":
            raise CaseErrored(f"XPASS: {message}")
        if outcome == "fail":
            raise CaseFailed(diff, message)
        raise CaseErrored(f"{outcome}: {message}", tb)

    def repr_failure(self, excinfo, style=None):
        exc = excinfo.value
        c = self.case
        head = [f"case {c.id}",
                f"  clause: {c.clause}" + (f" (also {', '.join(c.also)})" if c.also else ""),
                f"  title:  {c.title}",
                f"  at:     {c.file}:{c.line}"]
        if isinstance(exc, CaseFailed):
            path, expected, actual, msg = _diff_parts(exc.difference)
            lines = head + ["first difference:",
                            f"  path:     {path or '/'}",
                            f"  expected: {_show(expected)}",
                            f"  actual:   {_show(actual)}"]
            if msg or exc.message:
                lines.append(f"  {msg or exc.message}")
            return "\n".join(lines)
        if isinstance(exc, CaseErrored):
            return "\n".join(head + [exc.message] + ([exc.tb] if exc.tb else []))
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, max(self.case.line - 1, 0), f"case {self.case.id}"


class InputErrorFailure(Exception):
    pass


class InputErrorItem(pytest.Item):
    def __init__(self, *, error: InputError, **kw):
        super().__init__(**kw)
        self.error = error

    def runtest(self):
        raise InputErrorFailure(str(self.error))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, InputErrorFailure):
            return f"input error: {self.error}"
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, max(self.error.line - 1, 0), f"input error {self.error.pointer or '/'}"


class LoadFailureItem(pytest.Item):
    def __init__(self, *, message: str, **kw):
        super().__init__(**kw)
        self.message = message

    def runtest(self):
        raise InputErrorFailure(self.message)

    def repr_failure(self, excinfo, style=None):
        return self.message

    def reportinfo(self):
        return self.path, 0, "corpus load failure"


def pytest_configure(config):
    config.addinivalue_line("markers", "kodex_case: a case of the HKK conformance corpus")
    name = config.getoption("kodex_ruleset", None)
    if name:                 # an unknown ruleset is a usage error, not a run that skips every case
        from model.ruleset import available_rulesets
        if name not in available_rulesets():
            raise pytest.UsageError(f"--kodex-ruleset: unknown ruleset {name!r}; the rulesets: "
                                    + ", ".join(available_rulesets()))
