"""The selectors that decide by correlations and tests of (conditional) independence: those
of the LOFS library (Yu, Wu, Ding and Pei; kuiy/LOFS), Alpha-investing
(:mod:`.alpha_investing`), OSFS and Fast-OSFS (:mod:`.osfs`), SAOLA and group SAOLA
(:mod:`.saola`) with Fisher's z test they share (:mod:`.fisher_z`) and their compiled
kernels (``_alpha_kernels``, ``_osfs_kernels``); and OFS-FPD (:mod:`.ofsfpd`: Pearson
correlations ranked by fuzzy Pareto dominance; compiled ``_fpd_kernels``)."""

from fsengine.methods.online._statistical.alpha_investing import AlphaInvesting, AlphaInvestingEvent
from fsengine.methods.online._statistical.ofsfpd import OFSFPD, OFSFPDEvent
from fsengine.methods.online._statistical.osfs import OSFS, FastOSFS, OSFSEvent
from fsengine.methods.online._statistical.saola import (
    SAOLA,
    GroupSAOLA,
    GroupSAOLAEvent,
    SAOLAEvent,
)

__all__ = [
    "OFSFPD",
    "OSFS",
    "SAOLA",
    "AlphaInvesting",
    "AlphaInvestingEvent",
    "FastOSFS",
    "GroupSAOLA",
    "GroupSAOLAEvent",
    "OFSFPDEvent",
    "OSFSEvent",
    "SAOLAEvent",
]
