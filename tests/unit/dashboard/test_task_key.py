"""The dashboard's task identity (dashboard.session.TaskKey): one frozen, hashable key,
whose tuple form is the one the workspace's stored settings were named by before it had
a type, so that they still match."""

import dataclasses
import hashlib

import pytest

from dashboard.session import TaskKey, stored_task_key


def test_the_tuple_form_is_the_one_stored_settings_are_named_by():
    """Written by hand as the key was built before (SHA-256, label column, transpose,
    drop constant, repr of the class, sheet, sorted preprocessing steps with repr'd
    values, groups, then the AnnData options only when there are any)."""
    key = TaskKey.of(
        "ab" * 32, "label", 0, 1, 2,
        samples="", preprocessing={"log": "log2", "floor": 20.0}, sample_groups="patient",
    )  # fmt: skip
    assert key.as_tuple() == (
        "ab" * 32, "label", False, True, "2", None,
        (("floor", "20.0"), ("log", "'log2'")), "patient",
    )  # fmt: skip
    mark = hashlib.sha256(repr(key.as_tuple()).encode()).hexdigest()[:32]
    assert (
        mark
        == hashlib.sha256(
            b"('" + b"ab" * 32 + b"', 'label', False, True, '2', None, "
            b"(('floor', '20.0'), ('log', \"'log2'\")), 'patient')"
        ).hexdigest()[:32]
    )
    with_anndata = TaskKey.of("cd" * 32, None, False, False, "B", anndata={"layer": "counts"})
    assert with_anndata.as_tuple()[-1] == (("layer", "counts"),)
    assert len(with_anndata.as_tuple()) == 9 and len(key.as_tuple()) == 8


def test_a_stored_run_and_the_session_name_the_same_task_by_equal_keys():
    record = {
        "minority": 2,
        "dataset": {"label": "label", "transpose": False, "preprocessing": {"log": "log2"}},
    }
    stored = stored_task_key("ef" * 32, record)
    same = TaskKey.of("ef" * 32, "label", False, False, 2, preprocessing={"log": "log2"})
    assert stored == same and hash(stored) == hash(same)
    assert {stored: 1}[same] == 1
    assert stored != TaskKey.of(
        "ef" * 32, "label", False, False, "2", preprocessing={"log": "log2"}
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        stored.minority = "3"
