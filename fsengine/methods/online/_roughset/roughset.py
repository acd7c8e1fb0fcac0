"""The rough-set dependency models of SFSF and OSFS-ET, and their shared redundancy pass.

Zhou, Zhang, Li, Wu, "General assembly framework for online streaming feature selection via
Rough Set models" (Expert Systems with Applications 204, 2022; code ``SFSF_C.m``,
``SFSF_F.m``, ``SFSF_NK.m``, ``SFSF_NR.m``) and Zhou, Li, Zhao, Zhang, "Online early
terminated streaming feature selection based on Rough Set theory" (Applied Soft Computing
113, 2021; ``OSFS_ET_c.m``), doodzhou/OSFS. Each measures a feature set B by its dependency
degree gamma_B(D) = CARD(POS_B(D)) / n (Definition 1 / eq. 3), with one of four models,
computed exactly as the authors' code computes it in GNU Octave:

* classical (``SFSF_C``, ``dep_an``/``RS_appr``): samples with equal values on B form a
  block; a sample is in the positive region when its block holds one class;
  dependency = |POS| / n;
* fuzzy (``SFSF_F``, ``depDegree``): per feature the similarity
  ``1 - |a(x) - a(y)| / |a_max - a_min|`` (1 for a constant feature), on a set the minimum
  over its features; a sample's lower approximation is the minimum of ``1 - similarity``
  over the samples of the other class; dependency = their sum (in sample order) / n;
* k-nearest (``SFSF_NK``, ``OSFS_ET_c``, ``dep_K``): the standardised Euclidean distance
  of ``pdist(X_B, 'seuclidean')``; a sample's card is the share of the first K samples of
  its stable-sorted distance column (itself, or an equal sample of lower index, first) that
  share its label; dependency = the cards added in sample order / n;
* radius (``SFSF_NR``, ``dep_R``): the same distance; a sample's neighbours are the samples
  at distance ``d <= R * max(d, 1)`` (the code's ``max(sets, 1)`` is an element-wise
  maximum: for R < 1 this is ``d <= R``, a fixed radius, not a share of the largest
  distance); card = the share of its neighbours (itself included) that share its label.

The redundancy pass (``non_signf``) visits members in Octave's ``randperm`` order and removes
those whose significance ``dep(R) - dep(R - f)`` passes the method's test.

A model keeps what the selected set S needs between tests (its partition, its fuzzy matrix,
the prefix sums of its squared distances), so that ``dep(S + f)`` costs one feature's work;
the compiled kernels are in :mod:`._roughset_kernels`.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod

import numpy as np

from fsengine._compute import kernels
from fsengine._compute.discretise import discretise
from fsengine._compute.parallel import run_chunks
from fsengine._compute.sparse import nonzero_order
from fsengine.methods.online._codes import ROUGHSET_KNN, ROUGHSET_RADIUS, ZHOU_BELOW_FLOOR
from fsengine.methods.online._information.cieosfs import refine
from fsengine.methods.online._roughset.a3m_density import DEPENDENCY_KERNELS
from fsengine.methods.online._roughset.kofsd.neighbours import feature_weights
from fsengine.methods.online._roughset.set_dependency import (
    SetDependencyCall,
    set_dependency,
    set_dependency_sorted,
    set_dependency_without,
)
from fsengine.methods.online._tie_average import (
    AveragedSet,
    NeighbourRule,
    invariant_weights,
    single_dependencies,
)

CLASSICAL, FUZZY, K_NEAREST, RADIUS = "classical", "fuzzy", "k-nearest", "radius"
MODELS = (CLASSICAL, FUZZY, K_NEAREST, RADIUS)
#: The compiled dependency models.
ROUGHSET_KERNELS = "methods.online._roughset._roughset_kernels"


def in_order_sum(values) -> float:
    """``total = total + v`` from 0, in order (Octave's ``sum`` and the codes' loops);
    ``np.cumsum`` adds strictly left to right."""
    values = np.asarray(values, dtype=float)
    return float(np.cumsum(values)[-1]) if values.size else 0.0


def octave_round(x: float, digits: int) -> float:
    """MATLAB's ``round(x, digits)`` as ``round(x * 10^digits) / 10^digits`` with C's
    ``round`` (half away from zero): the Octave stand-in of the reference runs
    (tests/reference/roughset_octave/octave_compat/round.m)."""
    scale = 10.0**digits
    v = x * scale
    r = math.trunc(v)
    if abs(v - r) >= 0.5:
        r += 1 if v > 0 else -1
    return r / scale


class Member:
    """A feature held by a selector: name, column, arrival position, single-feature
    dependency (or the score it joined with), its values and the model's data for it
    (computed when the feature is first measured with others)."""

    __slots__ = ("name", "column", "position", "dependency", "values", "data")

    def __init__(self, name, column, position, dependency, values):
        self.name = name
        self.column = column
        self.position = position
        self.dependency = dependency
        self.values = values
        self.data = None


#: Returned by :meth:`DependencyModel.dependency` when the dependency cannot reach the floor.
BELOW_FLOOR = ZHOU_BELOW_FLOOR


def _columnwise(kernel, block: np.ndarray, *args) -> np.ndarray:
    """``kernel(block, order, *args, lo, hi, out)`` over the columns of ``block``, shared
    among the kernel threads (:func:`fsengine._compute.parallel.run_chunks`); ``order`` is the
    stable argsort of each column. Returns ``out`` (b,)."""
    block = np.ascontiguousarray(block)
    n, b = block.shape
    order = np.empty(block.shape, dtype=np.int64)
    out = np.empty(b)

    def chunk(lo, hi):
        order[:, lo:hi] = np.argsort(block[:, lo:hi], axis=0, kind="stable")
        kernel(block, order, *args, lo, hi, out)

    run_chunks(chunk, b, min_chunk=max(1, 20000 // max(n, 1)))
    return out


def _common_prefix(members, selected) -> int:
    """How many of ``members`` are, in order, the first members of ``selected``."""
    p = 0
    while p < len(members) and p < len(selected) and members[p] is selected[p]:
        p += 1
    return p


class DependencyModel(ABC):
    """One rough-set model's dependency degree of feature sets on the 0/1 labels ``y``.

    The model knows the selected set S (:meth:`select`) and measures any list of members
    (:meth:`dependency`); sets that start with S's members reuse S's state.

    Parameters
    ----------
    y : ndarray of {0, 1}
    label : str
        The method's display name, for errors.
    """

    def __init__(self, y: np.ndarray, label: str):
        self.y = np.ascontiguousarray(y, dtype=np.int64)
        self.n = len(self.y)
        self.label = label
        self.selected: list[Member] = []

    @property
    def _kern(self):
        return kernels.load(ROUGHSET_KERNELS)

    @abstractmethod
    def singles(self, block: np.ndarray, datas: list | None = None) -> np.ndarray:
        """The dependency of each column of ``block`` (n, b) alone (``datas``: its
        :meth:`column_data`, when the caller has it)."""

    @abstractmethod
    def _data(self, values: np.ndarray):
        """The model's data for one feature."""

    def column_data(self, block: np.ndarray) -> list | None:
        """The model's data for every column of ``block``, when it is cheap for a block
        (else None: it is computed for a feature when first needed)."""
        return None

    def _ready(self, members) -> None:
        for m in members:
            if m.data is None:
                m.data = self._data(m.values)

    def select(self, members: list) -> None:
        """``members`` (in arrival order) are now the selected set S."""
        self._ready(members)
        self.selected = list(members)

    @abstractmethod
    def dependency(self, members: list, floor: float = -math.inf) -> float:
        """The dependency of ``members`` (in arrival order), as the code computes it.

        ``floor``: only whether it reaches ``floor`` matters; when it cannot,
        :data:`BELOW_FLOOR` (negative) may be returned instead.

        The empty set (the redundancy check measures it when every member but the last
        was removed) is where the fuzzy, k-nearest and radius codes stop in Octave
        (``pdist`` of an n x 0 matrix; ``index(1)`` of an empty list). Here it is measured
        with every sample indiscernible from every other: all distances 0 (k-nearest: the
        K samples of lowest index; radius: every sample), similarity 1 (fuzzy: dependency
        0); the classical code itself computes 0 (one block holding both classes)."""

    def dependency_with(self, new: Member, floor: float = -math.inf) -> float:
        """The dependency of S followed by ``new`` (as :meth:`dependency`)."""
        return self.dependency(self.selected + [new], floor)

    def redundancy(self, members, visited, removable, early=False):
        """The loop of ``non_signf`` over R = ``members`` (S, or S followed by a new
        feature): each of ``visited`` in turn leaves R when ``removable(dep(R),
        dep(R - f))``. With ``early``, a dependency that cannot reach ``dep(R)`` (removal
        needs ``dep(R - f) >= dep(R)``) may stop early and is reported as NaN.

        Returns (kept members, dependency without each visited, removed members)."""
        kept = list(members)
        dep_kept = None
        without, removed = [], []
        for f in visited:
            if dep_kept is None:
                dep_kept = self.dependency(kept)
            rest = [m for m in kept if m is not f]
            dep_f = self.dependency(rest, dep_kept if early else -math.inf)
            without.append(dep_f if dep_f >= 0 else math.nan)
            if dep_f >= 0 and removable(dep_kept, dep_f):
                kept, dep_kept = rest, dep_f
                removed.append(f)
        return kept, without, removed


