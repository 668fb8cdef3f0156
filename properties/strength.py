"""kodex strength: mutation testing of the engine against the corpus alone.

The corpus is only as good as the faults it notices. This command measures it:
every mutant that Cosmic Ray's operators (a maintained mutation tool,
``cosmic-ray`` on PyPI) can make of ``model/`` is run against the conformance
corpus, and the corpus, not the unit tests, is the oracle: a mutant is
*killed* when one case that passes on the real engine does not pass on the
mutant (failed, errored or timed out), and *survives* when every such case
still passes.

How a mutant is run (fast, parallel, incremental):

- The corpus is loaded once, in the parent process; a baseline run on the real
  engine keeps the cases that pass (the oracle) and their durations.
- Each mutant runs in a child forked from the parent (at most ``--workers`` at
  a time, 2 by default): the child drops ``model`` from ``sys.modules``, puts an
  import hook first on ``sys.meta_path`` that serves the one mutated module from
  memory (its ``__file__`` stays the real path, so data files next to it are
  found; nothing is written into ``model/``), and runs the already-loaded
  cases in-process, stopping at the first one that does not pass. The cases
  citing the mutant's clauses run first, then the cases that killed other
  mutants of the same file, then the rest.
- A mutant the corpus lets through then runs the input probes
  (``properties/strength_probes.py``, ``properties/input_probes/``): malformed inputs, each
  with the input error the reference engine raises on it. A probe whose outcome differs
  from the reference's kills the mutant (its killer ``probe:<id>``); the report counts
  those kills apart from the corpus's.
- A case that overruns its deadline (an infinite loop) kills the mutant *by
  timeout*; a child that overruns the mutant's deadline is killed (SIGKILL)
  and counted the same way; both are reported as timeouts.
- Results are cached (``--cache``, default ``.strength-cache/`` in the working
  directory) under a key made of the mutated file's SHA-256, the SHA-256 of the
  whole engine package (every module's name and bytes), the operator and its
  occurrence. A killed mutant's result stays valid while the case that killed it
  is unchanged; one a probe killed while that probe and the corpus files are (the
  corpus let it through); a surviving (or timed-out) mutant's while the corpus files
  and the probes are unchanged. So after new cases only the survivors run again, and after an edit
  of any engine file every mutant does: what one module does depends on the
  others (when model/state.py began to hand out its own phase names, nine
  ``is`` mutants of other files that a case had once killed became equivalent;
  a key of the mutated file alone kept their old verdicts, and the score 100%).

Each mutant is mapped to the clauses its code implements, with the kit's
traceability (clause ids in ``model/`` docstrings, read with ``ast``): the ids
in a comment on the mutated line if any, else those of the docstring of the
innermost enclosing function or class that cites any, else the module's. Only
ids the catalog knows count. The score is reported per clause, per Kódex title
(the catalog's section) and overall, in ``reports/strength.md`` and
``reports/strength.json`` (``--out DIR``), written as an atomic pair.

Equivalent mutants (no input can tell them from the engine) are declared with
a reason in ``properties/strength_equivalent.yaml``; they are listed in the
report and left out of the score, never dropped silently. A mutant declared
equivalent that the corpus kills is reported as a problem of that file.
"""
from __future__ import annotations

import argparse
import ast
import dataclasses
import difflib
import hashlib
import io
import json
import keyword
import os
import re
import select
import signal
import sys
import time
import tokenize
from pathlib import Path
from typing import Any, Callable, Iterable

from properties.code_names import qualified_defs
from properties.strength_probes import DEFAULT_DIR as DEFAULT_PROBES
from properties.strength_probes import ProbeError, ProbeOracle, probe_cost, probe_killer, probe_markdown

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MODEL = ROOT / "model"
DEFAULT_EQUIVALENT = Path(__file__).resolve().parent / "strength_equivalent.yaml"
DEFAULT_CACHE = ".strength-cache"
SCHEMA = "hkk-strength/2"     # 2: the input probes (`probes`, `by_probe`, `corpus_score`)
CACHE_VERSION = 2
GOAL_OVERALL = 95.0
GOAL_TITLE = 85.0

KILLED = "killed"
TIMEOUT = "timeout"
SURVIVED = "survived"
EQUIVALENT = "equivalent"
NO_MUTATION = "no-mutation"
DETECTED = (KILLED, TIMEOUT)
MODULE_LEVEL = "<module>"

__all__ = ["Mutant", "enumerate_mutants", "clause_map", "load_equivalents", "score",
           "run", "CorpusOracle", "main"]


# --------------------------------------------------------------------------
# mutants and their clauses

@dataclasses.dataclass
class Mutant:
    file: str                 # path as reported ("model/combat.py")
    module: str               # import name ("model.combat")
    path: str                 # absolute path of the original file
    file_sha: str
    operator: str             # cosmic-ray operator name ("core/AddNot")
    occurrence: int
    line: int
    col: int
    function: str             # innermost enclosing def/class ("" at module level)
    clauses: list[str]
    mapped_by: str            # "comment" | "docstring:<name>" | "module" | "none"
    annotation: bool = False  # inside an annotation (never evaluated)
    raises: str | None = None  # on a path that only ends in `raise <this exception>`
    message: bool = False      # in the text of a refusal (ClauseMap.in_refusal_message)
    cached_literal: bool = False   # an identity mutant of a comparison with a cached literal
    context: str = ""          # the block it lies in (ClauseMap.context)
    status: str | None = None
    killer: str | None = None
    detail: str = ""
    change: str = ""          # the changed lines as they read, "before → after"
    snippet: str = ""         # the same, normalised (normal_source): what a declaration names
    cached: bool = False
    seconds: float = 0.0
    probe_seconds: float | None = None   # the input probes' run in the child (the corpus survived)
    equivalent_reason: str | None = None
    equivalent_by: str | None = None   # "rule" (a class of the equivalence file) or "declaration" (one by one)

    package_sha: str = ""      # the whole engine package (package_digest): part of the cache key

    @property
    def id(self) -> str:
        return f"{self.file}:{self.line}:{self.operator}#{self.occurrence}"

    @property
    def where(self) -> str:
        """The enclosing function as a declaration names it: ``model.combat:Class.function``
        (``model.engine:<module>`` at module level)."""
        return f"{self.module}:{self.function or MODULE_LEVEL}"

    @property
    def key(self) -> str:
        return hashlib.sha256(f"{CACHE_VERSION}|{self.file_sha}|{self.package_sha}|{self.operator}|"
                              f"{self.occurrence}".encode()).hexdigest()


