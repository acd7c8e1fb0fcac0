"""Stream page: watch genes arrive one at a time into an online selector."""

import re
import time
from functools import partial

import pandas as pd
import streamlit as st

from dashboard import persistence, session
from dashboard.glossary import TERMS, action_help
from dashboard.messages import describe
from dashboard.pages import BY_NAME
from dashboard.widgets import method_widgets, widget_defaults
from fsengine import FSEngineError
from fsengine.export import events_to_csv, selection_rows, selection_to_csv
from fsengine.figures import stream_figure
from fsengine.live import LiveStream
from fsengine.methods import ONLINE_METHODS, get_method

#: Features per animation tick (a tick every 0.25 s; "about 8 s" = the whole stream in
#: about 8 seconds whatever its length; "max" = as many as fit in 0.2 s).
SPEEDS = {"1": 1, "10": 10, "100": 100, "about 8 s": "auto", "max": None}
TICK_SECONDS = 0.25
#: A running stream's position is saved this often (a closed tab loses at most this).
RECORD_SECONDS = 2.0

WIDGETS = BY_NAME["stream"].widgets
#: Every widget of the page and its first value (kept across page switches); each
#: method's parameters come from its specification.
DEFAULTS = {
    "stream_method": "kofsd",
    "stream_order": "natural",
    "stream_seed": 0,
    "stream_speed": "about 8 s",
    **widget_defaults("stream", ONLINE_METHODS),
}


def _label(method: str) -> str:
    """ "K-OFSD (Zhou et al., 2017)": the method and its paper's first author and year."""
    spec = get_method(method).spec
    authors = spec.citation.split(".")[0].split(",")
    year = re.search(r"(19|20)\d\d\)?$", spec.citation.strip())
    cite = f"{authors[0]}{' et al.' if len(authors) > 1 else ''}"
    return f"{spec.label} ({cite}{', ' + year.group(0).strip(')') if year else ''})"


