"""Genes page: the selected genes sample by sample, for any selection of this data set."""

from typing import NamedTuple

import streamlit as st

from dashboard import running, session, streams
from dashboard.pages import BY_NAME
from dashboard.widgets import method_widgets, table_height, widget_defaults
from fsengine.evaluation.genes import (
    DRAWN_SAMPLES,
    HEATMAP_SAMPLES,
    ClassSample,
    class_sample,
    gene_statistics,
    p_value_note,
)
from fsengine.evaluation.stability import order_stability
from fsengine.export.writers import records_to_csv
from fsengine.methods.registry import METHOD_LABELS, ONLINE_METHODS, get_method
from fsengine.pl.gene_figures import gene_box_figure, gene_heatmap_figure, pca_figure

WIDGETS = BY_NAME["genes"].widgets
STABILITY = BY_NAME["genes"].results["stability"]
#: Most genes drawn as box plots at once (the heat map and the table take them all).
BOX_LIMIT = 24


def selections_of(loaded, minority) -> dict[str, tuple[str, ...]]:
    """Every selection of the current data set and minority class the session holds:
    the finished stream, each compared method's whole-data selection, Export's runs."""
    found: dict[str, tuple[str, ...]] = {}
    kept = streams.current()
    live = kept.live if kept is not None else None
    if live is not None and live.done:
        if live.minority == minority:
            selection = live.selection()
            fallback = ", fallback: none selected" if selection.fallback else ""
            label = METHOD_LABELS[live.method]
            found[f"Stream: {label} ({live.order_name} order{fallback})"] = tuple(
                selection.features
            )
    for result in session.current_results(BY_NAME["compare"].results["compare"]):
        fallbacks = result.get("fallbacks", [])
        for method, genes in result["selections"].items():
            fallback = ", fallback: none selected" if method in fallbacks else ""
            label = METHOD_LABELS.get(method, method)
            found[f"Compare: {label} (whole data set{fallback})"] = tuple(genes)
    for (chosen, method, _top, _params), result in session.state.export_results_shown(
        loaded
    ).items():
        if chosen == minority:
            fallback = " (fallback: none selected)" if result.selection.fallback else ""
            found[f"Export: {METHOD_LABELS.get(method, method)}{fallback}"] = tuple(
                result.selection.features
            )
    return found


def gene_views(loaded, minority, genes: tuple[str, ...]):
    """The gene table, heat map and PCA of ``genes``, computed once per selection (the
    clustering and the PCA over all genes would otherwise run on every rerun)."""
    kept = st.session_state.setdefault("genes_views", {})
    key = (session.run_key(), genes)
    if key not in kept:
        ds = loaded.dataset
        kept[key] = (
            gene_statistics(session.current_task(), None, genes),
            gene_heatmap_figure(ds, minority, genes),
            pca_figure(ds, minority, genes),
        )
        while len(kept) > 4:
            kept.pop(next(iter(kept)))
    return kept[key]


def _gene_table_file_name(source: str) -> str:
    """The gene table's file name, after the selection's page: "genes_compare.csv" for
    "Compare: Fisher (whole data set)"."""
    return f"genes_{source.split(':')[0].lower()}.csv"


def _heat_map_caption(n_samples: int, drawn: ClassSample) -> str:
    """The caption under the heat map: what it draws (``drawn``, of the data set's
    ``n_samples``) and how its values and order are made."""
    if drawn.sampled:
        return (
            f"{n_samples:,} samples are too many to draw one by one: {drawn.text()} "
            f"({drawn.class_text()}), grouped by class and ordered within each by "
            "average-linkage clustering. Values z-scored per gene over all samples "
            "(clipped at ±3); the bar on top is each sample's class."
        )
    return (
        "Values z-scored per gene (clipped at ±3); samples and genes ordered by "
        "average-linkage clustering; the bar on top is each sample's class."
    )


def _box_limit_caption(n_genes: int) -> str | None:
    """Which genes the plots by class draw when there are more than :data:`BOX_LIMIT`
    (None: all of them)."""
    if n_genes > BOX_LIMIT:
        return f"The first {BOX_LIMIT} of {n_genes} genes, in the selection's order."
    return None


def _by_class_caption(n_samples: int, drawn: ClassSample, kind: str) -> str | None:
    """The caption under the plots by class when their points are a sample (``drawn``,
    of the data set's ``n_samples``) for ``kind`` "box" or "violin"; None when every
    sample is drawn."""
    if drawn.sampled and kind == "box":
        return (
            f"Each box summarises all {n_samples:,} samples of its class (quartiles, "
            "whiskers to the furthest value within 1.5 IQR); the points are not drawn "
            f"above {DRAWN_SAMPLES:,} samples. The violins draw a seeded sample's points."
        )
    if drawn.sampled:
        return f"Violins and points of {drawn.text()} ({drawn.class_text()})."
    return None


