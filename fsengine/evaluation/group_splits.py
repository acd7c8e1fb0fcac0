"""Grouped 50/50 splits: random, class-balanced assignments of whole groups to the halves.

With sample groups (patients, donors, batches) a split puts every group whole on one side.
A split is then an *assignment* of the g groups to the training and the test half, one of
2^g. Which assignments the protocol uses (docs/ALGORITHMS.md, "Grouped splits"):

1. **Feasible**: every class has a sample in each half, and the training half holds at
   least :data:`~fsengine.data.labels.MIN_MINORITY` minority samples (what a selection needs).
2. **Balanced**: for each class k, its share of the training half, ``train_k / total_k``,
   lies within ``tol_k`` of 1/2, where ``tol_k = max(BALANCE, best_k, t*)``:
   :data:`BALANCE` (0.1, i.e. 40-60 % of each class, so of the samples, in the training
   half) when the groups allow it; else ``best_k``, the smallest deviation any feasible
   assignment gives class k (a class in few groups); ``t*`` is the smallest loosening of
   all classes at once that leaves a feasible assignment (when the classes' bests cannot
   be met together). The shares of all classes near 1/2 keep both the halves' sizes near
   n / 2 and their class ratios near the whole set's.
3. **Random**: the admissible assignments (feasible and balanced) are drawn uniformly.
   With at most :data:`EXACT_GROUPS` groups every assignment is enumerated (the class
   counts of all 2^g training halves by doubling, group by group), so the admissible ones
   are known and counted exactly; the splits are the first ``n_splits`` of a seeded random
   permutation of them: distinct while there are enough, then repeated in the same order.
   With more groups, assignments are drawn as fair coin flips per group and kept when
   admissible and new (rejection sampling: still uniform over the admissible set); the
   tolerances come from a fixed probe of up to :data:`PROBE` random assignments (so they
   do not depend on the seed), and the count is a lower bound (the distinct admissible
   assignments the probe met).

An assignment depends on the groups' names (sorted) and class counts only, never on the
order of the rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fsengine.data.labels import MIN_MINORITY
from fsengine.errors import FSEngineError

__all__ = [
    "BALANCE",
    "EXACT_GROUPS",
    "PROBE",
    "GroupSplitPlan",
    "draw_assignments",
    "group_splits",
    "plan_group_splits",
    "repeated_splits_warning",
]

#: A class's share of the training half may stray this far from 1/2 when the groups allow.
BALANCE = 0.1
#: Up to this many groups, every assignment is enumerated (2^16 = 65,536 halves, about
#: 30 ms; 2^20 took 0.3 s, too long for a page that draws the splits on every rerun).
EXACT_GROUPS = 16
#: Random assignments of the probe that sets the tolerances with more groups.
PROBE = 4096
#: Batches of random assignments drawn at most for the splits with more groups.
MAX_BATCHES = 64
#: Float slack of the balance test (shares are ratios of integers).
_SLACK = 1e-12


@dataclass(frozen=True)
class GroupSplitPlan:
    """What the groups allow: the admissible assignments or how to draw them.

    Attributes
    ----------
    names : tuple of str
        The groups, sorted; group j is bit j of an assignment.
    codes : ndarray of int, shape (n_samples,)
        Each sample's group (an index into ``names``).
    counts : ndarray of int64, shape (n_groups, n_classes)
        Samples of each class in each group.
    tolerance : ndarray of float, shape (n_classes,)
        How far each class's share of the training half may stray from 1/2.
    admissible : ndarray
        With :data:`EXACT_GROUPS` or fewer groups: every admissible assignment as an
        integer (bit j set: group j trains), ascending. With more: the distinct admissible
        assignments the probe met, as rows of bits packed by ``numpy.packbits``.
    n_admissible : int
        The admissible assignments: their number (``exact``), or a lower bound.
    exact : bool
        Whether ``n_admissible`` is exact.
    minority : int
        The minority's column of ``counts``.
    """

    names: tuple[str, ...]
    codes: np.ndarray
    counts: np.ndarray
    tolerance: np.ndarray
    admissible: np.ndarray
    n_admissible: int
    exact: bool
    minority: int

    @property
    def count_text(self) -> str:
        """ "66 distinct splits", or "at least 4,000 distinct splits"."""
        n = self.n_admissible
        return f"{'' if self.exact else 'at least '}{n:,} distinct split{'s' if n != 1 else ''}"


def _minority_column(classes: np.ndarray) -> int:
    """The column of the minority: label 1 of 0/1 labels, else the smallest class."""
    if set(classes.tolist()) <= {0, 1} and 1 in classes.tolist():
        return classes.tolist().index(1)
    return -1


def _group_counts(y, groups):
    y = np.asarray(y)
    groups = np.asarray(groups)
    if len(groups) != len(y):
        raise FSEngineError(
            f"one group per sample is needed: {len(y)} samples, {len(groups)} groups",
            parameter="sample_groups",
        )
    names, codes = np.unique(groups.astype(str), return_inverse=True)
    classes, labels = np.unique(y, return_inverse=True)
    counts = np.zeros((len(names), len(classes)), dtype=np.int64)
    np.add.at(counts, (codes, labels), 1)
    minority = _minority_column(classes)
    if minority < 0:
        minority = int(np.argmin(counts.sum(axis=0)))
    return tuple(map(str, names)), codes, counts, classes, minority


def _deviations(train: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """|train_k / total_k - 1/2|: class k's training counts in row k of ``train``
    (classes x assignments), one column per assignment."""
    return np.abs(train / totals[:, None] - 0.5)


def _feasible(train: np.ndarray, totals: np.ndarray, minority: int) -> np.ndarray:
    """Step 1 of the module's rule, per column of ``train`` (classes x assignments)."""
    ok = train[minority] >= MIN_MINORITY
    for k, total in enumerate(totals):
        ok &= (train[k] >= 1) & (train[k] <= total - 1)
    return ok


