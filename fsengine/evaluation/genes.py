"""Per-gene computations behind the dashboard's Genes view (no Streamlit here).

Statistics of selected genes (minority versus rest), the hierarchical-clustering order
of a heat map, a 2-D PCA of the samples, a seeded sample of each class for figures of many
samples, and how often a method selected each gene over the splits of an
:class:`~fsengine.evaluation.Evaluation`. The figures over these are in
:mod:`fsengine.pl.gene_figures`.

Everything here reads the selected genes' columns (and, for the PCA over all genes of many
samples, a sample's rows) of a dense or sparse matrix: never a dense copy of all of it.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fsengine._compute.sparse import as_columns, block_width, dense_block, is_backed, is_sparse
from fsengine.data.dataset import Dataset
from fsengine.data.task import Task, as_task
from fsengine.errors import FSEngineError
from fsengine.evaluation import Evaluation, feature_frequencies

__all__ = [
    "DRAWN_SAMPLES",
    "HEATMAP_SAMPLES",
    "P_VALUE_NOTE",
    "VIEW_IMPORTS",
    "ClassSample",
    "class_sample",
    "cluster_order",
    "column_values",
    "gene_columns",
    "gene_statistics",
    "grouped_cluster_order",
    "p_value_note",
    "pca_coordinates",
    "row_values",
    "selection_frequencies",
    "zscore_columns",
]

#: What the gene views (:func:`gene_statistics`, :func:`cluster_order`,
#: :func:`pca_coordinates`) import when first called: about 1 s in a new process, which a
#: server imports ahead (``fsengine._compute.parallel.import_in_background``), so that a
#: first Genes page, or four at once, does not wait for it.
VIEW_IMPORTS = (
    "scipy.stats",
    "scipy.cluster.hierarchy",
    "scipy.sparse.linalg",
    "sklearn.decomposition",
    "sklearn.preprocessing",
)

#: How the p-values of :func:`gene_statistics` are computed (``{n}``: number of genes).
P_VALUE_NOTE = "Welch's t-test, two-sided; Benjamini-Hochberg adjusted over the {n} genes shown"

#: Leaf ordering that minimises neighbour distances is O(n^2) or worse: only up to this many.
_OPTIMAL_ORDERING_MAX = 400
#: Above this many samples the box, violin and PCA figures draw a seeded sample of each
#: class (:func:`class_sample`): 20,000 points a panel are slow to send and unreadable.
DRAWN_SAMPLES = 2_000
#: The heat map draws at most this many samples (columns): about a pixel each.
HEATMAP_SAMPLES = 1_000
#: PCA's full SVD above this size on both sides costs seconds: a seeded randomized one.
_FULL_SVD_MAX = 500


@dataclass(frozen=True)
class ClassSample:
    """The samples a figure draws: every sample, or a seeded sample of each class.

    Attributes
    ----------
    rows : ndarray of int
        The drawn samples' row indices, ascending.
    shown : dict
        Class label -> samples drawn, in sorted label order.
    counts : dict
        Class label -> samples of the data, in sorted label order.
    seed : int
        The seed of the draw.
    """

    rows: np.ndarray
    shown: dict
    counts: dict
    seed: int

    @property
    def total(self) -> int:
        """Samples of the data."""
        return sum(self.counts.values())

    @property
    def sampled(self) -> bool:
        """Whether some samples are left out."""
        return len(self.rows) < self.total

    def text(self, what: str = "samples") -> str:
        """What is drawn, in words: "all 83 samples", or "a seeded sample (seed 0) of 1,000
        of 20,000 samples, up to 167 of each class"."""
        if not self.sampled:
            return f"all {self.total:,} {what}"
        return (
            f"a seeded sample (seed {self.seed}) of {len(self.rows):,} of {self.total:,} "
            f"{what}, up to {max(self.shown.values()):,} of each class"
        )

    def class_text(self) -> str:
        """Drawn of each class: "Plasmacytoid_DC 100 of 187, T_cell 100 of 8,012, ..."."""
        return ", ".join(f"{c} {self.shown[c]:,} of {n:,}" for c, n in self.counts.items())


