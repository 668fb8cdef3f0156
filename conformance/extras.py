"""The optional commands and the extra of the distribution each needs.

``pip install hkk-kodex`` (no extras) installs what a client author uses — ``kodex run``,
``check``, ``serve``, ``coverage``, ``diff``, ``merge``, ``report``, ``amend``, ``clause``,
``clauses``, ``explain`` — and none of Z3, Hypothesis, pytest or cosmic-ray. The commands below
need one extra each (``[project.optional-dependencies]`` of pyproject.toml;
tests/test_lean_install.py checks the two agree). Asked for without it, a command says which
extra to install, in one line, and exits 2 (:func:`missing`); nothing is imported to find out.
"""
from __future__ import annotations

import importlib.util

DISTRIBUTION = "hkk-kodex"

# command -> (the extra, the module the extra installs and the command imports)
NEEDS: dict[str, tuple[str, str]] = {
    "prove": ("prove", "z3"),
    "fuzz": ("fuzz", "hypothesis"),
    "strength": ("strength", "cosmic_ray"),
}


def install_hint(command: str) -> str:
    extra = NEEDS[command][0]
    return f"kodex {command}: needs the extra [{extra}]: pip install '{DISTRIBUTION}[{extra}]'"


def missing(command: str, error: ImportError | None = None) -> str | None:
    """The one-line message when ``command`` needs an extra that is not installed, else None.

    Without ``error``: whether the extra's module can be found (not imported). With the
    ``ImportError`` the command's import raised: whether it is that module that is missing (any
    other import error is the kit's own fault and is not blamed on the extra)."""
    if command not in NEEDS:
        return None
    module = NEEDS[command][1]
    if error is not None:
        name = getattr(error, "name", None) or ""
        return install_hint(command) if name.split(".")[0] == module else None
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):          # a finder that refuses the name: not there either
        found = False
    return None if found else install_hint(command)
