"""The cost models said before a run starts (issue 40, point 5): every method has one, an
estimate grows with the data, its range holds its value, and the runs built on selections
(a stream, a comparison, sweeps) are the sums the protocol calls for. No wall time is
asserted: the models' own formula is the truth the ratios are checked against."""

import math

import pytest

from fsengine.methods import estimates
from fsengine.methods._estimates_fit import COST_MODELS
from fsengine.methods.estimates import (
    Estimate,
    duration_text,
    evaluate_seconds,
    selection_seconds,
    stream_seconds,
    sweep_top_seconds,
)
from fsengine.methods.registry import METHODS, get_method

SIZES = [(50, 100), (100, 100), (100, 1000), (1000, 1000), (20_000, 3_000)]


def test_every_method_and_the_scoring_have_a_cost_model():
    averaged = {f"{m}:ties=average" for m in METHODS if "ties" in get_method(m).spec.parameters}
    assert averaged  # K-OFSD and the others with a tie rule
    assert set(COST_MODELS) == {"_scoring", *METHODS, *averaged}


def test_the_average_tie_rule_has_its_own_model():
    """On counts the two rules cost very differently (SFSF: days against seconds on the
    single-cell file's size): each setting is estimated from its own measured runs."""
    from fsengine.methods.estimates import model_key

    assert model_key("sfsf", {"ties": "average"}) == "sfsf:ties=average"
    assert model_key("sfsf", {"ties": "index"}) == model_key("sfsf", None) == "sfsf"
    assert model_key("fisher", {"ties": "average"}) == "fisher"
    index = selection_seconds("sfsf", 20_000, 3_000, 0.08, {"ties": "index"}, counts=True)
    average = selection_seconds("sfsf", 20_000, 3_000, 0.08, {"ties": "average"}, counts=True)
    assert average.high < index.low


@pytest.mark.parametrize("method", METHODS)
def test_an_estimate_holds_its_value_and_grows_with_the_data(method):
    previous = None
    for n, p in SIZES:
        found = selection_seconds(method, n, p)
        assert 0 < found.low <= found.seconds <= found.high
        if previous is not None:
            assert found.seconds >= previous.seconds
        previous = found
        assert selection_seconds(method, 2 * n, p).seconds >= found.seconds
        assert selection_seconds(method, n, 2 * p).seconds >= found.seconds
    # more samples never cost less, nor more features, nor a wider range past the
    # measured sizes (the models' exponents are fitted, not assumed)
    small, large = selection_seconds(method, 100, 100), selection_seconds(method, 100_000, 100)
    assert large.high / large.seconds >= small.high / small.seconds


@pytest.mark.parametrize("method", ["kofsd", "relieff", "saola", "fisher"])
def test_the_ratio_between_two_sizes_is_the_model_s_power_law(method):
    for kind, density, counts in (
        ("dense", 1.0, False),
        ("sparse", 0.1, False),
        ("counts", 0.1, True),
    ):
        b0, bn, bp = COST_MODELS[method]["kinds"][kind]["coef"]
        a = selection_seconds(method, 400, 200, density, counts=counts)
        b = selection_seconds(method, 800, 600, density, counts=counts)
        expected = 2 ** max(bn, 0) * 3 ** max(bp, 0)
        assert math.isclose(b.seconds / a.seconds, expected, rel_tol=1e-9)


def test_the_kind_of_data_chooses_the_model():
    assert estimates.data_kind(1.0, False) == "dense"
    assert estimates.data_kind(0.1, False) == "sparse"
    assert estimates.data_kind(0.1, True) == estimates.data_kind(1.0, True) == "counts"
    counts = selection_seconds("kofsd", 3000, 300, 0.1, counts=True)
    b0, bn, bp = COST_MODELS["kofsd"]["kinds"]["counts"]["coef"]
    assert math.isclose(counts.seconds, math.exp(b0) * 3000**bn * 300**bp, rel_tol=1e-9)


def test_is_counts_and_density_read_the_values():
    import numpy as np
    from scipy import sparse

    X = np.array([[0.0, 2.0, 0.0], [1.0, 0.0, 0.0]])
    assert estimates.is_counts(X) and estimates.density_of(X) == 2 / 6
    assert estimates.is_counts(sparse.csr_matrix(X))
    assert estimates.density_of(sparse.csr_matrix(X)) == 2 / 6
    assert not estimates.is_counts(X + 0.5) and not estimates.is_counts(-X)


