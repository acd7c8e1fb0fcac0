"""Genes page: the selected genes sample by sample, for any selection of this data set."""

import streamlit as st

from dashboard import running, session, streams
from dashboard.pages import BY_NAME
from dashboard.widgets import method_widgets, widget_defaults
from fsengine.evaluation.genes import (
    DRAWN_SAMPLES,
    HEATMAP_SAMPLES,
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
    kept = st.session_state.get("export_results")
    if kept is not None and kept["data"] is loaded:
        for (chosen, method, _top, _params), result in kept["results"].items():
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


def render() -> None:
    """Draw the Genes page: a selection's genes sample by sample (table, heat map, PCA)."""
    loaded = session.current()
    ds, minority = loaded.dataset, session.state.minority
    st.title("Genes")
    st.caption(
        f"{loaded.name}, minority class **{minority}** versus the rest: the samples on the genes "
        "a method selected."
    )
    selections = selections_of(loaded, minority)
    if not selections:
        st.info(
            "No selection yet on this data set and minority class: run a stream to the end "
            "(Stream), a comparison (Compare) or a selection (Export), and its genes appear here."
        )
    else:
        source = st.selectbox("Selection", list(selections), key="genes_source")
        genes = selections[source]
        if not genes:
            st.warning("This selection is empty: the method selected no gene.")
        else:
            statistics, heat_map, projection = gene_views(loaded, minority, genes)
            st.subheader(f"{len(genes)} genes")
            st.dataframe(
                statistics.drop(columns=["column"]),
                hide_index=True,
                width="stretch",
                height=min(35 * (len(genes) + 1) + 3, 420),
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
                file_name=f"genes_{source.split(':')[0].lower()}.csv",
                mime="text/csv",
                on_click="ignore",
            )
            st.subheader("Heat map")
            st.plotly_chart(heat_map, width="stretch")
            drawn = class_sample(ds.labels, HEATMAP_SAMPLES)
            if drawn.sampled:
                st.caption(
                    f"{ds.n_samples:,} samples are too many to draw one by one: {drawn.text()} "
                    f"({drawn.class_text()}), grouped by class and ordered within each by "
                    "average-linkage clustering. Values z-scored per gene over all samples "
                    "(clipped at ±3); the bar on top is each sample's class."
                )
            else:
                st.caption(
                    "Values z-scored per gene (clipped at ±3); samples and genes ordered by "
                    "average-linkage clustering; the bar on top is each sample's class."
                )
            st.subheader("By class")
            kind = st.radio("Plot", ["box", "violin"], horizontal=True, key="genes_kind")
            shown = list(genes[:BOX_LIMIT])
            if len(genes) > BOX_LIMIT:
                st.caption(
                    f"The first {BOX_LIMIT} of {len(genes)} genes, in the selection's order."
                )
            st.plotly_chart(
                gene_box_figure(ds, minority, shown, kind=kind, statistics=statistics),
                width="stretch",
            )
            drawn = class_sample(ds.labels, DRAWN_SAMPLES)
            if drawn.sampled and kind == "box":
                st.caption(
                    f"Each box summarises all {ds.n_samples:,} samples of its class (quartiles, "
                    "whiskers to the furthest value within 1.5 IQR); the points are not drawn "
                    f"above {DRAWN_SAMPLES:,} samples. The violins draw a seeded sample's points."
                )
            elif drawn.sampled:
                st.caption(f"Violins and points of {drawn.text()} ({drawn.class_text()}).")
            st.subheader("Projection")
            st.plotly_chart(projection, width="stretch")
            st.caption(
                "PCA of the samples (standardised genes) on the selected genes, next to all "
                "genes: a selection that separates the minority should make it stand apart."
                + (
                    f" Drawn: {drawn.text()}; the selected genes' PCA is fit on all samples, "
                    "the PCA of all genes on the drawn ones."
                    if drawn.sampled
                    else ""
                )
            )

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
        **session.persisted(WIDGETS, "genes_stability_method"),
    )
    orders = cols[1].slider(
        "Random orders", 2, 50, **session.persisted(WIDGETS, "genes_stability_orders")
    )
    seed = cols[2].number_input(
        "Seed of the first order",
        0,
        2**31 - 1,
        **session.persisted(WIDGETS, "genes_stability_seed"),
    )
    with st.expander(f"{get_method(method).spec.label}'s settings (as last set on Stream)"):
        params = method_widgets("genes", WIDGETS, method, ds.n_samples)
    result = running.run_button(
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
        title=f"Order stability of {METHOD_LABELS[method]}: {orders} random orders from "
        f"seed {seed} "
        f"({loaded.name}, minority {minority})",
        widgets=WIDGETS,
        refusal=running.refusal(protocol=False),
    )
    if result is not None:
        left, middle, right = st.columns(3)
        left.metric("Mean Jaccard", f"{result.mean_jaccard:.3f}")
        middle.metric("Mean Kuncheva", f"{result.mean_kuncheva:.3f}")
        right.metric("Selected (min-max)", f"{min(result.sizes)}-{max(result.sizes)}")
        counts: dict[str, int] = {}
        for selection in result.selections:
            for gene in selection:
                counts[gene] = counts.get(gene, 0) + 1
        ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        st.dataframe(
            {
                "gene": [gene for gene, _ in ranked],
                f"orders selecting it (of {orders})": [n for _, n in ranked],
            },
            hide_index=True,
            height=min(35 * (len(counts) + 1) + 3, 300),
        )


# Streamlit runs a page as __main__; imported (a test), the page only defines.
if __name__ == "__main__":
    render()
