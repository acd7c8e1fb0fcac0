"""A stopped stream resumes from its snapshot (issue 40, point 6): a selector's state and
the events so far, written as JSON data and read back into a new stream, give the events
and the selection an uninterrupted stream gives, for every online selector."""

import json
import warnings

import numpy as np
import pytest

from fsengine.data.task import Task
from fsengine.methods.live import LiveStream
from fsengine.methods.online import _point_search, decode_state, encode_state
from fsengine.methods.online._roughset.kofsd import points as kofsd_points
from fsengine.methods.online._snapshot import FORMAT
from fsengine.methods.online._tie_average import AveragedSet, NeighbourRule, invariant_weights
from fsengine.methods.registry import ONLINE_METHODS
from synthetic import RARE_TYPE, single_cell_counts


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


@pytest.mark.parametrize("ties", ["index", "average"])
def test_a_stream_on_counts_resumes_with_its_neighbour_lists_left_out(ties, monkeypatch):
    """K-OFSD on single-cell counts, where a set test seeks its points' lists among S's
    lists made with a k-d tree (here from the first test, lists of 2): the snapshot can be
    taken (the tree and the lists are left out, made again when asked) and the resumed
    stream gives the uninterrupted one's events."""
    monkeypatch.setattr(_point_search, "BRUTE_MAX_POINTS", 1)
    monkeypatch.setattr(_point_search, "LIST_LENGTH", 2)
    monkeypatch.setattr(kofsd_points, "POINT_MIN_SAMPLES", 1)  # the index rule on points
    X, obs, _ = single_cell_counts(n_cells=700, n_genes=60, n_rare=14, seed=2)
    y = (obs["cell_type"] == RARE_TYPE).to_numpy().astype(int)
    counts = Task.from_arrays(X.toarray().astype(float), y, tuple(f"g{j}" for j in range(60)))
    params = {"ties": ties}
    whole = LiveStream(counts, None, "kofsd", params=params)
    whole.advance()
    stopped = LiveStream(counts, None, "kofsd", params=params)
    stopped.advance(max_features=35)
    assert len(stopped.selector.selected_columns) >= 2  # S has points and lists
    saved = _round_trip(stopped.snapshot())
    resumed = LiveStream(counts, None, "kofsd", params=params)
    resumed.resume(saved)
    resumed.advance()
    assert repr(resumed.events) == repr(whole.events)


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

    from fsengine.methods.online._stream import Selection

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


def test_a_set_with_its_lists_made_is_written_without_them(monkeypatch):
    """The average rule's set on many points keeps S's neighbour lists with a k-d tree
    (scipy's, which a state cannot hold) and the last tests' cards: a snapshot leaves both
    caches out, and the set read back gives the same tests and additions bit for bit."""
    monkeypatch.setattr(_point_search, "BRUTE_MAX_POINTS", 1)  # lists from the first test,
    monkeypatch.setattr(_point_search, "LIST_LENGTH", 2)  # made with the tree
    X, obs, _ = single_cell_counts(n_cells=700, n_genes=40, n_rare=14, seed=5)
    y = (obs["cell_type"] == RARE_TYPE).to_numpy().astype(int)
    X = np.log1p(X.toarray().astype(float))
    weights = invariant_weights(X)
    points = AveragedSet(y, NeighbourRule.kofsd(3, "reference", "imbalanced"))
    for j in range(3):
        points.add(X[:, j], weights[j])
    points.dependency_with(X[:, 3], weights[3])
    assert points._lists is not None and points._lists._tree is not None
    back = decode_state(_round_trip(encode_state(points)))
    assert back._lists is None and back._measured == []
    for j in range(4, 12):
        assert back.dependency_with(X[:, j], weights[j]) == points.dependency_with(
            X[:, j], weights[j]
        )
    back.add(X[:, 4], weights[4])
    points.add(X[:, 4], weights[4])
    assert np.array_equal(back._cards.expected, points._cards.expected)
    assert back.dependency_with(X[:, 5], weights[5]) == points.dependency_with(X[:, 5], weights[5])


#: Where each module was before the selector families moved (0.2), written out by hand:
#: the names a workspace's stored states hold.
_BEFORE_THE_MOVE = [
    ("fsengine.methods.online._roughset.kofsd.", "fsengine.online._kofsd."),
    (
        "fsengine.methods.online._roughset._dependency_kernels",
        "fsengine.online._zhou._zhou_kernels",
    ),
    ("fsengine.methods.online._roughset.", "fsengine.online._zhou."),
    ("fsengine.methods.online._statistical.ofsfpd", "fsengine.online._ofsfpd.selector"),
    ("fsengine.methods.online._statistical.", "fsengine.online._lofs."),
    ("fsengine.methods.online._information.cieosfs", "fsengine.online._cieosfs.selector"),
    ("fsengine.methods.online._information.", "fsengine.online._infotheo."),
    ("fsengine.methods.online._embedded.grafting", "fsengine.online._grafting.selector"),
    ("fsengine.methods.online._embedded.solver", "fsengine.online._grafting.solver"),
    ("fsengine.methods.online.", "fsengine.online."),
    ("fsengine.methods.rankers", "fsengine.rankers"),
]


@pytest.mark.parametrize(
    "method,params",
    [(m, {}) for m in ONLINE_METHODS] + [("sfsf", {"ties": "average"})],
    ids=lambda v: str(v or ""),
)
def test_a_state_stored_before_the_families_moved_still_resumes(task, method, params):
    """A workspace's stream saved by 0.1 names its selector's classes by their modules then
    (``fsengine.online._kofsd.selector:KOFSD``): it resumes, and goes on as the stream
    it was."""
    whole = LiveStream(task, None, method, order="random", seed=3, params=params)
    whole.advance(max_features=120)
    stopped = LiveStream(task, None, method, order="random", seed=3, params=params)
    stopped.advance(max_features=60)
    text = json.dumps(stopped.snapshot())
    for new, old in _BEFORE_THE_MOVE:
        text = text.replace(f'"{new}', f'"{old}')
    assert "fsengine.methods.online" not in text and "fsengine.online." in text
    resumed = LiveStream(task, None, method, order="random", seed=3, params=params)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # read as the names now, silently
        resumed.resume(json.loads(text))
    assert resumed.position == 60
    resumed.advance(max_features=60)
    assert repr(resumed.events) == repr(whole.events)
