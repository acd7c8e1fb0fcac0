"""The package's public face (``import fsengine as fs``), checked as scanpy checks its own
(scanpy's tests/test_package_structure.py): every name of ``fs.__all__`` is there and
public, every public function documents each of its parameters and what it returns, the
face's options are keyword-only, every online selector of the registry is exported, and
each door gives what the function behind it gives (the same code path as the command
line's)."""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import pickle
import pkgutil
import re
import sys
import warnings
from pathlib import Path

import cloudpickle
import numpy as np
import pytest

import fsengine as fs
from conftest import ROOT, SAMPLE
from fsengine import adata as fs_adata
from fsengine.cli import main
from fsengine.evaluation import sweep_k, sweep_top
from fsengine.methods.online import SELECTORS
from fsengine.methods.registry import METHODS, REGISTRY

FUNCTIONS = sorted(
    name
    for name in fs.__all__
    if inspect.isfunction(getattr(fs, name)) and not name.startswith("_")
)


def test_every_public_name_is_there_and_public():
    assert len(fs.__all__) == len(set(fs.__all__))
    for name in fs.__all__:
        assert hasattr(fs, name), name
        assert name == "__version__" or not name.startswith("_"), name
    assert {"read", "Task", "select", "evaluate", "sweep", "list_methods"} <= set(fs.__all__)


def test_every_online_selector_class_is_exported():
    exported = {getattr(fs, name) for name in fs.__all__}
    assert set(SELECTORS) <= exported
    assert len(SELECTORS) == len(METHODS) - sum(not m.online for m in REGISTRY.values())


def _documented(doc: str) -> set[str]:
    """The names the ``Parameters`` section of a numpydoc docstring (as
    :func:`inspect.getdoc` gives it) documents; ``a, b : int`` documents both."""
    lines = doc.splitlines()
    if "Parameters" not in lines:
        return set()
    names = set()
    for i in range(lines.index("Parameters") + 2, len(lines)):
        line = lines[i]
        if i + 1 < len(lines) and set(lines[i + 1].strip()) == {"-"}:
            break  # the next section's title
        if line.strip() and not line.startswith(" "):
            head = line.split(" : ")[0]
            names.update(part.strip().lstrip("*") for part in head.split(","))
    return names


@pytest.mark.parametrize("name", FUNCTIONS)
def test_a_public_function_documents_its_parameters_and_returns(name):
    function = getattr(fs, name)
    doc = inspect.getdoc(function) or ""
    assert doc.split("\n")[0].strip(), f"{name}: no summary line"
    parameters = [p for p in inspect.signature(function).parameters]
    missing = set(parameters) - _documented(doc)
    assert not missing, f"{name} does not document {sorted(missing)}"
    if inspect.signature(function).return_annotation not in (None, "None"):
        assert re.search(r"\n(Returns|Yields)\n-+\n", doc), f"{name}: no Returns section"


@pytest.mark.parametrize("name", ["select", "sweep"])
def test_the_faces_options_are_keyword_only(name):
    """Data first (and the class, or the method), then options by name, as scanpy's."""
    parameters = list(inspect.signature(getattr(fs, name)).parameters.values())
    positional = [p.name for p in parameters if p.kind is p.POSITIONAL_OR_KEYWORD]
    assert len(positional) <= 2, positional
    assert all(p.kind in (p.KEYWORD_ONLY, p.VAR_KEYWORD) for p in parameters[len(positional) :])


def test_the_documentation_checker_finds_an_undocumented_parameter():
    def documented(a, b):
        """Summary.

        Parameters
        ----------
        a : int
            The first.

        Returns
        -------
        int
        """

    assert _documented(inspect.getdoc(documented)) == {"a"}


