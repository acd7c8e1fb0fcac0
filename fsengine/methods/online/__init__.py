"""Online streaming feature selectors: one feature in, one event out.

The interface every selector implements, the stream loop and the events are in
``_stream``; integer codes the kernels share in ``_codes``; per-column statistics that
several families use in ``_columns``. The families are private subpackages named by what
their selectors decide on, each with its selectors and their compiled kernels:
``_roughset`` (rough-set dependency: K-OFSD, OFS-A3M, OFS-Density, RHOFS, SFSF,
OSFS-ET), ``_statistical`` (correlations and independence tests: Alpha-investing, OSFS,
Fast-OSFS, SAOLA, group SAOLA, OFS-FPD), ``_information`` (information measures: SFS-FI,
OSSFS-DD, CIE-OSFS) and ``_embedded`` (a penalised model: Grafting). A selector is
registered once, in :data:`SELECTORS`.

``__all__`` is the public part: the selectors, their events, the stream and the order of
the rows. The names imported as themselves (``gene_pass as gene_pass``) are for the
library's own modules and tests (the gene pass on Dask, a stream's snapshot, the
neighbour rules), which may not import a private module of another package.
"""

from fsengine.methods.online._columns import COLUMN_KERNELS as COLUMN_KERNELS
from fsengine.methods.online._embedded import Grafting, GraftingEvent
from fsengine.methods.online._information import (
    CIEOSFS,
    OSSFSDD,
    SFSFI,
    CIEOSFSEvent,
    OSSFSDDEvent,
    SFSFIEvent,
)
from fsengine.methods.online._roughset import (
    OFSA3M,
    OSFSET,
    RHOFS,
    SFSF,
    OFSA3MEvent,
    OFSDensity,
    OFSDensityEvent,
    OSFSETEvent,
    RHOFSEvent,
    SFSFEvent,
)
from fsengine.methods.online._roughset.kofsd import ACTION_CODES as ACTION_CODES
from fsengine.methods.online._roughset.kofsd import (
    KOFSD,
    KOFSDEvent,
    run_kofsd,
    run_kofsd_for_ks,
)
from fsengine.methods.online._roughset.kofsd import CardConsistency as CardConsistency
from fsengine.methods.online._roughset.kofsd import CardDistance as CardDistance
from fsengine.methods.online._roughset.kofsd import CardImbalanced as CardImbalanced
from fsengine.methods.online._roughset.kofsd import CardWeight as CardWeight
from fsengine.methods.online._roughset.kofsd import (
    gene_parallel_selection as gene_parallel_selection,
)
from fsengine.methods.online._roughset.kofsd import gene_pass as gene_pass
from fsengine.methods.online._roughset.kofsd import nearest_neighbours as nearest_neighbours
from fsengine.methods.online._roughset.kofsd import pairwise_distances as pairwise_distances
from fsengine.methods.online._snapshot import decode_state as decode_state
from fsengine.methods.online._snapshot import encode_state as encode_state
from fsengine.methods.online._statistical import (
    OFSFPD,
    OSFS,
    SAOLA,
    AlphaInvesting,
    AlphaInvestingEvent,
    FastOSFS,
    GroupSAOLA,
    GroupSAOLAEvent,
    OFSFPDEvent,
    OSFSEvent,
    SAOLAEvent,
)
from fsengine.methods.online._stream import (
    ORDERS,
    Selection,
    StreamEvent,
    StreamingSelector,
    feature_order,
    stream_events,
    stream_selection,
)
from fsengine.methods.online._stream import event_columns as event_columns
from fsengine.methods.online._tie_average import (
    TIES,
    OrderDependence,
    order_dependence,
    ties_default,
)
from fsengine.methods.online._tie_average import NeighbourRule as NeighbourRule

#: The online selectors, in the order the front ends list them: the one place a selector
#: is registered (:mod:`fsengine.methods.registry` builds its registry from it).
SELECTORS = (
    KOFSD,
    OFSFPD,
    CIEOSFS,
    AlphaInvesting,
    OSFS,
    FastOSFS,
    SAOLA,
    GroupSAOLA,
    OFSA3M,
    OFSDensity,
    RHOFS,
    SFSF,
    OSFSET,
    SFSFI,
    OSSFSDD,
    Grafting,
)

__all__ = [
    # the selectors, in the order of SELECTORS, and their events
    "SELECTORS",
    "KOFSD",
    "KOFSDEvent",
    "OFSFPD",
    "OFSFPDEvent",
    "CIEOSFS",
    "CIEOSFSEvent",
    "AlphaInvesting",
    "AlphaInvestingEvent",
    "OSFS",
    "OSFSEvent",
    "FastOSFS",
    "SAOLA",
    "SAOLAEvent",
    "GroupSAOLA",
    "GroupSAOLAEvent",
    "OFSA3M",
    "OFSA3MEvent",
    "OFSDensity",
    "OFSDensityEvent",
    "RHOFS",
    "RHOFSEvent",
    "SFSF",
    "SFSFEvent",
    "OSFSET",
    "OSFSETEvent",
    "SFSFI",
    "SFSFIEvent",
    "OSSFSDD",
    "OSSFSDDEvent",
    "Grafting",
    "GraftingEvent",
    # the interface and the stream
    "ORDERS",
    "Selection",
    "StreamEvent",
    "StreamingSelector",
    "feature_order",
    "stream_events",
    "stream_selection",
    "run_kofsd",
    "run_kofsd_for_ks",
    # the order of the rows
    "TIES",
    "OrderDependence",
    "order_dependence",
    "ties_default",
]