def test_the_neighbourhood_size_enters_k_ofsd_s_model():
    bk = COST_MODELS["kofsd"]["bk"]
    three = selection_seconds("kofsd", 400, 200, params={"k": 3})
    seven = selection_seconds("kofsd", 400, 200, params={"k": 7})
    assert math.isclose(three.seconds / seven.seconds, (3 / 7) ** bk, rel_tol=1e-9)
    assert selection_seconds("kofsd", 400, 200) == seven  # the default, 7


def test_a_comparison_is_its_splits_over_the_workers_plus_the_whole_data():
    n, p, methods = 1000, 500, ["kofsd", "fisher"]
    per_split = sum(
        (selection_seconds(m, n // 2, p) for m in methods), estimates.ZERO
    ) + 2 * selection_seconds("_scoring", n, 10)
    whole = selection_seconds("kofsd", n, p) + selection_seconds("fisher", n, p)
    found = evaluate_seconds(n, p, methods, n_splits=20, n_jobs=2)
    assert math.isclose(found.seconds, per_split.seconds * 10 + whole.seconds, rel_tol=1e-9)
    # rankers alone still pay for K-OFSD's count on every split
    alone = evaluate_seconds(n, p, ["fisher"], n_splits=20, n_jobs=1, whole_data=False)
    counted = selection_seconds("kofsd", n // 2, p) + selection_seconds("fisher", n // 2, p)
    scored = selection_seconds("_scoring", n, 10)
    assert math.isclose(alone.seconds, 20 * (counted + scored).seconds, rel_tol=1e-9)
    fixed = evaluate_seconds(n, p, ["fisher"], n_splits=20, n_jobs=1, whole_data=False, top=10)
    assert fixed.seconds < alone.seconds
    assert evaluate_seconds(n, p, methods, n_splits=40).seconds > found.seconds


def test_a_stream_is_its_selector_on_all_samples_and_on_a_training_half():
    found = stream_seconds("saola", 1000, 300)
    both = selection_seconds("saola", 1000, 300) + selection_seconds("saola", 500, 300)
    assert found == both


def test_a_top_k_sweep_scores_every_top():
    one = sweep_top_seconds(500, 100, ["fisher"], [5], n_splits=4, n_jobs=1)
    ten = sweep_top_seconds(500, 100, ["fisher"], list(range(1, 11)), n_splits=4, n_jobs=1)
    scoring = selection_seconds("_scoring", 500, 10)
    assert math.isclose(ten.seconds - one.seconds, 4 * 9 * scoring.seconds, rel_tol=1e-9)


def test_the_words():
    assert duration_text(0.4) == "under a second"
    assert duration_text(42) == "42 s"
    assert duration_text(130) == "2 min 10 s"
    assert duration_text(7260) == "2 h 1 min"
    assert duration_text(5 * 86400) == "5 days"
    assert Estimate(40, 15, 120).text() == "about 40 s (15 s to 2 min)"
    assert Estimate(0.2, 0.05, 3).text() == "under a second (up to 3 s)"
    assert Estimate(0.2, 0.05, 0.5).text() == "under a second"
    assert Estimate(90, 30, 300).long and not Estimate(40, 15, 120).long


def test_the_command_line_says_a_long_evaluation_s_estimate(capsys, monkeypatch, srbct):
    from conftest import SAMPLE
    from fsengine.cli import main, protocol
    from fsengine.data.task import Task

    task = Task.from_dataset(srbct, 2)
    expected = evaluate_seconds(
        task.n_samples,
        task.n_features,
        ["fisher"],
        density=estimates.density_of(task.X),
        counts=estimates.is_counts(task.X),
        n_splits=2,
        n_jobs=1,
        whole_data=False,
    )
    argv = ["evaluate", str(SAMPLE), "--minority", "2", "--methods", "fisher", "--splits", "2"]
    monkeypatch.setattr(protocol, "LONG_SECONDS", expected.seconds / 2)  # long, here
    assert main([*argv, "--jobs", "1"]) in (0, None)
    err = capsys.readouterr().err
    assert f"fsengine: the evaluation is estimated to take {expected.text()}\n" in err
    monkeypatch.setattr(protocol, "LONG_SECONDS", expected.seconds * 2)  # short: quiet
    assert main([*argv, "--jobs", "1"]) in (0, None)
    assert "estimated" not in capsys.readouterr().err
