"""K-nearest-neighbour relation of K-OFSD, computed exactly as the authors' code does.

The authors' MATLAB code (``K_OFSD.m``, run in GNU Octave) measures distances with
``pdist(X_S, 'seuclidean')``, which in the Octave statistics package evaluates, for
samples ``i < j``::

    d_ij = sqrt( sum_f ( (w_f * (x_if - x_jf)) * (x_if - x_jf) ) ),   w_f = 1 / var_f

with ``var_f`` the sample variance (n - 1) of column f and the sum taken
sequentially over the columns of ``X_S``. Each sample's distances are then sorted
with a stable sort (ties go to the lower sample index, NaN last) and sorted
positions 2..K+1 are its neighbours: the first sorted element is skipped, and it
is the sample itself only when the sample has no exact duplicate
(``variant="reference"``). The printed Algorithm 4 instead excludes x_i itself
(``variant="paper"``).

Two exact fast paths replace the N x N sort:

* one feature (:func:`single_feature_neighbour_stats`): the K+1 nearest samples of
  a sample are a window around it in the column's sorted order; the window is
  found with K vectorised comparisons, the labels inside it are counted with
  prefix sums, and any sample whose window boundary is a distance tie is
  recomputed by the definition (full stable sort of its distance row);
* a feature set (:func:`set_neighbour_stats`): the squared distances of the
  selected set are kept and one feature's terms are added to them (the same
  floating-point sum as the reference when features arrive in column order); the
  K+1 nearest are found with a partition, ties at the boundary again fall back to
  the definition.

Both return, for every sample, the number of its K neighbours that share its
label and, when asked, the summed distances to same-label and other-label
neighbours (for Card_Distance).

This module is the relation's public face; one concern per module behind it:
:mod:`.reference` (the definitions), :mod:`.single` (one feature), :mod:`.sets` (a
feature set), :mod:`.set_terms` (what a set keeps between tests in a stream, its lists
and their tuning constants) and :mod:`.common` (the kernels' arrays and numpy
fallbacks they share).
"""

from fsengine.methods.online._roughset.kofsd.reference import (
    METRICS,
    VARIANTS,
    NeighbourStats,
    distance_terms,
    feature_weights,
    nearest_neighbours,
    pairwise_distances,
)
from fsengine.methods.online._roughset.kofsd.set_terms import (
    ColumnSetTerms,
    DenseSetTerms,
    set_neighbour_stats_from_columns,
)
from fsengine.methods.online._roughset.kofsd.sets import (
    set_neighbour_stats,
    set_plus_feature_stats,
)
from fsengine.methods.online._roughset.kofsd.single import (
    single_feature_counts,
    single_feature_neighbour_stats,
    single_feature_neighbour_stats_for_ks,
)

__all__ = [
    "METRICS",
    "VARIANTS",
    "ColumnSetTerms",
    "DenseSetTerms",
    "NeighbourStats",
    "distance_terms",
    "feature_weights",
    "nearest_neighbours",
    "pairwise_distances",
    "set_neighbour_stats",
    "set_neighbour_stats_from_columns",
    "set_plus_feature_stats",
    "single_feature_counts",
    "single_feature_neighbour_stats",
    "single_feature_neighbour_stats_for_ks",
]
