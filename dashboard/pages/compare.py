"""Compare page: the online selectors and the rankers under the evaluation protocol."""

import streamlit as st

from dashboard import running, session
from dashboard.glossary import TERMS
from dashboard.pages import BY_NAME
from dashboard.widgets import (
    protocol_method_settings,
    rankers_count_widgets,
    splits_seed_widgets,
    widget_defaults,
)
from fsengine.evaluation import PAPER_METHODS, evaluate, whole_data_runs
from fsengine.evaluation.genes import selection_frequencies
from fsengine.export.writers import SUMMARY_COLUMNS, best_rows, records_to_csv, summary_frame
from fsengine.io import file_stem
from fsengine.methods.estimates import evaluate_seconds
from fsengine.methods.registry import (
    METHOD_LABELS,
    METHODS,
    ONLINE_METHODS,
    RANKER_METHODS,
    get_method,
)
from fsengine.pl.figures import comparison_figure, jaccard_figure
from fsengine.pl.gene_figures import frequency_figure

STORE = BY_NAME["compare"].results["compare"]
WIDGETS = BY_NAME["compare"].widgets
BEST_COLOUR = "background-color: #c7e9c0; font-weight: bold"


def _compute(methods, splits, seed, top, params):
    def compute(progress):
        task = running.run_task()
        steps = splits * len(methods) + 1  # the last: the selections on the whole data
        evaluation = evaluate(
            task,
            None,
            methods,
            n_splits=splits,
            seed=seed,
            top=top,
            params=params,
            progress=lambda done, _total, message: progress(done, steps, message),
        )
        progress(steps - 1, steps, "selecting on the whole data set for the overlap")
        runs, count = whole_data_runs(task, None, methods, top, params)
        return {
            "evaluation": evaluation,
            "selections": {m: selection.features for m, selection in runs.items()},
            "fallbacks": [m for m, selection in runs.items() if selection.fallback],
            "count": count,
        }

    return compute


def _styled(frame):
    """The means as numbers (so the columns sort as numbers), each shown as "mean ± sd"
    with 4/1/3 decimals, the best mean of each measure shaded; the standard-deviation
    columns are dropped from the table (they are in its cells)."""
    table = frame.drop(columns=[f"{title} sd" for title, *_ in SUMMARY_COLUMNS])
    styler = table.style
    for title, _field, digits, _better in SUMMARY_COLUMNS:
        for i, sd in zip(frame.index, frame[f"{title} sd"]):
            # a fixed text per cell, "{:.4f}" the cell's own mean: "0.8977 ± 0.1149"
            styler = styler.format(f"{{:.{digits}f}} ± {sd:.{digits}f}", subset=([i], [title]))
    for title, rows in best_rows(frame).items():
        styler = styler.map(lambda _v: BEST_COLOUR, subset=(frame.index[rows], [title]))
    return styler


