"""A slow, definition-level K-OFSD written from the paper and the authors' code.

Plain Python loops over samples and features, no shared code with fsengine: the
independent truth for property tests on data the reference runs do not cover
(random orders, other card functions, the paper variant, duplicates, constants).
"""

import functools
import math


def _variance_weight(column, metric):
    if metric == "euclidean":
        return 1.0
    n = len(column)
    total = 0.0
    for v in column:
        total += v
    mean = total / n
    ss = 0.0
    for v in column:
        d = v - mean
        ss += d * d  # as Octave's sumsq; Python's d ** 2 calls pow(), 1 ulp off at times
    var = ss / (n - 1)
    return math.inf if var == 0 else 1.0 / var


def _distance_rows(columns, weights):
    """d[i][j] = sqrt(sum over columns in order of (w*(xi-xj))*(xi-xj)); d[i][i] = 0."""
    n = len(columns[0])
    dist = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            acc = 0.0
            for col, w in zip(columns, weights):
                d = col[i] - col[j]
                acc = acc + (w * d) * d  # inf * 0 is NaN for a constant column
            dist[i][j] = math.sqrt(acc)
    return dist


def _neighbours(dist_row, i, k, variant):
    n = len(dist_row)
    order = sorted(
        range(n),
        key=lambda j: (math.isnan(dist_row[j]), 0.0 if math.isnan(dist_row[j]) else dist_row[j], j),
    )
    if variant == "reference":
        return order[1 : k + 1]
    return [j for j in order if j != i][:k]


def _card(name, label, neigh, dist_row, y, k, gamma, gamma1, gamma2):
    same = sum(1 for j in neigh if y[j] == label)
    if name == "imbalanced":
        if label == 0:
            return 1.0 if same == k else 0.0
        return same / k
    if name == "consistency":
        return 1.0 if same == k else 0.0
    if name == "weight":
        return same / k if same / k > gamma else 0.0
    if name == "distance":
        if same / k >= gamma1:
            return 1.0
        if same / k <= gamma2:
            return 0.0
        d_same = sum(dist_row[j] for j in neigh if y[j] == label) / same
        d_other = sum(dist_row[j] for j in neigh if y[j] != label) / (k - same)
        return 1.0 if d_other - d_same > 1e-12 * max(d_same, d_other) else 0.0  # ties: 0
    raise ValueError(name)


def dependency(
    columns,
    y,
    k,
    *,
    card="imbalanced",
    variant="reference",
    metric="seuclidean",
    gamma=0.5,
    gamma1=0.75,
    gamma2=0.25,
):
    """Dependency of the feature set ``columns`` (list of per-feature value lists)."""
    weights = [_variance_weight(c, metric) for c in columns]
    dist = _distance_rows(columns, weights)
    total = 0.0
    for i in range(len(y)):
        neigh = _neighbours(dist[i], i, k, variant)
        total += _card(card, y[i], neigh, dist[i], y, k, gamma, gamma1, gamma2)
    return total / len(y)


def run(X, y, order, k, alpha=0.5, **params):
    """K-OFSD over the columns of ``X`` (list of rows) in ``order``.

    Returns (events, selected) where each event is (column, dependency, action,
    dependency of S plus the feature or None, selected columns after the step).
    """
    variant = params.get("variant", "reference")
    columns = [[row[c] for row in X] for c in range(len(X[0]))]
    selected, set_dep, events, singles = [], 0.0, [], []
    for c in order:
        dep = dependency([columns[c]], y, k, **params)
        singles.append((c, dep))
        passes = dep > alpha if variant == "reference" else dep >= alpha
        with_feature = None
        if not passes:
            action = "discarded"
        elif dep > set_dep:
            action, selected, set_dep = "replaced", [c], dep
        else:
            with_feature = dependency([columns[s] for s in selected + [c]], y, k, **params)
            if with_feature > set_dep:
                action, set_dep = "added", with_feature
                selected = selected + [c]
            else:
                action = "rejected"
        events.append((c, dep, action, with_feature, tuple(selected)))
    if not selected and variant == "reference":
        top = int(math.floor(math.sqrt(len(singles)) + 0.5))
        selected = [c for c, _ in sorted(singles, key=lambda s: (-s[1], s[0]))[:top]]
    return events, selected


