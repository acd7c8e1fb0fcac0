"""Sweep page: an online selector over the values of one of its parameters (K-OFSD's K
by default), and rankers over a range of top-k."""

import streamlit as st

from dashboard import running, session
from dashboard.messages import describe
from dashboard.pages import BY_NAME
from dashboard.widgets import current_values, method_widgets, widget_defaults
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
    check_sweep_values,
    default_sweep_values,
    parse_sweep_values,
    sweep_range,
    sweepable_parameters,
)

WIDGETS = BY_NAME["sweep"].widgets


def _over_key(method: str) -> str:
    return f"sweep_over_{method}"


def _values_key(method: str, parameter: str) -> str:
    """The widget holding the values swept: K-OFSD's K range keeps its former key."""
    if (method, parameter) == ("kofsd", "k"):
        return "sweep_ks"
    return f"sweep_values_{method}_{parameter}"


def _values_text(values) -> str:
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
    return ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in values)


def _measured_best(summary, parameter, symbol, splits, seed, is_k) -> str:
    """Which values of the sweep measured best, and, for K-OFSD's K, how that compares
    with the method's rule of K below a training half's minority size (the rule the
    warnings state): advice that follows the measurements, not the rule alone."""
    best_nn, top_nn = best_sweep_values(summary, parameter, "gmean_1nn")
    best_svm, top_svm = best_sweep_values(summary, parameter, "gmean_svm")
    text = (
        f"Measured on these {splits} splits: the mean G-mean is highest at {symbol} = "
        f"{_listed(best_nn)} with 1-NN ({top_nn:.3f}) and at {symbol} = {_listed(best_svm)} "
        "with the SVM "
        f"({top_svm:.3f}); a difference smaller than the standard deviations may be chance."
    )
    if not is_k:
        return text
    task = session.current_task()
    fewest = training_halves(task.y, splits, seed, task.groups)[1]
    if max(row[parameter] for row in summary) < fewest:
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


