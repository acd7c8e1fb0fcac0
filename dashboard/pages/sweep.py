"""Sweep page: an online selector over the values of one of its parameters (K-OFSD's K
by default), and rankers over a range of top-k."""

from typing import NamedTuple

import streamlit as st

from dashboard import running, session
from dashboard.messages import describe
from dashboard.pages import BY_NAME
from dashboard.widgets import current_values, method_widgets, table_height, widget_defaults
from fsengine import FSEngineError
from fsengine.evaluation import (
    PAPER_METHODS,
    best_sweep_values,
    feature_frequencies,
    sweep_k,
    sweep_top,
    sweep_values,
    training_halves,
    training_size,
)
from fsengine.export.writers import records_to_csv
from fsengine.io import file_stem
from fsengine.methods.estimates import sweep_k_seconds, sweep_top_seconds, sweep_values_seconds
from fsengine.methods.registry import METHOD_LABELS, ONLINE_METHODS, RANKER_METHODS, get_method
from fsengine.pl.figures import identical_curves, sweep_figure, topk_sweep_figure
from fsengine.spec import (
    MAX_SWEEP_VALUES,
    MethodSpec,
    Param,
    check_sweep_values,
    default_sweep_values,
    parse_sweep_values,
    sweep_range,
    sweepable_parameters,
)

WIDGETS = BY_NAME["sweep"].widgets
# K-OFSD's K keeps its own store and kind (one sorted pass serves every K: sweep_k); any
# other parameter of any online selector goes through sweep_values.
K_STORE, VALUES_STORE, TOP_STORE = (
    BY_NAME["sweep"].results[kind] for kind in ("sweep-k", "sweep-values", "sweep-top")
)


class _Protocol(NamedTuple):
    """The protocol both sweeps run under, as set at the top of the page."""

    splits: int  #: random stratified 50/50 splits per point
    seed: int  #: the seed of the splits
    n_train: int  #: samples of the smallest drawn training half


def _is_k(method: str, parameter: str) -> bool:
    """Whether the sweep is K-OFSD's K (one sorted pass serves every K: sweep_k)."""
    return (method, parameter) == ("kofsd", "k")


def _symbol(parameter: str) -> str:
    """How the page names the swept parameter: K for ``k``, else its name."""
    return "K" if parameter == "k" else parameter


class _ValuesSweep(NamedTuple):
    """An online selector's parameter swept over ``values``, its other settings ``others``."""

    method: str
    spec: MethodSpec
    parameter: str
    param: Param
    values: list | None  #: None when the values cannot run (an error said why)
    others: dict

    @property
    def is_k(self) -> bool:
        """:func:`_is_k`."""
        return _is_k(self.method, self.parameter)

    @property
    def symbol(self) -> str:
        """:func:`_symbol`."""
        return _symbol(self.parameter)


def _over_key(method: str) -> str:
    """The widget holding the parameter swept of ``method``."""
    return f"sweep_over_{method}"


def _values_key(method: str, parameter: str) -> str:
    """The widget holding the values swept: K-OFSD's K range keeps its former key."""
    if _is_k(method, parameter):
        return "sweep_ks"
    return f"sweep_values_{method}_{parameter}"


def _values_text(values) -> str:
    """``values`` as a title says them: a range of integers by its ends ("3..6")."""
    if all(isinstance(v, int) for v in values) and values == list(range(values[0], values[-1] + 1)):
        return f"{values[0]}..{values[-1]}" if len(values) > 1 else str(values[0])
    return ", ".join(f"{v:g}" for v in values)


def _value_defaults(n_train: int) -> dict:
    """Every online selector's swept parameter (its first number) and starting values, for
    a training half of ``n_train`` samples."""
    defaults = {}
    for method in ONLINE_METHODS:
        numbers = sweepable_parameters(get_method(method).spec)
        defaults[_over_key(method)] = next(iter(numbers), None)
        adjusted = session.task_defaults(method)
        for name, param in numbers.items():
            values = default_sweep_values(param, n_train)
            if name in adjusted and param.kind == "int":  # stay inside what works
                values = [v for v in values if v <= adjusted[name][0]] or values[:1]
            defaults[_values_key(method, name)] = (
                (values[0], values[-1]) if param.kind == "int" else _values_text(values)
            )
    return defaults