# --- The same definition on whole distance rows (numpy), for data too big for the loops ---
#
# Each sample's row of distances is the authors' arithmetic (the features' terms
# ((w * d) * d) summed in the set's order, then the root), its list the first K + 1 of the
# row sorted by (distance, row index) less the first, its card Algorithm 3 ("imbalanced").
# Under ties="average" the card is its mean over every order of the rows, written out:
# with c the (K + 1)-th smallest distance of the row (the sample itself counted), the list
# holds every sample below c and r = K + 1 - (those below c) of the t samples at c, drawn
# uniformly, less the first of the drawn K + 1, drawn uniformly from the samples at
# distance 0 (the sample and its duplicates).


def sequential_sum(values):
    """The sum of ``values`` added one at a time, left to right (as a loop would)."""
    import numpy as np

    values = np.asarray(values, dtype=float)
    return float(np.add.accumulate(values)[-1]) if len(values) else 0.0


def matrix_weight(column, ties="index"):
    """1 / var (n - 1) of one column; its sums in row order (the authors' Octave) or, for
    ties="average", over the values in ascending order (the same for any row order);
    inf for a constant column."""
    import numpy as np

    column = np.asarray(column, dtype=float)
    n = len(column)
    arrange = (lambda v: v) if ties == "index" else np.sort
    mean = sequential_sum(arrange(column)) / n
    deviation = column - mean
    var = sequential_sum(arrange(deviation * deviation)) / (n - 1)
    return math.inf if var == 0 else 1.0 / var


def matrix_dependency(sq, y, k, ties="index"):
    """The dependency (imbalanced card, the reference variant) of a set whose summed
    distance terms are ``sq`` (n, n): the mean of the samples' cards.

    Parameters
    ----------
    sq : ndarray (n, n), the summed terms between every two samples (any diagonal).
    y : ndarray of {0, 1}.
    k : int, K.
    ties : "index" (ties to the lower row index) or "average" (the mean over row orders).
    """
    import numpy as np

    sq = np.ascontiguousarray(sq, dtype=float)
    y = np.ascontiguousarray(y, dtype=np.int64)
    cards = _row_cards()(sq, np.empty((0, 0)), np.zeros(0), 0.0, y, int(k), ties == "average")
    return _mean_card(cards, ties)


def matrix_dependency_with(base, column, weight, y, k, ties="index"):
    """:func:`matrix_dependency` of a set (summed terms ``base``; None: empty) plus one
    feature (``column``, its ``weight``) last, the set's terms computed row by row."""
    import numpy as np

    base = np.empty((0, 0)) if base is None else np.ascontiguousarray(base, dtype=float)
    column = np.ascontiguousarray(column, dtype=float)
    y = np.ascontiguousarray(y, dtype=np.int64)
    cards = _row_cards()(
        np.empty((0, 0)), base, column, float(weight), y, int(k), ties == "average"
    )
    return _mean_card(cards, ties)


def _mean_card(cards, ties):
    """The dependency: the authors' sum adds the cards in row order; the average rule's is
    exactly rounded."""
    return (sequential_sum(cards) if ties == "index" else math.fsum(cards)) / len(cards)


