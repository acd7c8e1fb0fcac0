"""Compiled (numba) kernel of OFS-FPD's ranking step: fuzzy Pareto dominance scores.

The same arithmetic as :func:`fsengine.online._ofsfpd.dominance_scores` (objectives
clipped at 0, a factor of 1 where ``u <= v + tolerance`` else ``v / u``, factors
multiplied in objective order, the largest degree over the other rows), without
numpy's per-call overhead on matrices of a dozen rows.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def dominance_scores(objectives, tolerance):
    """Each row's largest degree of being dominated by another row (0 for a single row).

    Parameters
    ----------
    objectives : float64 array (m, n_objectives)
    tolerance : float
        Objectives within this are equal.

    Returns
    -------
    float64 array (m,)
    """
    m, k = objectives.shape
    clipped = np.empty((m, k))
    for a in range(m):
        for i in range(k):
            clipped[a, i] = max(objectives[a, i], 0.0)
    scores = np.zeros(m)
    for b in range(m):
        best = 0.0
        for a in range(m):
            if a == b:
                continue
            degree = 1.0
            for i in range(k):
                u = clipped[a, i]
                v = clipped[b, i]
                factor = 1.0 if u <= v + tolerance else v / u
                degree = factor if i == 0 else degree * factor
            if degree > best:
                best = degree
        scores[b] = best
    return scores