def test_read_is_the_loader_and_select_gives_the_runs_selection():
    dataset = fs.read(SAMPLE)
    assert fs.read is fs.load_dataset
    mine = fs.select(dataset, "kofsd", minority=2, k=5)
    behind = fs.run_selection(dataset, 2, "kofsd", k=5)
    assert mine.selection == behind.selection and mine.params == behind.params
    task = fs.Task.from_dataset(dataset, 2)
    assert (
        fs.select(task, "welch", top=7).selection
        == fs.run_selection(task, None, "welch", top=7).selection
    )


def test_select_on_anndata_writes_into_it_as_the_anndata_door_does():
    anndata = pytest.importorskip("anndata")
    dataset = fs.read(SAMPLE)
    obs = {"cell_type": [str(label) for label in dataset.labels]}
    import pandas as pd

    def fresh():
        return anndata.AnnData(
            np.asarray(dataset.X, dtype=np.float32),
            obs=pd.DataFrame(obs, index=[f"c{i}" for i in range(dataset.n_samples)]),
            var=pd.DataFrame(index=list(dataset.feature_names)),
        )

    mine, theirs = fresh(), fresh()
    result = fs.select(mine, "kofsd", groupby="cell_type", minority="2", k=5)
    behind = fs_adata.select(theirs, "cell_type", "2", "kofsd", k=5)
    assert result.selection == behind.selection
    assert mine.var["kofsd_selected"].sum() == len(result.selection.features) > 0
    assert mine.var.equals(theirs.var)


def test_sweep_gives_the_sweeps_records():
    task = fs.Task.from_dataset(fs.read(SAMPLE), 2)
    over_k = fs.sweep(task, method="kofsd", over="k", values=[3, 5], n_splits=2, n_jobs=1)
    behind = sweep_k(task, None, [3, 5], n_splits=2, n_jobs=1)
    assert [(r["k"], r["split"], r["features"]) for r in over_k.records] == [
        (r["k"], r["split"], r["features"]) for r in behind.records
    ]
    over_top = fs.sweep(
        task, method=["fisher", "welch"], over="top", values=[4, 8], n_splits=2, n_jobs=1
    )
    behind = sweep_top(task, None, ["fisher", "welch"], [4, 8], n_splits=2, n_jobs=1)
    key = ("top", "split", "method", "features", "gmean_1nn")
    assert [tuple(r[k] for k in key) for r in over_top.records] == [
        tuple(r[k] for k in key) for r in behind.records
    ]
    assert len(over_top.records) == 2 * 2 * 2


def test_the_faces_refusals_name_the_problem():
    dataset = fs.read(SAMPLE)
    with pytest.raises(fs.FSEngineError, match="groupby names an obs column"):
        fs.select(dataset, "kofsd", groupby="cell_type")
    with pytest.raises(fs.FSEngineError, match="one method"):
        fs.sweep(dataset, ["kofsd", "ofs-fpd"], minority=2, over="k", values=[3])
    with pytest.raises(fs.FSEngineError, match="numbers of features"):
        fs.sweep(dataset, "fisher", minority=2, over="top", values=[5, "ten"])
    with pytest.raises(fs.FSEngineError, match="opened backed"):
        backed = anndata_backed()
        try:
            fs.tl.select(backed, groupby="bulk_labels", group=NAIVE, copy=True)
        finally:
            backed.file.close()
    with pytest.raises(fs.FSEngineError, match="is not a method"):
        fs.select(dataset, "k-ofsd")