def _listed(values) -> str:
    """``values`` listed, the reals short ("0.1, 2")."""
    return ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in values)


def _measured_best_text(summary, parameter, symbol, splits, fewest: int | None) -> str:
    """Which values of the sweep measured best, and, when ``fewest`` is given (K-OFSD's K:
    a training half's minority samples), how that compares with the method's rule of K
    below it (the rule the warnings state): advice that follows the measurements, not the
    rule alone.

    Parameters
    ----------
    summary : list of dict
        The sweep's summary rows (``<measure>_mean`` per value of ``parameter``).
    parameter, symbol : str
        The swept parameter, and how the text names it.
    splits : int
        The splits the means are over.
    fewest : int or None
        The fewest minority samples of a training half; None: no rule to compare with.
    """
    best_nn, top_nn = best_sweep_values(summary, parameter, "gmean_1nn")
    best_svm, top_svm = best_sweep_values(summary, parameter, "gmean_svm")
    text = (
        f"Measured on these {splits} splits: the mean G-mean is highest at {symbol} = "
        f"{_listed(best_nn)} with 1-NN ({top_nn:.3f}) and at {symbol} = {_listed(best_svm)} "
        "with the SVM "
        f"({top_svm:.3f}); a difference smaller than the standard deviations may be chance."
    )
    if fewest is None or max(row[parameter] for row in summary) < fewest:
        return text
    if min(best_nn) >= fewest:
        return text + (
            f" K-OFSD's rule of K below a training half's {fewest} minority samples (so that "
            "a minority sample can have only minority neighbours) is about neighbourhoods, "
            f"not a measurement: on these splits K = {_listed(best_nn)}, at or above it, "
            "measured best."
        )
    return text + (
        f" In line with K-OFSD's rule of K below a training half's {fewest} minority samples."
    )


def _measured_best(summary, parameter, symbol, splits, seed, is_k) -> str:
    """:func:`_measured_best_text`, for K-OFSD's K with the fewest minority samples of the
    current task's training halves under ``splits`` and ``seed``."""
    fewest = None
    if is_k:
        task = session.current_task()
        fewest = training_halves(task.y, splits, seed, task.groups)[1]
    return _measured_best_text(summary, parameter, symbol, splits, fewest)


# ---------------------------------------------------------------- pure texts and choices


def _tops_within(tops: tuple, top_max: int) -> tuple:
    """The top-k range ``tops`` (low, high) cut at ``top_max`` (another data set may have
    fewer features)."""
    low, high = tops
    return (min(low, top_max), min(high, top_max))


def _range_within(chosen: tuple, first: int, last: int) -> tuple:
    """Each end of the range ``chosen`` moved into ``first``..``last``."""
    return tuple(min(max(v, first), last) for v in chosen)


def _capitalized(text: str) -> str:
    """``text`` with a capital first letter."""
    return text[0].upper() + text[1:]


def _no_parameter_text(spec: MethodSpec) -> str:
    """What the page says of an online selector without a numeric parameter to sweep."""
    return (
        f"{spec.label} has no numeric parameter to sweep"
        + (f" (its settings, {', '.join(spec.parameters)}, are choices)" if spec.parameters else "")
        + ". Choose another online selector, or compare it with others on the Compare page."
    )


def _kept_sweeps(results: dict, prefix: tuple, values) -> list:
    """(values computed, result) of every result in ``results`` whose key is ``prefix``
    followed by values that include ``values``: the same data, settings, splits and seed."""
    return [
        (key[-1], found)
        for key, found in results.items()
        if key[:-1] == prefix and set(values) <= set(key[-1])
    ]


def _result_or_kept(result, values, kept: list) -> tuple:
    """The result to draw and the values it was computed for: ``result`` (computed for
    ``values``), else the last of ``kept`` (:func:`_kept_sweeps`), else (None, None)."""
    if result is not None:
        return result, list(values)
    if kept:
        return kept[-1][1], list(kept[-1][0])
    return None, None


