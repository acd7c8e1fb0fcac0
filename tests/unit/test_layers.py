"""Dependencies run one way: base -> core (io, data, the selector families) -> the registry
-> runs, evaluation and the scikit-learn selectors -> front ends (export, cli); the
dashboard's session below its workspace, widgets and running work, and the pages on top.

Every import statement counts, those inside functions included (a lazy import that closes
a circle is still a circle). The exceptions are listed, each with its reason, in
:data:`ALLOWED_UPWARD`; the test fails if one of them is no longer needed.
"""

import ast
import re
from pathlib import Path

import pytest

from import_graph import cycles, edges, modules

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "fsengine"

#: Layer of each module (the first pattern that matches its dotted name).
LAYERS = [
    (0, r"fsengine\.(errors|spec|version|config|_moved)$"),  # foundations, at the top
    (0, r"fsengine\._compute(\..*)?$"),  # kernels, processes, Dask clients, binning, progress
    (0, r"fsengine\.export\.(codec|spreadsheet)$"),  # the JSON codec and CSV cells
    (0, r"fsengine\.methods\._estimates_fit$"),  # the cost models' coefficients: data
    (0, r"fsengine\.evaluation\.statistics$"),  # Friedman, Nemenyi, Wilcoxon-Holm over numbers
    (0, r"fsengine\.pl\.figures$"),  # plotly figures as pure functions of numbers
    (0, r"fsengine\.data\.labels$"),  # the one label rule
    (1, r"fsengine\.io(\..*)?$"),
    (1, r"fsengine\.data\.dataset$"),
    (1, r"fsengine\.methods\.(online|rankers)(\..*)?$"),  # the selector families, rankers
    (2, r"fsengine\.data(\.(task|preprocess))?$"),  # the task: (data set, minority)
    (2, r"fsengine\.methods\.registry$"),
    (3, r"fsengine\.methods(\.(runs|live|estimates))?$"),
    (3, r"fsengine\.evaluation(\..*)?$"),  # the protocol, sweeps, studies, genes, stability
    (3, r"fsengine\.(sklearn|checks)$"),  # scikit-learn's face; the shipped contract
    (4, r"fsengine\.export(\.(writers|report))?$"),
    (4, r"fsengine\.(adata|cli(\..*)?|__main__)$"),
    # the public face: its functions (over adata, runs and evaluation) and scanpy's tl, get, pl
    (5, r"fsengine\.(api|tl|get|pl(\..*)?)$"),
    (5, r"fsengine$"),
]

#: Imports that go up a layer, by (importer, imported), with the reason each is needed.
ALLOWED_UPWARD: dict[tuple[str, str], str] = {}

#: The dashboard's layers: the session, then what builds on it, then the pages.
DASHBOARD_LAYERS = [
    (0, r"dashboard(\.(messages|glossary|workspace|pages|memory|datadir|reruns|run_queue))?$"),
    (1, r"dashboard\.session$"),
    (2, r"dashboard\.(persistence|widgets)$"),
    (3, r"dashboard\.(running|study_datasets|streams)$"),
    (4, r"dashboard\.reporting$"),
    (5, r"dashboard\.pages\..*$|app$"),
]


def _layer(module: str, layers=LAYERS) -> int:
    for layer, pattern in layers:
        if re.match(pattern, module):
            return layer
    raise AssertionError(f"{module} has no layer: add it to the layers")


LIBRARY = modules(ROOT, PACKAGE)
FRONT = modules(ROOT, ROOT / "dashboard", ROOT / "app.py")


@pytest.mark.parametrize("module", sorted(LIBRARY))
def test_library_imports_go_down_the_layers(module):
    mine = _layer(module)
    for imported in edges(LIBRARY)[module]:
        if (module, imported) in ALLOWED_UPWARD or imported.startswith(module + "."):
            continue  # allowed by name, or a package's own part
        assert _layer(imported) <= mine, (
            f"{module} (layer {mine}) imports {imported} (layer {_layer(imported)})"
        )


@pytest.mark.parametrize("module", sorted(FRONT))
def test_dashboard_imports_go_down_the_layers(module):
    mine = _layer(module, DASHBOARD_LAYERS)
    for imported in edges(FRONT)[module] - {m for m in FRONT if m.startswith(module + ".")}:
        theirs = _layer(imported, DASHBOARD_LAYERS)
        assert theirs < mine or (theirs == mine == 0), f"{module} imports {imported}"


def test_every_allowed_upward_import_is_still_there_and_still_upward():
    library = edges(LIBRARY)
    for importer, imported in ALLOWED_UPWARD:
        assert imported in library[importer], (importer, imported)
        assert _layer(imported) > _layer(importer), (importer, imported)


def test_no_import_circles():
    library = edges(LIBRARY)
    for importer, imported in ALLOWED_UPWARD:
        library[importer].discard(imported)
    assert cycles(library) == []
    assert cycles(edges(FRONT)) == []


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_private_names_stay_private():
    """A private module (a dotted part starting with ``_``) is imported only from inside
    the package that owns it; a private name (``from m import _name``) from no other
    module at all (a helper shared by a package's modules has a public name in a private
    module, as scikit-learn's)."""
    known = {**LIBRARY, **FRONT}
    for module, path in known.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.ImportFrom) and node.module and node.level == 0):
                continue
            parts = node.module.split(".")
            if parts[0] not in ("fsengine", "dashboard"):
                continue
            for i, part in enumerate(parts):
                if part.startswith("_") and not part.startswith("__"):
                    owner = ".".join(parts[:i])
                    assert package == owner or package.startswith(owner + "."), (
                        f"{module} imports {node.module}, private to {owner}"
                    )
            private = [
                a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")
            ]
            assert not private, f"{module} imports {private} from {node.module}"


def test_the_library_never_imports_streamlit_nor_names_cli_flags_in_messages():
    for module, path in LIBRARY.items():
        text = path.read_text()
        assert "import streamlit" not in text, module
        if module == "fsengine.export.writers" or module.startswith("fsengine.cli"):
            continue  # the command line's own words
        tree = ast.parse(text)
        declared = {  # the flags table itself (fsengine.spec.RUN_FLAGS) is no message
            id(c)
            for n in ast.walk(tree)
            if isinstance(n, ast.Assign)
            and [getattr(t, "id", "") for t in n.targets] == ["RUN_FLAGS"]
            for c in ast.walk(n.value)
        }
        strings = [
            n.value
            for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in declared
        ]
        flags = [
            s
            for s in strings
            if re.search(r"(^|\s)--[a-z]", s) and not s.lstrip().startswith(("``", '"""'))
        ]
        assert not [
            s
            for s in flags
            if "toggle" in s
            or "--transpose" in s
            or "--label" in s
            or "--k " in s
            or "--minority" in s
        ], (module, flags)
