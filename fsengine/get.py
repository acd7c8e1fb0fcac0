"""Getters in scanpy's manner: a result that :mod:`fsengine.tl` wrote, as a table."""

from __future__ import annotations

from fsengine.errors import FSEngineError

__all__ = ["selection_df"]


def _is_selection(entry) -> bool:
    """Whether an uns entry is a selection fsengine wrote (scanpy's rank_genes_groups,
    laid out alike, is not)."""
    return (
        isinstance(entry, dict)
        and "names" in entry
        and "fsengine_status" in (entry.get("params") or {})
    )


def selection_entry(adata, key: str) -> tuple[dict, str, str]:
    """The uns entry ``key`` of a selection written by :func:`fsengine.tl.select`, its
    obs column and its group.

    Parameters
    ----------
    adata : anndata.AnnData
        The object holding the entry.
    key : str
        Its ``uns`` key (``fsengine_{method}`` by default).

    Returns
    -------
    tuple
        (the entry, the obs column grouped by, the group selected for).

    Raises
    ------
    FSEngineError
        When ``adata.uns`` holds no selection under ``key`` (the keys it holds are named).
    """
    entry = adata.uns.get(key)
    if not _is_selection(entry):
        held = [k for k, v in adata.uns.items() if _is_selection(v)]
        raise FSEngineError(
            f"adata.uns has no selection under {key!r}; "
            + (f"it has {', '.join(map(repr, held))}" if held else "run fs.tl.select first")
        )
    return entry, str(entry["params"]["groupby"]), str(entry["names"].dtype.names[0])


def selection_df(adata, key: str = "fsengine_kofsd"):
    """The selected genes of the entry ``key``, in the method's order, as a table.

    Parameters
    ----------
    adata : anndata.AnnData
        An object :func:`fsengine.tl.select` wrote into.
    key : str
        The entry's ``uns`` key (the ``key_added`` given, else ``fsengine_{method}``).

    Returns
    -------
    pandas.DataFrame
        One row per selected gene: ``names``, ``scores`` (the method's), ``pvals``,
        ``pvals_adj`` and ``logfoldchanges`` (Welch's t-test's, or the marker test's), as
        ``scanpy.get.rank_genes_groups_df`` gives them.
    """
    import pandas as pd

    entry, _groupby, group = selection_entry(adata, key)
    fields = ("names", "scores", "pvals", "pvals_adj", "logfoldchanges")
    return pd.DataFrame({f: list(entry[f][group]) for f in fields if f in entry})