def _sha(data: bytes | str) -> str:
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def files_digest(paths: Iterable[Path]) -> str:
    """SHA-256 of the files' names and bytes, in sorted order."""
    h = hashlib.sha256()
    for path in sorted(Path(p).resolve() for p in paths):
        h.update(path.name.encode("utf-8") + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def package_digest(package_dir: Path) -> str:
    """SHA-256 of every module of the package: a mutant's verdict depends on the modules it was
    not made in too."""
    return files_digest(Path(package_dir).glob("*.py"))


def operator_names(select_: Iterable[str] | None = None) -> list[str]:
    """Cosmic Ray's core operators that take no arguments (what ``cosmic-ray init``
    uses without configuration); ``select_``: regular expressions, any must match."""
    import cosmic_ray.plugins as plugins
    names = [n for n in plugins.operator_names()
             if not plugins.get_operator(n).arguments()]
    pats = [re.compile(p) for p in (select_ or [])]
    if pats:
        names = [n for n in names if any(p.search(n) for p in pats)]
    return names


def _comments(source: str) -> dict[int, str]:
    out: dict[int, str] = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                out[tok.start[0]] = out.get(tok.start[0], "") + " " + tok.string
    except (tokenize.TokenError, SyntaxError):
        pass
    return out


def _raised_name(node: ast.Raise) -> str | None:
    exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
    if isinstance(exc, ast.Name):
        return exc.id
    if isinstance(exc, ast.Attribute):
        return exc.attr
    return None


def _raise_paths(tree: ast.AST) -> list[tuple[tuple[int, int], tuple[int, int], str]]:
    """Source spans that run only on the way to a ``raise``: each ``raise E(...)``
    statement, and each branch (body or else of an ``if``) whose statements are
    assignments to plain local names followed by a final ``raise E(...)``.

    Reaching such a span is decided by code outside it (the guard), and once
    reached nothing in it can leave except by the raise or by another exception:
    a mutant inside it changes only what is raised. Whether a raise of E can end
    a passing case is the rule's claim (``where: input-error``), not this one's."""
    out: list[tuple[tuple[int, int], tuple[int, int], str]] = []

    def span(first: ast.stmt, last: ast.stmt, name: str) -> None:
        out.append(((first.lineno, first.col_offset),
                    (last.end_lineno or last.lineno, last.end_col_offset or 0), name))

    for n in ast.walk(tree):
        if isinstance(n, ast.Raise) and n.exc is not None:
            name = _raised_name(n)
            if name:
                span(n, n, name)
        if isinstance(n, ast.If):
            for branch in (n.body, n.orelse):
                if not branch or not isinstance(branch[-1], ast.Raise) or branch[-1].exc is None:
                    continue
                name = _raised_name(branch[-1])
                if name and all(isinstance(st, ast.Assign)
                                and all(isinstance(t, ast.Name) for t in st.targets)
                                for st in branch[:-1]):
                    span(branch[0], branch[-1], name)
    return out


def _known(ids: Iterable[str], known: Callable[[str], bool] | None) -> list[str]:
    out: list[str] = []
    for cid in ids:
        if (known is None or known(cid)) and cid not in out:
            out.append(cid)
    return out


def _span(node: ast.AST) -> tuple[tuple[int, int], tuple[int, int]]:
    return ((node.lineno, node.col_offset), (node.end_lineno or node.lineno, node.end_col_offset or 0))


def _REFUSE(func: ast.AST) -> bool:
    """`g.refuse(...)` (model/game.py: Game.refuse), or a bare `refuse(...)`."""
    return (isinstance(func, ast.Attribute) and func.attr == "refuse") or \
        (isinstance(func, ast.Name) and func.id == "refuse")


def _cached_literal(node: ast.AST) -> bool:
    """A literal CPython 3 keeps one object of, whatever made the other operand: None, True,
    False, an int from -5 to 256 (the small-int cache), a one-character ASCII str (the Latin-1
    character cache; every str of length 1 the engine reads or builds is that object)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) \
            and isinstance(node.operand, ast.Constant) and type(node.operand.value) is int:
        return 0 <= node.operand.value <= 5
    if not isinstance(node, ast.Constant):
        return False
    v = node.value
    if v is None or v is True or v is False:
        return True
    if type(v) is int:
        return -5 <= v <= 256
    return type(v) is str and len(v) == 1 and v.isascii()


class ClauseMap:
    """file + line → (clauses, how, enclosing function) for one source file."""

    def __init__(self, source: str, known: Callable[[str], bool] | None = None):
        from conformance.traceability import cited_ids
        tree = ast.parse(source)
        self._cited = lambda text: _known(cited_ids(text or ""), known)
        self.module_ids = self._cited(ast.get_docstring(tree, clean=False))
        self.scopes: list[tuple[int, int, str, list[str]]] = []   # start, end, qualname, ids
        self.annotations: list[tuple[tuple[int, int], tuple[int, int]]] = []
        self.future_annotations = any(
            isinstance(n, ast.ImportFrom) and n.module == "__future__"
            and any(a.name == "annotations" for a in n.names) for n in tree.body)

        def visit(node, prefix: str) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    name = f"{prefix}{child.name}"
                    start = min([child.lineno] + [d.lineno for d in child.decorator_list])
                    self.scopes.append((start, child.end_lineno or child.lineno, name,
                                        self._cited(ast.get_docstring(child, clean=False))))
                    visit(child, name + ".")
                else:
                    visit(child, prefix)
        visit(tree, "")
        for n in ast.walk(tree):
            anns = []
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = n.args
                for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
                    if arg is not None and arg.annotation is not None:
                        anns.append(arg.annotation)
                if n.returns is not None:
                    anns.append(n.returns)
            elif isinstance(n, ast.AnnAssign):
                anns.append(n.annotation)
            for x in anns:
                self.annotations.append(((x.lineno, x.col_offset),
                                         (x.end_lineno or x.lineno, x.end_col_offset or 0)))
        self.comments = {k: self._cited(v) for k, v in _comments(source).items()}
        self.raise_paths = _raise_paths(tree)
        self.messages: list[tuple[tuple[int, int], tuple[int, int]]] = []   # refusal texts
        self.cached_compares: list[tuple[tuple[int, int], tuple[int, int]]] = []
        for n in ast.walk(tree):
            if isinstance(n, ast.Call) and _REFUSE(n.func):
                text = n.args[1] if len(n.args) > 1 else next(
                    (k.value for k in n.keywords if k.arg == "message"), None)
                if text is not None:
                    self.messages.append(_span(text))
            elif isinstance(n, ast.Compare) and len(n.ops) == 1 \
                    and any(_cached_literal(x) for x in (n.left, *n.comparators)):
                self.cached_compares.append(_span(n))
        self._lines = source.splitlines()
        self._blocks: list[tuple[tuple[int, int], tuple[int, int], ast.stmt, str]] = []
        for n in ast.walk(tree):            # every statement, with the block holding it
            for branch in ("body", "orelse", "handlers", "finalbody"):
                block = getattr(n, branch, None)
                for st in block if isinstance(block, list) else ():
                    if isinstance(st, (ast.stmt, ast.excepthandler)):
                        self._blocks.append(((st.lineno, st.col_offset),
                                             (st.end_lineno or st.lineno, st.end_col_offset or 0),
                                             n, branch))

    def context(self, line: int, col: int) -> str:
        """The block a position lies in, as a declaration may name it to tell apart the same
        change twice in one function: the first line of the statement heading the block, normalised
        (``if args.get(REPLACED_MARK):``; ``else`` / ``finally`` added for those branches), of the
        innermost statement holding the position; "" at module level or in a function's own body."""
        best = None
        for a, b, parent, branch in self._blocks:
            if a <= (line, col) < b and (best is None or a >= best[0]):
                best = (a, parent, branch)
        if best is None or isinstance(best[1], (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef,
                                                ast.ClassDef)):
            return ""
        parent, branch = best[1], best[2]
        head = normal_source([self._lines[parent.lineno - 1]]) if hasattr(parent, "lineno") else ""
        return head + {"orelse": " else", "finalbody": " finally"}.get(branch, "")

    def raising(self, line: int, col: int) -> str | None:
        """The exception raised at the end of the only path (line, col) lies on, if any:
        inside ``raise E(...)``, or inside a branch made of assignments to local names
        and ending in ``raise E(...)`` (code that runs only on the way to raising E)."""
        for a, b, name in self.raise_paths:
            if a <= (line, col) < b:
                return name
        return None

    def in_refusal_message(self, line: int, col: int) -> bool:
        """True when (line, col) lies in the text of a refusal: the message argument of
        `g.refuse(clause, message)`, which no verdict reads (then.error names the clause)."""
        return any(a <= (line, col) < b for a, b in self.messages)

    def in_cached_literal_compare(self, line: int, col: int) -> bool:
        """True when (line, col) lies in a comparison of one operator with an operand CPython
        keeps unique (`None`, `True`, `False`, an int from -5 to 256, a one-character ASCII str)."""
        return any(a <= (line, col) < b for a, b in self.cached_compares)

    def in_annotation(self, line: int, col: int) -> bool:
        """True when (line, col) lies in an annotation that is never evaluated."""
        if not self.future_annotations:
            return False
        return any(a <= (line, col) < b for a, b in self.annotations)

    def enclosing(self, line: int) -> list[tuple[str, list[str]]]:
        """Enclosing defs/classes of a line, innermost first."""
        hits = [(s, e, n, ids) for s, e, n, ids in self.scopes if s <= line <= e]
        hits.sort(key=lambda h: (-h[0], h[1]))
        return [(n, ids) for _, _, n, ids in hits]

    def lookup(self, line: int, end_line: int | None = None) -> tuple[list[str], str, str]:
        """(clauses, how they were found, innermost enclosing function)."""
        scopes = self.enclosing(line)
        function = scopes[0][0] if scopes else ""
        for ln in dict.fromkeys([line, end_line or line]):
            if self.comments.get(ln):
                return list(self.comments[ln]), "comment", function
        for name, ids in scopes:
            if ids:
                return list(ids), f"docstring:{name}", function
        if self.module_ids:
            return list(self.module_ids), "module", function
        return [], "none", function


def clause_map(source: str, known: Callable[[str], bool] | None = None) -> ClauseMap:
    return ClauseMap(source, known)


def _catalog_known() -> tuple[Callable[[str], bool] | None, Callable[[str], str]]:
    """(is this a catalog clause, the Kódex title of a clause)."""
    try:
        from conformance.catalog import load_catalog
        cat = load_catalog()
    except Exception:          # no catalog: every cited id counts, title = first component
        cat = None

    def title(cid: str) -> str:
        c = cat.get(cid) if cat is not None else None
        if c is not None:
            return f"{c.section} {c.section_title}".strip()
        return cid.split(".")[0]
    return ((lambda cid: cid in cat) if cat is not None else None), title


def enumerate_mutants(package_dir: Path, operators: list[str],
                      known: Callable[[str], bool] | None = None,
                      files: Iterable[str] | None = None,
                      rel_to: Path | None = None) -> list[Mutant]:
    """Every mutant Cosmic Ray's ``operators`` make of the package's modules."""
    import cosmic_ray.plugins as plugins
    from cosmic_ray.ast import ast_nodes, get_ast

    package_dir = Path(package_dir).resolve()
    rel_to = (rel_to or package_dir.parent).resolve()
    ops = [(name, plugins.get_operator(name)()) for name in operators]
    wanted = {str(Path(f)) for f in files} if files else None
    package_sha = package_digest(package_dir)
    out: list[Mutant] = []
    for path in sorted(package_dir.glob("*.py")):
        rel = path.relative_to(rel_to).as_posix()
        if wanted is not None and rel not in wanted and path.name not in wanted:
            continue
        source = path.read_text(encoding="utf-8")
        sha = _sha(source)
        cmap = ClauseMap(source, known)
        nodes = list(ast_nodes(get_ast(source)))
        modname = ".".join(path.relative_to(package_dir.parent).with_suffix("").parts)
        if path.name == "__init__.py":
            modname = package_dir.name
        for name, op in ops:
            occurrence = 0
            for node in nodes:
                for (start, end) in op.mutation_positions(node):
                    line, col = start
                    clauses, how, function = cmap.lookup(line, end[0])
                    out.append(Mutant(file=rel, module=modname, path=str(path), file_sha=sha,
                                      operator=name, occurrence=occurrence, line=line, col=col,
                                      function=function, clauses=clauses, mapped_by=how,
                                      annotation=cmap.in_annotation(line, col),
                                      raises=cmap.raising(line, col), package_sha=package_sha,
                                      context=cmap.context(line, col),
                                      message=cmap.in_refusal_message(line, col),
                                      cached_literal=name in IDENTITY_OPERATORS
                                      and cmap.in_cached_literal_compare(line, col)))
                    occurrence += 1
    return out


def reachable_modules(package_dir: Path, entry: str = "engine") -> set[str]:
    """Module file names of the package that ``<package>.<entry>`` imports, directly or
    not (read with ``ast``): a mutant elsewhere cannot change what the corpus sees."""
    package_dir = Path(package_dir)
    pkg = package_dir.name
    if not (package_dir / f"{entry}.py").is_file():     # no entry point: every module counts
        return {p.name for p in package_dir.glob("*.py")}
    todo, seen = [f"{entry}.py"], set()
    while todo:
        name = todo.pop()
        if name in seen or not (package_dir / name).is_file():
            continue
        seen.add(name)
        tree = ast.parse((package_dir / name).read_text(encoding="utf-8"))
        for n in ast.walk(tree):
            mods: list[str] = []
            if isinstance(n, ast.ImportFrom):
                base = n.module or ""
                if n.level == 1:
                    mods = [base] if base else [a.name for a in n.names]
                elif base == pkg:
                    mods = [a.name for a in n.names]
                elif base.startswith(pkg + "."):
                    mods = [base[len(pkg) + 1:]]
            elif isinstance(n, ast.Import):
                mods = [a.name[len(pkg) + 1:] for a in n.names if a.name.startswith(pkg + ".")]
            todo += [m.split(".")[0] + ".py" for m in mods if m]
    return seen | {"__init__.py"}


def _changed_lines(original: str, mutated: str) -> tuple[list[str], list[str]]:
    """The source lines the mutation changed: (before, after), each stripped."""
    a, b = original.splitlines(), mutated.splitlines()
    before, after = [], []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            before += [x.strip() for x in a[i1:i2]]
            after += [x.strip() for x in b[j1:j2]]
    return before, after


def describe_change(original: str, mutated: str) -> str:
    """One line: the changed source lines before → after."""
    before, after = _changed_lines(original, mutated)
    return f"{' '.join(before) or '(nothing)'} → {' '.join(after) or '(removed)'}"


_LAYOUT = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
           tokenize.ENDMARKER}