@functools.cache
def _row_cards():
    """The cards of every sample, one distance row at a time (compiled: plain loops over the
    row, the definition written out). ``sq`` (n, n) gives the rows, or else ``base`` (the
    set's terms; empty: no set) plus the term of ``column`` with ``weight``."""
    import numpy as np
    from numba import njit

    @njit(cache=False)
    def all_drawn_same(same, total, drawn):
        """The chance that ``drawn`` of ``total`` drawn uniformly are all among ``same``:
        C(same, drawn) / C(total, drawn)."""
        chance = 1.0
        for t in range(drawn):
            chance *= (same - t) / (total - t)
        return max(chance, 0.0)

    @njit(cache=False)
    def row_cards(sq, base, column, weight, y, k, average):
        n = len(y)
        need = k + 1
        cards = np.empty(n)
        d = np.empty(n)
        for i in range(n):
            for j in range(n):
                if sq.shape[0]:
                    total = sq[i, j]
                else:
                    g = column[i] - column[j]
                    total = (weight * g) * g
                    if base.shape[0]:
                        total = base[i, j] + total
                d[j] = math.sqrt(total)
            d[i] = 0.0
            # The need-th smallest distance, its repeats counted.
            lower = -math.inf
            while True:
                value = math.inf
                for j in range(n):
                    if lower < d[j] < value:
                        value = d[j]
                count = 0
                for j in range(n):
                    if d[j] <= value:
                        count += 1
                if count >= need:
                    break
                lower = value
            cut = value
            n_below = same_below = n_at = same_at = n_zero = same_zero = 0
            first = -1
            for j in range(n):
                same = y[j] == y[i]
                if d[j] < cut:
                    n_below += 1
                    same_below += same
                elif d[j] == cut:
                    n_at += 1
                    same_at += same
                if d[j] == 0.0:
                    n_zero += 1
                    same_zero += same
                    if first < 0:
                        first = j
            drawn = need - n_below
            if not average:
                listed_same = same_below
                taken = 0
                for j in range(n):
                    if d[j] == cut and taken < drawn:
                        taken += 1
                        listed_same += y[j] == y[i]
                listed_same -= y[first] == y[i]
                if y[i] == 1:
                    cards[i] = listed_same / k
                else:
                    cards[i] = 1.0 if listed_same == k else 0.0
                continue
            if cut == 0.0:  # a uniform K of the samples at distance 0
                if y[i] == 1:
                    cards[i] = same_zero / n_zero
                else:
                    cards[i] = all_drawn_same(same_zero, n_zero, k)
                continue
            if y[i] == 1:
                mean_same = same_below - same_zero / n_zero + drawn * same_at / n_at
                cards[i] = mean_same / k
                continue
            other_below = n_below - same_below
            if other_below == 0:
                rest_same = 1.0
            elif other_below == 1:
                rest_same = (n_zero - same_zero) / n_zero  # the other one must be the first
            else:
                rest_same = 0.0
            cards[i] = rest_same * all_drawn_same(same_at, n_at, drawn)
        return cards

    return row_cards


def matrix_run(X, y, k, alpha=0.5, ties="index", progress=None):
    """K-OFSD (the reference variant, imbalanced card) over the columns of ``X`` (n, p) in
    natural order, on whole distance rows.

    Returns (events, selected): each event (column, dependency, action, dependency of S
    plus the feature or None, selected columns after the step), as :func:`run`.
    """
    import numpy as np

    X = np.asarray(X, dtype=float)
    p = X.shape[1]
    selected, set_dep, events, singles = [], 0.0, [], []
    set_sq = None

    def term(column, w):
        d = column[:, None] - column[None, :]
        return (w * d) * d

    for c in range(p):
        column = np.ascontiguousarray(X[:, c])
        w = matrix_weight(column, ties)
        dep = matrix_dependency_with(None, column, w, y, k, ties)
        singles.append((c, dep))
        with_feature = None
        if not dep > alpha:
            action = "discarded"
        elif dep > set_dep:
            action, selected, set_dep, set_sq = "replaced", [c], dep, term(column, w)
        else:
            with_feature = matrix_dependency_with(set_sq, column, w, y, k, ties)
            if with_feature > set_dep:
                action, set_dep, set_sq = "added", with_feature, set_sq + term(column, w)
                selected = selected + [c]
            else:
                action = "rejected"
        events.append((c, dep, action, with_feature, tuple(selected)))
        if progress is not None:
            progress(events[-1])
    if not selected:
        top = int(math.floor(math.sqrt(len(singles)) + 0.5))
        selected = [c for c, _ in sorted(singles, key=lambda s: (-s[1], s[0]))[:top]]
    return events, selected
