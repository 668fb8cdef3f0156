"""The one YAML loader of the kit: the safe loader, LibYAML's where present (never a loader that
builds arbitrary objects). Everything that reads YAML takes it from here (or from
``conformance.loader``, which re-exports it for the case files)."""
from __future__ import annotations

import yaml

Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

__all__ = ["Loader"]