def _values_run_hint(symbol: str, is_k: bool, label: str) -> str:
    """What the page says before the sweep of ``symbol`` has run (``label``: the method's)."""
    return (
        f"Choose the values of {symbol} and press **Run {symbol} sweep**: "
        + (
            "every K of the range is computed once (one sorted pass per split serves all of them); "
            if is_k
            else f"{label} runs once per value and split; "
        )
        + "afterwards the shown value and any values among those computed are "
        "drawn from that result without recomputing."
    )


def _run_title(what: str, splits: int, seed: int, name: str, minority) -> str:
    """A run's title: ``what`` ran, under which protocol, on which data and class."""
    return f"{what}: {splits} splits, seed {seed} ({name}, minority {minority})"


def _shown_default(shown, values, default):
    """The value to show: ``shown`` while among ``values``, else the parameter's
    ``default`` when it is, else the middle value."""
    if shown in values:
        return shown
    return default if default in values else values[len(values) // 2]


def _computed_caption(symbol: str, computed, splits: int, seed: int, is_k: bool) -> str:
    """The caption under the sweep's chart: what was computed and what the chart shows."""
    return (
        f"Computed once for {symbol} {_values_text(computed)}, {splits} splits "
        f"(seed {seed}); mean over the splits, error bars one standard deviation. "
        + (
            "One sorted pass per split serves every K: its time is in the chart's "
            "title, not drawn per K. "
            if is_k
            else "The selection time is each value's own, on the training half. "
        )
        + f"Moving the shown {symbol} or choosing fewer of the computed values does "
        "not recompute."
    )


def _genes_table(genes: list, splits: int) -> dict:
    """The columns of the table of genes: each gene and how many splits selected it."""
    return {
        "gene": [g for g, _ in genes],
        f"splits selected (of {splits})": [c for _, c in genes],
    }


def _same_genes(genes_of: dict, group) -> bool:
    """Whether the rankers of ``group`` kept the same genes as its first on every split and
    top-k (``genes_of``: (method, top, split) -> features)."""
    return all(
        genes_of[(m, t, split)] == genes_of[(group[0], t, split)]
        for (m, t, split) in genes_of
        if m in group
    )


def _identical_curves_text(group, same_genes: bool) -> str:
    """What the page says of rankers with identical curves (``group``, the first drawn
    solid) that kept the same genes or not."""
    names = [METHOD_LABELS.get(m, m) for m in group]
    return (
        f"{' and '.join(names)} have identical curves: "
        + (
            "they kept the same genes on every split and top-k"
            + (
                " (on two classes Fisher's score and |PCC| are increasing functions of "
                "each other: they order genes alike)"
                if {"fisher", "pcc"} <= set(group)
                else ""
            )
            if same_genes
            else "the same G-means at every top-k, from different genes"
        )
        + f". {', '.join(names[1:])}: drawn dashed, with open markers, over "
        f"{names[0]}'s line."
    )


# ---------------------------------------------------------------- the page's sections


def _restore_widgets(ds) -> int:
    """Restore the page's widgets (their defaults on a first visit) for the data set
    ``ds``, the top-k range cut at its features; returns the largest top-k offered."""
    top_max = min(30, ds.n_features)
    n_train = training_size(ds.n_samples)  # for the defaults; the drawn halves later
    session.restore_widgets(
        WIDGETS,
        {
            "sweep_splits": 10,
            "sweep_seed": 0,
            "sweep_method": "kofsd",
            **_value_defaults(n_train),
            "sweep_rankers": [m for m in PAPER_METHODS if m in RANKER_METHODS],
            "sweep_tops": (1, min(10, top_max)),
            # Until changed here, the methods' settings are the ones last set on Stream.
            **widget_defaults("sweep", [*ONLINE_METHODS, *RANKER_METHODS], inherit=True),
        },
    )
    session.set_widget(  # another data set may have fewer
        WIDGETS, "sweep_tops", _tops_within(st.session_state["sweep_tops"], top_max)
    )
    return top_max


def _protocol_section(loaded, minority) -> _Protocol:
    """Draw the title, what the page runs on and the protocol's splits and seed."""
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
        **session.persisted(WIDGETS, "sweep_splits", (2, 20), slider=True),
        help="Random stratified 50/50 splits per point (the paper uses 20).",
    )
    seed_col.number_input(
        "Seed",
        0,
        2**31 - 1,
        step=1,
        **session.persisted(WIDGETS, "sweep_seed", (0, 2**31 - 1), cast=int),
        help="Seed of the splits; every point uses the same splits.",
    )
    splits, seed = int(st.session_state["sweep_splits"]), int(st.session_state["sweep_seed"])
    n_train = session.training_half(splits, seed)[0]  # with groups: the smallest drawn half
    return _Protocol(splits, seed, n_train)


