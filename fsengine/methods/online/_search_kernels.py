"""Compiled (numba) kernels of the candidate search for the lists of a set's points
(:mod:`fsengine.methods.online._point_search`).

The set S keeps, for each of its points, its nearest points on S with their summed terms
(the authors' ``pdist`` arithmetic: the features' terms added one at a time in the set's
order), sorted. A point of S + f is a point a of S and a value v of f; its distance to
the point (b, u) is ``sqrt(sq_S(a, b) + (w * (v - u)) * (v - u))``, never below
``sqrt(sq_S(a, b))`` and growing with |v - u| (rounding is monotone). So its list is found
by walking a's list in order and, in each listed point b, the values u of b's points on
S + f outwards from v, as long as the distance can be within the cut found so far; the
walk is complete when the next listed point of S, or any point that is not listed, is
beyond it.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from fsengine._compute.jit import kernel


@njit(cache=True)
def candidate_distances(a, cand, base, base_of, values, weight, coords, weights, from_coords, out):
    """The distances of point ``a`` to the points ``cand`` of S + f, into ``out``: from the
    coordinates (P, s) and weights (s,) in the set's order, or from S's summed terms
    ``base`` between its points (``base_of``) plus f's term (``values``, ``weight``): the
    authors' ``pdist`` arithmetic either way."""
    for j in range(len(cand)):
        b = cand[j]
        if from_coords:
            total = 0.0
            for f in range(coords.shape[1]):
                d = coords[a, f] - coords[b, f]
                total += (weights[f] * d) * d
            out[j] = math.sqrt(total)
        else:
            d = values[a] - values[b]
            out[j] = math.sqrt(base[base_of[a], base_of[b]] + (weight * d) * d)


@kernel(
    "void(f8[:, ::1], f8[::1], i8[::1], i8[:, ::1], f8[:, ::1])", nogil=True, error_model="numpy"
)
def listed_terms(coords, weights, rows, listed, sq):
    """The summed terms between some points and their listed points, sorted increasingly.

    Parameters
    ----------
    coords : (Q, s) the set's points, one column per feature in the set's order.
    weights : (s,) the features' distance weights.
    rows : (m,) the points whose lists these are.
    listed : (m, L) each one's listed points (itself among them); sorted in place by
        their terms.
    sq : (m, L) written: the terms, sorted.
    """
    m, L = listed.shape
    s = coords.shape[1]
    for q in range(m):
        a = rows[q]
        for j in range(L):
            b = listed[q, j]
            total = 0.0
            for f in range(s):
                d = coords[a, f] - coords[b, f]
                total += (weights[f] * d) * d
            sq[q, j] = total
        order = np.argsort(sq[q], kind="mergesort")
        sq[q] = sq[q][order]
        listed[q] = listed[q][order]


@njit(cache=True, inline="always")
def _first_at_or_above(values, lo, hi, value):
    """The first position in ``lo`` .. ``hi - 1`` of the increasing ``values`` at or above
    ``value`` (``hi`` when none is): a binary search."""
    left, right = lo, hi
    while left < right:
        mid = (left + right) // 2
        if values[mid] < value:
            left = mid + 1
        else:
            right = mid
    return left


@njit(cache=True, inline="always")
def _keep_nearest(best_d, best_n, n_best, d, n_samples, need, bound):
    """Insert a candidate at distance ``d`` holding ``n_samples`` samples into the nearest
    found (``best_d`` increasing, ``best_n`` their samples, ``n_best`` of them), keeping
    only as many as hold ``need`` samples.

    Returns
    -------
    (int, float)
        How many are kept, and the distance within which they hold ``need`` samples
        (``bound`` unchanged while they hold fewer).
    """
    pos = n_best
    while pos > 0 and best_d[pos - 1] > d:
        pos -= 1
    for r in range(n_best, pos, -1):
        best_d[r] = best_d[r - 1]
        best_n[r] = best_n[r - 1]
    best_d[pos] = d
    best_n[pos] = n_samples
    n_best += 1
    held = 0
    for r in range(n_best):
        held += best_n[r]
        if held >= need:
            return r + 1, best_d[r]
    return n_best, bound


