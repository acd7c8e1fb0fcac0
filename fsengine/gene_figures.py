"""Plotly figures of the Genes view as pure functions (no Streamlit here).

Heat map, box or violin panels and PCA of the samples over selected genes, and how
often a method selected each gene; the numbers come from :mod:`fsengine.genes`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from fsengine.data import Dataset
from fsengine.errors import FSEngineError
from fsengine.figures import PALETTE
from fsengine.genes import (
    LINKAGE_MAX,
    cluster_order,
    gene_columns,
    pca_coordinates,
    zscore_columns,
)

__all__ = [
    "MINORITY_COLOUR",
    "class_colours",
    "frequency_figure",
    "gene_box_figure",
    "gene_heatmap_figure",
    "pca_figure",
    "wrap_text",
]

MINORITY_COLOUR = "#d62728"
REST_COLOUR = "#1f77b4"
#: Frequency bars of genes that the method did not select on the whole data.
_UNRANKED_COLOUR = "#aec7e8"
#: Colours of the other classes: the methods' palette without the minority's red.
_PALETTE = tuple(c for c in PALETTE if c != MINORITY_COLOUR)
_TICK_FONT = dict(size=11)
#: The box panels' titles (gene, Hedges' g and p): px.
_TITLE_SIZE = 13
#: Characters after which a long name may break.
_BREAKS = " _-/.|;,"


def _classes(dataset: Dataset) -> list:
    """The class labels in sorted order (np.unique's), for a fixed axis and legend order."""
    return np.unique(dataset.labels).tolist()


def class_colours(dataset: Dataset, minority) -> dict:
    """Colour of each class label: the minority red, the others from a fixed palette.

    Parameters
    ----------
    dataset : Dataset
    minority : label or str

    Returns
    -------
    dict
        Label (as stored in ``dataset.labels``) -> hex colour, in sorted label order.
    """
    label = dataset.resolve_class(minority)
    others = iter(_PALETTE * (1 + len(_classes(dataset)) // len(_PALETTE)))
    return {c: MINORITY_COLOUR if c == label else next(others) for c in _classes(dataset)}


def _sample_names(dataset: Dataset) -> list[str]:
    if dataset.sample_names is not None:
        return [str(s) for s in dataset.sample_names]
    return [f"#{i}" for i in range(dataset.n_samples)]


def gene_heatmap_figure(dataset: Dataset, minority, genes: Sequence[str]) -> go.Figure:
    """Heat map of samples x genes, z-scored per gene and clustered, with a class bar.

    Parameters
    ----------
    dataset : Dataset
    minority : label or str
        The class drawn in red in the class bar.
    genes : sequence of str
        Gene names (at least one).

    Returns
    -------
    plotly.graph_objects.Figure
        Two traces sharing the sample axis: a one-row heat map of the samples' classes
        on top (trace 0, ``text`` = class of each sample) and the genes' z-scores
        (per gene over all samples, clipped at +-3) below (trace 1, one row per gene).
        Samples and genes are in :func:`fsengine.genes.cluster_order`.

    Raises
    ------
    FSEngineError
        For an unknown class or gene, or an empty list of genes.
    """
    columns = gene_columns(dataset, genes)
    colours = class_colours(dataset, minority)
    values = dataset.dense_values(columns)
    rows, cols = cluster_order(values)
    z = zscore_columns(values, clip=3.0)[np.ix_(rows, cols)]
    raw = values[np.ix_(rows, cols)]
    names = [dataset.feature_names[columns[c]] for c in cols]
    samples = [_sample_names(dataset)[r] for r in rows]
    classes = [dataset.labels[r] for r in rows]
    x = list(range(len(rows)))

    # Class bar: classes as codes 0..C-1 on a stepped colour scale
    order = list(colours)
    codes = [order.index(c) for c in classes]
    n = len(order)
    scale = []
    for i, c in enumerate(order):
        scale += [[i / n, colours[c]], [(i + 1) / n, colours[c]]]
    bar = go.Heatmap(
        z=[codes],
        x=x,
        y=["class"],
        zmin=-0.5,
        zmax=n - 0.5,
        colorscale=scale,
        showscale=False,
        text=[[str(c) for c in classes]],
        customdata=[samples],
        hovertemplate="sample %{customdata}<br>class %{text}<extra></extra>",
        xgap=0,
    )
    cells = np.empty(z.T.shape + (3,), dtype=object)
    cells[:, :, 0] = np.array(samples, dtype=object)[None, :]
    cells[:, :, 1] = np.array([str(c) for c in classes], dtype=object)[None, :]
    cells[:, :, 2] = np.vectorize(lambda v: f"{v:.4g}", otypes=[object])(raw.T)
    heat = go.Heatmap(
        z=z.T,
        x=x,
        y=names,
        zmin=-3,
        zmax=3,
        zmid=0,
        colorscale="RdBu_r",
        customdata=cells,
        colorbar=dict(title=dict(text="z"), len=0.8, y=0.4, thickness=12),
        hovertemplate=(
            "sample %{customdata[0]}<br>class %{customdata[1]}<br>gene %{y}"
            "<br>value %{customdata[2]} (z %{z:.2f})<extra></extra>"
        ),
    )
    height = max(320, 110 + 20 * len(names))
    bar_share = min(0.25, 28 / height)
    fig = make_subplots(
        rows=2,
        cols=1,
        shared_xaxes=True,
        row_heights=[bar_share, 1 - bar_share],
        vertical_spacing=0.01,
    )
    fig.add_trace(bar, 1, 1)
    fig.add_trace(heat, 2, 1)
    fig.update_xaxes(showticklabels=False, ticks="")
    ordered = "clustered" if len(rows) <= LINKAGE_MAX else "along their first principal component"
    fig.update_xaxes(title_text=f"samples ({len(rows)}, {ordered})", row=2, col=1)
    fig.update_yaxes(type="category", tickfont=_TICK_FONT, row=1, col=1)
    fig.update_yaxes(
        type="category",
        autorange="reversed",
        tickmode="array",
        tickvals=names,
        ticktext=names,
        tickfont=_TICK_FONT,
        row=2,
        col=1,
    )
    fig.update_layout(
        height=height,
        margin=dict(l=10, r=10, t=30, b=30),
        uirevision="gene-heatmap",
    )
    return fig


def wrap_text(text: str, width: int, lines: int | None = None) -> str:
    """``text`` in lines of at most ``width`` characters, joined by ``<br>``.

    Parameters
    ----------
    text : str
    width : int
        Characters a line (at least 2).
    lines : int, optional
        At most this many lines: the last one kept ends in "…".

    Returns
    -------
    str
        Lines broken after a space, '_', '-', '/', '.', '|', ';' or ',' in a line's
        second half, else mid-word; spaces at the breaks dropped.
    """
    width = max(2, int(width))
    out = []
    rest = str(text)
    while len(rest) > width:
        cut = max((i + 1 for i, ch in enumerate(rest[:width]) if ch in _BREAKS), default=0)
        if cut <= width // 2:
            cut = width
        out.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    out.append(rest)
    if lines is not None and len(out) > lines:
        out = out[:lines]
        out[-1] = out[-1][: width - 1] + "…"
    return "<br>".join(out)


def _panel_title(gene: str, statistics: pd.DataFrame | None, width: int) -> str:
    """The gene's name (wrapped), then its g and BH p on a line of the same size."""
    name = wrap_text(gene, width, lines=3)
    if statistics is None:
        return name
    found = statistics[statistics["gene"] == gene]
    if found.empty:
        return name
    row = found.iloc[0]
    g = "n/a" if pd.isna(row["hedges_g"]) else f"{row['hedges_g']:+.2f}"
    p = "n/a" if pd.isna(row["p_bh"]) else f"{row['p_bh']:.2g}"
    return f"{name}<br>g = {g}, p(BH) = {p}"


def gene_box_figure(
    dataset: Dataset,
    minority,
    genes: Sequence[str],
    kind: str = "box",
    statistics: pd.DataFrame | None = None,
    columns: int = 4,
) -> go.Figure:
    """A grid of small panels, one per gene: its values per class as a box or violin.

    Parameters
    ----------
    dataset : Dataset
    minority : label or str
        The class whose category is shaded red (and its tick label bold).
    genes : sequence of str
        Gene names (at least one), in panel order.
    kind : {"box", "violin"}
    statistics : pandas.DataFrame, optional
        :func:`fsengine.genes.gene_statistics` of these genes: each panel's title then
        shows Hedges' g and the Benjamini-Hochberg adjusted p.
    columns : int, default 4
        Panels per row (at most the number of genes).

    Returns
    -------
    plotly.graph_objects.Figure
        Exactly one trace per gene (``go.Box`` or ``go.Violin``, named by the gene;
        x = class label as text for every sample, all points shown; each point's hover
        text names its sample and its whole class). Panel titles are 13 px, long gene
        names wrapped to the panel's width; long class names are wrapped (two lines at
        most, then cut with "…") on the axes only.

    Raises
    ------
    FSEngineError
        For an unknown class, gene or ``kind``, or an empty list of genes.
    """
    if kind not in ("box", "violin"):
        raise FSEngineError(f"must be 'box' or 'violin', got {kind!r}", parameter="kind")
    indices = gene_columns(dataset, genes)
    label = dataset.resolve_class(minority)
    order = [str(c) for c in _classes(dataset)]
    minority_at = order.index(str(label))
    x = [str(c) for c in dataset.labels]
    samples = _sample_names(dataset)
    ncols = max(1, min(columns, len(indices)))
    nrows = math.ceil(len(indices) / ncols)
    names = [dataset.feature_names[c] for c in indices]
    # About 7 px a character at 13 px and a panel of about 1000 / ncols px.
    titles = [_panel_title(g, statistics, max(12, 130 // ncols)) for g in names]
    # Class ticks: the panel's width shared by the classes, about 6 px a character.
    short = [wrap_text(c, max(6, 160 // (ncols * len(order))), lines=2) for c in order]
    title_lines = max(t.count("<br>") + 1 for t in titles)
    tick_lines = max(t.count("<br>") + 1 for t in short)
    top, bottom, panel = 20 + 17 * title_lines, 10 + 14 * tick_lines, 200
    gap = 17 * title_lines + 14 * tick_lines + 16  # the titles below, the ticks above
    plot = nrows * panel + (nrows - 1) * gap
    fig = make_subplots(
        rows=nrows,
        cols=ncols,
        subplot_titles=titles,
        horizontal_spacing=0.06,
        vertical_spacing=gap / plot if nrows > 1 else 0.1,
    )
    ticktext = [
        "<br>".join(f"<b>{line}</b>" for line in c.split("<br>")) if i == minority_at else c
        for i, c in enumerate(short)
    ]
    hover = [f"{sample}<br>class {c}" for sample, c in zip(samples, x)]
    for i, (gene, column) in enumerate(zip(names, indices)):
        row, col = divmod(i, ncols)
        common = dict(
            x=x,
            y=dataset.dense_values([column])[:, 0],
            name=gene,
            text=samples,
            hovertext=hover,
            showlegend=False,
            marker=dict(color=REST_COLOUR, size=4),
            line=dict(color=REST_COLOUR),
        )
        if kind == "box":
            trace = go.Box(boxpoints="all", jitter=0.4, pointpos=0, **common)
        else:
            trace = go.Violin(
                points="all", jitter=0.4, pointpos=0, box_visible=True, spanmode="hard", **common
            )
        fig.add_trace(trace, row + 1, col + 1)
        fig.update_xaxes(
            type="category",
            categoryorder="array",
            categoryarray=order,
            tickmode="array",
            tickvals=order,
            ticktext=ticktext,
            tickfont=_TICK_FONT,
            row=row + 1,
            col=col + 1,
        )
        fig.add_vrect(
            x0=minority_at - 0.5,
            x1=minority_at + 0.5,
            fillcolor=MINORITY_COLOUR,
            opacity=0.12,
            line_width=0,
            layer="below",
            row=row + 1,
            col=col + 1,
        )
    fig.update_yaxes(tickfont=_TICK_FONT)
    fig.update_annotations(font_size=_TITLE_SIZE)
    fig.update_layout(
        height=top + bottom + plot,
        margin=dict(l=10, r=10, t=top, b=bottom),
        uirevision="gene-box",
    )
    return fig


def _class_scatter(fig, coordinates, dataset, colours, col, legend, samples) -> None:
    """One marker trace per class into panel ``col``."""
    for label, colour in colours.items():
        mask = dataset.labels == label
        fig.add_trace(
            go.Scatter(
                x=coordinates[mask, 0],
                y=coordinates[mask, 1],
                mode="markers",
                name=f"class {label}",
                legendgroup=str(label),
                showlegend=legend,
                marker=dict(color=colour, size=7, line=dict(width=0.5, color="white")),
                text=[samples[i] for i in np.flatnonzero(mask)],
                hovertemplate=f"%{{text}}<br>class {label}<extra></extra>",
            ),
            1,
            col,
        )


def _pc_title(ratio: np.ndarray, i: int) -> str:
    return f"PC{i + 1} ({100 * ratio[i]:.1f}%)" if i < len(ratio) else f"PC{i + 1}"


def pca_figure(dataset: Dataset, minority, genes: Sequence[str]) -> go.Figure:
    """PCA of the samples over the selected genes and over all genes, side by side.

    Each panel is :func:`fsengine.genes.pca_coordinates` (standardised columns, constant
    ones dropped) to two components; axis titles give the explained variance ratio.
    When fewer than two selected genes vary, the left panel plots the (first varying)
    gene's values against the sample index instead, and its title says so.

    Parameters
    ----------
    dataset : Dataset
    minority : label or str
        The class drawn in red.
    genes : sequence of str
        The selected genes (at least one).

    Returns
    -------
    plotly.graph_objects.Figure
        Panels "selected genes (n)" and "all genes (n)", one marker trace per class and
        panel (the left panel's first), legend shared.

    Raises
    ------
    FSEngineError
        For an unknown class or gene, or an empty list of genes.
    """
    indices = gene_columns(dataset, genes)
    colours = class_colours(dataset, minority)
    samples = _sample_names(dataset)
    selected = dataset.dense_values(indices)
    coords, ratio, used = pca_coordinates(selected)
    index_plot = coords.shape[1] < 2 or dataset.n_samples < 2
    if index_plot:
        varying = [i for i in range(len(indices)) if selected[:, i].std() > 0]
        pick = varying[0] if varying else 0
        gene = dataset.feature_names[indices[pick]]
        left_title = f"selected genes ({len(indices)}): {gene} against sample index (no PCA)"
        coords = np.column_stack([selected[:, pick], np.arange(dataset.n_samples)])
    else:
        left_title = f"selected genes ({len(indices)})"
    all_coords, all_ratio, _ = pca_coordinates(dataset.X)
    if all_coords.shape[1] < 2:
        all_coords = np.column_stack(
            [all_coords, np.zeros((dataset.n_samples, 2 - all_coords.shape[1]))]
        )
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=(left_title, f"all genes ({dataset.n_features})"),
        horizontal_spacing=0.08,
    )
    _class_scatter(fig, coords, dataset, colours, 1, True, samples)
    _class_scatter(fig, all_coords, dataset, colours, 2, False, samples)
    if index_plot:
        fig.update_xaxes(title_text=gene, row=1, col=1)
        fig.update_yaxes(title_text="sample index", row=1, col=1)
    else:
        fig.update_xaxes(title_text=_pc_title(ratio, 0), row=1, col=1)
        fig.update_yaxes(title_text=_pc_title(ratio, 1), row=1, col=1)
    fig.update_xaxes(title_text=_pc_title(all_ratio, 0), row=1, col=2)
    fig.update_yaxes(title_text=_pc_title(all_ratio, 1), row=1, col=2)
    fig.update_annotations(font_size=13)
    fig.update_layout(
        height=420,
        margin=dict(l=10, r=10, t=40, b=10),
        legend=dict(orientation="h", y=-0.15),
        uirevision="gene-pca",
    )
    return fig


def frequency_figure(frequencies: pd.DataFrame, n_splits: int, top: int = 30) -> go.Figure:
    """Horizontal bars of how many splits selected each gene, most often on top.

    Parameters
    ----------
    frequencies : pandas.DataFrame
        :func:`fsengine.genes.selection_frequencies` (sorted, most often first).
    n_splits : int
        The number of splits: the axis runs from 0 to it.
    top : int, default 30
        Genes shown: the first ``top`` rows.

    Returns
    -------
    plotly.graph_objects.Figure
        One ``go.Bar`` (y = gene, x = times selected); genes also selected on the whole
        data are dark blue (the others light blue), with their rank in the hover text.
    """
    shown = frequencies.head(top)
    ranks = shown["whole_data_rank"].tolist() if "whole_data_rank" in shown else []
    ranks += [math.nan] * (len(shown) - len(ranks))
    ranked = [not pd.isna(r) for r in ranks]
    rank_text = [
        f"rank {int(r)} on the whole data" if ok else "not selected on the whole data"
        for r, ok in zip(ranks, ranked)
    ]
    fig = go.Figure(
        go.Bar(
            x=shown["times"].tolist(),
            y=shown["gene"].tolist(),
            orientation="h",
            marker_color=[REST_COLOUR if ok else _UNRANKED_COLOUR for ok in ranked],
            customdata=rank_text,
            hovertemplate=(
                f"%{{y}}: selected in %{{x}} of {n_splits} splits<br>%{{customdata}}<extra></extra>"
            ),
        )
    )
    step = max(1, math.ceil(n_splits / 10))
    fig.update_xaxes(
        title_text="times selected (splits)",
        range=[0, n_splits],
        dtick=step,
        tick0=0,
        tickformat="d",
    )
    fig.update_yaxes(type="category", autorange="reversed", tickfont=_TICK_FONT)
    fig.update_layout(
        height=max(240, 60 + 20 * len(shown)),
        margin=dict(l=10, r=10, t=30, b=40),
        uirevision="gene-frequency",
    )
    return fig
