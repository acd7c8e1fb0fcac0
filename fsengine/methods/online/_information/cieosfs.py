"""CIE-OSFS: online streaming feature selection by conditional information entropy.

Wang, Wang, Zeng, Peng, "Online streaming feature selection based on conditional
information entropy", ICBK 2017 (Algorithm 1). An arriving feature is discretised
and tested for independence from the class; a dependent one joins the selected set
SF, and SF is then rebuilt as a reduct: its features are visited in descending
``|correlation with the class|`` and kept only if they lower the conditional entropy
H(D ``| RED), until H(D |`` RED) = H(D | SF).

The paper does not say how continuous values were discretised nor which
independence test it used; the choices here are documented in docs/ALGORITHMS.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fsengine._compute import kernels
from fsengine._compute.discretise import discretise
from fsengine.errors import FSEngineError
from fsengine.methods.online._columns import pearson_with, tie_key
from fsengine.methods.online._stream import Selection, StreamEvent, StreamingSelector
from fsengine.spec import ONLINE, Choice, Int, MethodSpec, Real

TESTS = ("g", "chi2")
#: The compiled reduct kernels.
CIE_KERNELS = "methods.online._information._cie_kernels"
IRRELEVANT, ADDED, REDUNDANT = "irrelevant", "added", "redundant"
#: Entropies closer than this (bits) are equal: sig(b) > 0 and H(D|RED) = H(D|SF).
ENTROPY_TOLERANCE = 1e-12


@dataclass(frozen=True, slots=True)
class CIEOSFSEvent(StreamEvent):
    """One CIE-OSFS step.

    ``score`` is ``|corr(f, class)|`` (the reduct's visiting order); ``statistic`` and
    ``p_value`` are the independence test's; ``action`` is "irrelevant" (judged
    independent, discarded), "added" (kept in the reduct) or "redundant" (relevant
    but left out of the reduct); ``removed`` lists the features that left SF at this
    step (the new one included when redundant); ``selected_score`` is H(D | SF) in
    bits.
    """

    statistic: float = 0.0
    p_value: float = 1.0
    removed: tuple[str, ...] = ()


def independence_test(
    codes: np.ndarray, y: np.ndarray, bins: int, test: str = "g"
) -> tuple[np.ndarray, np.ndarray]:
    """Test each discretised column for independence from the binary class.

    G-test (log-likelihood ratio, ``2 sum O ln(O/E)``) or Pearson's chi-square on the
    bins x 2 contingency table, with (non-empty bins - 1) degrees of freedom.

    Parameters
    ----------
    codes : ndarray of int, shape (n, b)
    y : ndarray of {0, 1}, shape (n,)
    bins : int
    test : {"g", "chi2"}

    Returns
    -------
    statistic, p_value : ndarray, shape (b,)
        A column with a single occupied bin has statistic 0 and p-value 1.
    """
    n = len(y)
    minority = y.astype(float)
    in_bin = np.stack([(codes == v) for v in range(bins)])  # (bins, n, b)
    totals = in_bin.sum(axis=1).astype(float)  # (bins, b)
    observed1 = np.einsum("vnb,n->vb", in_bin, minority)
    observed = np.stack([totals - observed1, observed1], axis=-1)  # (bins, b, 2)
    class_totals = np.array([n - minority.sum(), minority.sum()])
    expected = totals[..., None] * class_totals / n
    with np.errstate(divide="ignore", invalid="ignore"):
        if test == "g":
            terms = 2.0 * np.where(observed > 0, observed * np.log(observed / expected), 0.0)
        elif test == "chi2":
            terms = np.where(expected > 0, (observed - expected) ** 2 / expected, 0.0)
        else:
            raise FSEngineError(f"unknown test {test!r}; choose one of {', '.join(TESTS)}")
    # Summed cell by cell so that a column's statistic does not depend on the block.
    statistic = np.zeros(codes.shape[1])
    for cell in terms.transpose(0, 2, 1).reshape(-1, codes.shape[1]):
        statistic += cell
    dof = (totals > 0).sum(axis=0) - 1
    statistic = np.maximum(statistic, 0.0)
    from scipy.special import chdtrc

    p_value = np.where(dof > 0, chdtrc(np.maximum(dof, 1), statistic), 1.0)
    return statistic, p_value


def conditional_entropy(partition: np.ndarray, y: np.ndarray) -> float:
    """H(D | B) in bits, for the partition of the samples by B's values.

    Parameters
    ----------
    partition : ndarray of int, shape (n,)
        Block label of each sample (0 .. m - 1), e.g. from :func:`refine`.
    y : ndarray of {0, 1}, shape (n,)

    Returns
    -------
    float
        ``-sum over blocks X and classes d of p(X, d) log2 p(d | X)``.
    """
    n = len(y)
    counts = np.bincount(partition * 2 + y, minlength=2 * (partition.max() + 1)).reshape(-1, 2)
    block = counts.sum(axis=1, keepdims=True)  # every block has a sample
    logs = np.log2(counts / block, out=np.zeros(counts.shape), where=counts > 0)
    terms = counts * logs  # 0 where the count is 0
    return float(-terms.sum() / n) + 0.0  # + 0.0 turns -0.0 into 0.0


def refine(partition: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """The partition by B plus one feature: blocks of ``partition`` split by ``codes``.

    Blocks are numbered 0 .. m - 1 in the order of (old block, code), as
    ``numpy.unique(joint, return_inverse=True)`` numbers them, by counting instead of
    sorting (the joint labels are below n times the number of codes).
    """
    joint = partition.astype(np.int64) * (int(codes.max()) + 1) + codes
    present = np.zeros(int(joint.max()) + 1, dtype=np.int64)
    present[joint] = 1
    return (np.cumsum(present) - 1)[joint]


class CIEOSFS(StreamingSelector):
    """CIE-OSFS as an online selector: one feature in, one event out.

    Parameters
    ----------
    bins : int, default 3
        Bins per feature (classical rough sets need discrete values).
    binning : {"quantile", "uniform"}, default "quantile"
        Equal-frequency or equal-width bins (:func:`discretise`).
    test : {"g", "chi2"}, default "g"
        Independence test between a discretised feature and the class.
    significance : float, default 0.05
        A feature is relevant when the test's p-value is below this level.

    Notes
    -----
    After a relevant feature joins SF, SF is sorted by the absolute Pearson correlation
    of the raw feature with the class, descending (values within 1e-12 tie, and ties go
    to the earlier arrival); RED
    starts empty and gains b when H(D|RED) - H(D|RED + b) > 1e-12 bits, stopping
    once H(D|RED) is within 1e-12 of H(D|SF); then SF := RED.
    """

    kernel_families = (CIE_KERNELS,)

    spec = MethodSpec(
        name="cie-osfs",
        label="CIE-OSFS",
        kind=ONLINE,
        citation="Wang, Wang, Zeng, Peng. Online streaming feature selection based on "
        "conditional information entropy. ICBK 2017",
        score="|Pearson correlation of the feature with the class| (the reduct's order)",
        set_score="H(D|SF), bits",
        parameters={
            "bins": Int(
                3,
                "bins per feature (the paper does not say how it discretised)",
                label="Bins",
                source="ours: rough sets need discrete values",
                low=2,
                high=64,
                ui_high=10,
            ),
            "binning": Choice(
                "quantile",
                "how features are cut into bins",
                label="Binning",
                source="ours (the paper is silent)",
                choices={"quantile": "equal-frequency bins", "uniform": "equal-width bins"},
            ),
            "test": Choice(
                "g",
                "independence test of a binned feature and the class",
                label="Independence test",
                source="Algorithm 1, line 4 (test not named in the paper)",
                choices={"g": "G-test (log-likelihood ratio)", "chi2": "Pearson's chi-square"},
            ),
            "significance": Real(
                0.05,
                "a feature is relevant when the test's p-value is below this",
                label="Significance",
                source="Algorithm 1, line 4",
                low=0.0,
                high=1.0,
                low_open=True,
                high_open=True,
                step=0.01,
            ),
        },
        actions={
            IRRELEVANT: "judged independent of the class, discarded",
            ADDED: "relevant and kept in the reduct",
            REDUNDANT: "relevant but left out of the reduct",
        },
        event=CIEOSFSEvent,
    )

    def _start(self) -> None:
        p = self._params
        self.bins = p["bins"]
        self.binning = p["binning"]
        self.test = p["test"]
        self.significance = p["significance"]
        self._members: list[
            tuple[str, int, int, float, np.ndarray]
        ] = []  # name, column, arrival, |corr|, codes
        self._entropy = conditional_entropy(np.zeros(len(self.y), dtype=np.int64), self.y)
        self._labels = self.y.astype(np.int64)

    @property
    def entropy(self) -> float:
        """H(D | SF) in bits (H(D) for the empty set)."""
        return self._entropy

    def _tests(self, block):
        """Codes, test statistics, p-values and ``|corr|`` of a block's columns."""
        codes = discretise(block, self.bins, self.binning)
        statistic, p_value = independence_test(codes, self.y, self.bins, self.test)
        corr = np.nan_to_num(np.abs(pearson_with(block, self.y)[0]))
        return codes, statistic, p_value, corr

    def _step_block(self, block, names, columns) -> list[CIEOSFSEvent]:
        codes, statistic, p_value, corr = self._tests(block)
        return [
            self._decide(
                codes[:, j],
                float(corr[j]),
                float(statistic[j]),
                float(p_value[j]),
                names[j],
                columns[j],
            )
            for j in range(block.shape[1])
        ]

    def _step_block_quiet(self, block, names, columns) -> None:
        """:meth:`_step_block` without events: the block's relevant features go through
        the reduct step one after another in one compiled call
        (:func:`_cie_kernels.reduct_stream`; the same decisions as :meth:`_decide`)."""
        codes, _, p_value, corr = self._tests(block)
        first = self.n_seen
        self.n_seen = first + block.shape[1]
        relevant = np.flatnonzero(p_value < self.significance).tolist()
        if not relevant:
            return
        reduct_stream = kernels.load(CIE_KERNELS).reduct_stream

        pool = self._members + [
            (names[j], columns[j], first + j, float(corr[j]), codes[:, j]) for j in relevant
        ]
        order = np.empty(len(pool), dtype=np.int64)
        size, entropy = reduct_stream(
            np.array([m[4] for m in pool], dtype=np.int64),
            tie_key([m[3] for m in pool]),
            len(self._members),
            self._labels,
            ENTROPY_TOLERANCE,
            order,
        )
        self._members = [pool[i] for i in order[:size].tolist()]
        self._entropy = float(entropy)
        self._set_selected([m[0] for m in self._members], [m[1] for m in self._members])

    def _reduct(self, members):
        """Algorithm 1, lines 9-21: the greedy reduct of ``members`` in ``|corr|`` order
        (compiled, :func:`_cie_kernels.greedy_reduct`; the same entropies as
        :func:`conditional_entropy` and :func:`refine`, bit for bit)."""
        keys = tie_key([m[3] for m in members])  # |corr| ties go to arrival
        ordered = [
            members[i] for i in sorted(range(len(members)), key=lambda i: (-keys[i], members[i][2]))
        ]
        greedy_reduct = kernels.load(CIE_KERNELS).greedy_reduct

        keep = np.zeros(len(ordered), dtype=bool)
        current = greedy_reduct(
            np.array([m[4] for m in ordered], dtype=np.int64), self._labels, ENTROPY_TOLERANCE, keep
        )
        return [m for m, kept in zip(ordered, keep) if kept], float(current)

    def _decide(
        self, codes, corr, statistic, p_value, name, column, event: bool = True
    ) -> CIEOSFSEvent | None:
        position = self.n_seen
        self.n_seen += 1
        removed: tuple[str, ...] = ()
        if not p_value < self.significance:
            action = IRRELEVANT
        else:
            candidates = self._members + [(name, column, position, corr, codes)]
            reduct, self._entropy = self._reduct(candidates)
            kept = {m[2] for m in reduct}
            removed = tuple(m[0] for m in candidates if m[2] not in kept)
            action = ADDED if position in kept else REDUNDANT
            self._members = reduct
            self._set_selected([m[0] for m in reduct], [m[1] for m in reduct])
        if not event:
            return None
        return CIEOSFSEvent(
            position,
            name,
            column,
            corr,
            action,
            self._selected_names,
            self._selected_columns,
            self._entropy,
            statistic,
            p_value,
            removed,
        )

    def finish(self) -> Selection:
        """SF in reduct order (descending ``|corr|`` with the class); scores are ``|corr|``."""
        return Selection(
            self.method,
            self._selected_names,
            self._selected_columns,
            tuple(m[3] for m in self._members),
            "reduct, by descending |correlation|",
        )
