"""The protocol's rules: splits, which methods may be compared, warnings, settings.

R random stratified 50/50 splits (:func:`stratified_splits`; the training half has
:func:`fsengine.data.task.training_size` samples); selections on the training half alone
(:func:`select_on`); what makes the protocol weak for some labels
(:func:`protocol_warnings`); the parameters in effect (:func:`method_settings`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from fsengine.data.labels import MIN_MINORITY, MIN_PROTOCOL_MINORITY
from fsengine.data.task import training_size
from fsengine.errors import FSEngineError, is_integer_in
from fsengine.evaluation.group_splits import group_splits, repeated_splits_warning
from fsengine.methods.registry import get_method

__all__ = [
    "COUNT_FROM",
    "PAPER_METHODS",
    "RUN_IMPORTS",
    "Progress",
    "check_count_from",
    "check_methods",
    "check_on_training_half",
    "half_minority_sizes",
    "is_ranker",
    "method_settings",
    "progress_per_task",
    "protocol_defaults",
    "protocol_minority_sizes",
    "protocol_refusal",
    "protocol_warnings",
    "select_on",
    "stratified_splits",
    "study_defaults",
    "training_halves",
]

#: The methods of the K-OFSD paper's comparison (Tables 3 and 4).
PAPER_METHODS = ("kofsd", "fisher", "s2n", "pcc", "relieff", "mi")


#: The online selector whose count of features the rankers get by default (the paper's rule).
COUNT_FROM = "kofsd"

#: What a run of the protocol imports when it starts: the splitter
#: (:func:`stratified_splits`) and the classifiers
#: (:func:`fsengine.evaluation.make_classifier`). About 0.6 s on a 2-core machine; a
#: server loads them ahead (:func:`fsengine._compute.parallel.import_in_background`).
RUN_IMPORTS = (
    "sklearn.model_selection",
    "sklearn.neighbors",
    "sklearn.pipeline",
    "sklearn.preprocessing",
    "sklearn.svm",
)


Progress = Callable[[int, int, str], None]


def stratified_splits(
    y, n_splits: int = 20, seed: int = 0, groups=None
) -> list[tuple[np.ndarray, np.ndarray]]:
    """``n_splits`` random stratified halves: ceil(n / 2) samples to train, the rest to test.

    Both halves keep the class ratio (up to one sample per class, :func:`half_minority_sizes`);
    the same seed gives the same splits.

    With ``groups`` (each sample's patient, donor or batch), a group is never on both
    sides: each split is a seeded random assignment of whole groups to the halves, drawn
    uniformly from those that give every class a training share within 40-60 % (or as
    near to half as the groups allow), with 2 or more minority samples to train on and
    each class in both halves (:mod:`fsengine.evaluation.group_splits`). The splits are
    distinct while the groups allow enough of them
    (:func:`fsengine.evaluation.group_splits.repeated_splits_warning` says when not);
    groups that allow no split are refused, naming them.
    """
    y = np.asarray(y)
    if not is_integer_in(n_splits, 1):
        raise FSEngineError(
            f"the number of splits must be a positive integer, got {n_splits!r}",
            parameter="splits",
        )
    _check_splittable(y)
    if groups is not None:
        return _group_splits(y, np.asarray(groups), n_splits, seed)
    from sklearn.model_selection import StratifiedShuffleSplit

    n_train = training_size(len(y))
    splitter = StratifiedShuffleSplit(
        n_splits=n_splits, train_size=n_train, test_size=len(y) - n_train, random_state=seed
    )
    return list(splitter.split(np.zeros((len(y), 1)), y))


def _group_splits(y, groups, n_splits: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The splits of :func:`stratified_splits` that keep each group on one side
    (:mod:`fsengine.evaluation.group_splits`)."""
    if len(groups) != len(y):
        raise FSEngineError(
            f"one group per sample is needed: {len(y)} samples, {len(groups)} groups",
            parameter="sample_groups",
        )
    minority_groups = sorted(set(groups[y == 1].tolist()))
    if len(set(groups.tolist())) < 2 or len(minority_groups) < 2:
        raise FSEngineError(
            f"put the minority's {int(y.sum())} samples in {len(minority_groups)} group(s): "
            "a split keeping each group on one side cannot give both halves minority "
            "samples; the 50/50 comparison needs the minority in at least 2 groups",
            parameter="sample_groups",
        )
    return group_splits(y, groups, n_splits, seed)


def _check_splittable(y: np.ndarray) -> None:
    """Raise the FSEngineError that refuses labels ``y`` for the 50/50 splits, if any."""
    _, counts = np.unique(y, return_counts=True)
    if counts.min() < 2:
        raise FSEngineError("each class needs at least 2 samples to appear in both halves")
    n_minority = int(np.sum(y == 1))
    if set(np.unique(y).tolist()) <= {0, 1} and n_minority < MIN_PROTOCOL_MINORITY:
        raise FSEngineError(
            f"names a class of {n_minority} samples: a 50/50 split leaves "
            f"{n_minority // 2}-{n_minority - n_minority // 2} of them in the training half, "
            f"and selection needs at least {MIN_MINORITY} to learn from, so the G-means "
            "would mean nothing",
            parameter="minority",
            remedy=f"choose a class with at least {MIN_PROTOCOL_MINORITY} samples as the minority",
        )


def half_minority_sizes(y) -> tuple[range, range]:
    """How many minority samples a training and a test half of the protocol can hold,
    from the stratification's arithmetic alone (no split is drawn, nothing imported).

    A stratified split (scikit-learn's ``StratifiedShuffleSplit``, which
    :func:`stratified_splits` uses) gives each class the floor of its share of the
    training half, ``q = floor(m * n_train / n)`` for ``m`` minority samples of ``n``, and
    the one sample left over to the class with the larger remainder ``r`` of that division:
    the minority when ``2 r > n``, the majority when ``2 r < n``, either (at random) when
    ``2 r == n``. The test half holds the rest.

    Parameters
    ----------
    y : array of 0/1
        One-versus-rest labels (1 = minority).

    Returns
    -------
    (range of training-half counts, range of test-half counts), each ``range(low, high + 1)``.
    Every split of :func:`stratified_splits` lies in them; they are a single count each
    unless ``2 r == n``, where the two counts of a random tie are both included.
    """
    y = np.asarray(y)
    n, m = len(y), int(np.sum(y == 1))
    n_train = training_size(n)
    q, r = divmod(m * n_train, n)
    low = q + 1 if 2 * r > n else q
    high = q + 1 if 2 * r >= n else q
    return range(low, high + 1), range(m - high, m - low + 1)


def select_on(
    method: str,
    X_train: np.ndarray,
    y_train: np.ndarray,
    names: Sequence[str],
    n_features: int | None = None,
    **params,
) -> list[int]:
    """Column indices that ``method`` selects from the training half alone.

    Online methods stream the columns in natural order; rankers keep their
    ``n_features`` best (ties to the lower index).
    """
    chosen = get_method(method)
    if not chosen.online and n_features is None:
        raise FSEngineError(f"{method} is a ranker: it needs a number of features")
    outcome = chosen.select(
        X_train, y_train, names, params=params, top=None if chosen.online else n_features
    )
    return list(outcome.selection.columns)


def protocol_minority_sizes(
    y, n_splits: int = 20, seed: int = 0, groups=None
) -> tuple[range, range]:
    """How many minority samples the training and the test halves of the protocol hold,
    counted on the splits drawn (:func:`half_minority_sizes` says it without drawing them).

    Parameters
    ----------
    y : array of 0/1
    n_splits, seed : int
        The splits of :func:`stratified_splits`.
    groups : array, optional
        Each sample's group (:func:`stratified_splits`).

    Returns
    -------
    (range of training-half counts, range of test-half counts), inclusive of both ends
    as ``range(low, high + 1)``.
    """
    y = np.asarray(y)
    splits = stratified_splits(y, n_splits, seed, groups)
    train = [int(y[t].sum()) for t, _ in splits]
    test = [int(y[t].sum()) for _, t in splits]
    return range(min(train), max(train) + 1), range(min(test), max(test) + 1)


def _span(counts: range) -> str:
    return f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"


def protocol_warnings(
    y,
    methods: Sequence[str] = (),
    params: dict | None = None,
    n_splits: int | None = None,
    groups=None,
    seed: int = 0,
) -> list[str]:
    """What makes the 50/50 protocol weak for these labels and methods, in words.

    Parameters
    ----------
    y : array of 0/1
        One-versus-rest labels (1 = minority) of the whole data set.
    methods : sequence of str
        Methods to check against the training halves (K-OFSD: K at or above the
        training half's minority size, :meth:`fsengine.methods.registry.Method.warnings`).
    params : dict, optional
        Parameters per method.
    n_splits : int, optional
        Number of splits (a single split is warned about).
    groups : array, optional
        Each sample's group: the halves' sizes are then counted on the drawn splits
        (:func:`stratified_splits` with ``n_splits`` (default 20) and ``seed``), which
        raise when groups leave a half too few minority samples; and groups that allow
        fewer distinct splits than ``n_splits`` are warned about (the splits repeat).
    seed : int
        Seed of the splits (with ``groups`` only: without, the halves' sizes do not
        depend on it).

    Returns
    -------
    list of str
        Empty when nothing is wrong. A minority too small to run at all is an error of
        :func:`stratified_splits`, not a warning.
    """
    y = np.asarray(y)
    n_minority = int(np.sum(y == 1))
    if n_minority < MIN_PROTOCOL_MINORITY:
        return [
            f"the minority class has {n_minority} samples: the 50/50 protocol needs at least "
            f"{MIN_PROTOCOL_MINORITY} (2 in each training half); choose a larger class"
        ]
    train_y, train = _training_labels(y, groups, n_splits or 20, seed)
    if groups is None:
        _, test = half_minority_sizes(y)
    else:
        _, test = protocol_minority_sizes(y, n_splits or 20, seed, groups)
    warnings = []
    if test[0] < 5:
        warnings.append(
            f"a test half holds only {_span(test)} minority samples: each one moves the "
            "minority recall (and so the G-mean) by a large step; use many splits and read "
            "the standard deviations"
        )
    for method in dict.fromkeys(methods):
        chosen = get_method(method)
        try:
            found = chosen.warnings(train_y, (params or {}).get(method, {}))
        except FSEngineError:
            continue  # a bad parameter is reported when the run starts
        warnings += [
            f"{method} on a training half ({_span(train)} minority samples of "
            f"{len(train_y)}): {text}"
            for text in found
        ]
    if groups is not None:
        repeated = repeated_splits_warning(y, np.asarray(groups), n_splits or 20, seed)
        if repeated:
            warnings.append(repeated)
    if n_splits == 1:
        warnings.append("a single split gives no standard deviation; use 10 or more")
    return warnings


def training_halves(y, n_splits: int = 20, seed: int = 0, groups=None) -> tuple[int, int]:
    """The smallest training half of the protocol and the fewest minority samples a
    training half holds: what K-OFSD's K is checked against.

    Without ``groups`` both come from the stratification's arithmetic
    (:func:`fsengine.data.task.training_size`, :func:`half_minority_sizes`), whatever the
    splits. With ``groups`` the halves vary with the groups: both are counted on the
    splits :func:`stratified_splits` draws with ``n_splits`` and ``seed`` (the two minima
    may come from different splits, so together they are a bound).

    Parameters
    ----------
    y : array of 0/1
    n_splits, seed : int
    groups : array, optional

    Returns
    -------
    (int, int)
        Samples of the smallest training half, minority samples of the poorest one.

    Raises
    ------
    FSEngineError
        When the protocol refuses the labels or the groups (:func:`stratified_splits`).
    """
    y = np.asarray(y)
    if groups is None:
        _check_splittable(y)
        return training_size(len(y)), half_minority_sizes(y)[0][0]
    splits = stratified_splits(y, n_splits, seed, groups)
    return min(len(t) for t, _ in splits), min(int(y[t].sum()) for t, _ in splits)


def _training_labels(y, groups=None, n_splits: int = 20, seed: int = 0) -> tuple[np.ndarray, range]:
    """Labels of a training half with the fewest samples and minority samples the
    protocol's splits can give (:func:`training_halves`), and the range of the minority
    counts."""
    y = np.asarray(y)
    size, fewest = training_halves(y, n_splits, seed, groups)
    if groups is None:
        counts = half_minority_sizes(y)[0]
    else:
        counts = protocol_minority_sizes(y, n_splits, seed, groups)[0]
    train_y = np.zeros(size, dtype=np.int8)
    train_y[:fewest] = 1
    return train_y, counts


def protocol_defaults(
    y, method: str, groups=None, n_splits: int = 20, seed: int = 0, X=None, name: str = ""
) -> dict[str, tuple[object, str]]:
    """``method``'s defaults that suit the protocol's training halves of labels ``y``
    better than its specification's (K-OFSD: K below the halves' minority size).

    Parameters
    ----------
    y : array of 0/1
        One-versus-rest labels of the whole data set.
    method : str
    groups : array, optional
        Each sample's group: the halves are then counted on the splits drawn with
        ``n_splits`` and ``seed`` (:func:`training_halves`), not on the arithmetic of
        ungrouped splits.
    n_splits, seed : int
    X : ndarray or scipy sparse matrix, optional
        The features: on counts a selector with a ``ties`` parameter is proposed the
        order-invariant rule (:meth:`~fsengine.methods.online.StreamingSelector.data_defaults`).
    name : str, optional
        The data set's name, for K's reason in a study over several data sets
        (:func:`study_defaults`).

    Returns
    -------
    dict
        Parameter -> (value, why in a sentence, naming the training half). Empty when the
        specification's defaults suit, and when the minority is too small to split (the
        protocol refuses it: :func:`protocol_refusal`).
    """
    chosen = get_method(method)
    if not chosen.online:
        return {}
    try:
        train_y, _ = _training_labels(y, groups, n_splits, seed)
    except FSEngineError:
        return {}  # refused: protocol_refusal (or the group splits) say why
    where = f"in {name}, a training half has as few as" if name else "a training half has as few as"
    return chosen.implementation.data_defaults(chosen.spec.defaults(), train_y, where, X)


def study_defaults(method: str, proposals: Sequence[dict]) -> dict[str, tuple[object, str]]:
    """``method``'s defaults that suit every data set of a study, which runs one setting
    on all of them, from each data set's :func:`protocol_defaults` (called with its
    ``name``).

    Parameters
    ----------
    method : str
    proposals : sequence of dict
        Per data set: parameter -> (value, why).

    Returns
    -------
    dict
        Parameter -> (value, why): K-OFSD's smallest K (its reason naming the data set),
        the order-invariant tie rule when one data set holds counts (sparse, integers or
        mostly zeros) (:meth:`~fsengine.methods.online.StreamingSelector.
        merged_defaults`). Empty for a ranker and when the specification's defaults suit
        every data set.
    """
    chosen = get_method(method)
    if not chosen.online:
        return {}
    return chosen.implementation.merged_defaults([found for found in proposals if found])


def protocol_refusal(y) -> FSEngineError | None:
    """Why the 50/50 protocol refuses labels ``y`` (the error :func:`stratified_splits`
    raises), else None: checked before a run, so a page can disable its button."""
    try:
        _check_splittable(np.asarray(y))
    except FSEngineError as exc:
        return exc
    return None


def check_methods(methods: Sequence[str]) -> list[str]:
    """``methods`` without repeats, in their order; FSEngineError for none or for a name
    that is not a method."""
    methods = list(dict.fromkeys(methods))
    if not methods:
        raise FSEngineError("no method to evaluate")
    for method in methods:
        try:
            get_method(method)
        except FSEngineError as exc:
            raise FSEngineError(exc.problem, parameter="methods") from None
    return methods


def check_on_training_half(method: str, params: dict, n_samples: int) -> dict:
    """``method``'s parameters checked against a training half of ``n_samples`` (the
    smallest the splits drew), defaults filled in.

    Parameters
    ----------
    method : str
        The method's registry name.
    params : dict
        Its parameters as given.
    n_samples : int
        The samples of the smallest training half: a bound that depends on the samples
        (K-OFSD's K) is this one's.

    Returns
    -------
    dict
        Every parameter's value, checked (:meth:`fsengine.spec.MethodSpec.check`).

    Raises
    ------
    FSEngineError
        A bad value; a value refused only for the size of the training half says so, as
        its bound is not the whole data set's.
    """
    spec = get_method(method).spec
    try:
        return spec.check(params, n_samples=n_samples)
    except FSEngineError as exc:
        spec.check(params)  # refused whatever the samples: raised as it is
        raise exc.reworded(
            f"{exc.problem}: the samples here are those of the smallest training half "
            f"of the splits ({n_samples})"
        ) from None


def method_settings(methods: Sequence[str], params: dict, n_samples: int) -> dict[str, dict]:
    """Every parameter in effect for each method (defaults filled in), checked against
    a training half of ``n_samples`` (:func:`check_on_training_half`); FSEngineError
    names a bad one."""
    return {
        method: get_method(method).spec.record(
            check_on_training_half(method, params.get(method, {}), n_samples)
        )
        for method in methods
    }


def is_ranker(method: str) -> bool:
    """Whether ``method`` is a ranker (not an online selector)."""
    return not get_method(method).online


def check_count_from(count_from: str) -> str:
    """``count_from`` when it is an online selector (whose count of features the rankers
    get); FSEngineError for a ranker."""
    if not get_method(count_from).online:
        raise FSEngineError(
            f"must be an online selector (it sets the rankers' number of "
            f"features), got the ranker {count_from}",
            parameter="count_from",
        )
    return count_from


def progress_per_task(progress: Progress | None, total: int, labels: Callable[[int], list[str]]):
    """An ``on_done(i)`` for :func:`run_tasks` that reports task i's items one by one
    (``labels(i)``: one message per item, e.g. per method of a split)."""
    if progress is None:
        return None
    done = [0]

    def on_done(i: int) -> None:
        for label in labels(i):
            done[0] += 1
            progress(done[0], total, label)

    return on_done
