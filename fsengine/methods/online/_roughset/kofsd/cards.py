"""CARD functions of the OFSD framework (Zhou et al. 2017, section 3.4, Algorithm 3).

A card function turns the neighbourhood of a sample into a value in [0, 1]: how
consistent the sample's class is with its neighbours'. The dependency of a
feature set (Algorithm 2) is the sum of the card values over the samples, added
one sample at a time in sample order, divided by the number of samples.

All functions are vectorised (samples along axis 0): they take, for every sample, the number
of its K
neighbours with the same label (and, for Card_Distance, summed distances).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fsengine.errors import FSEngineError
from fsengine.methods.online._columns import sequential_sum
from fsengine.methods.online._roughset.kofsd.neighbours import NeighbourStats


@dataclass(frozen=True)
class CardImbalanced:
    """Card_Imbalanced (Algorithm 3), the card function of K-OFSD.

    A majority-class sample (label 0) scores 1 only if all K neighbours are of
    the majority class, else 0; a minority sample (label 1) scores the fraction of
    its neighbours that are minority, ``N_p / K``.
    """

    name = "imbalanced"
    needs_distances = False

    def values(self, stats: NeighbourStats, y: np.ndarray, k: int) -> np.ndarray:
        same = stats.same_count
        return np.where(y == 1, same / k, (same == k).astype(float))


@dataclass(frozen=True)
class CardConsistency:
    """Card_Consistency: 1 if all K neighbours share the sample's label, else 0."""

    name = "consistency"
    needs_distances = False

    def values(self, stats: NeighbourStats, y: np.ndarray, k: int) -> np.ndarray:
        return (stats.same_count == k).astype(float)


@dataclass(frozen=True)
class CardWeight:
    """Card_Weight: ``N_p / K`` if it exceeds ``gamma`` (default 0.5), else 0."""

    gamma: float = 0.5
    name = "weight"
    needs_distances = False

    def __post_init__(self):
        if not 0.0 <= self.gamma <= 1.0:
            raise FSEngineError(
                f"must be in [0, 1] (Card_Weight), got {self.gamma}",
                parameter="gamma",
                method="kofsd",
            )

    def values(self, stats: NeighbourStats, y: np.ndarray, k: int) -> np.ndarray:
        fraction = stats.same_count / k
        return np.where(fraction > self.gamma, fraction, 0.0)


#: Card_Distance: same-label neighbours count as closer only by more than this relative margin.
CLOSER_TOLERANCE = 1e-12


@dataclass(frozen=True)
class CardDistance:
    """Card_Distance with thresholds ``gamma2 < gamma1``.

    ``N_p / K >= gamma1`` scores 1; ``N_p / K <= gamma2`` scores 0; in between the
    sample scores 1 when its same-label neighbours are on average closer than its
    other-label neighbours (mean distance ``Sum(dis_p) / N_p < Sum(dis_n) / N_n`` by
    more than a relative 1e-12, so that equal means are a tie whatever the rounding),
    else 0.

    The printed rule reads ``Sum(dis_p)/Num_N > Sum(dis_n)/Num_N``: the first
    denominator must be ``Num_p`` and the comparison, taken literally, would reward
    samples whose own class is *farther* away, the opposite of every other card
    function. We implement the evident intent (see docs/ALGORITHMS.md). The paper
    gives no default thresholds; 0.75 and 0.25 are ours.
    """

    gamma1: float = 0.75
    gamma2: float = 0.25
    name = "distance"
    needs_distances = True

    def __post_init__(self):
        if not 0.0 <= self.gamma2 < self.gamma1 <= 1.0:
            raise FSEngineError(
                f"must be below gamma1 in [0, 1] (Card_Distance), got gamma1={self.gamma1}, "
                f"gamma2={self.gamma2}",
                parameter="gamma2",
                method="kofsd",
            )

    def values(self, stats: NeighbourStats, y: np.ndarray, k: int) -> np.ndarray:
        same = stats.same_count
        fraction = same / k
        other = k - same
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_same = stats.same_distance / same
            mean_other = stats.other_distance / other
            # Equal means (a tie in exact arithmetic) are not "closer", whatever the rounding.
            closer = mean_other - mean_same > CLOSER_TOLERANCE * np.maximum(mean_same, mean_other)
        middle = np.where(closer, 1.0, 0.0)
        return np.where(
            fraction >= self.gamma1, 1.0, np.where(fraction <= self.gamma2, 0.0, middle)
        )


CARD_NAMES = ("imbalanced", "consistency", "weight", "distance")


def make_card(name: str, *, gamma: float = 0.5, gamma1: float = 0.75, gamma2: float = 0.25):
    """Build a card function by name.

    Parameters
    ----------
    name : {"imbalanced", "consistency", "weight", "distance"}
    gamma : float
        Threshold of Card_Weight.
    gamma1, gamma2 : float
        Thresholds of Card_Distance.

    Returns
    -------
    A card function object with ``values(stats, y, k)`` and ``needs_distances``.
    """
    if name == "imbalanced":
        return CardImbalanced()
    if name == "consistency":
        return CardConsistency()
    if name == "weight":
        return CardWeight(gamma)
    if name == "distance":
        return CardDistance(gamma1, gamma2)
    raise FSEngineError(f"unknown card function {name!r}; choose one of {', '.join(CARD_NAMES)}")


def dependency_from_cards(cards: np.ndarray) -> np.ndarray | float:
    """Dependency (Algorithm 2): card values summed in sample order, divided by n.

    The sum is sequential, as in the reference, because exact ties such as a
    dependency of exactly alpha are decided by its rounding.

    Parameters
    ----------
    cards : ndarray, shape (n,) or (n, b)
        Card values, samples along axis 0.

    Returns
    -------
    float, or ndarray of shape (b,)
    """
    return sequential_sum(cards) / cards.shape[0]
