"""Combat (rb7:harci-fazis I–VII, 110, 129, 131): written under issue 4."""
from __future__ import annotations

ACTIONS: dict = {}
