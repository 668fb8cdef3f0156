"""The module graph: no import cycles anywhere in the project, and the engine stands alone.

Imports are read with `ast` (also those inside functions), so a cycle hidden behind a
late import is found too. `model/` must not import the harness (`conformance`,
`properties`, `reports`); `properties/blackbox.py` must not import `model`.
"""
from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("model", "conformance", "properties", "reports")


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


@lru_cache(maxsize=1)
def _graph() -> dict[str, frozenset[str]]:
    """module -> the project modules it imports (read once per test process)."""
    modules = {}
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            modules[_module_name(path)] = path
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        deps: set[str] = set()
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    mod = ".".join(base + ([node.module] if node.module else []))
                else:
                    mod = node.module or ""
                targets = [mod] + [f"{mod}.{a.name}" for a in node.names]
            for t in targets:
                while t and t not in modules:
                    t = t.rpartition(".")[0]
                if t and t != name and t in modules and not t.endswith("__init__"):
                    if modules[t].name != "__init__.py":
                        deps.add(t)
        graph[name] = frozenset(deps)
    return graph


def test_no_import_cycles():
    graph = _graph()
    state: dict[str, int] = {}
    cycles = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == 1:
                cycles.append(stack[stack.index(dep):] + [dep])
            elif dep not in state:
                visit(dep, stack + [dep])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    assert not cycles, cycles


def test_engine_does_not_import_the_harness():
    graph = _graph()
    for name, deps in graph.items():
        if name.startswith("model"):
            bad = [d for d in deps if not d.startswith("model")]
            assert not bad, f"{name} imports {bad}"


def test_blackbox_fuzzer_does_not_import_the_engine():
    deps = _graph()["properties.blackbox"]
    assert not [d for d in deps if d.startswith("model")], deps


def test_bare_state_changes_are_reached_only_through_the_rules():
    """Issue 29: the bare mutator of a player's Ép (`resources.raise_player_hp`: no 99.1
    prohibition, no replacement, no modifier) is called by damage.heal alone; rule code heals
    through damage.heal or the effect dispatcher."""
    import re
    callers = []
    for f in sorted((ROOT / "model").glob("*.py")):
        text = f.read_text(encoding="utf-8")
        for m in re.finditer(r"raise_player_hp\(", text):
            line = text[:m.start()].rsplit("\n", 1)[-1]
            if not line.lstrip().startswith("def "):
                callers.append(f.name)
    assert callers == ["damage.py"], callers


def test_the_engine_keeps_speed_machinery_out_of_rule_code():
    """Issue 29: garbage-collector tuning, forked workers, threads and signals belong to the harness
    (conformance/, properties/), never to the rules in model/."""
    banned = {"gc", "multiprocessing", "threading", "signal", "subprocess", "concurrent", "os"}
    found = []
    for path in sorted((ROOT / "model").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            found += [(path.name, n) for n in names if n.split(".")[0] in banned]
    assert found == []
