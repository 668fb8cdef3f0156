"""Clause → code: which engine module says it implements a clause.

Every rule module of `model/` names the clauses it covers in its docstring
(the module's own and its functions'). This module reads those docstrings
(with `ast`, never importing the engine) and collects the clause ids that the
catalog knows, so `kodex clause ID` can show clause → code → cases in one
step, and a test can check that no module cites a clause that does not exist.
"""
from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

MODEL_DIR = Path(__file__).resolve().parent.parent / "model"
_ID = re.compile(r"(?<![\w.:-])(rb7:[a-z0-9-]+(?:\.[IVX]+)?|mk:\d+\.\d+(?:\.[A-Z](?:\.\d+)?)?|\d{1,3}(?:\.\d+){1,4})(?![\w])")


def _docstrings(path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out = []
    for node in [tree, *ast.walk(tree)]:
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                line = node.body[0].lineno if node.body else 1
                out.append((doc, line))
    return out


def cited_ids(text: str) -> list[str]:
    """Clause-like ids in a text ("4.8.4", "rb7:jelzo", "mk:5.10.G"); ranges "118.1–118.3" give both ends."""
    return [m.group(1).rstrip(".") for m in _ID.finditer(text)]


@lru_cache(maxsize=None)
def code_citations(model_dir: Path = MODEL_DIR) -> dict[str, list[tuple[str, int]]]:
    """clause id → [(module file, line)] for every id cited in a docstring of model/."""
    found: dict[str, list[tuple[str, int]]] = {}
    for path in sorted(model_dir.glob("*.py")):
        for doc, line in _docstrings(path):
            for cid in cited_ids(doc):
                spots = found.setdefault(cid, [])
                where = (f"model/{path.name}", line)
                if where not in spots:
                    spots.append(where)
    return found


def modules_for(clause_id: str) -> list[tuple[str, int]]:
    return code_citations().get(clause_id, [])


_PARAGRAPH_RE = re.compile(r"\n\s*\n|\n\s*(?=- )")


@lru_cache(maxsize=None)
def cited_together(model_dir: Path = MODEL_DIR) -> tuple[frozenset[str], ...]:
    """The sets of clause ids one docstring paragraph (or list item) of model/ cites together:
    the engine's own word that those clauses speak of one rule (``- regeneration: 136.6 …,
    136.7 …, rb7:regeneralodas``). ``kodex amend`` reads a clause's neighbours from them."""
    out = []
    for path in sorted(model_dir.glob("*.py")):
        for doc, _line in _docstrings(path):
            for para in _PARAGRAPH_RE.split(doc):
                ids = frozenset(cited_ids(para))
                if len(ids) > 1:
                    out.append(ids)
    return tuple(out)
