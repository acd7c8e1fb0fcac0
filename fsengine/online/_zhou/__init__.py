"""The rough-set selectors of Zhou et al. (doodzhou/OSFS): OFS-A3M and OFS-Density
(:mod:`.a3m_density`, with their compiled kernels ``_zhou_kernels``), RHOFS
(:mod:`.rhofs`), and GNU Octave's random numbers, which their authors' code draws
(:mod:`.octave_rng`)."""

from fsengine.online._zhou.a3m_density import OFSA3M, OFSA3MEvent, OFSDensity, OFSDensityEvent
from fsengine.online._zhou.rhofs import RHOFS, RHOFSEvent

__all__ = ["OFSA3M", "RHOFS", "OFSA3MEvent", "OFSDensity", "OFSDensityEvent", "RHOFSEvent"]
