"""What an amendment of the Kódex changes and which cases, code and registers it breaks.

``kodex amend NEW_DIR [--base DIR] [--json FILE] [--out DIR] [--corpus PATH ...] [--apply]``

NEW_DIR holds amended copies of the vendored documents under any file names:
each is matched to the text it amends by its content (Kódex part II or VI,
the 7th-edition rulebook, the M.A.G.U.S. rules: ``conformance.catalog.detect_part``)
and keeps that text's source id; a base text without a copy is unchanged; a
copy of a kind the base does not have is read as a further source. A document
of no known kind, two copies of one text, or an entry that is not a regular
file of at most MAX_DOCUMENT_BYTES is bad input (one line each): nothing is
compared then, so no amendment is silently lost. The two catalogs
(``conformance.catalog``) are compared by clause id and by the sha256 of the
normalised text:

* ``changed``: same id, different text (with a word-level ``difflib`` diff of
  the Hungarian text);
* ``moved``: the text of a base clause now stands under another id
  (renumbered; ``match: exact`` by hash, or ``match: similar`` when a removed
  and an added clause of the same part have nearly the same words, then with
  a diff); a heading (no text) moves when its title reappears under a new id;
* ``removed`` / ``added``: ids only in the base / only in the new catalog
  (an added clause may reuse the id of a clause that moved away: ``reuses_id``);
* ``title_changed``: same id, different heading.

For every changed, moved and removed clause the impact: the corpus cases that
cite it (as ``clause`` or in ``also``), the engine code that names it
(docstrings via ``conformance.traceability``, string literals such as refusal
clauses in ``model/*.py``, ``clause:`` keys of ``model/**/*.yaml``), the
untestable entries (``conformance/untestable/*.yaml``) and the entries of the
conflicts register (``conformance/conflicts.yaml``) that name it. For every
added clause whether anything covers it yet. And the parse findings of the
new catalog that the base did not have (and those it no longer has).

Beyond the clauses: the **numbers** of the ruleset and data files under
``model/`` traced to a clause by their comment (``regeneration_per_turn: 4  #
136.7``, ``conformance.rule_numbers``) whose clause no longer states that
number (or was renumbered); the **other sources that still state the old
rule** — a clause cited together with the changed one (by a case, an engine
docstring paragraph or the conflicts register) that still says the old number
with the same unit (rb7's "max. 4 ÉP" when 136.7 now says 5), each with a
suggested conflicts-register entry; the expectations (``then``) that name a
renumbered or removed clause; and the **next steps**, in order. ``--apply``
rewrites the ``clause:`` / ``also:`` of the cases citing a renumbered clause
(:func:`apply_renumbering`: every file checked before any is written).

JSON shape (schema ``hkk-amendment/1``)::

    {"schema": "hkk-amendment/1", "generated": ISO time,
     "base": {"dir", "clauses", "files": [{"name", "sha256"}]},
     "new":  {"dir", "clauses", "files": [{"name", "status", "sha256"}]},
            # status: amended | identical | unchanged (missing in NEW_DIR) | extra
     "summary": {"changed", "moved", "removed", "added", "title_changed",
                 "uncovered_added", "new_findings", "resolved_findings",
                 "cases_to_review", "code_to_review", "untestable_to_review",
                 "conflicts_to_review", "needs_review"},
     "changed": [{"id", "title", "heading", "section", "section_title", "part",
                  "old": {"sha256", "text", "source", "line"}, "new": {...},
                  "diff": [{"op": equal|delete|insert|replace, "old", "new"}],
                  "word_diff": "… [-old words-]{+new words+} …",
                  "impact": IMPACT, "needs_review"}],
     "moved":   [{"from", "to", "title", "heading", "section", "section_title",
                  "part", "match": exact|similar, "similarity",
                  "old": {...}, "new": {...}, "diff"?, "word_diff"?,
                  "impact": IMPACT, "needs_review"}],
     "removed": [{"id", "title", "heading", "section", "section_title", "part",
                  "old": {...}, "impact": IMPACT, "needs_review",
                  "id_taken_by"?}],   # the id now holds the text of a moved clause
     "added":   [{"id", "title", "heading", "section", "section_title", "part",
                  "new": {...}, "reuses_id", "covered_by": {"cases", "code",
                  "untestable"}, "uncovered"}],
     "title_changed": [{"id", "old_title", "new_title", "cases"}],
     "findings": {"new": [Finding], "resolved": [Finding]},
     "review": {"cases": [{"id", "file", "line", "title", "clauses"}],
                "code": [{"file", "line", "how", "clauses"}],
                "untestable": [{"file", "clause", "reason"}],
                "conflicts": [{"id", "clauses"}]},
     "numbers": [{"file", "line", "key", "value", "clause", "now_clause", "was", "now",
                  "renumbered"?}],
     "still_old": [{"clause", "title", "source", "line", "says", "old", "changed", "now",
                    "suggested_conflict"}],
     "then_references": [{"case", "file", "line", "at", "clause", "to"}],
     "next_steps": [text], "applied"?: [{"file", "line", "case", "field", "from", "to"}],
     "exit": 0 | 1}

    IMPACT = {"cases": [{"id", "role": clause|also, "file", "line", "title"}],
              "code": [{"file", "line", "how": docstring|literal|data}],
              "untestable": [{"file", "reason"}],
              "conflicts": [{"id", "summary", "where"}]}

Exit status: 0 when no changed, moved or removed clause is cited by a case,
the code, an untestable entry or the conflicts register, no ruleset number and
no other source is left behind and every added clause is covered (title
changes and new findings are reported but need no review); 1 when something
must be reviewed; 2 on bad input (a missing directory, a NEW_DIR without any
``*.txt`` document, a document that is not UTF-8, of no known kind, not a
regular file or too large, a missing corpus path, an ``--apply`` that would
break a case file).

:func:`compare` does the work on two catalogs; :func:`analyse` loads them
from directories; :func:`render`, :func:`to_markdown`, :func:`write_reports`
and :func:`main` present it.
"""
from __future__ import annotations

import argparse
import ast
import datetime as _dt
import difflib
import errno
import hashlib
import json
import os
import re
import stat
import sys
import tempfile
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

SCHEMA = "hkk-amendment/1"
ROOT = Path(__file__).resolve().parents[1]
KODEX_DIR = ROOT / "conformance" / "kodex"
CORPUS_DIR = ROOT / "conformance" / "corpus"
UNTESTABLE_DIR = ROOT / "conformance" / "untestable"
CONFLICTS_PATH = ROOT / "conformance" / "conflicts.yaml"
MODEL_DIR = ROOT / "model"
SIMILARITY = 0.8      # word-sequence ratio for a renumbered *and* reworded clause
MAX_DOCUMENT_BYTES = 4 * 1024 * 1024   # an amended text (the largest vendored one: 76 KB)

EXIT_OK, EXIT_REVIEW, EXIT_INPUT = 0, 1, 2


class AmendmentInputError(Exception):
    """Bad input: reported as one line, exit status 2."""


# --------------------------------------------------------------------------
# loading the two catalogs

def _fresh_catalog(directory: Path):
    """The catalog of ``directory``, parsed now (never from the per-directory cache,
    whose key would be a temporary path)."""
    from conformance import catalog as cat
    build = getattr(cat, "_build", None)
    if build is not None:
        return build(Path(directory))
    return cat.load_catalog(directory)  # pragma: no cover - older catalog module


def _sha_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _check_utf8(path: Path) -> None:
    try:
        path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise AmendmentInputError(f"{path}: not UTF-8 (byte offset {exc.start})") from None


_NOT_REGULAR = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
                (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                (stat.S_ISSOCK, "a socket"))


def documents(directory: Path) -> tuple[list[Path], list[str]]:
    """The ``*.txt`` documents of ``directory``: regular files (a link to one counts) of at most
    MAX_DOCUMENT_BYTES, by name; and one problem line for every other ``*.txt`` entry (a
    directory, a FIFO, a device, a link loop, a dangling link, a file too large). Nothing is
    opened but regular files."""
    found: list[Path] = []
    problems: list[str] = []
    try:
        entries = sorted((e for e in os.scandir(directory) if e.name.endswith(".txt")),
                         key=lambda e: e.name)
    except OSError as exc:
        raise AmendmentInputError(f"{directory}: cannot list: {exc.strerror or exc}") from None
    for entry in entries:
        path = Path(entry.path)
        try:
            st = os.stat(path)                        # follows a link, to what it names
        except OSError as exc:
            why = ("a symbolic link loop" if exc.errno == errno.ELOOP else
                   "a dangling symbolic link (its target does not exist)"
                   if exc.errno == errno.ENOENT and path.is_symlink() else exc.strerror or str(exc))
            problems.append(f"{path}: not a regular file: {why}")
            continue
        kind = next((what for test, what in _NOT_REGULAR if test(st.st_mode)), None)
        if kind is not None or not stat.S_ISREG(st.st_mode):
            problems.append(f"{path}: not a regular file ({kind or 'not a file'})")
        elif st.st_size > MAX_DOCUMENT_BYTES:
            problems.append(f"{path}: larger than {MAX_DOCUMENT_BYTES} bytes ({st.st_size}; "
                            "MAX_DOCUMENT_BYTES): not a Kódex text")
        else:
            found.append(path)
    return found, problems


