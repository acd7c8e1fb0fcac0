"""A method's parameter widgets, drawn from its specification (fsengine.spec).

Every page that offers method settings calls :func:`method_widgets`; the widgets'
kinds, labels, ranges, steps, help and visibility all come from the method's ``spec``,
so a new method gets its own widgets with no edit here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection

import streamlit as st

from dashboard import session
from fsengine.methods.registry import RANKER_METHODS, get_method
from fsengine.spec import MethodSpec, Param

#: Largest value an unbounded integer slider offers.
INT_SLIDER_MAX = 50


def table_height(rows: int, most: int | None = None) -> int:
    """Pixels of a table showing ``rows`` rows and its header whole (35 a row, 3 of
    border), at most ``most``."""
    height = 35 * (rows + 1) + 3
    return height if most is None else min(height, most)


def widget_key(prefix: str, method: str, name: str) -> str:
    """Session key of ``method``'s parameter ``name`` on the page ``prefix``."""
    return f"{prefix}_{method}_{name}"


#: Where a method's settings are set first: the Stream page (online selectors), then
#: the Export page; other pages default to what was last set there.
SETTING_PAGES = (("stream", "stream_widgets"), ("export", "export_widgets"))


#: Method -> its defaults that suit the data better than its specification's:
#: parameter -> (value, why in a sentence).
Adjusted = Callable[[str], dict]


def widget_defaults(
    prefix: str, methods, inherit: bool = False, adjusted: Adjusted | None = None
) -> dict:
    """The first value of every parameter widget of ``methods``.

    Parameters
    ----------
    prefix : str
        The page's widget prefix.
    methods : iterable of str
    inherit : bool
        Take the value last set on the Stream page (else the Export page) where there is
        one, instead of the specification's default.
    adjusted : callable, optional
        Method -> the defaults that suit the data where the specification's do not
        (:func:`default_value`); the current task's when None.
    """
    return {
        widget_key(prefix, m, name): (
            last_set(m, adjusted)[name] if inherit else default_value(m, name, adjusted)
        )
        for m in methods
        for name in get_method(m).spec.parameters
    }


def default_value(method: str, name: str, adjusted: Adjusted | None = None):
    """The first value of ``method``'s parameter ``name``: the specification's default,
    unless another suits the data: ``adjusted(method)``'s, by default the current task's
    (:func:`dashboard.session.task_defaults`)."""
    found = (adjusted or session.task_defaults)(method)
    return found[name][0] if name in found else get_method(method).spec.parameters[name].default


def last_set(method: str, adjusted: Adjusted | None = None) -> dict:
    """Every parameter of ``method`` as last set on the Stream page (online selectors) or
    the Export page for the current task, else its default (:func:`default_value` with
    ``adjusted``; all parameters, applicable or not)."""
    values = {}
    for name in get_method(method).spec.parameters:
        values[name] = default_value(method, name, adjusted)
        for prefix, store in reversed(SETTING_PAGES):
            saved = session.widget_store(store)  # the current task's
            if widget_key(prefix, method, name) in saved:
                values[name] = saved[widget_key(prefix, method, name)]
    return values


def applicable(method: str, values: dict) -> dict:
    """The parameters of ``values`` in effect for ``method`` (a ``when`` not met: dropped)."""
    return get_method(method).spec.record(values)


def _int_bounds(param: Param, n_samples: int) -> tuple[int, int | None]:
    high = param.high(n_samples) if callable(param.high) else param.high
    if param.ui_high is not None:
        high = param.ui_high if high is None else min(high, param.ui_high)
    return param.low, high


def _help(param: Param) -> str:
    text = param.help[0].upper() + param.help[1:] + "."
    if param.kind == "choice":
        text += "  \n" + "  \n".join(f"**{c}**: {d}" for c, d in param.choices.items())
    if param.source:
        text += f"  \nSource: {param.source}."
    return text