def render() -> None:
    """Draw the Compare page: the methods and the protocol's settings, the run, and its
    results (table, charts, gene frequencies)."""
    loaded = session.current()
    ds, minority = loaded.dataset, session.state.minority
    session.restore_widgets(
        WIDGETS,
        {
            "compare_methods": running.methods_from_disk(PAPER_METHODS),
            "compare_splits": running.COMPARE_SPLITS,
            "compare_seed": running.COMPARE_SEED,
            "compare_fixed_top": False,
            "compare_top": min(10, ds.n_features),
            # Until changed here, each method's settings are the ones last set on Stream.
            **widget_defaults("compare", METHODS, inherit=True),
        },
    )
    session.set_widget(WIDGETS, "compare_top", min(st.session_state["compare_top"], ds.n_features))

    st.title("Compare")
    st.caption(
        f"{loaded.name}, minority class **{minority}** versus the rest. Every split is a "
        "random stratified half to select and train on and the other half to test on; "
        "G-mean, F1 and AUC are for the minority class, on the test halves only.",
        help=TERMS["G-mean"],
    )

    methods_col, options_col = st.columns([3, 2])
    with methods_col:
        st.multiselect(
            "Methods",
            list(METHODS),
            format_func=METHOD_LABELS.get,
            **session.persisted(WIDGETS, "compare_methods"),
            help=f"Online selectors: {', '.join(ONLINE_METHODS)}. Rankers: "
            f"{', '.join(RANKER_METHODS)}.  \n**d-**: {TERMS['d-']}  \nDefault: the K-OFSD "
            "paper's comparison.",
        )
        top = rankers_count_widgets("compare", WIDGETS, ds.n_features)
    with options_col:
        splits, seed = splits_seed_widgets("compare", WIDGETS)

    methods = tuple(st.session_state["compare_methods"])
    n_train, training = session.training_half(splits, seed)  # groups: the drawn halves
    params = protocol_method_settings("compare", WIDGETS, methods, top, n_train, training)
    if methods:
        running.show_protocol_warnings(
            list(dict.fromkeys([*methods, *params])), params, splits, seed
        )
        running.show_counts_warning(methods)

    key = session.run_key(
        methods, splits, seed, top, tuple(sorted((m, str(p)) for m, p in params.items()))
    )
    result = running.run_button(
        "Run comparison",
        STORE,
        key,
        _compute(methods, splits, seed, top, params),
        text="Evaluating",
        failure="The comparison could not run",
        kind="compare",
        title=f"Compare {', '.join(METHOD_LABELS[m] for m in methods)}: {splits} splits, "
        f"seed {seed} ({loaded.name}, minority {minority})",
        widgets=WIDGETS,
        refusal=running.refusal(True, splits, seed) or running.memory_refusal("Compare", methods),
        estimate=running.estimate_for(
            lambda n, p, density, counts: evaluate_seconds(
                n,
                p,
                methods,
                density=density,
                counts=counts,
                params=params,
                n_splits=splits,
                top=top,
            )
        )
        if methods
        else None,
    )
    if result is None:
        st.info("Choose the methods and press **Run comparison**.")
        st.stop()

    evaluation = result["evaluation"]
    summary = evaluation.summary()
    st.subheader("Results")
    settings = evaluation.params["settings"]
    counter = get_method(evaluation.params.get("count_from", "kofsd")).spec
    counter_settings = settings.get(counter.name) or counter.record(
        counter.check(dict(evaluation.params["params"].get(counter.name, {})))
    )
    rule = (
        "no ranker compared"
        if not any(m in RANKER_METHODS for m in evaluation.params["methods"])
        else f"every ranker keeps its top {top} features"
        if top is not None
        else f"every ranker keeps as many features as {counter.label} "
        f"({counter.settings_text(counter_settings)}) selected on the same split"
    )
    st.caption(
        f"Mean and standard deviation over {splits} splits (seed {seed}), measured on the "
        f"test halves; {rule}. Time is the selection time on the training half. Shaded: the "
        "best mean of each measure. Click a column title to sort."
    )
    frame = summary_frame(summary, settings)
    frame["method"] = frame["method"].map(METHOD_LABELS).fillna(frame["method"])
    spread = "Mean ± standard deviation over the splits; sorts by the mean."
    st.dataframe(
        _styled(frame.drop(columns=["settings"])),
        hide_index=True,
        width="stretch",
        height=35 * (len(frame) + 1) + 3,
        column_config={
            "method": st.column_config.TextColumn("method", pinned=True),
            **{title: st.column_config.Column(title, help=spread) for title, *_ in SUMMARY_COLUMNS},
            "splits": st.column_config.NumberColumn("splits", width="small"),
        },
    )
    with st.expander("Settings of each method (every parameter in effect)"):
        st.table(
            frame[["method", "settings"]].assign(
                settings=frame["settings"].replace("", "(no parameters)")
            ),
            hide_index=True,
        )

    chart_col, overlap_col = st.columns(2)
    with chart_col:
        st.plotly_chart(
            comparison_figure(summary, "G-mean on the test halves", labels=METHOD_LABELS),
            width="stretch",
        )
    with overlap_col:
        selections = result["selections"]
        st.plotly_chart(
            jaccard_figure(
                list(selections), [set(s) for s in selections.values()], labels=METHOD_LABELS
            ),
            width="stretch",
        )
        fallbacks = result.get("fallbacks", [])
        count = (
            f"the rankers keep their top {result['count']}"
            if top is not None
            else f"the rankers keep as many as K-OFSD returns there ({result['count']}"
            + (", its fallback's" if "kofsd" in fallbacks else "")
            + ")"
        )
        if not any(m in RANKER_METHODS for m in selections):
            count = "no ranker compared"
        st.caption(
            "Overlap of the gene sets selected on the **whole data set** (all "
            f"{ds.n_samples} samples, not the splits): Jaccard index |A ∩ B| / |A ∪ B| between "
            f"every two methods; {count}. Sizes: "
            + ", ".join(
                f"{METHOD_LABELS.get(m, m)} {len(s)}"
                + (" (fallback: it selected none)" if m in fallbacks else "")
                for m, s in selections.items()
            )
            + "."
        )
        for method in fallbacks:
            st.warning(
                f"{METHOD_LABELS.get(method, method)} selected no feature on the whole data set; "
                f"its {len(selections[method])} "
                "genes in the overlap are its fallback rule's (the top ones by single-feature "
                "score), not a selection. The features column of the table counts what each "
                "method returned on the training halves, fallbacks included.",
                icon=":material/warning:",
            )

    st.subheader("How often each gene was selected across the splits")
    shown = st.selectbox(
        "Method", list(selections), format_func=METHOD_LABELS.get, key="compare_frequency_method"
    )
    frequencies = selection_frequencies(evaluation, ds, minority, shown, selections[shown])
    left, right = st.columns([2, 3])
    ranks = frequencies["whole_data_rank"]
    left.dataframe(
        frequencies[["gene", "times", "share"]].assign(
            whole_data_rank=[f"{r:.0f}" if r == r else "not selected" for r in ranks]
        ),
        hide_index=True,
        width="stretch",
        height=min(35 * (len(frequencies) + 1) + 3, 420),
        column_config={
            "times": st.column_config.NumberColumn(f"splits (of {splits})"),
            "share": st.column_config.NumberColumn(format="percent"),
            "whole_data_rank": st.column_config.TextColumn(
                "whole-data rank",
                help="Rank in the method's selection on all samples; 'not selected': the method "
                "did not select the gene on all samples.",
            ),
        },
    )
    right.plotly_chart(frequency_figure(frequencies, splits), width="stretch")
    st.caption(
        "A gene chosen on most splits is a stable choice; the Genes page shows any selection's "
        "genes sample by sample."
    )

    st.download_button(
        "Download the per-split records (CSV)",
        records_to_csv(evaluation.records, ("method", "split")),
        file_name=f"compare_{file_stem(loaded.name)}_{minority}.csv",
        mime="text/csv",
        on_click="ignore",
    )


# Streamlit runs a page as __main__; imported (a test), the page only defines.
if __name__ == "__main__":
    render()
