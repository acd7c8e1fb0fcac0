"""Compiled (numba) steps of CIE-OSFS: partitions refined by a feature, H(D | B) and the
greedy reduct, with the arithmetic of the numpy definitions in ``cieosfs`` (the same
block numbering, the same terms, and numpy's pairwise summation), so that every
entropy is the same to the last bit (checked by the tests).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from fsengine._compute.jit import kernel


@njit(cache=True)
def _pairwise_leaf(a, lo, n):
    """numpy's pairwise summation of a block of at most 128 elements."""
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    while i < n - (n % 8):
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@njit(cache=True)
def _pairwise_sum(a, lo, n):
    """numpy's pairwise summation of a[lo:lo + n] (``add.reduce`` of a contiguous array):
    blocks of at most 128 by eight accumulators, larger ones split in two halves (a
    multiple of 8 first) whose sums are added. Written with an explicit stack: numba's
    cache does not keep recursive functions."""
    if n <= 128:
        return _pairwise_leaf(a, lo, n)
    frame_lo = np.empty(64, np.int64)
    frame_n = np.empty(64, np.int64)
    frame_phase = np.empty(64, np.int64)
    values = np.empty(64)
    depth, count = 0, 0
    frame_lo[0], frame_n[0], frame_phase[0] = lo, n, 0
    while depth >= 0:
        f_lo, f_n = frame_lo[depth], frame_n[depth]
        if f_n <= 128:
            values[count] = _pairwise_leaf(a, f_lo, f_n)
            count += 1
            depth -= 1
            continue
        half = f_n // 2
        half -= half % 8
        phase = frame_phase[depth]
        frame_phase[depth] = phase + 1
        if phase == 0:  # the first half
            depth += 1
            frame_lo[depth], frame_n[depth], frame_phase[depth] = f_lo, half, 0
        elif phase == 1:  # the second half
            depth += 1
            frame_lo[depth], frame_n[depth], frame_phase[depth] = f_lo + half, f_n - half, 0
        else:
            count -= 1
            values[count - 1] = values[count - 1] + values[count]
            depth -= 1
    return values[0]


@njit(cache=True)
def refine(partition, codes, out, present):
    """``cieosfs.refine``: blocks of ``partition`` split by ``codes``, numbered in the order
    of (old block, code); written to ``out``. ``present``: work array of length at least
    (number of blocks) x (largest code + 1)."""
    n = partition.shape[0]
    width = 0
    top = 0
    for i in range(n):
        width = max(width, codes[i] + 1)
        top = max(top, partition[i])
    size = (top + 1) * width
    for j in range(size):
        present[j] = 0
    for i in range(n):
        present[partition[i] * width + codes[i]] = 1
    total = 0
    for j in range(size):  # cumsum - 1, in place
        total += present[j]
        present[j] = total - 1
    for i in range(n):
        out[i] = present[partition[i] * width + codes[i]]


@njit(cache=True)
def conditional_entropy(partition, y, counts, terms):
    """``cieosfs.conditional_entropy``: H(D | B) in bits; ``counts``/``terms``: work arrays
    of length at least 2 n."""
    n = partition.shape[0]
    blocks = 0
    for i in range(n):
        blocks = max(blocks, partition[i] + 1)
    for j in range(2 * blocks):
        counts[j] = 0
    for i in range(n):
        counts[partition[i] * 2 + y[i]] += 1
    for b in range(blocks):
        size = counts[2 * b] + counts[2 * b + 1]
        for d in range(2):
            c = counts[2 * b + d]
            terms[2 * b + d] = c * np.log2(c / size) if c > 0 else 0.0
    return -(0.0 + _pairwise_sum(terms, 0, 2 * blocks)) / n + 0.0


@kernel("f8(i8[:, ::1], i8[::1], f8, b1[::1])", nogil=True)
def greedy_reduct(codes, y, tolerance, keep):
    """``CIEOSFS._reduct`` on members already in visiting order (``codes`` (m, n)): the
    partitions by the first 1, 2, ... members give H(D | SF); the greedy pass keeps a
    member when it lowers H(D | RED) by more than ``tolerance``, reusing those partitions
    while it has kept every member, and stops once H(D | RED) is within ``tolerance`` of
    H(D | SF). Writes ``keep`` (m,) and returns H(D | RED)."""
    m, n = codes.shape
    prefixes = np.zeros((m + 1, n), np.int64)
    present = np.empty((n + 1) * 65, np.int64)
    counts = np.empty(2 * n + 2, np.int64)
    terms = np.empty(2 * n + 2)
    for j in range(m):
        refine(prefixes[j], codes[j], prefixes[j + 1], present)
    target = conditional_entropy(prefixes[m], y, counts, terms)
    partition = prefixes[0].copy()
    candidate = np.empty(n, np.int64)
    current = conditional_entropy(partition, y, counts, terms)
    kept = 0
    for position in range(m):
        keep[position] = False
    for position in range(m):
        if current - target <= tolerance:
            break
        kept_all = kept == position
        if kept_all:
            candidate[:] = prefixes[position + 1]
        else:
            refine(partition, codes[position], candidate, present)
        if kept_all and position + 1 == m:
            entropy = target
        else:
            entropy = conditional_entropy(candidate, y, counts, terms)
        if current - entropy > tolerance:
            keep[position] = True
            kept += 1
            partition[:] = candidate
            current = entropy
    return current


@kernel("Tuple((i8, f8))(i8[:, ::1], f8[::1], i8, i8[::1], f8, i8[::1])", nogil=True)
def reduct_stream(codes, keys, n_members, y, tolerance, order):
    """Algorithm 1's reduct step for a run of relevant features, without events.

    ``codes`` (p, n) holds the current members (rows 0 .. ``n_members`` - 1, in reduct
    order) and then the relevant features in arrival order; ``keys`` their |corr| tie keys.
    Each feature joins SF after every member whose key is at least its own (descending
    |corr|, ties to the earlier arrival, as ``CIEOSFS._reduct`` sorts), and SF becomes the
    greedy reduct (:func:`greedy_reduct`). Writes the final members' rows to ``order``
    (p,) and returns (their count, H(D | SF))."""
    p, n = codes.shape
    size = n_members
    for i in range(size):
        order[i] = i
    visit = np.empty(p, np.int64)
    keep = np.empty(p, np.bool_)
    entropy = 0.0
    for f in range(n_members, p):
        position = 0
        while position < size and keys[order[position]] >= keys[f]:
            position += 1
        m = size + 1
        for j in range(position):
            visit[j] = order[j]
        visit[position] = f
        for j in range(position, size):
            visit[j + 1] = order[j]
        ordered = np.empty((m, n), np.int64)
        for j in range(m):
            ordered[j] = codes[visit[j]]
        entropy = greedy_reduct(ordered, y, tolerance, keep[:m])
        size = 0
        for j in range(m):
            if keep[j]:
                order[size] = visit[j]
                size += 1
    return size, entropy
