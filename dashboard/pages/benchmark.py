"""Benchmark page: several data sets x methods x splits under one protocol (a study,
fsengine.evaluation.study), run on Dask (fsengine.evaluation.benchmark), then ranked and
tested per metric (Friedman / Iman-Davenport, Nemenyi, Wilcoxon-Holm). The library
computes; this page only chooses, runs and draws."""

import dataclasses
from typing import NamedTuple

import pandas as pd
import streamlit as st

from dashboard import messages, running, session
from dashboard.pages import BY_NAME
from dashboard.study_datasets import (
    WIDGETS,
    dataset_options,
    file_size,
    on_upload,
    stored_datasets,
    unique_name,
    uploader_key,
)
from dashboard.widgets import (
    protocol_method_settings,
    rankers_count_widgets,
    splits_seed_widgets,
    widget_defaults,
)
from fsengine import FSEngineError
from fsengine.data.dataset import Dataset
from fsengine.data.task import Task
from fsengine.evaluation import (
    protocol_defaults,
    protocol_refusal,
    protocol_warnings,
    stratified_splits,
    study_defaults,
    training_size,
)
from fsengine.evaluation.benchmark import compare_study, run_study, study_table
from fsengine.evaluation.study import (
    HIGHER_IS_BETTER,
    STUDY_METRICS,
    Study,
    StudyDataset,
    study_from,
)
from fsengine.export.spreadsheet import spreadsheet_safe_frame
from fsengine.export.writers import RANK_ROWS, pairs_frame, rank_frame
from fsengine.methods.estimates import Estimate, density_of, evaluate_seconds, is_counts
from fsengine.methods.registry import METHOD_LABELS, METHODS, ONLINE_METHODS, RANKER_METHODS
from fsengine.pl.figures import critical_difference_figure, metric_heatmap_figure

STORE = BY_NAME["benchmark"].results["benchmark"]
#: A mix of online selectors and rankers, each quick on microarrays.
DEFAULT_METHODS = ("kofsd", "fast-osfs", "saola", "fisher", "s2n", "relieff")
ENGINES = {
    "local": "This machine (local Dask cluster, every core)",
    "cluster": "A Dask cluster (scheduler address)",
    "serial": "This process (one task after the other, no Dask)",
}
ALPHAS = (0.01, 0.05, 0.10)
METRIC_WORDS = {
    "gmean": "G-mean",
    "f1": "F1 (minority)",
    "auc": "AUC",
    "1nn": "1-NN",
    "svm": "SVM",
}


def _metric_text(metric: str) -> str:
    """How the Metric box names ``metric`` (a key of STUDY_METRICS)."""
    if metric == "n_features":
        return "number of features (fewer is better)"
    if metric == "seconds":
        return "selection time, s (less is better; timing, not a result)"
    measure, classifier = metric.split("_")
    return f"{METRIC_WORDS[measure]}, {METRIC_WORDS[classifier]} ({metric})"


class _Entry(NamedTuple):
    """One data set of the study: how the study reads it, its data, its file's name and
    its hash."""

    study: StudyDataset
    data: Dataset
    file: str
    sha: str


class _Protocol(NamedTuple):
    """The methods and protocol chosen for the study."""

    methods: tuple  #: the methods compared
    splits: int  #: splits per data set
    seed: int  #: the seed of the splits
    top: int | None  #: the features every ranker keeps; None: as many as count_from selects
    params: dict  #: each method's settings


# ---------------------------------------------------------------- texts and choices


def _start_text(n_tasks: int, engine: str, scheduler: str) -> str:
    """The note shown while the run starts on ``engine`` (a key of :data:`ENGINES`)."""
    where = {
        "local": "starting a local Dask cluster (a worker process per core)",
        "cluster": f"connecting to the Dask scheduler at {scheduler}",
        "serial": "running in this process",
    }[engine]
    return f"{n_tasks} tasks: {where} ..."


def _engine_text(engine: str, scheduler: str) -> str:
    """Where the study ran, as the result records it (the scheduler's address with it)."""
    return ENGINES[engine] + (f" {scheduler.strip()}" if engine == "cluster" else "")


