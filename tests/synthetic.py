"""Seeded synthetic data shaped like what researchers hold today: single-cell counts.

Used by the tests (``from synthetic import ...``: tests/ is on ``sys.path``), the
benchmarks and trials by hand (``python tests/synthetic.py OUT.h5ad``). The values are
drawn, not real, so every property a test relies on is planted and known:

* :func:`single_cell_counts`: integer UMI-like counts, cells x genes, about 92 % zeros
  (gamma-Poisson, i.e. negative binomial, with a per-cell library size), six cell types,
  one of them rare (187 of 20,000 cells by default) with ``n_markers`` genes up in it
  (the first ``n_markers`` genes), every common type with genes of its own that the rare
  type does not express, and a ``donor`` per cell whose mix of cell types differs from
  donor to donor (the rare type lives in some donors only);
* :func:`sparse_log_counts`: a smaller log1p(count) matrix with a rare class and the first
  ``n_up`` genes up in it, where a gene's zero run holds most samples: the data on which
  the authors' tie rule makes neighbourhood selectors depend on the order of the rows.
"""

from __future__ import annotations

import numpy as np

#: Cell types of :func:`single_cell_counts`, the rare one last.
CELL_TYPES = ("T_cell", "B_cell", "Monocyte", "NK_cell", "Dendritic", "Plasmacytoid_DC")
RARE_TYPE = CELL_TYPES[-1]


def single_cell_counts(
    n_cells: int = 20_000,
    n_genes: int = 3_000,
    n_rare: int = 187,
    n_markers: int = 30,
    n_donors: int = 8,
    seed: int = 0,
):
    """A seeded single-cell count matrix with a rare cell type and donors.

    Parameters
    ----------
    n_cells, n_genes : int
        The matrix's shape.
    n_rare : int
        Cells of the rare type (:data:`RARE_TYPE`), spread over the first
        ``n_donors - 2`` donors only.
    n_markers : int
        Genes 0 .. n_markers - 1 are up in the rare type (expressed in most of its cells,
        rarely elsewhere); each common type has ``n_markers`` genes of its own after them.
    n_donors : int
        Donors, each with its own mix of the common types (Dirichlet draws).
    seed : int

    Returns
    -------
    X : scipy.sparse.csr_matrix of int32, shape (n_cells, n_genes)
        Counts.
    obs : pandas.DataFrame
        ``cell_type`` (categorical, :data:`CELL_TYPES`) and ``donor`` ("D1" ..) per cell,
        indexed by cell barcodes ("cell00000", ...).
    var_names : list of str
        "g0", "g1", ...
    """
    import pandas as pd
    from scipy import sparse

    rng = np.random.default_rng(seed)
    common = len(CELL_TYPES) - 1
    donors = np.array([f"D{d + 1}" for d in range(n_donors)])
    # Donors: a differing share of the cells, each with its own mix of the common types.
    donor_share = rng.dirichlet(np.full(n_donors, 4.0))
    donor_of = rng.choice(n_donors, size=n_cells, p=donor_share)
    mixes = rng.dirichlet(np.full(common, 1.5), size=n_donors)
    cell_type = np.empty(n_cells, dtype=np.int64)
    for d in range(n_donors):
        cells = np.flatnonzero(donor_of == d)
        cell_type[cells] = rng.choice(common, size=len(cells), p=mixes[d])
    # The rare type: n_rare cells of the first n_donors - 2 donors, unevenly.
    carriers = np.flatnonzero(donor_of < max(2, n_donors - 2))
    rare_cells = rng.choice(carriers, size=n_rare, replace=False)
    cell_type[rare_cells] = common
    # Expression: gamma-Poisson counts around a per-gene mean, a per-cell library size.
    base = rng.gamma(0.35, 0.25, size=n_genes)  # mean counts per cell, mostly well below 1
    library = rng.lognormal(0.0, 0.35, size=n_cells)
    fold = np.ones((len(CELL_TYPES), n_genes))
    fold[common, :n_markers] = 0.0  # set below: the rare type's markers
    for t in range(common):
        own = slice(n_markers * (t + 1), n_markers * (t + 2))
        fold[t, own] = 12.0  # each common type's own genes ...
        fold[common, own] = 0.0  # ... silent in the rare type
    marker_mean = rng.uniform(1.5, 4.0, size=n_markers)
    indptr, cols, vals = [np.zeros(1, dtype=np.int64)], [], []
    for lo in range(0, n_cells, 2000):
        hi = min(lo + 2000, n_cells)
        mean = library[lo:hi, None] * base[None, :] * fold[cell_type[lo:hi]]
        rare = cell_type[lo:hi] == common
        mean[np.ix_(rare, np.arange(n_markers))] = library[lo:hi][rare, None] * marker_mean
        # Gamma-Poisson (negative binomial, dispersion 0.5): counts with extra zeros.
        lam = rng.gamma(2.0, mean / 2.0)
        block = rng.poisson(lam).astype(np.int32)
        r, c = np.nonzero(block)  # row by row: the block's CSR order
        indptr.append(indptr[-1][-1] + np.cumsum(np.bincount(r, minlength=hi - lo)))
        cols.append(c.astype(np.int32))
        vals.append(block[r, c])
    X = sparse.csr_matrix(
        (np.concatenate(vals), np.concatenate(cols), np.concatenate(indptr)),
        shape=(n_cells, n_genes),
    )
    obs = pd.DataFrame(
        {
            "cell_type": pd.Categorical(np.asarray(CELL_TYPES)[cell_type], categories=CELL_TYPES),
            "donor": pd.Categorical(donors[donor_of], categories=donors),
        },
        index=[f"cell{i:05d}" for i in range(n_cells)],
    )
    return X, obs, [f"g{j}" for j in range(n_genes)]


def single_cell_anndata(**kwargs):
    """:func:`single_cell_counts` as an AnnData object (X sparse CSR counts, obs
    ``cell_type`` and ``donor``); the keyword arguments are those of that function."""
    import anndata
    import pandas as pd

    X, obs, var_names = single_cell_counts(**kwargs)
    return anndata.AnnData(X=X, obs=obs, var=pd.DataFrame(index=var_names))


def sparse_log_counts(
    n: int = 3_000,
    p: int = 150,
    rare_share: float = 0.02,
    n_up: int = 20,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """log1p of sparse integer counts with a rare class: each gene non-zero in 5-15 % of
    the samples, the first ``n_up`` genes also expressed in most rare samples.

    Returns
    -------
    X : ndarray, shape (n, p), float64
    y : ndarray of {0, 1}, 1 = the rare class (at least 4 samples)
    names : list of str ("g0", ...)
    """
    rng = np.random.default_rng(seed)
    y = np.zeros(n, dtype=np.int64)
    y[rng.choice(n, size=max(4, int(round(rare_share * n))), replace=False)] = 1
    X = np.zeros((n, p))
    for j in range(p):
        expressed = rng.random(n) < rng.uniform(0.05, 0.15)
        if j < n_up:
            expressed |= (y == 1) & (rng.random(n) < 0.7)
        X[expressed, j] = 1 + rng.poisson(2.0, size=int(expressed.sum()))
    return np.log1p(X), y, [f"g{j}" for j in range(p)]


if __name__ == "__main__":
    import sys

    if len(sys.argv) != 2 or not sys.argv[1].endswith(".h5ad"):
        sys.exit("usage: python tests/synthetic.py OUT.h5ad")
    single_cell_anndata().write_h5ad(sys.argv[1], compression="gzip")
    print(f"wrote {sys.argv[1]}: 20,000 cells x 3,000 genes, obs cell_type and donor")
