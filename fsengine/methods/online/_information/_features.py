"""What SFS-FI and OSSFS-DD keep of the stream: the labels' states, features as MIToolbox
states, and the compiled measures on them (:mod:`._mitoolbox_kernels`), equal to the definitions
in :mod:`.mitoolbox` bit for bit."""

from __future__ import annotations

import numpy as np

from fsengine._compute import kernels
from fsengine._compute.parallel import run_chunks
from fsengine.methods.online._information import mitoolbox

#: The compiled measures.
MITOOLBOX_KERNELS = "methods.online._information._mitoolbox_kernels"
#: The table of conditional-entropy terms is built when it has at most this many cells
#: ((n + 1)^2: 8 MB); beyond, each term is computed where it is needed (the same value).
TERM_TABLE_CELLS = 1 << 20


def _kernels():
    return kernels.load(MITOOLBOX_KERNELS)


class Labels:
    """The 0/1 labels as MIToolbox states, H(Y) and the table of terms for n samples."""

    def __init__(self, y: np.ndarray):
        states, count = mitoolbox.states(y)
        self.states = np.ascontiguousarray(states, dtype=np.int64)
        self.count = count
        self.n = len(y)
        self.entropy = mitoolbox.entropy(y)
        cells = (self.n + 1) ** 2
        self.table = np.zeros(cells if cells <= TERM_TABLE_CELLS else 0)
        if len(self.table):
            _kernels().term_table(self.n, self.table)


