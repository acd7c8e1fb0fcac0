"""K-OFSD's K checked against the training halves the group splits draw (issue 30, point
3 of the pages' brief): with sample groups a training half can be smaller, and poorer in
minority samples, than the ceil(n / 2) half of ungrouped splits."""

import numpy as np

from fsengine.evaluation import (
    half_minority_sizes,
    protocol_defaults,
    protocol_warnings,
    stratified_splits,
    training_halves,
)
from fsengine.task import training_size

#: 12 minority samples from three patients (8, 2 and 2 samples), 28 others in pairs: a
#: split keeping patients apart puts the patient of 8 on one side, so a training half
#: holds 4 minority samples (or 8), never the 6 of an ungrouped stratified half.
Y = np.r_[np.ones(12), np.zeros(28)].astype(np.int8)
GROUPS = np.array(
    ["m0"] * 8 + ["m1"] * 2 + ["m2"] * 2 + [f"r{k // 2}" for k in range(28)], dtype=object
)


def _drawn(n_splits=20, seed=0):
    """The smallest training half and its fewest minority samples, counted by hand on the
    drawn splits."""
    splits = stratified_splits(Y, n_splits, seed, GROUPS)
    for train, test in splits:
        assert set(GROUPS[train]).isdisjoint(GROUPS[test])
    return min(len(t) for t, _ in splits), min(int(Y[t].sum()) for t, _ in splits)


def test_the_drawn_halves_are_smaller_than_the_ungrouped_arithmetic():
    size, fewest = _drawn()
    assert (size, fewest) == (18, 4)  # the patient of 8 in the test half
    assert training_size(len(Y)) == 20 and half_minority_sizes(Y)[0][0] == 6
    assert training_halves(Y, groups=GROUPS) == (18, 4)
    assert training_halves(Y) == (20, 6)


def test_k_default_stays_below_the_poorest_drawn_training_half():
    _, fewest = _drawn()
    k, why = protocol_defaults(Y, "kofsd", groups=GROUPS)["k"]
    assert k == fewest - 1 == 3
    assert "as few as 4 minority samples" in why
    assert protocol_defaults(Y, "kofsd")["k"][0] == 5  # ungrouped: 6 in every half


def test_k_warning_counts_the_drawn_training_half():
    size, fewest = _drawn(10)
    found = protocol_warnings(Y, ["kofsd"], {"kofsd": {"k": 5}}, n_splits=10, groups=GROUPS)
    assert found == [
        f"kofsd on a training half ({fewest} minority samples of {size}): K = 5 is at or "
        f"above the minority class size ({fewest}): no minority sample can have only "
        f"minority neighbours, which takes K < {fewest}; this is the method's rule, not a "
        "measurement (a K sweep measures which K selects best)"
    ]
    assert not protocol_warnings(Y, ["kofsd"], {"kofsd": {"k": 3}}, n_splits=10, groups=GROUPS)