_WORD = {tokenize.NAME, tokenize.NUMBER, tokenize.STRING}
_FSTRING = (getattr(tokenize, "FSTRING_START", None), getattr(tokenize, "FSTRING_END", None))
_SPACED = frozenset(keyword.kwlist) - {"True", "False", "None"}     # `x or y`, but `f(a=None)`


def _tokens(text: str) -> list[tuple[str, bool]]:
    """(text, is a word) of the tokens of ``text``, layout and comments left out; an f-string is
    one word, as Python 3.11 reads it (3.12 splits it into parts). A piece of a statement ends
    where its open brackets do."""
    out: list[tuple[str, bool]] = []
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    offset = lambda pos: starts[pos[0] - 1] + pos[1]       # noqa: E731 - (row, col) → index
    fstring_at: list[tuple[int, int]] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == _FSTRING[0]:
                fstring_at.append(tok.start)
            elif tok.type == _FSTRING[1]:
                first = fstring_at.pop()
                if not fstring_at:
                    out.append((text[offset(first):offset(tok.end)], True))
            elif not fstring_at and tok.type not in _LAYOUT and tok.string.strip():
                out.append((tok.string, tok.type in _WORD))
    except (tokenize.TokenError, SyntaxError):
        pass
    return out


def normal_source(lines: Iterable[str]) -> str:
    """Source lines (a statement or a piece of one) reduced to their tokens: comments and
    layout dropped; a space after a comma and around a keyword or between two words, none
    elsewhere (``if x>=limit:``, ``return x+2``, ``deal_damage(g, t, n, combat=True)``,
    ``if rec["struck"] or not rec["attacks"]:``). Re-wrapping, re-aligning or re-spacing the
    lines, or editing a comment on them, leaves it unchanged."""
    out: list[str] = []
    prev: tuple[str, bool] | None = None
    for tok in _tokens("\n".join(lines) + "\n"):
        if prev is not None and not (prev[0] in "([{." or tok[0] in ")]}.,:;"):
            if (prev[1] and tok[1]) or prev[0] == "," or prev[0] in _SPACED or tok[0] in _SPACED:
                out.append(" ")
        out.append(tok[0])
        prev = tok
    return "".join(out)


def change_snippet(original: str, mutated: str) -> str:
    """The key of a mutant's change: its lines before → after, each side ``normal_source``."""
    before, after = _changed_lines(original, mutated)
    return f"{normal_source(before) or '(nothing)'} → {normal_source(after) or '(removed)'}"


def mutate_source(source: str, operator: str, occurrence: int) -> str | None:
    import cosmic_ray.plugins as plugins
    from cosmic_ray.mutating import mutate_code
    return mutate_code(source, plugins.get_operator(operator)(), occurrence)


# --------------------------------------------------------------------------
# equivalent mutants

class EquivalenceError(ValueError):
    pass


RULE_KINDS = ("annotation", "input-error", "refusal-message", "cached-literal-identity")
# classes whose mutants are run: one the corpus kills is killed; a survivor is equivalent by the class
RUN_RULE_KINDS = ("refusal-message", "cached-literal-identity")
# `==` ↔ `is`, `!=` ↔ `is not`: the cached-literal-identity class
IDENTITY_OPERATORS = tuple(f"core/ReplaceComparisonOperator_{a}_{b}" for a, b in
                           (("Eq", "Is"), ("NotEq", "IsNot"), ("Is", "Eq"), ("IsNot", "NotEq")))
ENTRY_KEYS = ("function", "operator", "change", "block", "count", "unused", "reason")
UNUSED_KINDS = ("return", "parameter", "field")
_WHERE = re.compile(r"^[A-Za-z_][\w.]*:(?:<module>|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)$")


@dataclasses.dataclass
class Declaration:
    """One entry of ``mutants``: the mutants of ``function`` made by ``operator`` whose change
    reads ``change`` once normalised — ``count`` of them, 1 unless said."""
    function: str          # "model.combat:strike", "model.numbers:Computed", "model.engine:<module>"
    operator: str
    change: str            # normalised: normal_source(before) → normal_source(after)
    reason: str
    count: int = 1
    unused: dict | None = None   # a claim checked by unused_claim_problems: {kind: name}
    line: int = 0          # where it is in the file
    block: str | None = None     # only the mutants in this block (ClauseMap.context), when given

    @property
    def module(self) -> str:
        return self.function.split(":", 1)[0]


def load_equivalents(path: Path | str | None) -> dict:
    """Read and validate the equivalence file (its format: the comment at its top).

    ``{"rules": [{"where", "reason", "errors"?}], "mutants": [Declaration], "path"}``; a
    problem is an :class:`EquivalenceError` naming the file, the line and the field.
    """
    import yaml

    from conformance.explain import line_of, pointer_lines
    from conformance.loader import Loader   # the safe loader, LibYAML's where present
    if path is None or not Path(path).exists():
        return {"rules": [], "mutants": [], "path": None}
    text = Path(path).read_text(encoding="utf-8")
    try:
        data = yaml.load(text, Loader=Loader) or {}  # noqa: S506 - the safe loader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise EquivalenceError(f"{path}:{mark.line + 1 if mark else 1}: not YAML: "
                               f"{getattr(exc, 'problem', None) or exc}") from None
    lines = pointer_lines(text)

    def fail(ptr: str, message: str) -> EquivalenceError:
        return EquivalenceError(f"{path}:{line_of(lines, ptr)}: {ptr.lstrip('/').replace('/', '.')}"
                                f"{': ' if ptr else ''}{message}")
    if not isinstance(data, dict):
        raise fail("", "a mapping with `rules` and `mutants` expected")
    unknown = set(data) - {"rules", "mutants"}
    if unknown:
        raise fail("", f"unknown keys {sorted(unknown)}")
    rules = data.get("rules") or []
    mutants = data.get("mutants") or []
    if not isinstance(rules, list) or not isinstance(mutants, list):
        raise fail("", "`rules` and `mutants` must be lists")
    for i, r in enumerate(rules):
        ptr = f"/rules/{i}"
        if not isinstance(r, dict) or r.get("where") not in RULE_KINDS:
            raise fail(ptr, f"`where` must be one of {', '.join(RULE_KINDS)}")
        if not str(r.get("reason") or "").strip():
            raise fail(ptr, "a reason is required")
        allowed = {"where", "reason"} | ({"errors"} if r["where"] == "input-error" else set())
        if set(r) - allowed:
            raise fail(ptr, f"unknown keys {sorted(set(r) - allowed)}")
        if r["where"] == "input-error":
            errs = r.get("errors")
            if (not isinstance(errs, list) or not errs
                    or not all(isinstance(e, str) and e.isidentifier() for e in errs)):
                raise fail(f"{ptr}/errors", "a list of exception class names is required for "
                                            "`where: input-error`")
    out: list[Declaration] = []
    seen: dict[tuple, int] = {}
    for i, m in enumerate(mutants):
        ptr = f"/mutants/{i}"
        if not isinstance(m, dict):
            raise fail(ptr, "a mapping expected")
        for old, new in (("file", "function"), ("line", "function")):
            if old in m:
                raise fail(f"{ptr}/{old}", f"`{old}` is no longer a key: a declaration names its "
                                           f"{new} (`module:Class.function`) and its change")
        extra = set(m) - set(ENTRY_KEYS)
        if extra:
            raise fail(f"{ptr}/{sorted(extra)[0]}", f"unknown key (known: {', '.join(ENTRY_KEYS)})")
        for k in ("function", "operator", "change", "reason"):
            if not isinstance(m.get(k), str) or not m[k].strip():
                raise fail(f"{ptr}/{k}" if k in m else ptr, f"`{k}` (text) is required")
        if not _WHERE.match(m["function"]):
            raise fail(f"{ptr}/function", f"{m['function']!r}: expected `module:Class.function` "
                                          f"(`module:{MODULE_LEVEL}` at module level)")
        change = _ws(m["change"])
        if " → " not in change:
            raise fail(f"{ptr}/change", "expected `before → after` (as the report prints it)")
        block = m.get("block")
        if block is not None and not isinstance(block, str):
            raise fail(f"{ptr}/block", "the first line of the block's statement, as the report's "
                                       "`block` gives it (\"\" for the function's own body)")
        count = m.get("count", 1)
        if not isinstance(count, int) or isinstance(count, bool) or count < 2 and "count" in m:
            raise fail(f"{ptr}/count", "a number of 2 or more (leave it out for one mutant)")
        unused = m.get("unused")
        if unused is not None:
            if (not isinstance(unused, dict) or len(unused) != 1
                    or next(iter(unused)) not in UNUSED_KINDS
                    or not isinstance(next(iter(unused.values())), str)):
                raise fail(f"{ptr}/unused", f"one of {', '.join(UNUSED_KINDS)} with the name it "
                                            f"is about (`return: module:function`, `parameter: "
                                            f"module:function.name`, `field: module:Class.name`)")
            kind, name = next(iter(unused.items()))
            if not _WHERE.match(name) or (kind != "return" and "." not in name.split(":")[1]):
                raise fail(f"{ptr}/unused/{kind}", f"{name!r}: expected `module:function` (return), "
                                                   f"`module:function.parameter` or "
                                                   f"`module:Class.field`")
        key = (m["function"], m["operator"], change, None if block is None else _ws(block))
        if key in seen:
            raise fail(ptr, f"listed twice (first at line {seen[key]}): give one entry a `count`")
        seen[key] = line_of(lines, ptr)
        out.append(Declaration(m["function"], m["operator"], change, str(m["reason"]).strip(),
                               count, unused, seen[key], key[3]))
    return {"rules": rules, "mutants": out, "path": str(path)}