def _dataset_labels(stored: dict) -> dict:
    """How the list names each stored data set (hash -> (name, size)): its name, the start
    of its hash when another has the same name, and its size."""
    names = {sha: name for sha, (name, _) in stored.items()}
    twice = {n for n in names.values() if list(names.values()).count(n) > 1}
    return {
        sha: f"{name}{f' [{sha[:8]}]' if name in twice else ''} ({file_size(size)})"
        for sha, (name, size) in stored.items()
    }


def _entry_rows(entries) -> list[dict]:
    """The rows of the table of the study's data sets, one per entry (:class:`_Entry`)."""
    return [
        {
            "data set": entry.name,
            "file": file,
            "samples": ds.n_samples,
            "features": ds.n_features,
            "label column": ds.label_column,
            "minority class": entry.minority,
            "minority samples": ds.class_counts()[ds.resolve_class(entry.minority)],
            "imbalance ratio": ds.imbalance_ratio(entry.minority),
        }
        for entry, ds, file, _ in entries
    ]


def _too_few_text(n_datasets: int) -> str:
    """What the page says of a study of fewer than 2 data sets."""
    return (
        f"The study has {n_datasets} data set{'s' if n_datasets != 1 else ''}: the "
        "tests compare methods over at least 2. Add data sets above (upload files or pick "
        "them from this workspace)."
    )


def _study_key(entries, protocol: _Protocol) -> tuple:
    """The key the study's result is kept under: its own data sets (name, hash, reading,
    minority), not the Data page's (not session.run_key), and the protocol."""
    return (
        session.STUDY_KEY,
        tuple((e.name, sha, e.label, e.genes_in_rows, e.minority) for e, _, _, sha in entries),
        protocol.methods,
        protocol.splits,
        protocol.seed,
        protocol.top,
        session.settings_key(protocol.params),
    )


def _study_title(methods, dataset_names, splits: int, seed: int) -> str:
    """The run's title: the methods, the data sets and the protocol."""
    return (
        f"Benchmark {', '.join(METHOD_LABELS[m] for m in methods)} on "
        f"{', '.join(dataset_names)}: {splits} splits, seed {seed}"
    )


def _results_caption(done: Study, n_tasks: int, engine: str) -> str:
    """The caption over the results of the study ``done``: its size, where it ran, what a
    score is and how many features the rankers kept."""
    rule = (
        f"every ranker keeps its top {done.top} features"
        if done.top is not None
        else f"every ranker keeps as many features as {done.count_from} selected on the same split"
    )
    return (
        f"{len(done.datasets)} data sets x {len(done.methods)} methods x {done.splits} splits "
        f"(seed {done.seed}), {n_tasks} tasks, run on: {engine}. Every score is "
        "measured on the **test halves** (samples the selection and the classifier never "
        f"saw), then averaged over the {done.splits} splits of each data set: not in-sample "
        f"fits. {rule[0].upper() + rule[1:]}."
    )


def _verdict(metric: str, p_value: float, alpha: float, n_datasets: int) -> tuple[bool, str]:
    """Whether the methods differ on ``metric`` (Iman-Davenport's ``p_value`` below
    ``alpha``), and the sentence saying so."""
    if p_value < alpha:
        return True, (
            f"The methods differ on {metric} (Iman-Davenport p = "
            f"{p_value:.3g} < {alpha:g}): see which pairs below."
        )
    return False, (
        f"No significant difference between the methods on {metric} (Iman-Davenport p = "
        f"{p_value:.3g} >= {alpha:g}) with {n_datasets} data sets: more data "
        "sets give the tests more power."
    )


def _wilcoxon_caption(n_datasets: int) -> str:
    """The caption under the pairs of methods: the two tests, and Wilcoxon's smallest
    p-value over ``n_datasets`` data sets (2 / 2**n)."""
    return (
        "Nemenyi compares average ranks (it depends on the other methods in the study); the "
        "Wilcoxon signed-rank test compares two methods' means over the data sets by "
        f"themselves (Benavoli et al. 2016). With {n_datasets} data sets, Wilcoxon's smallest "
        f"p-value is {2 / 2**n_datasets:.3g}."
    )


def _download_stem(done: Study) -> str:
    """The start of the downloads' file names: data sets x methods x splits."""
    return f"benchmark_{len(done.datasets)}x{len(done.methods)}x{done.splits}"


