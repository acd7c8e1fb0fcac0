"""Compiled (numba) MIToolbox measures for SFS-FI and OSSFS-DD, equal bit for bit to the
definitions in :mod:`.mitoolbox` (and so to MIToolbox's C).

A feature is kept as its integer states (``floor(x) - min``) and their number. Every sum
runs over the occupied cells in MIToolbox's order with MIToolbox's operations: ``c / n``
probabilities, the ``log`` of the same quotient (the C library's ``log``, as numba calls
it), one running sum, then ``/ log(2)``.

``I(A; Y | Z) = H(A | Z) - H(A | YZ)`` is the measure both selectors call most, always
with the labels Y in the middle and a feature Z as the condition. A condition is prepared
once (:func:`prepare_condition`): the samples grouped by Z's state in ascending order, and
grouped by the joint state YZ in the order of first appearance (MIToolbox's
``mergeArrays`` numbering); each group lists its samples by index. Then
``H(A | groups) = -sum_groups sum_a (c/n) log((c/n) / (g/n))`` runs over the groups in
order and, within a group of g samples, over A's states in ascending order with their
counts c: MIToolbox's joint index ``group * numStatesA + stateA``. Within a group A's
states are counted with a dense counter when A has few states for the groups, else sorted.
A pure cell (c = g) adds ``-(c/n) * log(1) = -0``, which changes nothing: it is skipped.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from fsengine._compute.jit import kernel

#: A dense table of counts is used when it has at most this many cells per sample.
DENSE_CELLS_PER_SAMPLE = 4
#: Joint-state keys stay below this (int64); beyond, the occupied states are ranked first.
MAX_KEY = 2**62


@njit(cache=True)
def _states(x, out):
    """``floor(x) - min`` into ``out`` (int64); returns the number of states."""
    n = x.shape[0]
    low = math.floor(x[0])
    high = low
    for i in range(n):
        f = math.floor(x[i])
        if f < low:
            low = f
        if f > high:
            high = f
    for i in range(n):
        out[i] = np.int64(math.floor(x[i]) - low)
    return np.int64(high - low) + 1


@njit(cache=True)
def _runs(keys, n_keys, uniq, counts):
    """The distinct values of ``keys`` in ascending order and their counts; returns how
    many. A dense counter when the range is small, else a sort."""
    n = keys.shape[0]
    if n_keys <= DENSE_CELLS_PER_SAMPLE * n + 16:
        tally = np.zeros(n_keys, dtype=np.int64)
        for i in range(n):
            tally[keys[i]] += 1
        m = 0
        for v in range(n_keys):
            if tally[v] > 0:
                uniq[m] = v
                counts[m] = tally[v]
                m += 1
        return m
    ordered = np.sort(keys)
    m = 0
    i = 0
    while i < n:
        j = i
        while j < n and ordered[j] == ordered[i]:
            j += 1
        uniq[m] = ordered[i]
        counts[m] = j - i
        m += 1
        i = j
    return m


@njit(cache=True)
def _entropy(s, k, uniq, counts):
    """H(S) in bits for states ``s`` (k states)."""
    n = s.shape[0]
    nf = float(n)
    m = _runs(s, k, uniq, counts)
    h = 0.0
    for r in range(m):
        p = counts[r] / nf
        h -= p * math.log(p)
    return h / math.log(2.0)


@njit(cache=True)
def _rank_of(values, m, v):
    """The position of ``v`` among the ``m`` ascending ``values`` (binary search)."""
    lo = 0
    hi = m
    while lo < hi:
        mid = (lo + hi) // 2
        if values[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True)
def _count_of(values, counts, m, v):
    """The count of ``v`` among the ``m`` ascending ``values`` (binary search)."""
    lo = 0
    hi = m
    while lo < hi:
        mid = (lo + hi) // 2
        if values[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return counts[lo]


@njit(cache=True)
def _mutual_information(sx, kx, sy, ky, keys, uniq, counts, ux, cx, uy, cy):
    """I(X; Y) in bits: joint index ``stateY * kx + stateX`` ascending."""
    n = sx.shape[0]
    nf = float(n)
    mx = _runs(sx, kx, ux, cx)
    my = _runs(sy, ky, uy, cy)
    if ky > MAX_KEY // kx:
        # kx * ky would overflow: the occupied states' ranks keep the order of the cells
        for i in range(n):
            keys[i] = _rank_of(uy, my, sy[i]) * mx + _rank_of(ux, mx, sx[i])
        m = _runs(keys, mx * my, uniq, counts)
        total = 0.0
        for r in range(m):
            joint = counts[r] / nf
            px = cx[uniq[r] % mx] / nf
            py = cy[uniq[r] // mx] / nf
            total += joint * math.log(joint / px / py)
        return total / math.log(2.0)
    for i in range(n):
        keys[i] = sy[i] * kx + sx[i]
    m = _runs(keys, kx * ky, uniq, counts)
    total = 0.0
    for r in range(m):
        joint = counts[r] / nf
        px = _count_of(ux, cx, mx, uniq[r] % kx) / nf
        py = _count_of(uy, cy, my, uniq[r] // kx) / nf
        total += joint * math.log(joint / px / py)
    return total / math.log(2.0)


@kernel(
    "void(f8[:, :], i8[::1], i8, f8, i8[::1, :], i8[::1], f8[::1], f8[::1], f8[::1])",
    nogil=True,
)
def column_measures(block, y_states, y_count, y_entropy, states, n_states, h, mi, su):
    """For every column of ``block``: its states (into ``states``, one column each), their
    number, H(X), I(X; Y) and ``SU = (2 I) / (H(X) + H(Y))`` (``mi/SU.m``; NaN for 0 / 0).

    Parameters
    ----------
    block : float64 (n, b)
    y_states : int64 (n,)
        The labels' states; ``y_count`` their number, ``y_entropy`` H(Y).
    states : int64 (n, b), Fortran order (out)
    n_states : int64 (b,) (out)
    h, mi, su : float64 (b,) (out)
    """
    n, b = block.shape
    keys = np.empty(n, dtype=np.int64)
    uniq = np.empty(n, dtype=np.int64)
    counts = np.empty(n, dtype=np.int64)
    ux = np.empty(n, dtype=np.int64)
    cx = np.empty(n, dtype=np.int64)
    uy = np.empty(n, dtype=np.int64)
    cy = np.empty(n, dtype=np.int64)
    for j in range(b):
        s = states[:, j]
        k = _states(block[:, j], s)
        n_states[j] = k
        h[j] = _entropy(s, k, uniq, counts)
        mi[j] = _mutual_information(s, k, y_states, y_count, keys, uniq, counts, ux, cx, uy, cy)
        score = 2.0 * mi[j]
        total = h[j] + y_entropy
        if total == 0.0:
            su[j] = np.nan if score == 0.0 else np.inf * score
        else:
            su[j] = score / total


@kernel("f8(i8[::1], i8, i8[::1], i8, f8, f8)", nogil=True)
def pair_symmetric_uncertainty(sa, ka, sb, kb, ha, hb):
    """``SU(A, B) = (2 I(A; B)) / (H(A) + H(B))`` (``mi/SU.m`` on two features, A first),
    given their entropies."""
    n = sa.shape[0]
    keys = np.empty(n, dtype=np.int64)
    uniq = np.empty(n, dtype=np.int64)
    counts = np.empty(n, dtype=np.int64)
    ux = np.empty(n, dtype=np.int64)
    cx = np.empty(n, dtype=np.int64)
    uy = np.empty(n, dtype=np.int64)
    cy = np.empty(n, dtype=np.int64)
    score = 2.0 * _mutual_information(sa, ka, sb, kb, keys, uniq, counts, ux, cx, uy, cy)
    total = ha + hb
    if total == 0.0:
        return np.nan if score == 0.0 else np.inf * score
    return score / total


@kernel("f8(i8[::1], i8, i8[::1], i8)", nogil=True)
def pair_mutual_information(sa, ka, sb, kb):
    """``I(A; B)`` (``mi/mi.m`` with A first) in bits."""
    n = sa.shape[0]
    keys = np.empty(n, dtype=np.int64)
    uniq = np.empty(n, dtype=np.int64)
    counts = np.empty(n, dtype=np.int64)
    ux = np.empty(n, dtype=np.int64)
    cx = np.empty(n, dtype=np.int64)
    uy = np.empty(n, dtype=np.int64)
    cy = np.empty(n, dtype=np.int64)
    return _mutual_information(sa, ka, sb, kb, keys, uniq, counts, ux, cx, uy, cy)


@njit(cache=True)
def _group(keys, order, starts):
    """Samples grouped by ``keys`` ascending, by index within a group (a stable sort):
    ``order`` the samples, ``starts`` the groups' bounds; returns the number of groups."""
    n = keys.shape[0]
    idx = np.argsort(keys, kind="mergesort")
    g = 0
    for i in range(n):
        order[i] = idx[i]
        if i == 0 or keys[idx[i]] != keys[idx[i - 1]]:
            starts[g] = i
            g += 1
    starts[g] = n
    return g


