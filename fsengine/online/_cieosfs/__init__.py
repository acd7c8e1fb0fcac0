"""CIE-OSFS (conditional information entropy): the selector (:mod:`.selector`) and its
compiled kernels (``_cie_kernels``)."""

from fsengine.online._cieosfs.selector import CIEOSFS, CIEOSFSEvent

__all__ = ["CIEOSFS", "CIEOSFSEvent"]