# ---------------------------------------------------------------- the run


def _estimate(entries, methods, splits: int, top, params) -> Estimate | None:
    """The study's time: the evaluation of every data set (:mod:`fsengine.methods.estimates`)."""
    total = None
    try:
        for _, ds, _, _ in entries:
            one = evaluate_seconds(
                ds.n_samples,
                ds.n_features,
                methods,
                density=density_of(ds.X),
                counts=is_counts(ds.X),
                params=params,
                n_splits=splits,
                top=top,
                whole_data=False,
            )
            total = one if total is None else total + one
    except FSEngineError:
        return None
    return total


def _compute(study, datasets: list, engine: str, scheduler: str):
    """The run: ``datasets`` are (StudyDataset, Dataset) pairs, read here. It computes on
    the run's own thread and draws nothing (an element drawn from there reached the
    browser under a path the page's run had moved on from, and the browser's app failed
    on it: a blank page, 'Bad delta path index'); what it reaches goes to ``progress``,
    which the page's progress bar shows, from where the study starts."""

    def compute(progress):
        progress(0, 0, _start_text(study.n_tasks, engine, scheduler))  # no step done yet
        if engine == "cluster" and not scheduler.strip():
            raise FSEngineError(
                "no Dask scheduler address is given",
                remedy="type it as tcp://HOST:PORT, or run on this machine",
            )
        data = {e.name: Task.from_dataset(ds, e.minority) for e, ds in datasets}
        table = run_study(
            study,
            progress=lambda done, total, message: progress(
                done, total, f"{done} of {total} tasks, {message}"
            ),
            engine="serial" if engine == "serial" else "dask",
            scheduler=scheduler.strip() if engine == "cluster" else None,
            data=data,
        )
        return {
            "study": study.to_dict(),
            "records": table.to_dict("records"),
            "engine": _engine_text(engine, scheduler),
        }

    return compute


# ---------------------------------------------------------------- the page


def _restore_widgets() -> None:
    """Restore the page's widgets (their defaults on a first visit)."""
    session.restore_widgets(
        WIDGETS,
        {
            "benchmark_current": True,
            "benchmark_workspace": [],
            "benchmark_methods": list(DEFAULT_METHODS),
            "benchmark_splits": 20,
            "benchmark_seed": 0,
            "benchmark_fixed_top": False,
            "benchmark_top": 10,
            "benchmark_alpha": 0.05,
            "benchmark_engine": "local",
            "benchmark_scheduler": "",
            "benchmark_metric": "gmean_1nn",
        },
    )


def _study_adjusted(entries: list[_Entry], splits: int, seed: int):
    """Method -> its defaults that suit every data set of the study (one setting runs on
    all: K-OFSD's K below the smallest training half's minority;
    :func:`fsengine.evaluation.study_defaults`), each data set's kept for the session."""
    kept = session.state.by_task("study_defaults")

    def proposals(entry: _Entry, method: str) -> dict:
        grouped = (splits, seed) if entry.study.sample_groups else ()  # else by arithmetic
        key = (entry.study, entry.sha, method, *grouped)
        if key not in kept:
            try:
                task = Task.from_dataset(entry.data, entry.study.minority)
            except FSEngineError:
                kept[key] = {}  # _protocol_checks says why
            else:
                kept[key] = protocol_defaults(
                    task.y, method, task.groups, splits, seed, X=task.X, name=entry.study.name
                )
        return kept[key]

    def adjusted(method: str) -> dict:
        return study_defaults(method, [proposals(entry, method) for entry in entries])

    return adjusted


def _header() -> None:
    """Draw the page's title and what a study is."""
    st.title("Benchmark")
    st.caption(
        "A study: every chosen method on every data set under the Compare page's protocol "
        "(random stratified 50/50 splits; selection and training on one half, scores on the "
        "other), then the methods ranked per data set and tested over the data sets "
        "(Demsar 2006: Friedman with the Iman-Davenport correction, Nemenyi's critical "
        "difference; pairwise Wilcoxon tests with Holm's correction)."
    )


