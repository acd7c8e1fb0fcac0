"""One label rule: every way into a selection accepts and refuses the same labels."""

import numpy as np
import pytest

from fsengine import Dataset, FSEngineError, KOFSDSelector, RankerSelector
from fsengine.data.labels import (
    MIN_MINORITY,
    MIN_PROTOCOL_MINORITY,
    check_binary,
    default_minority,
    default_minority_reason,
    one_versus_rest,
)
from fsengine.methods.registry import ONLINE_METHODS, get_method

X = np.array([[0.0, 5.0], [0.1, 1.0], [3.0, 2.0], [3.1, 4.0], [1.0, 0.5], [2.0, 3.5]])


def _dataset(labels):
    return Dataset(
        X=np.asfortranarray(X[: len(labels)]),
        labels=np.asarray(labels),
        feature_names=("a", "b"),
        label_column="class",
    )


def _refusals(labels, minority):
    """The error of each entry point for these labels (None where it accepts them)."""
    y01 = (np.asarray(labels) == minority).astype(int)
    entries = {
        "one_versus_rest": lambda: one_versus_rest(labels, minority),
        "Dataset.binarise": lambda: _dataset(labels).binarise(minority),
        "check_binary": lambda: check_binary(y01),
        "KOFSDSelector.fit": lambda: KOFSDSelector(k=1, minority=minority).fit(
            X[: len(labels)], labels
        ),
        "RankerSelector.fit": lambda: RankerSelector(k=1, minority=minority).fit(
            X[: len(labels)], labels
        ),
    }
    small = {"k": 1} if len(labels) < 8 else {}  # K-OFSD's K below n
    entries.update(
        {
            f"{m}.start": (
                lambda m=m: (
                    get_method(m)
                    .selector(
                        **{k: v for k, v in small.items() if k in get_method(m).spec.parameters}
                    )
                    .start(y01)
                )
            )
            for m in ONLINE_METHODS
        }
    )
    found = {}
    for name, call in entries.items():
        try:
            call()
        except FSEngineError as exc:
            found[name] = exc
        else:
            found[name] = None
    return found


@pytest.mark.parametrize(
    "labels,minority",
    [
        (["x", "y", "y", "y", "y", "y"], "x"),  # a minority of 1 sample
        (["x", "x", "x", "x"], "x"),  # every sample of the class
    ],
)
def test_every_entry_point_refuses_with_the_same_parameter(labels, minority):
    found = _refusals(labels, minority)
    assert all(exc is not None for exc in found.values()), found
    assert {exc.parameter for exc in found.values()} == {"minority"}
    problems = {
        exc.problem.replace(repr(minority), "M").replace("1", "M") for exc in found.values()
    }
    assert len({p.split(";")[0].split(" names ")[-1] for p in problems}) == 1, problems


def test_every_entry_point_accepts_a_minority_of_two():
    assert MIN_MINORITY == 2
    found = _refusals(["x", "x", "y", "y", "y", "y"], "x")
    assert all(exc is None for exc in found.values()), found


def test_the_default_minority_is_the_smallest_class_the_protocol_can_use():
    """4 samples or more (2 in each half of the 50/50 protocol), ties to the first in label
    order; else the smallest with 2 or more (a selection can run); else the smallest."""
    assert MIN_PROTOCOL_MINORITY == 4
    nine = ["lipoma"] * 2 + ["a"] * 15 + ["b"] * 30 + ["c"] * 4 + ["d"] * 9
    assert default_minority(nine) == "c"  # 4 samples: the smallest that works, not lipoma
    assert default_minority([5] * 3 + [7] * 6 + [6] * 6 + [8] * 20) == 6  # 6 and 7 tie: 6
    assert default_minority(["b", "a", "b", "c", "c", "a"]) == "a"  # none has 4: all 2
    assert default_minority([3, 3, 1, 2, 2, 2]) == 3  # sizes 1: 1, 2: 3, 3: 2; 1 cannot run
    assert default_minority([3, 3, 2, 2, 2, 1, 1]) == 1  # 1 and 3 tie at 2: the first
    assert default_minority([1, 0, 0]) == 1  # 0 is no minority (2 of 3): the smallest
    assert default_minority([7, 5]) == 5  # no class can run: the smallest, the first
    assert one_versus_rest([3, 3, 1, 1, 2, 2, 2]).tolist() == [0, 0, 1, 1, 0, 0, 0]
    assert one_versus_rest(nine).sum() == 4


def test_the_default_minority_says_why_it_is_not_the_smallest():
    nine = ["lipoma"] * 2 + ["a"] * 15 + ["c"] * 4
    assert default_minority_reason(nine) == (
        "The smallest class lipoma has only 2 samples, too few for a comparison (the 50/50 "
        "protocol needs 4, 2 in each half). The default is class c (4 samples), the "
        "smallest class the protocol can use."
    )
    assert default_minority_reason(["x"] * 11 + ["y"] * 72) is None  # the smallest works
    assert default_minority_reason([3, 3, 1, 2, 2, 2]).endswith(
        "the smallest class 1 has only 1 sample; the default is class 3 (2 samples), the "
        "smallest class a selection can use."
    )
    assert default_minority_reason([0, 0, 1, 1]) == (
        "No minority class has enough samples for a comparison (the 50/50 protocol needs "
        "4, 2 in each half)."
    )
    assert default_minority(["rare"] * 3 + ["common"] * 30) == "rare"  # a minority only


def test_labels_must_be_zero_one_for_a_selector():
    with pytest.raises(FSEngineError, match="binary") as caught:
        check_binary([0, 1, 2, 1])
    assert caught.value.remedy