def _read(path: Path) -> bytes:
    """A document's bytes, never more than MAX_DOCUMENT_BYTES (bounded even if it grew)."""
    with open(path, "rb") as fh:
        raw = fh.read(MAX_DOCUMENT_BYTES + 1)
    if len(raw) > MAX_DOCUMENT_BYTES:
        raise AmendmentInputError(f"{path}: larger than {MAX_DOCUMENT_BYTES} bytes "
                                  "(MAX_DOCUMENT_BYTES): not a Kódex text")
    return raw


def _kind_names() -> str:
    return "Kódex part II or VI (\"II. rész\" / \"VI. rész\"), the 7th-edition rulebook's chapter " \
           "2, the M.A.G.U.S. card game rules 5.00"


def match_documents(base_files: list[Path], new_files: list[Path]) -> list[dict]:
    """Each amended document matched to the vendored text it amends by its content (its kind:
    Kódex part II, VI, …, the rulebook, the M.A.G.U.S. rules), whatever it is called:
    ``[{"name", "path", "part", "matches", "source_id", "status", "sha256"}]``, status
    ``amended`` / ``identical`` / ``extra`` (a part the base does not have: a further source).
    A document of no known kind, or two of one kind, is bad input: nothing would be compared
    and the amendment would be lost."""
    from conformance.catalog import detect_part, source_id
    base_by_part: dict[str, Path] = {}
    for p in base_files:
        part = detect_part(p)
        if part is not None:
            base_by_part.setdefault(part, p)
    rows, problems, taken = [], [], {}
    for p in new_files:
        raw = _read(p)
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            problems.append(f"{p}: not UTF-8 (byte offset {exc.start})")
            continue
        part = detect_part(p)
        if part is None:
            problems.append(f"{p}: matches no vendored text: it is none of {_kind_names()} "
                            "(its first lines say which); nothing of it would be compared")
            continue
        if part in taken:
            problems.append(f"{p}: {_part_words(part)} again (already {taken[part].name}): one "
                            "amended copy per text")
            continue
        taken[part] = p
        base = base_by_part.get(part)
        sha = hashlib.sha256(raw).hexdigest()
        if base is None:
            rows.append({"name": p.name, "path": str(p), "part": part, "matches": None,
                         "source_id": p.name, "status": "extra", "sha256": sha})
            continue
        rows.append({"name": p.name, "path": str(p), "part": part, "matches": base.name,
                     "source_id": source_id(base.name),
                     "status": "identical" if sha == _sha_file(base) else "amended", "sha256": sha})
    if problems:
        raise AmendmentInputError("\n".join(problems))
    return rows


def _part_words(part: str) -> str:
    return {"rb7": "the 7th-edition rulebook's chapter 2", "mk": "the M.A.G.U.S. rules 5.00"}.get(
        part, f"Kódex part {part}")


def load_catalogs(new_dir: str | Path, base_dir: str | Path | None = None):
    """(base catalog, new catalog, base info, new info) for an amended copy in ``new_dir``.

    The documents of ``new_dir`` are matched to the base texts by content
    (:func:`match_documents`); a base text with no amended copy is unchanged. Raises
    AmendmentInputError, one line per problem, for anything that is not a readable text."""
    base = Path(base_dir) if base_dir is not None else KODEX_DIR
    new = Path(new_dir)
    if not base.is_dir():
        raise AmendmentInputError(f"{base}: no such directory (--base)")
    if not new.is_dir():
        raise AmendmentInputError(f"{new}: no such directory")
    base_files, base_problems = documents(base)
    new_files, new_problems = documents(new)
    if base_problems or new_problems:
        raise AmendmentInputError("\n".join(base_problems + new_problems))
    if not base_files:
        raise AmendmentInputError(f"{base}: no Kódex documents (*.txt)")
    if not new_files:
        raise AmendmentInputError(
            f"{new}: no Kódex documents (*.txt); expected amended copies of "
            + ", ".join(p.name for p in base_files) + " (any file names: matched by content)")
    for p in base_files:
        _check_utf8(p)
    rows = match_documents(base_files, new_files)
    base_info = {"dir": str(base), "files": [{"name": p.name, "sha256": _sha_file(p),
                                              "source_id": _source_id(p.name)}
                                             for p in base_files]}
    by_base = {r["matches"]: r for r in rows if r["matches"]}
    files = []
    from conformance.atomicio import writing
    with writing(Path(tempfile.gettempdir()) / "kodex-amend-…"):   # the scratch directory
        scratch = tempfile.TemporaryDirectory(prefix="kodex-amend-")
    with scratch as tmp:
        merged = Path(tmp)
        for p in base_files:                  # each base text, or its amended copy under its name
            row = by_base.get(p.name)
            _scratch_copy(Path(row["path"]) if row else p, merged / p.name)
            if row is None:
                files.append({"name": p.name, "matches": p.name, "source_id": _source_id(p.name),
                              "status": "unchanged", "sha256": _sha_file(p)})
        for r in rows:
            if r["status"] == "extra":
                _scratch_copy(Path(r["path"]), merged / r["name"])
            files.append({k: r[k] for k in ("name", "matches", "source_id", "status", "sha256",
                                            "part")})
        new_cat = _fresh_catalog(merged)
    if base.resolve() == KODEX_DIR.resolve():
        from conformance.catalog import load_catalog
        base_cat = load_catalog(base)
    else:
        base_cat = _fresh_catalog(base)
    new_info = {"dir": str(new), "files": files}
    return base_cat, new_cat, base_info, new_info


def _scratch_copy(source: Path, copy: Path) -> None:
    """``source`` (a text given: a problem reading it is bad input) copied to ``copy`` in the
    scratch directory of the amended catalog (an output: a full or read-only temporary
    directory, a file-size limit is ``conformance.atomicio.OutputError``, exit 5)."""
    from conformance.atomicio import writing
    try:
        data = source.read_bytes()
    except OSError as exc:
        raise AmendmentInputError(f"{source}: cannot read: {exc.strerror or exc}") from None
    with writing(f"{copy} (the scratch copy of {source})"):
        copy.write_bytes(data)


def _source_id(name: str) -> str:
    from conformance.catalog import source_id
    return source_id(name)


# --------------------------------------------------------------------------
# what cites a clause

def load_untestable_entries(directory: str | Path | None = None) -> list[dict]:
    """Every entry of the untestable registry with its file: ``[{file, clause, reason}]``."""
    import yaml

    from conformance.loader import Loader   # the safe loader, LibYAML's where present
    d = Path(directory) if directory is not None else UNTESTABLE_DIR
    out: list[dict] = []
    if not d.is_dir():
        return out
    for f in sorted(list(d.glob("*.yaml")) + list(d.glob("*.yml"))):
        data = yaml.load(f.read_text(encoding="utf-8"), Loader=Loader)  # noqa: S506 - safe
        entries = data.get("entries", []) if isinstance(data, dict) else (data or [])
        for e in entries or []:
            if isinstance(e, dict) and e.get("clause") is not None:
                out.append({"file": _rel(f), "clause": str(e["clause"]),
                            "reason": str(e.get("reason") or "")})
    return out


def load_conflict_entries(path: str | Path | None = None) -> list[dict]:
    from reports.coverage import load_conflicts
    return load_conflicts(CONFLICTS_PATH if path is None else path)


def _conflict_clauses(entry: dict) -> dict[str, str]:
    """{clause id: where in the entry} for a conflicts-register entry."""
    out: dict[str, str] = {}
    for c in entry.get("clauses") or []:
        out.setdefault(str(c), "clauses")
    readings = entry.get("readings") or {}
    if isinstance(readings, dict):
        for name, r in readings.items():
            if isinstance(r, dict) and r.get("clause"):
                out.setdefault(str(r["clause"]), f"reading {name}")
    return out