def render() -> None:
    """Draw the Sweep page: K, a parameter's values or the rankers' number of features
    swept under the protocol, and the results."""
    # K-OFSD's K keeps its own store and kind (one sorted pass serves every K: sweep_k);
    # any other parameter of any online selector goes through sweep_values.
    K_STORE, VALUES_STORE, TOP_STORE = (
        BY_NAME["sweep"].results[kind] for kind in ("sweep-k", "sweep-values", "sweep-top")
    )

    loaded = session.current()
    ds, minority = loaded.dataset, session.state.minority
    top_max = min(30, ds.n_features)
    n_train = training_size(ds.n_samples)  # for the defaults; the drawn halves below

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
    low, high = st.session_state["sweep_tops"]  # another data set may have fewer
    session.set_widget(WIDGETS, "sweep_tops", (min(low, top_max), min(high, top_max)))
    stem = f"{file_stem(loaded.name)}_{minority}"

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
        **session.persisted(WIDGETS, "sweep_splits"),
        help="Random stratified 50/50 splits per point (the paper uses 20).",
    )
    seed_col.number_input(
        "Seed",
        0,
        2**31 - 1,
        step=1,
        **session.persisted(WIDGETS, "sweep_seed"),
        help="Seed of the splits; every point uses the same splits.",
    )
    splits, seed = int(st.session_state["sweep_splits"]), int(st.session_state["sweep_seed"])
    n_train = session.training_half(splits, seed)[0]  # with groups: the smallest drawn half

    st.subheader("Online selectors: one parameter over a range")
    method_col, over_col = st.columns(2)
    method_col.selectbox(
        "Online selector",
        list(ONLINE_METHODS),
        format_func=lambda m: get_method(m).spec.label,
        **session.persisted(WIDGETS, "sweep_method"),
        help="The selector to run for every value of the parameter below.",
    )
    method = st.session_state["sweep_method"]
    spec = get_method(method).spec
    # Only the numbers that apply under the method's other settings (drawn further down).
    choices = sweepable_parameters(spec, current_values("sweep", method))
    if not choices:
        st.info(
            f"{spec.label} has no numeric parameter to sweep"
            + (
                f" (its settings, {', '.join(spec.parameters)}, are choices)"
                if spec.parameters
                else ""
            )
            + ". Choose another online selector, or compare it with others on the Compare page."
        )
        parameter = None
    else:
        if st.session_state.get(_over_key(method)) not in choices:
            session.set_widget(WIDGETS, _over_key(method), next(iter(choices)))
        over_col.selectbox(
            "Parameter",
            list(choices),
            format_func=lambda n: n if choices[n].label == n else f"{n}: {choices[n].label}",
            **session.persisted(WIDGETS, _over_key(method)),
            help="The parameter swept; every other setting stays as set below.",
        )
        parameter = st.session_state[_over_key(method)]

    if parameter is not None:
        param = choices[parameter]
        is_k = (method, parameter) == ("kofsd", "k")  # one sorted pass serves every K
        symbol = "K" if parameter == "k" else parameter
        values_key = _values_key(method, parameter)
        values = None
        if param.kind == "int":
            first, last = sweep_range(param, n_train)
            chosen = tuple(st.session_state.get(values_key) or (first, last))
            clamped = tuple(min(max(v, first), last) for v in chosen)  # another data set
            if clamped != chosen:
                session.set_widget(WIDGETS, values_key, clamped)
            if last > first:
                st.slider(
                    "K range" if is_k else f"Values of {parameter}",
                    first,
                    last,
                    **session.persisted(WIDGETS, values_key, (first, last)),
                    help=(
                        "K-OFSD's neighbourhood size; every K in the range is computed in one go."
                        if is_k
                        else f"{param.help[0].upper() + param.help[1:]}; every value in the "
                        f"range is a run per split (at most {MAX_SWEEP_VALUES} values)."
                    ),
                )
            chosen = st.session_state[values_key]
            try:
                values = check_sweep_values(
                    param, range(chosen[0], chosen[1] + 1), method=method, n_samples=ds.n_samples
                )
            except FSEngineError as exc:
                st.error(f"The {symbol} sweep cannot run: {describe(exc)}.")
        else:
            st.text_input(
                f"Values of {parameter}",
                **session.persisted(WIDGETS, values_key),
                help=f"{param.help[0].upper() + param.help[1:]}. Comma-separated values, each "
                f"in {param.range_text()}; at most {MAX_SWEEP_VALUES}; each is a run per split.",
            )
            try:
                values = parse_sweep_values(
                    param, st.session_state[values_key], method=method, n_samples=ds.n_samples
                )
            except FSEngineError as exc:
                st.error(f"The {symbol} sweep cannot run: {describe(exc)}.")
        others = {}
        if any(name != parameter for name in spec.parameters):
            with st.expander(
                f"{spec.label}'s other settings (as last set on the Stream page, unless "
                "changed here)"
            ):
                others = method_widgets("sweep", WIDGETS, method, n_train, skip=(parameter,))
        if values is not None:
            running.show_protocol_warnings(
                [method], {method: {**others, parameter: values[-1]}}, splits, seed
            )
            if is_k:
                store, kind = K_STORE, "sweep-k"
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

            else:
                store, kind = VALUES_STORE, "sweep-values"
                prefix = session.run_key(
                    "values", method, parameter, splits, seed, tuple(sorted(others.items()))
                )

                def compute(progress):
                    return sweep_values(
                        running.run_task(),
                        None,
                        method,
                        parameter,
                        values,
                        n_splits=splits,
                        seed=seed,
                        progress=progress,
                        params=others,
                    )

            # Values inside a set already computed (same data, settings, splits and seed) are
            # drawn from it.
            kept = [
                (key[-1], found)
                for key, found in session.state.results(store).items()
                if key[:-1] == prefix and set(values) <= set(key[-1])
            ]
            result = running.run_button(
                f"Run {symbol} sweep",
                store,
                prefix + (tuple(values),),
                compute,
                text=f"{symbol} sweep",
                failure=f"The {symbol} sweep could not run",
                kind=kind,
                title=f"{spec.label}, {symbol} {_values_text(values)}: {splits} splits, seed "
                f"{seed} ({loaded.name}, minority {minority})",
                widgets=WIDGETS,
                refusal=running.refusal(True, splits, seed)
                or running.memory_refusal("Sweep", [method]),
                estimate=running.estimate_for(
                    lambda n, p, density, counts: (
                        sweep_k_seconds(
                            n,
                            p,
                            values,
                            density=density,
                            counts=counts,
                            params=others,
                            n_splits=splits,
                        )
                        if is_k
                        else sweep_values_seconds(
                            n,
                            p,
                            method,
                            parameter,
                            values,
                            density=density,
                            counts=counts,
                            params=others,
                            n_splits=splits,
                        )
                    )
                ),
            )
            computed = list(values) if result is not None else (list(kept[-1][0]) if kept else None)
            if result is None and kept:
                result = kept[-1][1]
            if result is None:
                st.info(
                    f"Choose the values of {symbol} and press **Run {symbol} sweep**: "
                    + (
                        "every K of the range is computed once (one sorted pass per split "
                        "serves all of them); "
                        if is_k
                        else f"{spec.label} runs once per value and split; "
                    )
                    + "afterwards the shown value and any values among those computed are "
                    "drawn from that result without recomputing."
                )
            else:
                summary = [row for row in result.summary((parameter,)) if row[parameter] in values]
                shown_key = "sweep_shown_k" if is_k else "sweep_shown_value"
                shown = st.session_state.get(WIDGETS, {}).get(shown_key)
                if shown not in values:  # first draw, or fewer values: the default, else the middle
                    shown = param.default if param.default in values else values[len(values) // 2]
                session.set_widget(WIDGETS, shown_key, shown)
                if len(values) > 1:
                    st.select_slider(
                        f"Shown {symbol}",
                        options=list(values),
                        **session.persisted(WIDGETS, shown_key),
                        help="Moves the cursor on the chart and the details below; nothing is "
                        "recomputed.",
                    )
                    shown = st.session_state[shown_key]
                st.plotly_chart(
                    sweep_figure(summary, parameter, "K" if is_k else param.label, cursor=shown),
                    width="stretch",
                )
                st.caption(
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
                row = next(r for r in summary if r[parameter] == shown)
                settings = next(
                    (r.get("settings", "") for r in result.records if r[parameter] == shown), ""
                )
                st.caption(f"{spec.label}'s settings at the shown {symbol}: {settings}.")
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
                st.info(_measured_best(summary, parameter, symbol, splits, seed, is_k))
                genes = feature_frequencies(result.records, **{parameter: shown})
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
                    f"Download the {symbol} sweep records (CSV)",
                    records_to_csv(
                        [r for r in result.records if r[parameter] in values], (parameter, "split")
                    ),
                    file_name=f"sweep_{method}_{parameter}_{stem}.csv",
                    mime="text/csv",
                    on_click="ignore",
                )

    st.subheader("Rankers: number of features kept (top-k)")
    st.multiselect(
        "Rankers",
        list(RANKER_METHODS),
        format_func=METHOD_LABELS.get,
        **session.persisted(WIDGETS, "sweep_rankers"),
    )
    if top_max > 1:
        st.slider(
            "Top-k range",
            1,
            top_max,
            **session.persisted(WIDGETS, "sweep_tops", (1, top_max)),
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
    top_key = session.run_key(
        "top",
        rankers,
        tops,
        splits,
        seed,
        tuple(sorted((m, str(p)) for m, p in ranker_params.items())),
    )
    top_result = running.run_button(
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
        title=f"{', '.join(METHOD_LABELS[m] for m in rankers)}, top {tops[0]}..{tops[-1]}: "
        f"{splits} splits, seed {seed} ({loaded.name}, minority {minority})",
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
    if top_result is None:
        st.info("Choose the rankers and the range of top-k and press **Run top-k sweep**.")
    else:
        top_summary = top_result.summary(("method", "top"))
        st.plotly_chart(topk_sweep_figure(top_summary, labels=METHOD_LABELS), width="stretch")
        st.caption(
            f"Mean G-mean on the test halves over {splits} splits (seed {seed}), 1-NN and "
            "linear SVM in their own panels; error bars: one standard deviation. Click a ranker "
            "in the legend to hide it, double-click to show it alone."
        )
        genes_of = {(r["method"], r["top"], r["split"]): r["features"] for r in top_result.records}
        for group in identical_curves(top_summary):
            names = [METHOD_LABELS.get(m, m) for m in group]
            same_genes = all(
                genes_of[(m, t, split)] == genes_of[(group[0], t, split)]
                for (m, t, split) in genes_of
                if m in group
            )
            st.info(
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
                f"{names[0]}'s line.",
                icon=":material/info:",
            )
        st.download_button(
            "Download the top-k sweep records (CSV)",
            records_to_csv(top_result.records, ("method", "top", "split")),
            file_name=f"sweep_top_{stem}.csv",
            mime="text/csv",
            on_click="ignore",
        )


# Streamlit runs a page as __main__; imported (a test), the page only defines.
if __name__ == "__main__":
    render()
