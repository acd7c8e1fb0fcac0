"""A remembered widget starts at the value its key holds (dashboard.session.starting), in
the keyword its kind takes, and never at a value Streamlit would refuse as a default."""

import pytest
import streamlit as st

from dashboard.session import persisted, starting


@pytest.fixture
def held(monkeypatch) -> dict:
    state = {}
    monkeypatch.setattr(st, "session_state", state)
    return state


def test_each_kind_starts_by_its_keyword(held):
    held.update(k=7, method="ofs-fpd", methods=["kofsd", "chi2"], speed="max", on=True)
    assert starting("k", bounds=(1, 20)) == {"value": 7}
    assert starting("method", "index", ["kofsd", "ofs-fpd"]) == {"index": 1}
    assert starting("methods", "default", ["chi2", "kofsd", "relief"]) == {
        "default": ["kofsd", "chi2"]
    }
    assert starting("speed", options=["1", "max"]) == {"value": "max"}
    assert starting("on", cast=bool) == {"value": True}
    held["alpha"] = 1  # a real parameter held as an int: the box takes a float
    (value,) = starting("alpha", bounds=(0.0, 1.0), cast=float).values()
    assert value == 1.0 and type(value) is float
    held["range"] = (3, 9)  # a range slider
    assert starting("range", bounds=(1, 10)) == {"value": (3, 9)}


def test_a_value_the_widget_cannot_start_at_starts_nothing(held):
    held.update(k=70, gone="relief", typed="abc", empty=None, methods=["kofsd", "gone"])
    assert starting("absent") == {}
    assert starting("k", bounds=(1, 20)) == {}  # Streamlit refuses a default over its max
    assert starting("range", bounds=(1, 10)) == {}
    assert starting("gone", "index", ["kofsd"]) == {}  # not offered: the first option
    assert starting("typed", bounds=(1, 20), cast=int) == {}
    assert starting("empty") == {}  # (a box that may be empty is given value=None)
    assert starting("methods", "default", ["kofsd"]) == {"default": ["kofsd"]}
    held["pair"] = ["kofsd"]  # a list held for a box of one choice
    assert starting("pair", "index", ["kofsd", "chi2"]) == {}
    held["k"] = 5
    assert starting("k", bounds=(1, None)) == {"value": 5}  # no upper bound


def test_persisted_gives_the_key_its_callback_and_its_start(held):
    held.update(splits=7, seed=3)
    keywords = persisted("store", "splits", (2, 20), slider=True)
    assert keywords["key"] == "splits" and callable(keywords["on_change"])
    assert keywords["value"] == 7
    assert "value" not in persisted("store", "splits", (2, 5), slider=True)


def test_only_a_slider_drawn_with_new_bounds_has_its_value_set_again(held, monkeypatch):
    """A keyed slider's identity holds its bounds (new bounds: a new widget, given the
    value again); a number box's is its key alone: its value is never set from here."""
    import dashboard.session as session

    set_again = []

    class Recording(dict):
        def __setitem__(self, key, value):
            set_again.append(key)
            super().__setitem__(key, value)

    state = Recording(splits=7, seed=3)
    monkeypatch.setattr(st, "session_state", state)
    for bounds in ((2, 20), (2, 20), (2, 30)):
        session.persisted("store", "splits", bounds, slider=True)
        session.persisted("store", "seed", bounds, cast=int)
    assert [key for key in set_again if key != session.DRAWN_BOUNDS] == ["splits", "splits"]
