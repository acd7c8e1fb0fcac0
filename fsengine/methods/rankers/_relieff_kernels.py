"""Compiled (numba) kernels of ReliefF: the sample distances and the weights' update."""

from __future__ import annotations

import numpy as np

from fsengine._compute.jit import kernel


@kernel("f8[:, ::1](f8[:, ::1])")
def cityblock(columns):
    """Manhattan distances between the samples, from ``columns`` (p, n), one feature a row.

    Each pair's sum runs over the features in order from 0.0, as
    ``scipy.spatial.distance.cdist(..., "cityblock")`` sums, so the distances are the same
    to the last bit; the features are the outer loop, so that the pairs of one sample are
    updated together (vectorised), and each pair is computed once.
    """
    p, n = columns.shape
    dist = np.zeros((n, n))
    for f in range(p):
        col = columns[f]
        for i in range(n):
            a = col[i]
            row = dist[i]
            for j in range(i + 1, n):
                row[j] += abs(a - col[j])
    for i in range(n):
        for j in range(i + 1, n):
            dist[j, i] = dist[i, j]
    return dist


@kernel("void(f8[:, ::1], i8[::1], i8[::1], f8[:, ::1], i8, f8, i8, f8[::1])")
def add_neighbour_diffs(scaled, rows, members, member_dist, k, factor, block, weights):
    """``weights += factor * (mean over the k nearest members of |scaled[R] - scaled[M]|)``
    for every sample R = ``rows[b]``, the candidates tied at the k-th distance each
    weighing (k - number nearer) / (number tied): ``relieff_score``'s numpy loop, in its
    order to the last bit. For each R the members nearer than the k-th distance are added
    in their order from 0, then those at it, and the mean is
    ``(nearer + share * tied) / k``; the means of each ``block`` of rows are added in
    order, then scaled by ``factor`` and added to ``weights``, block by block.

    Parameters
    ----------
    scaled : (n, p) the min-max scaled features.
    rows : (r,) the samples R.
    members : (m,) the candidates (hits or misses of one class).
    member_dist : (r, m) the distance of each R to each candidate (inf: never one).
    k : int
        1 <= k <= the number of finite distances of every row.
    factor, block : float, int
        -1 for hits, P(C) / (1 - P(class(R))) for misses; rows summed together.
    weights : (p,) updated in place.
    """
    r = rows.shape[0]
    m = members.shape[0]
    p = scaled.shape[1]
    nearer = np.empty(p)
    tied = np.empty(p)
    total = np.empty(p)
    for lo in range(0, r, block):
        for b in range(lo, min(lo + block, r)):
            d = member_dist[b]
            kth = np.sort(d)[k - 1]
            x = scaled[rows[b]]
            nearer[:] = 0.0
            tied[:] = 0.0
            n_nearer = 0
            n_tied = 0
            for j in range(m):
                if d[j] < kth:
                    other = scaled[members[j]]
                    for a in range(p):
                        nearer[a] += abs(x[a] - other[a])
                    n_nearer += 1
                elif d[j] == kth:
                    other = scaled[members[j]]
                    for a in range(p):
                        tied[a] += abs(x[a] - other[a])
                    n_tied += 1
            share = (k - n_nearer) / n_tied
            for a in range(p):
                mean = (nearer[a] + share * tied[a]) / k
                if b == lo:
                    total[a] = mean
                else:
                    total[a] += mean
        for a in range(p):
            weights[a] += factor * total[a]
