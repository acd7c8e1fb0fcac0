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
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod

import numpy as np

from fsengine.discretise import discretise
from fsengine.errors import FSEngineError
from fsengine.online._cieosfs.selector import refine
from fsengine.online._kofsd.neighbours import feature_weights

CLASSICAL, FUZZY, K_NEAREST, RADIUS = "classical", "fuzzy", "k-nearest", "radius"
MODELS = (CLASSICAL, FUZZY, K_NEAREST, RADIUS)


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
    dependency (or the score it joined with) and the model's data for it."""

    __slots__ = ("name", "column", "position", "dependency", "data")

    def __init__(self, name, column, position, dependency, data):
        self.name = name
        self.column = column
        self.position = position
        self.dependency = dependency
        self.data = data


class DependencyModel(ABC):
    """One rough-set model's dependency degree of feature sets on the 0/1 labels ``y``.

    Parameters
    ----------
    y : ndarray of {0, 1}
    label : str
        The method's display name, for errors.
    """

    def __init__(self, y: np.ndarray, label: str):
        self.y = np.asarray(y, dtype=np.int64)
        self.n = len(self.y)
        self.label = label

    @abstractmethod
    def prepare(self, block: np.ndarray) -> list:
        """The model's data for each column of ``block`` (n, b)."""

    @abstractmethod
    def singles(self, block: np.ndarray, datas: list) -> np.ndarray:
        """The dependency of each column of ``block`` alone."""

    @abstractmethod
    def _dependency(self, datas: list) -> float:
        """The dependency of a set (data in arrival order; possibly empty)."""

    def dependency(self, members: list) -> float:
        """The dependency of ``members`` (in arrival order), as the code computes it.

        The empty set (the redundancy check measures it when every member but the last
        was removed) is where the fuzzy, k-nearest and radius codes stop in Octave
        (``pdist`` of an n x 0 matrix; ``index(1)`` of an empty list). Here it is measured
        with every sample indiscernible from every other: all distances 0 (k-nearest: the
        K samples of lowest index; radius: every sample), similarity 1 (fuzzy: dependency
        0); the classical code itself computes 0 (one block holding both classes)."""
        return self._dependency([m.data for m in members])


class ClassicalModel(DependencyModel):
    """Classical rough set (``SFSF_C.m``) on the values as given (``bins`` = 0) or on
    ``bins`` equal-width bins per feature (the paper's experiments: 5)."""

    def __init__(self, y, label, bins: int):
        super().__init__(y, label)
        self.bins = bins

    def prepare(self, block):
        if self.bins:
            codes = discretise(block, self.bins, "uniform")
        else:
            codes = np.empty(block.shape, dtype=np.int64)
            for j in range(block.shape[1]):
                codes[:, j] = np.unique(block[:, j], return_inverse=True)[1].ravel()
        return [np.ascontiguousarray(codes[:, j]) for j in range(block.shape[1])]

    def singles(self, block, datas):
        return np.array([self._dependency([d]) for d in datas])

    def _dependency(self, datas):
        partition = np.zeros(self.n, dtype=np.int64)
        for codes in datas:
            partition = refine(partition, codes)
        m = int(partition.max()) + 1
        total = np.bincount(partition, minlength=m)
        ones = np.bincount(partition, weights=self.y, minlength=m)
        pure = (ones == 0) | (ones == total)
        return int(total[pure].sum()) / self.n


class FuzzyModel(DependencyModel):
    """Fuzzy rough set (``SFSF_F.m``): data = the matrix ``1 - similarity`` between the
    minority (rows) and the other samples (columns)."""

    def __init__(self, y, label):
        super().__init__(y, label)
        self.rows = np.flatnonzero(self.y == 1)
        self.cols = np.flatnonzero(self.y == 0)

    def prepare(self, block):
        out = []
        for j in range(block.shape[1]):
            x = block[:, j]
            interval = abs(x.max() - x.min())
            if interval > 0:
                diff = np.abs(x[self.rows][:, None] - x[self.cols][None, :])
                out.append(1.0 - (1.0 - diff / interval))
            else:
                out.append(np.zeros((len(self.rows), len(self.cols))))
        return out

    def singles(self, block, datas):
        return np.array([self._dependency([d]) for d in datas])

    def _dependency(self, datas):
        m = np.zeros((len(self.rows), len(self.cols)))  # the empty set: similarity 1
        for d in datas:
            m = np.maximum(m, d)
        low = np.empty(self.n)
        low[self.rows] = m.min(axis=1)
        low[self.cols] = m.min(axis=0)
        return in_order_sum(low) / self.n