def _parameter_section() -> tuple[str, MethodSpec, dict, str | None]:
    """Draw the choice of the online selector and of its parameter to sweep.

    Returns
    -------
    (method, spec, choices, parameter)
        The selector, its specification, its numeric parameters that apply under its
        other settings (name -> Param), and the one chosen (None without any: said so).
    """
    st.subheader("Online selectors: one parameter over a range")
    method_col, over_col = st.columns(2)
    method_col.selectbox(
        "Online selector",
        list(ONLINE_METHODS),
        format_func=lambda m: get_method(m).spec.label,
        **session.persisted(WIDGETS, "sweep_method", start="index", options=list(ONLINE_METHODS)),
        help="The selector to run for every value of the parameter below.",
    )
    method = st.session_state["sweep_method"]
    spec = get_method(method).spec
    # Only the numbers that apply under the method's other settings (drawn further down).
    choices = sweepable_parameters(spec, current_values("sweep", method))
    if not choices:
        st.info(_no_parameter_text(spec))
        return method, spec, choices, None
    if st.session_state.get(_over_key(method)) not in choices:
        session.set_widget(WIDGETS, _over_key(method), next(iter(choices)))
    over_col.selectbox(
        "Parameter",
        list(choices),
        format_func=lambda n: n if choices[n].label == n else f"{n}: {choices[n].label}",
        **session.persisted(WIDGETS, _over_key(method), start="index", options=list(choices)),
        help="The parameter swept; every other setting stays as set below.",
    )
    return method, spec, choices, st.session_state[_over_key(method)]


def _int_values_widget(method: str, parameter: str, param: Param, n_train: int, n_samples: int):
    """Draw the range of an integer parameter's values (a slider when the range has more
    than one value); returns the values checked, or None (the error said why)."""
    is_k, values_key = _is_k(method, parameter), _values_key(method, parameter)
    first, last = sweep_range(param, n_train)
    chosen = tuple(st.session_state.get(values_key) or (first, last))
    clamped = _range_within(chosen, first, last)  # another data set
    if clamped != chosen:
        session.set_widget(WIDGETS, values_key, clamped)
    if last > first:
        st.slider(
            "K range" if is_k else f"Values of {parameter}",
            first,
            last,
            **session.persisted(WIDGETS, values_key, (first, last), slider=True),
            help=(
                "K-OFSD's neighbourhood size; every K in the range is computed in one go."
                if is_k
                else f"{_capitalized(param.help)}; every value in the "
                f"range is a run per split (at most {MAX_SWEEP_VALUES} values)."
            ),
        )
    chosen = st.session_state[values_key]
    try:
        return check_sweep_values(
            param, range(chosen[0], chosen[1] + 1), method=method, n_samples=n_samples
        )
    except FSEngineError as exc:
        st.error(f"The {_symbol(parameter)} sweep cannot run: {describe(exc)}.")
        return None


def _typed_values_widget(method: str, parameter: str, param: Param, n_samples: int):
    """Draw the text box of a real parameter's values (comma-separated); returns the values
    read, or None (the error said why)."""
    values_key = _values_key(method, parameter)
    st.text_input(
        f"Values of {parameter}",
        **session.persisted(WIDGETS, values_key),
        help=f"{_capitalized(param.help)}. Comma-separated values, each "
        f"in {param.range_text()}; at most {MAX_SWEEP_VALUES}; each is a run per split.",
    )
    try:
        return parse_sweep_values(
            param, st.session_state[values_key], method=method, n_samples=n_samples
        )
    except FSEngineError as exc:
        st.error(f"The {_symbol(parameter)} sweep cannot run: {describe(exc)}.")
        return None


