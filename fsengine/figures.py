"""Plotly figures as pure functions of results (no Streamlit here)."""

from __future__ import annotations

import plotly.graph_objects as go


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
    colours = ["#d62728" if minority is not None and str(c) == str(minority) else "#1f77b4"
               for c in counts]
    fig = go.Figure(go.Bar(x=labels, y=list(counts.values()), marker_color=colours,
                           text=list(counts.values()), textposition="outside",
                           hovertemplate="class %{x}: %{y} samples<extra></extra>"))
    fig.update_layout(xaxis_title="class", yaxis_title="samples", xaxis_type="category",
                      margin=dict(l=10, r=10, t=30, b=10), height=320, uirevision="classes")
    return fig


def k_sweep_figure(summary: list[dict], title: str = "") -> go.Figure:
    """G-mean (1-NN and SVM), number of features and running time against K.

    Parameters
    ----------
    summary : list of dict
        ``Evaluation.summary(("k",))`` of :func:`fsengine.evaluation.sweep_k`.
    title : str

    Returns
    -------
    plotly.graph_objects.Figure
        Three panels sharing the K axis; error bars are one standard deviation over
        the splits.
    """
    from plotly.subplots import make_subplots

    ks = [row["k"] for row in summary]
    fig = make_subplots(rows=1, cols=3, subplot_titles=("G-mean", "selected features",
                                                        "selection time (s)"))
    for name, label, colour in (("gmean_1nn", "1-NN", "#1f77b4"), ("gmean_svm", "SVM", "#d62728")):
        fig.add_trace(go.Scatter(x=ks, y=[r[f"{name}_mean"] for r in summary], name=label,
                                 mode="lines+markers", line_color=colour,
                                 error_y=dict(array=[r[f"{name}_std"] for r in summary])), 1, 1)
    for col, name in ((2, "n_features"), (3, "seconds")):
        fig.add_trace(go.Scatter(x=ks, y=[r[f"{name}_mean"] for r in summary], showlegend=False,
                                 mode="lines+markers", line_color="#2ca02c",
                                 error_y=dict(array=[r[f"{name}_std"] for r in summary])), 1, col)
    fig.update_xaxes(title_text="K", dtick=1)
    fig.update_yaxes(range=[0, 1.05], row=1, col=1)
    fig.update_layout(title=title, height=360, margin=dict(l=40, r=20, t=70, b=40),
                      legend=dict(orientation="h", y=-0.2), uirevision="k-sweep")
    return fig


def comparison_figure(summary: list[dict], title: str = "") -> go.Figure:
    """Mean G-mean of every method with 1-NN and with the SVM, one standard deviation as
    error bars (``Evaluation.summary()`` of :func:`fsengine.evaluation.evaluate`)."""
    methods = [row["method"] for row in summary]
    fig = go.Figure()
    for name, label, colour in (("gmean_1nn", "1-NN", "#1f77b4"), ("gmean_svm", "SVM", "#d62728")):
        fig.add_trace(go.Bar(x=methods, y=[r[f"{name}_mean"] for r in summary], name=label,
                             marker_color=colour,
                             error_y=dict(array=[r[f"{name}_std"] for r in summary])))
    fig.update_layout(barmode="group", title=title, yaxis_title="G-mean", yaxis_range=[0, 1.05],
                      height=360, margin=dict(l=40, r=20, t=60, b=40), uirevision="compare")
    return fig
