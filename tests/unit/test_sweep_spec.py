"""What a parameter sweep may run over, read from the methods' specifications
(fsengine.spec: sweepable_parameters, sweep_range, default_sweep_values,
parse_sweep_values, check_sweep_values), and the generalised sweep figure."""

import numpy as np
import pytest

from fsengine import FSEngineError
from fsengine.methods.registry import ONLINE_METHODS, get_method
from fsengine.pl.figures import k_sweep_figure, sweep_figure
from fsengine.spec import (
    MAX_SWEEP_VALUES,
    Int,
    Real,
    check_sweep_values,
    default_sweep_values,
    parse_sweep_values,
    sweep_range,
    sweepable_parameters,
)


def _spec(name):
    return get_method(name).spec


def test_osfs_sweeps_its_significance_level_and_conditioning_size_with_their_bounds():
    for name in ("osfs", "fast-osfs"):
        found = sweepable_parameters(_spec(name))
        assert list(found) == ["alpha", "max_conditioning"]  # not the variant (a choice)
        alpha = found["alpha"]
        assert isinstance(alpha, Real)
        assert (alpha.low, alpha.high, alpha.low_open, alpha.high_open) == (0, 1, True, True)
        assert alpha.range_text() == "(0, 1)"
        assert isinstance(found["max_conditioning"], Int)
        assert sweep_range(found["max_conditioning"]) == (1, 5)


def test_each_online_selectors_sweepable_parameters_are_its_numbers():
    expected = {
        "kofsd": ["k", "alpha", "gamma", "gamma1", "gamma2"],
        "ofs-fpd": [],
        "cie-osfs": ["bins", "significance"],
        "alpha-investing": ["wealth", "payout"],
        "saola": ["alpha"],
        "group-saola": ["alpha", "groups"],
        "ofs-a3m": ["rand_state"],
        "ofs-density": ["rand_state", "tolerance"],
        "rhofs": ["rand_state"],
        "sfsf": ["k", "radius", "bins", "rand_state"],
        "osfs-et": ["k", "width", "increase", "rand_state"],
        "sfs-fi": ["gamma"],
        "ossfs-dd": ["k1", "k2", "pool_size"],
        "grafting": ["lam", "tol"],
    }
    for name, names in expected.items():
        assert list(sweepable_parameters(_spec(name))) == names, name
    for name in ONLINE_METHODS:
        for param in sweepable_parameters(_spec(name)).values():
            assert param.kind in ("int", "real")


def test_a_parameter_that_does_not_apply_under_the_others_is_not_sweepable():
    density = _spec("ofs-density")  # lambda (section 5.2) only in the printed algorithm
    assert list(sweepable_parameters(density, density.defaults())) == ["rand_state"]
    paper = {**density.defaults(), "variant": "paper"}
    assert list(sweepable_parameters(density, paper)) == ["rand_state", "tolerance"]
    spec = _spec("kofsd")
    assert list(sweepable_parameters(spec, spec.defaults())) == ["k", "alpha"]
    weight = {**spec.defaults(), "card": "weight"}
    assert list(sweepable_parameters(spec, weight)) == ["k", "alpha", "gamma"]
    distance = {**spec.defaults(), "card": "distance"}
    assert list(sweepable_parameters(spec, distance)) == ["k", "alpha", "gamma1", "gamma2"]


def test_sweep_range_is_the_integer_bounds_capped_for_a_slider():
    k = _spec("kofsd").parameters["k"]
    assert sweep_range(k, 42) == (1, 15)  # K <= n - 1, capped at the dashboard's 15
    assert sweep_range(k, 6) == (1, 5)  # a small data set: K <= 5
    assert sweep_range(k) == (1, 15)  # no data yet: the bound from the data is unknown
    assert sweep_range(_spec("cie-osfs").parameters["bins"]) == (2, 10)  # ui_high
    assert sweep_range(_spec("group-saola").parameters["groups"]) == (1, 50)
    assert sweep_range(_spec("rhofs").parameters["rand_state"]) == (0, 49)  # not 4294967295
    with pytest.raises(ValueError, match="alpha is not an integer"):
        sweep_range(_spec("osfs").parameters["alpha"])