def _values_settings_section(n_samples: int, protocol: _Protocol) -> _ValuesSweep | None:
    """Draw the online selector's sweep settings: the selector, the parameter, its values
    and the selector's other settings (in an expander).

    Returns
    -------
    _ValuesSweep or None
        The sweep as set (its ``values`` None when they cannot run: an error said why);
        None when the selector has no parameter to sweep.
    """
    method, spec, choices, parameter = _parameter_section()
    if parameter is None:
        return None
    param = choices[parameter]
    if param.kind == "int":
        values = _int_values_widget(method, parameter, param, protocol.n_train, n_samples)
    else:
        values = _typed_values_widget(method, parameter, param, n_samples)
    others = {}
    if any(name != parameter for name in spec.parameters):
        with st.expander(
            f"{spec.label}'s other settings (as last set on the Stream page, unless changed here)"
        ):
            others = method_widgets("sweep", WIDGETS, method, protocol.n_train, skip=(parameter,))
    return _ValuesSweep(method, spec, parameter, param, values, others)


def _values_compute(sweep: _ValuesSweep, protocol: _Protocol) -> tuple:
    """The store, kind, key prefix (without the values) and computation of the sweep."""
    splits, seed, others, values = protocol.splits, protocol.seed, sweep.others, sweep.values
    if sweep.is_k:
        prefix = session.run_key("k", splits, seed, tuple(sorted(others.items())))

        def compute(progress):
            return sweep_k(
                running.run_task(),
                None,
                tuple(values),
                n_splits=splits,
                seed=seed,
                progress=progress,
                **others,
            )

        return K_STORE, "sweep-k", prefix, compute
    prefix = session.run_key(
        "values", sweep.method, sweep.parameter, splits, seed, tuple(sorted(others.items()))
    )

    def compute(progress):
        return sweep_values(
            running.run_task(),
            None,
            sweep.method,
            sweep.parameter,
            values,
            n_splits=splits,
            seed=seed,
            progress=progress,
            params=others,
        )

    return VALUES_STORE, "sweep-values", prefix, compute


def _values_estimate(sweep: _ValuesSweep, protocol: _Protocol):
    """The time the sweep will take on the current task (None without a cost model)."""
    values, others, splits = sweep.values, sweep.others, protocol.splits
    return running.estimate_for(
        lambda n, p, density, counts: (
            sweep_k_seconds(
                n, p, values, density=density, counts=counts, params=others, n_splits=splits
            )
            if sweep.is_k
            else sweep_values_seconds(
                n,
                p,
                sweep.method,
                sweep.parameter,
                values,
                density=density,
                counts=counts,
                params=others,
                n_splits=splits,
            )
        )
    )


def _values_run(name: str, minority, protocol: _Protocol, sweep: _ValuesSweep) -> tuple:
    """Draw the sweep's run button (running it once pressed).

    Returns
    -------
    (result, computed)
        The result to draw and the values it was computed for: this run's, else one
        computed before over values that include these, else (None, None).
    """
    store, kind, prefix, compute = _values_compute(sweep, protocol)
    # Values inside a set already computed (same data, settings, splits and seed) are
    # drawn from it.
    kept = _kept_sweeps(session.state.results(store), prefix, sweep.values)
    symbol, splits, seed = sweep.symbol, protocol.splits, protocol.seed
    result = running.run_button(
        f"Run {symbol} sweep",
        store,
        prefix + (tuple(sweep.values),),
        compute,
        text=f"{symbol} sweep",
        failure=f"The {symbol} sweep could not run",
        kind=kind,
        title=_run_title(
            f"{sweep.spec.label}, {symbol} {_values_text(sweep.values)}",
            splits,
            seed,
            name,
            minority,
        ),
        widgets=WIDGETS,
        refusal=running.refusal(True, splits, seed)
        or running.memory_refusal("Sweep", [sweep.method]),
        estimate=_values_estimate(sweep, protocol),
    )
    return _result_or_kept(result, sweep.values, kept)


def _shown_value_widget(sweep: _ValuesSweep):
    """Draw the choice of the value shown (with more than one value); returns it."""
    shown_key = "sweep_shown_k" if sweep.is_k else "sweep_shown_value"
    shown = _shown_default(
        st.session_state.get(WIDGETS, {}).get(shown_key), sweep.values, sweep.param.default
    )
    session.set_widget(WIDGETS, shown_key, shown)
    if len(sweep.values) > 1:
        st.select_slider(
            f"Shown {sweep.symbol}",
            options=list(sweep.values),
            **session.persisted(WIDGETS, shown_key, options=list(sweep.values)),
            help="Moves the cursor on the chart and the details below; nothing is recomputed.",
        )
        shown = st.session_state[shown_key]
    return shown