@kernel("void(i8[::1], i8[::1], i8, i8[::1], i8[::1], i8[::1], i8[::1], i8[::1])", nogil=True)
def prepare_condition(sz, sy, ky, z_order, z_starts, yz_order, yz_starts, n_groups):
    """The groups of a condition Z (:func:`conditional_mi`): by Z's state ascending
    (``z_order``, ``z_starts``), and by the joint state YZ numbered by first appearance
    (``yz_order``, ``yz_starts``); each ``*_starts`` has n + 1 slots. ``n_groups`` (2,)
    receives the two numbers of groups."""
    _prepare_condition(sz, sy, ky, z_order, z_starts, yz_order, yz_starts, n_groups)


@njit(cache=True)
def _prepare_condition(sz, sy, ky, z_order, z_starts, yz_order, yz_starts, n_groups):
    """:func:`prepare_condition`'s work, for the kernels that prepare several."""
    n = sz.shape[0]
    n_groups[0] = _group(sz, z_order, z_starts)
    keys = np.empty(n, dtype=np.int64)
    for i in range(n):
        keys[i] = sy[i] + sz[i] * ky  # mergeArrays(Y, Z): Y's state + Z's state * numStatesY
    order = np.empty(n, dtype=np.int64)
    starts = np.empty(n + 1, dtype=np.int64)
    gyz = _group(keys, order, starts)
    first = np.empty(gyz, dtype=np.int64)
    for g in range(gyz):
        first[g] = order[starts[g]]  # a stable sort: the group's lowest index
    rank = np.argsort(first)
    position = 0
    for r in range(gyz):
        g = rank[r]
        yz_starts[r] = position
        for t in range(starts[g], starts[g + 1]):
            yz_order[position] = order[t]
            position += 1
    yz_starts[gyz] = n
    n_groups[1] = gyz


