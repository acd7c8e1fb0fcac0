"""Sweep page: K-OFSD over a range of K, and rankers over a range of top-k."""

import streamlit as st

from dashboard import state
from dashboard.widgets import method_widgets, widget_defaults
from fsengine.evaluation import PAPER_METHODS, feature_frequencies, sweep_k, sweep_top
from fsengine.export import records_to_csv
from fsengine.figures import k_sweep_figure, topk_sweep_figure
from fsengine.methods import get_method
from fsengine.rankers import RANKERS

K_STORE, TOP_STORE, WIDGETS = "sweep_k_results", "sweep_top_results", "sweep_widgets"

loaded = state.current()
ds, minority = loaded.dataset, st.session_state["minority"]
top_max = min(30, ds.n_features)
state.restore_widgets(
    WIDGETS,
    {
        "sweep_splits": 10,
        "sweep_seed": 0,
        "sweep_ks": (1, 10),
        "sweep_rankers": [m for m in PAPER_METHODS if m in RANKERS],
        "sweep_tops": (1, min(10, top_max)),
        # Until changed here, the methods' settings are the ones last set on Stream.
        **widget_defaults("sweep", ["kofsd", *RANKERS], inherit=True),
    },
)
n_train = (ds.n_samples + 1) // 2
low, high = st.session_state["sweep_tops"]  # another data set may have fewer
state.set_widget(WIDGETS, "sweep_tops", (min(low, top_max), min(high, top_max)))
stem = f"{loaded.name.rsplit('.', 1)[0]}_{minority}"

st.title("Sweep")
st.caption(
    f"{loaded.name}, minority class **{minority}** versus the rest, under the "
    "evaluation protocol: random stratified 50/50 splits, selection and training on one "
    "half, G-mean on the other."
)
split_col, seed_col = st.columns(2)
split_col.slider(
    "Splits",
    2,
    20,
    **state.persisted(WIDGETS, "sweep_splits"),
    help="Random stratified 50/50 splits per point (the paper uses 20).",
)
seed_col.number_input(
    "Seed",
    0,
    2**31 - 1,
    step=1,
    **state.persisted(WIDGETS, "sweep_seed"),
    help="Seed of the splits; every point uses the same splits.",
)
splits, seed = int(st.session_state["sweep_splits"]), int(st.session_state["sweep_seed"])

st.subheader("K-OFSD: number of neighbours K")
st.slider(
    "K range",
    1,
    15,
    **state.persisted(WIDGETS, "sweep_ks"),
    help="K-OFSD's neighbourhood size; every K in the range is computed in one go.",
)
ks = tuple(range(st.session_state["sweep_ks"][0], st.session_state["sweep_ks"][1] + 1))
with st.expander("K-OFSD's other settings (as last set on the Stream page, unless changed here)"):
    kofsd_params = method_widgets("sweep", WIDGETS, "kofsd", n_train)
kofsd_params.pop("k", None)
state.show_protocol_warnings(["kofsd"], {"kofsd": {"k": ks[-1]}}, splits)
k_prefix = state.run_key("k", splits, seed, tuple(sorted(kofsd_params.items())))
# A range inside one already computed (same data, splits and seed) is drawn from it.
kept = [
    (key[-1], result)
    for key, result in st.session_state.get(K_STORE, {}).items()
    if key[:-1] == k_prefix and set(ks) <= set(key[-1])
]
k_result = state.run_button(
    "Run K sweep",
    K_STORE,
    k_prefix + (ks,),
    lambda progress: sweep_k(
        ds, minority, ks, n_splits=splits, seed=seed, progress=progress, **kofsd_params
    ),
    text="K sweep",
    failure="The K sweep could not run",
    kind="sweep-k",
    title=f"K-OFSD, K {ks[0]}..{ks[-1]}: {splits} splits, seed {seed} ({loaded.name}, "
    f"minority {minority})",
    widgets=WIDGETS,
)
computed_ks = ks if k_result is not None else (kept[-1][0] if kept else None)
if k_result is None and kept:
    k_result = kept[-1][1]
if k_result is None:
    st.info(
        "Choose the range of K and press **Run K sweep**: every K of the range is computed "
        "once (one sorted pass per split serves all of them); afterwards the shown K and any "
        "narrower range are drawn from that result without recomputing."
    )
