"""A run checks its method's parameters once, where it starts (as scikit-learn's estimators
at ``fit``), and trusts them below: a selector's constructor refuses only names the method
does not take, its start checks the values against the data, and the kernels take them as
checked."""

import numpy as np
import pytest

from fsengine.errors import FSEngineError
from fsengine.methods.online import KOFSD
from fsengine.methods.registry import ONLINE_METHODS, get_method
from fsengine.spec import MethodSpec


@pytest.fixture
def counted(monkeypatch):
    """The methods whose parameters :meth:`MethodSpec.check` checked, one entry a call."""
    calls = []
    check = MethodSpec.check

    def counting(self, params, **kwargs):
        calls.append(self.name)
        return check(self, params, **kwargs)

    monkeypatch.setattr(MethodSpec, "check", counting)
    return calls


def _data(n=12, p=6, seed=0):
    rng = np.random.default_rng(seed)
    y = np.array([1] * 4 + [0] * (n - 4))
    return rng.normal(size=(n, p)).round(1), y, [f"g{j}" for j in range(p)]


@pytest.mark.parametrize("name", ONLINE_METHODS)
def test_a_run_of_each_online_selector_checks_its_parameters_once(name, counted):
    X, y, names = _data()
    get_method(name).select(X, y, names, events=True)
    assert counted == [name]


def test_kofsd_k_is_checked_at_the_start_against_the_samples(counted):
    X, y, names = _data()
    selector = KOFSD(k=12)  # 12 samples: K <= 11; not known before the labels
    assert counted == []
    with pytest.raises(FSEngineError) as caught:
        selector.start(y)
    assert caught.value.parameter == "k" and "11" in str(caught.value)
    assert counted == ["kofsd"]
    with pytest.raises(FSEngineError) as caught:  # a name it does not take: at once
        KOFSD(kk=3)
    assert caught.value.parameter == "kk"


def test_a_value_of_the_wrong_kind_is_named_at_the_start_not_a_bare_error():
    _, y, _ = _data()
    selector = KOFSD(gamma=np.array([0.1, 0.2]))  # kept as given until the start
    with pytest.raises(FSEngineError) as caught:
        selector.start(y)
    assert caught.value.parameter == "gamma"
    set_but_unused = KOFSD(k=3, gamma=0.3).start(y)  # gamma applies with card="weight"
    assert any(w.startswith("gamma = 0.3 has no effect") for w in set_but_unused.warnings())


class _NoSplitRan(Exception):
    pass


def _stop_before_splits(monkeypatch, module):
    """Make ``module.run_tasks`` raise: what was checked before any split ran."""

    def refuse(*args, **kwargs):
        raise _NoSplitRan

    monkeypatch.setattr(module, "run_tasks", refuse)


def test_a_sweep_checks_each_value_once_against_the_smallest_training_half(counted, monkeypatch):
    import fsengine.evaluation.sweeps as sweeps
    from fsengine.evaluation import sweep_k
    from fsengine.evaluation.protocol import stratified_splits

    X, y, names = _data(n=20, p=5)
    from fsengine.data.dataset import Dataset

    ds = Dataset(X, y, tuple(names), "label", "toy")
    n_train = min(len(t) for t, _ in stratified_splits(y, 3, 0, None))
    assert n_train < len(y) - 1
    _stop_before_splits(monkeypatch, sweeps)
    with pytest.raises(_NoSplitRan):
        sweep_k(ds, 1, [2, 3, 3], n_splits=3)
    assert counted == ["kofsd"] * 3  # once a value, before any split
    # K = n_train passes a check against every sample but not one against a training half:
    # refused before any split runs, naming the parameter.
    with pytest.raises(FSEngineError) as caught:
        sweep_k(ds, 1, [2, n_train], n_splits=3)
    assert caught.value.parameter == "k" and str(n_train - 1) in str(caught.value)
    # ... and the message says whose samples bound it (not the data set's 20)
    assert f"smallest training half of the splits ({n_train})" in str(caught.value)


def test_evaluate_names_the_training_half_as_the_bound_only_where_it_is_one(monkeypatch):
    import fsengine.evaluation.comparison as comparison
    from fsengine.data.dataset import Dataset
    from fsengine.evaluation import evaluate
    from fsengine.evaluation.protocol import stratified_splits

    X, y, names = _data(n=20, p=5)
    ds = Dataset(X, y, tuple(names), "label", "toy")
    n_train = min(len(t) for t, _ in stratified_splits(y, 3, 0, None))
    _stop_before_splits(monkeypatch, comparison)
    with pytest.raises(FSEngineError) as caught:  # K = 12 fits 20 samples, not 10
        evaluate(ds, 1, methods=["kofsd"], n_splits=3, params={"kofsd": {"k": 12}})
    message = str(caught.value)
    assert message.startswith(f"kofsd: k must be an integer from 1 to {n_train - 1} ")
    assert message.endswith(f"the smallest training half of the splits ({n_train})")
    with pytest.raises(FSEngineError) as caught:  # refused for any number of samples
        evaluate(ds, 1, methods=["kofsd"], n_splits=3, params={"kofsd": {"k": 0}})
    assert caught.value.parameter == "k" and "training half" not in str(caught.value)
    with pytest.raises(_NoSplitRan):  # a K the half takes: on to the splits
        evaluate(ds, 1, methods=["kofsd"], n_splits=3, params={"kofsd": {"k": 3}})


def test_a_top_sweep_checks_its_rankers_before_any_split_runs(monkeypatch):
    import fsengine.evaluation.sweeps as sweeps
    from fsengine.data.dataset import Dataset
    from fsengine.evaluation import sweep_top

    X, y, names = _data(n=20, p=5)
    ds = Dataset(X, y, tuple(names), "label", "toy")
    _stop_before_splits(monkeypatch, sweeps)
    with pytest.raises(FSEngineError) as caught:  # a bad ranker parameter: not after the run
        sweep_top(ds, 1, ["fisher", "relieff"], [1, 2], n_splits=3, params={"relieff": {"k": 0}})
    assert caught.value.parameter == "k"