def _shown_value_details(sweep: _ValuesSweep, splits: int, summary: list, result, shown):
    """Draw the settings, the G-means and the number of features at the shown value."""
    symbol, parameter = sweep.symbol, sweep.parameter
    row = next(r for r in summary if r[parameter] == shown)
    settings = next((r.get("settings", "") for r in result.records if r[parameter] == shown), "")
    st.caption(f"{sweep.spec.label}'s settings at the shown {symbol}: {settings}.")
    left, middle, right = st.columns(3)
    left.metric(
        f"G-mean 1-NN at {symbol} = {shown}",
        f"{row['gmean_1nn_mean']:.3f}",
        help=f"Held-out halves; sd {row['gmean_1nn_std']:.3f} over {splits} splits.",
    )
    middle.metric(
        f"G-mean SVM at {symbol} = {shown}",
        f"{row['gmean_svm_mean']:.3f}",
        help=f"Held-out halves; sd {row['gmean_svm_std']:.3f} over {splits} splits.",
    )
    right.metric("Selected features (mean)", f"{row['n_features_mean']:.1f}")


def _values_results(sweep: _ValuesSweep, protocol: _Protocol, result, computed, stem: str):
    """Draw the sweep's result over ``sweep.values`` (computed over ``computed``): the
    shown value, the chart, the details and genes at the shown value, the download."""
    parameter, values, splits = sweep.parameter, sweep.values, protocol.splits
    summary = [row for row in result.summary((parameter,)) if row[parameter] in values]
    shown = _shown_value_widget(sweep)
    st.plotly_chart(
        sweep_figure(summary, parameter, "K" if sweep.is_k else sweep.param.label, cursor=shown),
        width="stretch",
    )
    st.caption(_computed_caption(sweep.symbol, computed, splits, protocol.seed, sweep.is_k))
    _shown_value_details(sweep, splits, summary, result, shown)
    st.info(_measured_best(summary, parameter, sweep.symbol, splits, protocol.seed, sweep.is_k))
    genes = feature_frequencies(result.records, **{parameter: shown})
    if genes:
        st.dataframe(
            _genes_table(genes, splits), hide_index=True, height=table_height(len(genes), 300)
        )
    st.download_button(
        f"Download the {sweep.symbol} sweep records (CSV)",
        records_to_csv([r for r in result.records if r[parameter] in values], (parameter, "split")),
        file_name=f"sweep_{sweep.method}_{parameter}_{stem}.csv",
        mime="text/csv",
        on_click="ignore",
    )


def _values_sweep_section(loaded, minority, protocol: _Protocol, sweep: _ValuesSweep) -> None:
    """Draw the protocol's warnings for the sweep, its run and its result (or what to do)."""
    running.show_protocol_warnings(
        [sweep.method],
        {sweep.method: {**sweep.others, sweep.parameter: sweep.values[-1]}},
        protocol.splits,
        protocol.seed,
    )
    result, computed = _values_run(loaded.name, minority, protocol, sweep)
    if result is None:
        st.info(_values_run_hint(sweep.symbol, sweep.is_k, sweep.spec.label))
    else:
        stem = f"{file_stem(loaded.name)}_{minority}"
        _values_results(sweep, protocol, result, computed, stem)