def _balanced(deviations: np.ndarray, tolerance: np.ndarray) -> np.ndarray:
    ok = np.ones(deviations.shape[1], dtype=bool)
    for k, limit in enumerate(tolerance):
        ok &= deviations[k] <= limit + _SLACK
    return ok


def _tolerance(deviations: np.ndarray) -> np.ndarray:
    """Step 2 of the module's rule on the deviations of the feasible assignments
    (classes x assignments)."""
    base = np.maximum(BALANCE, deviations.min(axis=1))
    excess = np.zeros(deviations.shape[1])
    for k, limit in enumerate(base):
        np.maximum(excess, np.where(deviations[k] > limit + _SLACK, deviations[k], 0.0), out=excess)
    return np.maximum(base, excess.min())


def _all_training_counts(counts: np.ndarray) -> np.ndarray:
    """The class counts of the training half of every assignment, classes x 2^g (column
    r: the groups of the bits of r), built by doubling, group by group."""
    train = np.zeros((counts.shape[1], 1), dtype=np.int64)
    for row in counts:
        train = np.concatenate([train, train + row[:, None]], axis=1)
    return train


def _refuse(names, counts, classes, minority) -> FSEngineError:
    """No feasible assignment: say which class's groups make it so."""
    totals = counts.sum(axis=0)

    def holding(k):
        rows = np.flatnonzero(counts[:, k])
        listed = ", ".join(f"{names[j]} ({counts[j, k]})" for j in rows[:8])
        return listed + (" ..." if len(rows) > 8 else "")

    for k in range(len(classes)):
        if np.count_nonzero(counts[:, k]) < 2:
            who = "the minority" if k == minority else f"class {classes[k]}"
            return FSEngineError(
                f"put all {totals[k]} samples of {who} in the group {holding(k)}: a split "
                "keeping each group on one side cannot give both halves some of them",
                parameter="sample_groups",
                remedy="check the groups column, or run without",
                remedy_option="sample_groups",
            )
    return FSEngineError(
        f"allow no split with at least {MIN_MINORITY} minority samples in the training half "
        f"and 1 in the test half, each group on one side: the minority's {totals[minority]} "
        f"samples are in the groups {holding(minority)}",
        parameter="sample_groups",
        remedy="check the groups column, or run without",
        remedy_option="sample_groups",
    )


