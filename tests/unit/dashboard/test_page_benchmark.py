"""The Benchmark page's pure helpers (dashboard/pages/benchmark.py): the labels, keys and
texts its sections build from the study's data sets, protocol and tests, checked against
values worked out by hand."""

from dashboard.pages import benchmark
from fsengine.data.dataset import load_dataset
from fsengine.evaluation.study import Study, StudyDataset

SRBCT = StudyDataset("SRBCT", None, "2")
GLIOMA = StudyDataset("GLIOMA", None, "2", "label", True)
#: Two data sets, three methods, two splits, seed 3; the rankers count as K-OFSD selects.
DONE = Study((SRBCT, GLIOMA), ("kofsd", "fisher", "relieff"), 2, 3, count_from="kofsd")


def test_a_metric_is_named_by_its_measure_and_classifier():
    assert benchmark._metric_text("gmean_1nn") == "G-mean, 1-NN (gmean_1nn)"
    assert benchmark._metric_text("f1_svm") == "F1 (minority), SVM (f1_svm)"
    assert benchmark._metric_text("auc_1nn") == "AUC, 1-NN (auc_1nn)"
    assert benchmark._metric_text("n_features") == "number of features (fewer is better)"
    assert benchmark._metric_text("seconds") == (
        "selection time, s (less is better; timing, not a result)"
    )


def test_the_run_says_where_it_starts_and_records_where_it_ran():
    assert benchmark._start_text(12, "local", "") == (
        "12 tasks: starting a local Dask cluster (a worker process per core) ..."
    )
    assert benchmark._start_text(4, "cluster", "tcp://h:1") == (
        "4 tasks: connecting to the Dask scheduler at tcp://h:1 ..."
    )
    assert benchmark._start_text(4, "serial", "tcp://h:1") == "4 tasks: running in this process ..."
    assert benchmark._engine_text("cluster", " tcp://h:1 ") == (
        "A Dask cluster (scheduler address) tcp://h:1"
    )
    assert benchmark._engine_text("serial", "tcp://h:1") == (
        "This process (one task after the other, no Dask)"
    )


def test_stored_data_sets_are_labelled_by_name_and_size_a_shared_name_with_its_hash():
    a, b, c = "a" * 64, "b" * 64, "c" * 64
    stored = {a: ("x.csv", 500), b: ("x.csv", 2048), c: ("y.parquet", 3 * 1024**2)}
    assert benchmark._dataset_labels(stored) == {
        a: "x.csv [aaaaaaaa] (500 bytes)",
        b: "x.csv [bbbbbbbb] (2 KB)",
        c: "y.parquet (3.0 MB)",
    }


def test_the_table_of_data_sets_counts_the_minority_and_the_imbalance():
    toy = load_dataset(b"g1,g2,label\n1,2,a\n2,3,a\n3,1,a\n4,4,b\n5,0,b\n", name="toy.csv")
    entries = [(StudyDataset("toy", None, "b"), toy, "toy.csv", "f" * 64)]
    assert benchmark._entry_rows(entries) == [
        {
            "data set": "toy",
            "file": "toy.csv",
            "samples": 5,
            "features": 2,
            "label column": "label",
            "minority class": "b",
            "minority samples": 2,
            "imbalance ratio": 1.5,  # 3 a's over 2 b's
        }
    ]


def test_a_study_of_fewer_than_two_data_sets_says_how_many_it_has():
    assert benchmark._too_few_text(0) == (
        "The study has 0 data sets: the tests compare methods over at least 2. Add data sets "
        "above (upload files or pick them from this workspace)."
    )
    assert benchmark._too_few_text(1).startswith("The study has 1 data set: the tests")


def test_the_study_is_kept_under_its_data_sets_reading_and_protocol():
    entries = [(SRBCT, None, "SRBCT.parquet", "s1"), (GLIOMA, None, "GLIOMA.csv", "s2")]
    protocol = benchmark._Protocol(("kofsd", "fisher"), 2, 3, None, {"kofsd": {"k": 5}})
    assert benchmark._study_key(entries, protocol) == (
        "benchmark",
        (("SRBCT", "s1", None, False, "2"), ("GLIOMA", "s2", "label", True, "2")),
        ("kofsd", "fisher"),
        2,
        3,
        None,
        (("kofsd", "{'k': 5}"),),
    )


def test_the_studys_title_names_the_methods_data_sets_and_protocol():
    assert benchmark._study_title(("kofsd", "fisher"), ["SRBCT", "GLIOMA"], 2, 3) == (
        "Benchmark K-OFSD, Fisher on SRBCT, GLIOMA: 2 splits, seed 3"
    )


def test_the_results_caption_says_the_size_the_engine_and_the_rankers_count():
    assert benchmark._results_caption(DONE, 12, "This process") == (
        "2 data sets x 3 methods x 2 splits (seed 3), 12 tasks, run on: This process. Every "
        "score is measured on the **test halves** (samples the selection and the classifier "
        "never saw), then averaged over the 2 splits of each data set: not in-sample fits. "
        "Every ranker keeps as many features as kofsd selected on the same split."
    )
    fixed = Study((SRBCT, GLIOMA), ("fisher", "relieff"), 5, 0, top=10)
    assert benchmark._results_caption(fixed, 20, "here").endswith(
        "over the 5 splits of each data set: not in-sample fits. Every ranker keeps its top "
        "10 features."
    )


def test_the_methods_differ_only_when_iman_davenports_p_is_below_alpha():
    assert benchmark._verdict("gmean_1nn", 0.0, 0.05, 2) == (
        True,
        "The methods differ on gmean_1nn (Iman-Davenport p = 0 < 0.05): see which pairs below.",
    )
    assert benchmark._verdict("auc_svm", 0.0123456, 0.05, 4)[1] == (
        "The methods differ on auc_svm (Iman-Davenport p = 0.0123 < 0.05): see which pairs below."
    )
    assert benchmark._verdict("n_features", 1.0, 0.1, 2) == (
        False,
        "No significant difference between the methods on n_features (Iman-Davenport p = 1 "
        ">= 0.1) with 2 data sets: more data sets give the tests more power.",
    )
    assert benchmark._verdict("f1_1nn", 0.05, 0.05, 3)[0] is False  # not below alpha


def test_wilcoxons_smallest_p_value_is_two_over_two_to_the_data_sets():
    assert benchmark._wilcoxon_caption(2).endswith(
        "With 2 data sets, Wilcoxon's smallest p-value is 0.5."
    )
    assert benchmark._wilcoxon_caption(5).endswith("smallest p-value is 0.0625.")  # 2 / 32
    assert benchmark._wilcoxon_caption(10).endswith("smallest p-value is 0.00195.")  # 2 / 1024


def test_the_downloads_are_named_by_data_sets_methods_and_splits():
    assert benchmark._download_stem(DONE) == "benchmark_2x3x2"
