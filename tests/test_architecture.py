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
