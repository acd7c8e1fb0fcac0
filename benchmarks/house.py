"""The package's shape, counted: what issue 42 asks to report before and after a redesign.

For a checkout (default: this one; ``--root DIR`` another, e.g. a ``git worktree`` of an
older commit): the modules at the top of ``fsengine/`` and in all, the import circles
over every import statement, those inside functions too (the graph read as
tests/unit/test_layers.py reads it), the longest functions (and those longest without
their docstrings), the largest parameter
lists, the Python-side calls that pass most arguments by position (a kernel's long
signature called through a named structure flattened with ``*`` counts as one), the
distinct literal keys of ``st.session_state`` in the dashboard and the README's lines.
Static: nothing is imported or run.

    .venv/bin/python benchmarks/house.py [--root DIR] [--json]
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
import import_graph  # noqa: E402  (the test of the layers reads the graph the same way)


def _functions(paths, root: Path):
    """(lines, parameters, name, lines of code) of every function and method: its lines
    from ``def`` to its end, and those after its docstring."""
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = node.args
                count = len(args.posonlyargs) + len(args.args) + len(args.kwonlyargs)
                count -= bool(args.args and args.args[0].arg in ("self", "cls"))
                lines = node.end_lineno - node.lineno + 1
                body = node.body[1:] if ast.get_docstring(node) else node.body
                code = node.end_lineno - body[0].lineno + 1 if body else 0
                yield lines, count, f"{path.relative_to(root)}:{node.name}", code


def _positional_calls(paths, root: Path):
    """(arguments given by position, where) of every call outside the compiled kernels'
    modules (``*_kernels.py``, whose functions call each other with flat arguments): a
    ``*splat`` counts as one."""
    for path in (p for p in paths if not p.name.endswith("_kernels.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and len(node.args) > 1:
                yield len(node.args), f"{path.relative_to(root)}:{node.lineno}"


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
    modules = import_graph.modules(root, package)
    top = sorted(
        p.name + ("/" if p.is_dir() else "")
        for p in package.iterdir()
        if (p.suffix == ".py" or (p / "__init__.py").exists())
        and p.name != "__init__.py"
        and p.name != "__main__.py"
    )
    functions = sorted(_functions(modules.values(), root), reverse=True)
    # the pages were in views/ until they moved under dashboard/pages/
    front = [p for d in ("dashboard", "views") for p in (root / d).rglob("*.py")]
    front += [root / "app.py"]
    readme = root / "README.md"
    return {
        "top_level": top,
        "modules": len(modules),
        "import_circles": import_graph.cycles(import_graph.edges(modules)),
        "longest_functions": [(n, name) for n, _, name, _ in functions[:5]],
        "functions_over_100_lines": sum(1 for n, _, _, _ in functions if n > 100),
        "functions_over_100_lines_of_code": sorted(
            ((code, name) for _, _, name, code in functions if code > 100), reverse=True
        ),
        "largest_parameter_lists": sorted(((c, name) for _, c, name, _ in functions), reverse=True)[
            :5
        ],
        "largest_positional_calls": sorted(_positional_calls(modules.values(), root), reverse=True)[
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
