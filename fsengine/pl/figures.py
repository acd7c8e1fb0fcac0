"""Plotly figures as pure functions of results (no Streamlit here)."""

from __future__ import annotations

import math
from collections.abc import Mapping

import plotly.graph_objects as go

__all__ = [
    "PALETTE",
    "class_counts_figure",
    "comparison_figure",
    "count_axis",
    "critical_difference_figure",
    "error_bars",
    "identical_curves",
    "jaccard_figure",
    "k_sweep_figure",
    "method_label",
    "metric_heatmap_figure",
    "stream_figure",
    "sweep_figure",
    "topk_sweep_figure",
]

#: Colours of methods in multi-method charts (plotly's default sequence).
PALETTE = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)


def method_label(name, labels: Mapping[str, str] | None = None) -> str:
    """What a figure shows for a method: its label, else the name as given.

    Parameters
    ----------
    name : str
        A method id (``"kofsd"``) or a name that starts with one (``"kofsd top 10"``:
        the first word is replaced).
    labels : mapping, optional
        Method id -> label, e.g. ``{n: m.spec.label for n, m in
        fsengine.methods.registry.REGISTRY.items()}`` (this module sits below the registry and
        does not import it). None: names are shown as given.

    Returns
    -------
    str
    """
    text = str(name)
    if not labels:
        return text
    if text in labels:
        return str(labels[text])
    head, space, rest = text.partition(" ")
    if space and head in labels:
        return f"{labels[head]} {rest}"
    return text


def _nice_step(span: float, ticks: int) -> float:
    """The smallest 1, 2 or 5 x 10^n that splits ``span`` into at most ``ticks`` steps."""
    if not span > 0:
        return 1.0
    raw = span / ticks
    power = 10.0 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if factor * power >= raw:
            return factor * power
    return 10 * power  # not reached


def count_axis(largest: float, ticks: int = 6) -> dict:
    """Axis settings for a count: integer ticks from 0, never a fractional step.

    Parameters
    ----------
    largest : float
        The largest count shown (0 or less: an empty chart, ticks 0 and 1).
    ticks : int, default 6
        At most about this many steps.

    Returns
    -------
    dict
        ``rangemode``, ``tickmode``, ``tick0``, ``dtick`` (an integer >= 1) and
        ``tickformat`` ("d") for ``update_yaxes`` or a layout's axis.
    """
    step = max(1, int(round(_nice_step(max(float(largest), 1.0), ticks))))
    return dict(rangemode="tozero", tickmode="linear", tick0=0, dtick=step, tickformat="d")


def error_bars(means, stds, low: float | None = 0.0, high: float | None = None, **style) -> dict:
    """Error bars of one standard deviation, cut at the possible range.

    Parameters
    ----------
    means, stds : sequence of float
    low, high : float, optional
        The possible range (counts and times: 0 and None; scores such as G-mean, F1 and
        AUC: 0 and 1). None: no bound on that side.
    **style
        Other ``error_y`` settings (``thickness``, ``width``).

    Returns
    -------
    dict
        An asymmetric ``error_y``: ``array`` (up) and ``arrayminus`` (down), neither
        reaching past the range; a missing or NaN deviation draws no bar.
    """
    up, down = [], []
    for mean, std in zip(means, stds):
        std = 0.0 if std is None or not math.isfinite(std) else float(std)
        if mean is None or not math.isfinite(mean):
            up.append(0.0)
            down.append(0.0)
            continue
        up.append(max(0.0, std if high is None else min(std, high - mean)))
        down.append(max(0.0, std if low is None else min(std, mean - low)))
    return dict(type="data", symmetric=False, array=up, arrayminus=down, **style)


