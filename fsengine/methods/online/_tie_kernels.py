"""Compiled (numba) kernels of the order-invariant neighbour rule (``ties="average"``).

Under the authors' rule a sample's card depends on which of its equally distant samples
come first in row order. The average rule replaces the card by its expectation over every
order of the rows (:mod:`fsengine.methods.online._tie_average`, docs/ALGORITHMS.md): the samples
nearer than the distance t at which the neighbour list is cut are always in it, the r
places left are drawn uniformly from the b samples at distance t (a hypergeometric draw
over their labels), and K-OFSD's reference also drops the list's first sample, drawn
uniformly from the samples at distance 0.

Samples with equal values on the set are one *point* (with its number of samples of each
label): they have the same distances to every other sample, so the kernels work on the P
distinct points, not on the n samples (on sparse counts P is far below n). The distance
between points a and b is ``sqrt(base[o_a, o_b] + (w * d) * d)``, d their difference on the
newest feature and ``base`` the summed terms of the set's earlier features between their
points (0 for a single feature), or, from coordinates, the terms summed feature by
feature: either way the authors' ``pdist(X, 'seuclidean')`` arithmetic, in the set's order.

OFS-A3M's gap rule and OFS-Density's density rule (``kind``) decide a neighbourhood's length
from the sorted distances alone, so only which samples fill it depends on the order: the
list's first element (dropped) is drawn from the samples at distance 0, and where the cut
falls inside a group of equal distances (A3M with a gap of 0) its places are drawn from
that group; the card, a share of same-label neighbours, is linear in the draws
(:func:`_zhou_cards`).

The dependency is the mean of the samples' expected cards, summed exactly (the correctly
rounded sum, whatever the order of the samples), so that equal multisets of card values
give equal dependencies bit for bit.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from fsengine._compute.jit import kernel
from fsengine.methods.online._codes import (
    CARD_CONSISTENCY,
    CARD_IMBALANCED,
    CARD_SHARE,
    CARD_WEIGHT,
    MAX_PARTIALS,
    TIE_DENSITY,
    TIE_FIRST_K,
    TIE_GAP,
)
from fsengine.methods.online._search_kernels import candidate_distances

#: Card_Distance: same-label neighbours count as closer only by more than this relative
#: margin (the constant of
#: :data:`fsengine.methods.online._roughset.kofsd.cards.CLOSER_TOLERANCE`).
CLOSER_TOLERANCE = 1e-12


@njit(cache=True)
def _card(card, gamma, gamma1, gamma2, same, k, label, same_d, other_d):
    """One sample's card value from its K neighbours (cards.py's rules; ``CARD_SHARE`` is
    the rough-set k-nearest card: the share of the K listed samples that share the label)."""
    fraction = same / k
    if card == CARD_IMBALANCED:
        if label == 1:
            return fraction
        return 1.0 if same == k else 0.0
    if card == CARD_CONSISTENCY:
        return 1.0 if same == k else 0.0
    if card == CARD_WEIGHT:
        return fraction if fraction > gamma else 0.0
    if card == CARD_SHARE:
        return fraction
    # Card_Distance
    if fraction >= gamma1:
        return 1.0
    if fraction <= gamma2:
        return 0.0
    mean_same = same_d / same if same > 0 else math.nan
    mean_other = other_d / (k - same) if k - same > 0 else math.nan
    bigger = mean_same if mean_same > mean_other else mean_other
    return 1.0 if mean_other - mean_same > CLOSER_TOLERANCE * bigger else 0.0


@njit(cache=True)
def _hypergeometric(population, successes, draws, pmf):
    """``pmf[h]``, h = 0..draws: the probability of h successes among ``draws`` drawn
    without replacement from ``population`` holding ``successes``. The first possible h
    as a product of ratios, the others by the ratio recurrence (no factorials)."""
    for h in range(draws + 1):
        pmf[h] = 0.0
    failures = population - successes
    low = draws - failures if draws > failures else 0
    high = draws if draws < successes else successes
    # One arrangement (draws - low failures, then low successes), times C(draws, low).
    p = 1.0
    for j in range(draws - low):
        p *= (failures - j) / (population - j)
    for j in range(low):
        p *= (successes - j) / (population - (draws - low) - j)
        p *= (draws - j) / (j + 1.0)
    pmf[low] = p
    for h in range(low, high):
        p *= (successes - h) * (draws - h) / ((h + 1.0) * (failures - draws + h + 1.0))
        pmf[h + 1] = p


@njit(cache=True, inline="always")
def _expected(
    card,
    gamma,
    gamma1,
    gamma2,
    k,
    label,
    full_same,
    d_same,
    d_other,
    t,
    tied,
    tied_same,
    draws,
    zero,
    zero_same,
    skip_first,
    pmf,
):
    """The expected card over every order of the tied samples, and whether it varies.

    The list holds the samples nearer than ``t`` (``full_same`` of them share the label;
    distance sums ``d_same``, ``d_other``) and ``draws`` of the ``tied`` samples at
    distance t (``tied_same`` share the label). With ``skip_first`` (K-OFSD's reference)
    the list's first sample is dropped, drawn from the ``zero`` samples at distance 0
    (``zero_same`` share the label), independently of the draw at t.

    Returns
    -------
    (expected card, True when the card is not the same in every order)
    """
    same_drawn = _forced_draw(tied, tied_same, draws)
    skipped = _forced_skip(zero, zero_same, skip_first)
    if same_drawn >= 0 and skipped >= 0:  # one order's card is every order's
        h = same_drawn
        value = _card(
            card, gamma, gamma1, gamma2, full_same - skipped + h, k, label,
            d_same + t * h, d_other + t * (draws - h),
        )  # fmt: skip
        return value, False
    _hypergeometric(tied, tied_same, draws, pmf)
    total = 0.0
    low = math.inf
    high = -math.inf
    p_skip_same = zero_same / zero if skip_first else 0.0
    for skipped_same in range(2):
        p_skip = p_skip_same if skipped_same == 1 else 1.0 - p_skip_same
        if p_skip == 0.0:
            continue
        for h in range(draws + 1):
            p = pmf[h]
            if p == 0.0:
                continue
            value = _card(
                card,
                gamma,
                gamma1,
                gamma2,
                full_same - skipped_same + h,
                k,
                label,
                d_same + t * h,
                d_other + t * (draws - h),
            )
            total += p_skip * p * value
            low = min(low, value)
            high = max(high, value)
    # The mean lies between the least and the greatest card: rounding never puts it
    # outside (a card is never above 1, which the tests' early stop relies on), and a card
    # the same in every order is that card exactly.
    if total > high:
        total = high
    elif total < low:
        total = low
    return total, high > low


@njit(cache=True, inline="always")
def _forced_draw(tied, tied_same, draws):
    """The number of label-sharing samples among ``draws`` of the ``tied`` when it is the
    same in every order (none drawn, all drawn, or all tied samples alike), else -1."""
    if draws < 0 or draws > tied:
        return -1
    if draws == 0 or tied_same == 0:
        return 0
    if tied_same == tied:
        return draws
    if draws == tied:
        return tied_same
    return -1


@njit(cache=True, inline="always")
def _forced_skip(zero, zero_same, skip_first):
    """Whether the dropped first sample shares the label (1) or not (0) when that is the
    same in every order (no sample dropped: 0), else -1."""
    if not skip_first:
        return 0
    if zero <= 0:
        return -1
    if zero_same == 0:
        return 0
    if zero_same == zero:
        return 1
    return -1


@njit(cache=True, inline="always")
def _same_distance(d, t):
    return d == t or (d != d and t != t)


@njit(cache=True, inline="always")
def _write_point(
    a,
    cand,
    cand_d,
    n_cand,
    t,
    m1,
    m0,
    k,
    need,
    with_self,
    skip_first,
    card,
    gamma,
    gamma1,
    gamma2,
    pmf,
    expected,
    varies,
):
    """Expected cards of a minority and a majority sample at point ``a``.

    ``cand[:n_cand]`` are the points (``a`` itself for its other samples) at distance at
    most ``t`` from it, ``cand_d`` their distances (NaN greater than any number); ``t``
    is where the list of length ``need`` ends. Writes ``expected[a, label]`` and
    ``varies[a, label]`` for each label the point holds."""
    t_is_nan = t != t
    for label in range(2):
        if (m1[a] if label == 1 else m0[a]) == 0:
            continue
        full_same = 0
        full_other = 0
        d_same = 0.0
        d_other = 0.0
        tied_same = 0
        tied_other = 0
        zero_same = 0
        zero_other = 0
        for q in range(n_cand):
            b = cand[q]
            d = cand_d[q]
            s = m1[b] if label == 1 else m0[b]
            o = m0[b] if label == 1 else m1[b]
            if b == a:
                s -= 1  # the sample itself: listed below, at distance 0, when it is
            if d == 0.0:
                zero_same += s
                zero_other += o
            if _same_distance(d, t):
                tied_same += s
                tied_other += o
            elif t_is_nan or d < t:
                full_same += s
                full_other += o
                d_same += s * d
                d_other += o * d
        if with_self:
            zero_same += 1
            if t == 0.0:
                tied_same += 1
            else:
                full_same += 1
        draws = need - (full_same + full_other)
        zero = zero_same + zero_other
        if skip_first and t == 0.0:
            # The list ends among the samples at distance 0: the neighbours are a uniform
            # K-subset of them (the first of the K + 1 drawn is dropped).
            e, v = _expected(
                card, gamma, gamma1, gamma2, k, label, 0, 0.0, 0.0, 0.0, zero, zero_same,
                k, zero, zero_same, False, pmf,
            )  # fmt: skip
        else:
            e, v = _expected(
                card, gamma, gamma1, gamma2, k, label, full_same, d_same, d_other, t,
                tied_same + tied_other, tied_same, draws, zero, zero_same, skip_first, pmf,
            )  # fmt: skip
        expected[a, label] = e
        varies[a, label] = v


@njit(cache=True)
def _others(a, b, m1, m0):
    """Samples of point ``b`` in the list of a sample of point ``a`` (not itself)."""
    return m1[b] + m0[b] - (1 if b == a else 0)


#: OFS-A3M's factor of the mean gap between sorted distances (``card`` in OFS_A3M.m).
GAP_FACTOR = 1.5


@njit(cache=True)
def _zhou_cards(a, gd, g1, g0, g, n, kind, m1, m0, expected, varies):
    """Expected cards of a minority and a majority sample at point ``a`` under OFS-A3M's gap
    rule or OFS-Density's density rule, from its groups of equal distance: ``gd[:g]``
    ascending (group 0 at distance 0 holds the sample itself), ``g1``, ``g0`` their
    numbers of minority and majority samples, n samples in all.

    The list's length L comes from the distances alone (the rules of
    ``_roughset._dependency_kernels``): GAP, position 2 and then positions while
    ``D(j) - D(j - 1) < 1.5 (D(n) - D(2)) / (n - 2)``; DENSITY, positions while
    ``D(j) / (j - 1)`` is 0 or at most the last one's.
    Inside a group the steps are 0 and the densities fall, so the list ends at a group's
    end, except with a gap that is not positive (A3M keeps position 2 only). Of positions
    1..L the first is dropped: in a random order a uniform draw from the z samples at
    distance 0; the expected number of same-label neighbours is then the same-label count
    of the whole groups in the list, plus r b_s / b for r places drawn from a group of b
    split by the cut, minus z_s / z; the card is that over L - 1."""
    total = 0
    for k in range(g):
        total += g1[k] + g0[k]
    second = 0 if g1[0] + g0[0] >= 2 else 1  # the group of position 2
    d2 = gd[second]
    dn = gd[g - 1]
    end = 0  # the list's last group (cut at its end), or the group split by the cut
    split = False
    if kind == TIE_GAP:
        gap = GAP_FACTOR * (dn - d2) / (n - 2) if n > 2 else 0.0
        if gap > 0.0:
            end = second
            while end + 1 < g and gd[end + 1] - gd[end] < gap:
                end += 1
        else:
            end = second
            split = True  # position 2 only
    else:
        end = second
        length = 0
        for k in range(end + 1):
            length += g1[k] + g0[k]
        last = gd[end] / (length - 1)
        while end + 1 < g:
            density = gd[end + 1] / length  # the next group's first position is length + 1
            if not (density == 0.0 or density <= last):
                break
            end += 1
            length += g1[end] + g0[end]
            last = gd[end] / (length - 1)
    for label in range(2):
        if (m1[a] if label == 1 else m0[a]) == 0:
            continue
        zero_same = g1[0] if label == 1 else g0[0]
        zero = g1[0] + g0[0]
        if split:
            # positions 1 and 2: the sample and one of group 1, or two of group 0
            if second == 0:
                same = zero_same / zero  # the one left of two drawn from group 0
                mixed = 0 < zero_same < zero
            else:
                group_same = g1[1] if label == 1 else g0[1]
                group = g1[1] + g0[1]
                same = group_same / group
                mixed = 0 < group_same < group
            expected[a, label] = same
            varies[a, label] = mixed
            continue
        listed_same = 0
        listed = 0
        for k in range(end + 1):
            listed_same += g1[k] if label == 1 else g0[k]
            listed += g1[k] + g0[k]
        expected[a, label] = (listed_same - zero_same / zero) / (listed - 1)
        varies[a, label] = 0 < zero_same < zero


@njit(cache=True)
def _zhou_degenerate(a, n, kind, m1, m0, expected, varies):
    """Cards when every distance between two samples is NaN (a constant feature in the
    set): the sample itself first, the others at NaN. GAP: one neighbour, drawn from the
    others; DENSITY: none (NaN, as the authors' code gives)."""
    n1 = 0
    for b in range(len(m1)):
        n1 += m1[b]
    for label in range(2):
        if (m1[a] if label == 1 else m0[a]) == 0:
            continue
        if kind == TIE_DENSITY:
            expected[a, label] = math.nan
            varies[a, label] = False
            continue
        others_same = (n1 if label == 1 else n - n1) - 1
        expected[a, label] = others_same / (n - 1)
        varies[a, label] = 0 < others_same < n - 1


@njit(cache=True)
def _zhou_cards_from_distances(a, dist, m1, m0, kind, bufs):
    """:func:`_zhou_cards` for point ``a`` given its distances to every point (``dist[a]``,
    its own samples', is 0): the points sorted by distance and merged into groups."""
    _, _, _, expected, varies, keys, gd, g1, g0 = bufs
    P = len(dist)
    n = 0
    for b in range(P):
        n += m1[b] + m0[b]
    for b in range(P):
        if dist[b] != dist[b]:
            _zhou_degenerate(a, n, kind, m1, m0, expected, varies)
            return
    order = np.argsort(dist)
    g = 0
    for q in range(P):
        b = order[q]
        d = 0.0 if b == a else dist[b]
        if g == 0 or d != gd[g - 1]:
            gd[g] = d
            g1[g] = 0
            g0[g] = 0
            g += 1
        g1[g - 1] += m1[b]
        g0[g - 1] += m0[b]
    _zhou_cards(a, gd, g1, g0, g, n, kind, m1, m0, expected, varies)


@njit(cache=True)
def _cut_distance(a, dist, pts, m1, m0, need, with_self, keys, idx):
    """Where the list of a sample at point ``a`` reaches ``need`` samples: the smallest
    distance t such that the sample itself (when listed) and the samples at distance at
    most t number ``need`` or more, among the points ``pts`` (at distances ``dist``). A
    weighted quickselect over the points (each weighs its samples in the list), O(P)
    expected; NaN distances count as greater than any; +inf when the points hold too few
    samples.

    Returns
    -------
    t : float
        0 when the sample itself fills the list.
    """
    count = 1 if with_self else 0
    if count >= need:
        return 0.0
    n_idx = 0
    listed = 0
    for q in range(len(dist)):
        b = pts[q]
        if _others(a, b, m1, m0) > 0:
            d = dist[q]
            if d != d:
                return d  # NaN: all distances are NaN (a constant feature in the set)
            idx[n_idx] = b
            keys[n_idx] = d
            n_idx += 1
            listed += _others(a, b, m1, m0)
    target = need - count
    if listed < target:
        return np.inf
    lo, hi = 0, n_idx
    while True:
        # Three-way partition of idx[lo:hi] around a pivot key (the middle one's).
        pivot = keys[lo + (hi - lo) // 2]
        lt, i, gt = lo, lo, hi
        while i < gt:
            key = keys[i]
            if key < pivot:
                keys[i], keys[lt] = keys[lt], keys[i]
                idx[i], idx[lt] = idx[lt], idx[i]
                lt += 1
                i += 1
            elif key > pivot:
                gt -= 1
                keys[i], keys[gt] = keys[gt], keys[i]
                idx[i], idx[gt] = idx[gt], idx[i]
            else:
                i += 1
        below = 0
        for q in range(lo, lt):
            below += _others(a, idx[q], m1, m0)
        if target <= below:
            hi = lt
            continue
        equal = 0
        for q in range(lt, gt):
            equal += _others(a, idx[q], m1, m0)
        if target <= below + equal:
            return pivot
        target -= below + equal
        lo = gt


@njit(cache=True)
def _cards_from_distances(
    a, dist, pts, m1, m0, k, need, with_self, skip_first, card, gamma, gamma1, gamma2, bufs
):
    """:func:`_write_point` for point ``a`` given its distances ``dist`` to the points
    ``pts`` (every point, or candidates that hold its list): the cut distance t
    (:func:`_cut_distance`), then every point at distance at most t. Returns t and the
    number of those points, which are left in ``bufs[0]`` (the point's *ball*); (+inf, -1),
    nothing written, when the points hold too few samples."""
    cand, cand_d, pmf, expected, varies, keys, _, _, _ = bufs
    t = _cut_distance(a, dist, pts, m1, m0, need, with_self, keys, cand)
    if t == np.inf:
        return t, -1
    n_cand = 0
    t_is_nan = t != t
    for q in range(len(dist)):
        b = pts[q]
        d = dist[q]
        if (t_is_nan or d <= t) and _others(a, b, m1, m0) > 0:
            cand[n_cand] = b
            cand_d[n_cand] = d
            n_cand += 1
    _write_point(
        a, cand, cand_d, n_cand, t, m1, m0, k, need, with_self, skip_first, card, gamma,
        gamma1, gamma2, pmf, expected, varies,
    )  # fmt: skip
    return t, n_cand


@kernel(
    "UniTuple(f8, 2)(f8[:, ::1], i8[::1], f8[::1], f8, f8[:, ::1], f8[::1], b1, i8[::1], i8[::1],"
    " i8, i8, b1, b1, i8, f8, f8, f8, i8, i8[::1], f8, f8[:, ::1], b1[:, ::1])",
    error_model="numpy",
)
def set_dependency(
    base,
    base_of,
    values,
    weight,
    coords,
    weights,
    from_coords,
    m1,
    m0,
    k,
    need,
    with_self,
    skip_first,
    card,
    gamma,
    gamma1,
    gamma2,
    kind,
    visit,
    floor,
    expected,
    varies,
):
    """The dependency of a set from its distinct points, and the share of the samples whose
    card differs between row orders; (NaN, NaN) once it certainly cannot reach ``floor``.

    Parameters
    ----------
    base : (Q, Q) the summed terms of the set's earlier features between their points.
    base_of : (P,) each point's point on the earlier features (its row of ``base``).
    values : (P,) each point's value on the newest feature; ``weight`` its weight.
    coords, weights, from_coords : with ``from_coords``, the distances come from the
        points' coordinates (P, s), one column per feature in the set's order, and the
        features' weights (s,), each distance's terms summed from 0 (no P x P array is
        kept); else from ``base`` and the newest feature.
    m1, m0 : (P,) each point's number of minority and majority samples.
    k : the card's K. need : the list's length (K + 1 for K-OFSD's reference, else K).
    with_self : the sample is in its own list (at distance 0).
    skip_first : the list's first element is dropped (K-OFSD's reference).
    card, gamma, gamma1, gamma2 : the card's code and thresholds.
    kind : the neighbourhood: TIE_FIRST_K (the first K), TIE_GAP or TIE_DENSITY
        (OFS-A3M's and OFS-Density's rules, :func:`_zhou_cards`; k, need, with_self,
        skip_first and the card are then unused).
    visit : (P,) the order in which the points are measured (those likely to lose most
        first, so that a set that cannot reach ``floor`` stops early).
    floor : the least sum of the samples' cards that matters (-inf: measure all); the
        sum so far plus one per sample left is its upper bound.
    expected, varies : (P, 2), written for the points measured: per point and label
        (0, 1) the expected card and whether it is not the same in every order.

    Returns
    -------
    (the mean of the samples' expected cards, summed exactly, or NaN; the share of the
    samples whose card differs between orders, or NaN)
    """
    P = len(values)
    dist = np.empty(P)
    every = np.arange(P)
    bufs = (
        np.empty(P, np.int64),
        np.empty(P),
        np.empty(need + 2),
        expected,
        varies,
        np.empty(P),
        np.empty(P),
        np.empty(P, np.int64),
        np.empty(P, np.int64),
    )
    partials = np.zeros(MAX_PARTIALS)
    n = 0
    for a in range(P):
        n += m1[a] + m0[a]
    state = np.zeros(3, np.int64)  # partials, samples whose card varies, samples left
    state[2] = n
    for q in range(P):
        a = visit[q]
        candidate_distances(
            a, every, base, base_of, values, weight, coords, weights, from_coords, dist
        )
        if kind == TIE_FIRST_K:
            _cards_from_distances(
                a, dist, every, m1, m0, k, need, with_self, skip_first, card, gamma, gamma1,
                gamma2, bufs,
            )  # fmt: skip
        else:
            _zhou_cards_from_distances(a, dist, m1, m0, kind, bufs)
        if not _add_point(a, m1, m0, expected, varies, partials, state, floor):
            return math.nan, math.nan
    return _rounded_total(partials, state[0]) / n, state[1] / n


@kernel(
    "f8(f8[:, ::1], i8[::1], f8[::1], f8, f8[:, ::1], f8[::1], b1, i8[::1], i8[::1], i8, i8, b1,"
    " b1, i8, f8, f8, f8, i8[::1], i8[::1], i8[::1], f8[::1], f8, f8[:, ::1], b1[:, ::1], f8[::1],"
    " i8[::1], b1[::1], i4[:, ::1])",
    error_model="numpy",
)
def points_expected_cards(
    base,
    base_of,
    values,
    weight,
    coords,
    weights,
    from_coords,
    m1,
    m0,
    k,
    need,
    with_self,
    skip_first,
    card,
    gamma,
    gamma1,
    gamma2,
    points,
    cand_start,
    cand,
    far,
    floor,
    expected,
    varies,
    partials,
    state,
    missed,
    balls,
):
    """:func:`set_dependency` for the first-K neighbourhood, over the points ``points``
    only, each among its candidate points: a call of a test made in several.

    Parameters
    ----------
    base, base_of, values, weight, coords, weights, from_coords, m1, m0, k, need,
    with_self, skip_first, card, gamma, gamma1, gamma2, floor, expected, varies
        As in :func:`set_dependency`.
    points : (c,) the points measured, in this order.
    cand_start, cand : the points among which the list of ``points[q]`` is sought are
        ``cand[cand_start[q]:cand_start[q + 1]]``; ``far`` (c,): every other point is at
        this distance or more, up to rounding (inf: the candidates hold the list).
    partials, state : the exact sum's partials (MAX_PARTIALS,) and (its number of
        partials, samples whose card varies, samples left), carried between calls.
    missed : (c,) written: the point's candidates may not hold its list (nothing of it is
        added; measure it again with more candidates).
    balls : (P, M) written for each point measured (M > 0): its ball, the points other
        than itself at distance at most its cut, padded with -1; -2 first when there are
        more than M or the points hold too few samples. A point whose ball and itself
        keep their distances keeps its cards when a feature joins the set
        (:func:`add_known_cards`).

    Returns
    -------
    float
        1.0, or NaN once the sum cannot reach ``floor``.
    """
    m = len(values)
    dist = np.empty(m)
    bufs = (
        np.empty(m, np.int64),
        np.empty(m),
        np.empty(need + 2),
        expected,
        varies,
        np.empty(m),
        np.empty(0),
        np.empty(0, np.int64),
        np.empty(0, np.int64),
    )
    for q in range(points.shape[0]):
        a = points[q]
        row_cand = cand[cand_start[q] : cand_start[q + 1]]
        candidate_distances(
            a, row_cand, base, base_of, values, weight, coords, weights, from_coords, dist
        )
        t, n_ball = _cards_from_distances(
            a, dist[: len(row_cand)], row_cand, m1, m0, k, need, with_self, skip_first, card,
            gamma, gamma1, gamma2, bufs,
        )  # fmt: skip
        if far[q] != np.inf and not (t < far[q] * (1.0 - 1e-9)):
            missed[q] = True  # a point beyond the candidates may be as near as the cut
            continue
        missed[q] = False
        _write_ball(a, bufs[0], n_ball, balls)
        if not _add_point(a, m1, m0, expected, varies, partials, state, floor):
            return math.nan
    return 1.0


@njit(cache=True)
def _write_ball(a, members, n_members, balls):
    """Point ``a``'s ball (``members[:n_members]``, ``a`` itself left out) into its row of
    ``balls``: -1 after the last, -2 first when it does not fit (or ``n_members`` is -1)."""
    M = balls.shape[1]
    if M == 0:
        return
    j = 0
    overflow = n_members < 0
    for q in range(max(n_members, 0)):
        b = members[q]
        if b == a:
            continue
        if j == M:
            overflow = True
            break
        balls[a, j] = b
        j += 1
    if overflow:
        balls[a, 0] = -2  # cannot tell: measured in every test
        j = 1
    for q in range(j, M):
        balls[a, q] = -1


@njit(cache=True)
def _add_point(a, m1, m0, expected, varies, partials, state, floor):
    """Add point ``a``'s samples' expected cards to the exact sum (``partials``, ``state``
    as in :func:`points_expected_cards`); False once the sum cannot reach ``floor``."""
    n_partials = state[0]
    for label in range(2):
        count = m1[a] if label == 1 else m0[a]
        n_partials = _add_copies(partials, n_partials, expected[a, label], count)
        if count and varies[a, label]:
            state[1] += count
    state[0] = n_partials
    state[2] -= m1[a] + m0[a]
    if floor == -np.inf or state[2] <= 0:
        return True
    return not _below(partials, n_partials, float(state[2]), floor)


@njit(cache=True)
def _below(partials, n_partials, left, floor):
    """Whether the partial sums' total plus ``left`` (an integer), correctly rounded, is
    below ``floor``: decided from the rounded total where it is clear by far more than its
    rounding, else summed exactly."""
    bound = _rounded_total(partials, n_partials) + left
    margin = 1e-12 * (abs(bound) + abs(floor)) + 1e-300
    if bound > floor + margin:
        return False
    if bound < floor - margin:
        return True
    exact = partials.copy()
    n_exact = _add_exact(exact, n_partials, left)
    return _rounded_total(exact, n_exact) < floor


@kernel(
    "f8(i8[::1], i8[::1], i8[::1], f8[:, ::1], b1[:, ::1], f8[::1], i8[::1], f8)",
    error_model="numpy",
)
def add_known_cards(points, m1, m0, expected, varies, partials, state, floor):
    """Add to a test's exact sum the points whose cards are known (already in
    ``expected`` and ``varies``): on S + f, the points of S whose samples and ball keep
    their value of f, hence their distances and their cards.

    Parameters
    ----------
    points : (c,) the points.
    m1, m0, expected, varies, partials, state, floor
        As in :func:`points_expected_cards`.

    Returns
    -------
    float
        1.0, or NaN once the sum cannot reach ``floor``.
    """
    for q in range(points.shape[0]):
        if not _add_point(points[q], m1, m0, expected, varies, partials, state, floor):
            return math.nan
    return 1.0


@kernel("f8(f8[::1], i8)")
def rounded_total(partials, n_partials):
    """The correctly rounded sum of the exact summation's partials (:func:`_add_exact`)."""
    return _rounded_total(partials, n_partials)


@kernel("f8[:, ::1](f8[:, ::1], i8[::1], f8[::1], f8)", error_model="numpy")
def point_terms(base, base_of, values, weight):
    """The summed terms between every two points once the newest feature is in the set:
    ``base[o_a, o_b] + (w * d) * d`` (P, P), d their difference on it."""
    P = len(values)
    out = np.empty((P, P))
    for a in range(P):
        row = base[base_of[a]]
        for b in range(P):
            d = values[a] - values[b]
            out[a, b] = row[base_of[b]] + (weight * d) * d
    return out


@njit(cache=True)
def _add_exact(partials, n_partials, x):
    """Add ``x`` to the non-overlapping partial sums ``partials[:n_partials]`` without
    rounding error (Shewchuk's algorithm); returns their new number. A NaN or infinite
    ``x`` (OFS-Density's card of a sample without neighbours) goes to the last slot,
    ``partials[-1]`` (zeroed by the caller), whose sum is the total's then: finite
    values leave at most about 40 partials, special ones would add one each."""
    if x - x != 0.0:  # NaN or +-inf
        partials[len(partials) - 1] += x
        return n_partials
    i = 0
    for j in range(n_partials):
        y = partials[j]
        if abs(x) < abs(y):
            x, y = y, x
        high = x + y
        low = y - (high - x)
        if low != 0.0:
            partials[i] = low
            i += 1
        x = high
    partials[i] = x
    return i + 1


#: Veltkamp's splitter for doubles: 2^27 + 1.
_SPLITTER = 134217729.0


@njit(cache=True, inline="always")
def _halves(a):
    """``a`` as ``high + low``, each with at most 26 significant bits (Veltkamp)."""
    c = _SPLITTER * a
    high = c - (c - a)
    return high, a - high


@njit(cache=True)
def _add_copies(partials, n_partials, x, count):
    """Add ``count`` copies of ``x`` to the partial sums (:func:`_add_exact`) without
    rounding error: ``count * x`` as the rounded product and its exact error (Dekker's
    product), two additions instead of ``count``; the same exact sum, so the same rounded
    total. One at a time where the product's error could under- or overflow (|x| beyond
    2^+-900); a NaN or infinity once (its sum is itself)."""
    if count <= 0:
        return n_partials
    if count == 1 or x - x != 0.0:
        return _add_exact(partials, n_partials, x)
    size = abs(x)
    if size == 0.0:
        return _add_exact(partials, n_partials, x)
    if not (2.0**-900 < size < 2.0**900):
        for _ in range(count):
            n_partials = _add_exact(partials, n_partials, x)
        return n_partials
    times = float(count)
    product = times * x
    th, tl = _halves(times)
    xh, xl = _halves(x)
    error = ((th * xh - product) + th * xl + tl * xh) + tl * xl
    n_partials = _add_exact(partials, n_partials, product)
    return _add_exact(partials, n_partials, error)


@njit(cache=True)
def _point_mean(expected, varies, m1, m0, P, n):
    """:func:`_sample_mean` from the points' label counts (point a holds ``m1[a]``
    samples of label 1 and ``m0[a]`` of label 0): the same exact sum, O(P). The samples
    whose card is exactly 1 are counted and added once as that integer, those whose card
    is 0 not at all (the sum is exact, so its rounded total is the same)."""
    partials = np.zeros(MAX_PARTIALS)
    n_partials = 0
    ones = 0
    varying = 0
    for a in range(P):
        for label in range(2):
            count = m1[a] if label == 1 else m0[a]
            if count == 0:
                continue
            card = expected[a, label]
            if card == 1.0:
                ones += count
            elif card != 0.0:
                n_partials = _add_copies(partials, n_partials, card, count)
            if varies[a, label]:
                varying += count
    n_partials = _add_exact(partials, n_partials, float(ones))
    return _rounded_total(partials, n_partials) / n, varying / n


@njit(cache=True)
def _rounded_total(partials, n_partials):
    """The partial sums' total correctly rounded to a double (half to even); NaN or an
    infinity when one was added (:func:`_add_exact`)."""
    special = partials[len(partials) - 1]
    if special != 0.0:  # NaN compares unequal too
        return special
    if n_partials == 0:
        return 0.0
    n_partials -= 1
    high = partials[n_partials]
    low = 0.0
    while n_partials > 0:
        x = high
        n_partials -= 1
        y = partials[n_partials]
        high = x + y
        low = y - (high - x)
        if low != 0.0:
            break
    if n_partials > 0 and (
        (low < 0.0 and partials[n_partials - 1] < 0.0)
        or (low > 0.0 and partials[n_partials - 1] > 0.0)
    ):
        y = low * 2.0
        x = high + y
        if y == x - high:
            high = x
    return high


@njit(cache=True)
def _sample_mean(expected, varies, codes, y):
    """The samples' mean expected card (exact sum over n) and the share of samples whose
    card differs between orders."""
    partials = np.zeros(MAX_PARTIALS)
    n_partials = 0
    varying = 0
    for i in range(len(codes)):
        n_partials = _add_exact(partials, n_partials, expected[codes[i], y[i]])
        if varies[codes[i], y[i]]:
            varying += 1
    n = len(codes)
    return _rounded_total(partials, n_partials) / n, varying / n


@kernel("UniTuple(f8, 2)(f8[:, ::1], b1[:, ::1], i8[::1], i8[::1])")
def sample_mean(expected, varies, codes, y):
    """The dependency of a set from its points' expected cards: the mean over the samples
    (sample i at point ``codes[i]`` with label ``y[i]``), summed exactly; and the share of
    the samples whose card differs between row orders."""
    return _sample_mean(expected, varies, codes, y)


@njit(cache=True)
def _zhou_single_point(a, values, w, m1, m0, n, kind, gd, g1, g0, expected, varies):
    """:func:`_zhou_cards` for point ``a`` of one feature (``values`` its P distinct values,
    ascending): the groups of equal distance by walking outwards from it, the nearer side
    first (distances grow along each side), O(P)."""
    P = len(values)
    va = values[a]
    d = va - va
    if math.sqrt(0.0 + (w * d) * d) != 0.0:  # NaN: a constant feature (infinite weight)
        _zhou_degenerate(a, n, kind, m1, m0, expected, varies)
        return
    gd[0] = 0.0
    g1[0] = m1[a]
    g0[0] = m0[a]
    g = 1
    left, right = a - 1, a + 1
    d_left = d_right = 0.0
    while left >= 0 or right < P:
        if left >= 0:
            d_left = _point_distance(va, values[left], w)
        if right < P:
            d_right = _point_distance(va, values[right], w)
        take_left = left >= 0 and (right >= P or d_left <= d_right)
        take_right = right < P and (left < 0 or d_right <= d_left)
        dn = d_left if take_left else d_right
        if dn != gd[g - 1]:
            gd[g] = dn
            g1[g] = 0
            g0[g] = 0
            g += 1
        if take_left:
            g1[g - 1] += m1[left]
            g0[g - 1] += m0[left]
            left -= 1
        if take_right:
            g1[g - 1] += m1[right]
            g0[g - 1] += m0[right]
            right += 1
    _zhou_cards(a, gd, g1, g0, g, n, kind, m1, m0, expected, varies)


@kernel(
    "void(f8[:, ::1], i8[:, ::1], i8[:, ::1], i8[::1], i8[::1], f8[::1], i8, i8, b1, b1, i8,"
    " f8, f8, f8, i8, f8[::1], f8[::1])",
    error_model="numpy",
)
def nonzero_feature_dependencies(
    values,
    rows,
    by_value,
    counts,
    y,
    weights,
    k,
    need,
    with_self,
    skip_first,
    card,
    gamma,
    gamma1,
    gamma2,
    kind,
    deps,
    shares,
):
    """The dependency of each single feature under the average rule, and the share of
    its samples whose card differs between row orders; the rule's arguments as
    :func:`set_dependency`. A feature is given by its non-zero values: line j's first
    ``counts[j]`` of ``values`` at ``rows`` (:func:`fsengine._compute.sparse.nonzero_lines`),
    ``by_value`` an argsort of them (ties in any order).

    On one feature the points are the distinct values in sorted order, its zeros one
    point between the negative and the positive values (O(z) for z non-zero values, never
    O(n)), and the points nearest a point lie next to it: the list is found by walking
    outwards from it, taking the nearer side first (distances grow along each side),
    O(P (K + 1)) per feature for the first K, O(P) per point for the gap and density
    rules.
    """
    b = values.shape[0]
    n = y.shape[0]
    n1 = 0
    for i in range(n):
        if y[i] == 1:
            n1 += 1
    work = _single_work(n, need)
    for j in range(b):
        P = _points_from_nonzeros(values[j], rows[j], by_value[j], counts[j], y, n, n1, work)
        deps[j], shares[j] = _single_from_points(
            P, weights[j], n, k, need, with_self, skip_first, card, gamma, gamma1, gamma2, kind,
            work,
        )  # fmt: skip


#: The working arrays of the single-feature dependencies (n samples): the points' values
#: and label counts, the candidates of a point's list, the card's distribution, the
#: points' expected cards, and the distance groups of the gap and density rules.
SingleWork = namedtuple("SingleWork", "values m1 m0 cand cand_d pmf expected varies gd g1 g0")


@njit(cache=True)
def _single_work(n, need):
    """A :data:`SingleWork` for ``n`` samples and lists of ``need`` samples."""
    return SingleWork(
        np.empty(n),
        np.empty(n, np.int64),
        np.empty(n, np.int64),
        np.empty(n, np.int64),
        np.empty(n),
        np.empty(need + 2),
        np.zeros((n, 2)),
        np.zeros((n, 2), np.bool_),
        np.empty(n),
        np.empty(n, np.int64),
        np.empty(n, np.int64),
    )


@njit(cache=True, inline="always")
def _point_distance(a, b, w):
    """The distance between two points of one feature, in the kernels' arithmetic."""
    return math.sqrt(_point_term(a, b, w))


@njit(cache=True, inline="always")
def _point_term(a, b, w):
    """The squared term whose root is :func:`_point_distance`."""
    d = a - b
    return 0.0 + (w * d) * d


#: Above this ratio two squared terms' roots differ (the roots' rounding moves each by
#: at most 2**-53 of it); below it, or among the smallest terms, the roots are compared.
_APART = 1.0 + 2.0**-50


@njit(cache=True, inline="always")
def _not_farther(q, r):
    """``sqrt(q) <= sqrt(r)`` for two squared terms (False when either is NaN, as that
    comparison is), the roots taken only when q is above r by less than :data:`_APART`
    or r is 1e-300 or less (its rounding no longer relative)."""
    if q <= r:
        return True
    if q > r * _APART and r > 1e-300:
        return False
    return math.sqrt(q) <= math.sqrt(r)


@njit(cache=True)
def _points_from_nonzeros(line, rows, by, z, y, n, n1, work):
    """The points of one feature (its distinct values, ascending) and their label counts
    into ``work``; how many. The feature is given by its ``z`` non-zero values
    ``line[:z]`` at ``rows``, ``by`` an argsort of them (ties in any order): its zeros
    (``n - z`` samples, of which ``n1`` less the non-zero ones' are of label 1) are one
    point between the negative and the positive values; O(z)."""
    values, m1, m0 = work.values, work.m1, work.m0
    ones = 0
    for q in range(z):
        if y[rows[q]] == 1:
            ones += 1
    zeros = n - z
    placed = zeros == 0
    P = 0
    for q in range(z):
        i = by[q]
        v = line[i]
        if not placed and v > 0.0:
            values[P] = 0.0
            m1[P] = n1 - ones
            m0[P] = zeros - (n1 - ones)
            P += 1
            placed = True
        if P == 0 or v != values[P - 1]:
            values[P] = v
            m1[P] = 0
            m0[P] = 0
            P += 1
        if y[rows[i]] == 1:
            m1[P - 1] += 1
        else:
            m0[P - 1] += 1
    if not placed:
        values[P] = 0.0
        m1[P] = n1 - ones
        m0[P] = zeros - (n1 - ones)
        P += 1
    return P


@njit(cache=True)
def _single_from_points(
    P, w, n, k, need, with_self, skip_first, card, gamma, gamma1, gamma2, kind, work
):
    """One feature's dependency under the average rule and the share of its samples whose
    card depends on the order of the rows, from its ``P`` points in ``work``
    (:func:`nonzero_feature_dependencies`)."""
    values, m1, m0 = work.values, work.m1, work.m0
    expected, varies = work.expected, work.varies
    if kind != TIE_FIRST_K:
        for a in range(P):
            for label in range(2):
                expected[a, label] = 0.0
                varies[a, label] = False
            _zhou_single_point(
                a, values[:P], w, m1[:P], m0[:P], n, kind, work.gd, work.g1, work.g0, expected,
                varies,
            )  # fmt: skip
    else:
        _first_k_cards(
            P, w, k, need, with_self, skip_first, card, gamma, gamma1, gamma2, values, m1, m0,
            work.cand, work.cand_d, work.pmf, expected, varies,
        )  # fmt: skip
    return _point_mean(expected, varies, m1, m0, P, n)


@njit(cache=True, _nrt=False)
def _first_k_cards(
    P, w, k, need, with_self, skip_first, card, gamma, gamma1, gamma2, values, m1, m0, cand,
    cand_d, pmf, expected, varies,
):  # fmt: skip
    """The expected cards of every point of one feature under the first K rule
    (:func:`_single_from_points`): each point's list found by walking outwards from it,
    the nearer side first (distances grow along each side). Compiled without numba's
    reference counts: the arrays live as long as the caller's, and counting them for the
    per-point helpers inlined here cost more than the walk itself."""
    for a in range(P):
        expected[a, 0] = 0.0
        expected[a, 1] = 0.0
        varies[a, 0] = False
        varies[a, 1] = False
        va = values[a]
        count = 1 if with_self else 0
        found = count >= need
        t = 0.0
        n_cand = 0
        left = a - 1
        right = a + 1
        # The point's own other samples first (distance 0; NaN on a constant feature).
        d = va - va
        d_own = math.sqrt(0.0 + (w * d) * d)
        others = m1[a] + m0[a] - 1
        if others > 0 and (not found or _same_distance(d_own, t)):
            cand[n_cand] = a
            cand_d[n_cand] = d_own
            n_cand += 1
            if not found:
                count += others
                if count >= need:
                    found = True
                    t = d_own
        # the next squared term on each side, measured again only when that side moves;
        # the walk compares terms, its root (the distance) is taken off the walk's path
        q_left = _point_term(va, values[left], w) if left >= 0 else 0.0
        q_right = _point_term(va, values[right], w) if right < P else 0.0
        while left >= 0 or right < P:
            take_left = right >= P or (left >= 0 and _not_farther(q_left, q_right))
            nxt = left if take_left else right
            dn = math.sqrt(q_left if take_left else q_right)
            if found and not _same_distance(dn, t):
                break
            cand[n_cand] = nxt
            cand_d[n_cand] = dn
            n_cand += 1
            if not found:
                count += m1[nxt] + m0[nxt]
                if count >= need:
                    found = True
                    t = dn
            if take_left:
                left -= 1
                if left >= 0:
                    q_left = _point_term(va, values[left], w)
            else:
                right += 1
                if right < P:
                    q_right = _point_term(va, values[right], w)
        _write_point(
            a, cand, cand_d, n_cand, t, m1, m0, k, need, with_self, skip_first, card,
            gamma, gamma1, gamma2, pmf, expected, varies,
        )  # fmt: skip


@njit(cache=True)
def _ascending_total(ordered, z, fill, count):
    """``ordered[:z]`` (ascending) and ``count`` copies of ``fill`` added one at a time in
    ascending order, the copies before the first value not below ``fill``; one +0.0 for
    them when ``fill`` is 0 (:func:`fsengine.methods.online._tie_average._ascending_sum`)."""
    copies = count if fill != 0.0 else min(count, 1)
    total = 0.0
    placed = False
    for q in range(z):
        v = ordered[q]
        if not placed and v >= fill:
            for _ in range(copies):
                total += fill
            placed = True
        total += v
    if not placed:
        for _ in range(copies):
            total += fill
    return total


@kernel("void(f8[:, ::1], i8[:, ::1], i8[::1], i8, f8[::1])", error_model="numpy")
def invariant_weights(values, by_value, counts, n, out):
    """Each column's weight ``1 / var`` (ddof 1), its sums taken over its values in
    ascending order, its zeros one run
    (:func:`fsengine.methods.online._tie_average.invariant_weights` bit for bit), from its non-zero
    values sorted: their squared deviations from the mean, ascending, are the merge of the two runs
    on either side of the mean.

    Parameters
    ----------
    values : (b, n) line j's first ``counts[j]``: column j's non-zero values.
    by_value : (b, n) line j's first ``counts[j]``: an argsort of them.
    counts : (b,) each column's non-zero values.
    n : the samples.
    out : (b,) written: the weights (inf for a constant column).
    """
    b = values.shape[0]
    squares = np.empty(n)
    line = np.empty(n)
    for j in range(b):
        z = counts[j]
        for q in range(z):
            line[q] = values[j, by_value[j, q]]
        mean = _ascending_total(line, z, 0.0, n - z) / n
        split = 0  # the first value not below the mean
        while split < z and line[split] < mean:
            split += 1
        left, right, at = split - 1, split, 0
        while left >= 0 or right < z:  # the squares ascending: the two runs merged
            if right >= z:
                d = line[left] - mean
                left -= 1
            elif left < 0:
                d = line[right] - mean
                right += 1
            else:
                below = line[left] - mean
                above = line[right] - mean
                if below * below <= above * above:
                    d = below
                    left -= 1
                else:
                    d = above
                    right += 1
            squares[at] = d * d
            at += 1
        out[j] = 1.0 / (_ascending_total(squares, z, mean * mean, n - z) / (n - 1))
