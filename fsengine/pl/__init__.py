"""Plots in scanpy's manner: drawn from what :func:`fsengine.tl.select` wrote into an
AnnData object, as the dashboard's Genes page draws them (plotly figures, returned).

``fs.pl.heatmap(adata, key=...)`` and ``fs.pl.violin(adata, key=...)``: the selected
genes of the entry ``key`` over the cells of its group and of the rest.
"""

from __future__ import annotations

from fsengine.adata import dataset_from_anndata
from fsengine.errors import FSEngineError
from fsengine.get import selection_entry
from fsengine.pl.gene_figures import gene_box_figure, gene_heatmap_figure

__all__ = ["heatmap", "violin"]


def _selected(adata, key: str, n_genes: int | None):
    """The data set of ``adata`` grouped as the entry ``key`` was, its group and its first
    ``n_genes`` selected genes."""
    entry, groupby, group = selection_entry(adata, key)
    genes = [str(g) for g in entry["names"][group]][:n_genes]
    if not genes:
        raise FSEngineError(f"the selection under {key!r} holds no gene: nothing to draw")
    return dataset_from_anndata(adata, groupby), group, genes


def heatmap(adata, *, key: str = "fsengine_kofsd", n_genes: int | None = 30, seed: int = 0):
    """Heat map of the cells x the entry's selected genes, z-scored per gene and
    clustered, with the group in red in the class bar
    (:func:`fsengine.pl.gene_figures.gene_heatmap_figure`).

    Parameters
    ----------
    adata : anndata.AnnData
        An object :func:`fsengine.tl.select` wrote into.
    key : str
        The entry's ``uns`` key.
    n_genes : int or None
        The first this many of the selected genes (None: all).
    seed : int
        Seed of the sample of cells drawn when there are many.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    dataset, group, genes = _selected(adata, key, n_genes)
    return gene_heatmap_figure(dataset, group, genes, seed=seed)


def violin(
    adata,
    *,
    key: str = "fsengine_kofsd",
    n_genes: int | None = 8,
    kind: str = "violin",
    seed: int = 0,
):
    """One panel per selected gene of the entry: its values in the group and in the rest,
    as violins or boxes (:func:`fsengine.pl.gene_figures.gene_box_figure`).

    Parameters
    ----------
    adata : anndata.AnnData
        An object :func:`fsengine.tl.select` wrote into.
    key : str
        The entry's ``uns`` key.
    n_genes : int or None
        The first this many of the selected genes (None: all).
    kind : {"violin", "box"}
        The panels' shape.
    seed : int
        Seed of the sample of cells drawn when there are many.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    dataset, group, genes = _selected(adata, key, n_genes)
    return gene_box_figure(dataset, group, genes, kind=kind, seed=seed)
