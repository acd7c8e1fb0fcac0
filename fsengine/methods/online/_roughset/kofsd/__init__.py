"""K-OFSD (Zhou, Hu, Li and Wu, 2017): the selector (:mod:`.selector`), the neighbour
machinery it stands on (:mod:`.neighbours`: the reference definitions, the single-feature
path and the set tests), the card functions (:mod:`.cards`) and their compiled kernels
(``_knn_kernels``: one feature's neighbours; ``_set_kernels``: the set tests), and its
per-gene work on a Dask cluster (:mod:`.gene_pass`)."""

from fsengine.methods.online._roughset.kofsd.cards import (
    CARD_NAMES,
    CardConsistency,
    CardDistance,
    CardImbalanced,
    CardWeight,
    dependency_from_cards,
    make_card,
)
from fsengine.methods.online._roughset.kofsd.gene_pass import (
    GeneParallelRun,
    GenePass,
    gene_parallel_selection,
    gene_pass,
)
from fsengine.methods.online._roughset.kofsd.neighbours import (
    nearest_neighbours,
    pairwise_distances,
)
from fsengine.methods.online._roughset.kofsd.selector import (
    ACTION_CODES,
    KOFSD,
    KOFSDEvent,
    k_warning,
    run_kofsd,
    run_kofsd_for_ks,
)

__all__ = [
    "ACTION_CODES",
    "CARD_NAMES",
    "KOFSD",
    "CardConsistency",
    "CardDistance",
    "CardImbalanced",
    "CardWeight",
    "GenePass",
    "GeneParallelRun",
    "KOFSDEvent",
    "dependency_from_cards",
    "gene_parallel_selection",
    "gene_pass",
    "k_warning",
    "make_card",
    "nearest_neighbours",
    "pairwise_distances",
    "run_kofsd",
    "run_kofsd_for_ks",
]