def class_counts_figure(counts: dict, minority=None) -> go.Figure:
    """Bar chart of samples per class, the minority class highlighted.

    Parameters
    ----------
    counts : dict
        Class label -> number of samples (e.g. ``Dataset.class_counts()``).
    minority : label, optional
        The class drawn in the accent colour.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    labels = [str(c) for c in counts]
    colours = [
        "#d62728" if minority is not None and str(c) == str(minority) else "#1f77b4" for c in counts
    ]
    fig = go.Figure(
        go.Bar(
            x=labels,
            y=list(counts.values()),
            marker_color=colours,
            text=list(counts.values()),
            textposition="outside",
            hovertemplate="class %{x}: %{y} samples<extra></extra>",
        )
    )
    fig.update_yaxes(**count_axis(max(counts.values(), default=0)))
    fig.update_layout(
        xaxis_title="class",
        yaxis_title="samples",
        xaxis_type="category",
        margin=dict(l=10, r=10, t=30, b=10),
        height=320,
        uirevision="classes",
    )
    return fig


def k_sweep_figure(summary: list[dict], title: str = "", cursor: int | None = None) -> go.Figure:
    """G-mean (1-NN and SVM), number of features and running time against K:
    :func:`sweep_figure` over K-OFSD's ``k``.

    Parameters
    ----------
    summary : list of dict
        ``Evaluation.summary(("k",))`` of :func:`fsengine.evaluation.sweep_k`.
    title : str
    cursor : int, optional
        A K to mark with a vertical line in every panel.
    """
    return sweep_figure(summary, "k", "K", title=title, cursor=cursor)


def _parameter_axis(values: list) -> dict:
    """A swept parameter's x axis: a tick on every integer for integers spanning at most 20, a
    log axis for positive values spanning two orders of magnitude or more, else plotly's."""
    if values and all(isinstance(x, int) and not isinstance(x, bool) for x in values):
        return {"dtick": 1} if max(values) - min(values) <= 20 else {}
    if values and min(values) > 0 and max(values) / min(values) >= 100:
        return {"type": "log"}
    return {}


def sweep_figure(
    summary: list[dict],
    parameter: str,
    label: str | None = None,
    *,
    title: str = "",
    cursor=None,
) -> go.Figure:
    """G-mean (1-NN and SVM), number of features and running time against the values of
    one parameter of an online selector.

    Parameters
    ----------
    summary : list of dict
        ``Evaluation.summary((parameter,))`` of :func:`fsengine.evaluation.sweep_values`
        (or of :func:`fsengine.evaluation.sweep_k` with ``parameter="k"``).
    parameter : str
        The field of the rows holding the swept value.
    label : str, optional
        The x axis' title (default: ``parameter``).
    title : str
    cursor : number, optional
        A value to mark with a vertical line in every panel.

    Returns
    -------
    plotly.graph_objects.Figure
        Panels sharing the parameter's axis: G-mean, selected features and the selection
        time; error bars are one standard deviation over the splits, cut at the possible
        range (G-mean in [0, 1], counts and times from 0). Integer values a tick each (up
        to 21 of them); positive values spanning two orders of magnitude or more
        (significance levels 0.001 to 0.1) a log axis. When the time is the same at every
        value (one pass timed for all the values and divided by their number, as K-OFSD's
        sweep of K), there is no time panel, a flat line that would say nothing about the
        values: the title says what the pass took a split instead.
    """
    from plotly.subplots import make_subplots

    xs = [row[parameter] for row in summary]
    times = [r["seconds_mean"] for r in summary]
    shared = len(xs) > 1 and len(set(times)) == 1
    symbol = label or parameter
    panels = ("G-mean", "selected features") + (() if shared else ("selection time (s)",))
    fig = make_subplots(rows=1, cols=len(panels), subplot_titles=panels)
    for name, legend, colour in (
        ("gmean_1nn", "1-NN", "#1f77b4"),
        ("gmean_svm", "SVM", "#d62728"),
    ):
        means = [r[f"{name}_mean"] for r in summary]
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=means,
                name=legend,
                mode="lines+markers",
                line_color=colour,
                error_y=error_bars(means, [r[f"{name}_std"] for r in summary], 0.0, 1.0),
            ),
            1,
            1,
        )
    for col, name in enumerate(("n_features", "seconds")[: len(panels) - 1], 2):
        means = [r[f"{name}_mean"] for r in summary]
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=means,
                showlegend=False,
                mode="lines+markers",
                line=dict(color="#2ca02c"),
                error_y=error_bars(means, [r[f"{name}_std"] for r in summary], 0.0),
            ),
            1,
            col,
        )
    fig.update_xaxes(title_text=symbol, **_parameter_axis(xs))
    if cursor is not None:
        for col in range(1, len(panels) + 1):
            fig.add_vline(x=cursor, line_dash="dot", line_color="#7f7f7f", row=1, col=col)
    fig.update_yaxes(range=[0, 1.05], row=1, col=1)
    for col in range(2, len(panels) + 1):
        fig.update_yaxes(rangemode="tozero", row=1, col=col)
    if shared:
        note = (
            f"Selection time: one pass serves all {len(xs)} values of {symbol}, "
            f"{times[0] * len(xs):.2g} s a split (not timed per {symbol})"
        )
        title = f"{title}<br><sup>{note}</sup>" if title else note
    fig.update_layout(
        title=dict(text=title, font=dict(size=13)),
        height=360,
        margin=dict(l=40, r=20, t=88 if "<br>" in title else 70, b=40),
        legend=dict(orientation="h", y=-0.2),
        uirevision=f"{parameter}-sweep",
    )
    return fig