@kernel(
    "i8(i8[::1], i8[::1], f8[::1], f8, i8[::1], i8[::1], i8[:, ::1], f8[:, ::1], f8[::1], i8,"
    " i8[::1], i8[::1], f8[::1])",
    nogil=True,
    error_model="numpy",
)
def candidates_from_lists(
    points,
    base_of,
    values,
    weight,
    sub_start,
    size,
    listed,
    listed_sq,
    listed_far,
    need,
    cand_start,
    cand,
    far,
):
    """The candidate points of the lists of ``points`` of S + f, from S's lists.

    Parameters
    ----------
    points : (c,) points of S + f.
    base_of : (P,) each point's point on S. values : (P,) its value of f; ``weight`` f's
        distance weight.
    sub_start : (Q + 1,) the points of S + f on S's point b are ``sub_start[b]`` ..
        ``sub_start[b + 1] - 1``, by increasing value.
    size : (P,) each point's number of samples.
    listed, listed_sq, listed_far : S's lists (:func:`listed_terms`) and, per point of S,
        a distance that no point left out of its list is below (inf: none is left out).
    need : the cut is certainly within the distance at which ``need`` samples are found.
    cand_start : (c + 1,) written; cand : written, the candidates of point q are
        ``cand[cand_start[q]:cand_start[q + 1]]``.
    far : (c,) written: inf when the candidates certainly hold the list, else -1 (the walk
        left S's list: search otherwise).

    Returns
    -------
    int
        The number of candidates written, or -1 when ``cand`` is too short (nothing is
        complete: call again with a longer one).
    """
    best_d = np.empty(need + 1)
    best_n = np.empty(need + 1, np.int64)
    count = 0
    cand_start[0] = 0
    for q in range(points.shape[0]):
        a = points[q]
        sa = base_of[a]
        va = values[a]
        n_best = 0  # the nearest found, by distance, until they hold ``need`` samples
        bound = np.inf
        complete = False
        L = listed.shape[1]
        for j in range(L):
            sq = listed_sq[sa, j]
            if math.sqrt(sq) > bound:
                complete = True
                break
            b = listed[sa, j]
            lo, hi = sub_start[b], sub_start[b + 1]
            # The first value of b's points at or above va, then outwards on each side.
            left = _first_at_or_above(values, lo, hi, va)
            for side in range(2):
                t = left if side == 0 else left - 1
                while lo <= t < hi:
                    g = va - values[t]
                    d = math.sqrt(sq + (weight * g) * g)
                    if d > bound:
                        break
                    if count >= cand.shape[0]:
                        return -1
                    cand[count] = t
                    count += 1
                    n_best, bound = _keep_nearest(best_d, best_n, n_best, d, size[t], need, bound)
                    t = t + 1 if side == 0 else t - 1
        if not complete:
            complete = listed_far[sa] > bound * (1.0 + 1e-9)
        far[q] = np.inf if complete else -1.0
        cand_start[q + 1] = count
    return count


@kernel("Tuple((i8[::1], i8[::1], f8[::1]))(i8[::1], f8[::1], i8)", nogil=True)
def refine_points(codes, values, n_points):
    """The points of a set once a feature joins it (samples that share a point and a
    value), numbered in the order of (old point, value); O(n + z log z) for z non-zero
    values (a sparse gene: most samples keep their point with the value 0).

    Parameters
    ----------
    codes : (n,) each sample's point on the set, 0 .. n_points - 1.
    values : (n,) the new feature (finite).
    n_points : the set's number of points.

    Returns
    -------
    (new_codes (n,), base_of (P',): each new point's old point, point_values (P',))
    """
    n = codes.shape[0]
    nonzero = 0
    for i in range(n):
        if values[i] != 0.0:
            nonzero += 1
    # The non-zero samples sorted by value, then (stably) by point.
    which = np.empty(nonzero, np.int64)
    v = np.empty(nonzero)
    j = 0
    for i in range(n):
        if values[i] != 0.0:
            which[j] = i
            v[j] = values[i]
            j += 1
    by_value = which[np.argsort(v, kind="mergesort")]
    per_point = np.zeros(n_points + 1, np.int64)
    has_zero = np.zeros(n_points, np.bool_)
    for i in range(n):
        if values[i] != 0.0:
            per_point[codes[i] + 1] += 1
        else:
            has_zero[codes[i]] = True
    for c in range(n_points):
        per_point[c + 1] += per_point[c]
    ordered = np.empty(nonzero, np.int64)
    fill = per_point[:-1].copy()
    for j in range(nonzero):
        i = by_value[j]
        ordered[fill[codes[i]]] = i
        fill[codes[i]] += 1
    new_codes = np.empty(n, np.int64)
    base_of = np.empty(n, np.int64)
    point_values = np.empty(n)
    zero_point = np.full(n_points, -1, np.int64)
    P = 0
    for c in range(n_points):
        lo, hi = per_point[c], per_point[c + 1]
        j = lo
        while j < hi and values[ordered[j]] < 0.0:  # negative values, then 0, then positive
            if j == lo or values[ordered[j]] != values[ordered[j - 1]]:
                base_of[P] = c
                point_values[P] = values[ordered[j]]
                P += 1
            new_codes[ordered[j]] = P - 1
            j += 1
        if has_zero[c]:
            base_of[P] = c
            point_values[P] = 0.0
            zero_point[c] = P
            P += 1
        first = j
        while j < hi:
            if j == first or values[ordered[j]] != values[ordered[j - 1]]:
                base_of[P] = c
                point_values[P] = values[ordered[j]]
                P += 1
            new_codes[ordered[j]] = P - 1
            j += 1
    for i in range(n):
        if values[i] == 0.0:
            new_codes[i] = zero_point[codes[i]]
    return new_codes, base_of[:P].copy(), point_values[:P].copy()


@kernel("Tuple((i8[::1], i8[::1]))(i8[::1], i8)", nogil=True)
def members_of_points(codes, n_points):
    """Each point's samples in increasing row order (a counting sort): point a's samples
    are ``members[start[a]:start[a + 1]]``; returns (start, members)."""
    n = codes.shape[0]
    start = np.zeros(n_points + 1, np.int64)
    for i in range(n):
        start[codes[i] + 1] += 1
    for a in range(n_points):
        start[a + 1] += start[a]
    fill = start[:-1].copy()
    members = np.empty(n, np.int64)
    for i in range(n):
        members[fill[codes[i]]] = i
        fill[codes[i]] += 1
    return start, members
