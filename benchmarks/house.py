"""The package's shape, counted: what issue 42 asks to report before and after a redesign.

For a checkout (default: this one; ``--root DIR`` another, e.g. a ``git worktree`` of an
older commit): the modules at the top of ``fsengine/`` and in all, the import circles
over every import statement, those inside functions too (the graph read as
tests/unit/test_layers.py reads it), the longest functions (and those longest without
their docstrings), the largest parameter
lists, the Python-side calls that pass most arguments by position (a kernel's long
signature called through a named structure flattened with ``*`` counts as one), the
distinct literal keys of ``st.session_state`` in the dashboard and the README's lines.
Static: nothing is imported or run. With ``--new-methods``, also the files a new online
selector and a new ranker touch: each is added to a scratch copy of the checkout's
committed files by CONTRIBUTING.md's steps, and the copy's own checks (package
structure, the contract suite for the new method, the methods' table) and its ``select``
say whether nothing else was needed (:func:`new_method_files`).

    .venv/bin/python benchmarks/house.py [--root DIR] [--json] [--new-methods]
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import tempfile
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


#: A template online selector, written in a scratch copy by :func:`new_method_files`: a
#: feature is kept when its classes' means differ by more than a threshold.
TEMPLATE_SELECTOR = '''"""Mean gap: a template online selector (house.py --new-methods)."""

import numpy as np

from fsengine.methods.online._stream import Selection, StreamEvent, StreamingSelector
from fsengine.spec import ONLINE, MethodSpec, Real


class MeanGap(StreamingSelector):
    """Keeps a feature whose classes' means differ by more than ``threshold``."""

    spec = MethodSpec(
        name="mean-gap",
        label="Mean gap",
        kind=ONLINE,
        citation="a template",
        score="absolute difference of the classes' means",
        set_score="number of features kept",
        parameters={
            "threshold": Real(0.5, "the gap a feature must exceed", source="ours", low=0.0)
        },
        actions={"added": "kept", "rejected": "not kept"},
        event=StreamEvent,
    )

    def _start(self):
        self._kept = []
        self._set_selected((), ())

    def _step_block(self, block, names, columns):
        minority = self.y == 1
        events = []
        for j in range(block.shape[1]):
            gap = abs(float(np.mean(block[minority, j])) - float(np.mean(block[~minority, j])))
            action = "added" if gap > self._params["threshold"] else "rejected"
            if action == "added":
                self._kept.append((names[j], columns[j], gap))
                self._set_selected([k[0] for k in self._kept], [k[1] for k in self._kept])
            events.append(
                StreamEvent(
                    self.n_seen + j, names[j], columns[j], gap, action, self.selected,
                    self.selected_columns, float(len(self._kept)),
                )
            )
        self.n_seen += block.shape[1]
        return events

    def _step_block_quiet(self, block, names, columns):
        self._step_block(block, names, columns)

    def finish(self):
        return Selection(
            self.method,
            tuple(k[0] for k in self._kept),
            tuple(k[1] for k in self._kept),
            tuple(k[2] for k in self._kept),
            "stream order",
        )
'''
#: A template ranker: the absolute difference of the classes' medians.
TEMPLATE_RANKER = '''"""Median gap: a template ranker (benchmarks/house.py --new-methods)."""

import numpy as np

from fsengine.spec import RANKER, MethodSpec

MEDIAN_GAP = MethodSpec(
    "median-gap", "Median gap", "a template", RANKER, "|median_1 - median_0|", columnwise=True
)


