"""The selectors that decide on neighbourhoods of samples (neighbourhood rough sets: a
feature set is worth what share of the samples have neighbours of their own class, under
the set's distances). K-OFSD (:mod:`.kofsd`, with its k nearest neighbours); OFS-A3M and
OFS-Density (:mod:`.a3m_density`, with their compiled kernels ``_dependency_kernels`` and the
printed variant's ``_printed_kernels``); RHOFS (:mod:`.rhofs`), SFSF (:mod:`.sfsf`) and
OSFS-ET (:mod:`.osfs_et`) with their rough-set dependency models (:mod:`.roughset`,
compiled ``_roughset_kernels``); and GNU Octave's random numbers, which the authors' code of
the last five draws (:mod:`.octave_rng`)."""

from fsengine.methods.online._neighbourhood.a3m_density import (
    OFSA3M,
    OFSA3MEvent,
    OFSDensity,
    OFSDensityEvent,
)
from fsengine.methods.online._neighbourhood.kofsd import KOFSD, KOFSDEvent
from fsengine.methods.online._neighbourhood.osfs_et import OSFSET, OSFSETEvent
from fsengine.methods.online._neighbourhood.rhofs import RHOFS, RHOFSEvent
from fsengine.methods.online._neighbourhood.sfsf import SFSF, SFSFEvent

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
