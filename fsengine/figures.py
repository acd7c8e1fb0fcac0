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