def _ws(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def equivalence_of(m: Mutant, eq: dict) -> tuple[str | None, int | None]:
    """(reason, index of the `mutants` declaration) when the mutant is declared equivalent."""
    for r in eq.get("rules") or []:
        if ((r.get("where") == "annotation" and m.annotation)
                or (r.get("where") == "input-error" and m.raises
                    and m.raises in (r.get("errors") or []))
                or (r.get("where") == "refusal-message" and m.message)
                or (r.get("where") == "cached-literal-identity" and m.cached_literal)):
            return str(r["reason"]).strip(), None
    index = eq.get("_index")
    if index is None:
        index = eq["_index"] = {}
        for i, d in enumerate(eq.get("mutants") or []):
            index.setdefault((d.function, d.operator), []).append(i)
    if m.snippet:
        found = None
        for i in index.get((m.where, m.operator), ()):
            d = eq["mutants"][i]
            if d.change == _ws(m.snippet) and d.block in (None, _ws(m.context)):
                if d.block is not None:
                    return d.reason, i         # the declaration naming its block before one that does not
                found = found or (d.reason, i)
        if found:
            return found
    return None, None


def declared(m: Mutant, eq: dict) -> bool:
    """A declaration names the mutant's function and operator: only then is its snippet needed."""
    equivalence_of(Mutant("", "", "", "", "", 0, 0, 0, "", [], ""), eq)      # builds the index
    return (m.where, m.operator) in eq["_index"]


def unused_claim_problems(eq: dict, roots: Iterable[Path]) -> list[str]:
    """Each ``unused`` claim of a declaration checked on the code the corpus runs (``roots``:
    the engine package and the harness reading its results), by name, with ``ast``:

    - ``return: module:function`` — every call of a function of that name is a statement of its
      own (its value dropped), and the name is never passed on uncalled;
    - ``parameter: module:function.name`` — the function has that parameter and its body never
      loads the name;
    - ``field: module:Class.name`` — the class assigns that field and nothing loads an attribute
      of that name (``x.name``, ``getattr(x, "name")``).

    Names are matched, not resolved: a use of another function, parameter or field of the same
    name counts as a use (the safe side). A claim that stops being true is a problem of its line.
    """
    claims = [d for d in eq.get("mutants") or [] if d.unused]
    if not claims:
        return []
    trees: dict[str, tuple[str, ast.AST]] = {}
    for root in roots:
        root = Path(root)
        for path in sorted(root.rglob("*.py")):
            mod = ".".join(path.relative_to(root.parent).with_suffix("").parts)
            mod = mod[:-len(".__init__")] if mod.endswith(".__init__") else mod
            trees[mod] = (path.as_posix(), ast.parse(path.read_text(encoding="utf-8")))
    parents: dict[int, ast.AST] = {}
    for _, tree in trees.values():
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                parents[id(child)] = node
    where = eq.get("path") or "the equivalence file"
    out: list[str] = []
    for d in claims:
        kind, name = next(iter(d.unused.items()))
        module, qual = name.split(":", 1)
        owner, _, attr = qual.rpartition(".") if kind != "return" else ("", "", qual)
        def_name = qual if kind == "return" else owner
        tree = trees.get(module, (None, None))[1]
        node = qualified_defs(tree).get(def_name) if tree is not None else None
        head = f"{where}:{d.line}: `unused: {{{kind}: {name}}}`"
        want = ast.ClassDef if kind == "field" else (ast.FunctionDef, ast.AsyncFunctionDef)
        if not isinstance(node, want):
            out.append(f"{head}: no {'class' if kind == 'field' else 'function'} {def_name} in "
                       f"{module}")
            continue
        uses: list[str] = []
        if kind == "parameter":
            a = node.args
            if attr not in {x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs,
                                              *(x for x in (a.vararg, a.kwarg) if x)]}:
                out.append(f"{head}: {def_name} has no parameter {attr}")
                continue
            uses = [f"{trees[module][0]}:{n.lineno}" for st in node.body for n in ast.walk(st)
                    if isinstance(n, ast.Name) and n.id == attr and isinstance(n.ctx, ast.Load)]
        elif kind == "field":
            if not any(isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name)
                       and st.target.id == attr for st in node.body):
                out.append(f"{head}: {def_name} has no field {attr}")
                continue
            for file, tree in trees.values():
                for n in ast.walk(tree):
                    if ((isinstance(n, ast.Attribute) and n.attr == attr
                         and isinstance(n.ctx, ast.Load))
                            or (isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                                and n.func.id == "getattr" and len(n.args) > 1
                                and isinstance(n.args[1], ast.Constant) and n.args[1].value == attr)):
                        uses.append(f"{file}:{n.lineno}")
        else:
            fname = attr
            for file, tree in trees.values():
                for n in ast.walk(tree):
                    named = ((isinstance(n, ast.Name) and n.id == fname)
                             or (isinstance(n, ast.Attribute) and n.attr == fname))
                    if not named or not isinstance(n.ctx, ast.Load):
                        continue
                    call = parents.get(id(n))
                    if isinstance(call, ast.Call) and call.func is n \
                            and isinstance(parents.get(id(call)), ast.Expr):
                        continue                  # called, its value dropped
                    uses.append(f"{file}:{n.lineno}")
        if uses:
            what = {"return": f"the value of {def_name}", "parameter": f"{def_name}'s {attr}",
                    "field": f"{def_name}.{attr}"}[kind]
            out.append(f"{head}: no longer true: {what} is read at {', '.join(uses[:3])}"
                       + (f" and {len(uses) - 3} more" if len(uses) > 3 else "")
                       + ": the declaration's reason is false (remove it and kill the mutant)")
    return out


def declaration_problems(eq: dict, used: dict[int, list[str]], modules: set[str],
                         complete: bool = True) -> list[str]:
    """Declarations of the modules run that match no mutant, or not as many as they say.
    ``used``: declaration index → the blocks (ClauseMap.context) of the mutants it matched."""
    out = []
    where = eq.get("path") or "the equivalence file"
    for i, d in enumerate(eq.get("mutants") or []):
        if d.module not in modules:
            continue
        blocks = used.get(i, [])
        n = len(blocks)
        if n == 0 and complete:
            out.append(f"{where}:{d.line}: {d.function} {d.operator} `{d.change}` matches no "
                       f"mutant: stale (the code changed: re-declare it from the report, or "
                       f"remove it)")
        elif n and n != d.count and (complete or n > d.count):   # a sample may hold some of them
            hint = "set its `count` right"
            if n > d.count:
                hint = ("give its `count`, or the `block` of the one meant: "
                        + ", ".join(repr(b) for b in dict.fromkeys(blocks)))
            out.append(f"{where}:{d.line}: {d.function} {d.operator} `{d.change}` matches {n} "
                       f"mutants, not {d.count}: {hint}")
    return out


# --------------------------------------------------------------------------
# the oracle: the corpus, loaded once

