"""A slow, definition-level K-OFSD written from the paper and the authors' code.

Plain Python loops over samples and features, no shared code with fsengine: the
independent truth for property tests on data the reference runs do not cover
(random orders, other card functions, the paper variant, duplicates, constants).
"""

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