@kernel("void(i8, f8[::1])", nogil=True)
def term_table(n, out):
    """``out[g * (n + 1) + c] = (c/n) * log((c/n) / (g/n))`` for 1 <= c <= g <= n: the term
    of a cell of c samples in a group of g (:func:`_grouped_entropy`), computed once."""
    nf = float(n)
    for g in range(1, n + 1):
        cond = g / nf
        for c in range(1, g + 1):
            joint = c / nf
            out[g * (n + 1) + c] = joint * math.log(joint / cond)


@njit(cache=True)
def _term(c, g, nf, table, width):
    if table.shape[0] > 0:
        return table[g * width + c]
    joint = c / nf
    return joint * math.log(joint / (g / nf))


@njit(cache=True)
def _grouped_entropy(sa, ka, order, starts, n_groups, buffer, tally, table):
    """``H(A | groups)`` in bits: groups in order, A's states ascending within each; the
    terms from ``table`` (:func:`term_table`) when it is not empty."""
    n = sa.shape[0]
    nf = float(n)
    width = n + 1
    h = 0.0
    dense = ka * n_groups <= DENSE_CELLS_PER_SAMPLE * n + 16
    for g in range(n_groups):
        lo = starts[g]
        hi = starts[g + 1]
        size = hi - lo
        if size == 1:
            continue  # one cell of one sample: a pure cell
        if dense:
            for t in range(lo, hi):
                tally[sa[order[t]]] += 1
            for a in range(ka):
                c = tally[a]
                if c > 0:
                    tally[a] = 0
                    if c != size:  # a pure cell adds -(c/n) * log(1) = -0
                        h -= _term(c, size, nf, table, width)
            continue
        for t in range(size):
            buffer[t] = sa[order[lo + t]]
        if size <= 32:  # insertion sort
            for t in range(1, size):
                v = buffer[t]
                u = t - 1
                while u >= 0 and buffer[u] > v:
                    buffer[u + 1] = buffer[u]
                    u -= 1
                buffer[u + 1] = v
        else:
            part = np.sort(buffer[:size])
            for t in range(size):
                buffer[t] = part[t]
        t = 0
        while t < size:
            u = t
            while u < size and buffer[u] == buffer[t]:
                u += 1
            c = u - t
            if c != size:
                h -= _term(c, size, nf, table, width)
            t = u
    return h / math.log(2.0)


