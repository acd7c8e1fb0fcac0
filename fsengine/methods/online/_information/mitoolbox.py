"""MIToolbox's information measures, to the last bit: the definitions that SFS-FI and
OSSFS-DD use.

The authors' code (doodzhou/OSFS, ``mi/``) measures information with MIToolbox 1.x (Adam
Pocock's C library, compiled as ``MIToolboxMex``; the C files in ``mi/`` are those of
MIToolbox's first public commit, Craigacp/MIToolbox 579c46d). Its semantics:

* **States.** A vector of doubles becomes integer states ``floor(x) - min(floor(x))``; the
  number of states is ``max - min + 1``, states that no sample takes included. Nothing
  else is discretised: 0.2 and 0.9 are the same state, 1.0 the next one.
* **Probabilities** are ``count / n``.
* **Entropy** ``H(X) = -sum_x p(x) log p(x)``, the states in ascending order, the terms
  subtracted one after another from 0, then divided by ``log(2)`` (bits).
* **Mutual information** ``I(X; Y) = sum p(x,y) log(p(x,y) / p(x) / p(y))`` over the joint
  states in the order ``stateY * numStatesX + stateX``, divided by ``log(2)``.
* **Conditional entropy** ``H(X | Z) = -sum p(x,z) log(p(x,z) / p(z))``, joint order
  ``stateZ * numStatesX + stateX``, divided by ``log(2)``.
* **Conditional mutual information** ``I(X; Y | Z) = H(X | Z) - H(X | YZ)``, where the joint
  variable YZ numbers the pairs (state of Y, state of Z) 1, 2, ... in the order in which
  the samples first show them (``mergeArrays``).
* **Symmetric uncertainty** (``mi/SU.m``, the papers' NMI) ``(2 I(X; Y)) / (H(X) + H(Y))``;
  NaN when both vectors are constant.

Only the states with a positive count add a term, so the sums here run over the occupied
states in the same order as MIToolbox's loops over all of them, with the same operations
(``count / n``, ``log`` of the same quotient, the same products, one running sum): every
value equals MIToolbox's exactly
(``tests/unit/methods/online/information/test_infotheo_measures.py`` compares them with the
outputs of the Octave equivalent in ``tests/reference/infotheo_octave``, which was
checked against the compiled C on every call of the reference runs). Python's
``math.log`` is the C library's ``log``, as MIToolbox's.

MIToolbox keeps states and joint-state counts in C ``int``: values whose floor lies
outside +-2^31 cannot be represented (:func:`check_range` refuses them), and a pair with
2^31 joint states or more overflows its arithmetic; here counts are kept per occupied
cell, ordered by (state, state) without forming the joint index, so such a pair gets the
measure as defined.
"""

from __future__ import annotations

import math

import numpy as np

from fsengine.errors import FSEngineError

#: The divisor that turns natural logarithms into bits (MIToolbox: ``log(2.0)``).
LOG2 = math.log(2.0)
#: The largest magnitude of ``floor(x)`` that MIToolbox's C ``int`` states hold.
INT_LIMIT = 2**31 - 1


def check_range(block: np.ndarray, names, method: str) -> None:
    """Refuse values whose floor does not fit MIToolbox's C ``int`` states.

    Parameters
    ----------
    block : ndarray, shape (n, b)
        Finite values (the stream has checked them).
    names : sequence of str
        The columns' names, for the message.
    method : str
        The method's name, for the message.

    Raises
    ------
    FSEngineError
        Naming the first column with a value beyond +-2^31.
    """
    if block.size == 0:
        return
    too_large = (block >= INT_LIMIT + 1.0) | (block < -float(INT_LIMIT) - 1.0)
    if too_large.any():
        row, col = np.argwhere(too_large)[0]
        raise FSEngineError(
            f"feature {names[col]!r} has the value {block[row, col]!r} at row {row + 1}: "
            f"{method} measures information on integer states floor(x) (MIToolbox), which "
            "must lie within +-2^31; rescale the data"
        )


def states(x) -> tuple[np.ndarray, int]:
    """MIToolbox's ``normaliseArray``: 0-based integer states and their number.

    Parameters
    ----------
    x : array of float, shape (n,)

    Returns
    -------
    states : ndarray of int64
        ``floor(x) - min(floor(x))``.
    count : int
        ``max - min + 1`` (states between the extremes that no sample takes included).
    """
    f = np.floor(np.asarray(x, dtype=float)).astype(np.int64)
    low = int(f.min())
    return f - low, int(f.max()) - low + 1