_DATA_CLAUSE_RE = re.compile(r"""\bclause:\s*["']?([A-Za-z0-9:.\-]+)""")


def code_references(model_dir: str | Path | None = None) -> dict[str, list[dict]]:
    """clause id → [{file, line, how}] over the engine.

    ``docstring``: cited in a docstring (``conformance.traceability``);
    ``literal``: a string constant equal to the id (refusal clauses, event
    clauses); ``data``: a ``clause:`` key of a YAML table under ``model/``.
    """
    d = Path(model_dir) if model_dir is not None else MODEL_DIR
    out: dict[str, list[dict]] = {}

    def add(cid: str, file: str, line: int, how: str) -> None:
        spots = out.setdefault(cid, [])
        row = {"file": file, "line": line, "how": how}
        if row not in spots:
            spots.append(row)

    try:
        from conformance.traceability import code_citations
        cites = code_citations(d) if model_dir is not None else code_citations()
        for cid, spots in cites.items():
            for f, line in spots:
                add(cid, f, line, "docstring")
    except ImportError:  # pragma: no cover - traceability is part of the kit
        pass
    for path in sorted(d.glob("*.py")):
        for value, line in _literal_ids(path.read_text(encoding="utf-8")):
            add(value, f"{d.name}/{path.name}", line, "literal")
    for path in sorted(d.rglob("*.yaml")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in _DATA_CLAUSE_RE.finditer(line):
                add(m.group(1).rstrip("."), f"{d.name}/{path.relative_to(d).as_posix()}", n, "data")
    return out


@lru_cache(maxsize=256)
def _literal_ids(source: str) -> tuple[tuple[str, int], ...]:
    """(id, line) of every string constant of ``source`` that is a clause id and not a
    docstring. Remembered by the source text: an amendment run and the next one read the same
    engine."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # pragma: no cover - the engine parses
        return ()
    nodes = list(ast.walk(tree))
    docs = {id(n.body[0].value) for n in nodes
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and n.body and isinstance(n.body[0], ast.Expr)
            and isinstance(getattr(n.body[0], "value", None), ast.Constant)}
    return tuple((n.value, n.lineno) for n in nodes
                 if isinstance(n, ast.Constant) and isinstance(n.value, str)
                 and id(n) not in docs and _looks_like_id(n.value))


_ID_RE = re.compile(r"^(?:rb7:[a-z0-9-]+(?:\.[IVX]+)?|mk:\d+\.\d+(?:\.[A-Z](?:\.\d+)?)?|\d{1,3}(?:\.\d+){0,4})$")


def _looks_like_id(s: str) -> bool:
    # bare numbers ("3") are too common as literals; a title is only taken with a dot
    return bool(_ID_RE.match(s)) and ("." in s or ":" in s)


def load_corpus(paths: Iterable[str | Path] | None = None):
    """(cases, error messages) of the corpus; clause ids are not checked against any catalog."""
    from conformance.loader import load_files
    paths = [Path(p) for p in (paths or [CORPUS_DIR])]
    for p in paths:
        if not p.exists():
            raise AmendmentInputError(f"{p}: no such file or directory (--corpus)")
    res = load_files(case_files(paths), catalog=False)
    return list(res.cases), [str(e) for e in res.errors]


def case_files(paths: Iterable[Path]) -> list[Path]:
    """The case files under ``paths``: a file as given, a directory's ``*.yaml`` / ``*.yml``
    files at any depth, sorted (conformance.loader.case_files: no recursion, no link loops)."""
    from conformance.loader import case_files as under
    out: list[Path] = []
    for p in paths:
        out.extend(under(p) if p.is_dir() else [p])
    return out


# --------------------------------------------------------------------------
# the comparison

def _words(text: str) -> list[str]:
    from conformance.catalog import normalize
    t = normalize(text or "")
    return t.split(" ") if t else []


def word_diff(old: str, new: str) -> list[dict]:
    """Word-level diff of two texts: ``[{op, old, new}]`` (op as difflib's opcodes)."""
    a, b = _words(old), _words(new)
    ops = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        ops.append({"op": tag, "old": " ".join(a[i1:i2]), "new": " ".join(b[j1:j2])})
    return ops


def _clip(words: str, keep: int, where: str) -> str:
    w = words.split(" ")
    if len(w) <= 2 * keep + 1:
        return words
    if where == "start":
        return "… " + " ".join(w[-keep:])
    if where == "end":
        return " ".join(w[:keep]) + " …"
    return " ".join(w[:keep]) + " … " + " ".join(w[-keep:])


def word_diff_text(ops: list[dict], context: int | None = 6) -> str:
    """``… kept words [-deleted-]{+inserted+} …`` (git's --word-diff markup);
    long unchanged runs are cut to ``context`` words on each side."""
    parts = []
    for i, op in enumerate(ops):
        if op["op"] == "equal":
            s = op["old"]
            if context is not None:
                where = "start" if i == 0 else "end" if i == len(ops) - 1 else "middle"
                s = _clip(s, context, where)
            parts.append(s)
        else:
            if op["old"]:
                parts.append(f"[-{op['old']}-]")
            if op["new"]:
                parts.append(f"{{+{op['new']}+}}")
    return " ".join(p for p in parts if p)


def _similarity(a: list[str], b: list[str], floor: float = 0.0) -> float:
    """Word-sequence ratio of two word lists; 0 when the cheap upper bounds are below ``floor``."""
    sm = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    if sm.real_quick_ratio() < floor or sm.quick_ratio() < floor:
        return 0.0
    return sm.ratio()


def _sig(c) -> tuple | None:
    """What identifies a clause across ids: its text hash, or for a heading its title."""
    if (c.text or "").strip():
        return ("text", c.sha256)
    if c.title:
        from conformance.catalog import normalize
        return ("title", c.part, normalize(c.title))
    return None


def _heading(catalog, c) -> str | None:
    """The clause's own title, else the nearest titled ancestor's (for display)."""
    if c.title:
        return c.title
    try:
        for aid in catalog.ancestors(c.id):
            a = catalog.get(aid)
            if a is not None and a.title:
                return a.title
    except Exception:  # pragma: no cover - duck-typed catalogs
        pass
    return None


def _side(c) -> dict:
    return {"sha256": c.sha256, "text": c.text, "source": c.source, "line": c.line}


def _about(catalog, c) -> dict:
    return {"title": c.title, "heading": _heading(catalog, c), "section": c.section,
            "section_title": c.section_title, "part": c.part}


def _finding_key(f) -> tuple:
    # line numbers shift with every edit: compare findings without their digits
    return (f.kind, f.clause, f.source, re.sub(r"\d+", "#", f.message))


def _beyond(findings, others) -> list[dict]:
    """The findings of `findings` that `others` does not have (as a multiset, compared by key)."""
    budget = Counter(_finding_key(f) for f in others)
    out = []
    for f in findings:
        k = _finding_key(f)
        if budget[k]:
            budget[k] -= 1
        else:
            out.append(_finding_json(f))
    return out


def _finding_json(f) -> dict:
    return {"kind": f.kind, "clause": f.clause, "source": f.source, "line": f.line,
            "message": f.message}


def compare(base, new, cases: Iterable = (), code: dict[str, list[dict]] | None = None,
            untestable: list[dict] | None = None, conflicts: list[dict] | None = None,
            numbers: list | None = None, together: Iterable[Iterable[str]] = ()) -> dict:
    """The amendment report (schema ``hkk-amendment/1``) for two catalogs.

    ``cases``: corpus cases (``id``, ``clause``, ``also``, ``title``, ``file``,
    ``line``); ``code``: :func:`code_references`; ``untestable``:
    :func:`load_untestable_entries`; ``conflicts``: the register's entries;
    ``numbers``: the numbers of the ruleset and data files traced to clauses
    (``conformance.rule_numbers.traced_numbers``); ``together``: sets of clauses the engine
    cites together (``conformance.traceability.cited_together``), which with the cases and the
    conflicts register say which clauses speak of one rule. Absent registries count as empty.
    """
    cases = list(cases)
    code = code or {}
    untestable = untestable or []
    conflicts = conflicts or []
    numbers = list(numbers or [])

    by_clause: dict[str, list[dict]] = {}
    for case in cases:
        cited = [str(case.clause)] + [str(a) for a in (case.also or [])]
        for cid in dict.fromkeys(cited):
            by_clause.setdefault(cid, []).append({
                "id": str(case.id), "role": "clause" if cid == str(case.clause) else "also",
                "file": _rel(getattr(case, "file", "")), "line": getattr(case, "line", 0),
                "title": getattr(case, "title", "")})
    unt_by: dict[str, list[dict]] = {}
    for e in untestable:
        unt_by.setdefault(e["clause"], []).append({"file": e.get("file"), "reason": e.get("reason")})
    conf_by: dict[str, list[dict]] = {}
    for e in conflicts:
        for cid, where in _conflict_clauses(e).items():
            conf_by.setdefault(cid, []).append({"id": e.get("id"),
                                                "summary": " ".join(str(e.get("summary") or "").split()),
                                                "where": where})

    def impact(cid: str) -> dict:
        return {"cases": by_clause.get(cid, []), "code": code.get(cid, []),
                "untestable": unt_by.get(cid, []), "conflicts": conf_by.get(cid, [])}

    def cited(imp: dict) -> bool:
        return any(imp[k] for k in ("cases", "code", "untestable", "conflicts"))

    # --- classify ---------------------------------------------------------
    # same id, same text: stable (a heading whose title changed stays stable: a title change)
    stable = {c.id for c in base if (n := new.get(c.id)) is not None and n.sha256 == c.sha256}
    candidates_new: dict[tuple, list] = {}
    for n in new:
        if n.id in stable:
            continue
        s = _sig(n)
        if s is not None:
            candidates_new.setdefault(s, []).append(n)

    moved: list[tuple[Any, Any, str, float]] = []
    used_new: set[str] = set()
    unstable_base = [c for c in base if c.id not in stable]
    for c in unstable_base:
        s = _sig(c)
        if s is None:
            continue
        for n in candidates_new.get(s, []):
            if n.id != c.id and n.id not in used_new:
                moved.append((c, n, "exact", 1.0))
                used_new.add(n.id)
                break
    moved_from = {c.id for c, *_ in moved}

    removed_ids = [c.id for c in unstable_base if c.id not in moved_from and c.id not in new]
    added_pool = [n for n in new if n.id not in stable and n.id not in used_new
                  and (n.id not in base or n.id in moved_from)]
    # renumbered and reworded: nearest words among what is left, same part
    left_removed = [base.get(i) for i in removed_ids if (base.get(i).text or "").strip()]
    pairs = []
    pool_words = [(n, _words(n.text)) for n in added_pool if (n.text or "").strip()]
    for c in left_removed:
        cw = _words(c.text)
        for n, nw in pool_words:
            if n.part == c.part:
                r = _similarity(cw, nw, SIMILARITY)
                if r >= SIMILARITY:
                    pairs.append((r, c, n))
    pairs.sort(key=lambda t: -t[0])
    taken_old: set[str] = set()
    for r, c, n in pairs:
        if c.id in taken_old or n.id in used_new:
            continue
        moved.append((c, n, "similar", round(r, 3)))
        taken_old.add(c.id)
        used_new.add(n.id)
    moved_from |= taken_old
    base_order = {c.id: i for i, c in enumerate(base)}
    moved.sort(key=lambda t: base_order.get(t[0].id, 0))

    changed_rows, moved_rows, removed_rows, added_rows, title_rows = [], [], [], [], []
    for c in base:
        if c.id in stable or c.id in moved_from:
            continue
        n = new.get(c.id)
        if n is None or c.id in used_new:
            # gone; or its id now holds another clause's text, moved there
            imp = impact(c.id)
            row = {"id": c.id, **_about(base, c), "old": _side(c),
                   "impact": imp, "needs_review": cited(imp)}
            if n is not None:
                row["id_taken_by"] = next(o.id for o, m, *_ in moved if m.id == c.id)
            removed_rows.append(row)
            continue
        ops = word_diff(c.text, n.text)
        imp = impact(c.id)
        changed_rows.append({"id": c.id, **_about(new, n), "old": _side(c), "new": _side(n),
                             "diff": ops, "word_diff": word_diff_text(ops),
                             "impact": imp, "needs_review": cited(imp)})
    for c, n, how, ratio in moved:
        imp = impact(c.id)
        row = {"from": c.id, "to": n.id, **_about(new, n), "match": how, "similarity": ratio,
               "old": _side(c), "new": _side(n), "impact": imp, "needs_review": cited(imp)}
        if how != "exact":
            ops = word_diff(c.text, n.text)
            row["diff"], row["word_diff"] = ops, word_diff_text(ops)
        moved_rows.append(row)
    for n in new:
        if n.id in stable or n.id in used_new:
            continue
        if n.id in base and n.id not in moved_from:
            continue  # changed, handled above
        cov_cases = by_clause.get(n.id, [])
        cov_unt = unt_by.get(n.id, [])
        cov_code = code.get(n.id, [])
        has_text = bool((n.text or "").strip())
        added_rows.append({"id": n.id, **_about(new, n), "new": _side(n),
                           "reuses_id": n.id in base,
                           "covered_by": {"cases": cov_cases, "code": cov_code,
                                          "untestable": cov_unt},
                           "uncovered": has_text and not cov_cases and not cov_unt})
    for c in base:
        n = new.get(c.id)
        if n is not None and c.id in stable and (c.title or None) != (n.title or None):
            title_rows.append({"id": c.id, "old_title": c.title, "new_title": n.title,
                               "section": n.section, "section_title": n.section_title,
                               "cases": len(by_clause.get(c.id, []))})
    for c, n, _how, _r in moved:
        if (c.title or None) != (n.title or None) and (c.text or "").strip():
            title_rows.append({"id": n.id, "old_title": c.title, "new_title": n.title,
                               "section": n.section, "section_title": n.section_title,
                               "cases": len(by_clause.get(c.id, []))})

    # --- findings ---------------------------------------------------------
    new_findings = _beyond(new.findings, base.findings)   # findings the amendment brings
    resolved = _beyond(base.findings, new.findings)       # findings it removes

    # --- what to review, aggregated -----------------------------------------
    review_cases: dict[str, dict] = {}
    review_code: dict[tuple, dict] = {}
    review_unt: list[dict] = []
    review_conf: dict[str, dict] = {}
    for row in changed_rows + removed_rows + moved_rows:
        cid = row.get("id") or row.get("from")
        imp = row["impact"]
        for k in imp["cases"]:
            r = review_cases.setdefault(k["id"], {"id": k["id"], "file": k["file"],
                                                  "line": k["line"], "title": k["title"],
                                                  "clauses": []})
            if cid not in r["clauses"]:
                r["clauses"].append(cid)
        for k in imp["code"]:
            r = review_code.setdefault((k["file"], k["line"], k["how"]),
                                       {**k, "clauses": []})
            if cid not in r["clauses"]:
                r["clauses"].append(cid)
        for k in imp["untestable"]:
            review_unt.append({"file": k["file"], "clause": cid, "reason": k["reason"]})
        for k in imp["conflicts"]:
            r = review_conf.setdefault(k["id"], {"id": k["id"], "clauses": []})
            if cid not in r["clauses"]:
                r["clauses"].append(cid)
    # --- numbers of the ruleset and data files; other sources still saying the old thing ----
    related = _related(cases, together, conflicts)
    number_rows, still_old = [], []
    touched = {r["id"] for r in changed_rows + removed_rows} | {r["from"] for r in moved_rows} \
        | {r["to"] for r in moved_rows}
    for row in changed_rows + [m for m in moved_rows if m.get("diff")]:
        cid, now_id = row.get("id") or row["from"], row.get("id") or row["to"]
        gone, came = number_change(row["old"]["text"], row["new"]["text"])
        if not gone:
            continue
        for t in numbers:
            if cid in t.clauses and set(t.numbers) & set(gone):
                number_rows.append({"file": t.file, "line": t.line, "key": t.key, "value": t.value,
                                    "clause": cid, "now_clause": now_id,
                                    "was": sorted(set(t.numbers) & set(gone)), "now": came})
        for other in sorted(related.get(cid, ()) - {cid} - touched, key=_natural_key):
            oc = new.get(other)
            if oc is None:
                continue
            for number in gone:
                said = _states(oc.text, number, _unit_after(row["old"]["text"], number))
                if said:
                    still_old.append({
                        "clause": other, "title": oc.title, "source": oc.source, "line": oc.line,
                        "says": said, "old": number, "changed": now_id, "now": came,
                        "suggested_conflict": _suggested_conflict(now_id, row["new"]["text"], came,
                                                                  oc, said, number)})
                    break
    for m in moved_rows:                       # a data comment that names a renumbered clause
        for t in numbers:
            if m["from"] in t.clauses:
                number_rows.append({"file": t.file, "line": t.line, "key": t.key, "value": t.value,
                                    "clause": m["from"], "now_clause": m["to"], "was": [],
                                    "now": [], "renumbered": True})
    then_refs = _then_references(cases, {r["from"]: r["to"] for r in moved_rows}
                                 | {r["id"]: None for r in removed_rows})

    needs_review = bool(review_cases or review_code or review_unt or review_conf or number_rows
                        or still_old or any(a["uncovered"] for a in added_rows))
    summary = {
        "changed": len(changed_rows), "moved": len(moved_rows), "removed": len(removed_rows),
        "added": len(added_rows), "title_changed": len(title_rows),
        "uncovered_added": sum(1 for a in added_rows if a["uncovered"]),
        "new_findings": len(new_findings), "resolved_findings": len(resolved),
        "cases_to_review": len(review_cases), "code_to_review": len(review_code),
        "untestable_to_review": len(review_unt), "conflicts_to_review": len(review_conf),
        "numbers_to_review": len(number_rows), "still_stating_old": len(still_old),
        "needs_review": needs_review,
    }
    return {
        "schema": SCHEMA,
        "generated": _dt.datetime.now(_dt.timezone.utc).astimezone().isoformat(timespec="seconds"),
        "base": {"clauses": len(base)}, "new": {"clauses": len(new)},
        "summary": summary,
        "changed": changed_rows, "moved": moved_rows, "removed": removed_rows,
        "added": added_rows, "title_changed": title_rows,
        "findings": {"new": new_findings, "resolved": resolved},
        "review": {"cases": sorted(review_cases.values(), key=lambda r: (r["file"], r["line"])),
                   "code": sorted(review_code.values(), key=lambda r: (r["file"], r["line"])),
                   "untestable": review_unt,
                   "conflicts": list(review_conf.values())},
        "numbers": number_rows, "still_old": still_old, "then_references": then_refs,
        "exit": EXIT_REVIEW if needs_review else EXIT_OK,
    }


def number_change(old: str, new: str) -> tuple[list[str], list[str]]:
    """(numbers the old text says that the new one no longer does, numbers the new one adds)."""
    from conformance.rule_numbers import numbers_in
    o, n = Counter(numbers_in(old)), Counter(numbers_in(new))
    return sorted((o - n).elements(), key=_num_key), sorted((n - o).elements(), key=_num_key)


def _num_key(s: str) -> tuple:
    try:
        return (0, float(s), s)
    except ValueError:  # pragma: no cover - numbers_in gives numbers
        return (1, 0.0, s)


def _natural_key(cid: str) -> list:
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"[.:]", str(cid))]


