"""The selectors that decide by information measures: SFS-FI (:mod:`.sfs_fi`) and OSSFS-DD
(:mod:`.ossfs_dd`) of Zhou et al. (doodzhou/OSFS) on MIToolbox's measures
(:mod:`.mitoolbox`, the definitions; ``_mitoolbox_kernels``, compiled, the same values), and
CIE-OSFS (:mod:`.cieosfs`: the conditional information entropy of rough sets; compiled
``_cie_kernels``)."""

from fsengine.methods.online._information.cieosfs import CIEOSFS, CIEOSFSEvent
from fsengine.methods.online._information.ossfs_dd import OSSFSDD, OSSFSDDEvent
from fsengine.methods.online._information.sfs_fi import SFSFI, SFSFIEvent

__all__ = ["CIEOSFS", "OSSFSDD", "SFSFI", "CIEOSFSEvent", "OSSFSDDEvent", "SFSFIEvent"]
