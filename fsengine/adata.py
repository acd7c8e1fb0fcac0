"""Selections on AnnData objects and back into them, where scanpy reads them.

:func:`select` runs any method on an AnnData object (its X, one class of an obs column
against the rest) and writes the result into the object, as scanpy's tools do:
``var`` columns ``{method}_selected``, ``{method}_rank`` and ``{method}_score``, and an
``uns`` entry in the layout of ``scanpy.tl.rank_genes_groups`` (``params``, ``names``,
``scores``: the method's own, in its order; ``pvals``, ``pvals_adj`` and
``logfoldchanges``: Welch's t-test's for those genes, or the marker test's), so that
``sc.get.rank_genes_groups_df(adata, group, key=...)`` and
``sc.pl.rank_genes_groups_dotplot(adata, key=...)`` read it. The entry's key is
``fsengine_{method}``: a ``rank_genes_groups`` result already in the object is kept.
The command line's ``select ... --out result.h5ad`` writes the same (:func:`to_h5ad`).
"""

from __future__ import annotations

import dataclasses
import io
import tempfile
import warnings
from pathlib import Path

import numpy as np

from fsengine.data.dataset import Dataset, annotated_dataset
from fsengine.data.preprocess import counts_warning
from fsengine.data.task import Task
from fsengine.errors import FSEngineError
from fsengine.io.backed import is_zarr_store
from fsengine.io.h5ad import table_from_anndata
from fsengine.methods.online import Selection
from fsengine.methods.rankers import marker_table
from fsengine.methods.registry import RunResult, get_method
from fsengine.methods.runs import run_selection

__all__ = [
    "dataset_from_anndata",
    "h5ad_bytes",
    "select",
    "to_h5ad",
    "uns_key",
    "with_selection",
    "write_selection",
]

#: Rankers whose uns entry also holds p-values and fold changes (:func:`marker_table`).
MARKER_TESTS = ("welch", "wilcoxon")


def dataset_from_anndata(adata, groupby: str | None = None, name: str = "AnnData") -> Dataset:
    """The Dataset of an AnnData object: X (a sparse X kept sparse, as CSC: the selectors
    read it a block of columns at a time; the X of an object opened backed left on disk,
    :class:`fsengine.io.backed.BackedColumns`), the class from ``obs[groupby]`` (None: the
    only class-like obs column, as for a file)."""
    return annotated_dataset(table_from_anndata(adata), groupby, False, name)


def uns_key(method: str) -> str:
    """The ``uns`` entry a method's selection is written to."""
    return f"fsengine_{method}"