class ClassicalModel(DependencyModel):
    """Classical rough set (``SFSF_C.m``) on the values as given (``bins`` = 0) or on
    ``bins`` equal-width bins per feature (the paper's experiments: 5)."""

    def __init__(self, y, label, bins: int):
        super().__init__(y, label)
        self.bins = bins
        self._partition = np.zeros(self.n, dtype=np.int64)

    def _codes(self, block: np.ndarray) -> np.ndarray:
        """(n, b) integer codes: equal values, equal codes (and nothing else)."""
        if self.bins:
            return discretise(block, self.bins, "uniform")
        order = np.argsort(block, axis=0, kind="stable")
        ranked = np.take_along_axis(block, order, axis=0)
        starts = np.vstack([np.ones((1, block.shape[1]), bool), ranked[1:] != ranked[:-1]])
        codes = np.empty(block.shape, dtype=np.int64)
        np.put_along_axis(codes, order, np.cumsum(starts, axis=0) - 1, axis=0)
        return codes

    def singles(self, block, datas=None):
        codes = self._codes(block)
        n, b = codes.shape
        flat = (codes + np.arange(b) * n).ravel(order="F")  # one code range per column
        total = np.bincount(flat, minlength=n * b)
        ones = np.bincount(flat, weights=np.tile(self.y, b), minlength=n * b)
        pure = (ones == 0) | (ones == total)
        return pure[flat].reshape(b, n).sum(axis=1) / n

    def _data(self, values):
        return self._codes(values[:, None])[:, 0]

    def column_data(self, block):
        codes = self._codes(block)
        return [np.ascontiguousarray(codes[:, j]) for j in range(block.shape[1])]

    def select(self, members):
        partition = self._partition_of(members)
        super().select(members)
        self._partition = partition

    def _partition_of(self, members) -> np.ndarray:
        self._ready(members)
        p = _common_prefix(members, self.selected)
        partition = self._partition if p == len(self.selected) else None
        if partition is None:
            p = 0
            partition = np.zeros(self.n, dtype=np.int64)
        for m in members[p:]:
            partition = refine(partition, m.data)
        return partition

    def dependency(self, members, floor=-math.inf):
        partition = self._partition_of(members)
        m = int(partition.max()) + 1
        total = np.bincount(partition, minlength=m)
        ones = np.bincount(partition, weights=self.y, minlength=m)
        pure = (ones == 0) | (ones == total)
        return int(total[pure].sum()) / self.n


