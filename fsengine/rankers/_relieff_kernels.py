"""Compiled (numba) kernel of ReliefF's sample distances."""

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