def comparison_figure(
    summary: list[dict], title: str = "", labels: Mapping[str, str] | None = None
) -> go.Figure:
    """Mean G-mean of every method with 1-NN and with the SVM.

    Parameters
    ----------
    summary : list of dict
        ``Evaluation.summary()`` of :func:`fsengine.evaluation.evaluate`.
    title : str
    labels : mapping, optional
        Method id -> label for the axis (:func:`method_label`); the ids stay in
        ``customdata``.

    Returns
    -------
    plotly.graph_objects.Figure
        One bar trace per classifier; error bars are one standard deviation, cut at 0
        and 1.
    """
    methods = [row["method"] for row in summary]
    shown = [method_label(m, labels) for m in methods]
    fig = go.Figure()
    for name, label, colour in (("gmean_1nn", "1-NN", "#1f77b4"), ("gmean_svm", "SVM", "#d62728")):
        means = [r[f"{name}_mean"] for r in summary]
        fig.add_trace(
            go.Bar(
                x=shown,
                y=means,
                name=label,
                marker_color=colour,
                customdata=methods,
                error_y=error_bars(means, [r[f"{name}_std"] for r in summary], 0.0, 1.0),
                hovertemplate=f"%{{x}} ({label}): G-mean %{{y:.3f}}<extra>%{{customdata}}</extra>",
            )
        )
    fig.update_layout(
        barmode="group",
        title=title,
        yaxis_title="G-mean",
        yaxis_range=[0, 1.05],
        height=360,
        margin=dict(l=40, r=20, t=60, b=40),
        uirevision="compare",
    )
    return fig


def stream_figure(
    curves: dict, score_label: str = "set score", total: int | None = None
) -> go.Figure:
    """The live stream chart: selected-set size, the set's score and the hold-out G-mean
    against the number of features streamed so far.

    Parameters
    ----------
    curves : dict
        :meth:`fsengine.methods.live.LiveStream.curves`.
    score_label : str
        What the set's score is (K-OFSD: dependency; CIE-OSFS: H(D|SF); OFS-FPD: mean
        correlation).
    total : int, optional
        Length of the stream, to fix the x axis.

    Returns
    -------
    plotly.graph_objects.Figure
        Size on the left axis (integer ticks from 0, :func:`count_axis`), score and
        G-mean (both in [0, 1] or so) on the right. The G-mean is measured only at each
        refresh (every few features, or hundreds of them at speed): drawn as those
        points, not as slopes between them.
    """
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=curves["step"],
            y=curves["size"],
            name="selected features",
            mode="lines",
            line=dict(color="#1f77b4", shape="hv"),
        )
    )
    fig.add_trace(
        go.Scatter(
            x=curves["step"],
            y=curves["score"],
            name=score_label,
            mode="lines",
            line=dict(color="#ff7f0e"),
            yaxis="y2",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=curves["gmean_step"],
            y=curves["gmean"],
            name="hold-out G-mean (1-NN, selected on the training half), measured at each refresh",
            mode="markers",
            marker=dict(color="#2ca02c", size=6),
            hovertemplate="hold-out G-mean %{y:.3f}, measured after %{x} features<extra></extra>",
            yaxis="y2",
        )
    )
    fig.update_layout(
        xaxis=dict(title="features streamed", range=[0, total] if total else None),
        yaxis=dict(title="selected features", **count_axis(max(curves["size"], default=0))),
        yaxis2=dict(
            title=f"{score_label} / G-mean",
            overlaying="y",
            side="right",
            rangemode="tozero",
            tickformat=".2~f",
            nticks=6,
            showgrid=False,
        ),
        legend=dict(orientation="h", y=-0.25),
        height=380,
        margin=dict(l=50, r=50, t=30, b=40),
        uirevision="stream",
    )
    return fig


