"""The kit's import names, and a module of the user's that would take one's place.

The kit installs four top-level packages under their own generic names — ``model``,
``conformance``, ``properties``, ``reports`` (the folders of the design; moving them under one
package would rewrite every import of the kit). A module of the same name that comes earlier on
the import path — a user's ``model.py`` or ``reports/__init__.py`` in the working directory under
``python -m conformance``, a directory on ``PYTHONPATH`` — would be imported in place of the kit's
and fail far from the cause. :func:`shadowed` finds such a module before anything imports it,
by where the import system would find each name (``importlib.util.find_spec``: nothing is
imported), and :func:`message` says which file shadows which package and what to do. The
``kodex`` command line checks it first thing (conformance/cli.py ``main``, exit 2), the pytest
plugin before it runs a case in-process. What is left over — a ``conformance`` of the user's
itself, another distribution installing a package of one of these names into the same
environment — is in the README ("Installing it").
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

PACKAGES = ("model", "conformance", "properties", "reports")
HOME = Path(__file__).resolve().parent.parent      # the directory that holds the kit's packages


def _origin(name: str) -> str | None:
    mod = sys.modules.get(name)
    if mod is not None:
        return getattr(mod, "__file__", None)
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    return spec.origin if spec is not None and spec.has_location else None


def shadowed() -> list[tuple[str, Path]]:
    """(package, the file that would be imported for it) for each kit package that another
    module would replace; [] when every name leads to the kit's own package."""
    out = []
    for name in PACKAGES:
        own = HOME / name / "__init__.py"
        if not own.is_file():
            continue
        origin = _origin(name)
        if origin is None:            # nothing else found; the import would fail on its own
            continue
        path = Path(origin).resolve()
        if path != own.resolve():
            out.append((name, path))
    return out


def message(found: list[tuple[str, Path]]) -> str:
    """One line for the user: which file shadows which package, and what to do."""
    parts = [f"{path} shadows the kit's package '{name}' ({HOME / name})" for name, path in found]
    return ("; ".join(parts) + ": rename or move it, or take its directory off the import path "
            "(PYTHONPATH; python -m puts the working directory first: use the kodex command)")