def _dataset_choice(loaded, stored: dict) -> None:
    """Draw the choice of the study's data sets: the current one, uploads, and those
    stored in the workspace (``stored``: hash -> (name, size)); and the uploads' problems."""
    options = [sha for sha in stored if sha != loaded.sha256]
    chosen = [sha for sha in st.session_state["benchmark_workspace"] if sha in options]
    if chosen != st.session_state["benchmark_workspace"]:
        session.set_widget(WIDGETS, "benchmark_workspace", chosen)
    labels = _dataset_labels(stored)
    minority = session.state.minority
    st.checkbox(
        f"The current data set: {loaded.name}, minority class {session.class_text(minority)}",
        **session.persisted(WIDGETS, "benchmark_current"),
        help="Set on the Data page (label column, genes in rows, minority class).",
    )
    add_col, pick_col = st.columns(2)
    with add_col:
        st.file_uploader(
            "Add data sets: CSV, TSV, gzip-compressed CSV or Parquet",
            accept_multiple_files=True,
            key=uploader_key(),
            on_change=on_upload,
            help="Samples in rows and genes in columns, with one label column (or genes in "
            "rows: set it below). Each file is kept in this workspace.",
        )
    with pick_col:
        st.multiselect(
            "Data sets in this workspace",
            options,
            format_func=lambda sha: labels.get(sha, sha[:12]),
            **session.persisted(WIDGETS, "benchmark_workspace", start="default", options=options),
            placeholder="Uploaded here or on the Data page",
            help="Every file uploaded in this workspace (here or on the Data page) and still "
            "stored. Remove one from the study here.",
        )
    for problem in st.session_state.get("benchmark_upload_problems", []):
        st.warning(problem)


def _study_entries(loaded, stored: dict) -> list[_Entry]:
    """The study's data sets: the current one when chosen, then each chosen workspace data
    set that can be read (its reading options drawn; one that cannot is said)."""
    entries = []
    taken: set = set()
    if st.session_state["benchmark_current"]:
        entries.append(
            _Entry(
                StudyDataset(
                    unique_name(loaded.name, taken),
                    None,
                    str(session.state.minority),
                    loaded.label,
                    loaded.transpose,
                    loaded.sample_groups,
                    loaded.dataset.preprocessing,  # the record names it; the data are given
                ),
                loaded.dataset,
                loaded.name,
                loaded.sha256,
            )
        )
    for sha in st.session_state["benchmark_workspace"]:
        name, size = stored[sha]
        read = dataset_options(sha, name, size)
        if read is not None:
            ds, label, transpose, chosen_minority = read
            entry = StudyDataset(
                unique_name(name, taken), None, str(chosen_minority), label, transpose
            )
            entries.append(_Entry(entry, ds, name, sha))
    return entries


def _datasets_section(loaded) -> list[_Entry]:
    """Draw the data sets section: their choice, each one's options, the table of the
    study's data sets and, with fewer than 2, what to do; returns the study's data sets."""
    st.subheader("Data sets")
    stored = stored_datasets()
    _dataset_choice(loaded, stored)
    entries = _study_entries(loaded, stored)
    if entries:
        st.dataframe(
            pd.DataFrame(_entry_rows(entries)),
            hide_index=True,
            width="stretch",
            column_config={"imbalance ratio": st.column_config.NumberColumn(format="%.2f")},
        )
    if len(entries) < 2:
        st.info(_too_few_text(len(entries)), icon=":material/info:")
    return entries