def test_default_values_per_kind_of_parameter():
    def default(method, name, n=None):
        return default_sweep_values(_spec(method).parameters[name], n)

    assert default("kofsd", "k", 42) == list(range(1, 11))  # the page's former 1..10
    assert default("kofsd", "k", 6) == [1, 2, 3, 4, 5]
    assert default("osfs", "max_conditioning") == [1, 2, 3, 4, 5]
    assert default("rhofs", "rand_state") == list(range(10))
    # a significance level: multiples of its default 0.01
    assert default("osfs", "alpha") == [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1]
    assert default("cie-osfs", "significance") == [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5]
    # an interval open above: multiples of the default, all positive
    assert default("alpha-investing", "wealth") == [0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0]
    # a closed interval with a default in its middle: eleven even steps, ends included
    assert default("kofsd", "alpha") == [i / 10 for i in range(11)]
    with pytest.raises(ValueError):
        default_sweep_values(_spec("kofsd").parameters["card"])


def test_default_values_of_every_sweepable_parameter_pass_the_spec():
    for name in ONLINE_METHODS:
        spec = _spec(name)
        for param in sweepable_parameters(spec).values():
            values = default_sweep_values(param, 42)
            assert 1 <= len(values) <= MAX_SWEEP_VALUES, (name, param.name)
            assert values == sorted(set(values))
            for value in values:
                spec.check({param.name: value}, n_samples=42)  # raises if out of range
            assert default_sweep_values(param, 42) == values  # a pure function


def test_parse_sweep_values_sorts_and_deduplicates_what_the_spec_accepts():
    alpha = _spec("osfs").parameters["alpha"]
    assert parse_sweep_values(alpha, "0.05, 0.01,0.05; 0.2") == [0.01, 0.05, 0.2]
    assert parse_sweep_values(alpha, " 0.1 ") == [0.1]
    bins = _spec("cie-osfs").parameters["bins"]
    assert parse_sweep_values(bins, "4,2,3") == [2, 3, 4]
    assert all(isinstance(v, int) for v in parse_sweep_values(bins, "4,2,3"))


@pytest.mark.parametrize(
    "text,shown",
    [
        ("0.01, 1.5", ["1.5", "(0, 1)"]),
        ("0.01, abc", ["'abc'", "(0, 1)"]),
        ("0", ["0", "(0, 1)"]),  # the open end
        ("", ["at least one value", "(0, 1)"]),
        (
            ", ".join(f"0.0{i}" for i in range(1, 10))
            + ", "
            + ", ".join(f"0.{i}" for i in range(1, 8)),
            ["at most 15 values", "got 16"],
        ),
    ],
)
def test_parse_sweep_values_names_the_parameter_the_value_and_the_range(text, shown):
    alpha = _spec("osfs").parameters["alpha"]
    with pytest.raises(FSEngineError) as caught:
        parse_sweep_values(alpha, text, method="osfs")
    assert caught.value.parameter == "alpha" and caught.value.method == "osfs"
    for part in shown:
        assert part in str(caught.value)


def test_an_integer_parameter_rejects_fractions_and_values_out_of_its_bounds():
    bins = _spec("cie-osfs").parameters["bins"]
    with pytest.raises(FSEngineError, match=r"integer from 2 to 64, got '2\.5'"):
        parse_sweep_values(bins, "2.5")
    with pytest.raises(FSEngineError, match="got 65"):
        parse_sweep_values(bins, "3, 65")
    k = _spec("kofsd").parameters["k"]
    with pytest.raises(FSEngineError, match="got 10"):
        check_sweep_values(k, [2, 10], n_samples=10)  # K <= n - 1 = 9
    assert check_sweep_values(k, range(1, 16)) == list(range(1, 16))
    with pytest.raises(FSEngineError, match="at most 15"):
        check_sweep_values(k, range(1, 17))


def _summary(parameter, values):
    return [
        {
            parameter: v,
            **{f"{m}_mean": 0.5 + i / 100 for m in ("gmean_1nn", "gmean_svm")},
            **{f"{m}_std": 0.01 for m in ("gmean_1nn", "gmean_svm", "n_features", "seconds")},
            "n_features_mean": 3 + i,
            "seconds_mean": 0.1,
        }
        for i, v in enumerate(values)
    ]


