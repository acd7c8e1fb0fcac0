"""Stability indices by hand, and the order-stability run."""

import math

import pytest

from fsengine import FSEngineError, run_selection
from fsengine.evaluation.stability import jaccard, kuncheva, order_stability, pairwise_stability


def test_jaccard_by_hand():
    assert jaccard({1, 2, 3}, {2, 3, 4}) == 2 / 4
    assert jaccard({1}, {2}) == 0.0
    assert jaccard([], []) == 1.0
    assert jaccard(["a", "b"], ["b", "a"]) == 1.0


def test_kuncheva_equal_sizes_matches_the_published_formula():
    # n = 10, k = 3, r = 2: (r n - k^2) / (k (n - k)) = (20 - 9) / 21
    assert kuncheva({1, 2, 3}, {2, 3, 4}, 10) == pytest.approx(11 / 21, abs=1e-15)
    assert kuncheva({1, 2, 3}, {1, 2, 3}, 10) == pytest.approx(1.0, abs=1e-15)
    # disjoint: (0 - 0.9) / 2.1
    assert kuncheva({1, 2, 3}, {4, 5, 6}, 10) == pytest.approx(-0.9 / 2.1, abs=1e-15)


def test_kuncheva_unequal_sizes_is_observed_minus_expected_over_max_minus_expected():
    # n = 20, ka = 2, kb = 4, r = 2: expected 0.4, max 2 -> (2 - 0.4) / (2 - 0.4) = 1
    assert kuncheva({1, 2}, {1, 2, 3, 4}, 20) == pytest.approx(1.0, abs=1e-15)
    # r = 1 -> (1 - 0.4) / 1.6
    assert kuncheva({1, 9}, {1, 2, 3, 4}, 20) == pytest.approx(0.6 / 1.6, abs=1e-15)


@pytest.mark.parametrize("a,b,n", [(set(), {1}, 5), ({1, 2}, {1, 2}, 2)])
def test_kuncheva_undefined_is_nan(a, b, n):
    assert math.isnan(kuncheva(a, b, n))


def test_pairwise_means_by_hand():
    sets = [{1, 2}, {1, 3}, {1, 2}]
    mean_j, mean_k = pairwise_stability(sets, 10)
    assert mean_j == pytest.approx((1 / 3 + 1 + 1 / 3) / 3)
    k_one_shared = (1 - 0.4) / (2 - 0.4)
    assert mean_k == pytest.approx((k_one_shared + 1 + k_one_shared) / 3)


def test_order_stability_runs_the_seeded_orders(srbct):
    reports = []
    result = order_stability(
        srbct, 2, "ofs-fpd", orders=3, seed=4, progress=lambda *r: reports.append(r)
    )
    assert result.seeds == (4, 5, 6)
    assert [r[:2] for r in reports] == [(1, 3), (2, 3), (3, 3)]
    assert reports[-1][2] == "order 3/3 (seed 6)"
    for seed, features in zip(result.seeds, result.selections):
        expected = run_selection(srbct, 2, "ofs-fpd", order="random", seed=seed).selection
        assert features == expected.features
    assert result.mean_jaccard == pytest.approx(pairwise_stability(result.selections, 2308)[0])
    assert result.sizes == tuple(len(s) for s in result.selections)


def test_order_stability_validates_orders(srbct):
    with pytest.raises(FSEngineError, match=">= 2"):
        order_stability(srbct, 2, orders=1)
