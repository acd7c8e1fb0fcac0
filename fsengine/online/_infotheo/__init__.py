"""The information-theoretic streaming selectors of Zhou et al. (doodzhou/OSFS): SFS-FI
(:mod:`.sfs_fi`) and OSSFS-DD (:mod:`.ossfs_dd`), on MIToolbox's measures
(:mod:`.mitoolbox`, the definitions; ``_mitoolbox_kernels``, compiled, the same values)."""

from fsengine.online._infotheo.ossfs_dd import OSSFSDD, OSSFSDDEvent
from fsengine.online._infotheo.sfs_fi import SFSFI, SFSFIEvent

__all__ = ["OSSFSDD", "SFSFI", "OSSFSDDEvent", "SFSFIEvent"]