class FuzzyModel(DependencyModel):
    """Fuzzy rough set (``SFSF_F.m``): a feature's data is the matrix ``1 - similarity``
    between the minority samples (rows) and the others (columns); a set's is the
    element-wise maximum (``1 - min`` of the similarities), kept for S."""

    def __init__(self, y, label):
        super().__init__(y, label)
        self.rows = np.flatnonzero(self.y == 1)
        self.cols = np.flatnonzero(self.y == 0)
        self._matrix = np.zeros((len(self.rows), len(self.cols)))  # the empty set's

    def singles(self, block, datas=None):
        return _columnwise(self._kern.fuzzy_singles, block, self.y)

    def _data(self, values):
        interval = abs(values.max() - values.min())
        if not interval > 0:
            return np.zeros((len(self.rows), len(self.cols)))
        diff = np.abs(values[self.rows][:, None] - values[self.cols][None, :])
        return 1.0 - (1.0 - diff / interval)

    def select(self, members):
        matrix = self._matrix_of(members)
        super().select(members)
        self._matrix = matrix

    def _matrix_of(self, members) -> np.ndarray:
        self._ready(members)
        p = _common_prefix(members, self.selected)
        if p == len(self.selected):
            m = self._matrix
        else:
            p, m = 0, np.zeros((len(self.rows), len(self.cols)))
        for f in members[p:]:
            m = np.maximum(m, f.data)
        return m

    def dependency(self, members, floor=-math.inf):
        m = self._matrix_of(members)
        low = np.empty(self.n)
        low[self.rows] = m.min(axis=1)
        low[self.cols] = m.min(axis=0)
        return in_order_sum(low) / self.n