def _projection_caption(drawn: ClassSample) -> str:
    """The caption under the PCA: what it shows, and the samples drawn (``drawn``) when
    not all are."""
    return (
        "PCA of the samples (standardised genes) on the selected genes, next to all "
        "genes: a selection that separates the minority should make it stand apart."
        + (
            f" Drawn: {drawn.text()}; the selected genes' PCA is fit on all samples, "
            "the PCA of all genes on the drawn ones."
            if drawn.sampled
            else ""
        )
    )


def _order_counts(selections) -> list[tuple[str, int]]:
    """(gene, number of selections holding it) of every gene selected at least once,
    the most often selected first, ties by gene name."""
    counts: dict[str, int] = {}
    for selection in selections:
        for gene in selection:
            counts[gene] = counts.get(gene, 0) + 1
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def _sizes_text(sizes) -> str:
    """The smallest and largest selection size: "3-7"."""
    return f"{min(sizes)}-{max(sizes)}"


def _stability_title(method: str, orders: int, seed, data_name: str, minority) -> str:
    """The stability run's title in the workspace: "Order stability of K-OFSD: 3 random
    orders from seed 0 (SRBCT, minority 2)"."""
    return (
        f"Order stability of {METHOD_LABELS[method]}: {orders} random orders from "
        f"seed {seed} "
        f"({data_name}, minority {minority})"
    )


class StabilitySettings(NamedTuple):
    """The order-stability run the page's widgets ask for.

    Attributes
    ----------
    method : str
        The online selector.
    orders : int
        Random orders of the genes to run it over.
    seed : int
        Seed of the first order.
    params : dict
        The selector's parameter values.
    """

    method: str
    orders: int
    seed: int
    params: dict


def _header(data_name: str, minority) -> None:
    """Draw the title and the caption naming the data set and its minority class."""
    st.title("Genes")
    st.caption(
        f"{data_name}, minority class **{minority}** versus the rest: the samples on the genes "
        "a method selected."
    )


def _choose_selection(loaded, minority) -> tuple[str, tuple[str, ...]] | None:
    """Draw the choice of a selection of the session and return it, as (its label, its
    genes); None, said on the page, when there is none or it is empty."""
    selections = selections_of(loaded, minority)
    if not selections:
        st.info(
            "No selection yet on this data set and minority class: run a stream to the end "
            "(Stream), a comparison (Compare) or a selection (Export), and its genes appear here."
        )
        return None
    source = st.selectbox("Selection", list(selections), key="genes_source")
    genes = selections[source]
    if not genes:
        st.warning("This selection is empty: the method selected no gene.")
        return None
    return source, genes


def _gene_table(source: str, genes: tuple[str, ...], statistics) -> None:
    """Draw the table of the genes' statistics, its caption on the p-values, and its
    download button."""
    st.subheader(f"{len(genes)} genes")
    st.dataframe(
        statistics.drop(columns=["column"]),
        hide_index=True,
        width="stretch",
        height=table_height(len(genes), 420),
        column_config={
            "hedges_g": st.column_config.NumberColumn(
                "Hedges' g",
                format="%.2f",
                help="Effect size: (minority mean - rest mean) / pooled sd, "
                "small-sample corrected; positive = higher in the minority.",
            ),
            "p_welch": st.column_config.NumberColumn("p (Welch)", format="%.2e"),
            "p_bh": st.column_config.NumberColumn(
                "p (BH-adjusted)", format="%.2e", help=p_value_note(len(genes))
            ),
        },
    )
    st.caption(
        f"p-values: {p_value_note(len(genes))}. They describe these genes on all samples "
        "and were not used to select them; genes chosen for separating the classes "
        "look significant by construction."
    )
    st.download_button(
        "Download the gene table (CSV)",
        records_to_csv(statistics.to_dict("records")),
        file_name=_gene_table_file_name(source),
        mime="text/csv",
        on_click="ignore",
    )


def _heat_map(ds, heat_map) -> None:
    """Draw the heat map of the selected genes and its caption."""
    st.subheader("Heat map")
    st.plotly_chart(heat_map, width="stretch")
    drawn = class_sample(ds.labels, HEATMAP_SAMPLES)
    st.caption(_heat_map_caption(ds.n_samples, drawn))