def _occupied(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct keys in ascending order and how many samples have each."""
    return np.unique(keys, return_counts=True)


def _occupied_pairs(major: np.ndarray, minor: np.ndarray):
    """The distinct (major, minor) pairs in MIToolbox's joint order (``major * numStates +
    minor`` ascending, without forming that number, which may not fit 64 bits) and their
    counts: ``(majors, minors, counts)``."""
    pairs, counts = np.unique(np.column_stack([major, minor]), axis=0, return_counts=True)
    return pairs[:, 0], pairs[:, 1], counts


def entropy(x) -> float:
    """H(X) in bits, as MIToolbox's ``calculateEntropy``.

    Parameters
    ----------
    x : array of float, shape (n,)

    Returns
    -------
    float
    """
    s, _ = states(x)
    n = len(s)
    _, counts = _occupied(s)
    h = 0.0
    for c in counts.tolist():
        p = c / n
        h -= p * math.log(p)
    return h / LOG2


def mutual_information(x, y) -> float:
    """I(X; Y) in bits, as MIToolbox's ``calculateMutualInformation(x, y)``.

    Parameters
    ----------
    x, y : array of float, shape (n,)

    Returns
    -------
    float
    """
    sx, _ = states(x)
    sy, _ = states(y)
    n = len(sx)
    ys_joint, xs_joint, counts = _occupied_pairs(sy, sx)
    xs, cx = _occupied(sx)
    px = dict(zip(xs.tolist(), (cx / n).tolist()))
    ys, cy = _occupied(sy)
    py = dict(zip(ys.tolist(), (cy / n).tolist()))
    m = 0.0
    for a, b, c in zip(xs_joint.tolist(), ys_joint.tolist(), counts.tolist()):
        joint = c / n
        m += joint * math.log(joint / px[a] / py[b])
    return m / LOG2


def conditional_entropy(x, z) -> float:
    """H(X | Z) in bits, as MIToolbox's ``calculateConditionalEntropy(x, z)``.

    Parameters
    ----------
    x, z : array of float, shape (n,)

    Returns
    -------
    float
    """
    sx, _ = states(x)
    sz, _ = states(z)
    n = len(sx)
    zs_joint, _, counts = _occupied_pairs(sz, sx)
    zs, cz = _occupied(sz)
    pz = dict(zip(zs.tolist(), (cz / n).tolist()))
    h = 0.0
    for b, c in zip(zs_joint.tolist(), counts.tolist()):
        joint = c / n
        h -= joint * math.log(joint / pz[b])
    return h / LOG2


def joint_variable(first, second) -> np.ndarray:
    """MIToolbox's ``mergeArrays``: the pairs (state of ``first``, state of ``second``)
    numbered 1, 2, ... in the order in which the samples first show them.

    Parameters
    ----------
    first, second : array of float, shape (n,)

    Returns
    -------
    ndarray of float, shape (n,)
    """
    s1, _ = states(first)
    s2, _ = states(second)
    _, first_at, which = np.unique(
        np.column_stack([s2, s1]), axis=0, return_index=True, return_inverse=True
    )
    number = np.empty(len(first_at), dtype=np.int64)
    number[np.argsort(first_at, kind="stable")] = np.arange(1, len(first_at) + 1)
    return number[which].astype(float)


def conditional_mutual_information(x, y, z) -> float:
    """I(X; Y | Z) in bits, as MIToolbox's ``calculateConditionalMutualInformation(x, y,
    z)``: ``H(X | Z) - H(X | YZ)``.

    Parameters
    ----------
    x, y, z : array of float, shape (n,)

    Returns
    -------
    float
    """
    return conditional_entropy(x, z) - conditional_entropy(x, joint_variable(y, z))


def symmetric_uncertainty(x, y) -> float:
    """``mi/SU.m``: ``(2 * I(X; Y)) / (H(X) + H(Y))`` (NaN when both are constant).

    Parameters
    ----------
    x, y : array of float, shape (n,)

    Returns
    -------
    float
    """
    total = entropy(x) + entropy(y)
    score = 2 * mutual_information(x, y)
    if total == 0:
        return math.nan if score == 0 else math.copysign(math.inf, score)
    return score / total
