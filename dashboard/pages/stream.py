"""Stream page: watch genes arrive one at a time into an online selector."""

import math
import time
from contextlib import nullcontext
from functools import partial

import pandas as pd
import streamlit as st

from dashboard import reruns, running, session, streams
from dashboard.glossary import TERMS, action_help
from dashboard.messages import describe
from dashboard.pages import BY_NAME
from dashboard.widgets import method_widgets, widget_defaults
from fsengine import FSEngineError
from fsengine.export.writers import events_to_csv, selection_rows, selection_to_csv
from fsengine.methods.estimates import stream_seconds
from fsengine.methods.live import duration_text
from fsengine.methods.registry import METHOD_LABELS, ONLINE_METHODS, get_method
from fsengine.pl.figures import stream_figure

#: Features per animation tick (a tick every 0.25 s; "about 8 s" = the whole stream ends
#: about 8 seconds after Start whatever its length, paced by the clock; "max" = as many as
#: fit in the tick's computing time).
SPEEDS = {"1": 1, "10": 10, "100": 100, "about 8 s": "auto", "max": None}
#: The buttons that start a stream: Start, and the answer to its question of a long one.
STARTS = ("stream_start", "stream_confirm_start")
#: The feature orders a stream can take.
ORDERS = ["natural", "random"]
TICK_SECONDS = 0.25
#: The whole stream's wall-clock time at the speed "about 8 s".
PACED_SECONDS = 8.0
#: Computing time of one tick (the rest of the tick draws the page).
TICK_BUDGET = 0.2
#: The most a tick computes at "about 8 s" when it is behind that time (a busy machine).
CATCH_UP_BUDGET = 0.6
#: Seconds a tick waits for the next chunk to end: the chunks compute off the script
#: thread, one after the other while the page ticks (and draws); a chunk still computing
#: then (a selector whose one feature takes longer than a tick) goes on, and the page stays
#: live.
CHUNK_WAIT = 1.0
#: While a stream computes as fast as it can (at 'max', or paced when its selector cannot
#: keep the time), a tick draws the page this long after the last at the soonest: the
#: drawing (the server's and the browser's) would take the computation's cores.
BUSY_DRAW_SECONDS = 1.0
#: The most of the main stream's computing time its hold-out copy (the training half) and
#: its G-mean take while the main stream runs
#: (:attr:`fsengine.methods.live.LiveStream.holdout_share`):
#: the copy may lag behind (the page says so) and catches up once the main stream is done.
HOLDOUT_SHARE = 0.25

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
    """ "K-OFSD (Zhou et al., 2017)": the method and its short citation."""
    spec = get_method(method).spec
    return f"{spec.label} ({spec.short_citation})"


def _speed_note(option: str, kept: streams.Kept | None, method: str) -> str:
    """Under the speed "about 8 s": the honest time when the current stream of this
    selector has shown that its computation on this data set needs longer ("" else). A
    note, not the option's label: the browser sends a choice back by its label, and a
    label changed since would make Streamlit take the first option (1 feature a tick)."""
    if SPEEDS[option] != "auto" or kept is None or kept.live.method != method:
        return ""
    seconds = kept.live.estimated_seconds(PACED_SECONDS)
    if seconds <= 1.2 * PACED_SECONDS:
        return ""
    return f"This stream needs about {duration_text(seconds)} here, not {PACED_SECONDS:g} s."


def _other_settings(kept: streams.Kept | None, settings) -> bool:
    """Whether the task's stream runs with other settings than the boxes say
    (``settings``, :func:`dashboard.streams.settings`)."""
    return kept is not None and streams.settings_of(kept.live) != settings


def _start(method: str, order: str, seed: int, params: dict) -> streams.Kept | None:
    """A new stream with the page's settings (None, with the reason kept, if refused)."""
    try:
        started = streams.start(method, order, seed if order == "random" else None, params)
    except FSEngineError as exc:
        st.session_state["stream_error"] = describe(exc)
        return None
    st.session_state.pop("stream_error", None)
    return started


