"""GNU Octave's ``rand`` and ``randperm`` after ``rand('state', s)``, reproduced bit for bit.

OFS-A3M, OFS-Density (doodzhou/OSFS) and RHOFS (SCU-Cloud/RHDOFS) draw random numbers;
their reference outputs (../shared/reference/zhou_octave, rhofs_octave) come from Octave
7.3 with ``rand('state', s)`` set before each call. Octave's generator is a Mersenne
Twister seeded by ``init_by_array([s])`` that returns 53-bit doubles, which is exactly
numpy's legacy ``RandomState([s]).random_sample`` (note the list: ``RandomState(s)``
seeds differently). Octave's ``randperm(n)`` takes n such numbers and shuffles forward
(a Knuth shuffle from the front). MATLAB's generator and ``randperm`` differ, so the
authors' own MATLAB numbers cannot be matched exactly.
"""

from __future__ import annotations

import numpy as np

from fsengine.errors import FSEngineError, is_integer_in


class OctaveRandom:
    """The random stream of one Octave call after ``rand('state', seed)``.

    Parameters
    ----------
    seed : int
        The ``s`` of ``rand('state', s)`` (a non-negative integer below 2**32).
    """

    def __init__(self, seed: int = 0):
        if not is_integer_in(seed, 0, 2**32 - 1):
            raise FSEngineError(f"the seed must be an integer from 0 to 2**32 - 1, got {seed!r}")
        self.seed = int(seed)
        self._state = np.random.RandomState([self.seed])
        self.drawn = 0

    def rand(self, n: int = 1) -> np.ndarray:
        """``rand(1, n)``: the next n uniform numbers in [0, 1)."""
        self.drawn += n
        return self._state.random_sample(n)

    def randperm(self, n: int) -> np.ndarray:
        """``randperm(n) - 1``: a permutation of ``range(n)`` (0-based), drawing n numbers.

        Forward shuffle: for k = 0..n-1, swap position k with ``k + floor(u_k * (n - k))``.
        ``randperm(0)`` draws nothing.
        """
        if n <= 0:
            return np.zeros(0, dtype=np.int64)
        u = self.rand(n)
        perm = np.arange(n)
        for k in range(n):
            j = k + int(u[k] * (n - k))
            perm[k], perm[j] = perm[j], perm[k]
        return perm