def plan_group_splits(y, groups) -> GroupSplitPlan:
    """The admissible assignments of the groups to the halves (the module's rule).

    Parameters
    ----------
    y : array
        Labels (0/1: 1 = the minority).
    groups : array
        Each sample's group.

    Returns
    -------
    GroupSplitPlan

    Raises
    ------
    FSEngineError
        When no assignment is feasible, naming the groups that hold the class at fault.
    """
    names, codes, counts, classes, minority = _group_counts(y, groups)
    totals = counts.sum(axis=0)
    if len(names) <= EXACT_GROUPS:
        train = _all_training_counts(counts)
        feasible = np.flatnonzero(_feasible(train, totals, minority))
        if not len(feasible):
            raise _refuse(names, counts, classes, minority)
        deviations = _deviations(train[:, feasible], totals)
        tolerance = _tolerance(deviations)
        admissible = feasible[_balanced(deviations, tolerance)]
        return GroupSplitPlan(
            names, codes, counts, tolerance, admissible, len(admissible), True, minority
        )
    rng = np.random.default_rng(0)  # the probe: the same whatever the seed
    batch = _batch_size(len(names))
    n_probe = max(256, min(PROBE, 2**24 // len(names)))
    packed, trains = [], []
    for _ in range(-(-n_probe // batch)):
        bits = _random_assignments(rng, batch, len(names))
        trains.append(_training_counts(bits, counts))
        packed.append(np.packbits(bits, axis=1))
    train, packed = np.concatenate(trains, axis=1), np.concatenate(packed)
    feasible = _feasible(train, totals, minority)
    if not feasible.any():
        raise _refuse(names, counts, classes, minority)
    deviations = _deviations(train[:, feasible], totals)
    tolerance = _tolerance(deviations)
    admissible = np.unique(packed[feasible][_balanced(deviations, tolerance)], axis=0)
    return GroupSplitPlan(
        names, codes, counts, tolerance, admissible, len(admissible), False, minority
    )


def _batch_size(n_groups: int) -> int:
    """Random assignments drawn at a time: :data:`PROBE`, fewer with many groups (a batch
    holds at most about 2^22 coin flips)."""
    return int(max(16, min(PROBE, 2**22 // n_groups)))


def _training_counts(bits: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Classes x assignments: the class counts of each row of ``bits``'s training half
    (float64 products are exact for counts below 2^53)."""
    return (bits.astype(np.float64) @ counts.astype(np.float64)).T.round().astype(np.int64)


def _random_assignments(rng: np.random.Generator, n: int, n_groups: int) -> np.ndarray:
    """``n`` assignments as fair coin flips per group (rows of bool): the bits of
    random bytes."""
    width = -(-n_groups // 8)
    raw = np.frombuffer(rng.bytes(n * width), dtype=np.uint8).reshape(n, width)
    return np.unpackbits(raw, axis=1, count=n_groups).astype(bool)


def draw_assignments(plan: GroupSplitPlan, n_splits: int, seed: int) -> tuple[np.ndarray, int]:
    """``n_splits`` admissible assignments of ``plan``, seeded: distinct while there are
    enough, then repeated in the same order.

    Returns
    -------
    (ndarray of bool, shape (n_splits, n_groups), int)
        Each split's groups in the training half, and how many distinct assignments were
        drawn (less than ``n_splits`` when the groups allow fewer).
    """
    rng = np.random.default_rng(seed)
    n_groups = len(plan.names)
    if plan.exact:
        order = plan.admissible[rng.permutation(len(plan.admissible))]
        distinct = min(n_splits, len(order))
        chosen = np.resize(order, n_splits)
        bits = (chosen[:, None] >> np.arange(n_groups)) & 1
        return bits.astype(bool), distinct
    totals = plan.counts.sum(axis=0)
    batch = _batch_size(n_groups)
    kept, seen = [], set()
    for _ in range(MAX_BATCHES):
        bits = _random_assignments(rng, batch, n_groups)
        train = _training_counts(bits, plan.counts)
        ok = _feasible(train, totals, plan.minority)
        ok[ok] = _balanced(_deviations(train[:, ok], totals), plan.tolerance)
        for row in bits[ok]:
            key = np.packbits(row).tobytes()
            if key not in seen:
                seen.add(key)
                kept.append(row)
                if len(kept) == n_splits:
                    return np.array(kept), n_splits
    for packed in plan.admissible[rng.permutation(len(plan.admissible))]:  # rare: the probe's
        row = np.unpackbits(packed, count=n_groups).astype(bool)
        if packed.tobytes() not in seen and len(kept) < n_splits:
            seen.add(packed.tobytes())
            kept.append(row)
    distinct = len(kept)
    return np.array([kept[i % distinct] for i in range(n_splits)]), distinct


def group_splits(y, groups, n_splits: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """``n_splits`` seeded random splits keeping each group on one side (the module's
    rule): (training rows, test rows), each ascending."""
    plan = plan_group_splits(y, groups)
    assignments, _ = draw_assignments(plan, n_splits, seed)
    splits = []
    for in_train in assignments:
        mask = in_train[plan.codes]
        splits.append((np.flatnonzero(mask), np.flatnonzero(~mask)))
    return splits


def repeated_splits_warning(y, groups, n_splits: int, seed: int = 0) -> str | None:
    """A sentence when the groups allow fewer distinct splits than ``n_splits`` (so some
    splits repeat and the standard deviations understate the spread), else None.

    Raises
    ------
    FSEngineError
        When the groups allow no split (:func:`plan_group_splits`).
    """
    plan = plan_group_splits(y, groups)
    _, distinct = draw_assignments(plan, n_splits, seed)
    if distinct >= n_splits:
        return None
    allowed = (
        f"allow only {plan.count_text}"
        if plan.exact
        else f"gave only {distinct} distinct splits in {MAX_BATCHES} batches of random draws"
    )
    return (
        f"the {len(plan.names)} sample groups {allowed} (each group on one side, each "
        f"class {_share_text(plan)} in the training half), so {n_splits} splits repeat "
        f"some and the standard deviations understate the spread; ask for {distinct} "
        "splits or fewer, or use finer groups"
    )


def _share_text(plan: GroupSplitPlan) -> str:
    """The widest share of a class the training half may hold, "40-60 %"."""
    low = max(0.0, 50 - 100 * float(plan.tolerance.max()))
    return f"{low:.0f}-{100 - low:.0f} %"
