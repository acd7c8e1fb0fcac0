"""Online streaming feature selectors: one feature in, one event out.

The interface every selector implements, the stream loop and the events are in
``_stream``; integer codes the kernels share in ``_codes``; per-column statistics that
several families use in ``_columns``. Each family is a private subpackage with its
selectors and their compiled kernels: ``_kofsd`` (K-OFSD), ``_lofs`` (Alpha-investing,
OSFS, Fast-OSFS, SAOLA, group SAOLA), ``_zhou`` (OFS-A3M, OFS-Density, RHOFS, SFSF,
OSFS-ET), ``_infotheo`` (SFS-FI, OSSFS-DD), ``_ofsfpd`` (OFS-FPD), ``_cieosfs``
(CIE-OSFS) and ``_grafting`` (Grafting). A selector is registered once, in
:data:`SELECTORS`.
"""

from fsengine.online._cieosfs import CIEOSFS, CIEOSFSEvent
from fsengine.online._grafting import Grafting, GraftingEvent
from fsengine.online._infotheo import OSSFSDD, SFSFI, OSSFSDDEvent, SFSFIEvent
from fsengine.online._kofsd import (
    ACTION_CODES,
    CARD_NAMES,
    KOFSD,
    CardConsistency,
    CardDistance,
    CardImbalanced,
    CardWeight,
    GeneParallelRun,
    GenePass,
    KOFSDEvent,
    dependency_from_cards,
    gene_parallel_selection,
    gene_pass,
    k_warning,
    make_card,
    nearest_neighbours,
    pairwise_distances,
    run_kofsd,
    run_kofsd_for_ks,
)
from fsengine.online._lofs import (
    OSFS,
    SAOLA,
    AlphaInvesting,
    AlphaInvestingEvent,
    FastOSFS,
    GroupSAOLA,
    GroupSAOLAEvent,
    OSFSEvent,
    SAOLAEvent,
)
from fsengine.online._ofsfpd import OFSFPD, OFSFPDEvent
from fsengine.online._snapshot import decode_state, encode_state
from fsengine.online._stream import (
    ORDERS,
    Selection,
    StreamEvent,
    StreamingSelector,
    event_columns,
    feature_order,
    stream_events,
    stream_selection,
)
from fsengine.online._tie_average import (
    TIES,
    NeighbourRule,
    OrderDependence,
    order_dependence,
    ties_default,
)
from fsengine.online._zhou import (
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

#: The online selectors, in the order the front ends list them: the one place a selector
#: is registered (:mod:`fsengine.methods` builds its registry from it).
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
    "TIES",
    "NeighbourRule",
    "OrderDependence",
    "order_dependence",
    "ties_default",
    "decode_state",
    "encode_state",
    "SELECTORS",
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
    "FastOSFS",
    "OSFS",
    "OSFSEvent",
    "AlphaInvesting",
    "AlphaInvestingEvent",
    "GroupSAOLA",
    "GroupSAOLAEvent",
    "SAOLA",
    "SAOLAEvent",
    "ACTION_CODES",
    "CARD_NAMES",
    "CIEOSFS",
    "CIEOSFSEvent",
    "OFSFPD",
    "OFSFPDEvent",
    "CardConsistency",
    "CardDistance",
    "CardImbalanced",
    "CardWeight",
    "KOFSD",
    "KOFSDEvent",
    "ORDERS",
    "Selection",
    "StreamEvent",
    "StreamingSelector",
    "event_columns",
    "dependency_from_cards",
    "feature_order",
    "gene_parallel_selection",
    "gene_pass",
    "GenePass",
    "GeneParallelRun",
    "k_warning",
    "make_card",
    "nearest_neighbours",
    "pairwise_distances",
    "run_kofsd",
    "run_kofsd_for_ks",
    "stream_events",
    "stream_selection",
]
