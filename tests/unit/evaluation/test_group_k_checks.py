"""K-OFSD's K checked against the training halves the group splits draw (issue 30, point
3 of the pages' brief): with sample groups a training half can be smaller, and poorer in
minority samples, than the ceil(n / 2) half of ungrouped splits."""

import numpy as np

from fsengine.data.task import training_size
from fsengine.evaluation import (
    half_minority_sizes,
    protocol_defaults,
    protocol_warnings,
    stratified_splits,
    training_halves,
)

#: 12 minority samples from three patients (8, 2 and 2 samples), 28 others in pairs: a
#: split keeping patients apart puts the patient of 8 on one side, so a training half
#: holds 4 minority samples (or 8), never the 6 of an ungrouped stratified half. (By the
#: rule of the grouped splits, docs/ALGORITHMS.md: 4 or 8 minority samples, 1/6 from half,
#: the best the groups allow, so the others too may be 1/6 from half: 10 to 18 of 28.)
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
    assert fewest == 4  # the patient of 8 in the test half
    assert 4 + 10 <= size < 20
    assert training_size(len(Y)) == 20 and half_minority_sizes(Y)[0][0] == 6
    assert training_halves(Y, groups=GROUPS) == (size, 4)
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
    assert fewest == 4
    assert (
        f"kofsd on a training half (4-8 minority samples of {size}): K = 5 is at or "
        "above the minority class size (4): no minority sample can have only "
        "minority neighbours, which takes K < 4; this is the method's rule, not a "
        "measurement (a K sweep measures which K selects best)"
    ) in found
    found = protocol_warnings(Y, ["kofsd"], {"kofsd": {"k": 3}}, n_splits=10, groups=GROUPS)
    assert not [w for w in found if w.startswith("kofsd")]
    assert found == [  # the test half of a split that trains on the patient of 8
        "a test half holds only 4-8 minority samples: each one moves the minority recall "
        "(and so the G-mean) by a large step; use many splits and read the standard deviations"
    ]