def _auto_speed(n_features: int) -> int:
    """Features per tick for a stream of about 8 seconds (at least 1)."""
    return max(1, -(-n_features // int(8 / TICK_SECONDS)))


loaded = session.current()
ds = loaded.dataset
minority = st.session_state["minority"]
session.restore_widgets(WIDGETS, DEFAULTS)

keep = partial(session.persisted, WIDGETS)  # widget keywords: key + on_change

st.title("Stream")
st.caption(
    f"{loaded.name}: {ds.n_features} features arrive one at a time; minority class "
    f"{minority} ({ds.class_counts()[minority]} of {ds.n_samples} samples) versus the rest."
)

method = st.selectbox(
    "Online selector",
    list(ONLINE_METHODS),
    format_func=_label,
    help="Every online selector of fsengine (`python -m fsengine methods`).",
    **keep("stream_method"),
)
params = method_widgets("stream", WIDGETS, method, ds.n_samples)
try:
    for warning in get_method(method).warnings(session.current_task().y, params):
        st.warning(warning)
except FSEngineError:
    pass  # shown when the stream starts
order_cols = st.columns([1, 1, 2])
order = order_cols[0].radio(
    "Feature order", ["natural", "random"], horizontal=True, **keep("stream_order")
)
seed = int(
    order_cols[1].number_input(
        "Seed", 0, 2**31 - 1, **keep("stream_seed"), disabled=order == "natural"
    )
)
speed = order_cols[2].select_slider(
    "Speed (features per tick, 4 ticks a second)",
    list(SPEEDS),
    help="'about 8 s' streams any data set in about 8 seconds; 'max' as fast as it runs.",
    **keep("stream_speed"),
)

settings = (
    loaded.name,
    ds.n_samples,
    ds.n_features,
    minority,
    method,
    order,
    seed if order == "random" else None,
    tuple(sorted(params.items())),
)
live = st.session_state.get("live")
if live is not None and st.session_state.get("live_settings") != settings:
    st.info("The settings changed: Reset to stream with them (the current run keeps its own).")


def _payload(live: LiveStream) -> dict:
    """What the workspace keeps of a stream: enough to replay it and its outcome."""
    last = live.events[-1] if live.events else None
    return {
        "method": live.method,
        "params": live.params,
        "order": live.order_name,
        "seed": live.seed,
        "minority": live.minority,
        "position": live.position,
        "total": live.total,
        "selected": list(last.selected) if last else [],
        "holdout_gmean": live.current_gmean() if live.gmeans else None,
        "dataset": {
            "label": loaded.label,
            "transpose": loaded.transpose,
            "drop_constant": loaded.drop_constant,
        },
    }


def _record(live: LiveStream) -> None:
    """Keep the stream in the workspace: finished at its end, else stopped where it is
    (a paused stream, a closed tab and a reset are never shown as finished)."""
    run_id = st.session_state.get("live_run")
    st.session_state["live_recorded_at"] = time.monotonic()
    if run_id is None or st.session_state.get("live_recorded") == (run_id, live.position):
        return
    if live.done:
        persistence.finish_run(run_id, _payload(live), live.seconds)
    else:
        persistence.stop_run(run_id, _payload(live), live.seconds)
    st.session_state["live_recorded"] = (run_id, live.position)


def _new_stream(replay: dict | None = None) -> LiveStream | None:
    try:
        stream = LiveStream(
            session.current_task(),
            None,
            replay["method"] if replay else method,
            order=replay["order"] if replay else order,
            seed=replay["seed"] if replay else (seed if order == "random" else None),
            params=replay["params"] if replay else params,
        )
    except FSEngineError as exc:
        st.session_state["stream_error"] = describe(exc)
        return None
    st.session_state.pop("stream_error", None)
    st.session_state["live"] = stream
    st.session_state["live_settings"] = settings
    spec = get_method(stream.method).spec
    st.session_state["live_run"] = persistence.start_run(
        "stream",
        f"{spec.label} ({spec.settings_text(stream.params) or 'no parameters'}), "
        f"{stream.order_name} order ({loaded.name}, minority {stream.minority})",
        _payload(stream),
    )
    _record(stream)  # stopped at 0 until it goes further
    return stream


reopened = st.session_state.pop("reopen_stream", None)
if reopened:
    live = _new_stream(reopened)
    if live is not None:
        with st.spinner("Replaying the stream ..."):
            live.advance(max_features=int(reopened.get("position") or live.total))
        _record(live)
        st.session_state["running"] = False


buttons = st.columns(4)
if buttons[0].button("Start", type="primary", key="stream_start", width="stretch"):
    if live is None or live.done:
        live = _new_stream()
    st.session_state["running"] = live is not None
if buttons[1].button("Pause", key="stream_pause", width="stretch"):
    st.session_state["running"] = False
    if live is not None:
        _record(live)
if buttons[2].button("Step", key="stream_step", width="stretch"):
    st.session_state["running"] = False
    if live is None or live.done:
        live = _new_stream()
    if live is not None:
        live.advance(max_features=1)
        _record(live)
if buttons[3].button("Reset", key="stream_reset", width="stretch"):
    st.session_state["running"] = False
    if live is not None:
        _record(live)
    st.session_state.pop("live", None)
    live = None
if "stream_error" in st.session_state:
    st.error(st.session_state["stream_error"])


@st.fragment(run_every=TICK_SECONDS if st.session_state.get("running") else None)
def stream_view() -> None:
    """One animation tick: advance a time-boxed chunk, then draw the state."""
    live = st.session_state.get("live")
    if live is None:
        st.info("Press Start to stream the features, or Step to take one at a time.")
        return
    if st.session_state.get("running") and not live.done:
        per_tick = SPEEDS.get(st.session_state.get("stream_speed"), "auto")
        if per_tick == "auto":
            per_tick = _auto_speed(live.total)
        live.advance(max_features=per_tick, max_seconds=0.2)
        if live.done:
            st.session_state["running"] = False
            _record(live)
            st.rerun()  # stop the timer, show the final result
        if time.monotonic() - st.session_state.get("live_recorded_at", 0.0) >= RECORD_SECONDS:
            _record(live)  # stopped at this position until it goes further
    last = live.events[-1] if live.events else None
    metrics = st.columns(4)
    metrics[0].metric("Features streamed", f"{live.position} / {live.total}")
    fallback = live.selection().fallback_text() if live.done else None
    metrics[1].metric(
        "Selected",
        len(last.selected) if last else 0,
        help="None selected: the list below is the selector's fallback, not a selection."
        if fallback
        else None,
    )
    set_score = get_method(live.method).spec.set_score
    metrics[2].metric(
        set_score[0].upper() + set_score[1:], f"{last.selected_score:.4f}" if last else "-"
    )
    metrics[3].metric(
        "Hold-out G-mean (1-NN)",
        f"{live.current_gmean():.3f}" if last and live.gmeans else "-",
        help="Honest: a copy of the selector streams the same genes over a stratified "
        "training half only; 1-NN trained there is scored on the held-out half "
        f"(refreshed every tick; {len(live.holdout_selected)} genes selected on the "
        "training half so far). The genes listed below are selected on all samples.",
    )
    if live.holdout_problem:
        st.caption(f"No hold-out G-mean: {live.holdout_problem}.")
    st.plotly_chart(stream_figure(live.curves(), set_score, live.total), width="stretch")
    left, right = st.columns([3, 2])
    with left:
        st.subheader("Latest events")
        recent = live.events[-12:][::-1]
        st.dataframe(
            pd.DataFrame(
                {
                    "step": [e.step + 1 for e in recent],
                    "feature": [e.feature for e in recent],
                    "score": [e.score for e in recent],
                    "action": [e.action for e in recent],
                    "selected": [len(e.selected) for e in recent],
                    "set score": [e.selected_score for e in recent],
                }
            ),
            hide_index=True,
            width="stretch",
            column_config={
                "action": st.column_config.TextColumn(
                    "action", help=action_help(live.method).replace("**", "")
                )
            },
        )
        with st.expander("What the actions and scores mean"):
            st.markdown(action_help(live.method))
            for term in (
                "dependency",
                "card function",
                "alpha",
                "reduct",
                "H(D|SF)",
                "mean correlation of S",
                "G-mean",
            ):
                st.markdown(f"**{term}**: {TERMS[term]}")
    with right:
        st.subheader("Selected genes")
        if live.done:
            selection = live.selection()
            if selection.fallback:
                st.warning(selection.fallback_text(), icon=":material/warning:")
            elif selection.note not in ("", "stream order"):
                st.caption(selection.note)
            st.dataframe(pd.DataFrame(selection_rows(selection)), hide_index=True, width="stretch")
            st.download_button(
                "Download selected features (CSV)",
                selection_to_csv(selection),
                file_name=f"{live.method}-selected.csv",
                mime="text/csv",
                on_click="ignore",
                key="download_selection",
            )
            st.download_button(
                "Download the stream's events (CSV)",
                events_to_csv(live.events, live.method),
                file_name=f"{live.method}-events.csv",
                mime="text/csv",
                on_click="ignore",
                key="download_events",
            )
        elif last:
            scores = {e.feature: e.score for e in live.events if e.feature in set(last.selected)}
            st.dataframe(
                pd.DataFrame(
                    {
                        "feature": last.selected,
                        "column": last.selected_columns,
                        "score": [scores[f] for f in last.selected],
                    }
                ),
                hide_index=True,
                width="stretch",
            )


stream_view()
