"""A function or class of the kit's code named the way ``kodex strength`` names it:
``module:Class.function`` (``model.shapes:check_lasting``, ``model.engine:Outcome.events``).
Read with ``ast``, never imported: the equivalence file's ``unused`` claims
(properties/strength.py) and the input probes' ``checks`` (properties/strength_probes.py)
ask it of the code as it is on disk."""
from __future__ import annotations

import ast
from pathlib import Path


def qualified_defs(tree: ast.AST) -> dict[str, ast.AST]:
    """Qualified name (as ``ClauseMap`` names scopes: ``Class.method``) → def or class node."""
    out: dict[str, ast.AST] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out[prefix + child.name] = child
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)
    visit(tree, "")
    return out


def defines(where: str, root: Path) -> bool:
    """True when ``where`` (``module:Class.function``) names a def or class of the module's
    source under ``root`` (the folder holding the packages: ``model/shapes.py`` for
    ``model.shapes``, ``model/__init__.py`` for ``model``)."""
    module, _, qual = where.partition(":")
    base = Path(root, *module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            try:
                tree = ast.parse(path.read_text(encoding="utf-8"))
            except (OSError, SyntaxError, ValueError):
                return False
            return qual in qualified_defs(tree)
    return False


__all__ = ["defines", "qualified_defs"]
