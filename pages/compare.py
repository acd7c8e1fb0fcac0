"""Compare page: the online selectors and the rankers under the evaluation protocol."""

import pandas as pd
import streamlit as st

from dashboard import state
from fsengine.evaluation import PAPER_METHODS, evaluate, whole_data_selections
from fsengine.export import records_to_csv
from fsengine.figures import comparison_figure, jaccard_figure
from fsengine.rankers import RANKERS
from fsengine.runs import METHODS, ONLINE_METHODS

#: Table columns: title, summary field, decimals (the paper's layout, as `summary_table`).
COLUMNS = (
    ("G-mean 1-NN", "gmean_1nn", 4),
    ("G-mean SVM", "gmean_svm", 4),
    ("F1 (1-NN)", "f1_1nn", 4),
    ("AUC (SVM)", "auc_svm", 4),
    ("features", "n_features", 1),
    ("time (s)", "seconds", 3),
)
STORE = "compare_results"
WIDGETS = "compare_widgets"


def summary_frame(rows: list[dict]) -> pd.DataFrame:
    """``Evaluation.summary()`` rows as a table of "mean ± sd" strings, one row per method."""
    return pd.DataFrame(
        [
            {
                "method": row["method"],
                **{
                    title: f"{row[f + '_mean']:.{d}f} ± {row[f + '_std']:.{d}f}"
                    for title, f, d in COLUMNS
                },
            }
            for row in rows
        ]
    )


def _compute(dataset, minority, methods, splits, seed, top):
    def compute(progress):
        evaluation = evaluate(
            dataset, minority, methods, n_splits=splits, seed=seed, top=top, progress=progress
        )
        selections, count = whole_data_selections(dataset, minority, methods, top)
        return {"evaluation": evaluation, "selections": selections, "count": count}

    return compute


loaded = state.current()
ds, minority = loaded.dataset, st.session_state["minority"]
state.restore_widgets(
    WIDGETS,
    {
        "compare_methods": list(PAPER_METHODS),
        "compare_splits": 20,
        "compare_seed": 0,
        "compare_fixed_top": False,
        "compare_top": min(10, ds.n_features),
    },
)
state.set_widget(WIDGETS, "compare_top", min(st.session_state["compare_top"], ds.n_features))

st.title("Compare")
st.caption(
    f"{loaded.name}, minority class **{minority}** versus the rest. Every split is a "
    "random stratified half to select and train on and the other half to test on; "
    "G-mean, F1 and AUC are for the minority class."
)

methods_col, options_col = st.columns([3, 2])
with methods_col:
    st.multiselect(
        "Methods",
        list(METHODS),
        **state.persisted(WIDGETS, "compare_methods"),
        help=f"Online selectors: {', '.join(ONLINE_METHODS)}. Rankers: "
        f"{', '.join(RANKERS)}. Default: the K-OFSD paper's comparison.",
    )
    st.toggle(
        "Fixed number of features for the rankers",
        **state.persisted(WIDGETS, "compare_fixed_top"),
        help="Off: on every split, each ranker keeps as many features as K-OFSD "
        "selected on that split (the paper's rule).",
    )
    if st.session_state["compare_fixed_top"]:
        st.number_input(
            "Top-k (features per ranker)",
            1,
            ds.n_features,
            step=1,
            **state.persisted(WIDGETS, "compare_top"),
        )
with options_col:
    st.slider(
        "Splits",
        2,
        50,
        **state.persisted(WIDGETS, "compare_splits"),
        help="Number of random stratified 50/50 splits (the paper uses 20).",
    )
    st.number_input(
        "Seed",
        0,
        2**31 - 1,
        step=1,
        **state.persisted(WIDGETS, "compare_seed"),
        help="Seed of the splits: the same seed gives the same splits.",
    )

methods = tuple(st.session_state["compare_methods"])
splits, seed = int(st.session_state["compare_splits"]), int(st.session_state["compare_seed"])
top = int(st.session_state["compare_top"]) if st.session_state["compare_fixed_top"] else None
key = state.run_key(methods, splits, seed, top)

result = state.run_button(
    "Run comparison",
    STORE,
    key,
    _compute(ds, minority, methods, splits, seed, top),
    text="Evaluating",
    failure="The comparison could not run",
)
if result is None:
    st.info("Choose the methods and press **Run comparison**.")
    st.stop()

evaluation = result["evaluation"]
summary = evaluation.summary()
st.subheader("Results")
rule = (
    f"every ranker keeps its top {top} features"
    if top is not None
    else "every ranker keeps as many features as K-OFSD selected on the same split"
)
st.caption(
    f"Mean ± standard deviation over {splits} splits (seed {seed}); {rule}. "
    "Time is the selection time on the training half."
)
st.dataframe(summary_frame(summary), hide_index=True, width="stretch")

chart_col, overlap_col = st.columns(2)
with chart_col:
    st.plotly_chart(comparison_figure(summary, "G-mean on the test halves"), width="stretch")
with overlap_col:
    selections = result["selections"]
    st.plotly_chart(
        jaccard_figure(list(selections), [set(s) for s in selections.values()]), width="stretch"
    )
    count = (
        f"the rankers keep their top {result['count']}"
        if top is not None
        else f"the rankers keep as many as K-OFSD selects there ({result['count']})"
    )
    if not any(m in RANKERS for m in selections):
        count = "no ranker compared"
    st.caption(
        "Overlap of the gene sets selected on the **whole data set** (all "
        f"{ds.n_samples} samples, not the splits): Jaccard index |A ∩ B| / |A ∪ B| between "
        f"every two methods; {count}. Sizes: "
        + ", ".join(f"{m} {len(s)}" for m, s in selections.items())
        + "."
    )

st.download_button(
    "Download the per-split records (CSV)",
    records_to_csv(evaluation.records, ("method", "split")),
    file_name=f"compare_{loaded.name.rsplit('.', 1)[0]}_{minority}.csv",
    mime="text/csv",
    on_click="ignore",
)
