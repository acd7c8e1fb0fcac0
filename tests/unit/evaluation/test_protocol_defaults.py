"""Defaults that work on any upload (issue 29, points 4, 5 and 7), in the library: K's
default below a small minority class, the protocol's refusal in a whole sentence, each
value of a sweep timed on its own, and the names the pages show (short citations,
file names without their compression suffix)."""

import itertools
import types

import numpy as np
import pytest
from sklearn.model_selection import StratifiedShuffleSplit

from fsengine import FSEngineError
from fsengine.data.task import Task
from fsengine.errors import library_words
from fsengine.evaluation import protocol_defaults, protocol_refusal, study_defaults, sweeps
from fsengine.io import file_stem
from fsengine.methods.online._roughset.kofsd.selector import k_default
from fsengine.methods.registry import METHOD_LABELS, REGISTRY


def _labels(n_minority: int, n: int) -> np.ndarray:
    y = np.zeros(n, dtype=np.int8)
    y[:n_minority] = 1
    return y


@pytest.mark.parametrize(
    ("n_minority", "k", "expected"),
    [(8, 7, 7), (7, 7, 6), (6, 7, 5), (2, 7, 1), (1, 7, 7), (11, 3, 3)],
)
def test_k_default_is_the_largest_k_below_the_minority_size(n_minority, k, expected):
    found, why = k_default(_labels(n_minority, 30), k)
    assert found == expected
    assert bool(why) == (expected != k)
    if why:
        assert why.startswith(f"K is {expected}, not the paper's {k}:")
        assert f"{n_minority} minority samples" in why


def test_the_protocol_default_counts_the_smallest_training_half(srbct):
    """SRBCT's class 2 (11 of 83 samples): the fewest minority samples of a training half,
    counted here with scikit-learn's splitter over the protocol's 20 splits."""
    task = Task.from_dataset(srbct, 2)
    n_train = (len(task.y) + 1) // 2
    splitter = StratifiedShuffleSplit(
        20, train_size=n_train, test_size=83 - n_train, random_state=0
    )
    fewest = min(int(task.y[t].sum()) for t, _ in splitter.split(np.zeros((83, 1)), task.y))
    assert fewest == 6
    ((k, why),) = protocol_defaults(task.y, "kofsd").values()
    assert k == fewest - 1 == 5
    assert "a training half has as few as 6 minority samples" in why
    assert protocol_defaults(task.y, "fisher") == {}  # a ranker has no K
    assert protocol_defaults(_labels(30, 70), "kofsd") == {}  # 15 in a half: K = 7 works
    assert protocol_defaults(_labels(3, 30), "kofsd") == {}  # refused: no default to give


def test_a_study_takes_the_k_and_tie_rule_that_suit_every_data_set():
    """One setting runs on every data set of a study: the smallest K proposed (a data set
    of 12 minority samples of 40 has 6 in every half, K 5; one of 7 of 50 has 3 or 4, K
    2, its reason naming that data set), the order-invariant tie rule when one data set
    holds counts."""
    rng = np.random.default_rng(0)
    continuous = rng.normal(size=(40, 5))
    counts = rng.poisson(1.0, size=(50, 5)).astype(float)
    wide = protocol_defaults(_labels(12, 40), "kofsd", X=continuous, name="wide")
    narrow = protocol_defaults(_labels(7, 50), "kofsd", X=counts, name="narrow")
    assert wide["k"][0] == 5 and "ties" not in wide
    assert narrow["k"][0] == 2 and narrow["ties"][0] == "average"
    merged = study_defaults("kofsd", [wide, narrow])
    assert merged["k"] == narrow["k"]
    assert merged["k"][1].startswith("K is 2, not the paper's 7: in narrow, a training half")
    assert merged["ties"] == narrow["ties"]
    assert study_defaults("kofsd", [narrow, wide]) == merged  # not the order of the sets
    assert study_defaults("kofsd", [wide, {}])["k"] == wide["k"]
    assert study_defaults("kofsd", [{}, {}]) == {}  # the specification's defaults suit
    assert study_defaults("fisher", [wide, narrow]) == {}  # a ranker: nothing to adjust