def _rankers_section(top_max: int, n_train: int) -> tuple:
    """Draw the choice of the rankers, of the top-k range and of the rankers' settings.

    Returns
    -------
    (rankers, tops, ranker_params)
        The rankers and every top-k (tuples), and each configurable ranker's settings.
    """
    st.subheader("Rankers: number of features kept (top-k)")
    st.multiselect(
        "Rankers",
        list(RANKER_METHODS),
        format_func=METHOD_LABELS.get,
        **session.persisted(
            WIDGETS, "sweep_rankers", start="default", options=list(RANKER_METHODS)
        ),
    )
    if top_max > 1:
        st.slider(
            "Top-k range",
            1,
            top_max,
            **session.persisted(WIDGETS, "sweep_tops", (1, top_max), slider=True),
            help="Every ranker keeps its k best features, for every k in the range.",
        )
    tops = tuple(range(st.session_state["sweep_tops"][0], st.session_state["sweep_tops"][1] + 1))
    rankers = tuple(st.session_state["sweep_rankers"])
    running.show_counts_warning(rankers)
    configurable = [m for m in rankers if get_method(m).spec.parameters]
    ranker_params = {}
    if configurable:
        with st.expander(
            "The rankers' settings (as last set on the Export page, unless changed here)"
        ):
            for tab, method in zip(st.tabs(configurable), configurable):
                with tab:
                    ranker_params[method] = method_widgets("sweep", WIDGETS, method, n_train)
    return rankers, tops, ranker_params


def _top_run(name: str, minority, protocol: _Protocol, rankers, tops, ranker_params):
    """Draw the top-k sweep's run button (running it once pressed); returns its result,
    None until it has run."""
    splits, seed = protocol.splits, protocol.seed
    top_key = session.run_key(
        "top",
        rankers,
        tops,
        splits,
        seed,
        session.settings_key(ranker_params),
    )
    return running.run_button(
        "Run top-k sweep",
        TOP_STORE,
        top_key,
        lambda progress: sweep_top(
            running.run_task(),
            None,
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
        title=_run_title(
            f"{', '.join(METHOD_LABELS[m] for m in rankers)}, top {tops[0]}..{tops[-1]}",
            splits,
            seed,
            name,
            minority,
        ),
        widgets=WIDGETS,
        refusal=running.refusal(True, splits, seed) or running.memory_refusal("Sweep", rankers),
        estimate=running.estimate_for(
            lambda n, p, density, counts: sweep_top_seconds(
                n,
                p,
                rankers,
                tops,
                density=density,
                counts=counts,
                params=ranker_params,
                n_splits=splits,
            )
        )
        if rankers
        else None,
    )


def _top_results(top_result, protocol: _Protocol, stem: str) -> None:
    """Draw the top-k sweep's chart, a note per group of identical curves, the download."""
    top_summary = top_result.summary(("method", "top"))
    st.plotly_chart(topk_sweep_figure(top_summary, labels=METHOD_LABELS), width="stretch")
    st.caption(
        f"Mean G-mean on the test halves over {protocol.splits} splits (seed {protocol.seed}), "
        "1-NN and linear SVM in their own panels; error bars: one standard deviation. Click a "
        "ranker in the legend to hide it, double-click to show it alone."
    )
    genes_of = {(r["method"], r["top"], r["split"]): r["features"] for r in top_result.records}
    for group in identical_curves(top_summary):
        st.info(_identical_curves_text(group, _same_genes(genes_of, group)), icon=":material/info:")
    st.download_button(
        "Download the top-k sweep records (CSV)",
        records_to_csv(top_result.records, ("method", "top", "split")),
        file_name=f"sweep_top_{stem}.csv",
        mime="text/csv",
        on_click="ignore",
    )


def _top_sweep_section(loaded, minority, protocol: _Protocol, top_max: int) -> None:
    """Draw the rankers' top-k sweep: its settings, its run and its result."""
    rankers, tops, ranker_params = _rankers_section(top_max, protocol.n_train)
    top_result = _top_run(loaded.name, minority, protocol, rankers, tops, ranker_params)
    if top_result is None:
        st.info("Choose the rankers and the range of top-k and press **Run top-k sweep**.")
    else:
        _top_results(top_result, protocol, f"{file_stem(loaded.name)}_{minority}")


def render() -> None:
    """Draw the Sweep page: K, a parameter's values or the rankers' number of features
    swept under the protocol, and the results."""
    loaded = session.current()
    minority = session.state.minority
    top_max = _restore_widgets(loaded.dataset)
    protocol = _protocol_section(loaded, minority)
    sweep = _values_settings_section(loaded.dataset.n_samples, protocol)
    if sweep is not None and sweep.values is not None:
        _values_sweep_section(loaded, minority, protocol, sweep)
    _top_sweep_section(loaded, minority, protocol, top_max)


# Streamlit runs a page as __main__; imported (a test), the page only defines.
if __name__ == "__main__":
    render()
