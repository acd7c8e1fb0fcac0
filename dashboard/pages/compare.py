"""Compare page: the online selectors and the rankers under the evaluation protocol."""

from typing import NamedTuple

import streamlit as st

from dashboard import running, session
from dashboard.glossary import TERMS
from dashboard.pages import BY_NAME
from dashboard.widgets import (
    protocol_method_settings,
    rankers_count_widgets,
    splits_seed_widgets,
    table_height,
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


class CompareSettings(NamedTuple):
    """The comparison the page's widgets ask for.

    Attributes
    ----------
    methods : tuple of str
        The chosen methods, in the order chosen.
    splits, seed : int
        The protocol's number of splits and its seed.
    top : int or None
        The rankers' fixed number of features, or None (K-OFSD's count on each split).
    params : dict
        method -> its parameter values (K-OFSD's too when it only sets the rankers' count).
    """

    methods: tuple[str, ...]
    splits: int
    seed: int
    top: int | None
    params: dict


def _compute(methods, splits, seed, top, params):
    """The comparison's computation, given the run's progress callback: the protocol's
    splits, then every method once on the whole data set (for the overlap); returns the
    result :func:`_run_section` describes."""

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


def _warned_methods(methods, params: dict) -> list[str]:
    """The chosen methods, then the others that run (K-OFSD setting the rankers' count),
    each once: the methods the protocol's warnings are about."""
    return list(dict.fromkeys([*methods, *params]))


def _run_title(methods, splits: int, seed: int, data_name: str, minority) -> str:
    """The run's title in the workspace: "Compare K-OFSD, Fisher: 2 splits, seed 0
    (SRBCT, minority 2)"."""
    return (
        f"Compare {', '.join(METHOD_LABELS[m] for m in methods)}: {splits} splits, "
        f"seed {seed} ({data_name}, minority {minority})"
    )


def _ranker_rule(methods_run, top: int | None, counter, counter_settings: dict) -> str:
    """How many features the rankers of a comparison kept, for the results' caption.

    Parameters
    ----------
    methods_run : sequence of str
        The methods the evaluation ran.
    top : int or None
        The rankers' fixed number of features, or None (the counter's count on each split).
    counter : MethodSpec
        The method whose count the rankers take when ``top`` is None.
    counter_settings : dict
        Its parameters in effect (read only when the rule names them).
    """
    if not any(m in RANKER_METHODS for m in methods_run):
        return "no ranker compared"
    if top is not None:
        return f"every ranker keeps its top {top} features"
    return (
        f"every ranker keeps as many features as {counter.label} "
        f"({counter.settings_text(counter_settings)}) selected on the same split"
    )


def _results_caption(splits: int, seed: int, rule: str) -> str:
    """The caption above the results table: over what its numbers are."""
    return (
        f"Mean and standard deviation over {splits} splits (seed {seed}), measured on the "
        f"test halves; {rule}. Time is the selection time on the training half. Shaded: the "
        "best mean of each measure. Click a column title to sort."
    )


def _overlap_caption(
    n_samples: int, selections: dict, fallbacks, top: int | None, count: int
) -> str:
    """The caption under the overlap chart: what it compares and each selection's size.

    Parameters
    ----------
    n_samples : int
        Samples of the whole data set.
    selections : dict
        method -> the genes it selected on the whole data set.
    fallbacks : sequence of str
        The methods whose genes are their fallback rule's.
    top : int or None
        The rankers' fixed number of features, or None (K-OFSD's count).
    count : int
        The features each ranker kept on the whole data set.
    """
    if not any(m in RANKER_METHODS for m in selections):
        rule = "no ranker compared"
    elif top is not None:
        rule = f"the rankers keep their top {count}"
    else:
        fallback = ", its fallback's" if "kofsd" in fallbacks else ""
        rule = f"the rankers keep as many as K-OFSD returns there ({count}{fallback})"
    sizes = ", ".join(
        f"{METHOD_LABELS.get(m, m)} {len(s)}"
        + (" (fallback: it selected none)" if m in fallbacks else "")
        for m, s in selections.items()
    )
    return (
        "Overlap of the gene sets selected on the **whole data set** (all "
        f"{n_samples} samples, not the splits): Jaccard index |A ∩ B| / |A ∪ B| between "
        f"every two methods; {rule}. Sizes: {sizes}."
    )


def _fallback_warning(method: str, n_genes: int) -> str:
    """The warning that ``method`` selected nothing on the whole data set and that its
    ``n_genes`` genes of the overlap are its fallback rule's."""
    return (
        f"{METHOD_LABELS.get(method, method)} selected no feature on the whole data set; "
        f"its {n_genes} "
        "genes in the overlap are its fallback rule's (the top ones by single-feature "
        "score), not a selection. The features column of the table counts what each "
        "method returned on the training halves, fallbacks included."
    )


def _whole_data_ranks(ranks) -> list[str]:
    """Each gene's rank in the whole-data selection as text: "3", or "not selected" for
    a missing (NaN) rank."""
    return [f"{r:.0f}" if r == r else "not selected" for r in ranks]


def _records_file_name(data_name: str, minority) -> str:
    """The per-split records' file name: "compare_SRBCT_2.csv" for SRBCT.parquet."""
    return f"compare_{file_stem(data_name)}_{minority}.csv"


def _restore_settings(n_features: int) -> None:
    """Put back the page's widget values (or their defaults), the rankers' number of
    features bounded by the data set's ``n_features``."""
    session.restore_widgets(
        WIDGETS,
        {
            "compare_methods": running.methods_from_disk(PAPER_METHODS),
            "compare_splits": running.COMPARE_SPLITS,
            "compare_seed": running.COMPARE_SEED,
            "compare_fixed_top": False,
            "compare_top": min(10, n_features),
            # Until changed here, each method's settings are the ones last set on Stream.
            **widget_defaults("compare", METHODS, inherit=True),
        },
    )
    session.set_widget(WIDGETS, "compare_top", min(st.session_state["compare_top"], n_features))


def _header(data_name: str, minority) -> None:
    """Draw the title and the caption naming the data set, its minority class and the
    protocol."""
    st.title("Compare")
    st.caption(
        f"{data_name}, minority class **{minority}** versus the rest. Every split is a "
        "random stratified half to select and train on and the other half to test on; "
        "G-mean, F1 and AUC are for the minority class, on the test halves only.",
        help=TERMS["G-mean"],
    )


def _settings_section(n_features: int) -> CompareSettings:
    """Draw the methods, the rankers' count, the splits and seed, each method's settings
    and the protocol's warnings; returns what they ask for."""
    methods_col, options_col = st.columns([3, 2])
    with methods_col:
        st.multiselect(
            "Methods",
            list(METHODS),
            format_func=METHOD_LABELS.get,
            **session.persisted(WIDGETS, "compare_methods", start="default", options=list(METHODS)),
            help=f"Online selectors: {', '.join(ONLINE_METHODS)}. Rankers: "
            f"{', '.join(RANKER_METHODS)}.  \n**d-**: {TERMS['d-']}  \nDefault: the K-OFSD "
            "paper's comparison.",
        )
        top = rankers_count_widgets("compare", WIDGETS, n_features)
    with options_col:
        splits, seed = splits_seed_widgets("compare", WIDGETS)

    methods = tuple(st.session_state["compare_methods"])
    n_train, training = session.training_half(splits, seed)  # groups: the drawn halves
    params = protocol_method_settings("compare", WIDGETS, methods, top, n_train, training)
    if methods:
        running.show_protocol_warnings(_warned_methods(methods, params), params, splits, seed)
        running.show_counts_warning(methods)
    return CompareSettings(methods, splits, seed, top, params)


def _run_section(data_name: str, minority, settings: CompareSettings) -> dict:
    """Draw the "Run comparison" button (with its refusal or time estimate) and return
    the comparison's result; without one, say what to do and stop the page.

    Returns
    -------
    dict
        "evaluation" (the protocol's result), "selections" (method -> its genes on the
        whole data set), "fallbacks" (the methods that selected none there) and "count"
        (the rankers' number of features there).
    """
    methods, splits, seed, top, params = settings
    key = session.run_key(methods, splits, seed, top, session.settings_key(params))
    result = running.run_button(
        "Run comparison",
        STORE,
        key,
        _compute(methods, splits, seed, top, params),
        text="Evaluating",
        failure="The comparison could not run",
        kind="compare",
        title=_run_title(methods, splits, seed, data_name, minority),
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
    return result


def _results_table(evaluation, summary, settings: CompareSettings) -> None:
    """Draw the "Results" table (mean ± sd of each measure per method, the best shaded),
    its caption, and the expander of each method's settings in effect."""
    st.subheader("Results")
    method_settings = evaluation.params["settings"]
    counter = get_method(evaluation.params.get("count_from", "kofsd")).spec
    counter_settings = method_settings.get(counter.name) or counter.record(
        counter.check(dict(evaluation.params["params"].get(counter.name, {})))
    )
    rule = _ranker_rule(evaluation.params["methods"], settings.top, counter, counter_settings)
    st.caption(_results_caption(settings.splits, settings.seed, rule))
    frame = summary_frame(summary, method_settings)
    frame["method"] = frame["method"].map(METHOD_LABELS).fillna(frame["method"])
    spread = "Mean ± standard deviation over the splits; sorts by the mean."
    st.dataframe(
        _styled(frame.drop(columns=["settings"])),
        hide_index=True,
        width="stretch",
        height=table_height(len(frame)),
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


def _charts_section(result: dict, summary, top: int | None, n_samples: int) -> None:
    """Draw, side by side, the G-mean chart and the overlap (Jaccard) of the whole-data
    selections with its caption and a warning per method that fell back."""
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
        st.caption(_overlap_caption(n_samples, selections, fallbacks, top, result["count"]))
        for method in fallbacks:
            st.warning(
                _fallback_warning(method, len(selections[method])), icon=":material/warning:"
            )


def _frequency_section(evaluation, selections: dict, loaded, minority, splits: int) -> None:
    """Draw how often each gene of a chosen method was selected across the splits: the
    method's choice, the table beside its chart, and a caption."""
    st.subheader("How often each gene was selected across the splits")
    shown = st.selectbox(
        "Method", list(selections), format_func=METHOD_LABELS.get, key="compare_frequency_method"
    )
    frequencies = selection_frequencies(
        evaluation, loaded.dataset, minority, shown, selections[shown]
    )
    left, right = st.columns([2, 3])
    left.dataframe(
        frequencies[["gene", "times", "share"]].assign(
            whole_data_rank=_whole_data_ranks(frequencies["whole_data_rank"])
        ),
        hide_index=True,
        width="stretch",
        height=table_height(len(frequencies), 420),
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


def _records_download(evaluation, data_name: str, minority) -> None:
    """Draw the button downloading the per-split records as CSV."""
    st.download_button(
        "Download the per-split records (CSV)",
        records_to_csv(evaluation.records, ("method", "split")),
        file_name=_records_file_name(data_name, minority),
        mime="text/csv",
        on_click="ignore",
    )


def render() -> None:
    """Draw the Compare page: the methods and the protocol's settings, the run, and its
    results (table, charts, gene frequencies)."""
    loaded = session.current()
    minority = session.state.minority
    _restore_settings(loaded.dataset.n_features)
    _header(loaded.name, minority)
    settings = _settings_section(loaded.dataset.n_features)
    result = _run_section(loaded.name, minority, settings)  # none yet: stops the page

    evaluation = result["evaluation"]
    summary = evaluation.summary()
    _results_table(evaluation, summary, settings)
    _charts_section(result, summary, settings.top, loaded.dataset.n_samples)
    _frequency_section(evaluation, result["selections"], loaded, minority, settings.splits)
    _records_download(evaluation, loaded.name, minority)


# Streamlit runs a page as __main__; imported (a test), the page only defines.
if __name__ == "__main__":
    render()