def _unit_after(text: str, number: str) -> str | None:
    """The word after ``number`` in ``text``, folded to its stem (``4 Ép-t`` → ``ep``)."""
    m = re.search(rf"(?<![\w.-]){re.escape(number)}(?![\w.])\s*([^\W\d_][\w]*)", text or "")
    return _stem(m.group(1)) if m else None


def _stem(word: str) -> str:
    from conformance.catalog import _fold_ascii
    return _fold_ascii(word).split("-")[0]


def _states(text: str, number: str, unit: str | None) -> str | None:
    """The sentence of ``text`` that states ``number`` with the same unit (``max. 4 ÉP-t``)."""
    if not unit:
        return None
    pattern = re.compile(rf"(?<![\w.-]){re.escape(number)}(?![\w.])\s*([^\W\d_][\w]*)")
    for sentence in _SENTENCE_RE.split(" ".join((text or "").split())):
        if any(_stem(m.group(1)) == unit for m in pattern.finditer(sentence)):
            return sentence
    return None


_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-ZÁÉÍÓÖŐÚÜŰ])")


def _related(cases: list, together: Iterable[Iterable[str]], conflicts: list[dict]) -> dict[str, set]:
    """clause → the clauses cited with it (in a case's clause/also, a docstring paragraph of the
    engine, an entry of the conflicts register): the ones that speak of the same rule."""
    groups = [set([str(c.clause)] + [str(a) for a in (c.also or [])]) for c in cases]
    groups += [set(g) for g in together]
    groups += [set(_conflict_clauses(e)) for e in conflicts]
    out: dict[str, set] = {}
    for g in groups:
        for cid in g:
            out.setdefault(cid, set()).update(g)
    return out


