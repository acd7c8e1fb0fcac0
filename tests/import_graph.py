"""The import graph of a checkout, read from its sources (nothing is imported): which
module imports which, in any statement, anywhere (those inside functions too), and the
circles in it. Shared by tests/unit/test_layers.py and benchmarks/house.py, so that the
circles a report counts are the ones the test forbids."""

from __future__ import annotations

import ast
from pathlib import Path


def modules(root: Path, *folders: Path) -> dict[str, Path]:
    """Dotted name (relative to ``root``) -> file, for every module under ``folders``
    (folders, or single files such as app.py)."""
    found = {}
    for folder in folders:
        paths = [folder] if folder.suffix == ".py" else sorted(folder.rglob("*.py"))
        for path in paths:
            parts = path.relative_to(root).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of ``known`` that ``path`` imports, in any statement, anywhere (a
    ``from a import b`` names a.b when that is a module, else a)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name:
                found.add(name)
    return found


def edges(known: dict[str, Path]) -> dict[str, set[str]]:
    """Importer -> imported modules. A package importing its parts counts; a part naming
    its own package does not (importing a part imports its package first anyway)."""
    return {
        module: {
            other
            for other in imports(path, known)
            if other != module and not (module.startswith(other + ".") and other != "fsengine")
        }
        for module, path in known.items()
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found