def _draw(param: Param, key: str, store: str | None, n_samples: int, container):
    """Draw ``param``'s widget under ``key`` and return its value; the widget starts at
    the value its key holds (:func:`dashboard.session.starting`: K-OFSD streamed with
    K = 1 and alpha = 0 on a loaded machine when it did not)."""
    label = param.label[0].upper() + param.label[1:]

    def keep(bounds=None, slider=False, **start) -> dict:  # key, remembered, held value
        if store:
            return session.persisted(store, key, bounds, slider=slider, **start)
        return {"key": key, **session.starting(key, bounds=bounds, **start)}

    if param.kind == "choice":
        choices = list(param.choices)
        return container.selectbox(
            label,
            choices,
            format_func=lambda choice: choice_text(param, choice),
            help=_help(param),
            **keep(start="index", options=choices),
        )
    if param.kind == "bool":
        return container.checkbox(
            label, help=_help(param), **{"value": bool(param.default), **keep(cast=bool)}
        )
    if param.kind == "int":
        low, high = _int_bounds(param, n_samples)
        if param.none:
            text = container.text_input(
                label,
                help=_help(param) + f"  \nEmpty: {param.none_text}.",
                **{"value": None, **keep(cast=str)},
            )
            text = (text or "").strip() if isinstance(text, str) else text
            return None if text in ("", None) else _int_or_text(text)
        value = st.session_state.get(key)
        if value is not None and high is not None and value > high:  # a smaller data set
            if store:
                session.set_widget(store, key, high)
            else:
                st.session_state[key] = high
        if high is not None and high - low <= INT_SLIDER_MAX:
            return container.slider(
                label,
                low,
                max(high, low),
                help=_help(param),
                **keep((low, max(high, low)), slider=True, cast=int),
            )
        return int(
            container.number_input(
                label, low, high, step=1, help=_help(param), **keep((low, high), cast=int)
            )
        )
    low = param.low if math.isfinite(param.low) else None
    high = param.high if math.isfinite(param.high) else None
    if not math.isfinite(param.default):  # an empty box: no bound (a floor of -inf)
        value = container.number_input(
            label,
            low,
            high,
            step=param.step or 1.0,
            format="%g",
            placeholder="none",
            help=_help(param) + "  \nEmpty: none.",
            **{"value": None, **keep((low, high), cast=float)},
        )
        return param.default if value is None else value
    if (
        low is not None
        and high is not None
        and param.step
        and not (param.low_open or param.high_open)
    ):
        return container.slider(
            label,
            float(low),
            float(high),
            step=param.step,
            help=_help(param),
            **keep((low, high), slider=True, cast=float),
        )
    return container.number_input(
        label,
        low,
        high,
        step=param.step or 0.01,
        format="%g",
        help=_help(param),
        **keep((low, high), cast=float),
    )


def choice_text(param: Param, choice: str, width: int = 60) -> str:
    """A choice as a list shows it: its value and the first clause of its meaning, in
    plain words, cut at a word within ``width`` characters ("seuclidean: standardised
    Euclidean (the authors' code)"); the help lists each in full."""
    text = f"{choice}: {param.choices[choice].split(': ', 1)[0]}"
    if len(text) <= width:
        return text
    return text[: width - 1].rsplit(" ", 1)[0].rstrip(" ,;:(") + "\u2026"


def _int_or_text(text: str):
    try:
        return int(text)
    except ValueError:
        return text  # the spec's check names it


def current_values(prefix: str, method: str) -> dict:
    """Every parameter of ``method`` as its widget on page ``prefix`` holds it now (set by
    :func:`dashboard.session.restore_widgets` before any widget is drawn), else its default.
    Lets a page read settings it draws further down."""
    return {
        name: st.session_state.get(widget_key(prefix, method, name), default_value(method, name))
        for name in get_method(method).spec.parameters
    }


def method_widgets(
    prefix: str,
    store: str,
    method: str,
    n_samples: int,
    columns: int = 4,
    skip: Collection[str] = (),
    adjusted: Adjusted | None = None,
) -> dict:
    """Draw ``method``'s parameter widgets in rows of ``columns``; their values.

    Parameters
    ----------
    prefix : str
        The page's widget prefix ("stream"), so pages keep their own settings.
    store : str
        The page's store of remembered widget values (:func:`dashboard.session.persisted`).
    method : str
    n_samples : int
        Bounds that depend on the data (K below the number of samples).
    columns : int
    skip : collection of str
        Parameters not to draw nor return (the one a sweep runs over).
    adjusted : callable, optional
        Method -> the defaults that suit the data (:func:`default_value`), said under a
        parameter that holds one; the current task's when None.

    Returns
    -------
    dict
        The values of the parameters that apply (a parameter whose ``when`` is not met
        is not drawn and not returned).
    """
    return spec_widgets(
        get_method(method).spec,
        prefix,
        n_samples,
        store=store,
        columns=columns,
        skip=skip,
        adjusted=(adjusted or session.task_defaults)(method),
    )


def spec_widgets(
    spec: MethodSpec,
    prefix: str,
    n_samples: int,
    *,
    store: str | None = None,
    columns: int = 4,
    skip: Collection[str] = (),
    adjusted: dict | None = None,
) -> dict:
    """Draw the widgets of a specification's parameters (a method's, or the
    preprocessing's :data:`fsengine.data.preprocess.PREPROCESSING`) in rows of ``columns``.

    Parameters
    ----------
    spec : MethodSpec
    prefix : str
        The page's widget prefix; the keys are :func:`widget_key` (prefix, spec name,
        parameter).
    n_samples : int
        Bounds that depend on the data.
    store : str, optional
        The page's store of remembered widget values (:func:`dashboard.session.persisted`);
        None: the widgets keep their values under their keys only.
    columns : int
    skip : collection of str
        Parameters not to draw nor return.
    adjusted : dict, optional
        Parameter -> (value, why): a caption under the widget while it holds that value.

    Returns
    -------
    dict
        The values of the parameters that apply (a real parameter whose default is
        infinite, drawn as a box left empty for none, gives that default when empty).
    """
    adjusted = adjusted or {}
    # A parameter's "when" reads the values drawn before it (its choice comes first).
    values: dict = {}
    cols = st.columns(columns) if spec.parameters else []
    slot = 0
    for param in spec.parameters.values():
        if param.name in skip or not param.applies(values):
            continue
        container = cols[slot % columns]
        key = widget_key(prefix, spec.name, param.name)
        values[param.name] = _draw(param, key, store, n_samples, container)
        if param.name in adjusted and values[param.name] == adjusted[param.name][0]:
            container.caption(adjusted[param.name][1])
        slot += 1
    return values