def _wait(done, seconds: float) -> bool:
    """Wait up to ``seconds`` until ``done()``, answering a click meanwhile (Pause, another
    page) within 0.05 s: Streamlit ends a run that a click replaces at its next element.

    Parameters
    ----------
    done : callable
        No argument; whether to stop waiting.
    seconds : float
        The longest wait.

    Returns
    -------
    bool
        ``done()`` at the end.
    """
    slot = st.empty()
    end = time.monotonic() + seconds
    while not done() and (left := end - time.monotonic()) > 0:
        time.sleep(min(0.05, left))
        slot.empty()  # where a click's new run takes over
    return done()


def _show_the_end(kept: streams.Kept) -> None:
    """The stream and its hold-out copy are finished: record it, stop the timer and draw
    the final result (a new run of the whole page)."""
    streams.set_running(False)
    streams.record(kept)
    reruns.rerun()


def _computing_text(label: str, feature_seconds: float | None) -> str:
    """The caption while a chunk computes longer than a tick: ``label``'s time a feature
    (``feature_seconds``: measured or expected; None or 0: not known)."""
    cost = feature_seconds
    return (
        f":material/hourglass_top: Computing the next features: {label} takes "
        + (
            f"about {cost:.1f} s a feature here"
            if cost and cost >= 1
            else f"about {1000 * cost:.0f} ms a feature here"
            if cost
            else "long here"
        )
        + "; the page shows the stream as it was until they are done. Pause stops it "
        "after them."
    )


def _advance_tick(kept: streams.Kept, settings) -> str:
    """Keep the stream advancing for one tick (chunks off the script thread), or say why
    it does not; returns the pacing's note when the stream runs late ("" else)."""
    live = kept.live
    late = ""
    if streams.is_running() and live.finished:  # it ended off the script thread between ticks
        _show_the_end(kept)
    if streams.is_running() and not live.finished:  # (the hold-out copy may go on)
        per_tick = SPEEDS.get(st.session_state.get("stream_speed"), "auto")
        ready = live.position > 0 or live.kernels_ready()  # compiled at the first use
        compiling = (
            nullcontext()
            if ready
            else st.spinner(
                f"Compiling {get_method(live.method).spec.label}'s code for this machine: it "
                "is not built here yet (`python -m fsengine kernels --compile` builds every "
                "selector's ahead of time). Once only: seconds to a minute."
            )
        )

        def chunk(live) -> None:
            live.holdout_share = HOLDOUT_SHARE
            if per_tick == "auto":  # ends PACED_SECONDS after Start, whatever a tick costs
                live.advance_paced(PACED_SECONDS, TICK_SECONDS, TICK_BUDGET, CATCH_UP_BUDGET)
            else:
                live.stop_pacing()
                live.advance(max_features=per_tick, max_seconds=TICK_BUDGET)

        with compiling:  # a chunk longer than a tick goes on off the script thread
            streams.advance_in_background(
                kept, chunk, 0.0, every=None if per_tick is None else TICK_SECONDS
            )
            computing = not _wait(kept.progress.is_set, CHUNK_WAIT)  # the next chunk's end
            if per_tick is None or (per_tick == "auto" and live.paced_note()):
                # the page is drawn less often: the cores go to the computation
                drawn_at = st.session_state.get("stream_drawn_at", -math.inf)
                _wait(
                    lambda: not streams.busy(kept),
                    BUSY_DRAW_SECONDS - (time.monotonic() - drawn_at),
                )
            st.session_state["stream_drawn_at"] = time.monotonic()
        if computing:
            st.caption(
                _computing_text(
                    get_method(live.method).spec.label,
                    live.feature_seconds or live.expected_feature_seconds,
                )
            )
        else:
            late = live.paced_note() if per_tick == "auto" else ""
            if not ready:
                live.stop_pacing()  # the compiling took its time: pace the rest from here
            if live.finished:  # the hold-out copy too
                _show_the_end(kept)
            streams.record_if_due(kept)  # stopped at this position until it goes further
    elif live.done and live.holdout_lags:
        st.caption("Paused before the hold-out copy reached the end: Start finishes it.")
    elif not live.done and live.position:
        st.caption(
            f"Stopped at {live.position:,} of {live.total:,} features"
            + (
                ": a run of other settings than the boxes say (see above)."
                if _other_settings(kept, settings)
                else ": Start continues it, Reset clears the page for a new stream (this one "
                "stays in History, to reopen)."
            )
        )
    return late