def _suggested_conflict(changed: str, new_text: str, came: list[str], other, said: str,
                        old: str) -> str:
    """A conflicts-register entry (conformance/conflicts.yaml) to start from, as YAML text."""
    import yaml
    ident = re.sub(r"[^a-z0-9]+", "-", f"amended-{changed}-vs-{other.id}".lower()).strip("-")
    entry = {
        "id": ident, "kind": "contradiction", "clauses": [changed, other.id],
        "summary": (f"After the amendment {changed} says {', '.join(came) or 'otherwise'} where "
                    f"{other.id} still says {old}."),
        "readings": {
            "amended": {"clause": changed, "text": " ".join(new_text.split()),
                        "effect": "TODO: what the engine does under this reading",
                        "ruleset": "kodex"},
            "earlier": {"clause": other.id, "text": said,
                        "effect": "TODO: what the engine does under this reading",
                        "ruleset": f"TODO: a ruleset kodex-{ident} that keeps {old}"},
        },
        "option": f"readings.{ident}", "default": "amended",
        "why": "TODO: why the default ruleset reads it so",
    }
    text = yaml.safe_dump([entry], allow_unicode=True, sort_keys=False, width=100)
    return "\n".join("  " + ln if ln else ln for ln in text.splitlines())


def _then_references(cases: list, renamed: dict[str, str | None]) -> list[dict]:
    """Clause ids in the cases' ``then`` (``error.clause``, an event's ``clause``) that the
    amendment renumbers (``to``) or removes (``to`` None): --apply leaves them, the engine names
    them (a refusal's clause), so they change together with the code."""
    out = []

    def walk(v, ptr: str, case) -> None:
        if isinstance(v, dict):
            for k, x in v.items():
                if k in ("clause", "clauses") and isinstance(x, (str, list)):
                    for cid in ([x] if isinstance(x, str) else x):
                        if isinstance(cid, str) and cid in renamed:
                            out.append({"case": str(case.id), "file": _rel(case.file),
                                        "line": case.line, "at": f"{ptr}/{k}", "clause": cid,
                                        "to": renamed[cid]})
                else:
                    walk(x, f"{ptr}/{k}", case)
        elif isinstance(v, list):
            for i, x in enumerate(v):
                walk(x, f"{ptr}/{i}", case)

    if renamed:
        for case in cases:
            walk(case.then or {}, "/then", case)
    return out