class Measured:
    """A block of features as states, with H(X) and SU(X, Y) (``mi/SU.m``) of each, the
    columns split among the kernel threads (:func:`fsengine._compute.parallel.run_chunks`; the
    values do not depend on it)."""

    def __init__(self, block: np.ndarray, labels: Labels):
        n, b = block.shape
        self.states = np.empty((n, b), dtype=np.int64, order="F")
        self.n_states = np.empty(b, dtype=np.int64)
        self.entropy = np.empty(b)
        self.mi = np.empty(b)
        self.su = np.empty(b)
        if not b:
            return
        kernel = _kernels().column_measures

        def chunk(lo: int, hi: int) -> None:
            kernel(
                block[:, lo:hi],
                labels.states,
                labels.count,
                labels.entropy,
                self.states[:, lo:hi],
                self.n_states[lo:hi],
                self.entropy[lo:hi],
                self.mi[lo:hi],
                self.su[lo:hi],
            )

        run_chunks(chunk, b, min_chunk=max(1, 20000 // max(n, 1)))


class Store:
    """Features' states as the columns of one Fortran-ordered matrix, in order, with room
    to grow (what the kernels read), and one number per feature (``value``: a member's SU
    with the class, an arrived feature's entropy)."""

    def __init__(self, n: int, capacity: int = 64):
        self._states = np.empty((n, capacity), dtype=np.int64, order="F")
        self._n_states = np.empty(capacity, dtype=np.int64)
        self._value = np.empty(capacity)
        self.size = 0

    def append(self, states: np.ndarray, n_states: int, value: float = np.nan) -> None:
        if self.size == self._states.shape[1]:
            grown = np.empty((self._states.shape[0], 2 * self.size), dtype=np.int64, order="F")
            grown[:, : self.size] = self._states
            self._states = grown
            self._n_states = np.concatenate([self._n_states, np.empty(self.size, np.int64)])
            self._value = np.concatenate([self._value, np.empty(self.size)])
        self._states[:, self.size] = states
        self._n_states[self.size] = n_states
        self._value[self.size] = value
        self.size += 1

    def keep(self, mask) -> None:
        """Keep the columns where ``mask`` (a sequence of bool, one per column) is true."""
        keep = np.flatnonzero(np.asarray(mask, dtype=bool))
        m = len(keep)
        self._states[:, :m] = self._states[:, keep]
        self._n_states[:m] = self._n_states[keep]
        self._value[:m] = self._value[keep]
        self.size = m

    @property
    def states(self) -> np.ndarray:
        return self._states[:, : self.size]

    @property
    def n_states(self) -> np.ndarray:
        return self._n_states[: self.size]

    @property
    def value(self) -> np.ndarray:
        return self._value[: self.size]

    def column(self, j: int) -> np.ndarray:
        return self._states[:, j]


def conditional_mi(store: Store, condition: np.ndarray, labels: Labels) -> np.ndarray:
    """``I(A; Y | Z)`` in bits for every feature A of ``store`` (MIToolbox's
    ``cmi(A, Y, Z)``; :func:`._mitoolbox_kernels.conditional_mi_given`).

    Parameters
    ----------
    store : Store
        The features A, in order.
    condition : ndarray of int64, shape (n,)
        Z's states.
    labels : Labels
        Y.

    Returns
    -------
    ndarray of float, shape (store.size,)
    """
    out = np.empty(store.size)
    if store.size:
        _kernels().conditional_mi_given(
            store.states,
            store.n_states,
            np.ascontiguousarray(condition, dtype=np.int64),
            labels.states,
            labels.count,
            labels.table,
            out,
        )
    return out


def pair_su(a: np.ndarray, ka: int, ha: float, b: np.ndarray, kb: int, hb: float) -> float:
    """``SU(A, B)`` (``mi/SU.m`` with A first).

    Parameters
    ----------
    a, b : ndarray of int64, shape (n,)
        The two features' states.
    ka, kb : int
        Their numbers of states.
    ha, hb : float
        Their entropies H(A), H(B).

    Returns
    -------
    float
        ``(2 I(A; B)) / (H(A) + H(B))`` (NaN for 0 / 0).
    """
    return float(
        _kernels().pair_symmetric_uncertainty(
            np.ascontiguousarray(a), int(ka), np.ascontiguousarray(b), int(kb), ha, hb
        )
    )


def pair_mi(a: np.ndarray, ka: int, b: np.ndarray, kb: int) -> float:
    """``I(A; B)`` in bits (``mi/mi.m`` with A first).

    Parameters
    ----------
    a, b : ndarray of int64, shape (n,)
        The two features' states.
    ka, kb : int
        Their numbers of states.

    Returns
    -------
    float
    """
    return float(
        _kernels().pair_mutual_information(
            np.ascontiguousarray(a), int(ka), np.ascontiguousarray(b), int(kb)
        )
    )


def pool_pairs(states, n_states, su, beta2: float, labels: Labels) -> np.ndarray:
    """OSSFS-DD's ``flushDeterPool``: which pooled features pair up
    (:func:`._mitoolbox_kernels.flush_pool`, which prepares each as a condition).

    Parameters
    ----------
    states : sequence of ndarray of int64, shape (n,)
        The pooled features' states, in arrival order.
    n_states : sequence of int
        Their numbers of states.
    su : sequence of float
        Their SU with the class.
    beta2 : float
        ``2 * beta``.
    labels : Labels

    Returns
    -------
    ndarray of bool
        For each pooled feature: moved into S.
    """
    m, n = len(states), labels.n
    chosen = np.zeros(m, dtype=bool)
    if m < 2:
        return chosen
    matrix = np.empty((n, m), dtype=np.int64, order="F")
    for j, a in enumerate(states):
        matrix[:, j] = a
    _kernels().flush_pool(
        matrix,
        np.asarray(n_states, dtype=np.int64),
        labels.states,
        labels.count,
        np.asarray(su, dtype=float),
        float(beta2),
        labels.table,
        chosen,
    )
    return chosen


def running_statistics(su: np.ndarray, t0: int, mean: float, std: float, k1: float):
    """OSSFS-DD's running mean and standard deviation of the degrees after each of
    ``su`` (:func:`._mitoolbox_kernels.running_statistics`).

    Parameters
    ----------
    su : ndarray of float
        The degrees of features t0 + 1, t0 + 2, ... (t0 >= 2: past the first two).
    t0 : int
        How many degrees came before.
    mean, std : float
        The statistics of those t0.
    k1 : float
        ``alpha = mean + k1 * std``.

    Returns
    -------
    (ndarray, ndarray, ndarray)
        Mean, std and alpha after each degree.
    """
    m = len(su)
    means, stds, alphas = np.empty(m), np.empty(m), np.empty(m)
    if m:
        _kernels().running_statistics(
            np.ascontiguousarray(su, dtype=float), int(t0), mean, std, float(k1), 2.0,
            means, stds, alphas,
        )  # fmt: skip
    return means, stds, alphas
