"""OSFS and Fast-OSFS: online streaming feature selection by conditional independence.

Wu, Yu, Ding, Wang, Zhu, "Online feature selection with streaming features", IEEE TPAMI
35(5) (2013) 1178-1192, as run by the LOFS toolbox (kuiy/LOFS, ``osfs_z.m``,
``fast_osfs_z.m``, ``compter_dep_2.m``, ``optimal_compter_dep_2.m``) with Fisher's z test
(:mod:`fsengine.methods.online._statistical.fisher_z`). A feature that depends on the class joins
the selected set unless (Fast-OSFS) a subset of the set makes it independent of the class; then the
selected features that a subset of the others, together with the new one, makes independent
of the class are removed (OSFS re-tests the new one too). Reference:
../shared/reference/lofs_octave/README.md, "OSFS" and "Fast-OSFS".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from fsengine._compute import kernels
from fsengine.methods.online._codes import OSFS_ADDED, OSFS_REDUNDANT_BEFORE
from fsengine.methods.online._columns import pearson_with, sequential_sum
from fsengine.methods.online._statistical.fisher_z import fisher_z_cutoff
from fsengine.methods.online._stream import Selection, StreamEvent, StreamingSelector
from fsengine.spec import ONLINE, Choice, Int, MethodSpec, Real

ZERO_SUM, IRRELEVANT, REDUNDANT, ADDED = "zero-sum", "irrelevant", "redundant", "added"
#: The largest conditioning set a user may ask for: the search costs C(|set|, k) tests.
MAX_CONDITIONING = 5
#: The compiled tests of (conditional) independence.
OSFS_KERNELS = "methods.online._statistical._osfs_kernels"


class RedundancyPass(NamedTuple):
    """One call of OSFS's redundancy kernel (:func:`_osfs_kernels.add_features`: each
    relevant feature of a block tested against the selected set, and the set against it),
    its 17 arguments by name and in groups; :func:`run_redundancy_pass` flattens them, the
    kernel's one caller.

    Attributes
    ----------
    selected : tuple
        The selected set, updated in place: (R, units, ids, m): the correlations of its
        members and the class, their unit columns, their arrival positions, and how many
        there are (the arrays' rows are the capacity).
    block : tuple
        The block's relevant features: (block_units, corr, arrival).
    first : int
        The block's first feature still to do.
    test : tuple
        (fast, max_k, n, cutoff): Fast-OSFS's rule, the largest conditioning set, the
        number of samples and the Fisher z test's cutoff.
    outputs : tuple
        (outcomes, sizes, given, removals), written per feature.
    n_removals : int
        Rows of ``removals`` already written.
    """

    selected: tuple
    block: tuple
    first: int
    test: tuple
    outputs: tuple
    n_removals: int


def run_redundancy_pass(family, call: RedundancyPass) -> tuple[int, int, int]:
    """Call ``family``'s :func:`_osfs_kernels.add_features` on ``call``: the one place its
    arguments are flattened.

    Returns
    -------
    (int, int, int)
        The next feature to do, the selected set's size, the rows of removals written.
    """
    return family.add_features(
        *call.selected, *call.block, call.first, *call.test, *call.outputs, call.n_removals
    )


@dataclass(frozen=True, slots=True)
class OSFSEvent(StreamEvent):
    """One OSFS or Fast-OSFS step.

    ``action``: "zero-sum" (reference variant: skipped untested, the column sums to exactly
    0, the code's sparse-data check), "irrelevant" (independent of the class by Fisher's z
    test, or its correlation is undefined: a constant column), "redundant" (relevant, but a
    subset of the selected features, ``given``, makes it independent of the class: Fast-OSFS
    rejects it before it joins; OSFS adds it, lets it remove others, and removes it at the
    end of its own redundancy pass) or "added" (in the selected set after the step). ``score``
    is ``|corr(feature, class)|`` (NaN when skipped or undefined); ``selected_score`` is the
    mean ``|corr(., class)|`` of the selected set (0 when empty).

    Attributes
    ----------
    statistic : float
        Fisher's z statistic W of the feature against the class (NaN when skipped).
    threshold : float
        The cutoff on ``|W|``: independent when ``|W|`` < threshold.
    given : tuple of str
        The conditioning set that made a redundant feature independent of the class, in
        the toolbox's order (empty otherwise).
    given_correlation : float
        ``|partial correlation|`` of the feature and the class given ``given`` (NaN when it
        is undefined, a singular set or an exact copy, and when not redundant).
    removed : tuple of str
        Features removed from the selected set at this step, in order (OSFS: the feature
        itself last when it is redundant).
    removed_given : tuple of str
        For each removal, the conditioning set that made that feature independent of the
        class, its features' names joined by "|".
    removed_correlation : tuple of float
        For each removal, the ``|partial correlation|`` given that set (NaN: undefined).
    """

    statistic: float = math.nan
    threshold: float = math.nan
    given: tuple[str, ...] = ()
    given_correlation: float = math.nan
    removed: tuple[str, ...] = ()
    removed_given: tuple[str, ...] = ()
    removed_correlation: tuple[float, ...] = ()


def _parameters(code: str) -> dict:
    return {
        "alpha": Real(
            0.01,
            "significance level of the (conditional) independence tests: a smaller alpha "
            "asks for stronger evidence that a gene is related to the class",
            label="Significance level",
            source=f"{code} (alpha = 0.01 in the LOFS manual and the K-OFSD paper)",
            low=0.0,
            high=1.0,
            low_open=True,
            high_open=True,
            step=0.005,
        ),
        "max_conditioning": Int(
            3,
            "largest number of selected genes a gene is tested against at once: a gene "
            "goes when some group of at most this many makes it uninformative; larger "
            "groups remove more and take much longer",
            label="Largest conditioning set",
            source=f"{code} (max_k = 3, hard-coded in the call to compter_dep_2); the paper "
            "searches every subset",
            low=1,
            high=MAX_CONDITIONING,
        ),
        "variant": Choice(
            "reference",
            "the authors' code, or the algorithm as printed in the paper",
            label="Variant",
            source=f"{code} / TPAMI 2013, Algorithms 1 and 2",
            choices={
                "reference": "the authors' code (default): a column whose values sum to "
                "exactly 0 is skipped untested",
                "paper": "the printed algorithm: every column is tested",
            },
        ),
    }


class OSFS(StreamingSelector):
    """OSFS with Fisher's z test as an online selector: one feature in, one event out.

    Parameters
    ----------
    alpha : float, default 0.01
        Significance level of Fisher's z test (``osfs_z(data, class_index, 0.01)``).
    max_conditioning : int, default 3
        Largest conditioning set of a redundancy test (``max_k = 3`` in the code).
    variant : {"reference", "paper"}, default "reference"
        "reference" is the authors' code; "paper" tests every column (see Notes).

    Notes
    -----
    As the authors' code (``osfs_z.m``, ``compter_dep_2.m``):

    * features arrive in stream order; in the reference variant a column that sums to
      exactly 0 (Octave's in-order sum) is skipped untested, even when informative (the
      paper has no such check: variant "paper");
    * relevance: Fisher's z test of corr(f, class); independent iff ``|W| < cutoff``
      (strict), ``W = sqrt(n - ``|S|`` - 3) atanh(r)``; an undefined r counts as independence;
    * a relevant feature is appended, then every selected feature f, in list order, the new
      one last, is tested given every subset of the others (those removed earlier in the
      pass are gone) of size 1, then 2, ... up to ``max_conditioning`` (the paper: every
      subset), lexicographic within a size, and removed at the first independence;
    * a conditioning set that is singular (exact copies) or of which the tested feature is a
      linear function (an exact copy) gives an undefined r: independent
      (:mod:`fsengine.methods.online._statistical._osfs_kernels`).

    The selection is in stream order; scores are ``|corr(f, class)|``.
    """

    kernel_families = (OSFS_KERNELS,)

    spec = MethodSpec(
        name="osfs",
        label="OSFS",
        kind=ONLINE,
        citation="Wu, Yu, Ding, Wang, Zhu. Online feature selection with streaming features. "
        "IEEE Transactions on Pattern Analysis and Machine Intelligence 35(5) (2013) "
        "1178-1192; code: LOFS toolbox (kuiy/LOFS), osfs_z.m",
        score="|correlation of the feature with the class|",
        set_score="mean |correlation with the class| of S",
        parameters=_parameters("osfs_z.m"),
        actions={
            ZERO_SUM: "skipped untested: the values sum to exactly 0 (the code's sparse-data "
            "check)",
            IRRELEVANT: "not significantly correlated with the class (or constant)",
            REDUNDANT: "selected, then removed: some of the other selected genes make it "
            "uninformative about the class",
            ADDED: "selected (it may have made earlier ones redundant)",
        },
        action_codes={ZERO_SUM: 0, IRRELEVANT: 1, REDUNDANT: 3, ADDED: 3},
        event=OSFSEvent,
    )

    #: Fast-OSFS tests a relevant feature against the selected set before adding it.
    _fast = False

    def _start(self) -> None:
        p = self._params
        self.alpha = p["alpha"]
        self.max_conditioning = p["max_conditioning"]
        self.variant = p["variant"]
        self.cutoff = fisher_z_cutoff(self.alpha)
        self._n = len(self.y)
        rows = 16
        self._R = np.zeros((rows + 1, rows + 1))
        yc = self.y - float(np.sum(self.y)) / self._n  # the class's unit centred column
        y_unit = yc / np.sqrt(sequential_sum(yc**2))
        self._R[0, 0] = float(y_unit @ y_unit)  # 1 to rounding, as the features' diagonal
        self._units = np.empty((rows, self._n))
        self._ids = np.empty(rows, dtype=np.int64)
        self._m = 0
        self._info: dict[int, tuple[str, int, float]] = {}  # position -> name, column, dep
        self._set_score = 0.0

    # ------------------------------------------------------------------ the rule
    def _relevance(self, block: np.ndarray):
        """Per column: skipped (sum exactly 0), corr with the class, ``|W|``, relevant, units."""
        corr, units = pearson_with(block, self.y)
        if self.variant == "reference":
            zero_sum = sequential_sum(block) == 0
        else:
            zero_sum = np.zeros(block.shape[1], dtype=bool)
        df = self._n - 3
        with np.errstate(divide="ignore", invalid="ignore"):
            z = 0.5 * np.log((1.0 + corr) / (1.0 - corr))
            z = np.where(np.abs(corr) >= 1.0, np.copysign(np.inf, corr), z)
            statistic = math.sqrt(abs(df)) * z if df != 0 else 0.0 * z
        # independent: r NaN or |W| < cutoff (a NaN W with a finite r is dependent)
        independent = np.isnan(corr) | (np.abs(statistic) < self.cutoff)
        relevant = ~zero_sum & ~independent
        statistic = np.where(zero_sum, np.nan, statistic)
        return zero_sum, corr, statistic, relevant, units

    def _reserve(self, rows: int) -> None:
        """Room for ``rows`` selected features in the state arrays."""
        old = len(self._ids)
        if rows <= old:
            return
        rows = max(rows, 2 * old)
        R = np.zeros((rows + 1, rows + 1))
        R[: old + 1, : old + 1] = self._R
        units = np.empty((rows, self._n))
        units[:old] = self._units
        ids = np.empty(rows, dtype=np.int64)
        ids[:old] = self._ids
        self._R, self._units, self._ids = R, units, ids

    def _analyse(self, units: np.ndarray, corr: np.ndarray, arrival: np.ndarray):
        """The redundancy analysis of the relevant features of a block, in order (compiled,
        :func:`_osfs_kernels.add_features`; the state arrays grow between calls).

        Returns per feature the outcome code and the set that made it redundant (arrival
        positions, then its r), and the removals: (feature index, removed position, set, r).
        """
        family = kernels.load(OSFS_KERNELS)

        k, count = self.max_conditioning, len(corr)
        outcomes = np.empty(count, dtype=np.int64)
        sizes = np.empty(count, dtype=np.int64)
        given = np.empty((count, k + 1))
        removals = np.empty((self._m + count, k + 3))
        done = n_removals = 0
        while done < count:
            self._reserve(self._m + 1)
            done, self._m, n_removals = run_redundancy_pass(
                family,
                RedundancyPass(
                    selected=(self._R, self._units, self._ids, self._m),
                    block=(units, corr, arrival),
                    first=done,
                    test=(self._fast, k, self._n, self.cutoff),
                    outputs=(outcomes, sizes, given, removals),
                    n_removals=n_removals,
                ),
            )
        return outcomes, given, removals[:n_removals]

    def _run(self, block, names, columns, events: bool):
        """Apply the rule to a block, in arrival order.

        Returns the zero-sum mask, corr with the class, W, and (with ``events``) per
        relevant block index: (outcome, the set that made it redundant, its ``|r|``, the
        removed features, their sets, their ``|r|``, the selected set after the step).
        """
        first = self.n_seen
        zero_sum, corr, statistic, relevant, units = self._relevance(block)
        todo = np.flatnonzero(relevant)
        steps: dict[int, tuple] = {}
        self.n_seen = first + block.shape[1]
        if not len(todo):
            return zero_sum, corr, statistic, steps
        outcomes, given, removals = self._analyse(
            np.ascontiguousarray(units[:, todo].T),
            np.ascontiguousarray(corr[todo]),
            (first + todo).astype(np.int64),
        )
        k = self.max_conditioning
        by_feature: dict[int, list] = {}
        for row in removals.tolist():
            s = tuple(int(g) for g in row[2 : k + 2] if g >= 0)
            by_feature.setdefault(int(row[0]), []).append((int(row[1]), s, row[k + 2]))
        info = self._info
        current = list(info) if events else []  # positions in list order
        for i, j in enumerate(todo.tolist()):
            position = first + j
            info[position] = (names[j], columns[j], abs(float(corr[j])))
            removed = by_feature.get(i, [])
            if events:
                name = [info[q][0] for q, _, _ in removed]
                sets = ["|".join(info[g][0] for g in s) for _, s, _ in removed]
                given_set = tuple(info[int(g)][0] for g in given[i, :k] if g >= 0)
                if outcomes[i] != OSFS_REDUNDANT_BEFORE:
                    current.append(position)
                for q, _, _ in removed:
                    current.remove(q)
                chosen = [info[q] for q in current]
                score = sum(c[2] for c in chosen) / len(chosen) if chosen else 0.0
                steps[j] = (
                    int(outcomes[i]),
                    given_set,
                    abs(float(given[i, k])),
                    tuple(name),
                    tuple(sets),
                    tuple(abs(r) for _, _, r in removed),
                    (tuple(c[0] for c in chosen), tuple(c[1] for c in chosen), score),
                )
            for q, _, _ in removed:
                del info[q]
            if outcomes[i] == OSFS_REDUNDANT_BEFORE:
                del info[position]
        self._publish()
        return zero_sum, corr, statistic, steps

    def _publish(self) -> None:
        """The selected set after a step, from the state arrays."""
        current = [self._info[int(q)] for q in self._ids[: self._m]]
        self._set_selected([c[0] for c in current], [c[1] for c in current])
        self._set_score = sum(c[2] for c in current) / len(current) if current else 0.0

    # ------------------------------------------------------------------ stream
    def _step_block(self, block, names, columns) -> list[OSFSEvent]:
        first = self.n_seen
        after = (self._selected_names, self._selected_columns, self._set_score)
        zero_sum, corr, statistic, steps = self._run(block, names, columns, events=True)
        events = []
        for j in range(block.shape[1]):
            given, given_r, removed, removed_given, removed_r = (), math.nan, (), (), ()
            score = math.nan if zero_sum[j] else float(abs(corr[j]))
            action = ZERO_SUM if zero_sum[j] else IRRELEVANT
            if j in steps:
                outcome, given, given_r, removed, removed_given, removed_r, after = steps[j]
                action = ADDED if outcome == OSFS_ADDED else REDUNDANT
            events.append(
                OSFSEvent(
                    first + j,
                    names[j],
                    columns[j],
                    score,
                    action,
                    after[0],
                    after[1],
                    after[2],
                    float(statistic[j]),
                    self.cutoff,
                    given,
                    given_r,
                    removed,
                    removed_given,
                    removed_r,
                )
            )
        return events

    def _step_block_quiet(self, block, names, columns) -> None:
        """:meth:`_step_block` without events (the same decisions)."""
        self._run(block, names, columns, events=False)

    def finish(self) -> Selection:
        """The selected features in stream order; scores are ``|corr(f, class)|``."""
        current = [self._info[int(q)] for q in self._ids[: self._m]]
        return Selection(
            self.method,
            tuple(c[0] for c in current),
            tuple(c[1] for c in current),
            tuple(c[2] for c in current),
            "stream order",
        )


class FastOSFS(OSFS):
    """Fast-OSFS with Fisher's z test as an online selector: one feature in, one event out.

    Parameters
    ----------
    alpha : float, default 0.01
        Significance level of Fisher's z test (``fast_osfs_z(data, class_index, 0.01)``).
    max_conditioning : int, default 3
        Largest conditioning set of a redundancy test (``max_k = 3`` in the code).
    variant : {"reference", "paper"}, default "reference"
        "reference" is the authors' code; "paper" tests every column (see Notes).

    Notes
    -----
    As the authors' code (``fast_osfs_z.m``, ``compter_dep_2.m``,
    ``optimal_compter_dep_2.m``), with OSFS's relevance step and zero-sum skip (:class:`OSFS`):

    * a relevant feature is first tested given every subset of the selected set (size 1 up
      to ``max_conditioning``, lexicographic within a size) and rejected, "redundant", at
      the first independence;
    * otherwise it is appended and every older selected feature f, in list order, is tested
      given only the subsets of the others that contain the new feature ({new}, {b1, new},
      {b2, new}, ..., {b1, b2, new}, ...) and removed at the first independence;
    * the code then re-tests the new feature given the subsets of the others that contain
      the last surviving older one, a step the paper does not have; every such subset was
      already tested in the first phase, so it never removes the feature and is skipped
      here (the same decisions).
    """

    spec = MethodSpec(
        name="fast-osfs",
        label="Fast-OSFS",
        kind=ONLINE,
        citation="Wu, Yu, Ding, Wang, Zhu. Online feature selection with streaming features. "
        "IEEE Transactions on Pattern Analysis and Machine Intelligence 35(5) (2013) "
        "1178-1192; code: LOFS toolbox (kuiy/LOFS), fast_osfs_z.m",
        score="|correlation of the feature with the class|",
        set_score="mean |correlation with the class| of S",
        parameters=_parameters("fast_osfs_z.m"),
        actions={
            ZERO_SUM: "skipped untested: the values sum to exactly 0 (the code's sparse-data "
            "check)",
            IRRELEVANT: "not significantly correlated with the class (or constant)",
            REDUNDANT: "not selected: some of the selected genes make it uninformative about "
            "the class",
            ADDED: "selected (it may have made earlier ones redundant)",
        },
        action_codes={ZERO_SUM: 0, IRRELEVANT: 1, REDUNDANT: 2, ADDED: 3},
        event=OSFSEvent,
    )

    _fast = True