def write_selection(
    adata, task: Task, selection: Selection, params: dict | None = None, *, key: str | None = None
) -> None:
    """Write ``selection`` (made on ``task``, whose features are ``adata``'s var_names) into
    ``adata``: the var columns and the uns entry described in the module's docstring.

    Parameters
    ----------
    adata : anndata.AnnData
        Changed in place.
    task : Task
        The selection problem (its label column is the obs column grouped by).
    selection : Selection
        The selection made on ``task``.
    params : dict, optional
        The run's record (:attr:`fsengine.methods.runs.RunResult.params`): the method's parameters
        go into the uns entry's ``params`` (a marker test's ``direction``, say); without
        it, a marker test's default direction is assumed.
    key : str, optional
        The uns entry's key and the var columns' prefix (``{key}_selected``, ...), so that
        two runs of one method are kept side by side; default: the entry
        ``fsengine_{method}`` (:func:`uns_key`) and the columns ``{method}_selected``, ...
    """
    method = selection.method
    prefix = method if key is None else key
    if list(map(str, adata.var_names)) != list(task.names):
        raise FSEngineError(
            "the selection was made on other genes than the AnnData object's var_names"
        )
    group = str(task.minority)
    rank = np.full(len(task.names), np.nan)
    score = np.full(len(task.names), np.nan)
    rank[list(selection.columns)] = np.arange(1, len(selection) + 1)
    score[list(selection.columns)] = selection.scores
    adata.var[f"{prefix}_selected"] = ~np.isnan(rank)
    adata.var[f"{prefix}_rank"] = rank
    adata.var[f"{prefix}_score"] = score
    groupby = task.label_column or "class"
    if groupby not in adata.obs or group not in set(map(str, adata.obs[groupby])):
        raise FSEngineError(
            f"the AnnData object has no obs column {groupby!r} with class {group!r}"
        )
    adata.obs[groupby] = adata.obs[groupby].astype(str).astype("category")
    columns = list(selection.columns)
    spec = get_method(method).spec
    settings = {k: v for k, v in (params or {}).items() if k in spec.parameters}
    if method in MARKER_TESTS:
        settings = spec.check(settings)
    entry = {
        "params": {
            "groupby": groupby,
            "reference": "rest",
            "method": method,
            "use_raw": False,
            "corr_method": "benjamini-hochberg",
            "fsengine_status": selection.status,
            **{k: v for k, v in settings.items() if v is not None},
        },
        "names": np.rec.fromarrays([np.array(selection.features, dtype=object)], names=[group]),
        "scores": np.rec.fromarrays(
            [np.asarray(selection.scores, dtype=np.float32)], names=[group]
        ),
    }
    # p-values and fold changes, which scanpy's getters and plots read: the marker test's
    # own, else Welch's t-test's (as the Genes page shows) for the method's genes
    test = method if method in MARKER_TESTS else "welch"
    entry["params"]["pvals_from"] = test
    table = marker_table(task.X, task.y, test, settings.get("direction", "up"))
    for field in ("pvals", "pvals_adj", "logfoldchanges"):
        entry[field] = np.rec.fromarrays(
            [np.asarray(table[field][columns], dtype=np.float64)], names=[group]
        )
    if method in MARKER_TESTS:  # the signed statistic, as rank_genes_groups writes it
        entry["scores"] = np.rec.fromarrays(
            [np.asarray(table["scores"][columns], dtype=np.float32)], names=[group]
        )
    adata.uns[uns_key(method) if key is None else key] = entry


def select(
    adata,
    groupby: str | None = None,
    minority=None,
    method: str = "kofsd",
    *,
    top: int | None = None,
    key_added: str | None = None,
    **params,
) -> RunResult:
    """Select genes of ``adata`` for one class of ``obs[groupby]`` against the rest, and
    write the selection into ``adata`` (:func:`write_selection`).

    Parameters
    ----------
    adata : anndata.AnnData
        Cells or samples in rows; changed in place (var columns, an uns entry). An object
        opened backed (``anndata.read_h5ad(path, backed="r")``) keeps X on disk: the online
        selectors and the rankers that score each gene on its own read it a block of genes
        at a time, in bounded memory (a CSR X is first copied gene by gene to a temporary
        folder: :mod:`fsengine.io.backed`); the others read it into memory when it fits.
    groupby : str, optional
        The obs column of the classes (default: the only class-like one).
    minority : optional
        The class to select for (default: the library's rule, the smallest class the
        50/50 protocol can use).
    method : str
        Any method of the registry (``fsengine methods``).
    top : int, optional
        A ranker's number of genes (default: 50, or every gene when there are fewer); an
        online selector decides its own.
    key_added : str, optional
        The uns entry's key and the var columns' prefix (:func:`write_selection`); default:
        ``fsengine_{method}`` and ``{method}_``.
    **params
        The method's parameters. A selector with a ``ties`` parameter (K-OFSD, SFSF,
        OSFS-ET) not given one takes the order-invariant ``"average"`` on counts (a sparse,
        integer or mostly-zero X: :func:`fsengine.methods.online.ties_default`), said
        in the result's ``warnings``; the authors' ``"index"`` otherwise.

    Returns
    -------
    RunResult
        As :func:`fsengine.run_selection`; its ``warnings`` also say when a ranker that
        assumes normalised values ran on raw counts
        (:func:`fsengine.data.preprocess.counts_warning`).
    """
    dataset = dataset_from_anndata(adata, groupby)
    task = Task.from_dataset(dataset, minority)
    chosen = get_method(method)
    if not chosen.online and top is None:
        top = min(50, task.n_features)
    notes = ()
    if chosen.online and "ties" not in params:
        proposed = chosen.implementation.data_defaults(chosen.spec.defaults(), task.y, X=task.X)
        if "ties" in proposed:
            params["ties"], why = proposed["ties"]
            notes = (why,)
    result = run_selection(task, None, method, top=top, **params)
    write_selection(adata, task, result.selection, result.params, key=key_added)
    raw_counts = counts_warning(task.X, [method])
    result = dataclasses.replace(
        result, warnings=(*notes, *result.warnings, *((raw_counts,) if raw_counts else ()))
    )
    return result