def _protocol_section(entries: list[_Entry]) -> _Protocol:
    """Draw the choice of the methods, the rankers' number of features, the splits and
    seed, the tests' alpha and the methods' settings."""
    st.subheader("Methods and protocol")
    n_train = min(training_size(ds.n_samples) for _, ds, _, _ in entries)
    n_features = min(ds.n_features for _, ds, _, _ in entries)
    session.set_widget(WIDGETS, "benchmark_top", min(st.session_state["benchmark_top"], n_features))
    methods_col, options_col = st.columns([3, 2])
    with methods_col:
        st.multiselect(
            "Methods",
            list(METHODS),
            format_func=METHOD_LABELS.get,
            **session.persisted(
                WIDGETS, "benchmark_methods", start="default", options=list(METHODS)
            ),
            help=f"Online selectors: {', '.join(ONLINE_METHODS)}. Rankers: "
            f"{', '.join(RANKER_METHODS)}.",
        )
        top = rankers_count_widgets("benchmark", WIDGETS, n_features)
    with options_col:
        splits, seed = splits_seed_widgets(
            "benchmark",
            WIDGETS,
            label="Splits per data set",
            splits_help="Random stratified 50/50 splits of each data set (the paper uses 20).",
        )
        st.select_slider(
            "Significance level (alpha) of the tests",
            ALPHAS,
            **session.persisted(WIDGETS, "benchmark_alpha", options=ALPHAS),
            help="For the critical difference and the pairwise tests; changing it needs no "
            "new run.",
        )
    methods = tuple(st.session_state["benchmark_methods"])
    adjusted = _study_adjusted(entries, splits, seed)
    # Until changed here, each method's settings are the ones last set on Stream, else
    # those that suit every data set of the study (they follow the data sets chosen).
    session.restore_widgets(
        WIDGETS, widget_defaults("benchmark", METHODS, inherit=True, adjusted=adjusted)
    )
    params = protocol_method_settings(
        "benchmark",
        WIDGETS,
        methods,
        top,
        n_train,
        f"training halves of {n_train} samples or more",
        adjusted=adjusted,
    )
    return _Protocol(methods, splits, seed, top, params)


def _engine_section() -> tuple[str, str]:
    """Draw where the tasks run (and a cluster's address); returns the engine (a key of
    :data:`ENGINES`) and the scheduler's address ("" when none is given)."""
    engine_col, address_col = st.columns([3, 2])
    with engine_col:
        st.radio(
            "Where the tasks run",
            list(ENGINES),
            format_func=ENGINES.get,
            **session.persisted(WIDGETS, "benchmark_engine", start="index", options=list(ENGINES)),
            help="Every (data set, method, split) is one task. The results are the same "
            "wherever they run (but for the measured times).",
        )
    engine = st.session_state["benchmark_engine"]
    if engine == "cluster":
        with address_col:
            st.text_input(
                "Dask scheduler address",
                placeholder="tcp://10.0.0.5:8786",
                **session.persisted(WIDGETS, "benchmark_scheduler"),
                help="A running 'dask scheduler' with workers ('dask worker ADDRESS') that have "
                "this version of fsengine installed; the data are sent to them.",
            )
    return engine, st.session_state["benchmark_scheduler"] or ""


def _protocol_checks(entries: list[_Entry], protocol: _Protocol) -> list[str]:
    """Draw each data set's error (a task that cannot be built) and the protocol's warnings
    on it, and that fewer than 2 methods cannot be tested; returns why the protocol refuses
    data sets (sentences, each named)."""
    refusals = []  # a data set the protocol refuses: the run button is disabled, saying why
    for entry, ds, _, _ in entries:
        try:
            task = Task.from_dataset(ds, entry.minority)
        except FSEngineError as exc:
            st.error(f"{entry.name}: {messages.describe(exc)}")
            refusals.append(f"{entry.name}: {running.sentence(messages.describe(exc))}")
            continue
        y = task.y
        problem = protocol_refusal(y)
        if problem is None and task.groups is not None:
            try:  # groups leaving a half too few minority samples: the library refuses
                stratified_splits(y, protocol.splits, protocol.seed, task.groups)
            except FSEngineError as exc:
                problem = exc
        if problem is not None:
            refusals.append(f"{entry.name}: {running.sentence(messages.describe(problem))}")
            continue
        for text in protocol_warnings(
            y,
            list(dict.fromkeys([*protocol.methods, *protocol.params])),
            protocol.params,
            protocol.splits,
            groups=task.groups,
            seed=protocol.seed,
        ):
            st.warning(f"{entry.name}: {text}.", icon=":material/warning:")
    if len(protocol.methods) < 2:
        st.info("Choose at least 2 methods: the tests compare methods.", icon=":material/info:")
    return refusals


def _study(entries: list[_Entry], protocol: _Protocol) -> Study | None:
    """The study of ``entries`` under ``protocol``; None when the library refuses it (an
    error box says why)."""
    try:
        return study_from(
            [entry for entry, *_ in entries],
            protocol.methods,
            splits=protocol.splits,
            seed=protocol.seed,
            top=protocol.top,
            metrics=STUDY_METRICS,
            params=protocol.params,
        )
    except FSEngineError as exc:
        if entries:
            st.error(f"The study cannot run: {messages.describe(exc)}")
        return None


