"""Plotly figures of the Genes view as pure functions (no Streamlit here).

Heat map, box or violin panels and PCA of the samples over selected genes, and how
often a method selected each gene; the numbers come from :mod:`fsengine.evaluation.genes`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from fsengine._compute.sparse import is_sparse
from fsengine.data.dataset import Dataset
from fsengine.errors import FSEngineError
from fsengine.evaluation.genes import (
    DRAWN_SAMPLES,
    HEATMAP_SAMPLES,
    class_sample,
    cluster_order,
    column_values,
    gene_columns,
    grouped_cluster_order,
    pca_coordinates,
    row_values,
    zscore_columns,
)
from fsengine.pl.figures import PALETTE

__all__ = [
    "MINORITY_COLOUR",
    "class_colours",
    "class_ticks",
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
#: What a figure is taken to be wide when laying out its labels: the dashboard's wide
#: layout gives a chart about 900 px in a 1400 px window.
_FIGURE_PX = 900
#: gene_box_figure's panels: their height (px) and the space between two columns (a
#: fraction of the figure's width).
_PANEL_PX = 200
_PANEL_SPACING = 0.06
#: What a tick label's character is taken to be wide at 11 px.
_CHAR_PX = 6.5
#: Lines a class name may be wrapped into on an axis; beyond, the labels are angled.
_TICK_LINES = 3
#: Categories at least this wide take labels at -45 degrees; narrower ones, upright
#: labels (-90), which do not reach into the next panel.
_SLANT_PX = 28


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


def _class_bar(x: list, classes: list, colours: dict, samples: list) -> go.Heatmap:
    """The heat map's one-row class bar: each sample's class as its code 0..C-1 on a
    stepped colour scale of the classes' colours, the sample and class on hover."""
    order = list(colours)
    codes = [order.index(c) for c in classes]
    n = len(order)
    scale = []
    for i, c in enumerate(order):
        scale += [[i / n, colours[c]], [(i + 1) / n, colours[c]]]
    return go.Heatmap(
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


def _zscore_heat(
    x: list, z: np.ndarray, raw: np.ndarray, names: list, samples: list, classes: list
) -> go.Heatmap:
    """The genes' z-scores (samples x genes, drawn transposed: one row per gene), each
    cell's sample, class and raw value on hover."""
    cells = np.empty(z.T.shape + (3,), dtype=object)
    cells[:, :, 0] = np.array(samples, dtype=object)[None, :]
    cells[:, :, 1] = np.array([str(c) for c in classes], dtype=object)[None, :]
    cells[:, :, 2] = np.vectorize(lambda v: f"{v:.4g}", otypes=[object])(raw.T)
    return go.Heatmap(
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


def _heatmap_order(values: np.ndarray, labels: np.ndarray, drawn, first):
    """The heat map's rows (samples) and columns (genes) in drawing order, and its
    z-scores there (per gene over every sample, clipped at +-3): every sample clustered
    (:func:`fsengine.evaluation.genes.cluster_order`), or the ``drawn`` sample grouped by
    class, ``first`` first, and clustered within each class."""
    if drawn.sampled:
        z_all = zscore_columns(values, clip=3.0)  # over every sample, then drawn
        order, cols = grouped_cluster_order(z_all[drawn.rows], labels[drawn.rows], first=first)
        rows = drawn.rows[order]
        return rows, cols, z_all[np.ix_(rows, cols)]
    rows, cols = cluster_order(values)
    return rows, cols, zscore_columns(values, clip=3.0)[np.ix_(rows, cols)]


def gene_heatmap_figure(
    dataset: Dataset,
    minority,
    genes: Sequence[str],
    most: int = HEATMAP_SAMPLES,
    seed: int = 0,
) -> go.Figure:
    """Heat map of samples x genes, z-scored per gene and clustered, with a class bar.

    Up to ``most`` samples, every sample is drawn and the samples are clustered
    (:func:`fsengine.evaluation.genes.cluster_order`). Above, a seeded sample of each class is drawn
    (:func:`fsengine.evaluation.genes.class_sample`: the classes share ``most`` equally), grouped by
    class (the minority first) and clustered within each class
    (:func:`fsengine.evaluation.genes.grouped_cluster_order`); the title says how many of how many.
    The z-scores are always over all samples, so a colour means the same in both cases.

    Parameters
    ----------
    dataset : Dataset
        Its matrix may be dense or sparse: only the genes' columns are read.
    minority : label or str
        The class drawn in red in the class bar.
    genes : sequence of str
        Gene names (at least one).
    most : int, default :data:`fsengine.evaluation.genes.HEATMAP_SAMPLES`
        Samples drawn at most.
    seed : int, default 0
        Seed of the sample above ``most``.

    Returns
    -------
    plotly.graph_objects.Figure
        Two traces sharing the sample axis: a one-row heat map of the samples' classes
        on top (trace 0, ``text`` = class of each sample) and the genes' z-scores
        (per gene over all samples, clipped at +-3) below (trace 1, one row per gene;
        ``customdata[gene, sample]`` = sample name, class, value).

    Raises
    ------
    FSEngineError
        For an unknown class or gene, or an empty list of genes.
    """
    columns = gene_columns(dataset, genes)
    colours = class_colours(dataset, minority)
    label = dataset.resolve_class(minority)
    values = column_values(dataset.X, columns)
    drawn = class_sample(dataset.labels, most, seed)
    rows, cols, z = _heatmap_order(values, dataset.labels, drawn, label)
    raw = values[np.ix_(rows, cols)]
    names = [dataset.feature_names[columns[c]] for c in cols]
    all_samples = _sample_names(dataset)
    samples = [all_samples[r] for r in rows]
    classes = [dataset.labels[r] for r in rows]
    x = list(range(len(rows)))

    bar = _class_bar(x, classes, colours, samples)
    heat = _zscore_heat(x, z, raw, names, samples, classes)
    top = 60 if drawn.sampled else 30
    height = max(320, 80 + top + 20 * len(names))
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
    if drawn.sampled:
        axis_title = (
            f"samples ({len(rows):,} of {drawn.total:,}): grouped by class, {label} first, "
            "clustered within each class"
        )
        fig.update_layout(title=dict(text=drawn.text()[0].upper() + drawn.text()[1:], x=0))
    else:
        axis_title = f"samples ({len(rows)}, clustered)"
    fig.update_xaxes(title_text=axis_title, row=2, col=1)
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
        margin=dict(l=10, r=10, t=top, b=30),
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


def _word_lines(text: str, width: int) -> list[str] | None:
    """``text`` in lines of at most ``width`` characters broken only after a separator
    (:data:`_BREAKS`; spaces at the breaks dropped), or None when a word is longer."""
    words = re.findall(f"[^{re.escape(_BREAKS)}]*[{re.escape(_BREAKS)}]*", str(text))
    lines = [""]
    for word in filter(None, words):
        if len(word.rstrip()) > width:
            return None
        if lines[-1] and len(lines[-1] + word.rstrip()) > width:
            lines.append("")
        lines[-1] += word
    return [line.strip() for line in lines]


def _bold(text: str) -> str:
    return "<br>".join(f"<b>{line}</b>" for line in text.split("<br>"))


def class_ticks(classes: Sequence[str], panel_px: float, bold: int | None = None) -> dict:
    """Tick labels of a class axis that are never cut: whole names, wrapped at separators
    into at most :data:`_TICK_LINES` lines when every name fits its category's width so,
    else angled (-45 degrees; -90 when a category is narrower than :data:`_SLANT_PX`).

    Parameters
    ----------
    classes : sequence of str
        The class names, in axis order.
    panel_px : float
        The panel's width in pixels (an estimate: the figure's width is the browser's).
    bold : int, optional
        The position of the class shown in bold (the minority).

    Returns
    -------
    dict
        ``ticktext``, ``tickangle`` (0 or negative), ``lines`` (text lines a label takes)
        and ``reach`` (pixels the labels take below the axis).
    """
    category = panel_px / max(1, len(classes))
    width = max(1, int(category // _CHAR_PX))
    wrapped = [_word_lines(c, width) for c in classes]
    if all(w is not None and len(w) <= _TICK_LINES for w in wrapped):
        texts = ["<br>".join(w) for w in wrapped]
        angle, lines = 0, max(len(w) for w in wrapped)
        reach = 14 * lines
    else:
        texts = [str(c) for c in classes]
        angle = -45 if category >= _SLANT_PX else -90
        lines = 1
        reach = max(len(c) for c in texts) * _CHAR_PX * abs(math.sin(math.radians(angle))) + 12
    if bold is not None:
        texts[bold] = _bold(texts[bold])
    return dict(ticktext=texts, tickangle=angle, lines=lines, reach=int(math.ceil(reach)))


def _box_statistics(values: np.ndarray) -> dict:
    """Plotly's box of ``values`` computed here: linear quartiles (numpy's default, as
    plotly's ``quartilemethod="linear"``), whiskers at the furthest values within 1.5 IQR
    of the box, and the mean."""
    q1, median, q3 = np.percentile(values, [25, 50, 75])
    reach = 1.5 * (q3 - q1)
    return dict(
        q1=q1,
        median=median,
        q3=q3,
        lowerfence=values[values >= q1 - reach].min(),
        upperfence=values[values <= q3 + reach].max(),
        mean=values.mean(),
    )


def _panel_style(gene: str) -> dict:
    """The style every gene panel's trace shares (named by the gene, grey, no legend)."""
    return dict(
        name=gene,
        showlegend=False,
        marker=dict(color=REST_COLOUR, size=4),
        line=dict(color=REST_COLOUR),
    )


def _summary_box(gene: str, order: list[str], boxes: list[dict]) -> go.Box:
    """A box per class from precomputed statistics (:func:`_box_statistics`), no points."""
    return go.Box(
        x=order,
        boxpoints=False,
        **{key: [b[key] for b in boxes] for key in boxes[0]},
        **_panel_style(gene),
    )


def _drawn_trace(gene: str, kind: str, x: list, y: np.ndarray, samples: list, hover: list):
    """A box or violin over the drawn samples, every sample shown as a point with its
    name and class on hover."""
    common = dict(x=x, y=y, text=samples, hovertext=hover, **_panel_style(gene))
    if kind == "box":
        return go.Box(boxpoints="all", jitter=0.4, pointpos=0, **common)
    return go.Violin(
        points="all", jitter=0.4, pointpos=0, box_visible=True, spanmode="hard", **common
    )


def _minority_shade(panel: int, minority_at: int) -> dict:
    """The red band behind the minority's category in panel ``panel`` (0-based), as a
    layout shape (one per panel, set at once: ``add_vrect`` per panel takes seconds)."""
    axis = "" if panel == 0 else str(panel + 1)
    return dict(
        type="rect",
        xref=f"x{axis}",
        yref=f"y{axis} domain",
        x0=minority_at - 0.5,
        x1=minority_at + 0.5,
        y0=0,
        y1=1,
        fillcolor=MINORITY_COLOUR,
        opacity=0.12,
        line_width=0,
        layer="below",
    )


def _box_grid_title(drawn, summarised: bool, most: int) -> str | None:
    """What the box/violin grid's title says when not every sample is a point: boxes
    summarising every sample, or violins of a sample of each class (None: all drawn)."""
    if summarised:
        return (
            f"Boxes over all {drawn.total:,} samples (quartiles; whiskers: the furthest "
            f"values within 1.5 IQR); no points above {most:,} samples"
        )
    if drawn.sampled:
        return "Violins of " + drawn.text()
    return None


def _class_axis(order: list[str], ticks: dict) -> dict:
    """A panel's class axis: the classes as categories in ``order``, their tick labels
    from :func:`class_ticks`."""
    return dict(
        type="category",
        categoryorder="array",
        categoryarray=order,
        tickmode="array",
        tickvals=order,
        ticktext=ticks["ticktext"],
        tickangle=ticks["tickangle"],
        tickfont=_TICK_FONT,
    )


def gene_box_figure(
    dataset: Dataset,
    minority,
    genes: Sequence[str],
    kind: str = "box",
    statistics: pd.DataFrame | None = None,
    columns: int = 4,
    most: int = DRAWN_SAMPLES,
    seed: int = 0,
) -> go.Figure:
    """A grid of small panels, one per gene: its values per class as a box or violin.

    Up to ``most`` samples, every sample is drawn as a point over its class's box or
    violin. Above, boxes summarise every sample (quartiles and whiskers computed here,
    no point drawn) and violins are drawn from a seeded sample of each class
    (:func:`fsengine.evaluation.genes.class_sample`); the figure's title says which.

    Parameters
    ----------
    dataset : Dataset
        Its matrix may be dense or sparse: only the genes' columns are read.
    minority : label or str
        The class whose category is shaded red (and its tick label bold).
    genes : sequence of str
        Gene names (at least one), in panel order.
    kind : {"box", "violin"}
    statistics : pandas.DataFrame, optional
        :func:`fsengine.evaluation.genes.gene_statistics` of these genes: each panel's title then
        shows Hedges' g and the Benjamini-Hochberg adjusted p.
    columns : int, default 4
        Panels per row (at most the number of genes).
    most : int, default :data:`fsengine.evaluation.genes.DRAWN_SAMPLES`
        Samples drawn as points at most.
    seed : int, default 0
        Seed of the violins' sample above ``most``.

    Returns
    -------
    plotly.graph_objects.Figure
        Exactly one trace per gene (``go.Box`` or ``go.Violin``, named by the gene).
        Drawn samples: x = class label as text for every sample, all points shown; each
        point's hover text names its sample and its whole class. Boxes above ``most``:
        x = the classes, with ``q1``, ``median``, ``q3``, ``lowerfence``, ``upperfence``
        and ``mean`` over all samples. Panel titles are 13 px, long gene names wrapped to
        the panel's width; class names are whole on the axes (:func:`class_ticks`).

    Raises
    ------
    FSEngineError
        For an unknown class, gene or ``kind``, or an empty list of genes.
    """
    if kind not in ("box", "violin"):
        raise FSEngineError(f"must be 'box' or 'violin', got {kind!r}", parameter="kind")
    indices = gene_columns(dataset, genes)
    label = dataset.resolve_class(minority)
    classes = _classes(dataset)
    order = [str(c) for c in classes]
    minority_at = order.index(str(label))
    values = column_values(dataset.X, indices)
    drawn = class_sample(dataset.labels, most, seed)
    summarised = drawn.sampled and kind == "box"
    rows = drawn.rows
    x = [str(c) for c in dataset.labels[rows]]
    all_samples = _sample_names(dataset)
    samples = [all_samples[r] for r in rows]
    ncols = max(1, min(columns, len(indices)))
    names = [dataset.feature_names[c] for c in indices]
    # About 7 px a character at 13 px and a panel of about 1000 / ncols px.
    titles = [_panel_title(g, statistics, max(12, 130 // ncols)) for g in names]
    panel_px = _FIGURE_PX * (1 - _PANEL_SPACING * (ncols - 1)) / ncols
    ticks = class_ticks(order, panel_px, bold=minority_at)
    figure_title = _box_grid_title(drawn, summarised, most)
    fig, size = _panel_grid(titles, ncols, ticks["reach"], figure_title is not None)
    hover = [f"{sample}<br>class {c}" for sample, c in zip(samples, x)]
    for i, gene in enumerate(names):
        row, col = divmod(i, ncols)
        if summarised:
            boxes = [_box_statistics(values[dataset.labels == c, i]) for c in classes]
            trace = _summary_box(gene, order, boxes)
        else:
            trace = _drawn_trace(gene, kind, x, values[rows, i], samples, hover)
        fig.add_trace(trace, row + 1, col + 1)
        fig.update_xaxes(**_class_axis(order, ticks), row=row + 1, col=col + 1)
    shades = [_minority_shade(i, minority_at) for i in range(len(names))]
    fig.update_layout(shapes=shades)
    fig.update_yaxes(tickfont=_TICK_FONT)
    fig.update_annotations(font_size=_TITLE_SIZE)
    if figure_title:
        fig.update_layout(title=dict(text=figure_title, x=0, font=dict(size=13)))
    fig.update_layout(**size, uirevision="gene-box")
    return fig


def _panel_grid(
    titles: list[str], ncols: int, tick_reach: float, figure_title: bool
) -> tuple[go.Figure, dict]:
    """The empty grid of :func:`gene_box_figure`: a subplot per title, ``ncols`` a row,
    panels of :data:`_PANEL_PX` with room between two rows for the class ticks of the
    upper (``tick_reach`` px) and the titles of the lower (17 px a line).

    Returns
    -------
    tuple
        The figure, and its ``height`` and ``margin`` (room above for the titles and
        ``figure_title``'s line, below for the ticks) as layout keywords.
    """
    nrows = math.ceil(len(titles) / ncols)
    title_lines = max(t.count("<br>") + 1 for t in titles)
    top = 20 + 17 * title_lines + (30 if figure_title else 0)
    bottom = 10 + tick_reach
    gap = 17 * title_lines + tick_reach + 16
    plot = nrows * _PANEL_PX + (nrows - 1) * gap
    fig = make_subplots(
        rows=nrows,
        cols=ncols,
        subplot_titles=titles,
        horizontal_spacing=_PANEL_SPACING,
        vertical_spacing=gap / plot if nrows > 1 else 0.1,
    )
    size = {"height": top + bottom + plot, "margin": dict(l=10, r=10, t=top, b=bottom)}
    return fig, size


def _class_scatter(fig, coordinates, labels, colours, col, legend, samples) -> None:
    """One marker trace per class into panel ``col`` (rows of ``coordinates``, their
    ``labels`` and ``samples`` names)."""
    for label, colour in colours.items():
        mask = labels == label
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


def _all_genes_pca(
    dataset: Dataset, rows: np.ndarray, fit_on_rows: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The PCA of every gene (:func:`fsengine.evaluation.genes.pca_coordinates`) at ``rows``:
    fit on those rows only when ``fit_on_rows`` or the matrix is on disk (which then gives
    those rows only), else on all samples; a sparse matrix stays sparse (no copy). Returns
    the rows' coordinates, padded with zeros to two components, and the explained
    variance ratios."""
    if fit_on_rows or dataset.is_backed:
        drawn_rows = dataset.X[rows] if is_sparse(dataset.X) else row_values(dataset.X, rows)
        coords, ratio, _ = pca_coordinates(drawn_rows)
    else:
        coords, ratio, _ = pca_coordinates(dataset.X)
        coords = coords[rows]
    if coords.shape[1] < 2:
        coords = np.column_stack([coords, np.zeros((len(coords), 2 - coords.shape[1]))])
    return coords, ratio


def pca_figure(
    dataset: Dataset,
    minority,
    genes: Sequence[str],
    most: int = DRAWN_SAMPLES,
    seed: int = 0,
) -> go.Figure:
    """PCA of the samples over the selected genes and over all genes, side by side.

    Each panel is :func:`fsengine.evaluation.genes.pca_coordinates` (standardised columns, constant
    ones dropped) to two components; axis titles give the explained variance ratio.
    When fewer than two selected genes vary, the left panel plots the (first varying)
    gene's values against the sample index instead, and its title says so.

    Above ``most`` samples, a seeded sample of each class is drawn
    (:func:`fsengine.evaluation.genes.class_sample`): the selected genes' PCA is still fit on all
    samples, the PCA of all genes on the drawn samples only (no copy of the whole
    matrix); the title says so.

    Parameters
    ----------
    dataset : Dataset
        Its matrix may be dense or sparse.
    minority : label or str
        The class drawn in red.
    genes : sequence of str
        The selected genes (at least one).
    most : int, default :data:`fsengine.evaluation.genes.DRAWN_SAMPLES`
    seed : int, default 0

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
    drawn = class_sample(dataset.labels, most, seed)
    rows = drawn.rows
    all_samples = _sample_names(dataset)
    samples = [all_samples[r] for r in rows]
    labels = dataset.labels[rows]
    selected = column_values(dataset.X, indices)
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
    right_title = f"all genes ({dataset.n_features})"
    if drawn.sampled:
        right_title += ", fit on the drawn samples"
    all_coords, all_ratio = _all_genes_pca(dataset, rows, fit_on_rows=drawn.sampled)
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=(left_title, right_title),
        horizontal_spacing=0.08,
    )
    _class_scatter(fig, coords[rows], labels, colours, 1, True, samples)
    _class_scatter(fig, all_coords, labels, colours, 2, False, samples)
    if index_plot:
        fig.update_xaxes(title_text=gene, row=1, col=1)
        fig.update_yaxes(title_text="sample index", row=1, col=1)
    else:
        fig.update_xaxes(title_text=_pc_title(ratio, 0), row=1, col=1)
        fig.update_yaxes(title_text=_pc_title(ratio, 1), row=1, col=1)
    fig.update_xaxes(title_text=_pc_title(all_ratio, 0), row=1, col=2)
    fig.update_yaxes(title_text=_pc_title(all_ratio, 1), row=1, col=2)
    fig.update_annotations(font_size=13)
    top = 40
    if drawn.sampled:
        text = drawn.text()
        fig.update_layout(title=dict(text=text[0].upper() + text[1:], x=0, font=dict(size=13)))
        top = 70
    fig.update_layout(
        height=420 + top - 40,
        margin=dict(l=10, r=10, t=top, b=10),
        legend=dict(orientation="h", y=-0.15),
        uirevision="gene-pca",
    )
    return fig


def frequency_figure(frequencies: pd.DataFrame, n_splits: int, top: int = 30) -> go.Figure:
    """Horizontal bars of how many splits selected each gene, most often on top.

    Parameters
    ----------
    frequencies : pandas.DataFrame
        :func:`fsengine.evaluation.genes.selection_frequencies` (sorted, most often first).
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