def test_methods_lists_what_the_command_lists(capsys):
    table = fs.list_methods()
    assert fs.methods().equals(table)  # the package called is the same table
    assert fs.methods is sys.modules["fsengine.methods"] and fs.methods.online.KOFSD is fs.KOFSD
    # sent to worker processes by name, as a plain module is
    assert pickle.loads(pickle.dumps(fs.methods)) is fs.methods
    package = fs.methods
    table_in_worker = pickle.loads(cloudpickle.dumps(lambda: package()))
    assert table_in_worker().equals(table)
    assert main(["methods", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert list(table.index) == [m["name"] for m in listed] == list(METHODS)
    assert list(table["kind"]) == [m["kind"] for m in listed]
    kofsd = table.loc["kofsd"]
    assert kofsd["label"] == "K-OFSD" and kofsd["kind"] == "online"
    assert "k=" in kofsd["parameters"] and "alpha=" in kofsd["parameters"]


PBMC = ROOT / "tests" / "data" / "pbmc68k_reduced.h5ad"
NAIVE = "CD4+/CD45RA+/CD25- Naive T"
SCANPY_FACE = [
    (module, name) for module in ("tl", "get", "pl") for name in getattr(fs, module).__all__
]


def anndata_backed():
    """The PBMC file opened backed (its X left on disk)."""
    anndata = pytest.importorskip("anndata")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return anndata.read_h5ad(PBMC, backed="r")


def _pbmc():
    anndata = pytest.importorskip("anndata")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return anndata.read_h5ad(PBMC)


@pytest.mark.parametrize(("module", "name"), SCANPY_FACE)
def test_the_scanpy_face_takes_adata_first_then_keywords_and_documents_them(module, name):
    function = getattr(getattr(fs, module), name)
    parameters = list(inspect.signature(function).parameters.values())
    assert parameters[0].name == "adata"
    assert all(
        p.kind in (p.KEYWORD_ONLY, p.VAR_KEYWORD) or p.name == "key" for p in parameters[1:]
    ), name
    doc = inspect.getdoc(function)
    assert not {p.name for p in parameters} - _documented(doc), name
    assert re.search(r"\nReturns\n-+\n", doc), name


def test_tl_select_writes_what_the_anndata_door_writes_under_its_key():
    mine, theirs = _pbmc(), _pbmc()
    assert (
        fs.tl.select(
            mine, groupby="bulk_labels", group=NAIVE, method="welch", top=12, key_added="naive"
        )
        is None
    )
    behind = fs_adata.select(theirs, "bulk_labels", NAIVE, "welch", top=12)
    assert np.array_equal(mine.var["naive_rank"], theirs.var["welch_rank"], equal_nan=True)
    assert "fsengine_welch" not in mine.uns and "naive" in mine.uns
    table = fs.get.selection_df(mine, "naive")
    assert list(table["names"]) == list(behind.selection.features)
    # scanpy's own getter reads the same entry alike
    scanpy = pytest.importorskip("scanpy")
    theirs_table = scanpy.get.rank_genes_groups_df(mine, group=NAIVE, key="naive")
    assert list(theirs_table["names"]) == list(table["names"])
    assert np.allclose(theirs_table["pvals_adj"], table["pvals_adj"], equal_nan=True)


def test_tl_select_with_copy_leaves_the_object_alone():
    adata = _pbmc()
    before = list(adata.var.columns), set(adata.uns)
    copy = fs.tl.select(
        adata, groupby="bulk_labels", group=NAIVE, method="fisher", top=5, copy=True
    )
    assert (list(adata.var.columns), set(adata.uns)) == before
    assert copy is not adata and copy.var["fisher_selected"].sum() == 5


def test_pl_draws_the_selected_genes_of_the_entry():
    adata = _pbmc()
    fs.tl.select(adata, groupby="bulk_labels", group=NAIVE, method="welch", top=10)
    genes = list(fs.get.selection_df(adata, "fsengine_welch")["names"])
    heat = fs.pl.heatmap(adata, key="fsengine_welch", n_genes=4)
    assert {str(g) for trace in heat.data for g in (trace.y if trace.y is not None else ())} >= set(
        genes[:4]
    )
    panels = fs.pl.violin(adata, key="fsengine_welch", n_genes=3)
    titles = " ".join(a.text for a in panels.layout.annotations)
    assert all(g in titles for g in genes[:3]) and genes[3] not in titles


def test_a_missing_entry_is_named_with_the_ones_held():
    adata = _pbmc()
    fs.tl.select(adata, groupby="bulk_labels", group=NAIVE, method="fisher", top=5)
    with pytest.raises(fs.FSEngineError, match="no selection under 'kofsd'.*'fsengine_fisher'"):
        fs.get.selection_df(adata, "kofsd")
    with pytest.raises(fs.FSEngineError, match="no selection under 'rank_genes_groups'"):
        fs.pl.heatmap(adata, key="rank_genes_groups")  # scanpy's, laid out alike: not ours


PUBLIC_MODULES = (
    "fsengine",
    "fsengine.data",
    "fsengine.io",
    "fsengine.adata",
    "fsengine.methods",
    "fsengine.export.writers",
    "fsengine.config",
    "fsengine.errors",
    "fsengine.methods.online",
    "fsengine.methods.rankers",
    "fsengine.evaluation",
    "fsengine.sklearn",
    "fsengine.tl",
    "fsengine.get",
    "fsengine.pl",
    "fsengine.checks",
)


@pytest.mark.parametrize("path", PUBLIC_MODULES)
def test_each_public_modules_all_names_documented_public_objects(path):
    module = importlib.import_module(path)
    assert len(module.__all__) == len(set(module.__all__)), path
    for name in module.__all__:
        obj = getattr(module, name)  # every name resolves
        assert name == "__version__" or not name.startswith("_"), (path, name)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            assert inspect.getdoc(obj), f"{path}.{name} has no docstring"


def _raise(name):
    """``walk_packages``'s ``onerror``: a package that fails to import fails the walk (by
    default an ImportError would leave the package and its modules out silently)."""
    raise


def _walked_public_modules() -> list[str]:
    """Every module of the package (``fsengine`` first) whose dotted path has no part
    starting with ``_``: the private ones, ``fsengine.__main__`` among them, are left out."""
    walked = pkgutil.walk_packages(fs.__path__, "fsengine.", onerror=_raise)
    return ["fsengine"] + sorted(
        info.name
        for info in walked
        if not any(part.startswith("_") for part in info.name.split("."))
    )


WALKED_MODULES = _walked_public_modules()

#: Names a plain module's ``__all__`` lists though another module defines them, each with
#: the reason it is there. Any other name of a plain module is defined by the module itself.
RE_EXPORTED: dict[tuple[str, str], str] = {
    ("fsengine.api", "list_methods"): "the face's functions are select, sweep and the "
    "registry's list_methods (the module's docstring says so); fsengine re-exports them",
    ("fsengine.data.dataset", "LABEL_NAMES"): "the label column names the loader looks "
    "for (fsengine.io.columns's); fsengine.data re-exports them from the loader",
    ("fsengine.data.dataset", "Source"): "the type of what load_dataset reads "
    "(fsengine.io.base's); fsengine.data re-exports it from the loader",
    ("fsengine.io.footprint", "available_memory"): "the memory check_fits compares a "
    "footprint with; its home, fsengine._compute.sparse, is private (the dashboard "
    "imports it from here)",
    ("fsengine.methods.runs", "METHODS"): "the names run_selection takes, from the registry",
    ("fsengine.methods.runs", "ONLINE_METHODS"): "the online ones of METHODS",
    ("fsengine.methods.runs", "RANKER_METHODS"): "the rankers of METHODS",
    ("fsengine.methods.runs", "RunResult"): "what run_selection returns, from the registry",
}


def _bound_names(path: Path) -> tuple[set[str], set[str]]:
    """(names a module's top level defines: def, class, assignment; names it imports),
    statements under a top-level ``if`` or ``try`` included."""
    defined: set[str] = set()
    imported: set[str] = set()
    statements = list(ast.parse(path.read_text(encoding="utf-8")).body)
    while statements:
        node = statements.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defined.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                defined.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            imported.update(a.asname or a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.If | ast.Try):
            statements += node.body + node.orelse
            statements += getattr(node, "finalbody", [])
            statements += [s for handler in getattr(node, "handlers", []) for s in handler.body]
    return defined, imported


def test_the_walk_finds_every_public_module():
    """The walk goes into the subpackages and leaves the private modules out."""
    assert len(WALKED_MODULES) >= 60
    assert {
        "fsengine",
        "fsengine.io.text",
        "fsengine.cli.parser",
        "fsengine.methods.online",
        "fsengine.evaluation.study",
        "fsengine.pl.figures",
        "fsengine.version",
    } <= set(WALKED_MODULES)
    assert set(PUBLIC_MODULES) <= set(WALKED_MODULES)
    assert not [m for m in WALKED_MODULES if "._" in m or m.endswith("__main__")]


@pytest.mark.parametrize("path", WALKED_MODULES)
def test_every_public_module_has_all_holding_its_own_public_names(path):
    """``__all__`` in every module of the library that is not private: no repeats, every
    name there, public, documented when a function or class; a package may re-export its
    modules' names (from the library only), a plain module lists what it defines itself
    (but for :data:`RE_EXPORTED`)."""
    module = importlib.import_module(path)
    has_all = "__all__" in vars(module)
    assert has_all, f"{path} has no __all__"
    names = module.__all__
    assert all(isinstance(name, str) for name in names), path
    repeated = sorted({name for name in names if names.count(name) > 1})
    assert not repeated, f"{path}.__all__ repeats {repeated}"
    source = Path(module.__file__)
    defined, imported = _bound_names(source)
    is_package = source.name == "__init__.py"
    for name in names:
        assert hasattr(module, name), f"{path}.__all__ names {name}, which is not there"
        assert name == "__version__" or not name.startswith("_"), f"{path}.{name}"
        obj = getattr(module, name)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            doc = obj.__doc__ if inspect.isfunction(obj) else vars(obj).get("__doc__")
            assert doc and doc.strip(), f"{path}.{name} has no docstring"
        home = getattr(obj, "__module__", None) if not inspect.ismodule(obj) else None
        if is_package:
            # its own name, or one imported from the library (a module, or a module's
            # name), at once or on first use (a module-level __getattr__)
            assert name in defined | imported or "__getattr__" in defined, f"{path}.{name}"
            if inspect.isfunction(obj) or inspect.isclass(obj):
                assert home.split(".")[0] == "fsengine", f"{path}.{name} is {home}'s"
            continue
        if (path, name) in RE_EXPORTED:
            continue
        assert name in defined and name not in imported, (
            f"{path}.__all__ lists {name}, which it imports: list it in its home module "
            "(or in RE_EXPORTED, with the reason)"
        )
        if inspect.isfunction(obj) or inspect.isclass(obj):
            assert home == path, f"{path}.__all__ lists {name}, defined in {home}"


def test_every_re_exported_name_is_still_listed_and_defined_elsewhere():
    """An allowance of :data:`RE_EXPORTED` that is no longer needed fails."""
    for (path, name), reason in RE_EXPORTED.items():
        module = importlib.import_module(path)
        assert reason and name in module.__all__, (path, name)
        defined, imported = _bound_names(Path(module.__file__))
        assert name in imported and name not in defined, (path, name)


def test_the_online_packages_all_holds_no_kofsd_internals():
    """The selectors, their events, the stream and the rows' order; not K-OFSD's cards,
    neighbour lists or gene pass (importable for the library's own modules)."""
    internals = {
        "ACTION_CODES",
        "CardConsistency",
        "gene_pass",
        "gene_parallel_selection",
        "nearest_neighbours",
        "pairwise_distances",
        "decode_state",
        "encode_state",
        "NeighbourRule",
    }
    online = importlib.import_module("fsengine.methods.online")
    assert internals.isdisjoint(online.__all__)
    assert all(hasattr(online, name) for name in internals)
    assert {cls.__name__ for cls in SELECTORS} <= set(online.__all__)
    assert {cls.spec.event.__name__ for cls in SELECTORS} - {"StreamEvent"} <= set(online.__all__)


def test_no_public_name_hides_a_module_of_the_package():
    """``fs.methods`` as a function hid the registry's module, then ``fsengine.methods``:
    ``import fsengine.methods as m`` gave the function and a monkeypatch of
    ``fsengine.methods.Method`` failed. A name of the face that is also a module's name
    must be that module."""
    package = Path(fs.__file__).parent
    modules = {p.stem for p in package.glob("*.py")} | {
        p.name for p in package.iterdir() if (p / "__init__.py").exists()
    }
    for name in set(fs.__all__) & modules:
        assert inspect.ismodule(getattr(fs, name)), f"fs.{name} hides fsengine.{name}"
    import fsengine.methods as methods
    import fsengine.methods.registry as registry

    assert inspect.ismodule(methods) and methods.Method is registry.Method


def test_the_paths_before_the_packages_still_import_with_a_warning():
    """Each module moved into a package by concern (0.2) imports from its old path for one
    release: the very module at the new path, with a DeprecationWarning naming it, raised
    at the importer's line; the modules that became packages keep their public names. A
    new interpreter, so that no earlier import hides the finder."""
    code = """
import importlib, json, sys, warnings
import fsengine._moved as moved
out = {}
for old, new in moved.MOVED.items():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module(old)
    out[old] = [module is sys.modules[new], [str(w.message) for w in caught],
                [w.category.__name__ for w in caught]]
from fsengine.export import selection_to_csv
from fsengine.methods import get_method, run_selection
from fsengine.data import Dataset, load_dataset
from fsengine.export.writers import selection_to_csv as writer
out["names"] = selection_to_csv is writer
# the packages that moved whole, and a module in each (private ones too: stored states)
old_paths = {
    "fsengine.online": "fsengine.methods.online",
    "fsengine.rankers": "fsengine.methods.rankers",
    "fsengine.online._stream": "fsengine.methods.online._stream",
    "fsengine.online._kofsd.selector": "fsengine.methods.online._roughset.kofsd.selector",
    "fsengine.online._ofsfpd.selector": "fsengine.methods.online._statistical.ofsfpd",
    "fsengine.online._zhou._zhou_kernels":
        "fsengine.methods.online._roughset._dependency_kernels",
    "fsengine.rankers._relieff": "fsengine.methods.rankers._relieff",
}
packages = {}
for old, new in old_paths.items():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module(old)
    packages[old] = [module is importlib.import_module(new),
                     [str(w.message) for w in caught if w.category is DeprecationWarning]]
import fsengine
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    attribute = fsengine.rankers
packages["attribute"] = [attribute is sys.modules["fsengine.methods.rankers"], []]
# no module was loaded twice, under its old name and its new one
copies = [name for name, module in sys.modules.items()
          if name.startswith("fsengine.online") and sys.modules.get(name.replace(
              "fsengine.online", "fsengine.methods.online")) not in (None, module)]
# each module keeps its own spec (reload and importlib.resources read it)
specs = [new for new in old_paths.values() if sys.modules[new].__spec__.name != new]
print(json.dumps({"moved": out, "packages": packages, "copies": copies, "specs": specs}))
"""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    found = json.loads(done.stdout)
    out = found["moved"]
    assert out.pop("names") is True
    from fsengine._moved import MOVED

    assert set(out) == set(MOVED) and len(MOVED) >= 20
    for old, (same, messages, categories) in out.items():
        assert same, old
        assert categories == ["DeprecationWarning"], (old, messages)
        assert MOVED[old] in messages[0] and "0.3" in messages[0]
    packages = found["packages"]
    assert packages.pop("attribute") == [True, []]  # fsengine.rankers, a warning at import
    for old, (same, messages) in packages.items():
        assert same, old
        # one warning for each old package on the way (fsengine.online, then ._kofsd, ...)
        assert messages and messages[-1].startswith(f"{old} is fsengine.methods."), old
    assert found["copies"] == []
    assert found["specs"] == []
