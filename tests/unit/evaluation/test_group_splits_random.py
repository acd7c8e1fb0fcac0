"""Grouped splits that are really random (issue 40, point 1): every split a seeded random,
class-balanced assignment of whole groups to the halves. Before, each split was the first
fold of scikit-learn's StratifiedGroupKFold(shuffle=True), which shuffles only groups with
the same class distribution: with donors whose class mix differs every seed gave the same
split, and the G-means' standard deviations printed as 0.0000.

The admissible assignments are counted here by brute force over all 2^g assignments, by
the rule written out in docs/ALGORITHMS.md ("Grouped splits"), independently of the
library's enumeration by doubling."""

import itertools

import anndata
import numpy as np
import pandas as pd
import pytest

from fsengine import FSEngineError
from fsengine.cli import main
from fsengine.evaluation import protocol_warnings, stratified_splits
from fsengine.evaluation.group_splits import (
    BALANCE,
    draw_assignments,
    plan_group_splits,
    repeated_splits_warning,
)
from synthetic import RARE_TYPE, single_cell_counts


@pytest.fixture(scope="module")
def donors():
    """The synthetic single-cell file's 20,000 cells: the rare type against the rest, and
    the 8 donors (their cell-type mixes differ; D7 and D8 hold no rare cell)."""
    _, obs, _ = single_cell_counts(n_genes=40)
    y = (obs["cell_type"] == RARE_TYPE).to_numpy().astype(np.int8)
    return y, obs["donor"].astype(str).to_numpy()


def _groups_of(spec):
    """Labels and groups from [(minority, majority) per group], groups named G0, G1, ..."""
    y, groups = [], []
    for g, (minority, majority) in enumerate(spec):
        y += [1] * minority + [0] * majority
        groups += [f"G{g}"] * (minority + majority)
    return np.array(y, dtype=np.int8), np.array(groups, dtype=object)


def _brute_force(spec) -> set[frozenset]:
    """The admissible training halves (sets of group indices) by the documented rule, over
    every one of the 2^g assignments: feasible (each class on both sides, 2 or more
    minority samples to train on); each class's training share within
    max(0.1, its best feasible deviation, t*) of 1/2, t* the smallest common loosening
    that leaves a feasible assignment."""
    counts = np.array(spec, dtype=float)  # columns: minority, majority
    totals = counts.sum(axis=0)
    feasible = {}
    for bits in itertools.product((0, 1), repeat=len(spec)):
        train = np.array(bits) @ counts
        if (train >= 1).all() and (totals - train >= 1).all() and train[0] >= 2:
            feasible[bits] = [abs(train[k] / totals[k] - 0.5) for k in range(2)]
    if not feasible:
        return set()
    base = [max(BALANCE, min(d[k] for d in feasible.values())) for k in range(2)]
    t_star = min(
        max((d[k] if d[k] > base[k] + 1e-12 else 0.0) for k in range(2)) for d in feasible.values()
    )
    tol = [max(b, t_star) for b in base]
    return {
        frozenset(g for g, b in enumerate(bits) if b)
        for bits, d in feasible.items()
        if all(d[k] <= tol[k] + 1e-12 for k in range(2))
    }


def _halves(splits, groups) -> set[frozenset]:
    return {frozenset(groups[train]) for train, _ in splits}


def test_twenty_splits_over_eight_donors_are_twenty_different_splits(donors):
    y, groups = donors
    splits = stratified_splits(y, 20, 0, groups)
    assert len(_halves(splits, groups)) == 20  # the old splitter: 1, whatever the seed
    assert len(_halves(stratified_splits(y, 20, 1, groups), groups)) == 20
    firsts = {frozenset(groups[stratified_splits(y, 1, s, groups)[0][0]]) for s in range(10)}
    assert len(firsts) >= 5  # the first split itself moves with the seed


def test_no_donor_on_both_sides_the_minority_in_both_and_halves_near_half(donors):
    y, groups = donors
    for train, test in stratified_splits(y, 20, 3, groups):
        assert set(groups[train]).isdisjoint(groups[test])
        assert sorted(np.r_[train, test]) == list(range(len(y)))
        assert y[train].sum() >= 2 and y[test].sum() >= 1
        # 8 donors allow 66 assignments with each class's share within 40-60 %
        assert 0.4 <= y[train].sum() / y.sum() <= 0.6
        assert 0.4 <= len(train) / len(y) <= 0.6