#: N x N matrices a distance model keeps: S's squared distances as prefix sums (4), and
#: S's rows sorted (values and indices).
DISTANCE_MATRICES = 6


class _DistanceModel(DependencyModel):
    """What the k-nearest and radius models share: ``pdist(X_B, 'seuclidean')``, with S's
    squared distances kept as prefix sums (``prefix[k]``: the first k members). A feature's
    data is its weight ``1 / var`` (inf for a constant feature): a set holding one has every
    distance between two samples NaN, as in Octave, also a set of constant features alone,
    where Octave stops ('inverse of the null matrix not defined') and a stream here goes on."""

    rule: int
    k = 1
    radius = 0.0

    def __init__(self, y, label):
        super().__init__(y, label)
        self._prefix = np.zeros((4, self.n, self.n))
        self._rows = np.arange(self.n)
        self._cards = np.empty(self.n)
        # S's rows sorted (when S is not empty and has no constant feature), for S + f
        self._sorted_values = np.empty((self.n, self.n))
        self._sorted_index = np.empty((self.n, self.n), dtype=np.int64)
        self._sorted = False

    def _data(self, values):
        return float(feature_weights(values[:, None])[0])

    def column_data(self, block):
        return feature_weights(block).tolist()

    @staticmethod
    def _weights(block, datas) -> np.ndarray:
        return feature_weights(block) if datas is None else np.array(datas, dtype=float)

    def select(self, members):
        self._ready(members)
        keep = _common_prefix(members, self.selected)
        if len(members) + 1 > len(self._prefix):
            grown = np.zeros((2 * len(members) + 1, self.n, self.n))
            grown[: keep + 1] = self._prefix[: keep + 1]
            self._prefix = grown
        add_terms = kernels.load(DEPENDENCY_KERNELS).add_terms
        for j in range(keep, len(members)):
            m = members[j]
            add_terms(self._prefix[j + 1], self._prefix[j], m.values, m.data)
        changed = keep < len(members) or len(members) < len(self.selected)
        self.selected = list(members)
        if changed:
            self._sorted = bool(members) and all(math.isfinite(m.data) for m in members)
            if self._sorted:
                self._kern.sort_rows(
                    self._prefix[len(members)], self._sorted_values, self._sorted_index
                )

    def _call(self, columns, floor, running=()) -> SetDependencyCall:
        """A set-dependency call on ``columns`` under this model's rule
        (:class:`.set_dependency.SetDependencyCall`)."""
        neighbourhood = (self.y, self.rule, self.k, self.radius)
        return SetDependencyCall(columns, neighbourhood, floor, (self._rows, self._cards), running)

    def _parts(self, members):
        """(base, extra, weights): ``members``' squared distances are the prefix sums of the
        S members they start with plus the terms of the columns ``extra``, in order."""
        p = _common_prefix(members, self.selected)
        rest = members[p:]
        if rest:
            extra = np.ascontiguousarray(np.vstack([m.values for m in rest]), dtype=float)
        else:
            extra = np.empty((0, self.n))
        return self._prefix[p], extra, np.array([m.data for m in rest], dtype=float)

    def dependency(self, members, floor=-math.inf):
        self._ready(members)
        return set_dependency(self._kern, self._call(self._parts(members), floor))

    def dependency_with(self, new, floor=-math.inf):
        self._ready([new])
        base = self._prefix[len(self.selected)]
        if self._sorted and math.isfinite(new.data):
            sorted_columns = (base, self._sorted_values, self._sorted_index, new.values, new.data)
            return set_dependency_sorted(self._kern, self._call(sorted_columns, floor))
        columns = (base, new.values[None, :], np.array([new.data]))
        return set_dependency(self._kern, self._call(columns, floor))

    def redundancy(self, members, visited, removable, early=False):
        """As :meth:`DependencyModel.redundancy`, each ``dep(R - f)`` from running sums of
        R's squared distances minus f's terms where that decides every card
        (:func:`._roughset_kernels.set_dependency_without`), exactly otherwise."""
        self._ready(members)
        s = len(self.selected)
        if (
            members[:s] != self.selected
            or len(members) > s + 1
            or not all(math.isfinite(m.data) for m in members)
        ):
            return super().redundancy(members, visited, removable, early)
        zhou = kernels.load(DEPENDENCY_KERNELS)
        full = self._prefix[s].copy()
        if len(members) > s:
            new = members[-1]
            zhou.add_terms(full, self._prefix[s], new.values, new.data)
        scale = full.max(axis=1)
        n_ops = 2 * len(members) + 4
        kept = list(members)
        dep_kept = self.dependency(kept)
        without, removed = [], []
        for f in visited:
            rest = [m for m in kept if m is not f]
            running = (full, scale, f.values, f.data, n_ops)
            call = self._call(self._parts(rest), dep_kept if early else -math.inf, running)
            dep_f = set_dependency_without(self._kern, call)
            without.append(dep_f if dep_f >= 0 else math.nan)
            if dep_f >= 0 and removable(dep_kept, dep_f):
                kept, dep_kept = rest, dep_f
                removed.append(f)
                zhou.subtract_terms(full, f.values, f.data)
                n_ops += 1
        return kept, without, removed