class CorpusOracle:
    """The conformance corpus run in-process against whatever ``model`` imports."""

    package = "model"
    harness = (ROOT / "conformance",)     # the code besides the engine a case runs through

    def __init__(self, paths: list[str] | None = None, case_timeout: float = 2.0):
        self.paths = list(paths or [])
        self.case_timeout = case_timeout
        self.cases: dict[str, Any] = {}
        self.digests: dict[str, str] = {}
        self.durations: dict[str, float] = {}
        self.clauses: dict[str, list[str]] = {}
        self.baseline_failures: list[str] = []
        self.corpus_digest = ""
        self.baseline_seconds = 0.0

    def prepare(self) -> None:
        from conformance.cli import expand_paths, load_cases
        from conformance.runner import run_one
        files, missing = expand_paths(self.paths)
        if missing:
            raise SystemExit("kodex strength: " + "; ".join(missing))
        self.corpus_digest = files_digest(Path(x) for x in files)
        cases, errors = load_cases(self.paths)
        if errors:
            raise SystemExit("kodex strength: the corpus does not load:\n" + "\n".join(errors[:20]))
        t0 = time.perf_counter()
        for case in cases:
            t = time.perf_counter()
            oc = run_one(case, timeout=max(self.case_timeout, 5.0))
            if oc.outcome == "pass":
                self.cases[case.id] = case
                self.durations[case.id] = time.perf_counter() - t
                self.digests[case.id] = _sha(json.dumps(
                    {"given": case.given, "when": case.when, "then": case.then,
                     "rulesets": getattr(case, "rulesets", None)},
                    sort_keys=True, default=str))
                self.clauses[case.id] = [case.clause, *(case.also or [])]
            elif oc.outcome != "skip":
                self.baseline_failures.append(f"{case.id}: {oc.outcome}")
        self.baseline_seconds = time.perf_counter() - t0

    def run(self, order: list[str]) -> tuple[str, str | None, str]:
        from conformance.runner import run_one
        for cid in order:
            case = self.cases[cid]
            limit = max(self.case_timeout, 20 * self.durations.get(cid, 0.0))
            oc = run_one(case, timeout=limit)
            if oc.outcome == "timeout":
                return TIMEOUT, cid, f"case {cid}: no result within {limit:g} s"
            if oc.outcome != "pass":
                msg = (oc.message or "").strip().splitlines()
                return KILLED, cid, f"{oc.outcome}: {msg[0][:200] if msg else ''}"
        return SURVIVED, None, ""


def _covers(case_clauses: list[str], mutant_clauses: list[str]) -> bool:
    for c in case_clauses:
        for m in mutant_clauses:
            if c == m or c.startswith(m + ".") or m.startswith(c + "."):
                return True
    return False


def case_order(oracle, m: Mutant, killers: dict[str, dict[str, int]]) -> list[str]:
    """The order the cases run in for a mutant, likeliest killers first: the cases
    that killed other mutants of the same function, the cases citing the mutant's
    clauses (when they come from its line or its function), the cases that killed
    other mutants of the file, the cases citing the module's clauses, the rest."""
    ids = list(oracle.cases)
    citing = [c for c in ids if _covers(oracle.clauses.get(c, []), m.clauses)]
    def ranked(key: str) -> list[str]:
        return [cid for cid, _ in sorted(killers.get(key, {}).items(), key=lambda kv: -kv[1])]
    groups = [ranked(f"{m.file}::{m.function}")]
    if m.mapped_by == "module":
        groups += [ranked(m.file), citing]
    else:
        groups += [citing, ranked(m.file)]
    groups.append(ids)
    seen: set[str] = set()
    order: list[str] = []
    for g in groups:
        for cid in g:
            if cid in oracle.cases and cid not in seen:
                seen.add(cid)
                order.append(cid)
    return order


def note_killer(killers: dict[str, dict[str, int]], m: Mutant) -> None:
    if m.killer:
        for key in (m.file, f"{m.file}::{m.function}"):
            counts = killers.setdefault(key, {})
            counts[m.killer] = counts.get(m.killer, 0) + 1


# --------------------------------------------------------------------------
# running one mutant in a forked child

class _MutantFinder:
    """A meta-path finder that serves one module from a source text in memory."""

    def __init__(self, module: str, source: str, origin: str):
        self.module, self.source, self.origin = module, source, origin

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.module:
            return None
        import importlib.util
        is_pkg = Path(self.origin).name == "__init__.py"
        spec = importlib.util.spec_from_loader(fullname, self, origin=self.origin,
                                               is_package=is_pkg)
        spec.has_location = True
        if is_pkg:
            spec.submodule_search_locations = [str(Path(self.origin).parent)]
        return spec

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.__file__ = self.origin
        exec(compile(self.source, self.origin, "exec"), module.__dict__)


def _child(oracle, m: Mutant, order: list[str], wfd: int, probes: ProbeOracle | None = None,
           probe_order: list[str] = ()) -> None:
    """In the forked child: mutate, import the mutant, run the cases (and, when they all pass,
    the input probes), report, exit."""
    result: dict[str, Any]
    try:
        try:
            import resource
            resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
        except Exception:
            pass
        sys.dont_write_bytecode = True
        import warnings
        warnings.simplefilter("ignore")        # e.g. the SyntaxWarning of `x is "text"`
        source = Path(m.path).read_text(encoding="utf-8")
        mutated = mutate_source(source, m.operator, m.occurrence)
        if mutated is None:
            result = {"status": NO_MUTATION, "change": "", "killer": None, "detail": ""}
        else:
            change, snippet = describe_change(source, mutated), change_snippet(source, mutated)
            pkg = oracle.package
            for name in [k for k in sys.modules if k == pkg or k.startswith(pkg + ".")]:
                del sys.modules[name]
            sys.meta_path.insert(0, _MutantFinder(m.module, mutated, m.path))
            status, killer, detail = oracle.run(order)
            result = {"status": status, "change": change, "snippet": snippet, "killer": killer,
                      "detail": detail}
            if status == SURVIVED and probes is not None:
                t0 = time.perf_counter()
                status, killer, detail = probes.run(list(probe_order))
                result.update(status=status, killer=killer, detail=detail,
                              probe_seconds=time.perf_counter() - t0)
    except BaseException as exc:  # noqa: BLE001 - whatever the mutant did, it was noticed
        result = {"status": KILLED, "change": "", "killer": None,
                  "detail": f"the mutant broke the harness: {type(exc).__name__}: {exc}"[:300]}
    try:
        os.write(wfd, json.dumps(result, default=str).encode("utf-8"))
    finally:
        os._exit(0)


def probe_order(probes: ProbeOracle, m: Mutant, killers: dict[str, dict[str, int]]) -> list[str]:
    """The order the input probes run in for a mutant (ProbeOracle.order): those that killed
    other mutants of the same function first, most kills first."""
    before = sorted(killers.get(f"{m.file}::{m.function}", {}).items(), key=lambda kv: -kv[1])
    return probes.order(m.where, [probe_killer(k) for k, _ in before if probe_killer(k)])


def run_mutants(oracle, todo: list[Mutant], workers: int = 2, mutant_timeout: float = 60.0,
                on_done: Callable[[Mutant], None] | None = None,
                killers: dict[str, dict[str, int]] | None = None,
                probes: ProbeOracle | None = None) -> None:
    """Run each mutant in a forked child, ``workers`` at a time; fills status/killer/change."""
    killers = killers if killers is not None else {}
    queue = list(todo)
    running: dict[int, tuple[Mutant, int, float, bytearray]] = {}
    workers = max(1, int(workers))
    while queue or running:
        while queue and len(running) < workers:
            m = queue.pop(0)
            order = case_order(oracle, m, killers)
            porder = probe_order(probes, m, killers) if probes is not None else []
            rfd, wfd = os.pipe()
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the child
                os.close(rfd)
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                _child(oracle, m, order, wfd, probes, porder)
            os.close(wfd)
            running[pid] = (m, rfd, time.monotonic(), bytearray())
        fds = {v[1]: pid for pid, v in running.items()}
        ready, _, _ = select.select(list(fds), [], [], 0.2)
        for fd in ready:
            pid = fds[fd]
            chunk = os.read(fd, 65536)
            if chunk:
                running[pid][3].extend(chunk)
                continue
            m, rfd, started, buf = running.pop(pid)
            os.close(rfd)
            _, status = os.waitpid(pid, 0)
            _finish(m, bytes(buf), status, time.monotonic() - started)
            note_killer(killers, m)
            if on_done:
                on_done(m)
        now = time.monotonic()
        for pid, (m, rfd, started, buf) in list(running.items()):
            if now - started > mutant_timeout:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                os.waitpid(pid, 0)
                os.close(rfd)
                running.pop(pid)
                m.status, m.killer = TIMEOUT, None
                m.detail = f"the mutant ran longer than {mutant_timeout:g} s (killed)"
                m.seconds = now - started
                _fill_change(m)
                if on_done:
                    on_done(m)


def _fill_change(m: Mutant) -> None:
    """The change and its snippet, made again from the source (a child that died or overran
    said nothing; a verdict cached before snippets were kept has none)."""
    if not (m.change and m.snippet):
        try:
            source = Path(m.path).read_text(encoding="utf-8")
            mutated = mutate_source(source, m.operator, m.occurrence)
        except Exception:
            return
        if mutated:
            m.change, m.snippet = describe_change(source, mutated), change_snippet(source, mutated)