else:
    summary = [row for row in k_result.summary(("k",)) if row["k"] in ks]
    shown = st.session_state.get(WIDGETS, {}).get("sweep_shown_k")
    if shown not in ks:  # first draw, or a narrower range
        shown = 7 if 7 in ks else ks[len(ks) // 2]
    state.set_widget(WIDGETS, "sweep_shown_k", shown)
    if len(ks) > 1:
        st.select_slider(
            "Shown K",
            options=list(ks),
            **state.persisted(WIDGETS, "sweep_shown_k"),
            help="Moves the cursor on the chart and the details below; nothing is recomputed.",
        )
        shown = st.session_state["sweep_shown_k"]
    st.plotly_chart(k_sweep_figure(summary, cursor=shown), width="stretch")
    st.caption(
        f"Computed once for K {computed_ks[0]}..{computed_ks[-1]}, {splits} splits "
        f"(seed {seed}); mean over the splits, error bars one standard deviation. "
        "One sorted pass per split serves every K, so the selection time is that pass "
        "divided by the number of K. Moving the shown K or narrowing the range does not "
        "recompute."
    )
    row = next(r for r in summary if r["k"] == shown)
    settings = next((r.get("settings", "") for r in k_result.records if r["k"] == shown), "")
    st.caption(f"K-OFSD's settings at the shown K: {settings}.")
    left, middle, right = st.columns(3)
    left.metric(
        f"G-mean 1-NN at K = {shown}",
        f"{row['gmean_1nn_mean']:.3f}",
        help=f"Held-out halves; sd {row['gmean_1nn_std']:.3f} over {splits} splits.",
    )
    middle.metric(
        f"G-mean SVM at K = {shown}",
        f"{row['gmean_svm_mean']:.3f}",
        help=f"Held-out halves; sd {row['gmean_svm_std']:.3f} over {splits} splits.",
    )
    right.metric("Selected features (mean)", f"{row['n_features_mean']:.1f}")
    genes = feature_frequencies(k_result.records, k=shown)
    if genes:
        st.dataframe(
            {
                "gene": [g for g, _ in genes],
                f"splits selected (of {splits})": [c for _, c in genes],
            },
            hide_index=True,
            height=min(35 * len(genes) + 38, 300),
        )
    st.download_button(
        "Download the K sweep records (CSV)",
        records_to_csv([r for r in k_result.records if r["k"] in ks], ("k", "split")),
        file_name=f"sweep_k_{stem}.csv",
        mime="text/csv",
        on_click="ignore",
    )

st.subheader("Rankers: number of features kept (top-k)")
st.multiselect("Rankers", list(RANKERS), **state.persisted(WIDGETS, "sweep_rankers"))
if top_max > 1:
    st.slider(
        "Top-k range",
        1,
        top_max,
        **state.persisted(WIDGETS, "sweep_tops"),
        help="Every ranker keeps its k best features, for every k in the range.",
    )
tops = tuple(range(st.session_state["sweep_tops"][0], st.session_state["sweep_tops"][1] + 1))
rankers = tuple(st.session_state["sweep_rankers"])
configurable = [m for m in rankers if RANKERS and get_method(m).spec.parameters]
ranker_params = {}
if configurable:
    with st.expander("The rankers' settings (as last set on the Export page, unless changed here)"):
        for tab, method in zip(st.tabs(configurable), configurable):
            with tab:
                ranker_params[method] = method_widgets("sweep", WIDGETS, method, n_train)
top_key = state.run_key(
    "top", rankers, tops, splits, seed, tuple(sorted((m, str(p)) for m, p in ranker_params.items()))
)
top_result = state.run_button(
    "Run top-k sweep",
    TOP_STORE,
    top_key,
    lambda progress: sweep_top(
        ds,
        minority,
        rankers,
        tops,
        n_splits=splits,
        seed=seed,
        params=ranker_params,
        progress=progress,
    ),
    text="Top-k sweep",
    failure="The top-k sweep could not run",
    kind="sweep-top",
    title=f"{', '.join(rankers)}, top {tops[0]}..{tops[-1]}: {splits} splits, seed {seed} "
    f"({loaded.name}, minority {minority})",
    widgets=WIDGETS,
)
if top_result is None:
    st.info("Choose the rankers and the range of top-k and press **Run top-k sweep**.")
else:
    st.plotly_chart(topk_sweep_figure(top_result.summary(("method", "top"))), width="stretch")
    st.caption(
        f"Mean G-mean on the test halves over {splits} splits (seed {seed}), 1-NN and "
        "linear SVM in their own panels; bands: one standard deviation. Click a ranker in "
        "the legend to hide it, double-click to show it alone."
    )
    st.download_button(
        "Download the top-k sweep records (CSV)",
        records_to_csv(top_result.records, ("method", "top", "split")),
        file_name=f"sweep_top_{stem}.csv",
        mime="text/csv",
        on_click="ignore",
    )