def next_steps(d: dict) -> list[str]:
    """What to do next, in order, from the report (also the end of the summary and of
    amendment.md)."""
    steps: list[str] = []
    s = d["summary"]
    cited = [r for r in d["changed"] + d["removed"] if r["impact"]["cases"]]
    if cited:
        ids = ", ".join(r["id"] for r in cited[:8]) + (" …" if len(cited) > 8 else "")
        steps.append(f"Read the changed text and review the {s['cases_to_review']} cases citing "
                     f"{ids}: `kodex clause ID` lists them; `kodex run --clause ID` runs them.")
    for r in d["numbers"]:
        if r.get("renumbered"):
            steps.append(f"{r['file']}:{r['line']}: the comment of `{r['key']}` names "
                         f"{r['clause']}, now {r['now_clause']}: update it.")
        else:
            steps.append(f"{r['file']}:{r['line']}: `{r['key']}: {r['value']}` comes from "
                         f"{r['clause']}, which no longer says {', '.join(r['was'])}"
                         + (f" but {', '.join(r['now'])}" if r["now"] else "")
                         + ": set the value (and the cases that count on it) if the amendment is "
                           "adopted.")
    for r in d["still_old"]:
        steps.append(f"{r['clause']} ({r['source']}:{r['line']}) still says {r['old']} (\"{r['says']}\") "
                     f"where {r['changed']} now says {', '.join(r['now']) or 'otherwise'}: a new "
                     "contradiction; add the suggested entry (shown above and in amendment.md) "
                     "to conformance/conflicts.yaml, and a ruleset for the other reading.")
    moved = [m for m in d["moved"] if m["impact"]["cases"]]
    if moved and not d.get("applied"):
        pairs = ", ".join(f"{m['from']} → {m['to']}" for m in moved[:8]) + (" …" if len(moved) > 8 else "")
        n = len({c["id"] for m in moved for c in m["impact"]["cases"]})
        steps.append(f"Renumbered ({pairs}): `kodex amend {d['new'].get('dir', 'NEW_DIR')} --apply` "
                     f"rewrites clause:/also: of the {n} cases citing them.")
    elif d.get("applied"):
        steps.append(f"clause:/also: rewritten in {len({a['file'] for a in d['applied']})} files "
                     f"({len(d['applied'])} ids); review the diff (git diff conformance/corpus).")
    if d.get("then_references"):
        ids = sorted({r["clause"] for r in d["then_references"]})
        steps.append(f"{len(d['then_references'])} expectations name a renumbered or removed clause "
                     f"in then ({', '.join(ids)}): they change with the engine code that refuses "
                     "under it; update both together.")
    if d["review"]["code"]:
        files = sorted({r["file"] for r in d["review"]["code"]})
        steps.append("Update the engine where it names them: " + ", ".join(files) + ".")
    if d["review"]["untestable"] or d["review"]["conflicts"]:
        steps.append("Update the untestable and conflicts register entries naming them "
                     "(conformance/untestable/, conformance/conflicts.yaml).")
    uncovered = [a["id"] for a in d["added"] if a["uncovered"]]
    if uncovered:
        steps.append("Write a case for each added clause nothing covers ("
                     + ", ".join(uncovered[:10]) + (" …" if len(uncovered) > 10 else "")
                     + "), or list it in conformance/untestable/ with the reason.")
    amended = [f for f in d["new"].get("files", []) if f.get("status") in ("amended", "extra")]
    for f in amended:
        target = f.get("matches") or f["name"]
        steps.append(f"Vendor the text: copy {f['name']} over conformance/kodex/{target}"
                     + (f" (its source id stays {f['source_id']})" if f.get("matches") else
                        " (a new source: add it to conformance.catalog.VENDORED)") + ".")
    if steps:
        steps.append("Then `kodex check`, `kodex run -q` and `kodex amend` again until nothing is "
                     "left to review.")
    return steps


def analyse(new_dir: str | Path, base_dir: str | Path | None = None,
            corpus: Iterable[str | Path] | None = None,
            untestable_dir: str | Path | None = None,
            conflicts_path: str | Path | None = None,
            model_dir: str | Path | None = None) -> dict:
    """Load everything from the project (or the given places) and :func:`compare`."""
    from conformance.rule_numbers import traced_numbers
    from conformance.traceability import MODEL_DIR as TRACE_DIR, cited_together
    base, new, base_info, new_info = load_catalogs(new_dir, base_dir)
    cases, errors = load_corpus(corpus)
    data = compare(base, new, cases, code_references(model_dir),
                   load_untestable_entries(untestable_dir), load_conflict_entries(conflicts_path),
                   numbers=traced_numbers(model_dir, catalog=base),
                   together=cited_together(Path(model_dir) if model_dir is not None else TRACE_DIR))
    data["base"] = {**base_info, **data["base"]}
    data["new"] = {**new_info, **data["new"]}
    data["corpus"] = {"cases": len(cases), "errors": errors,
                      "paths": [str(p) for p in (corpus or [CORPUS_DIR])]}
    _name_new_sources(data)
    data["next_steps"] = next_steps(data)
    return data


def apply_renumbering(d: dict, paths: Iterable[str | Path] | None = None) -> list[dict]:
    """``--apply``: rewrite the ``clause:`` and ``also:`` of the cases that cite a renumbered
    clause (``moved``), in place, keeping each file as it is written but for those ids.
    Every file is rewritten in memory and loaded again first; only when all of them load
    without a new error are they written (each atomically), so nothing is half-applied.
    Returns ``[{"file", "line", "case", "field", "from", "to"}]``."""
    import yaml
    from yaml.nodes import MappingNode, ScalarNode, SequenceNode

    from conformance import atomicio
    from conformance.loader import Loader, load_text
    renamed = {m["from"]: m["to"] for m in d["moved"]}
    if not renamed:
        return []
    plans: list[tuple[Path, str, list[dict]]] = []
    for path in case_files([Path(p) for p in (paths or [CORPUS_DIR])]):
        try:
            text = _read(path).decode("utf-8")
            root = yaml.compose(text, Loader=Loader)
        except (OSError, UnicodeDecodeError, yaml.YAMLError, AmendmentInputError):
            continue                      # not a readable case file: load_corpus reported it
        if not isinstance(root, MappingNode):
            continue
        spots: list[tuple[ScalarNode, str, str, str]] = []      # node, case id, field, new id
        for key, value in root.value:
            if getattr(key, "value", None) != "cases" or not isinstance(value, SequenceNode):
                continue
            for case in value.value:
                if not isinstance(case, MappingNode):
                    continue
                fields = {getattr(k, "value", None): v for k, v in case.value}
                cid = getattr(fields.get("id"), "value", "?")
                node = fields.get("clause")
                if isinstance(node, ScalarNode) and node.value in renamed:
                    spots.append((node, cid, "clause", renamed[node.value]))
                also = fields.get("also")
                if isinstance(also, SequenceNode):
                    for item in also.value:
                        if isinstance(item, ScalarNode) and item.value in renamed:
                            spots.append((item, cid, "also", renamed[item.value]))
        if not spots:
            continue
        out, pos, rows = [], 0, []
        for node, cid, field, to in sorted(spots, key=lambda t: t[0].start_mark.index):
            start, end = node.start_mark.index, node.end_mark.index
            quote = "'" if node.style == "'" else '"'
            out.append(text[pos:start] + f"{quote}{to}{quote}")
            pos = end
            rows.append({"file": _rel(path), "line": node.start_mark.line + 1, "case": cid,
                         "field": field, "from": node.value, "to": to})
        new_text = "".join(out) + text[pos:]
        before = {str(e) for e in load_text(text, str(path), catalog=False).errors}
        after = [str(e) for e in load_text(new_text, str(path), catalog=False).errors
                 if str(e) not in before]
        if after:
            raise AmendmentInputError(f"{path}: --apply would break it ({after[0]}); nothing "
                                      "was rewritten")
        plans.append((path, new_text, rows))
    applied: list[dict] = []
    for path, new_text, rows in plans:
        atomicio.write_text(path, new_text)
        applied += rows
    return applied


def _name_new_sources(d: dict) -> None:
    """The new side of each clause names the amended document as the user called it (the
    catalog was built from copies under the vendored names)."""
    names = {f["matches"]: f["name"] for f in d["new"].get("files", [])
             if f.get("matches") and f.get("status") != "unchanged"}
    for row in d["changed"] + d["moved"] + d["added"]:
        side = row.get("new")
        if isinstance(side, dict) and side.get("source") in names:
            side["source"] = names[side["source"]]


# --------------------------------------------------------------------------
# output

def _rel(path) -> str:
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except (ValueError, OSError):
        return str(path)


def _label(row: dict) -> str:
    """``Semmi`` / ``↳ Semmi`` (an ancestor's title) / the section title."""
    if row.get("title"):
        return row["title"]
    if row.get("heading"):
        return "↳ " + row["heading"]
    return row.get("section_title") or ""


def _section(row: dict) -> str:
    from reports.coverage import section_label
    return section_label(row.get("section", ""), row.get("section_title"))


def _refs(imp: dict) -> str:
    bits = []
    if imp["cases"]:
        bits.append(f"{len(imp['cases'])} case{'s' if len(imp['cases']) != 1 else ''}")
    files = sorted({c["file"] for c in imp["code"]})
    if files:
        bits.append(", ".join(files))
    if imp["untestable"]:
        bits.append("untestable")
    if imp["conflicts"]:
        bits.append("conflicts: " + ", ".join(str(c["id"]) for c in imp["conflicts"]))
    return "; ".join(bits) or "—"


def _diff_text(ops: list[dict], context: int = 6, styled: bool = True):
    """The word diff as rich Text: struck red / bold green, or without colours
    the ``[-deleted-]{+inserted+}`` markup."""
    from rich.text import Text
    if not styled:
        return Text(word_diff_text(ops, context))
    t = Text()
    for i, op in enumerate(ops):
        if t:
            t.append(" ")
        if op["op"] == "equal":
            where = "start" if i == 0 else "end" if i == len(ops) - 1 else "middle"
            t.append(_clip(op["old"], context, where), style="dim")
            continue
        if op["old"]:
            t.append(op["old"], style="red strike")
        if op["old"] and op["new"]:
            t.append(" ")
        if op["new"]:
            t.append(op["new"], style="bold green")
    return t


