"""One label rule: every way into a selection accepts and refuses the same labels."""

import numpy as np
import pytest

from fsengine import Dataset, FSEngineError, KOFSDSelector, RankerSelector
from fsengine.labels import MIN_MINORITY, check_binary, default_minority, one_versus_rest
from fsengine.methods import ONLINE_METHODS, get_method

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


def test_the_default_minority_is_the_smallest_class_ties_to_the_first():
    assert default_minority(["b", "a", "b", "c", "c", "a"]) == "a"
    assert default_minority([3, 3, 1, 2, 2, 2]) == 1  # sizes 1: 1, 2: 3, 3: 2
    assert default_minority([3, 3, 2, 2, 2, 1, 1]) == 1  # 1 and 3 tie at 2: the first
    assert one_versus_rest([3, 3, 1, 1, 2, 2, 2]).tolist() == [0, 0, 1, 1, 0, 0, 0]


def test_labels_must_be_zero_one_for_a_selector():
    with pytest.raises(FSEngineError, match="binary") as caught:
        check_binary([0, 1, 2, 1])
    assert caught.value.remedy