def widget_value(param: Param, value):
    """``value`` as :func:`spec_widgets`' widget for ``param`` holds it: None (an empty
    box) for an infinite default."""
    if param.kind == "real" and not math.isfinite(param.default) and value == param.default:
        return None
    return value


def protocol_method_settings(
    prefix: str,
    store: str,
    methods,
    top: int | None,
    n_train: int,
    training: str,
    adjusted: Adjusted | None = None,
) -> dict:
    """The expander of the chosen methods' settings on a page that runs the evaluation
    protocol (Compare, Benchmark): one tab per method with parameters, plus K-OFSD when it
    only sets the rankers' count (``top`` None and rankers chosen).

    Parameters
    ----------
    prefix, store : str
        As for :func:`method_widgets`.
    methods : sequence of str
    top : int or None
        The rankers' fixed number of features, or None (K-OFSD's count on each split).
    n_train : int
        Samples of the (smallest) training half: K's bound.
    training : str
        How the caption names the training halves ("a training half of 42 samples").
    adjusted : callable, optional
        As for :func:`method_widgets`.

    Returns
    -------
    dict
        method -> its parameter values.
    """
    configurable = [m for m in methods if get_method(m).spec.parameters]
    if top is None and "kofsd" not in methods and any(m in RANKER_METHODS for m in methods):
        configurable.append("kofsd")  # it sets the rankers' count: it runs, even unlisted
    params = {}
    with st.expander(
        "Method settings (as last set on the Stream page, unless changed here)", expanded=False
    ):
        st.caption(f"Selection runs on {training}, so K is at most {n_train - 1} here.")
        if configurable:
            for tab, method in zip(st.tabs(configurable), configurable):
                with tab:
                    params[method] = method_widgets(
                        prefix, store, method, n_train, adjusted=adjusted
                    )
        else:
            st.write("The chosen methods have no parameters.")
    return params


def rankers_count_widgets(prefix: str, store: str, n_features: int) -> int | None:
    """The toggle "Fixed number of features for the rankers" and, when on, its number
    (widget keys ``{prefix}_fixed_top`` and ``{prefix}_top`` in ``store``).

    Returns
    -------
    int or None
        The rankers' fixed number of features, or None (K-OFSD's count on each split).
    """
    st.toggle(
        "Fixed number of features for the rankers",
        **session.persisted(store, f"{prefix}_fixed_top", cast=bool),
        help="Off: on every split, each ranker keeps as many features as K-OFSD "
        "selected on that split (the paper's rule).",
    )
    if st.session_state[f"{prefix}_fixed_top"]:
        st.number_input(
            "Top-k (features per ranker)",
            1,
            n_features,
            step=1,
            **session.persisted(store, f"{prefix}_top", (1, n_features), cast=int),
        )
    return (
        int(st.session_state[f"{prefix}_fixed_top"] and st.session_state[f"{prefix}_top"]) or None
    )


def splits_seed_widgets(
    prefix: str,
    store: str,
    *,
    label: str = "Splits",
    max_splits: int = 50,
    splits_help: str = "Number of random stratified 50/50 splits (the paper uses 20).",
    seed_help: str = "Seed of the splits: the same seed gives the same splits.",
    containers=(st, st),
) -> tuple[int, int]:
    """The slider of the number of splits and the seed of the protocol (widget keys
    ``{prefix}_splits`` and ``{prefix}_seed`` in ``store``), drawn in ``containers``.

    Returns
    -------
    (int, int)
        The number of splits and the seed.
    """
    containers[0].slider(
        label,
        2,
        max_splits,
        **session.persisted(store, f"{prefix}_splits", (2, max_splits), slider=True),
        help=splits_help,
    )
    containers[1].number_input(
        "Seed",
        0,
        2**31 - 1,
        step=1,
        **session.persisted(store, f"{prefix}_seed", (0, 2**31 - 1), cast=int),
        help=seed_help,
    )
    return int(st.session_state[f"{prefix}_splits"]), int(st.session_state[f"{prefix}_seed"])