def _metrics(live, done: bool, last, set_score: str) -> None:
    """The four figures above the chart: features streamed, selected, the set's score and
    the hold-out G-mean."""
    metrics = st.columns(4)
    metrics[0].metric("Features streamed", f"{live.position} / {live.total}")
    fallback = live.selection().fallback_text(METHOD_LABELS[live.method]) if done else None
    metrics[1].metric(
        "Selected",
        len(last.selected) if last else 0,
        help="None selected: the list below is the selector's fallback, not a selection."
        if fallback
        else None,
    )
    metrics[2].metric(
        set_score[0].upper() + set_score[1:], f"{last.selected_score:.4f}" if last else "-"
    )
    metrics[3].metric(
        "Hold-out G-mean (1-NN)",
        f"{live.current_gmean():.3f}" if last and live.gmeans else "-",
        help="Honest: a copy of the selector streams the same genes over a stratified "
        "training half only; 1-NN trained there is scored on the held-out half "
        "(refreshed when the copy has streamed further, computed once per selected set; "
        f"the copy is at feature {live.holdout_position:,} of {live.total:,}, with "
        f"{len(live.holdout_selected)} genes selected on the training half). The genes "
        "listed below are selected on all samples.",
    )


def _latest_events(live) -> None:
    """The newest twelve events, newest first, and what their actions and scores mean."""
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


def _selected_genes(live, done: bool, last) -> None:
    """The selection (once done: with its fallback or order notes and downloads), else the
    selected set so far."""
    st.subheader(f"Selected genes: {METHOD_LABELS[live.method]}")
    if done:
        selection = live.selection()
        if selection.fallback:
            st.warning(
                selection.fallback_text(METHOD_LABELS[selection.method]),
                icon=":material/warning:",
            )
        elif selection.note not in ("", "stream order"):
            st.caption(selection.note)
        order_note = live.order_note()
        if order_note:
            st.warning(order_note[0].upper() + order_note[1:] + ".", icon=":material/shuffle:")
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
        chosen = set(last.selected)
        scores = {e.feature: e.score for e in live.events if e.feature in chosen}
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


def stream_view(settings) -> None:
    """One animation tick: keep the stream advancing (time-boxed chunks off the script
    thread, one after the other while the page ticks), then draw its state; ``settings``
    are the boxes' (:func:`dashboard.streams.settings`). A fragment, ticking while the
    stream runs (:func:`render`)."""
    kept = streams.current()
    if kept is None:
        st.info("Press Start to stream the features, or Step to take one at a time.")
        return
    late = _advance_tick(kept, settings)
    live = kept.live
    # the main stream's events are all there once it is done (its hold-out copy may go on)
    done = live.done
    last = live.events[-1] if live.events else None
    set_score = get_method(live.method).spec.set_score
    _metrics(live, done, last, set_score)
    for note in (late, live.selection_note(), live.holdout_lag_note(), live.holdout_note()):
        if note:
            st.caption(note)
    st.plotly_chart(stream_figure(live.curves(), set_score, live.total), width="stretch")
    left, right = st.columns([3, 2])
    with left:
        _latest_events(live)
    with right:
        _selected_genes(live, done, last)


def _confirmed_start(start: bool, fresh: bool, estimate, settings, method: str) -> bool:
    """Whether a stream starts now: a Start of a stream estimated to compute for long
    (``estimate.long``) asks first (``settings``, the task and the stream's settings, kept
    in ``stream_confirm``) and starts once
    "Start anyway" is pressed (the caller then drops ``stream_confirm`` with the stream
    started); the question goes once the settings change or there is no estimate (a new
    estimate of the same settings is asked with its own time).
    """
    if start and fresh and estimate is not None and estimate.long:
        st.session_state["stream_confirm"] = settings  # a long stream starts once confirmed
        start = False
    if st.session_state.get("stream_confirm") is not None:
        if st.session_state["stream_confirm"] != settings or estimate is None:
            reruns.drop_question("stream_confirm", "stream_confirm_start")
        else:
            asking = st.empty()  # emptied once answered
            with asking.container():
                st.warning(
                    f"{get_method(method).spec.label} on this data set would compute for "
                    f"{estimate.text()}: a long time. Start it anyway? Pause stops it at any "
                    "moment.",
                    icon=":material/hourglass_top:",
                )
                yes, no, _ = st.columns([1, 1, 3])
                if reruns.lasting_button(  # the question goes when the stream starts
                    "Start anyway",
                    key="stream_confirm_start",
                    scope=settings,
                    container=yes,
                    type="primary",
                ):
                    start = True
                elif no.button("Don't start", key="stream_confirm_cancel"):
                    reruns.drop_question("stream_confirm", "stream_confirm_start")
                    reruns.rerun()
            if start:
                asking.empty()
    return start