def jaccard_figure(
    names: list[str], selections: list[set], labels: Mapping[str, str] | None = None
) -> go.Figure:
    """Heat map of the Jaccard overlap |A and B| / |A or B| between methods' selected sets.

    Parameters
    ----------
    names : list of str
        The methods (ids, or names that start with one).
    selections : list of set
        Each method's selected features, in the order of ``names``.
    labels : mapping, optional
        Method id -> label for the axes (:func:`method_label`).

    Returns
    -------
    plotly.graph_objects.Figure
    """
    matrix = [
        [(len(a & b) / len(a | b)) if (a | b) else 1.0 for b in selections] for a in selections
    ]
    shown = [method_label(n, labels) for n in names]
    fig = go.Figure(
        go.Heatmap(
            z=matrix,
            x=shown,
            y=shown,
            zmin=0,
            zmax=1,
            colorscale="Blues",
            text=[[f"{v:.2f}" for v in row] for row in matrix],
            texttemplate="%{text}",
            textfont=dict(size=12 if len(names) <= 10 else 10),
            hovertemplate="%{y} / %{x}: %{z:.2f}<extra></extra>",
        )
    )
    size = max(380, 60 + 32 * len(names))
    fig.update_layout(
        height=size,
        margin=dict(l=90, r=20, t=30, b=90),
        font=dict(size=13),
        xaxis=dict(tickangle=-45, tickfont=dict(size=13), type="category"),
        yaxis=dict(autorange="reversed", tickfont=dict(size=13), type="category"),
        uirevision="jaccard",
    )
    return fig


def identical_curves(
    summary: list[dict], fields: tuple[str, ...] = ("gmean_1nn", "gmean_svm")
) -> list[list[str]]:
    """Groups of methods whose curves are identical in every panel of a sweep.

    Fisher's score and the Pearson correlation rank the genes alike on one-versus-rest
    labels, so their top-k curves coincide exactly and one line hides the other.

    Parameters
    ----------
    summary : list of dict
        ``Evaluation.summary(("method", "top"))`` of :func:`fsengine.evaluation.sweep_top`.
    fields : tuple of str
        The measures compared (``<field>_mean`` and ``<field>_std`` at every top-k).

    Returns
    -------
    list of list of str
        Each group of two or more methods with the same top-k values and the same means
        and standard deviations there, in the order the methods first appear; methods
        that match no other are left out.
    """
    curves: dict[str, tuple] = {}
    for row in sorted(summary, key=lambda r: r["top"]):
        point = (row["top"], *(row[f"{f}_{s}"] for f in fields for s in ("mean", "std")))
        curves.setdefault(row["method"], ())
        curves[row["method"]] += (point,)
    groups: dict[tuple, list[str]] = {}
    for method, curve in curves.items():
        groups.setdefault(curve, []).append(method)
    return [group for group in groups.values() if len(group) > 1]