def _run_section(
    entries: list[_Entry], protocol: _Protocol, engine: str, scheduler: str, refusals: list
):
    """Draw the study's run button (running it once pressed) when the library accepts
    the study and it has 2 data sets or more; else, or until it has run, what to do.

    Returns
    -------
    dict or None
        The study's result (its record, long table and engine); None until it has run.
    """
    study = _study(entries, protocol)
    enough_data = len(entries) >= 2
    result = None
    if study is not None and enough_data:
        names = [e.name for e, *_ in entries]
        result = running.run_button(
            "Run the study",
            STORE,
            _study_key(entries, protocol),
            _compute(study, [(e, ds) for e, ds, _, _ in entries], engine, scheduler),
            text="Running the study",
            failure="The study could not run",
            kind="benchmark",
            title=_study_title(protocol.methods, names, protocol.splits, protocol.seed),
            widgets=WIDGETS,
            datasets=", ".join(names),
            refusal=" ".join(refusals) or None,
            estimate=_estimate(
                entries, protocol.methods, protocol.splits, protocol.top, protocol.params
            ),
        )
    if result is None and study is not None and enough_data and not refusals:
        st.info("Choose the data sets, methods and protocol, and press **Run the study**.")
    return result


def _tests_section(comparison, metric: str, alpha: float) -> None:
    """Draw the omnibus tests (Friedman, Iman-Davenport), Nemenyi's critical difference
    and whether the methods differ."""
    k, n = len(comparison.methods), len(comparison.datasets)
    cols = st.columns(3)
    cols[0].metric(
        "Friedman chi-square",
        f"{comparison.friedman_chi2:.3f}",
        help=f"Over the average ranks; chi-square with {k - 1} degrees of freedom.",
    )
    cols[0].caption(f"p = {comparison.friedman_p:.3g}")
    cols[1].metric(
        "Iman-Davenport F",
        f"{comparison.iman_davenport_f:.3f}",
        help=f"Friedman's statistic corrected (less conservative); F({k - 1}, "
        f"{(k - 1) * (n - 1)}).",
    )
    cols[1].caption(f"p = {comparison.iman_davenport_p:.3g}")
    cols[2].metric(
        f"Nemenyi critical difference (alpha {alpha:g})",
        f"{comparison.critical_difference:.3f}",
        help="Two methods whose average ranks differ by more than this differ significantly.",
    )
    cols[2].caption(f"q_alpha = {comparison.q_alpha:.3f}")
    differ, verdict = _verdict(metric, comparison.iman_davenport_p, alpha, n)
    if differ:
        st.success(verdict, icon=":material/check_circle:")
    else:
        st.info(verdict, icon=":material/info:")


def _ranks_section(comparison, metric: str, splits: int) -> None:
    """Draw the rank table, the critical-difference diagram and the heat map."""
    better = "higher" if HIGHER_IS_BETTER[metric] else "lower"
    ranks = rank_frame(comparison).rename(columns=METHOD_LABELS)  # the charts' names
    st.markdown(f"**Rank table**: {metric} per data set ({better} is better), best first")
    st.dataframe(
        ranks.style.format("{:.4f}").format("{:.2f}", subset=(["average rank"], ranks.columns)),
        width="stretch",
    )
    st.caption(
        f"Each cell: the mean of {metric} over the {splits} test halves. "
        f"{RANK_ROWS[0]}: over the data sets; {RANK_ROWS[1]}: the methods ranked on each "
        "data set (1 = best, ties share their mean rank), averaged over the data sets."
    )
    st.plotly_chart(critical_difference_figure(comparison, METHOD_LABELS), width="stretch")
    st.plotly_chart(metric_heatmap_figure(comparison, METHOD_LABELS), width="stretch")
    st.caption(
        "Critical-difference diagram (Demsar 2006): average ranks, best at the left; a bar "
        "joins methods that do not differ significantly (Nemenyi). Heat map: the mean per "
        "data set, with the method's rank on that data set."
    )