@njit(cache=True)
def _cmi(sa, ka, z_order, z_starts, gz, yz_order, yz_starts, gyz, buffer, tally, table):
    first = _grouped_entropy(sa, ka, z_order, z_starts, gz, buffer, tally, table)
    second = _grouped_entropy(sa, ka, yz_order, yz_starts, gyz, buffer, tally, table)
    return first - second


@kernel(
    "void(i8[::1, :], i8[::1], i8[::1], i8[::1], i8, i8[::1], i8[::1], i8, f8[::1], f8[::1])",
    nogil=True,
)
def conditional_mi(states, n_states, z_order, z_starts, gz, yz_order, yz_starts, gyz, table, out):
    """``I(A; Y | Z) = H(A | Z) - H(A | YZ)`` in bits for every column A of ``states`` (its
    number of states in ``n_states``), Z prepared by :func:`prepare_condition` (``gz``,
    ``gyz`` its numbers of groups); into ``out``. ``table``: :func:`term_table`, or empty
    to compute every term."""
    n, m = states.shape
    if m == 0:
        return
    k_max = 0
    for j in range(m):
        if n_states[j] > k_max:
            k_max = n_states[j]
    buffer = np.empty(n, dtype=np.int64)
    tally = np.zeros(min(k_max, DENSE_CELLS_PER_SAMPLE * n + 16), dtype=np.int64)
    for j in range(m):
        out[j] = _cmi(
            states[:, j],
            n_states[j],
            z_order,
            z_starts,
            gz,
            yz_order,
            yz_starts,
            gyz,
            buffer,
            tally,
            table,
        )


@kernel("i8(i8[::1, :], i8[::1], i8[::1], i8, f8[::1], f8, f8[::1], b1[::1])", nogil=True)
def flush_pool(states, n_states, sy, ky, su, beta2, table, chosen):
    """OSSFS-DD's ``flushDeterPool``: for each pooled feature i in order, the first later
    one j with ``su[i] + I(i; Y | j) > beta2`` (``2 * beta``); both are chosen. The pool's
    features are the columns of ``states``, each prepared here as a condition
    (:func:`prepare_condition`; ``sy``, ``ky``: the labels' states and their number).

    Returns
    -------
    int
        The number of conditional informations computed.
    """
    n, m = states.shape
    z_order = np.empty((m, n), dtype=np.int64).T  # Fortran order: columns contiguous
    z_starts = np.empty((m, n + 1), dtype=np.int64).T
    yz_order = np.empty((m, n), dtype=np.int64).T
    yz_starts = np.empty((m, n + 1), dtype=np.int64).T
    gz = np.empty(m, dtype=np.int64)
    gyz = np.empty(m, dtype=np.int64)
    groups = np.empty(2, dtype=np.int64)
    for j in range(1, m):  # the first is never a condition
        _prepare_condition(
            states[:, j],
            sy,
            ky,
            z_order[:, j],
            z_starts[:, j],
            yz_order[:, j],
            yz_starts[:, j],
            groups,
        )
        gz[j], gyz[j] = groups[0], groups[1]
    buffer = np.empty(n, dtype=np.int64)
    k_max = 1
    for j in range(m):
        if n_states[j] > k_max:
            k_max = n_states[j]
    tally = np.zeros(min(k_max, DENSE_CELLS_PER_SAMPLE * n + 16), dtype=np.int64)
    computed = 0
    for i in range(m):
        for j in range(i + 1, m):
            value = _cmi(
                states[:, i],
                n_states[i],
                z_order[:, j],
                z_starts[:, j],
                gz[j],
                yz_order[:, j],
                yz_starts[:, j],
                gyz[j],
                buffer,
                tally,
                table,
            )
            computed += 1
            if su[i] + value > beta2:
                chosen[i] = True
                chosen[j] = True
                break
    return computed