def topk_sweep_figure(
    summary: list[dict], title: str = "", labels: Mapping[str, str] | None = None
) -> go.Figure:
    """G-mean against top-k for every ranker, 1-NN and SVM in two panels side by side.

    Parameters
    ----------
    summary : list of dict
        ``Evaluation.summary(("method", "top"))`` of :func:`fsengine.evaluation.sweep_top`.
    title : str
    labels : mapping, optional
        Method id -> label (:func:`method_label`) for the legend and the hover text.

    Returns
    -------
    plotly.graph_objects.Figure
        One colour per method, the same in both panels (one legend entry per method,
        named by its label and toggling both panels; ``legendgroup`` is the method id);
        the classifier is the panel's title and in the hover text. Error bars are one
        standard deviation over the splits, cut at 0 and 1. The y axes fit the data. A
        method whose curves are identical to an earlier one's (:func:`identical_curves`)
        is named "<label> (same curves as <label>)" and drawn dashed with open markers
        larger than the earlier one's filled ones, so that both stay visible.
    """
    from plotly.subplots import make_subplots

    methods = list(dict.fromkeys(row["method"] for row in summary))
    same_as = {}
    for group in identical_curves(summary):
        for method in group[1:]:
            same_as[method] = group[0]
    fig = make_subplots(
        rows=1,
        cols=2,
        shared_yaxes=True,
        subplot_titles=("1-NN", "linear SVM"),
        horizontal_spacing=0.04,
    )
    for i, method in enumerate(methods):
        rows = sorted((r for r in summary if r["method"] == method), key=lambda r: r["top"])
        colour = PALETTE[i % len(PALETTE)]
        shown = method_label(method, labels)
        name = shown
        line = dict(color=colour, width=1.5)
        marker = dict(size=5)
        if method in same_as:
            name = f"{shown} (same curves as {method_label(same_as[method], labels)})"
            line["dash"] = "dash"
            marker = dict(size=10, symbol="circle-open", line=dict(width=1.5))
        for col, (field, classifier) in enumerate((("gmean_1nn", "1-NN"), ("gmean_svm", "SVM")), 1):
            means = [r[f"{field}_mean"] for r in rows]
            stds = [r[f"{field}_std"] for r in rows]
            fig.add_trace(
                go.Scatter(
                    x=[r["top"] for r in rows],
                    y=means,
                    name=name,
                    legendgroup=method,
                    showlegend=col == 1,
                    mode="lines+markers",
                    marker=marker,
                    line=line,
                    error_y=error_bars(means, stds, 0.0, 1.0, thickness=0.8, width=2),
                    hovertemplate=f"{name}, {classifier}, top %{{x}}: G-mean %{{y:.3f}}"
                    "<extra></extra>",
                ),
                1,
                col,
            )
    fig.update_layout(
        title=title,
        yaxis_title="G-mean (test halves)",
        height=420,
        margin=dict(l=50, r=20, t=60, b=40),
        legend=dict(title="ranker (click to hide)"),
        uirevision="topk-sweep",
    )
    dtick = 1 if len({r["top"] for r in summary}) <= 15 else None
    fig.update_xaxes(title="top-k (features kept)", dtick=dtick)
    fig.update_yaxes(tickformat=".2f")
    return fig