def _notice(kept, settings, method: str, order: str, seed: int, params: dict) -> None:
    """What the page shows above the view: the streams kept for other data sets when
    there is none here, or that the run shown is not the one the boxes now describe."""
    if kept is None:
        for other in streams.others():
            st.caption(
                f"Kept from another data set or minority class: {other.describe()}. It is "
                "not shown here; load its data set and class to see it."
            )
    elif _other_settings(kept, settings):
        live = kept.live
        where = (
            "finished" if live.done else f"stopped at {live.position:,} of {live.total:,} features"
        )
        st.info(
            f"Shown below: the **{streams.run_text(live)}** run, {where}. The boxes above "
            f"say **{streams.settings_text(method, order, seed, params)}**: Start (or Step) "
            "streams that from the first feature, and this run stays in History to "
            "reopen; Reset clears the page.",
            icon=":material/swap_horiz:",
        )


def _fresh(kept, settings) -> bool:
    """Whether Start begins a new stream (none kept, it finished, or other settings) rather
    than continuing the kept one (a stream whose hold-out copy has not reached the end is
    continued)."""
    return kept is None or kept.live.finished or _other_settings(kept, settings)


def _press_start(pressed: bool, kept, settings, estimate, scope, method: str, start_new):
    """Start (or continue) the stream when Start is ``pressed``, asking first when
    ``estimate`` says a new one computes long (the question drawn while it waits for an
    answer); ``start_new()`` starts a stream of the boxes' settings (:func:`_start`).
    Returns the stream kept for the task."""
    fresh = _fresh(kept, settings)
    start = _confirmed_start(pressed, fresh, estimate, scope, method)
    with reruns.uninterrupted():  # the presses done, the stream started and recorded
        if pressed or start:
            reruns.done("stream_start")
            reruns.done("stream_confirm_start")
        if start:
            st.session_state.pop("stream_confirm", None)
            if fresh:
                kept = start_new()  # the boxes' settings, from the first feature
                if kept is not None and estimate is not None:  # a small first chunk
                    kept.live.expected_feature_seconds = estimate.high / max(kept.live.total, 1)
            if kept is not None:
                kept.live.stop_pacing()  # paced again from the first tick
            streams.set_running(kept is not None)
    return kept


def _press_pause(kept) -> None:
    """Pause the stream where it is, recorded there."""
    with reruns.uninterrupted():
        reruns.done("stream_pause")
        streams.set_running(False)
        if kept is not None:
            kept.live.stop_pacing()
            streams.record(kept)


def _press_step(kept, settings, start_new):
    """Take one feature (a new stream first, ``start_new()``, when there is none of these
    ``settings``); returns the stream kept for the task."""
    with reruns.uninterrupted():  # one press, one feature
        reruns.done("stream_step")
        streams.set_running(False)
        if kept is None or kept.live.done or _other_settings(kept, settings):
            kept = start_new()
        if kept is not None:
            with kept.lock:  # a tick of an earlier script run may still be advancing it
                kept.live.advance(max_features=1)
            streams.record(kept)
    return kept


def _press_reset() -> None:
    """Clear the page of the task's stream (it stays in History)."""
    with reruns.uninterrupted():
        reruns.done("stream_reset")
        streams.reset()