def class_sample(labels, most: int, seed: int = 0) -> ClassSample:
    """A seeded sample of at most ``most`` samples that shares them equally among the
    classes: a class smaller than its share is drawn whole, and what it leaves goes to
    the larger classes (smallest class first, each taking ``left // classes_left``).

    Parameters
    ----------
    labels : array, shape (n_samples,)
    most : int
        Samples drawn at most; with this many samples or fewer, all are drawn.
    seed : int
        Seed of ``numpy.random.default_rng``; the classes are drawn in sorted label order.

    Returns
    -------
    ClassSample
    """
    labels = np.asarray(labels)
    classes, counts = np.unique(labels, return_counts=True)
    count_of = dict(zip(classes.tolist(), counts.tolist()))
    if len(labels) <= most:
        return ClassSample(np.arange(len(labels)), count_of, count_of, seed)
    take = {}
    left = int(most)
    for i, c in enumerate(sorted(count_of, key=lambda c: (count_of[c], str(c)))):
        take[c] = min(count_of[c], left // (len(count_of) - i))
        left -= take[c]
    rng = np.random.default_rng(seed)
    rows = []
    for c in count_of:
        members = np.flatnonzero(labels == c)
        rows.append(
            members if take[c] == len(members) else rng.choice(members, size=take[c], replace=False)
        )
    drawn = np.sort(np.concatenate(rows)) if rows else np.zeros(0, dtype=int)
    return ClassSample(drawn, {c: take[c] for c in count_of}, count_of, seed)


def column_values(X, columns) -> np.ndarray:
    """Columns ``columns`` of a dense, sparse or on-disk matrix as a dense float64 block
    (the selected genes of a data set: no copy of the other columns; on disk, only those
    columns read).

    Parameters
    ----------
    X : ndarray, scipy sparse matrix or BackedColumns, shape (n_samples, n_features)
    columns : sequence of int

    Returns
    -------
    ndarray, shape (n_samples, len(columns))
    """
    return np.asarray(dense_block(X, list(columns)), dtype=np.float64)


def row_values(X, rows) -> np.ndarray:
    """Rows ``rows`` of a dense, sparse or on-disk matrix as a dense float64 block (on
    disk: read a block of genes at a time, only those rows kept)."""
    rows = np.asarray(rows)
    if is_backed(X):
        values = np.empty((len(rows), X.shape[1]))
        for lo, hi, block in X.blocks():
            values[:, lo:hi] = block[rows]
        return values
    if is_sparse(X):
        return np.asarray(X[rows, :].toarray(), dtype=np.float64)
    return np.asarray(X[rows], dtype=np.float64)


def p_value_note(n: int) -> str:
    """:data:`P_VALUE_NOTE` for ``n`` genes ("1 gene" in the singular)."""
    text = P_VALUE_NOTE.format(n=n)
    return text.replace("1 genes", "1 gene") if n == 1 else text


def gene_columns(dataset: Dataset | Task, genes: Sequence[str]) -> list[int]:
    """Column indices of ``genes`` in ``dataset``, in the given order, duplicates dropped.

    Parameters
    ----------
    dataset : Dataset or Task
    genes : sequence of str or str
        Gene (feature) names; a single string is one gene.

    Returns
    -------
    list of int

    Raises
    ------
    FSEngineError
        When the list is empty or names a gene that is not a column of the data.
    """
    if isinstance(genes, str):
        genes = [genes]
    genes = list(dict.fromkeys(genes))
    if not genes:
        raise FSEngineError(
            "is empty", parameter="genes", remedy="choose at least one gene of the data"
        )
    names = dataset.names if isinstance(dataset, Task) else dataset.feature_names
    index = {name: i for i, name in enumerate(names)}
    unknown = [g for g in genes if g not in index]
    if unknown:
        shown = ", ".join(repr(g) for g in unknown[:5]) + (" ..." if len(unknown) > 5 else "")
        raise FSEngineError(
            f"names {'a gene' if len(unknown) == 1 else 'genes'} not in the data: {shown}",
            parameter="genes",
            remedy=f"choose among the {dataset.n_features} feature columns of {dataset.source!r}",
        )
    return [index[g] for g in genes]


def gene_statistics(data: Task | Dataset, minority, genes: Sequence[str]) -> pd.DataFrame:
    """Minority-versus-rest statistics of each gene: means, spreads, effect size, p-values.

    The effect size is Hedges' g of minority minus rest::

        s_p = sqrt(((n1 - 1) s1^2 + (n0 - 1) s0^2) / (n1 + n0 - 2))
        g   = (1 - 3 / (4 (n1 + n0) - 9)) * (mean1 - mean0) / s_p

    with n1, mean1, s1 the minority's size, mean and standard deviation (ddof=1) and
    n0, mean0, s0 the rest's; NaN when ``s_p`` is 0. ``p_welch`` is the two-sided
    Welch's t-test (``scipy.stats.ttest_ind(equal_var=False)``), NaN when both groups
    are constant (the test is undefined); ``p_bh`` is the Benjamini-Hochberg adjusted
    p-value (``scipy.stats.false_discovery_control``) over the listed genes with a
    p-value (see :func:`p_value_note`, also in ``attrs["p_value_note"]``).

    Parameters
    ----------
    data : Task or Dataset
        The task (:class:`fsengine.data.task.Task`), or a data set to build it from.
    minority : label or str or None
        With a data set: the minority class (one versus rest; None:
        :meth:`Dataset.default_minority`). With a task: None or its own class.
    genes : sequence of str
        Gene names, in the order of the rows.

    Returns
    -------
    pandas.DataFrame
        One row per gene: ``gene``, ``column`` (index in ``dataset.X``),
        ``mean_minority``, ``mean_rest``, ``sd_minority``, ``sd_rest``, ``hedges_g``,
        ``p_welch``, ``p_bh``.

    Raises
    ------
    FSEngineError
        For an unknown class or gene, or an empty list of genes.
    """
    task = as_task(data, minority)
    columns = gene_columns(task, genes)
    y = task.y.astype(bool)
    values = column_values(task.X, columns)
    a, b = values[y], values[~y]
    n1, n0 = len(a), len(b)
    mean1, mean0 = a.mean(axis=0), b.mean(axis=0)
    # Sums of squares: defined for a group of one sample, unlike its ddof=1 variance
    ss1 = ((a - mean1) ** 2).sum(axis=0)
    ss0 = ((b - mean0) ** 2).sum(axis=0)
    sd1 = np.sqrt(ss1 / (n1 - 1)) if n1 > 1 else np.full(len(columns), np.nan)
    sd0 = np.sqrt(ss0 / (n0 - 1)) if n0 > 1 else np.full(len(columns), np.nan)
    pooled = np.sqrt((ss1 + ss0) / (n1 + n0 - 2))
    correction = 1 - 3 / (4 * (n1 + n0) - 9)
    spread = pooled > 0
    g = np.full(len(columns), np.nan)
    g[spread] = correction * (mean1[spread] - mean0[spread]) / pooled[spread]
    # scipy.stats takes about 0.4 s to import: loaded by the first table of statistics,
    # not by the pages that import this module for selection frequencies.
    from scipy import stats

    p = np.full(len(columns), np.nan)
    if spread.any():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # nearly constant genes
            test = stats.ttest_ind(a[:, spread], b[:, spread], equal_var=False, axis=0)
        p[spread] = test.pvalue
    tested = np.isfinite(p)
    p_bh = np.full(len(columns), np.nan)
    if tested.any():
        p_bh[tested] = stats.false_discovery_control(p[tested], method="bh")
    frame = pd.DataFrame(
        {
            "gene": [task.names[c] for c in columns],
            "column": columns,
            "mean_minority": mean1,
            "mean_rest": mean0,
            "sd_minority": sd1,
            "sd_rest": sd0,
            "hedges_g": g,
            "p_welch": p,
            "p_bh": p_bh,
        }
    )
    frame.attrs["p_value_note"] = p_value_note(int(tested.sum()))
    return frame


def zscore_columns(matrix, clip: float | None = None) -> np.ndarray:
    """Each column centred and scaled to unit standard deviation (ddof=0).

    Constant columns become zeros; ``clip`` bounds the values to ``[-clip, clip]``.
    """
    matrix = np.asarray(matrix, dtype=float)
    if matrix.ndim != 2:
        raise FSEngineError(
            f"must be a 2-D matrix, got {matrix.ndim} dimension(s)", parameter="matrix"
        )
    centred = matrix - matrix.mean(axis=0)
    sd = centred.std(axis=0)
    scaled = np.divide(centred, sd, out=np.zeros_like(centred), where=sd > 0)
    return np.clip(scaled, -clip, clip) if clip is not None else scaled


#: Rows up to which :func:`cluster_order` clusters them by average linkage (its n (n - 1) / 2
#: distances: 36 MB at 3,000 rows, 1.6 GB and a minute at 20,000); more rows are ordered
#: along their first principal component instead.
LINKAGE_MAX = 3_000


def _leaf_order(points: np.ndarray) -> np.ndarray:
    """Leaves of the average-linkage (Euclidean) tree of the rows of ``points``; above
    :data:`LINKAGE_MAX` rows, the rows by their score on the first principal component
    (the largest loading positive; ties by row)."""
    if len(points) < 2:
        return np.arange(len(points))
    if len(points) > LINKAGE_MAX:
        centred = points - points.mean(axis=0)
        _, _, vt = np.linalg.svd(centred, full_matrices=False)
        first = vt[0] * np.sign(vt[0][np.argmax(np.abs(vt[0]))] or 1.0)
        return np.argsort(centred @ first, kind="stable")
    from scipy.cluster import hierarchy

    tree = hierarchy.linkage(
        points,
        method="average",
        metric="euclidean",
        optimal_ordering=len(points) <= _OPTIMAL_ORDERING_MAX,
    )
    return hierarchy.leaves_list(tree)


def cluster_order(matrix) -> tuple[np.ndarray, np.ndarray]:
    """Heat-map order of the samples (rows) and genes (columns) of a matrix.

    The columns are z-scored (constant columns become zeros), then the samples and the
    genes are each clustered by average linkage on Euclidean distances
    (``scipy.cluster.hierarchy``), with optimal leaf ordering up to 400 items; above
    :data:`LINKAGE_MAX` samples (or genes), ordered along their first principal component
    instead (linkage's pairwise distances would not fit). A single row or column, or
    constant columns, give a valid (deterministic) order.

    Parameters
    ----------
    matrix : array-like, shape (n_samples, n_genes)

    Returns
    -------
    (row_order, column_order) : two int ndarrays
        Permutations of ``range(n_samples)`` and ``range(n_genes)``.
    """
    z = zscore_columns(matrix)
    return _leaf_order(z), _leaf_order(z.T)


def grouped_cluster_order(z: np.ndarray, labels, first=None) -> tuple[np.ndarray, np.ndarray]:
    """Heat-map order of already z-scored rows grouped by class, and of the columns.

    The rows are grouped by class (``first`` first, then the others in sorted label
    order) and ordered within each class by average-linkage clustering on Euclidean
    distances, as :func:`cluster_order` orders all rows; the columns are clustered over
    all rows.

    Parameters
    ----------
    z : ndarray, shape (n_rows, n_genes)
        Values already scaled (e.g. z-scores over a larger set of samples).
    labels : array, shape (n_rows,)
        Each row's class.
    first : label, optional
        The class drawn first (the minority).

    Returns
    -------
    (row_order, column_order) : two int ndarrays
    """
    z = np.asarray(z, dtype=float)
    labels = np.asarray(labels)
    classes = np.unique(labels).tolist()
    if first is not None and first in classes:
        classes.remove(first)
        classes.insert(0, first)
    rows = []
    for c in classes:
        members = np.flatnonzero(labels == c)
        rows.append(members[_leaf_order(z[members])])
    order = np.concatenate(rows) if rows else np.zeros(0, dtype=int)
    return order, _leaf_order(z.T)


#: Values (samples x genes) up to which :func:`pca_coordinates` takes a full SVD of the
#: standardised copy (scikit-learn's PCA); above, the components of the matrix as it is
#: (sparse, or dense without a copy) from an iterative solver: a few products with it, not
#: three dense copies and a full SVD (20,000 x 3,000: 2 GB and minutes).
FULL_SVD_ELEMENTS = 4_000_000


def pca_coordinates(X, n_components: int = 2) -> tuple[np.ndarray, np.ndarray, int]:
    """Principal components of the samples on standardised columns.

    Constant columns are dropped; the rest are scaled to unit variance
    (``sklearn.preprocessing.StandardScaler``) before ``sklearn.decomposition.PCA``
    (deterministic signs): a full SVD, or a randomized one with seed 0 when both sides
    exceed 500 (2,000 samples x 3,000 genes: a fraction of a second instead of seconds).
    A matrix of more than :data:`FULL_SVD_ELEMENTS` values, or a sparse one, is not
    copied: the leading singular vectors of the standardised matrix come from ARPACK
    (``scipy.sparse.linalg.svds``, to machine precision) through its products with ``X``,
    with the same signs as scikit-learn's (the largest loading of each component positive).

    Parameters
    ----------
    X : array-like or scipy sparse matrix, shape (n_samples, n_features)
    n_components : int, default 2
        At most; fewer when there are fewer non-constant columns or samples.

    Returns
    -------
    (coordinates, explained_variance_ratio, columns_used)
        Coordinates of shape (n_samples, k), the ratio per component (k,), and the
        number of non-constant columns used.
    """
    if is_sparse(X) or np.asarray(X).size > FULL_SVD_ELEMENTS:
        return _pca_without_copy(X, n_components)
    from sklearn.decomposition import PCA
    from sklearn.preprocessing import StandardScaler

    X = np.asarray(X, dtype=float)
    kept = X[:, X.std(axis=0) > 0]
    k = min(n_components, kept.shape[1], X.shape[0])
    if k == 0:
        return np.zeros((X.shape[0], 0)), np.zeros(0), kept.shape[1]
    if min(kept.shape) > _FULL_SVD_MAX:
        pca = PCA(n_components=k, svd_solver="randomized", random_state=0)
    else:
        pca = PCA(n_components=k, svd_solver="full")
    coordinates = pca.fit_transform(StandardScaler().fit_transform(kept))
    return coordinates, pca.explained_variance_ratio_, kept.shape[1]


def _pca_without_copy(X, n_components: int) -> tuple[np.ndarray, np.ndarray, int]:
    """:func:`pca_coordinates` of a large or sparse ``X`` through products with it: the
    standardised matrix Z = (X - mean) / sd (population sd, constant columns dropped) is
    a linear operator, Z v = X (v / sd) - (mean . v / sd) and Z' u = (X' u - mean sum(u)) /
    sd, whose leading singular triplets ARPACK finds; the coordinates are U S and the
    ratios S^2 / (n p), the variance of a component over that of p unit-variance columns."""
    from scipy.sparse.linalg import LinearOperator, svds

    n, p = X.shape
    sparse = is_sparse(X)
    if sparse:
        X = as_columns(X)
    mean, sd = np.empty(p), np.empty(p)
    width = block_width(n)
    for lo in range(0, p, width):
        block = dense_block(X, slice(lo, min(lo + width, p)))
        mean[lo : lo + width] = block.mean(axis=0)
        sd[lo : lo + width] = block.std(axis=0)
    kept = np.flatnonzero(sd > 0)
    k = min(n_components, len(kept), n)
    if k == 0:
        return np.zeros((n, 0)), np.zeros(0), len(kept)
    scale = np.zeros(p)
    scale[kept] = 1.0 / sd[kept]
    centre = mean * scale

    def times(v):  # Z v, v over the kept columns
        w = np.zeros(p)
        w[kept] = np.ravel(v)
        return X @ (w * scale) - centre @ w

    def times_transposed(u):  # Z' u
        u = np.ravel(u)
        return ((X.T @ u) * scale - centre * u.sum())[kept]

    def many(function):
        return lambda M: np.column_stack([function(c) for c in np.asarray(M).T])

    operator = LinearOperator(
        (n, len(kept)),
        matvec=times,
        rmatvec=times_transposed,
        matmat=many(times),
        rmatmat=many(times_transposed),
        dtype=float,
    )
    if k >= min(n, len(kept)):  # every component: the operator made dense is small then
        u, singular, vt = np.linalg.svd(operator @ np.eye(len(kept)), full_matrices=False)
        u, singular, vt = u[:, :k], singular[:k], vt[:k]
    else:
        start = np.full(min(n, len(kept)), 1.0)  # a fixed start: the same result every time
        u, singular, vt = svds(operator, k=k, tol=0, v0=start, solver="arpack")
        order = np.argsort(-singular)
        u, singular, vt = u[:, order], singular[order], vt[order]
    signs = np.sign(vt[np.arange(k), np.argmax(np.abs(vt), axis=1)])
    coordinates = u * (singular * signs)
    return coordinates, singular**2 / (n * len(kept)), len(kept)


def selection_frequencies(
    evaluation: Evaluation,
    dataset: Dataset,
    minority,
    method: str,
    whole_data: Sequence[str] | None = None,
) -> pd.DataFrame:
    """How often ``method`` selected each gene over the splits of an evaluation.

    Parameters
    ----------
    evaluation : Evaluation
        Its records of ``method`` count (one record per split).
    dataset : Dataset
        The data the evaluation ran on (gene columns, and the class check).
    minority : label or str
        The minority class; must be the evaluation's when its ``params`` name one.
    method : str
    whole_data : sequence of str, optional
        The genes ``method`` selected on the whole data set, in rank order. Genes
        there that no split selected are listed with 0 times.

    Returns
    -------
    pandas.DataFrame
        ``gene``, ``column`` (index in ``dataset.X``), ``times`` (splits that selected
        it), ``share`` (times / number of splits of the method) and ``whole_data_rank``
        (1-based position in ``whole_data``; NaN when not there). Sorted by times
        (most first), then whole-data rank, then name. ``attrs["n_splits"]`` is the
        number of splits.

    Raises
    ------
    FSEngineError
        When the evaluation has no record of ``method``, its minority class differs,
        or a gene is not a column of the data.
    """
    label = dataset.resolve_class(minority)
    if "minority" in evaluation.params and evaluation.params["minority"] is not None:
        if dataset.resolve_class(evaluation.params["minority"]) != label:
            raise FSEngineError(
                f"is class {label!r}, but the evaluation selected for class "
                f"{evaluation.params['minority']!r}",
                parameter="minority",
            )
    n_splits = sum(1 for r in evaluation.records if r.get("method") == method)
    if n_splits == 0:
        methods = list(dict.fromkeys(r.get("method") for r in evaluation.records))
        raise FSEngineError(
            f"has no record in the evaluation; its methods are {methods}",
            parameter="method",
        )
    counts = dict(feature_frequencies(evaluation.records, method=method))
    ranks = {}
    for position, gene in enumerate(whole_data or (), start=1):
        ranks.setdefault(gene, position)
    genes = list(counts) + [g for g in ranks if g not in counts]
    columns = gene_columns(dataset, genes) if genes else []
    rows = [
        {
            "gene": gene,
            "column": column,
            "times": counts.get(gene, 0),
            "share": counts.get(gene, 0) / n_splits,
            "whole_data_rank": float(ranks.get(gene, math.nan)),
        }
        for gene, column in zip(genes, columns)
    ]
    rows.sort(
        key=lambda r: (
            -r["times"],
            r["whole_data_rank"] if r["gene"] in ranks else math.inf,
            r["gene"],
        )
    )
    frame = pd.DataFrame(rows, columns=["gene", "column", "times", "share", "whole_data_rank"])
    frame["whole_data_rank"] = frame["whole_data_rank"].astype(float)
    frame.attrs["n_splits"] = n_splits
    frame.attrs["method"] = method
    return frame