def critical_difference_figure(comparison, labels: Mapping[str, str] | None = None) -> go.Figure:
    """The critical-difference diagram of a :class:`fsengine.evaluation.statistics.RankComparison`
    (Demsar 2006, Fig. 1): the methods on an axis of average rank (1 = best, on the left),
    the critical difference as a bar above it, and a thick line joining each group of
    methods whose ranks differ by less than it (no significant difference).

    Parameters
    ----------
    comparison : fsengine.evaluation.statistics.RankComparison
    labels : mapping, optional
        Method id -> label (:func:`method_label`) for the methods' names.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    order = sorted(range(len(comparison.methods)), key=lambda j: comparison.average_ranks[j])
    k = len(order)
    fig = go.Figure()
    half = (k + 1) // 2
    for place, j in enumerate(order):
        rank = float(comparison.average_ranks[j])
        left = place < half
        row = place if left else k - 1 - place
        y = -0.6 - 0.5 * row
        x_label = 0.6 if left else k + 0.4
        fig.add_trace(
            go.Scatter(
                x=[rank, rank, x_label],
                y=[0, y, y],
                mode="lines",
                line={"color": "#444", "width": 1},
                hoverinfo="skip",
                showlegend=False,
            )
        )
        fig.add_annotation(
            x=x_label,
            y=y,
            text=f"{method_label(comparison.methods[j], labels)} ({rank:.2f})",
            showarrow=False,
            xanchor="right" if left else "left",
        )
    for g, group in enumerate(comparison.nemenyi_groups()):
        ranks = [float(comparison.average_ranks[comparison.methods.index(m)]) for m in group]
        fig.add_trace(
            go.Scatter(
                x=[min(ranks) - 0.03, max(ranks) + 0.03],
                y=[-0.25 - 0.12 * g] * 2,
                mode="lines",
                line={"color": "#c0392b", "width": 5},
                name=", ".join(method_label(m, labels) for m in group),
                hovertemplate="not significantly different: %{fullData.name}<extra></extra>",
                showlegend=False,
            )
        )
    cd = float(comparison.critical_difference)
    fig.add_trace(
        go.Scatter(
            x=[1, 1 + cd],
            y=[0.45, 0.45],
            mode="lines+text",
            line={"color": "#000", "width": 2},
            text=["", f"CD = {cd:.2f}"],
            textposition="top right",
            hoverinfo="skip",
            showlegend=False,
        )
    )
    fig.update_xaxes(range=[0.5 - 0.1 * k, k + 0.5 + 0.1 * k])
    # Ticks at the possible average ranks only (1 .. k), not at the padding beyond them.
    fig.update_xaxes(side="top", tickvals=list(range(1, k + 1)), title="average rank")
    fig.update_yaxes(visible=False, range=[-0.8 - 0.5 * half, 0.9])
    # The labels reach out of the axis' range by their length: margins to hold them
    # (about 7 px a character at plotly's default 12 px font), whatever the figure's width.
    longest = max(len(a.text) for a in fig.layout.annotations)
    side = 7 * longest + 10
    fig.update_layout(
        title=f"{comparison.metric}: Nemenyi test at alpha {comparison.alpha:g} "
        f"({len(comparison.datasets)} data sets)",
        height=220 + 40 * half,
        plot_bgcolor="white",
        margin={"l": side, "r": side},
    )
    return fig


def metric_heatmap_figure(comparison, labels: Mapping[str, str] | None = None) -> go.Figure:
    """Heat map of the metric per data set (rows) and method (columns) of a
    :class:`fsengine.evaluation.statistics.RankComparison`, each cell labelled with its
    value and its rank on that data set.

    Parameters
    ----------
    comparison : fsengine.evaluation.statistics.RankComparison
    labels : mapping, optional
        Method id -> label (:func:`method_label`) for the columns.

    Returns
    -------
    plotly.graph_objects.Figure
        The colour bar spans the plot's height, with at most one tick per 40 px of it
        and as many decimals as the values' range needs; the figure is at least 300 px
        high, so a study of two data sets still has room for it.
    """
    text = [
        [f"{v:.3f} (#{r:g})" for v, r in zip(row, ranks)]
        for row, ranks in zip(comparison.values, comparison.ranks)
    ]
    margin = {"t": 60, "b": 50}
    height = max(300, margin["t"] + margin["b"] + 40 * len(comparison.datasets))
    plot = height - margin["t"] - margin["b"]
    fig = go.Figure(
        go.Heatmap(
            z=comparison.values,
            x=[method_label(m, labels) for m in comparison.methods],
            y=list(comparison.datasets),
            text=text,
            texttemplate="%{text}",
            colorscale="Viridis",
            colorbar=dict(
                title=dict(text=comparison.metric, side="right"),
                len=1,
                lenmode="fraction",
                y=0.5,
                yanchor="middle",
                thickness=14,
                nticks=max(2, min(6, plot // 40)),
                tickformat=_tick_format(comparison.values),
                outlinewidth=0,
            ),
            hovertemplate="%{y}, %{x}: %{text}<extra></extra>",
        )
    )
    fig.update_yaxes(autorange="reversed")  # the first data set on top, as in a table
    fig.update_layout(
        title=f"{comparison.metric} per data set and method (rank on the data set)",
        height=height,
        margin=margin,
    )
    return fig


def _tick_format(values) -> str:
    """A fixed-point format with the decimals that ticks over ``values``' range need."""
    finite = [float(v) for row in values for v in row if v is not None and math.isfinite(v)]
    span = max(finite) - min(finite) if finite else 0.0
    if not span > 0:
        return ".3~f"
    return f".{max(0, min(4, 1 - math.floor(math.log10(span))))}f"
