"""Reruns that never lose the user's click: the app's own (:func:`rerun`) and a
button's press followed at once by another page's link (:func:`lasting_button`).

Streamlit merges the rerun requests that arrive before the running script reaches its
next element into one, and the merged run takes the page of the *last* request. A page
that reruns itself (``st.rerun()``: a stream that has ended, a deleted run) just after the
user clicked another page's link, before the script saw the click, therefore runs its
own page again and the click is lost: the browser stays on the old page. :func:`rerun`
asks for the rerun only when no run of the whole app is pending already; a pending one
(another page, a widget) redraws everything anyway, with the state the page has just
changed. Imports nothing of the dashboard."""

from __future__ import annotations

from typing import Any, NoReturn

import streamlit as st
from streamlit.runtime.scriptrunner import RerunData, get_script_run_ctx
from streamlit.runtime.scriptrunner_utils.script_requests import (
    ScriptRequests,
    ScriptRequestType,
)


def _reruns_the_whole_app(data: RerunData) -> bool:
    return (
        not data.fragment_id and not data.fragment_id_queue and not (data.is_fragment_scoped_rerun)
    )


def request_unless_pending(requests: ScriptRequests, data: RerunData) -> bool:
    """Ask ``requests`` for the rerun ``data`` unless a rerun of the whole app is pending.

    The check and the request hold the requests' lock together, so a click that arrives
    in between cannot be merged under ``data``'s page. (Streamlit's ``ScriptRequests``
    has no public form of this; ``tests/app/test_reruns.py`` checks it against the
    pinned version.)

    Parameters
    ----------
    requests : ScriptRequests
        The running script's request queue.
    data : RerunData
        The rerun wanted: the current page, the whole app.

    Returns
    -------
    bool
        Whether ``data`` was requested (False: a run of the whole app was pending, and it
        stays as the user asked for it; or the script is stopping).
    """
    with requests._lock:
        if requests._state is ScriptRequestType.RERUN and _reruns_the_whole_app(
            requests._rerun_data
        ):
            return False
        return requests._request_rerun_locked(data)


def rerun() -> NoReturn:
    """``st.rerun()`` of the current page, unless the user's own request for a run of the
    whole app (another page's link, a widget) is pending: then that run replaces this
    one. Either way the current run ends here."""
    ctx = get_script_run_ctx()
    if ctx is None or ctx.script_requests is None:
        st.rerun()
    request_unless_pending(
        ctx.script_requests,
        RerunData(
            query_string=ctx.query_string,
            page_script_hash=ctx.page_script_hash,
            cached_message_hashes=ctx.cached_message_hashes,
            context_info=ctx.context_info,
        ),
    )
    st.empty()  # an element: the runner ends this run before it is sent
    st.rerun()  # (in a widget's callback no element ends the run)


def _remember(pressed_key: str, scope: Any) -> None:
    st.session_state[pressed_key] = scope


def lasting_button(label: str, *, key: str, scope: Any, container=None, **options) -> bool:
    """``st.button``, whose press also counts when it did not reach its page's script.

    A press followed at once by another page's link (before the server ran the page for
    the press, or while it ran it) is run by Streamlit as the other page: the press
    reaches no button there and is lost. Its callback still runs, and keeps it: the page
    drawn next with the same ``scope`` (the settings the press was for) takes it as
    pressed. A press kept under another scope (the data set or the settings changed
    since), or for a button disabled now, is dropped.

    Parameters
    ----------
    label, key : str
        The button's label and widget key.
    scope : hashable
        What the press is for (a task's key, a run's key), compared with ``==``.
    container : optional
        Where to draw it (a column); ``st`` by default.
    **options
        Further options of ``st.button`` (type, width, disabled, help, icon).

    Returns
    -------
    bool
        Whether the button counts as pressed in this run.
    """
    pressed_key = key + "_pressed"
    clicked = (container or st).button(
        label, key=key, on_click=_remember, args=(pressed_key, scope), **options
    )
    kept = st.session_state.pop(pressed_key, None)
    return not options.get("disabled") and (clicked or kept == scope)
