"""The selectors of the LOFS library (Yu, Wu, Ding and Pei; kuiy/LOFS): Alpha-investing
(:mod:`.alpha_investing`), OSFS and Fast-OSFS (:mod:`.osfs`), SAOLA and group SAOLA
(:mod:`.saola`), Fisher's z test of (conditional) independence they share
(:mod:`.fisher_z`), and their compiled kernels (``_alpha_kernels``, ``_osfs_kernels``)."""

from fsengine.online._lofs.alpha_investing import AlphaInvesting, AlphaInvestingEvent
from fsengine.online._lofs.osfs import OSFS, FastOSFS, OSFSEvent
from fsengine.online._lofs.saola import SAOLA, GroupSAOLA, GroupSAOLAEvent, SAOLAEvent

__all__ = [
    "OSFS",
    "SAOLA",
    "AlphaInvesting",
    "AlphaInvestingEvent",
    "FastOSFS",
    "GroupSAOLA",
    "GroupSAOLAEvent",
    "OSFSEvent",
    "SAOLAEvent",
]