def render(d: dict, console=None) -> None:
    """The rich summary (Hungarian clause titles)."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    console = console or Console(highlight=False)
    styled = console.color_system is not None
    s = d["summary"]
    console.print(Text(f"Kódex amendment: {d['base'].get('dir', 'base')} → {d['new'].get('dir', 'new')}",
                       style="bold"))
    for f in d["new"].get("files", []):
        if f.get("status") != "unchanged":
            into = f" → {f['matches']}" if f.get("matches") and f["matches"] != f["name"] else ""
            console.print(Text(f"  {f['name']}{into}: {f['status']}", style="dim"))
    counts = Text()
    for key, label, style in (("changed", "changed", "yellow"), ("moved", "moved", "cyan"),
                              ("removed", "removed", "red"), ("added", "added", "green"),
                              ("title_changed", "title changes", "")):
        if counts:
            counts.append(", ")
        counts.append(f"{s[key]} {label}", style=style if s[key] else "dim")
    console.print(counts)

    if d["changed"]:
        t = Table(title="Changed text (same id)", show_lines=False)
        for col in ("id", "cím", "szakasz", "cited by"):
            t.add_column(col, overflow="fold")
        for r in d["changed"]:
            t.add_row(escape(r["id"]), escape(_label(r)), escape(_section(r)), escape(_refs(r["impact"])),
                      style="bold" if r["needs_review"] else None)
        console.print(t)
        for r in d["changed"]:
            head = Text(f"{r['id']}", style="bold")
            if _label(r):
                head.append(f"  {_label(r)}")
            console.print(head)
            line = Text("  ")
            line.append_text(_diff_text(r["diff"], styled=styled))
            console.print(line)
    if d["moved"]:
        t = Table(title="Renumbered (moved)")
        for col in ("from", "to", "cím", "match", "cited by"):
            t.add_column(col, overflow="fold")
        for r in d["moved"]:
            m = r["match"] if r["match"] == "exact" else f"similar {r['similarity']:.2f}"
            t.add_row(escape(r["from"]), escape(r["to"]), escape(_label(r)), m,
                      escape(_refs(r["impact"])))
        console.print(t)
        for r in d["moved"]:
            if r.get("diff"):
                line = Text(f"  {r['from']} → {r['to']}: ")
                line.append_text(_diff_text(r["diff"], styled=styled))
                console.print(line)
    if d["removed"]:
        t = Table(title="Removed")
        for col in ("id", "cím", "szakasz", "cited by"):
            t.add_column(col, overflow="fold")
        for r in d["removed"]:
            t.add_row(escape(r["id"]), escape(_label(r)), escape(_section(r)), escape(_refs(r["impact"])))
        console.print(t)
    if d["added"]:
        t = Table(title="Added")
        for col in ("id", "cím", "szakasz", "covered"):
            t.add_column(col, overflow="fold")
        for r in d["added"]:
            cb = r["covered_by"]
            if r["uncovered"]:
                cov = "[yellow]nothing covers it yet[/]"
            elif not (r["new"]["text"] or "").strip():
                cov = "heading"
            else:
                cov = escape(f"{len(cb['cases'])} cases" if cb["cases"] else "untestable")
            if r["reuses_id"]:
                cov += escape(" (reuses a moved clause's id)")
            t.add_row(escape(r["id"]), escape(_label(r)), escape(_section(r)), cov)
        console.print(t)
    if d["title_changed"]:
        t = Table(title="Title changes")
        for col in ("id", "old", "new", "cases"):
            t.add_column(col, overflow="fold")
        for r in d["title_changed"]:
            t.add_row(escape(r["id"]), escape(r["old_title"] or "—"), escape(r["new_title"] or "—"),
                      str(r["cases"]))
        console.print(t)
    fn = d["findings"]
    if fn["new"]:
        console.print(Text(f"{len(fn['new'])} new parse finding(s) in the amended text:", style="yellow"))
        for f in fn["new"]:
            console.print(Text(f"  {f['kind']:20} {f['clause'] or '':12} {f['source']}:{f['line']}  "
                               f"{f['message']}"), soft_wrap=True)
    if fn["resolved"]:
        console.print(Text(f"{len(fn['resolved'])} finding(s) of the base text are gone", style="dim"))

    rv = d["review"]
    if rv["cases"]:
        t = Table(title=f"{len(rv['cases'])} cases to review")
        for col in ("case", "cites", "at"):
            t.add_column(col, overflow="fold")
        for r in rv["cases"]:
            t.add_row(escape(r["id"]), escape(", ".join(r["clauses"])), escape(f"{r['file']}:{r['line']}"))
        console.print(t)
    if rv["code"]:
        console.print(Text("engine code naming them:", style="bold"))
        for r in rv["code"]:
            console.print(Text(f"  {r['file']}:{r['line']} ({r['how']})  {', '.join(r['clauses'])}"))
    for r in rv["untestable"]:
        console.print(Text(f"untestable entry {r['clause']} in {r['file']}: {r['reason']}"),
                      soft_wrap=True)
    for r in rv["conflicts"]:
        console.print(Text(f"conflicts register entry {r['id']}: {', '.join(r['clauses'])}"))
    if d.get("numbers"):
        t = Table(title="Numbers of the rulesets and data files whose clause changed")
        for col in ("where", "key", "value", "clause", "now says"):
            t.add_column(col, overflow="fold")
        for r in d["numbers"]:
            now = (f"renumbered {r['now_clause']}" if r.get("renumbered")
                   else ", ".join(r["now"]) or "(no number)")
            t.add_row(escape(f"{r['file']}:{r['line']}"), escape(r["key"]), escape(r["value"]),
                      escape(r["clause"]), escape(now))
        console.print(t)
    for r in d.get("still_old") or []:
        console.print(Text(f"{r['clause']} ({r['source']}:{r['line']}) still says {r['old']} where "
                           f"{r['changed']} now says {', '.join(r['now']) or 'otherwise'}:",
                           style="bold yellow"), soft_wrap=True)
        console.print(Text(f"  „{r['says']}”", style="dim"), soft_wrap=True)
        console.print(Text("  suggested conflicts-register entry (conformance/conflicts.yaml):",
                           style="dim"))
        console.print(Text(r["suggested_conflict"]), soft_wrap=True)
    for r in d.get("applied") or []:
        console.print(Text(f"rewritten {r['file']}:{r['line']} {r['case']} {r['field']}: "
                           f"{r['from']} → {r['to']}", style="green"), soft_wrap=True)
    if d.get("corpus", {}).get("errors"):
        console.print(Text(f"({len(d['corpus']['errors'])} input errors in the corpus; "
                           "see `kodex check`)", style="red"))
    if s["needs_review"]:
        console.print(Text(
            f"review needed: {s['cases_to_review']} cases, {s['code_to_review']} code sites, "
            f"{s['untestable_to_review']} untestable entries, {s['conflicts_to_review']} conflicts, "
            f"{s.get('numbers_to_review', 0)} ruleset numbers, {s.get('still_stating_old', 0)} "
            f"sources still stating the old rule, {s['uncovered_added']} added clauses no case "
            "covers", style="bold red"), soft_wrap=True)
    else:
        console.print(Text("nothing cited changed", style="bold green"))
    if d.get("next_steps"):
        console.print(Text("Next steps:", style="bold"))
        for i, step in enumerate(d["next_steps"], 1):
            console.print(Text(f"  {i}. {step}"), soft_wrap=True)


def _md(s: Any) -> str:
    return " ".join(str(s if s is not None else "").split()).replace("|", "\\|")


def _md_diff(ops: list[dict]) -> str:
    parts = []
    for i, op in enumerate(ops):
        if op["op"] == "equal":
            where = "start" if i == 0 else "end" if i == len(ops) - 1 else "middle"
            parts.append(_md(_clip(op["old"], 6, where)))
        else:
            if op["old"]:
                parts.append(f"~~{_md(op['old'])}~~")
            if op["new"]:
                parts.append(f"**{_md(op['new'])}**")
    return " ".join(parts)


def _md_impact(imp: dict) -> list[str]:
    lines = []
    for c in imp["cases"]:
        lines.append(f"  - case `{c['id']}` ({c['role']}) — {c['file']}:{c['line']}")
    for c in imp["code"]:
        lines.append(f"  - code {c['file']}:{c['line']} ({c['how']})")
    for u in imp["untestable"]:
        lines.append(f"  - untestable entry in {u['file']}: {_md(u['reason'])}")
    for c in imp["conflicts"]:
        lines.append(f"  - conflicts register `{c['id']}` ({c['where']})")
    return lines


def to_markdown(d: dict) -> str:
    s = d["summary"]
    out = ["# Kódex amendment", "",
           f"Base `{d['base'].get('dir', '')}` → amended `{d['new'].get('dir', '')}`; "
           f"generated {d['generated']}.", ""]
    files = [f for f in d["new"].get("files", []) if f.get("status") != "unchanged"]
    if files:
        out += [", ".join(f"`{f['name']}`" + (f" → `{f['matches']}`" if f.get("matches")
                                              and f["matches"] != f["name"] else "")
                          + f" {f['status']}" for f in files), ""]
    out += ["| changed | moved | removed | added | title changes | new findings | cases to review |",
            "|---:|---:|---:|---:|---:|---:|---:|",
            f"| {s['changed']} | {s['moved']} | {s['removed']} | {s['added']} | {s['title_changed']} "
            f"| {s['new_findings']} | {s['cases_to_review']} |", ""]
    out.append("**Review needed.**" if s["needs_review"] else "**Nothing cited changed.**")
    out.append("")
    if d["changed"]:
        out += ["## Changed text", ""]
        for r in d["changed"]:
            out.append(f"### {r['id']} — {_md(_label(r))} ({_md(_section(r))})")
            out += ["", _md_diff(r["diff"]), ""]
            out += _md_impact(r["impact"]) or ["  - nothing cites it"]
            out.append("")
    if d["moved"]:
        out += ["## Renumbered", "", "| from | to | cím | match | cited by |", "|---|---|---|---|---|"]
        for r in d["moved"]:
            m = r["match"] if r["match"] == "exact" else f"similar {r['similarity']:.2f}"
            out.append(f"| {r['from']} | {r['to']} | {_md(_label(r))} | {m} | {_md(_refs(r['impact']))} |")
        out.append("")
        for r in d["moved"]:
            lines = _md_impact(r["impact"])
            if lines or r.get("diff"):
                out.append(f"- **{r['from']} → {r['to']}**"
                           + (f": {_md_diff(r['diff'])}" if r.get("diff") else ""))
                out += lines
        out.append("")
    if d["removed"]:
        out += ["## Removed", ""]
        for r in d["removed"]:
            out.append(f"- **{r['id']}** — {_md(_label(r))} ({_md(_section(r))})")
            out += _md_impact(r["impact"])
        out.append("")
    if d["added"]:
        out += ["## Added", "", "| id | cím | szakasz | covered |", "|---|---|---|---|"]
        for r in d["added"]:
            cb = r["covered_by"]
            cov = ("**nothing covers it yet**" if r["uncovered"] else
                   "heading" if not (r["new"]["text"] or "").strip() else
                   f"{len(cb['cases'])} cases" if cb["cases"] else "untestable")
            if r["reuses_id"]:
                cov += " (reuses a moved clause's id)"
            out.append(f"| {r['id']} | {_md(_label(r))} | {_md(_section(r))} | {cov} |")
        out.append("")
    if d["title_changed"]:
        out += ["## Title changes", "", "| id | old | new | cases |", "|---|---|---|---:|"]
        for r in d["title_changed"]:
            out.append(f"| {r['id']} | {_md(r['old_title'] or '—')} | {_md(r['new_title'] or '—')} "
                       f"| {r['cases']} |")
        out.append("")
    if d["findings"]["new"] or d["findings"]["resolved"]:
        out += ["## Parse findings", ""]
        for f in d["findings"]["new"]:
            out.append(f"- new: `{f['kind']}` {f['clause']} — {_md(f['message'])} ({f['source']}:{f['line']})")
        for f in d["findings"]["resolved"]:
            out.append(f"- gone: `{f['kind']}` {f['clause']} — {_md(f['message'])}")
        out.append("")
    if d.get("numbers"):
        out += ["## Numbers of the rulesets and data files", "",
                "| where | key | value | clause | now says |", "|---|---|---|---|---|"]
        for r in d["numbers"]:
            now = (f"renumbered {r['now_clause']}" if r.get("renumbered")
                   else ", ".join(r["now"]) or "(no number)")
            out.append(f"| {r['file']}:{r['line']} | `{r['key']}` | {_md(r['value'])} | "
                       f"{r['clause']} | {_md(now)} |")
        out.append("")
    if d.get("still_old"):
        out += ["## Sources still stating the old rule", ""]
        for r in d["still_old"]:
            out += [f"- **{r['clause']}** ({r['source']}:{r['line']}) still says {r['old']} where "
                    f"{r['changed']} now says {', '.join(r['now']) or 'otherwise'}: „{_md(r['says'])}”",
                    "", "  Suggested conflicts-register entry:", "", "  ```yaml",
                    *["  " + ln for ln in r["suggested_conflict"].splitlines()], "  ```", ""]
    if d.get("applied"):
        out += ["## Rewritten by --apply", "", "| file | case | field | from | to |",
                "|---|---|---|---|---|"]
        for r in d["applied"]:
            out.append(f"| {r['file']}:{r['line']} | `{r['case']}` | {r['field']} | {r['from']} | "
                       f"{r['to']} |")
        out.append("")
    rv = d["review"]
    if rv["cases"]:
        out += ["## Cases to review", "", "| case | cites | file |", "|---|---|---|"]
        for r in rv["cases"]:
            out.append(f"| `{r['id']}` | {', '.join(r['clauses'])} | {r['file']}:{r['line']} |")
        out.append("")
    if rv["code"]:
        out += ["## Code to review", ""]
        for r in rv["code"]:
            out.append(f"- {r['file']}:{r['line']} ({r['how']}): {', '.join(r['clauses'])}")
        out.append("")
    if d.get("next_steps"):
        out += ["## Next steps", ""] + [f"{i}. {_md(x)}" for i, x in enumerate(d["next_steps"], 1)]
    return "\n".join(out).rstrip() + "\n"


def write_reports(d: dict, out_dir: str | Path | None = None) -> tuple[Path, Path]:
    """Write ``amendment.md`` and ``amendment.json`` (default directory: ``reports/`` of
    the working directory, never the installed package's) as a pair, atomically
    (``conformance.atomicio.write_pair``: the Markdown names the JSON's SHA-256)."""
    from conformance.atomicio import write_pair
    out = Path(out_dir) if out_dir is not None else Path("reports")
    return write_pair(out / "amendment.md", to_markdown(d), out / "amendment.json", d)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kodex amend",
                                description="what an amended Kódex changes and which cases, "
                                            "code and registers must be reviewed")
    p.add_argument("new_dir", metavar="NEW_DIR",
                   help="directory with the amended documents (file names as conformance/kodex/)")
    p.add_argument("--base", metavar="DIR", help="the documents before the amendment "
                                                 "(default: conformance/kodex)")
    p.add_argument("--json", metavar="FILE", help="also write the JSON to FILE ('-': stdout, "
                                                  "instead of the summary)")
    p.add_argument("--out", metavar="DIR", help="where amendment.md and amendment.json go "
                                                "(default: reports)")
    p.add_argument("--corpus", metavar="PATH", action="append",
                   help="case files or directories (default: conformance/corpus); repeatable")
    p.add_argument("--apply", action="store_true",
                   help="rewrite clause:/also: of the cases citing a renumbered clause (in place; "
                        "every file checked before any is written)")
    return p


def main(argv: list[str] | None = None) -> int:
    p = build_parser()
    try:
        args = p.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0) if not isinstance(exc.code, str) else EXIT_INPUT
    try:
        d = analyse(args.new_dir, args.base, args.corpus)
        if args.apply:
            d["applied"] = apply_renumbering(d, args.corpus)
            d["next_steps"] = next_steps(d)
    except AmendmentInputError as exc:
        for line in str(exc).splitlines():
            print(f"kodex amend: {line}", file=sys.stderr)
        return EXIT_INPUT
    md, js = write_reports(d, args.out)
    if args.json == "-":
        sys.stdout.write(json.dumps(d, ensure_ascii=False, indent=2, default=str) + "\n")
    else:
        from rich.console import Console
        from rich.text import Text
        console = Console(highlight=False)
        if not console.is_terminal:
            console = Console(highlight=False, width=max(console.width, 120))
        render(d, console)
        if args.json:
            from conformance.atomicio import write_json
            write_json(args.json, d)
        console.print(Text(f"written: {md}, {js}" + (f", {args.json}" if args.json else ""),
                           style="dim"))
    return int(d["exit"])


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