def _pairs_section(comparison, alpha: float) -> None:
    """Draw the table of the pairs of methods (Nemenyi, Wilcoxon with Holm's correction)."""
    st.markdown("**Pairs of methods**")
    pairs = pairs_frame(comparison)
    for column in ("method", "versus"):  # the charts' names (the download keeps the keys)
        pairs[column] = pairs[column].map(METHOD_LABELS).fillna(pairs[column])
    st.dataframe(
        pairs,
        hide_index=True,
        width="stretch",
        column_config={
            "rank difference": st.column_config.NumberColumn(format="%.3f"),
            "Nemenyi p": st.column_config.NumberColumn(format="%.4f"),
            "Wilcoxon T": st.column_config.NumberColumn(format="%.1f"),
            "Wilcoxon p": st.column_config.NumberColumn(format="%.4f"),
            "Holm p": st.column_config.NumberColumn(
                format="%.4f", help="Wilcoxon's p adjusted over all pairs (Holm)."
            ),
            "Nemenyi significant": st.column_config.CheckboxColumn(
                help=f"Rank difference above the critical difference (p < {alpha:g})."
            ),
            "Holm significant": st.column_config.CheckboxColumn(
                help=f"Holm-adjusted Wilcoxon p < {alpha:g}."
            ),
        },
    )
    st.caption(_wilcoxon_caption(len(comparison.datasets)))


def _downloads(table: pd.DataFrame, done: Study, metric: str, comparison) -> None:
    """Draw the downloads: the long table (CSV, Parquet) and, with the tests, the rank
    table of ``metric``."""
    stem = _download_stem(done)
    down = st.columns(3)
    down[0].download_button(
        "The long table (CSV)",
        study_table(table, "csv"),
        file_name=f"{stem}.csv",
        mime="text/csv",
        on_click="ignore",
        help="One row per (data set, method, split): every metric, the features, the time.",
    )
    down[1].download_button(
        "The long table (Parquet)",
        study_table(table, "parquet"),
        file_name=f"{stem}.parquet",
        mime="application/vnd.apache.parquet",
        on_click="ignore",
    )
    if comparison is not None:
        down[2].download_button(
            f"The rank table of {metric} (CSV)",
            spreadsheet_safe_frame(rank_frame(comparison)).to_csv(),
            file_name=f"{stem}_{metric}_ranks.csv",
            mime="text/csv",
            on_click="ignore",
        )


def _results_section(result: dict) -> None:
    """Draw the study's results: what ran, the metric's tests, ranks and pairs, and the
    downloads."""
    table = pd.DataFrame(result["records"])
    done = Study.from_dict(result["study"])
    alpha = float(st.session_state["benchmark_alpha"])
    st.subheader("Results")
    st.caption(_results_caption(done, len(table), result["engine"]))
    metric = st.selectbox(
        "Metric",
        list(STUDY_METRICS),
        format_func=_metric_text,
        **session.persisted(
            WIDGETS, "benchmark_metric", start="index", options=list(STUDY_METRICS)
        ),
    )
    try:
        comparisons = compare_study(table, dataclasses.replace(done, metrics=(metric,)), alpha)
    except FSEngineError as exc:
        comparisons = {}
        st.error(f"The tests cannot run on {metric}: {messages.describe(exc)}")
    comparison = comparisons.get(metric)
    if comparison is None:
        st.info("The tests need at least 2 data sets and 2 methods.", icon=":material/info:")
    else:
        _tests_section(comparison, metric, alpha)
        _ranks_section(comparison, metric, done.splits)
        _pairs_section(comparison, alpha)
    _downloads(table, done, metric, comparison)


def render() -> None:
    """Draw the Benchmark page: a study over several data sets, its run (here or on a
    Dask cluster) and its statistics."""
    loaded = session.current()
    _restore_widgets()
    _header()
    entries = _datasets_section(loaded)
    if not entries:
        st.stop()
    protocol = _protocol_section(entries)
    engine, scheduler = _engine_section()
    if not protocol.methods:
        st.info("Choose the methods to compare.", icon=":material/info:")
        st.stop()
    refusals = _protocol_checks(entries, protocol)
    result = _run_section(entries, protocol, engine, scheduler, refusals)
    if result is None:
        st.stop()
    _results_section(result)


# Streamlit runs a page as __main__; imported (a test), the page only defines.
if __name__ == "__main__":
    render()
