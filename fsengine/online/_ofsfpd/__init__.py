"""OFS-FPD (fuzzy preference dominance): the selector (:mod:`.selector`) and its
compiled kernels (``_fpd_kernels``)."""

from fsengine.online._ofsfpd.selector import OFSFPD, OFSFPDEvent

__all__ = ["OFSFPD", "OFSFPDEvent"]