class _DistanceModel(DependencyModel):
    """What the k-nearest and radius models share: ``pdist(X_B, 'seuclidean')``."""

    def prepare(self, block):
        weights = feature_weights(block)
        return [
            (np.ascontiguousarray(block[:, j]), float(weights[j])) for j in range(block.shape[1])
        ]

    def singles(self, block, datas):
        return np.array([self._dependency([d]) for d in datas])

    def distances(self, datas) -> np.ndarray:
        """The n x n distance matrix: per pair, the squared terms ``(w * d) * d`` summed
        over the set's columns in order, then ``sqrt``; 0 on the diagonal."""
        weights = [w for _, w in datas]
        if len(datas) > 1 and not any(math.isfinite(w) for w in weights):
            raise FSEngineError(
                f"{self.label}: the set to measure holds only features with a single value; "
                "the published code stops here in Octave ('inverse of the null matrix not "
                "defined')",
                remedy="drop constant features before selecting (--drop-constant)",
            )
        sq = np.zeros((self.n, self.n))
        with np.errstate(invalid="ignore", over="ignore"):
            for x, w in datas:
                d = x[:, None] - x[None, :]
                sq = sq + (w * d) * d
            dist = np.sqrt(sq)
        np.fill_diagonal(dist, 0.0)
        return dist

    def _dependency(self, datas):
        dist = self.distances(datas)
        cards = np.array([self._card(dist[:, i], i) for i in range(self.n)])
        return in_order_sum(cards) / self.n

    @abstractmethod
    def _card(self, column: np.ndarray, i: int) -> float:
        """Sample i's card from its distances to every sample."""


class KNearestModel(_DistanceModel):
    """k-nearest neighbourhood (``SFSF_NK.m``, ``OSFS_ET_c.m``: ``dep_K``/``card_K``)."""

    def __init__(self, y, label, k: int):
        super().__init__(y, label)
        self.k = k

    def _card(self, column, i):
        first = np.argsort(column, kind="stable")[: self.k]
        return int(np.sum(self.y[first] == self.y[i])) / self.k


class RadiusModel(_DistanceModel):
    """Neighbourhood radius (``SFSF_NR.m``: ``dep_R``/``card_R``)."""

    def __init__(self, y, label, radius: float):
        super().__init__(y, label)
        self.radius = radius

    def _card(self, column, i):
        with np.errstate(invalid="ignore"):
            inside = column <= self.radius * np.fmax(column, 1.0)
        total = int(inside.sum())
        same = int(np.sum(inside & (self.y == self.y[i])))
        return same / total if total > 0 else 0.0


def non_signf(model, members, candidates, rng, removable):
    """The redundancy pass ``non_signf``: R = ``members``; the ``candidates`` (members, in
    arrival order) are visited in the order ``candidates(randperm(|candidates|))``; a
    candidate f leaves R when ``removable(dep(R), dep(R - f))``.

    Returns (kept members, visited candidates, dependency without each, removed)."""
    kept = list(members)
    visited = [candidates[k] for k in rng.randperm(len(candidates))]
    dep_kept = None
    without, removed = [], []
    for f in visited:
        if dep_kept is None:
            dep_kept = model.dependency(kept)
        rest = [m for m in kept if m is not f]
        dep_f = model.dependency(rest)
        without.append(dep_f)
        if removable(dep_kept, dep_f):
            kept, dep_kept = rest, dep_f
            removed.append(f)
    return kept, visited, without, removed


def selected_mean(members) -> float:
    """``sum(depArray(mode == 1)) / sum(mode)``: the members' single dependencies added in
    arrival order over their number (NaN for none, as 0/0 in Octave)."""
    if not members:
        return math.nan
    return in_order_sum([m.dependency for m in members]) / len(members)
