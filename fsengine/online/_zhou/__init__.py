"""The rough-set selectors of Zhou et al. (doodzhou/OSFS): OFS-A3M and OFS-Density
(:mod:`.a3m_density`, with their compiled kernels ``_zhou_kernels``), RHOFS
(:mod:`.rhofs`), SFSF (:mod:`.sfsf`) and OSFS-ET (:mod:`.osfs_et`) with their rough-set
dependency models (:mod:`.roughset`), and GNU Octave's random numbers, which their authors'
code draws (:mod:`.octave_rng`)."""

from fsengine.online._zhou.a3m_density import OFSA3M, OFSA3MEvent, OFSDensity, OFSDensityEvent
from fsengine.online._zhou.osfs_et import OSFSET, OSFSETEvent
from fsengine.online._zhou.rhofs import RHOFS, RHOFSEvent
from fsengine.online._zhou.sfsf import SFSF, SFSFEvent

__all__ = [
    "OFSA3M",
    "OSFSET",
    "RHOFS",
    "SFSF",
    "OFSA3MEvent",
    "OFSDensity",
    "OFSDensityEvent",
    "OSFSETEvent",
    "RHOFSEvent",
    "SFSFEvent",
]