def test_the_refusal_is_a_whole_sentence_about_the_minority_class():
    assert protocol_refusal(_labels(4, 30)) is None
    problem = protocol_refusal(_labels(3, 30))
    assert isinstance(problem, FSEngineError) and problem.parameter == "minority"
    text = problem.describe(library_words)
    assert text.startswith("minority names a class of 3 samples: a 50/50 split leaves 1-2")
    assert text.endswith("choose a class with at least 4 samples as the minority")
    # the dashboard's wording reads as a sentence too
    words = problem.describe(lambda name: "the 'Minority class' box")
    assert words.startswith("the 'Minority class' box names a class of 3 samples:")


def test_each_value_of_a_sweep_is_timed_on_its_own(srbct, monkeypatch):
    """OSFS runs each alpha on its own: each record has its own time (a clock that
    advances by 1 s per reading gives 1 s per value); K-OFSD's K shares one pass, whose
    time is divided among the values."""
    clock = types.SimpleNamespace(perf_counter=lambda: float(next(clock.ticks)))
    clock.ticks = itertools.count()
    monkeypatch.setattr(sweeps, "time", clock)  # the sweep's clock only
    task = Task.from_dataset(srbct, 2)
    split = (np.arange(0, 83, 2), np.arange(1, 83, 2))
    records = sweeps._sweep_values_split(task, 0, *split, "osfs", "alpha", [0.01, 0.05], {})
    assert [r["seconds"] for r in records] == [1.0, 1.0]
    clock.ticks = itertools.count()
    records = sweeps._sweep_values_split(task, 0, *split, "kofsd", "k", [1, 2, 3, 4], {})
    assert [r["seconds"] for r in records] == [0.25] * 4


def test_method_labels_and_short_citations():
    assert METHOD_LABELS["kofsd"] == "K-OFSD" and METHOD_LABELS["s2n"] == "S2N"
    assert set(METHOD_LABELS) == set(REGISTRY)
    short = {name: m.spec.short_citation for name, m in REGISTRY.items()}
    assert short["kofsd"] == "Zhou et al., 2017"
    assert short["s2n"] == "Golub et al., 1999"
    assert short["relieff"] == "Kononenko 1994"
    assert short["rhofs"] == "Sequential version of RHDOFS"  # no printed paper: its code
    assert short["grafting"] == "Perkins et al., 2003"
    assert all(len(text) <= 40 and "(" not in text for text in short.values())


@pytest.mark.parametrize(
    ("name", "stem"),
    [
        ("Adeno.csv.gz", "Adeno"),
        ("SRBCT.parquet", "SRBCT"),
        ("data/GSE1_series_matrix.txt.gz", "GSE1_series_matrix"),
        ("matrix.TSV.GZ", "matrix"),
        ("noext", "noext"),
    ],
)
def test_file_stem_drops_the_compression_and_format_suffixes(name, stem):
    assert file_stem(name) == stem


@pytest.mark.parametrize(
    ("path", "transpose"),
    [
        ("sample_data/SRBCT.parquet", False),
        ("tests/reference/datasets/GLIOMA.parquet", False),
        ("tests/data/colon_alon.csv.gz", False),
        ("tests/data/brain_nine_classes_genes_in_rows.tsv.gz", True),
    ],
)
def test_the_defaults_of_every_data_set_need_no_warning(path, transpose):
    """The default minority class and the pages' default K: the protocol accepts them, and
    its only remark may be the note that a test half holds few minority samples."""
    from conftest import ROOT
    from fsengine import load_dataset
    from fsengine.evaluation import protocol_warnings

    dataset = load_dataset(ROOT / path, transpose=transpose)
    task = Task.from_dataset(dataset)
    assert protocol_refusal(task.y) is None
    k = protocol_defaults(task.y, "kofsd").get("k", (7, ""))[0]
    remarks = protocol_warnings(task.y, ["kofsd"], {"kofsd": {"k": k}})
    assert all(r.startswith("a test half holds only") for r in remarks), remarks
    # the paper's K would be warned about wherever the default differs from it
    if k != 7:
        assert any("K = 7 is at or above" in r for r in protocol_warnings(task.y, ["kofsd"]))