def render() -> None:
    """Draw the Stream page: an online selector's settings, Start / Pause / Step, and
    the stream's live view."""
    loaded = session.current()
    ds = loaded.dataset
    minority = session.state.minority
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
        **keep("stream_method", start="index", options=list(ONLINE_METHODS)),
    )
    params = method_widgets("stream", WIDGETS, method, ds.n_samples)
    try:
        for warning in get_method(method).warnings(session.current_task().y, params):
            st.warning(warning)
    except FSEngineError:
        pass  # shown when the stream starts
    order_cols = st.columns([1, 1, 2])
    order = order_cols[0].radio(
        "Feature order",
        ORDERS,
        horizontal=True,
        **keep("stream_order", start="index", options=ORDERS),
    )
    seed = int(
        order_cols[1].number_input(
            "Seed",
            0,
            2**31 - 1,
            **keep("stream_seed", (0, 2**31 - 1), cast=int),
            disabled=order == "natural",
        )
    )
    paused = streams.pause_others()
    kept = streams.current()
    order_cols[2].select_slider(
        "Speed (features per tick, 4 ticks a second)",
        list(SPEEDS),
        help="'about 8 s' paces the stream by the clock: it ends about 8 seconds after Start "
        "whatever the number of features (after a pause, the rest takes its share of the 8 s). "
        "A selector whose computation on the loaded data set needs longer says so while it "
        "streams, with the time it needs, and a note under the speed then names that time. "
        f"'max' streams as fast as the selector computes, in steps of {TICK_BUDGET:g} s, the "
        "page drawn meanwhile.",
        **keep("stream_speed", options=list(SPEEDS)),
    )
    speed_note = _speed_note(st.session_state["stream_speed"], kept, method)
    if speed_note:
        order_cols[2].caption(speed_note)

    settings = streams.settings(method, order, seed, params)

    if _other_settings(kept, settings) and streams.is_running():
        # a setting changed while it streamed: it stops where it is, never runs on under
        # boxes that say otherwise
        with reruns.uninterrupted():
            streams.set_running(False)
            kept.live.stop_pacing()
            streams.record(kept)
    if paused is not None:
        st.info(
            f"Paused: {paused.describe()}. It is kept under its own data set: load that data "
            "set again (Data page) to see or continue it.",
            icon=":material/pause_circle:",
        )
    notice = st.container()  # filled after the buttons: what they did is what it says

    refused = running.refusal(protocol=False)
    if refused:
        st.caption(f":material/block: {refused}")

    def estimate_for(kept):  # a new stream's computation (None: none would start)
        if refused or not _fresh(kept, settings):
            return None
        return running.estimate_for(
            lambda n, p, density, counts: stream_seconds(
                method, n, p, density, params, counts=counts
            )
        )

    shown, estimate = kept, estimate_for(kept)
    start_new = partial(_start, method, order, seed, params)
    pressed_for = (session.task_key(), settings)  # a press is not lost to a link clicked at once
    columns = st.columns(4)
    pressed = {
        key: reruns.lasting_button(
            label, key=key, scope=pressed_for, container=column, width="stretch", **options
        )
        for column, (key, label, options) in zip(
            columns,
            (
                ("stream_start", "Start", {"type": "primary", "disabled": bool(refused)}),
                ("stream_pause", "Pause", {}),
                ("stream_step", "Step", {"disabled": bool(refused)}),
                ("stream_reset", "Reset", {}),
            ),
        )
    }
    # presses taken in one run are done in the order they were made (Reset, then Start
    # or Start anyway: a stream that runs); Start's question is drawn whether it was
    # pressed or not, and answered where its answer was pressed
    answered = reruns.is_kept("stream_confirm_start", pressed_for)
    presses = reruns.in_press_order(
        [key for key, on in pressed.items() if on] + (["stream_confirm_start"] if answered else [])
    )
    # Start and its answer: one start, at the later (Start alone asks again)
    last_start = next((key for key in reversed(presses) if key in STARTS), None)
    for key in presses if last_start else ["stream_start", *presses]:
        if key in STARTS:
            if key != (last_start or key):
                continue
            kept = _press_start(
                pressed["stream_start"],
                kept,
                settings,
                estimate if kept is shown else estimate_for(kept),  # (a Reset before it)
                pressed_for,
                method,
                start_new,
            )
        elif key == "stream_pause":
            _press_pause(kept)
        elif key == "stream_step":
            kept = _press_step(kept, settings, start_new)
        else:
            _press_reset()
            kept = None
    if "stream_error" in st.session_state:
        st.error(st.session_state["stream_error"])
    with notice:
        _notice(kept, settings, method, order, seed, params)
    if estimate is not None:
        st.caption(
            f":material/schedule: The whole stream's computation: {estimate.text()} on this "
            "server (from the selector's measured cost on data of this size)."
        )

    st.fragment(stream_view, run_every=TICK_SECONDS if streams.is_running() else None)(settings)


# Streamlit runs a page as __main__; imported (a test), the page only defines.
if __name__ == "__main__":
    render()