def test_the_same_seed_gives_the_same_splits_and_another_seed_others(donors):
    y, groups = donors
    first = [t.tolist() for t, _ in stratified_splits(y, 20, 5, groups)]
    assert first == [t.tolist() for t, _ in stratified_splits(y, 20, 5, groups)]
    assert first != [t.tolist() for t, _ in stratified_splits(y, 20, 6, groups)]
    # fewer splits of the same seed: the first ones
    assert first[:7] == [t.tolist() for t, _ in stratified_splits(y, 7, 5, groups)]


def test_the_split_does_not_depend_on_the_order_of_the_rows(donors):
    y, groups = donors
    order = np.random.default_rng(1).permutation(len(y))
    plain = _halves(stratified_splits(y, 10, 2, groups), groups)
    shuffled = _halves(stratified_splits(y[order], 10, 2, groups[order]), groups[order])
    assert plain == shuffled


@pytest.mark.parametrize(
    ("spec", "by_hand"),
    [
        # 4 patients of 1 tumour and 3 normals: 2 of the 4 train, C(4, 2) = 6
        ([(1, 3)] * 4, 6),
        # minority 2, 1, 1; majority 3 each: {A} and {B, C} (tumours 2 of 4, normals
        # 1/3 or 2/3: no split does better for the normals); {A, B} has 3 of 4 tumours
        ([(2, 3), (1, 3), (1, 3)], 2),
    ],
)
def test_the_count_of_distinct_splits_on_hand_counted_cases(spec, by_hand):
    y, groups = _groups_of(spec)
    assert len(_brute_force(spec)) == by_hand
    plan = plan_group_splits(y, groups)
    assert plan.exact and plan.n_admissible == by_hand
    splits = stratified_splits(y, by_hand, 0, groups)
    names = np.array([int(g[1:]) for g in groups])
    assert {frozenset(names[t]) for t, _ in splits} == _brute_force(spec)  # every one, once


def test_the_count_equals_the_brute_force_on_random_groupings():
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(60):
        g = int(rng.integers(2, 9))
        spec = [(int(rng.integers(0, 4)), int(rng.integers(0, 12))) for _ in range(g)]
        spec = [(m, n) if m + n else (0, 1) for m, n in spec]
        y, groups = _groups_of(spec)
        expected = _brute_force(spec)
        if not expected:
            with pytest.raises(FSEngineError):
                plan_group_splits(y, groups)
            continue
        plan = plan_group_splits(y, groups)
        assert plan.n_admissible == len(expected), spec
        names = np.array([int(n[1:]) for n in groups])
        in_train = draw_assignments(plan, len(expected), 3)[0]
        assert {frozenset(np.flatnonzero(bits)) for bits in in_train} == expected, spec
        if y.sum() >= 4 and (1 - y).sum() >= 2:  # what the protocol takes
            drawn = stratified_splits(y, len(expected), 3, groups)
            assert {frozenset(names[t]) for t, _ in drawn} == expected, spec
        checked += 1
    assert checked > 30


def test_groups_that_allow_no_split_are_refused_by_name():
    # the normals all from one patient: one half would hold none of them
    y, groups = _groups_of([(2, 0), (3, 0), (0, 9)])
    with pytest.raises(FSEngineError) as caught:
        stratified_splits(y, 5, 0, groups)
    assert caught.value.parameter == "sample_groups"
    assert caught.value.describe() == (
        "sample_groups put all 9 samples of class 0 in the group G2 (9): a split keeping "
        "each group on one side cannot give both halves some of them; check the groups "
        "column, or run without sample_groups"
    )
    # (below the protocol's 4 minority samples) 2 tumours in two groups of 1: a training
    # half cannot hold 2 and leave 1 to test
    y, groups = _groups_of([(1, 4), (1, 4), (0, 5)])
    with pytest.raises(FSEngineError, match="the minority's 2 samples are in the groups G0 "):
        plan_group_splits(y, groups)


def test_fewer_distinct_splits_than_asked_are_warned_about():
    y, groups = _groups_of([(1, 3)] * 4)  # 6 distinct splits
    splits = stratified_splits(y, 20, 0, groups)
    halves = [frozenset(groups[t]) for t, _ in splits]
    assert len(set(halves)) == 6 and halves[6:12] == halves[:6]  # then repeated in order
    warning = repeated_splits_warning(y, groups, 20)
    assert warning.startswith("the 4 sample groups allow only 6 distinct splits")
    assert "ask for 6 splits or fewer" in warning
    assert repeated_splits_warning(y, groups, 6) is None
    assert warning in protocol_warnings(y, n_splits=20, groups=groups)
    assert not any("distinct" in w for w in protocol_warnings(y, n_splits=5, groups=groups))


