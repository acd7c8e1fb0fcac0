"""scikit-learn's own estimator checks over the scikit-learn wrappers of every method.

``OnlineSelector`` wraps every registered online method (parametrized by the registry);
``KOFSDSelector`` is K-OFSD with its parameters as arguments; ``RankerSelector`` wraps
the rankers. No check is expected to fail. scikit-learn itself skips one,
``check_array_api_input``, unless SCIPY_ARRAY_API is set: fsengine computes in numpy
(and numba), so array-API inputs are converted, not supported natively.
"""

import warnings

import pytest
from sklearn.utils.estimator_checks import check_estimator

from fsengine import KOFSDSelector, OnlineSelector, RankerSelector
from fsengine.methods.registry import ONLINE_METHODS


@pytest.mark.parametrize(
    "estimator",
    [OnlineSelector(m) for m in ONLINE_METHODS] + [KOFSDSelector(k=3), RankerSelector(k=1)],
    ids=repr,
)
def test_scikit_learn_estimator_checks(estimator):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SkipTestWarning, "No features were selected"
        results = check_estimator(estimator, on_fail=None)
    failed = {r["check_name"]: r["exception"] for r in results if r["status"] == "failed"}
    skipped = {r["check_name"] for r in results if r["status"] == "skipped"}
    assert not failed, failed
    assert skipped <= {"check_array_api_input"}
    assert len(results) >= 40  # the checks did run