def _finish(m: Mutant, raw: bytes, wait_status: int, seconds: float) -> None:
    m.seconds = seconds
    try:
        res = json.loads(raw.decode("utf-8")) if raw else None
    except ValueError:
        res = None
    if res is None:
        m.status, m.killer = KILLED, None
        how = (f"signal {os.WTERMSIG(wait_status)}" if os.WIFSIGNALED(wait_status)
               else f"exit code {os.WEXITSTATUS(wait_status)}")
        m.detail = f"the engine process died ({how})"
        _fill_change(m)
        return
    m.status = res["status"]
    m.killer = res.get("killer")
    m.detail = res.get("detail") or ""
    m.change = res.get("change") or ""
    m.snippet = res.get("snippet") or ""
    m.probe_seconds = res.get("probe_seconds")


# --------------------------------------------------------------------------
# the cache

def _cache_file(cache_dir: Path) -> Path:
    return Path(cache_dir) / "results.json"


def load_cache(cache_dir: Path) -> dict[str, dict]:
    p = _cache_file(cache_dir)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != CACHE_VERSION:
        return {}
    return data.get("results") or {}


def save_cache(cache_dir: Path, results: dict[str, dict]) -> None:
    from conformance.atomicio import write_json
    cache_dir = Path(cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    gi = cache_dir / ".gitignore"
    if not gi.exists():
        gi.write_text("*\n", encoding="utf-8")
    write_json(_cache_file(cache_dir), {"version": CACHE_VERSION, "results": results})


def cached_result(entry: dict | None, oracle, probes: ProbeOracle | None = None) -> dict | None:
    """The cached result if still valid for this corpus and these input probes, else None: a
    kill by a case while that case is unchanged; a kill by a probe while that probe and the
    corpus are (the corpus let the mutant through; without probes it runs again); any other
    verdict while the corpus and the probe set are (an entry from before the probes, or from a
    run without them, names none)."""
    if not entry:
        return None
    killer = entry.get("killer")
    pid = probe_killer(killer)
    if entry.get("status") in DETECTED and killer and pid is None:
        if killer in oracle.cases and oracle.digests.get(killer) == entry.get("killer_digest"):
            return entry
        return None
    if entry.get("status") == NO_MUTATION:
        return entry
    if entry.get("corpus") != oracle.corpus_digest:
        return None
    if pid is not None:
        ok = probes is not None and probes.digests.get(pid) == entry.get("killer_digest")
        return entry if ok else None
    return entry if entry.get("probes") == (probes.digest if probes is not None else None) else None


def cache_entry(m: Mutant, oracle, probes: ProbeOracle | None = None) -> dict:
    pid = probe_killer(m.killer)
    digest = (probes.digests.get(pid) if probes is not None else None) if pid else \
        oracle.digests.get(m.killer) if m.killer else None
    return {"status": m.status, "killer": m.killer, "killer_digest": digest,
            "corpus": oracle.corpus_digest,
            "probes": probes.digest if probes is not None else None,
            "change": m.change, "snippet": m.snippet, "detail": m.detail,
            "seconds": round(m.seconds, 4), "id": m.id,
            "probe_seconds": None if m.probe_seconds is None else round(m.probe_seconds, 5)}


# --------------------------------------------------------------------------
# the score

def _pct(killed: int, total: int) -> float | None:
    return round(100.0 * killed / total, 2) if total else None


def _tally(ms: list[Mutant]) -> dict:
    """The counts of a group of mutants. ``killed`` and ``timeout`` count every kill; ``by_probe``
    those of them that only an input probe made (the corpus let the mutant through), and
    ``corpus_score`` is the score of the corpus alone (those counted as survivors)."""
    c = {"mutants": len(ms), "killed": 0, "timeout": 0, "survived": 0, "equivalent": 0,
         "by_probe": 0}
    for m in ms:
        if m.status in c:
            c[m.status] += 1
        if m.status in DETECTED and probe_killer(m.killer):
            c["by_probe"] += 1
    c["scored"] = c["killed"] + c["timeout"] + c["survived"]
    c["score"] = _pct(c["killed"] + c["timeout"], c["scored"])
    c["corpus_score"] = _pct(c["killed"] + c["timeout"] - c["by_probe"], c["scored"])
    return c


def score(mutants: list[Mutant], title_of: Callable[[str], str] = lambda c: c.split(".")[0]) -> dict:
    """Overall, per Kódex title and per clause. A mutant counts once overall, once
    for each clause it is mapped to and once for each title of those clauses;
    equivalent mutants are counted apart and never scored; a mutant without a
    clause falls under "(no clause)"."""
    ms = [m for m in mutants if m.status != NO_MUTATION]
    by_clause: dict[str, list[Mutant]] = {}
    by_title: dict[str, list[Mutant]] = {}
    for m in ms:
        clauses = m.clauses or ["(no clause)"]
        titles = []
        for c in clauses:
            by_clause.setdefault(c, []).append(m)
            t = title_of(c) if c != "(no clause)" else "(no clause)"
            if t not in titles:
                titles.append(t)
        for t in titles:
            by_title.setdefault(t, []).append(m)
    def rows(d):
        out = []
        for k, v in d.items():
            r = {"id": k, **_tally(v)}
            out.append(r)
        out.sort(key=lambda r: (r["score"] if r["score"] is not None else 101.0, r["id"]))
        return out
    return {"overall": _tally(ms), "titles": rows(by_title), "clauses": rows(by_clause)}


# --------------------------------------------------------------------------
# the whole run

def sample_of(mutants: list[Mutant], n: int) -> list[Mutant]:
    """A deterministic sample of `n` mutants spread over files and operators: those whose
    hash of (file, operator, occurrence) is smallest, in their original order. The same tree gives
    the same sample; an edit of one file changes only that file's share."""
    def h(m: Mutant) -> str:
        return hashlib.sha256(f"{m.file}|{m.operator}|{m.occurrence}".encode()).hexdigest()
    chosen = {id(m) for m in sorted(mutants, key=h)[:n]}
    return [m for m in mutants if id(m) in chosen]


def run(*, package_dir: Path = DEFAULT_MODEL, oracle=None, operators: list[str] | None = None,
        files: Iterable[str] | None = None, cache_dir: Path | None = None,
        equivalent: Path | str | None = DEFAULT_EQUIVALENT, workers: int = 2,
        mutant_timeout: float | None = None, fresh: bool = False, max_mutants: int | None = None,
        sample: int | None = None, known: Callable[[str], bool] | None = None,
        title_of: Callable[[str], str] | None = None,
        rel_to: Path | None = None, progress: Callable[[str], None] | None = None,
        probes: ProbeOracle | None = None) -> dict:
    """Enumerate, run (or take from the cache), classify and score. Returns the report data.
    ``probes``: the input probes a mutant the corpus lets through runs (None: the corpus alone)."""
    t_start = time.perf_counter()
    say = progress or (lambda s: None)
    if known is None and title_of is None:
        known, title_of = _catalog_known()
    title_of = title_of or (lambda c: c.split(".")[0])
    oracle = oracle if oracle is not None else CorpusOracle()
    eq = load_equivalents(equivalent)
    ops = operators or operator_names()
    t0 = time.perf_counter()
    mutants = enumerate_mutants(Path(package_dir), ops, known=known, files=files, rel_to=rel_to)
    if max_mutants is not None:
        mutants = mutants[:max_mutants]
    total = len(mutants)
    if sample is not None and len(mutants) > sample:
        mutants = sample_of(mutants, sample)
        say(f"a sample of {sample} of the {total} mutants (the same for the same tree)")
    partial = max_mutants is not None or sample is not None
    t_enum = time.perf_counter() - t0
    say(f"{len(mutants)} mutants of {len({m.file for m in mutants})} files "
        f"({len(ops)} operators) in {t_enum:.1f} s")
    t0 = time.perf_counter()
    if probes is not None:                       # first: a probe that does not probe stops at once
        probes.prepare()
        say(f"input probes: {len(probes.probes)} of {len(probes.files)} files, each giving what it "
            f"expects on the reference engine (its input error, or its policy's verdicts), "
            f"{probes.baseline_seconds * 1000:.0f} ms")
    oracle.prepare()
    say(f"oracle: {len(oracle.cases)} passing cases, baseline {oracle.baseline_seconds:.2f} s")
    t_base = time.perf_counter() - t0
    if getattr(oracle, "baseline_failures", None):
        say(f"warning: {len(oracle.baseline_failures)} cases do not pass on the real engine "
            f"and are left out of the oracle")
    cache = {} if cache_dir is None else load_cache(Path(cache_dir))
    if fresh:
        cache = {}
    todo: list[Mutant] = []
    for m in mutants:
        if (m.annotation or m.raises) and equivalence_of(m, eq)[1] is None \
                and equivalence_of(m, eq)[0]:
            m.status = EQUIVALENT
            m.equivalent_reason = equivalence_of(m, eq)[0]
            m.equivalent_by = "rule"
            continue
        hit = cached_result(cache.get(m.key), oracle, probes)
        if hit is not None:
            m.status, m.killer = hit["status"], hit.get("killer")
            m.change, m.detail = hit.get("change") or "", hit.get("detail") or ""
            m.snippet = hit.get("snippet") or ""
            m.seconds, m.cached = hit.get("seconds") or 0.0, True
            m.probe_seconds = hit.get("probe_seconds")
        else:
            todo.append(m)
    say(f"{len(mutants) - len(todo)} from the cache or declared, {len(todo)} to run "
        f"on {workers} workers")
    todo.sort(key=lambda m: (m.file, m.line, m.col, m.operator, m.occurrence))
    killers: dict[str, dict[str, int]] = {}
    for m in mutants:
        note_killer(killers, m)
    limit = mutant_timeout or max(30.0, 30 * (oracle.baseline_seconds
                                              + (probes.baseline_seconds if probes else 0.0)))
    done = [0]
    last = [time.monotonic()]
    new_results = dict(cache)

    def on_done(m: Mutant) -> None:
        done[0] += 1
        new_results[m.key] = cache_entry(m, oracle, probes)
        now = time.monotonic()
        if cache_dir is not None and now - last[0] > 30:
            save_cache(Path(cache_dir), new_results)
            last[0] = now
            say(f"  {done[0]}/{len(todo)} run")

    t0 = time.perf_counter()
    run_mutants(oracle, todo, workers=workers, mutant_timeout=limit, on_done=on_done,
                killers=killers, probes=probes)
    t_run = time.perf_counter() - t0
    # classify equivalents; check the declarations
    for m in mutants:
        if m.status not in (EQUIVALENT, NO_MUTATION) and not m.snippet and declared(m, eq):
            _fill_change(m)                      # a verdict cached before snippets were kept
            if m.snippet and m.key in new_results:
                new_results[m.key]["snippet"] = m.snippet
    problems: list[str] = []
    used: dict[int, list[str]] = {}
    for m in mutants:
        if m.status == EQUIVALENT:
            continue
        reason, idx = equivalence_of(m, eq)
        if reason is None:
            continue
        used.setdefault(idx, []).append(m.context)
        if m.status in DETECTED and idx is None:
            continue                             # a class whose mutants run: this one is killed
        if m.status in DETECTED:
            problems.append(f"{m.file}:{m.line}: declared equivalent ({m.where}: {m.snippet}) but "
                            f"{'an input probe' if probe_killer(m.killer) else 'the corpus'} "
                            f"kills it ({m.killer or m.detail}): remove it from the "
                            f"equivalence file")
        elif m.status == SURVIVED:
            m.status, m.equivalent_reason = EQUIVALENT, reason
            m.equivalent_by = "rule" if idx is None else "declaration"
    problems += declaration_problems(eq, used, {m.module for m in mutants},
                                     complete=not partial)
    problems += unused_claim_problems(eq, [Path(package_dir), *getattr(oracle, "harness", ())])
    if cache_dir is not None:
        keep = {m.key for m in mutants}
        pruned = {k: v for k, v in new_results.items() if k in keep or partial or files is not None}
        save_cache(Path(cache_dir), pruned)
    scores = score(mutants, title_of)
    reach = reachable_modules(Path(package_dir))
    unreachable = sorted({m.file for m in mutants if Path(m.file).name not in reach})
    scores["reachable"] = _tally([m for m in mutants if Path(m.file).name in reach
                                  and m.status != NO_MUTATION])
    import cosmic_ray
    version = getattr(cosmic_ray, "__version__", None)
    if version is None:
        try:
            from importlib.metadata import version as _v
            version = _v("cosmic-ray")
        except Exception:
            version = "?"
    return {
        "schema": SCHEMA,
        "tool": {"name": "cosmic-ray", "version": version, "operators": ops},
        "goal": {"overall": GOAL_OVERALL, "title": GOAL_TITLE},
        "corpus": {"cases": len(oracle.cases), "digest": oracle.corpus_digest,
                   "baseline_seconds": round(oracle.baseline_seconds, 3),
                   "left_out": list(getattr(oracle, "baseline_failures", []))},
        "timing": {"enumerate": round(t_enum, 2), "baseline": round(t_base, 2),
                   "mutants": round(t_run, 2), "total": round(time.perf_counter() - t_start, 2),
                   "workers": workers, "ran": len(todo),
                   "cached": sum(1 for m in mutants if m.cached),
                   "mutant_timeout": limit},
        "selection": {"files": sorted({str(f) for f in files}) if files else None,
                      "max": max_mutants, "sample": sample, "of": total, "run": len(mutants)},
        "overall": scores["overall"],
        "equivalents": _equivalents(mutants, scores["overall"]),
        "reachable": scores["reachable"],
        "unreachable_files": unreachable,
        "titles": scores["titles"],
        "clauses": scores["clauses"],
        "problems": problems,
        "probes": probes.summary(mutants, DETECTED) if probes is not None else None,
        "mutants": [_mutant_json(m) for m in mutants],
    }


def _equivalents(mutants: list[Mutant], overall: dict) -> dict:
    """How the equivalent mutants were decided: by a rule of the equivalence file (a class
    checked by code: annotations, input-error paths) or one by one with a reason judged by
    reading the code; and the score if every one-by-one declaration were wrong (a survivor)."""
    by_rule = sum(1 for m in mutants if m.status == EQUIVALENT and m.equivalent_by == "rule")
    one = sum(1 for m in mutants if m.status == EQUIVALENT and m.equivalent_by == "declaration")
    detected = overall["killed"] + overall["timeout"]
    return {"by_rule": by_rule, "one_by_one": one,
            "score_if_declarations_survived": _pct(detected, overall["scored"] + one)}


def _mutant_json(m: Mutant) -> dict:
    return {"id": m.id, "file": m.file, "line": m.line, "col": m.col, "function": m.function,
            "where": m.where, "operator": m.operator, "occurrence": m.occurrence,
            "change": m.change, "snippet": m.snippet, "block": m.context,
            "clauses": m.clauses, "mapped_by": m.mapped_by, "status": m.status,
            "killer": m.killer, "detail": m.detail, "cached": m.cached,
            "seconds": round(m.seconds, 4), "equivalent_reason": m.equivalent_reason,
            "equivalent_by": m.equivalent_by}


# --------------------------------------------------------------------------
# the report

def _fmt(p: float | None) -> str:
    return "–" if p is None else f"{p:.1f}%"


def _md_escape(s: str) -> str:
    return (s or "").replace("|", "\\|").replace("\n", " ")


def markdown(data: dict) -> str:
    o = data["overall"]
    t = data["timing"]
    out = ["# Corpus strength: mutation testing of `model/` against the corpus", ""]
    pr = data.get("probes")
    out.append(f"Mutants by {data['tool']['name']} {data['tool']['version']} "
               f"({len(data['tool']['operators'])} operators); the oracle is the corpus "
               f"({data['corpus']['cases']} cases passing on the reference engine)"
               + (f", then, for a mutant the corpus lets through, {pr['count']} input probes "
                  f"(malformed inputs, each with the input error the reference engine raises)."
                  if pr else " alone."))
    sel = data.get("selection") or {}
    if sel.get("files") or sel.get("max") is not None or sel.get("sample") is not None:
        out.append(f"**A partial run**: {sel['run']} of the {sel['of']} mutants"
                   + (f" of {', '.join(sel['files'])}" if sel.get("files") else " of `model/`")
                   + (f", a sample of {sel['sample']}" if sel.get("sample") is not None else "")
                   + (f", the first {sel['max']}" if sel.get("max") is not None else "")
                   + "; the score is of those alone.")
    out.append("")
    low_titles = [r for r in data["titles"] if r["score"] is not None and r["score"] < data["goal"]["title"]]
    ok = (o["score"] or 0) >= data["goal"]["overall"] and not low_titles
    p_timeout = sum(1 for k in (pr or {}).get("kills", ()) if k["status"] == TIMEOUT)
    p_killed = len((pr or {}).get("kills", ())) - p_timeout
    out += [f"**Score: {_fmt(o['score'])}** of {o['scored']} non-equivalent mutants killed "
            f"({o['killed'] - p_killed} by a failing case, {o['timeout'] - p_timeout} by timeout"
            + (f", {p_killed + p_timeout} only by an input probe: the corpus alone kills "
               f"{_fmt(o.get('corpus_score'))}" if pr else "") + "); "
            f"{o['survived']} survive; {o['equivalent']} declared equivalent. "
            f"Goal: ≥ {data['goal']['overall']:g}% overall and no title below "
            f"{data['goal']['title']:g}%: {'met' if ok else 'not met'}"
            + (f" ({len(low_titles)} titles below)" if low_titles else "") + ".", ""]
    eqs = data.get("equivalents")
    if eqs:
        out += [f"Of the equivalent mutants, {eqs['by_rule']} fall in a class of the equivalence file "
                f"(checked by code) and {eqs['one_by_one']} are declared one by one, each with the "
                f"reason no input can tell it apart, judged by reading the code (a declaration the "
                f"corpus{' or an input probe' if pr else ''} kills is reported as a problem). Counted as survivors "
                f"instead, the score would be {_fmt(eqs['score_if_declarations_survived'])}.", ""]
    if data.get("unreachable_files"):
        r = data["reachable"]
        out += [f"Not reachable from the corpus: {', '.join(data['unreachable_files'])} (the engine's "
                f"entry point `model/engine.py` never imports them, so no case can kill their "
                f"mutants; they are counted above, not declared equivalent). Over the files the "
                f"engine imports: **{_fmt(r['score'])}** of {r['scored']} ({r['survived']} survive).",
                ""]
    out.append(f"Run: {t['ran']} mutants run, {t['cached']} from the cache, {t['workers']} workers, "
               f"{t['total']:.1f} s in all (mutants {t['mutants']:.1f} s); a mutant is timed out "
               f"after {t['mutant_timeout']:g} s.")
    out.append("")
    if data["problems"]:
        out += ["## Problems", ""] + [f"- {_md_escape(p)}" for p in data["problems"]] + [""]
    out += ["## Per Kódex title (lowest first)", "",
            "| title | score | killed | timeout | survived | equivalent |",
            "|---|---:|---:|---:|---:|---:|"]
    for r in data["titles"]:
        out.append(f"| {_md_escape(r['id'])} | {_fmt(r['score'])} | {r['killed']} | {r['timeout']} "
                   f"| {r['survived']} | {r['equivalent']} |")
    out += ["", "## Per clause (below 100%, lowest first)", "",
            "| clause | score | killed | timeout | survived | equivalent |",
            "|---|---:|---:|---:|---:|---:|"]
    for r in data["clauses"]:
        if r["score"] is not None and r["score"] < 100.0:
            out.append(f"| {_md_escape(r['id'])} | {_fmt(r['score'])} | {r['killed']} | "
                       f"{r['timeout']} | {r['survived']} | {r['equivalent']} |")
    full = [r["id"] for r in data["clauses"] if r["score"] == 100.0]
    out += ["", f"{len(full)} clauses at 100%.", ""]
    surv = [m for m in data["mutants"] if m["status"] == SURVIVED]
    out += [f"## Surviving mutants ({len(surv)})", "",
            "A declaration names a mutant by its function, operator and change as below "
            "(properties/strength_equivalent.yaml).", "",
            "| line | function | operator | change | clauses |", "|---|---|---|---|---|"]
    for m in sorted(surv, key=lambda m: (m["file"], m["line"], m["operator"])):
        out.append(f"| {m['file']}:{m['line']} | {_md_escape(m['where'])} | {m['operator']} | "
                   f"`{_md_escape(m['snippet'] or m['change'])}` | "
                   f"{_md_escape(', '.join(m['clauses']))} |")
    if pr:
        out += [""] + probe_markdown(pr, _md_escape)
    tos = [m for m in data["mutants"] if m["status"] == TIMEOUT]
    out += ["", f"## Killed by timeout ({len(tos)})", ""]
    for m in sorted(tos, key=lambda m: (m["file"], m["line"])):
        out.append(f"- {m['file']}:{m['line']} `{_md_escape(m['change'])}`: {_md_escape(m['detail'])}")
    eqs = [m for m in data["mutants"] if m["status"] == EQUIVALENT]
    by_reason: dict[str, list[dict]] = {}
    for m in eqs:
        by_reason.setdefault(m["equivalent_reason"] or "", []).append(m)
    out += ["", f"## Equivalent mutants ({len(eqs)})", ""]
    for reason, ms in by_reason.items():
        if len(ms) > 10:
            files: dict[str, int] = {}
            for m in ms:
                files[m["file"]] = files.get(m["file"], 0) + 1
            out.append(f"- {len(ms)} mutants: {_md_escape(reason)} ("
                       + ", ".join(f"{f}: {n}" for f, n in sorted(files.items()))
                       + "; each listed in strength.json)")
        else:
            for m in ms:
                out.append(f"- {m['file']}:{m['line']} `{_md_escape(m['change'])}`: "
                           f"{_md_escape(reason)}")
    out.append("")
    return "\n".join(out)


def write_reports(data: dict, out_dir: Path) -> tuple[Path, Path]:
    from conformance.atomicio import write_pair
    out_dir = Path(out_dir)
    return write_pair(out_dir / "strength.md", markdown(data), out_dir / "strength.json", data)


# --------------------------------------------------------------------------
# the command

def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kodex strength", description=(
        "Mutation testing of model/ against the corpus alone: the score per clause, per\n"
        "Kódex title and overall (reports/strength.md, reports/strength.json)."),
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=(
        "examples:\n"
        "  kodex strength                        every mutant of model/ against the corpus (cached)\n"
        "  kodex strength --file model/combat.py --fresh   one engine file, cached verdicts ignored\n"
        "  kodex strength --sample 600 --fail-under 100 --file model/queue.py   as .ci/strength\n"
        "  kodex strength --max 20 --no-cache -q   a smoke run\n"
        "  kodex strength --no-probes --file model/shapes.py   the corpus alone, no input probes\n"
        "exit status: 0 done, no problem (and the score at least --fail-under); 1 a problem (a\n"
        "  mutant declared equivalent that the corpus or an input probe kills, a declaration that\n"
        "  matches no mutant, an unused claim that does not hold), the score below --fail-under,\n"
        "  a case path or corpus that does not load (named), or an input probe that does not\n"
        "  probe (the reference engine does not give what it expects: its input error, or its\n"
        "  policy verdicts; named); 2 a\n"
        "  bad equivalence or probe file (named, with the line) or bad usage (an option); 5 an\n"
        "  output that cannot be written.\n"
        "writes: strength.md and strength.json in --out (default reports/), the result cache in\n"
        "  --cache (default .strength-cache/; --no-cache: none)"))
    p.add_argument("corpus", nargs="*", help="case files or directories (default: the corpus)")
    p.add_argument("--out", metavar="DIR", default="reports",
                   help="where strength.md and strength.json go (default: reports/)")
    p.add_argument("--cache", metavar="DIR", default=DEFAULT_CACHE,
                   help=f"the result cache (default: {DEFAULT_CACHE}/ in the working directory)")
    p.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    p.add_argument("--fresh", action="store_true", help="ignore cached results (and rewrite them)")
    p.add_argument("--workers", type=int, default=2, metavar="N", help="parallel mutants (default 2)")
    p.add_argument("--file", action="append", metavar="FILE",
                   help="only the mutants of this engine file (model/combat.py); repeatable")
    p.add_argument("--operator", action="append", metavar="REGEX",
                   help="only operators matching (e.g. Comparison); repeatable")
    p.add_argument("--equivalent", metavar="FILE", default=str(DEFAULT_EQUIVALENT),
                   help="the equivalent-mutant declarations")
    p.add_argument("--probes", metavar="DIR", default=str(DEFAULT_PROBES),
                   help="the input probes a mutant the corpus lets through runs: malformed inputs, "
                        "each with the input error the reference engine raises (default: "
                        "properties/input_probes/)")
    p.add_argument("--no-probes", action="store_true",
                   help="no input probes: the corpus alone is the oracle")
    p.add_argument("--timeout", type=float, metavar="S",
                   help="per-mutant deadline (default: max(30 s, 30 × the corpus run))")
    p.add_argument("--case-timeout", type=float, default=2.0, metavar="S",
                   help="per-case deadline inside a mutant (default 2 s, or 20 × its baseline); "
                        "also each input probe's")
    p.add_argument("--max", type=int, metavar="N", help="only the first N mutants (a smoke run)")
    p.add_argument("--sample", type=int, metavar="N",
                   help="only N of the mutants, spread over files and operators, the same for the "
                        "same tree (CI: .ci/strength); declarations are not checked for staleness")
    p.add_argument("--fail-under", type=float, metavar="PCT",
                   help="exit 1 when the overall score is below PCT")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    say = (lambda s: None) if args.quiet else (lambda s: print(f"strength: {s}", file=sys.stderr,
                                                              flush=True))
    try:
        eq_path = Path(args.equivalent) if args.equivalent else None
        load_equivalents(eq_path)
        probes = None if args.no_probes else ProbeOracle.from_dir(args.probes, args.case_timeout)
    except (EquivalenceError, ProbeError) as exc:
        print(f"kodex strength: {exc}", file=sys.stderr)
        return 2
    data = run(oracle=CorpusOracle(args.corpus, case_timeout=args.case_timeout),
               operators=operator_names(args.operator) if args.operator else None,
               files=args.file, cache_dir=None if args.no_cache else Path(args.cache),
               equivalent=eq_path, workers=args.workers, mutant_timeout=args.timeout,
               fresh=args.fresh, max_mutants=args.max, sample=args.sample, rel_to=ROOT,
               progress=say, probes=probes)
    md, js = write_reports(data, Path(args.out))
    o = data["overall"]
    low = [r for r in data["titles"] if r["score"] is not None and r["score"] < GOAL_TITLE]
    r = data["reachable"]
    print(f"strength: {_fmt(o['score'])} of {o['scored']} non-equivalent mutants killed "
          f"({o['timeout']} by timeout"
          + (f", {o['by_probe']} only by an input probe: the corpus alone "
             f"{_fmt(o['corpus_score'])}" if probes is not None else "")
          + f"), {o['survived']} survive, {o['equivalent']} equivalent "
          f"({_fmt(r['score'])} over the files the engine imports); "
          f"{len(low)} titles below {GOAL_TITLE:g}%; {data['timing']['total']:.0f} s")
    sel = data["selection"]
    if sel["run"] < sel["of"] or sel["files"]:
        print(f"  a partial run: {sel['run']} of {sel['of']} mutants"
              + (f" of {len(sel['files'])} files" if sel["files"] else ""))
    eqs = data["equivalents"]
    print(f"  equivalent: {eqs['by_rule']} by a rule, {eqs['one_by_one']} declared one by one "
          f"(counted as survivors: {_fmt(eqs['score_if_declarations_survived'])})")
    pr = data["probes"]
    if pr:
        print(f"  input probes: {pr['count']} of {len(pr['files'])} files ({probe_cost(pr)}); "
              f"killed only by one: {len(pr['kills'])}")
        for k in pr["kills"][:10]:
            print(f"    {k['id']} ({k['where']}): probe {k['probe']}")
        if len(pr["kills"]) > 10:
            print(f"    … {len(pr['kills']) - 10} more in {md}")
    for r in low[:10]:
        print(f"  {r['id']}: {_fmt(r['score'])} ({r['survived']} survive)")
    for p in data["problems"]:
        print(f"  problem: {p}", file=sys.stderr)
    print(f"written: {md}, {js}")
    if data["problems"]:
        return 1
    if args.fail_under is not None and (o["score"] or 0) < args.fail_under:
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