def _by_class(ds, minority, genes: tuple[str, ...], statistics) -> ClassSample:
    """Draw the genes' box or violin plots by class (the first :data:`BOX_LIMIT`) with
    the choice between the two; returns the samples whose points are drawn."""
    st.subheader("By class")
    kind = st.radio("Plot", ["box", "violin"], horizontal=True, key="genes_kind")
    shown = list(genes[:BOX_LIMIT])
    limit_caption = _box_limit_caption(len(genes))
    if limit_caption is not None:
        st.caption(limit_caption)
    st.plotly_chart(
        gene_box_figure(ds, minority, shown, kind=kind, statistics=statistics),
        width="stretch",
    )
    drawn = class_sample(ds.labels, DRAWN_SAMPLES)
    caption = _by_class_caption(ds.n_samples, drawn, kind)
    if caption is not None:
        st.caption(caption)
    return drawn


def _projection(projection, drawn: ClassSample) -> None:
    """Draw the PCA of the samples on the selected genes and on all genes, and its
    caption (``drawn``: the samples drawn)."""
    st.subheader("Projection")
    st.plotly_chart(projection, width="stretch")
    st.caption(_projection_caption(drawn))


def _stability_settings(n_samples: int) -> StabilitySettings:
    """Draw the "Order stability" heading and the choice of selector, orders, seed and
    the selector's settings (bounded by ``n_samples``); returns them."""
    st.subheader("Order stability")
    st.caption(
        "An online selector's result depends on the order the genes arrive in: run it over "
        "several random orders and compare the selections (Jaccard and Kuncheva indices; 1 = "
        "the same genes every time)."
    )
    session.restore_widgets(
        WIDGETS,
        {
            "genes_stability_method": "kofsd",
            "genes_stability_orders": 10,
            "genes_stability_seed": 0,
            **widget_defaults("genes", ONLINE_METHODS, inherit=True),
        },
    )
    cols = st.columns(3)
    method = cols[0].selectbox(
        "Online selector",
        list(ONLINE_METHODS),
        format_func=METHOD_LABELS.get,
        **session.persisted(
            WIDGETS, "genes_stability_method", start="index", options=list(ONLINE_METHODS)
        ),
    )
    orders = cols[1].slider(
        "Random orders",
        2,
        50,
        **session.persisted(WIDGETS, "genes_stability_orders", (2, 50), slider=True),
    )
    seed = cols[2].number_input(
        "Seed of the first order",
        0,
        2**31 - 1,
        **session.persisted(WIDGETS, "genes_stability_seed", (0, 2**31 - 1), cast=int),
    )
    with st.expander(f"{get_method(method).spec.label}'s settings (as last set on Stream)"):
        params = method_widgets("genes", WIDGETS, method, n_samples)
    return StabilitySettings(method, orders, seed, params)


def _stability_run(data_name: str, minority, settings: StabilitySettings):
    """Draw the "Run the orders" button; returns the run's
    :class:`~fsengine.evaluation.stability.StabilityResult`, None until it has run."""
    method, orders, seed, params = settings
    return running.run_button(
        "Run the orders",
        STABILITY,
        session.run_key(method, orders, seed, tuple(sorted(params.items()))),
        lambda progress: order_stability(
            session.current_task(),
            method=method,
            orders=orders,
            seed=int(seed),
            progress=progress,
            **params,
        ),
        text="Order stability",
        failure="The orders could not run",
        kind="stability",
        title=_stability_title(method, orders, seed, data_name, minority),
        widgets=WIDGETS,
        refusal=running.refusal(protocol=False),
    )


def _stability_results(result, orders: int) -> None:
    """Draw the stability's mean indices and selection sizes, and how many orders
    selected each gene."""
    left, middle, right = st.columns(3)
    left.metric("Mean Jaccard", f"{result.mean_jaccard:.3f}")
    middle.metric("Mean Kuncheva", f"{result.mean_kuncheva:.3f}")
    right.metric("Selected (min-max)", _sizes_text(result.sizes))
    ranked = _order_counts(result.selections)
    st.dataframe(
        {
            "gene": [gene for gene, _ in ranked],
            f"orders selecting it (of {orders})": [n for _, n in ranked],
        },
        hide_index=True,
        height=table_height(len(ranked), 300),
    )


def render() -> None:
    """Draw the Genes page: a selection's genes sample by sample (table, heat map, PCA)."""
    loaded = session.current()
    ds, minority = loaded.dataset, session.state.minority
    _header(loaded.name, minority)
    chosen = _choose_selection(loaded, minority)  # None: none or empty, said on the page
    if chosen is not None:
        source, genes = chosen
        statistics, heat_map, projection = gene_views(loaded, minority, genes)
        _gene_table(source, genes, statistics)
        _heat_map(ds, heat_map)
        drawn = _by_class(ds, minority, genes, statistics)
        _projection(projection, drawn)

    settings = _stability_settings(ds.n_samples)
    result = _stability_run(loaded.name, minority, settings)
    if result is not None:
        _stability_results(result, settings.orders)


# Streamlit runs a page as __main__; imported (a test), the page only defines.
if __name__ == "__main__":
    render()
