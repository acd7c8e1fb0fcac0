"""What several rankers' specifications share: the citation of Yin et al. (2013) and the
number of bins."""

from __future__ import annotations

from fsengine.spec import Int

YIN = (
    "Yin, Ge, Xiao, Wang, Quan. Feature selection for high-dimensional imbalanced "
    "data. Neurocomputing 105 (2013)"
)
SECTION_44 = "; as compared in the K-OFSD paper, section 4.4"
BINS = Int(
    10,
    "bins per feature",
    label="Bins",
    low=2,
    ui_high=30,
    source="ours (the paper does not give the number)",
)
