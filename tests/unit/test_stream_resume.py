"""A stopped stream resumes from its snapshot (issue 40, point 6): a selector's state and
the events so far, written as JSON data and read back into a new stream, give the events
and the selection an uninterrupted stream gives, for every online selector."""

import json

import pytest

from fsengine.live import LiveStream
from fsengine.methods import ONLINE_METHODS
from fsengine.online import decode_state, encode_state
from fsengine.online._snapshot import FORMAT
from fsengine.task import Task


@pytest.fixture(scope="module")
def task(srbct):
    """SRBCT's first 400 genes, minority class 2 (BL) versus the rest."""
    whole = Task.from_dataset(srbct, 2).dense()
    return Task.from_arrays(whole.X[:, :400], whole.y, whole.names[:400])


def _round_trip(data):
    return json.loads(json.dumps(data))  # as the workspace stores it


#: The selectors again under the order-invariant tie rule, whose set keeps its points.
AVERAGED = [
    (m, {"ties": "average"}) for m in ("kofsd", "sfsf", "osfs-et", "ofs-a3m", "ofs-density")
]


@pytest.mark.parametrize(
    "method,params", [(m, {}) for m in ONLINE_METHODS] + AVERAGED, ids=lambda v: str(v or "")
)
def test_a_resumed_stream_gives_the_events_of_an_uninterrupted_one(task, method, params):
    whole = LiveStream(task, None, method, order="random", seed=3, params=params)
    whole.advance()
    stopped = LiveStream(task, None, method, order="random", seed=3, params=params)
    stopped.advance(max_features=37)
    stopped.advance(max_features=150)  # stopped after 187 features, in two chunks
    saved = _round_trip(stopped.snapshot())

    resumed = LiveStream(task, None, method, order="random", seed=3, params=params)
    resumed.resume(saved)
    assert resumed.position == 187
    assert repr(resumed.events) == repr(whole.events[:187])
    resumed.advance()
    # repr: NaN scores compare equal as text
    assert repr(resumed.events) == repr(whole.events)
    assert repr(resumed.selection()) == repr(whole.selection())
    assert resumed.holdout_selected == whole.holdout_selected
    assert resumed.gmeans[:1] == stopped.gmeans[:1]


def test_a_snapshot_of_another_stream_is_refused(task):
    stream = LiveStream(task, None, "kofsd")
    stream.advance(max_features=10)
    saved = _round_trip(stream.snapshot())
    with pytest.raises(ValueError, match="another"):
        LiveStream(task, None, "saola").resume(saved)
    started = LiveStream(task, None, "kofsd")
    started.advance(max_features=1)
    with pytest.raises(ValueError, match="started"):
        started.resume(saved)


def test_shared_and_cyclic_references_come_back_shared():
    import numpy as np

    from fsengine.online._stream import Selection

    shared = [1, 2]
    base = np.arange(12.0)
    value = {"a": shared, "b": shared, "view": base[2:10], "base": base, "t": (1.5, "x")}
    value["self"] = value
    back = decode_state(_round_trip(encode_state(value)))
    assert back["a"] is back["b"] and back["self"] is back
    back["base"][3] = -1.0
    assert back["view"][1] == -1.0  # the view still views its base
    assert back["t"] == (1.5, "x")
    chosen = Selection("kofsd", ("g1",), (1,), (0.5,))
    assert decode_state(_round_trip(encode_state(chosen))) == chosen


def test_objects_outside_fsengine_are_refused_where_they_are():
    import threading

    with pytest.raises(TypeError, match=r"state\['lock'\]"):
        encode_state({"lock": threading.Lock()})
    with pytest.raises(ValueError, match="is not fsengine's"):
        decode_state({"format": FORMAT, "value": {"#": 0, "o": "os:system", "f": []}})


def test_a_state_of_an_earlier_format_is_refused(task):
    """A snapshot written by an earlier version (format 1: the average rule's cards as a
    bare array) is refused with the message resume turns into a replay, not read into
    objects that fail later."""
    stream = LiveStream(task, None, "kofsd", params={"ties": "average"})
    stream.advance(max_features=5)
    state = _round_trip(encode_state(stream.selector))
    assert decode_state(state) is not None
    with pytest.raises(ValueError, match="not a selector state of this version"):
        decode_state({**state, "format": FORMAT - 1})