def median_gap_score(X, y):
    """The absolute difference of the two classes' medians, feature by feature."""
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    return np.abs(np.median(X[y == 1], axis=0) - np.median(X[y != 1], axis=0))
'''


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    if old not in text:
        raise SystemExit(f"{path}: {old!r} is not there; the steps of CONTRIBUTING.md changed")
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _add_selector(copy: Path) -> None:
    """CONTRIBUTING.md's steps for an online selector, in the family it decides by."""
    online = copy / "fsengine/methods/online"
    (online / "_statistical/mean_gap.py").write_text(TEMPLATE_SELECTOR, encoding="utf-8")
    family = online / "_statistical/__init__.py"
    _edit(family, "\n__all__ = [", '\nfrom .mean_gap import MeanGap\n\n__all__ = [\n    "MeanGap",')
    _edit(
        online / "__init__.py",
        "from fsengine.methods.online._statistical import (",
        "from fsengine.methods.online._statistical import (\n    MeanGap,",
    )
    _edit(online / "__init__.py", "SELECTORS = (\n", "SELECTORS = (\n    MeanGap,\n")
    _edit(online / "__init__.py", "__all__ = [\n", '__all__ = [\n    "MeanGap",\n')
    _edit(
        copy / "fsengine/__init__.py",
        "from fsengine.methods.online import (\n",
        "from fsengine.methods.online import (\n    MeanGap,\n",
    )
    _edit(copy / "fsengine/__init__.py", "__all__ = [\n", '__all__ = [\n    "MeanGap",\n')


def _add_ranker(copy: Path) -> None:
    """CONTRIBUTING.md's steps for a ranker."""
    rankers = copy / "fsengine/methods/rankers"
    (rankers / "_median_gap.py").write_text(TEMPLATE_RANKER, encoding="utf-8")
    _edit(
        rankers / "__init__.py",
        "from fsengine.methods.rankers._markers import (",
        "from fsengine.methods.rankers._median_gap import MEDIAN_GAP, median_gap_score\n"
        "from fsengine.methods.rankers._markers import (",
    )
    _edit(
        rankers / "__init__.py",
        "RANKER_TABLE = [\n",
        "RANKER_TABLE = [\n    (MEDIAN_GAP, median_gap_score),\n",
    )


def _changed(copy: Path) -> list[str]:
    done = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=copy,
        capture_output=True,
        text=True,
        check=True,
    )
    return sorted(line[3:] for line in done.stdout.splitlines())


def _python_in(copy: Path, env: dict, *args: str) -> subprocess.CompletedProcess:
    """``python ARGS`` run in the scratch copy, its output captured."""
    return subprocess.run(
        [sys.executable, *args], cwd=copy, env=env, capture_output=True, text=True
    )


def _last_line(done: subprocess.CompletedProcess) -> str:
    return (done.stdout.strip().splitlines() or ["no output"])[-1]


def new_method_files(root: Path) -> dict:
    """The files a new online selector and a new ranker touch, each added in a scratch
    copy of ``root``'s committed files by CONTRIBUTING.md's steps (then the methods'
    table, docs/METHODS.md, written by ``fsengine methods --markdown``), and whether the
    checks every method passes then pass: the package's structure, the contract suite and
    the command line's ``select``. Runs the copy's tests in this interpreter."""
    result = {}
    for kind, add, name in (
        ("online selector", _add_selector, "mean-gap"),
        ("ranker", _add_ranker, "median-gap"),
    ):
        with tempfile.TemporaryDirectory(prefix="fsengine-new-method-") as scratch:
            copy = Path(scratch) / "copy"
            copy.mkdir()
            archive = subprocess.run(
                ["git", "archive", "HEAD"], cwd=root, capture_output=True, check=True
            ).stdout
            subprocess.run(["tar", "-x"], cwd=copy, input=archive, check=True)
            for command in (
                ["init", "-q"],
                ["add", "-A"],
                ["-c", "user.name=h", "-c", "user.email=h@h", "commit", "-q", "-m", "copy"],
            ):
                subprocess.run(["git", *command], cwd=copy, check=True)
            add(copy)
            env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
            env.update(PYTHONPATH=str(copy), PYTHONDONTWRITEBYTECODE="1")
            table = _python_in(copy, env, "-m", "fsengine", "methods", "--markdown")
            (copy / "docs/METHODS.md").write_text(table.stdout, encoding="utf-8")
            files = _changed(copy)
            own_cases = f"{name.split('-')[0]} and gap"  # the new method's contract cases
            pytest = ("-m", "pytest", "-q", "-p", "no:cacheprovider")
            checks = _python_in(
                copy, env, *pytest, "-x", "tests/unit/test_package_structure.py",
                "tests/unit/test_contract.py", "-k",
                f"structure or {own_cases} or docs_parameter_tables",
            )  # fmt: skip
            own = _python_in(copy, env, *pytest, "tests/unit/test_contract.py", "-k", own_cases)
            select = _python_in(
                copy, env, "-m", "fsengine", "select", str(copy / "sample_data/SRBCT.parquet"),
                "--method", name, "--minority", "2", "--out", str(Path(scratch) / "sel.csv"),
            )  # fmt: skip
            result[kind] = {
                "files": files,
                "n_files": len(files),
                "checks": _last_line(checks),
                "checks_passed": checks.returncode == 0 and table.returncode == 0,
                "own_contract_cases": _last_line(own),
                "select_exit": select.returncode,
            }
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="a checkout (default: this)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--new-methods",
        action="store_true",
        help="also add a template online selector and ranker in scratch copies and count "
        "the files they touch (runs the copies' checks: a few minutes)",
    )
    args = parser.parse_args(argv)
    figures = count(args.root.resolve())
    if args.new_methods:
        figures["new_methods"] = new_method_files(args.root.resolve())
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