def with_selection(task: Task, selection: Selection, source=None, params: dict | None = None):
    """An AnnData object with ``selection`` in it (:func:`write_selection`).

    Parameters
    ----------
    task : Task
        The selection's problem.
    selection : Selection
    params : dict, optional
        The run's record (:func:`write_selection`).
    source : str, path or bytes, optional
        The ``.h5ad`` file (or its bytes, or an AnnData Zarr store) the task was read from:
        the selection is added to that object, everything else in it kept (a task whose
        matrix stayed on disk: the object opened backed, its X left on disk). Else the
        object is built from the task: X, the class as the obs column of the task's label,
        the genes as var_names.

    Returns
    -------
    anndata.AnnData
    """
    import anndata
    import pandas as pd

    if source is not None and not isinstance(source, bytes) and is_zarr_store(source):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            adata = anndata.read_zarr(str(source))
    elif source is not None:
        backed = "r" if task.is_backed and not isinstance(source, bytes) else None
        with warnings.catch_warnings():  # an older layout's notices
            warnings.simplefilter("ignore")
            adata = anndata.read_h5ad(
                io.BytesIO(source) if isinstance(source, bytes) else source, backed=backed
            )
    else:
        dataset = task.dataset
        labels = (
            dataset.labels
            if dataset is not None
            else np.where(task.y == 1, str(task.minority), "rest")
        )
        names = dataset.sample_names if dataset is not None else None
        obs = pd.DataFrame(
            {task.label_column or "class": [str(v) for v in labels]},
            index=[str(n) for n in (names or range(task.n_samples))],
        )
        X = task.dense().X if task.is_backed else task.X  # a matrix on disk: read, if it fits
        adata = anndata.AnnData(X=X, obs=obs, var=pd.DataFrame(index=list(task.names)))
    write_selection(adata, task, selection, params)
    return adata


def to_h5ad(
    task: Task, selection: Selection, path, source=None, params: dict | None = None
) -> None:
    """Write :func:`with_selection`'s object to the ``.h5ad`` file ``path`` (a task whose
    matrix stayed on disk: its source opened backed, X copied to ``path`` by anndata a
    chunk at a time)."""
    if (
        source is not None
        and task.is_backed
        and not isinstance(source, bytes)
        and Path(source).resolve() == Path(path).resolve()
    ):
        raise FSEngineError(f"cannot write {path}: it is the file the matrix is read from")
    adata = with_selection(task, selection, source, params)
    try:
        adata.write_h5ad(path)
    except OSError as exc:
        raise FSEngineError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        if adata.isbacked:
            adata.file.close()


def h5ad_bytes(task: Task, selection: Selection, source=None, params: dict | None = None) -> bytes:
    """:func:`with_selection`'s object as the bytes of an ``.h5ad`` file (a download)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "selection.h5ad"
        to_h5ad(task, selection, path, source, params)
        return path.read_bytes()
