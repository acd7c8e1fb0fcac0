"""The selectors that decide by a rough-set dependency: a feature set is worth the share of
the samples whose granule under the set (their neighbourhood, hypercuboid or equivalence
class) holds their own class. K-OFSD (:mod:`.kofsd`: k nearest neighbours); OFS-A3M and
OFS-Density (:mod:`.a3m_density`: adapted neighbourhoods; compiled ``_dependency_kernels``,
and ``_printed_kernels`` for the printed variant); RHOFS (:mod:`.rhofs`: rough
hypercuboids); SFSF (:mod:`.sfsf`) and OSFS-ET (:mod:`.osfs_et`) on the classical, fuzzy,
k-nearest and radius models of :mod:`.roughset` (compiled ``_roughset_kernels``); and GNU
Octave's random numbers, which the authors' code of the last five draws
(:mod:`.octave_rng`)."""

from fsengine.methods.online._roughset.a3m_density import (
    OFSA3M,
    OFSA3MEvent,
    OFSDensity,
    OFSDensityEvent,
)
from fsengine.methods.online._roughset.kofsd import KOFSD, KOFSDEvent
from fsengine.methods.online._roughset.osfs_et import OSFSET, OSFSETEvent
from fsengine.methods.online._roughset.rhofs import RHOFS, RHOFSEvent
from fsengine.methods.online._roughset.sfsf import SFSF, SFSFEvent

__all__ = [
    "KOFSD",
    "KOFSDEvent",
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