def test_sweep_figure_plots_any_parameter_against_its_values():
    rows = _summary("alpha", [0.001, 0.01, 0.1])
    fig = sweep_figure(rows, "alpha", "Significance level", cursor=0.01)
    assert [t.name for t in fig.data[:2]] == ["1-NN", "SVM"]
    assert all(list(t.x) == [0.001, 0.01, 0.1] for t in fig.data)
    assert list(fig.data[0].y) == pytest.approx([0.5, 0.51, 0.52])
    assert list(fig.data[2].y) == [3, 4, 5]
    assert fig.layout.xaxis.title.text == "Significance level"
    assert fig.layout.xaxis.type == "log"  # two orders of magnitude
    assert {s.x0 for s in fig.layout.shapes} == {0.01}
    linear = sweep_figure(_summary("wealth", [0.25, 0.5, 1.0]), "wealth")
    assert linear.layout.xaxis.type is None and linear.layout.xaxis.title.text == "wealth"
    assert linear.layout.xaxis.dtick is None


def test_k_sweep_figure_is_the_sweep_figure_over_k():
    rows = _summary("k", [2, 3, 4])
    old, new = (
        k_sweep_figure(rows, "t", cursor=3),
        sweep_figure(rows, "k", "K", title="t", cursor=3),
    )
    assert old.to_plotly_json() == new.to_plotly_json()
    assert old.layout.xaxis.dtick == 1 and old.layout.xaxis.title.text == "K"
    assert old.layout.uirevision == "k-sweep"
    assert tuple(old.layout.yaxis.range) == (0, 1.05)  # G-mean on a fixed axis


def test_a_swept_parameter_given_one_value_is_refused_the_same_way_everywhere(capsys):
    """One rule (MethodSpec.check_swept) in the library's sweep, the registry's shared
    selections and the command line: a swept parameter takes no single value."""
    import numpy as np

    from fsengine.cli import main
    from fsengine.data.dataset import load_dataset
    from fsengine.evaluation import sweep_values
    from tests.conftest import SAMPLE

    expected = "kofsd: alpha is swept: it takes a list of values, not a single value"
    with pytest.raises(FSEngineError) as caught:
        sweep_values(load_dataset(SAMPLE), 2, "kofsd", "alpha", [0.1, 0.2], params={"alpha": 1})
    assert caught.value.describe().startswith(expected)
    X, y = np.arange(24.0).reshape(6, 4), np.array([1, 1, 0, 0, 0, 0])
    with pytest.raises(FSEngineError) as caught:
        get_method("kofsd").selections_over(X, y, list("abcd"), "alpha", [0.1], {"alpha": 1})
    assert caught.value.describe().startswith(expected)
    args = ["sweep", str(SAMPLE), "--minority", "2", "--over", "alpha", "--values", "0.1,0.2"]
    args += ["--alpha", "1"]
    assert main(args) == 2
    assert capsys.readouterr().err == (
        "fsengine: error: kofsd: --alpha is swept: it takes a list of values, not a single "
        "value; list them in --values\n"
    )
    with pytest.raises(FSEngineError, match="beta is not a parameter of kofsd"):
        get_method("kofsd").spec.check_swept("beta", {})


def test_a_parameter_set_where_it_does_not_apply_is_warned_of():
    """K-OFSD's gamma without card="weight", OFS-Density's tolerance without the paper
    variant: set to other than the default, they change nothing, and the run says so
    (the command line prints it on stderr); left at the default, or in effect, no word."""
    y = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0, 0])
    X = np.random.default_rng(0).normal(size=(10, 4))
    names = [f"g{j}" for j in range(4)]
    kofsd = get_method("kofsd")
    warned = kofsd.select(X, y, names, params={"k": 2, "gamma": 0.3}).warnings
    assert warned == (
        "gamma = 0.3 has no effect: it applies only when card is 'weight' (card is 'imbalanced')",
    )
    assert kofsd.select(X, y, names, params={"k": 2, "card": "weight", "gamma": 0.3}).warnings == ()
    density = get_method("ofs-density")
    assert density.select(X, y, names, params={"tolerance": 0.05}).warnings == ()
    assert density.select(X, y, names, params={"tolerance": 0.1}).warnings == (
        "tolerance = 0.1 has no effect: it applies only when variant is 'paper' "
        "(variant is 'reference')",
    )
    selector = density.selector(tolerance=0.1)
    assert selector.clone().start(y).warnings() == list(
        density.select(X, y, names, params={"tolerance": 0.1}).warnings
    )
