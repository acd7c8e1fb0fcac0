"""The package's shape, counted: what issue 42 asks to report before and after a redesign.

For a checkout (default: this one; ``--root DIR`` another, e.g. a ``git worktree`` of an
older commit): the modules at the top of ``fsengine/`` and in all, the import circles
over every import statement (those inside functions too), the longest functions and the
largest parameter lists, the distinct literal keys of ``st.session_state`` in the
dashboard and the README's lines. Static: nothing is imported or run.

    .venv/bin/python benchmarks/house.py [--root DIR] [--json]
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _modules(package: Path) -> dict[str, Path]:
    """Dotted name -> file of every module of the package."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imports(module: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules this one imports, anywhere in it."""
    out = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    package.split(".")[: len(package.split(".")) - node.level + 1]
                    + ([base] if base else [])
                )
            submodules = [f"{base}.{alias.name}" for alias in node.names]
            # ``from pkg import submodule`` imports the submodule; a name, the module itself
            names = submodules + ([base] if not all(n in known for n in submodules) else [])
        else:
            continue
        out.update(name for name in names if name in known and name != module)
    return out


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for v in graph:
        if v not in index:
            visit(v)
    return out


def _functions(paths, root: Path):
    """(lines, parameters, name) of every function and method."""
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = node.args
                count = len(args.posonlyargs) + len(args.args) + len(args.kwonlyargs)
                count -= bool(args.args and args.args[0].arg in ("self", "cls"))
                lines = node.end_lineno - node.lineno + 1
                yield lines, count, f"{path.relative_to(root)}:{node.name}"


def _session_keys(paths) -> set[str]:
    """String literals used as keys of ``st.session_state`` (subscripts, get, pop, in)."""
    keys = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            target = None
            if isinstance(node, ast.Subscript):
                target, key = node.value, node.slice
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr in ("get", "pop", "setdefault") and node.args:
                    target, key = node.func.value, node.args[0]
            elif isinstance(node, ast.Compare) and isinstance(node.ops[0], (ast.In, ast.NotIn)):
                target, key = node.comparators[0], node.left
            if (
                target is not None
                and isinstance(target, ast.Attribute)
                and target.attr == "session_state"
                and isinstance(key, ast.Constant)
                and isinstance(key.value, str)
            ):
                keys.add(key.value)
    return keys


def count(root: Path) -> dict:
    """Every figure of the report for the checkout at ``root``."""
    package = root / "fsengine"
    modules = _modules(package)
    known = set(modules)
    graph = {m: _imports(m, p, known) for m, p in modules.items()}
    top = sorted(
        p.name + ("/" if p.is_dir() else "")
        for p in package.iterdir()
        if (p.suffix == ".py" or (p / "__init__.py").exists())
        and p.name != "__init__.py"
        and p.name != "__main__.py"
    )
    functions = sorted(_functions(modules.values(), root), reverse=True)
    front = [p for d in ("dashboard", "views") for p in (root / d).rglob("*.py")]
    front += [root / "app.py"]
    readme = root / "README.md"
    return {
        "top_level": top,
        "modules": len(modules),
        "import_circles": _circles(graph),
        "longest_functions": [(n, name) for n, _, name in functions[:5]],
        "functions_over_100_lines": sum(1 for n, _, _ in functions if n > 100),
        "largest_parameter_lists": sorted(((c, name) for _, c, name in functions), reverse=True)[
            :5
        ],
        "session_state_keys": len(_session_keys([p for p in front if p.exists()])),
        "readme_lines": len(readme.read_text(encoding="utf-8").splitlines()),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="a checkout (default: this)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    figures = count(args.root.resolve())
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    for key, value in figures.items():
        if isinstance(value, list) and value and isinstance(value[0], (list, tuple)):
            print(f"{key}:")
            for item in value:
                print(f"  {item}")
        else:
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