def test_many_groups_are_drawn_at_random_and_counted_from_below():
    rng = np.random.default_rng(2)
    spec = [(int(rng.integers(0, 3)), int(rng.integers(1, 6))) for _ in range(40)]
    y, groups = _groups_of(spec)
    plan = plan_group_splits(y, groups)
    assert not plan.exact and plan.n_admissible > 1000
    splits = stratified_splits(y, 20, 0, groups)
    assert len(_halves(splits, groups)) == 20
    for train, test in splits:
        assert set(groups[train]).isdisjoint(groups[test])
        assert abs(y[train].sum() / y.sum() - 0.5) <= 0.1 + 1e-12
        assert abs((1 - y[train]).sum() / (1 - y).sum() - 0.5) <= 0.1 + 1e-12
    assert [t.tolist() for t, _ in splits] == [
        t.tolist() for t, _ in stratified_splits(y, 20, 0, groups)
    ]


@pytest.fixture(scope="module")
def single_cell_file(tmp_path_factory):
    """A smaller copy of the issue's file: 4,000 cells x 200 genes, 187 rare cells, 8 donors."""
    X, obs, names = single_cell_counts(n_cells=4000, n_genes=200)
    path = tmp_path_factory.mktemp("donors") / "sc.h5ad"
    anndata.AnnData(X=X, obs=obs, var=pd.DataFrame(index=names)).write_h5ad(path)
    return path


def _donor_spec(obs) -> list[tuple[int, int]]:
    """(rare cells, other cells) per donor, donors in name order."""
    rare = obs["cell_type"] == RARE_TYPE
    return [
        (int(rare[obs["donor"] == d].sum()), int((~rare)[obs["donor"] == d].sum()))
        for d in sorted(obs["donor"].astype(str).unique())
    ]


def test_the_eight_donors_allow_66_splits_by_brute_force(donors):
    y, groups = donors
    _, obs, _ = single_cell_counts(n_genes=40)
    assert len(_brute_force(_donor_spec(obs))) == 66
    assert plan_group_splits(y, groups).count_text == "66 distinct splits"


def test_the_g_means_over_grouped_splits_spread(single_cell_file, tmp_path, capsys):
    """The issue's command: every standard deviation printed as 0.0000 before."""
    out = tmp_path / "records.csv"
    argv = ["evaluate", str(single_cell_file), "--label", "cell_type", "--sample-groups"]
    argv += ["donor", "--minority", RARE_TYPE, "--methods", "fisher,welch,wilcoxon,saola"]
    argv += ["--top", "10", "--splits", "7", "--jobs", "1", "--out", str(out)]
    assert main(argv) == 0
    _, obs, _ = single_cell_counts(n_cells=4000, n_genes=200)
    allowed = len(_brute_force(_donor_spec(obs)))
    assert (
        f"7 stratified 50/50 splits (seed 0, each 'donor' group on one side of {allowed} "
        "distinct splits)" in capsys.readouterr().out
    )
    records = pd.read_csv(out)
    assert len(records) == 4 * 7
    for method, rows in records.groupby("method"):
        assert rows["gmean_1nn"].std() > 0.001, method
    assert records.groupby("split")["gmean_1nn"].mean().nunique() == 7


def test_the_command_line_warns_when_the_splits_repeat(tmp_path, capsys):
    y, groups = _groups_of([(2, 6)] * 4)
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(len(y), 5)), columns=[f"g{j}" for j in range(5)])
    frame.insert(0, "patient", groups)
    frame["label"] = np.where(y == 1, "tumour", "normal")
    frame.to_csv(tmp_path / "four.csv", index=False)
    argv = ["evaluate", str(tmp_path / "four.csv"), "--minority", "tumour", "--methods"]
    argv += ["fisher", "--top", "2", "--sample-groups", "patient", "--jobs", "1"]
    assert main([*argv, "--splits", "10"]) == 0
    err = capsys.readouterr().err
    assert err.count("warning: the 4 sample groups allow only 6 distinct splits") == 1
    assert main([*argv, "--splits", "6"]) == 0
    assert "distinct" not in capsys.readouterr().err
