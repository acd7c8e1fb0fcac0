"""Fisher's z test of (conditional) independence, as the LOFS toolbox runs it.

OSFS, Fast-OSFS and SAOLA (kuiy/LOFS, ``my_cond_indep_fisher_z.m``) test whether X and
Y are independent given a set S from the partial correlation r of X and Y given S
(``S2 = C_XY,XY - C_XY,S inv(C_S,S) C_S,XY`` on the sample covariance C, n - 1
normalisation): ``z = atanh(r)``, ``W = sqrt(n - |S| - 3) z``, and X, Y are independent
iff ``|W| < cutoff`` with ``cutoff = sqrt(2) erfinv(1 - alpha)`` (strict: a tie is
dependent). A NaN r (a constant column, a singular ``C_S,S``) makes W NaN; every caller
in the toolbox reads a NaN dependency as independence, and so does :func:`independent`.
Reference: ../shared/reference/lofs_octave/README.md, "Shared by OSFS, Fast-OSFS and SAOLA".
"""

from __future__ import annotations

import math

import numpy as np

#: Octave 7.3's ``sqrt(2)*erfinv(2*(1-alpha/2)-1)`` where it differs from scipy's erfinv
#: (by one ulp at alpha = 0.01; the reference README gives the value).
OCTAVE_CUTOFFS = {0.01: 2.5758293035488999}


def fisher_z_cutoff(alpha: float) -> float:
    """The two-sided threshold on |W| for significance level ``alpha`` (Octave's value).

    Parameters
    ----------
    alpha : float
        Significance level, 0 < alpha < 1.

    Returns
    -------
    float
        ``sqrt(2) * erfinv(1 - alpha)``, the normal quantile 1 - alpha / 2.
    """
    if alpha in OCTAVE_CUTOFFS:
        return OCTAVE_CUTOFFS[alpha]
    from scipy.special import erfinv

    return float(math.sqrt(2.0) * erfinv(2.0 * (1.0 - alpha / 2.0) - 1.0))


def fisher_z_statistic(r: float, n_samples: int, n_conditioning: int) -> float:
    """``W = sqrt(n - |S| - 3) * 0.5 * log((1 + r) / (1 - r))``, as Octave evaluates it.

    r = +-1 gives +-inf (dependent); NaN stays NaN. With ``df = n - |S| - 3 <= 0`` the
    toolbox's ``sqrt(df)`` is imaginary (or 0) and only ``abs(W)`` is compared, so the value
    here is ``sqrt(|df|) * z``: 0 for df = 0 and finite z, NaN for df = 0 and r = +-1
    (``0 * Inf``; Octave then says "dependent", :func:`independent`).
    """
    if math.isnan(r):
        return math.nan
    df = n_samples - n_conditioning - 3
    if abs(r) >= 1.0:
        z = math.copysign(math.inf, r)
    else:
        z = 0.5 * math.log((1.0 + r) / (1.0 - r))
    if df == 0:
        return math.nan if math.isinf(z) else 0.0 * z
    return math.sqrt(abs(df)) * z


def independent(r: float, n_samples: int, n_conditioning: int, cutoff: float) -> bool:
    """Whether the toolbox's callers treat the pair as independent: r NaN (every caller
    checks ``isnan(dep)``), or ``|W| < cutoff`` (:func:`fisher_z_statistic`; a NaN W with a
    finite r, df = 0 and r = +-1, fails the comparison: dependent)."""
    if math.isnan(r):
        return True
    return abs(fisher_z_statistic(r, n_samples, n_conditioning)) < cutoff


def partial_correlation(
    cov: np.ndarray, x: int, y: int, given: list[int] | tuple[int, ...]
) -> float:
    """Partial correlation of variables x and y given ``given`` from a covariance matrix.

    ``S2 = C[xy, xy] - C[xy, S] inv(C[S, S]) C[S, xy]``, ``r = S2[0, 1] / sqrt(S2[0, 0]
    S2[1, 1])``, with an explicit inverse as the toolbox has. A singular ``C[S, S]``
    (Octave: ``inv`` warns and returns Inf) and a zero variance give NaN.

    Parameters
    ----------
    cov : ndarray, shape (m, m)
        Sample covariance of the variables.
    x, y : int
        Indices of the two variables in ``cov``.
    given : sequence of int
        Indices of the conditioning variables (may be empty).

    Returns
    -------
    float
    """
    xy = [x, y]
    block = cov[np.ix_(xy, xy)]
    if len(given):
        s = list(given)
        try:
            inverse = np.linalg.inv(cov[np.ix_(s, s)])
        except np.linalg.LinAlgError:
            return math.nan
        if not np.all(np.isfinite(inverse)):
            return math.nan
        cross = cov[np.ix_(xy, s)]
        block = block - cross @ inverse @ cross.T
    product = block[0, 0] * block[1, 1]
    if not product > 0:  # a zero variance: 0/0 in Octave
        return math.nan
    return float(block[0, 1] / math.sqrt(product))