def _drawn_sizes(y: np.ndarray, n_splits: int) -> tuple[set[int], set[int]]:
    """Minority counts of the training and test halves of scikit-learn's splits."""
    n_train = (len(y) + 1) // 2
    splitter = StratifiedShuffleSplit(
        n_splits, train_size=n_train, test_size=len(y) - n_train, random_state=0
    )
    halves = list(splitter.split(np.zeros((len(y), 1)), y))
    return {int(y[a].sum()) for a, _ in halves}, {int(y[b].sum()) for _, b in halves}


@pytest.mark.parametrize(
    ("n_minority", "n", "train", "test"),
    [
        (11, 83, [6], [5]),  # SRBCT's BL: 11 * 42 / 83 = 5.57, the minority's remainder larger
        (4, 83, [2], [2]),  # 4 * 42 / 83 = 2.02
        (5, 30, [2, 3], [2, 3]),  # 5 * 15 / 30 = 2.5: a tie, either half gets the third
        (21, 60, [10, 11], [10, 11]),  # 21 * 30 / 60 = 10.5
        (8, 62, [4], [4]),  # an exact share
        (4, 9, [2], [2]),  # 4 * 5 / 9 = 2.22
        (5, 9, [3], [2]),  # 5 * 5 / 9 = 2.78
    ],
)
def test_half_sizes_by_hand(n_minority, n, train, test):
    """The counts worked out by hand from the split sizes (ceil(n / 2) to train), and the
    same as the counts of 200 drawn splits (a tie gives each count with probability 1/2)."""
    from fsengine.evaluation import half_minority_sizes

    y = _labels(n_minority, n)
    found = half_minority_sizes(y)
    assert (list(found[0]), list(found[1])) == (train, test)
    drawn = _drawn_sizes(y, 200)
    assert drawn == (set(train), set(test))


def test_half_sizes_hold_every_drawn_split_and_are_exact_without_a_tie():
    """Every class size of 4 .. n - 2 in every n of 8 .. 120: the drawn splits' counts lie
    in the computed ranges, and equal them when the division has no tie."""
    from fsengine.evaluation import half_minority_sizes

    for n in range(8, 121):
        for m in range(4, n - 1):
            y = _labels(m, n)
            train, test = half_minority_sizes(y)
            drawn_train, drawn_test = _drawn_sizes(y, 20)
            assert drawn_train <= set(train) and drawn_test <= set(test), (m, n)
            tie = 2 * (m * ((n + 1) // 2) % n) == n
            if not tie:
                assert (drawn_train, drawn_test) == (set(train), set(test)), (m, n)
            assert all(a + b == m for a, b in zip(train, reversed(test), strict=True))


def test_the_refusal_and_the_defaults_draw_no_split(monkeypatch, srbct):
    """The Data page's checks (the refusal, K's default, the warnings) need no split and so
    no scikit-learn: a page that shows them imports none of it."""
    import fsengine.evaluation.protocol as protocol

    def no_split(*args, **kwargs):
        raise AssertionError("a split was drawn")

    monkeypatch.setattr(protocol, "stratified_splits", no_split)
    task = Task.from_dataset(srbct, 2)
    assert protocol.protocol_refusal(task.y) is None
    assert protocol.protocol_refusal(_labels(3, 30)).parameter == "minority"
    assert protocol.protocol_defaults(task.y, "kofsd")["k"][0] == 5
    assert protocol.protocol_warnings(task.y, ["kofsd"], {"kofsd": {"k": 5}}) == []
    (warning,) = protocol.protocol_warnings(task.y, ["kofsd"], {"kofsd": {"k": 7}})
    assert "K = 7" in warning and "(6 minority samples of 42)" in warning
