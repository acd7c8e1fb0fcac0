"""Integer codes that the compiled kernels and their Python callers share.

Kept apart from the kernel modules (which import numba) so that a caller reads them
without loading numba; numba compiles them into the kernels as constants.
"""

#: K-OFSD's card functions (their codes, as the kernels compute them), and no card.
CARD_IMBALANCED, CARD_CONSISTENCY, CARD_WEIGHT, NO_CARD = 0, 1, 2, -1
CARD_CODES = {"imbalanced": CARD_IMBALANCED, "consistency": CARD_CONSISTENCY, "weight": CARD_WEIGHT}
#: The order-invariant rule's kernels (``_tie_kernels``) also know Card_Distance and the
#: rough-set k-nearest card (the share of the K listed samples that share the label).
CARD_DISTANCE, CARD_SHARE = 3, 4
TIE_CARD_CODES = {**CARD_CODES, "distance": CARD_DISTANCE, "share": CARD_SHARE}
#: The neighbourhoods of the order-invariant rule: the first K of a sample's list (K-OFSD,
#: the rough-set k-nearest model) or OFS-A3M's gap and OFS-Density's density rules.
TIE_FIRST_K, TIE_GAP, TIE_DENSITY = 0, 1, 2
#: Partial sums of the order-invariant rule's exact summation: doubles span about 2,100
#: binary orders, 53 a part; the last slot sums the NaN and infinite values apart.
MAX_PARTIALS = 48

#: Alpha-investing: the outcome of a step of the compiled walk.
ALPHA_REJECTED, ALPHA_ACCEPTED, ALPHA_TAKEN, ALPHA_COLLINEAR = 0, 1, 2, 3

#: OSFS and Fast-OSFS: the outcome of a relevant feature (``add_feature``).
OSFS_REDUNDANT_BEFORE, OSFS_ADDED, OSFS_REDUNDANT_AFTER = 2, 3, 4

#: OFS-A3M's and OFS-Density's neighbourhood rule.
ZHOU_GAP, ZHOU_DENSITY = 0, 1
#: Returned by ``set_dependency`` when the dependency cannot reach the floor asked, and by
#: ``column_dependency`` when it is certainly above the threshold asked.
ZHOU_BELOW_FLOOR, ZHOU_ABOVE_THRESHOLD = -1.0, 2.0

#: SFSF's and OSFS-ET's distance rules (``_roughset_kernels``): the first K samples, or the
#: samples within a radius.
ROUGHSET_KNN, ROUGHSET_RADIUS = 0, 1
#: Up to this many K at once, K-OFSD's single-feature counts come from one sliding window
#: per K; beyond, one walk per run of equal values serves every K (the lists for a smaller
#: K are prefixes).
WINDOW_MAX_KS = 2