class KNearestModel(_DistanceModel):
    """k-nearest neighbourhood (``SFSF_NK.m``, ``OSFS_ET_c.m``: ``dep_K``/``card_K``)."""

    rule = ROUGHSET_KNN

    def __init__(self, y, label, k: int):
        super().__init__(y, label)
        self.k = k

    def singles(self, block, datas=None):
        weights = self._weights(block, datas)
        return _columnwise(self._kern.knn_singles, block, weights, self.y, self.k)


class AveragedKNearestModel(DependencyModel):
    """The k-nearest model under ``ties="average"``: each sample's card is its expected
    share of same-label samples among the first K of its list over every order of the
    tied samples (:mod:`fsengine.methods.online._tie_average`), so a dependency is the same for
    any order of the rows. The same distances as :class:`KNearestModel` (weights
    :func:`~fsengine.methods.online._tie_average.invariant_weights`); S is kept as its points."""

    def __init__(self, y, label, k: int):
        super().__init__(y, label)
        self.k = k
        self.rule = NeighbourRule.k_nearest(k)
        self._set = AveragedSet(self.y, self.rule)

    def _data(self, values):
        return float(invariant_weights(values[:, None])[0])

    def column_data(self, block):
        return invariant_weights(block).tolist()

    def singles(self, block, datas=None):
        order = nonzero_order(block)
        weights = (
            invariant_weights(block, order=order) if datas is None else np.array(datas, dtype=float)
        )
        return single_dependencies(block, self.y, weights, self.rule, order)[0]

    def select(self, members):
        self._set = self._set_of(members)
        super().select(members)

    def _set_of(self, members) -> AveragedSet:
        """The points of ``members`` (in arrival order), from S's when they start with S."""
        self._ready(members)
        p = _common_prefix(members, self.selected)
        if p == len(self.selected):
            points = self._set.copy()
        else:
            p, points = 0, AveragedSet(self.y, self.rule)
        for m in members[p:]:
            points.add(m.values, m.data)
        return points

    def dependency(self, members, floor=-math.inf):
        if not members:
            return self._set_of([]).dependency()[0]
        last = members[-1]
        points = self._set_of(members[:-1])
        found = points.dependency_with(last.values, last.data, floor)[0]
        return BELOW_FLOOR if math.isnan(found) else found


class RadiusModel(_DistanceModel):
    """Neighbourhood radius (``SFSF_NR.m``: ``dep_R``/``card_R``)."""

    rule = ROUGHSET_RADIUS

    def __init__(self, y, label, radius: float):
        super().__init__(y, label)
        self.radius = radius

    def singles(self, block, datas=None):
        weights = self._weights(block, datas)
        return _columnwise(self._kern.radius_singles, block, weights, self.y, self.radius)


def non_signf(model, members, candidates, rng, removable, early=False):
    """The redundancy pass ``non_signf``: R = ``members``; the ``candidates`` (members, in
    arrival order) are visited in the order ``candidates(randperm(|candidates|))``; a
    candidate f leaves R when ``removable(dep(R), dep(R - f))``
    (:meth:`DependencyModel.redundancy`).

    Returns (kept members, visited candidates, dependency without each, removed)."""
    visited = [candidates[k] for k in rng.randperm(len(candidates))]
    kept, without, removed = model.redundancy(members, visited, removable, early)
    return kept, visited, without, removed


def selected_mean(members) -> float:
    """``sum(depArray(mode == 1)) / sum(mode)``: the members' single dependencies added in
    arrival order over their number (NaN for none, as 0/0 in Octave)."""
    if not members:
        return math.nan
    return in_order_sum([m.dependency for m in members]) / len(members)
