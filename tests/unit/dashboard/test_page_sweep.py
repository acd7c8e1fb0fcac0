"""The Sweep page's pure helpers (dashboard/pages/sweep.py): the keys, choices and texts its
sections build from the sweep's values and results, checked against values worked out by
hand."""

from types import SimpleNamespace

from dashboard.pages import sweep
from dashboard.widgets import table_height
from fsengine.methods.registry import get_method


def test_a_range_of_integers_is_written_as_its_ends_other_values_one_by_one():
    assert sweep._values_text([3, 4, 5, 6]) == "3..6"
    assert sweep._values_text([7]) == "7"
    assert sweep._values_text([1, 3, 5]) == "1, 3, 5"  # not a range
    assert sweep._values_text([0.01, 0.05]) == "0.01, 0.05"
    assert sweep._values_text([1e-05, 0.5]) == "1e-05, 0.5"


def test_the_best_values_are_listed_integers_as_they_are_reals_short():
    assert sweep._listed([3, 5]) == "3, 5"
    assert sweep._listed([0.1, 2]) == "0.1, 2"
    assert sweep._listed([1e-05]) == "1e-05"


def test_kofsd_k_keeps_its_former_key_and_symbol_any_other_parameter_its_own():
    assert sweep._values_key("kofsd", "k") == "sweep_ks"
    assert sweep._values_key("kofsd", "alpha") == "sweep_values_kofsd_alpha"
    assert sweep._values_key("osfs", "k") == "sweep_values_osfs_k"
    assert sweep._is_k("kofsd", "k") and not sweep._is_k("osfs", "k")
    assert not sweep._is_k("kofsd", "alpha")
    assert sweep._symbol("k") == "K"
    assert sweep._symbol("alpha") == "alpha"


def test_a_sweep_names_its_parameter_and_says_whether_it_is_kofsd_k():
    kofsd = get_method("kofsd").spec
    k = sweep._ValuesSweep("kofsd", kofsd, "k", kofsd.parameters["k"], [3, 4], {})
    alpha = sweep._ValuesSweep("kofsd", kofsd, "alpha", kofsd.parameters["alpha"], [0.5], {})
    assert (k.is_k, k.symbol) == (True, "K")
    assert (alpha.is_k, alpha.symbol) == (False, "alpha")


def test_the_top_k_range_is_cut_at_the_features_of_the_data_set():
    assert sweep._tops_within((1, 10), 5) == (1, 5)
    assert sweep._tops_within((8, 10), 5) == (5, 5)
    assert sweep._tops_within((3, 4), 30) == (3, 4)


def test_a_range_of_values_is_moved_inside_what_the_data_set_allows():
    assert sweep._range_within((1, 50), 2, 41) == (2, 41)
    assert sweep._range_within((5, 7), 2, 41) == (5, 7)
    assert sweep._range_within((45, 50), 2, 41) == (41, 41)


def test_a_selector_without_a_number_to_sweep_is_said_so_with_its_choices():
    assert sweep._no_parameter_text(get_method("ofs-fpd").spec) == (
        "OFS-FPD has no numeric parameter to sweep (its settings, relevance, are choices). "
        "Choose another online selector, or compare it with others on the Compare page."
    )
    none = SimpleNamespace(label="Plain", parameters={})
    assert sweep._no_parameter_text(none) == (
        "Plain has no numeric parameter to sweep. Choose another online selector, or "
        "compare it with others on the Compare page."
    )


def test_a_sweep_is_drawn_from_any_kept_one_over_more_values_with_the_same_settings():
    prefix = ("task", "k", 2, 0, ())
    results = {
        (*prefix, (3, 4, 5, 6)): "wide",
        (*prefix, (5, 6)): "narrow",
        ("task", "k", 3, 0, (), (3, 4, 5, 6)): "three splits",
    }
    assert sweep._kept_sweeps(results, prefix, [4, 5]) == [((3, 4, 5, 6), "wide")]
    assert sweep._kept_sweeps(results, prefix, [5, 6]) == [
        ((3, 4, 5, 6), "wide"),
        ((5, 6), "narrow"),
    ]
    assert sweep._kept_sweeps(results, prefix, [6, 7]) == []


def test_the_result_drawn_is_the_run_else_the_last_kept_with_the_values_it_holds():
    kept = [((3, 4, 5, 6), "wide"), ((4, 5, 6), "later")]
    assert sweep._result_or_kept("run", (4, 5), kept) == ("run", [4, 5])
    assert sweep._result_or_kept(None, (4, 5), kept) == ("later", [4, 5, 6])
    assert sweep._result_or_kept(None, (4, 5), []) == (None, None)


def test_before_a_run_the_page_says_how_the_sweep_computes():
    assert sweep._values_run_hint("K", True, "K-OFSD") == (
        "Choose the values of K and press **Run K sweep**: every K of the range is computed "
        "once (one sorted pass per split serves all of them); afterwards the shown value and "
        "any values among those computed are drawn from that result without recomputing."
    )
    assert sweep._values_run_hint("alpha", False, "OSFS") == (
        "Choose the values of alpha and press **Run alpha sweep**: OSFS runs once per value "
        "and split; afterwards the shown value and any values among those computed are drawn "
        "from that result without recomputing."
    )


def test_a_runs_title_names_the_protocol_the_data_set_and_the_class():
    assert sweep._run_title("K-OFSD, K 3..6", 2, 0, "SRBCT.parquet", 2) == (
        "K-OFSD, K 3..6: 2 splits, seed 0 (SRBCT.parquet, minority 2)"
    )


def test_the_shown_value_stays_else_the_default_else_the_middle():
    assert sweep._shown_default(5, [3, 4, 5, 6], 7) == 5
    assert sweep._shown_default(None, [3, 4, 5, 6], 7) == 5  # index 4 // 2
    assert sweep._shown_default(None, [5, 6, 7, 8], 7) == 7
    assert sweep._shown_default(9, [0.01, 0.05], 0.05) == 0.05  # 9 no longer swept


def test_the_caption_says_what_was_computed_and_how_the_time_is_drawn():
    assert sweep._computed_caption("K", [3, 4, 5, 6], 2, 0, True) == (
        "Computed once for K 3..6, 2 splits (seed 0); mean over the splits, error bars one "
        "standard deviation. One sorted pass per split serves every K: its time is in the "
        "chart's title, not drawn per K. Moving the shown K or choosing fewer of the computed "
        "values does not recompute."
    )
    assert sweep._computed_caption("alpha", [0.01, 0.05], 10, 3, False) == (
        "Computed once for alpha 0.01, 0.05, 10 splits (seed 3); mean over the splits, error "
        "bars one standard deviation. The selection time is each value's own, on the "
        "training half. Moving the shown alpha or choosing fewer of the computed values does "
        "not recompute."
    )


def test_the_genes_table_counts_the_splits_and_is_at_most_300_pixels_high():
    assert sweep._genes_table([("g1", 2), ("g7", 1)], 2) == {
        "gene": ["g1", "g7"],
        "splits selected (of 2)": [2, 1],
    }
    assert table_height(3, 300) == 143  # 3 rows of 35, and 38
    assert table_height(8, 300) == 300  # 318 capped


#: Two rankers on two splits and one top-k, and a third that keeps other genes.
GENES_OF = {
    ("fisher", 1, 0): ["a"],
    ("pcc", 1, 0): ["a"],
    ("fisher", 1, 1): ["b"],
    ("pcc", 1, 1): ["b"],
    ("relieff", 1, 0): ["c"],
    ("relieff", 1, 1): ["b"],
}


def test_rankers_keep_the_same_genes_only_when_they_do_on_every_split():
    assert sweep._same_genes(GENES_OF, ("fisher", "pcc"))
    assert not sweep._same_genes(GENES_OF, ("fisher", "relieff"))
    assert not sweep._same_genes({**GENES_OF, ("pcc", 1, 1): ["c"]}, ("fisher", "pcc"))


def test_identical_curves_are_explained_by_the_genes_kept():
    assert sweep._identical_curves_text(("fisher", "pcc"), True) == (
        "Fisher and PCC have identical curves: they kept the same genes on every split and "
        "top-k (on two classes Fisher's score and |PCC| are increasing functions of each "
        "other: they order genes alike). PCC: drawn dashed, with open markers, over Fisher's "
        "line."
    )
    assert sweep._identical_curves_text(("fisher", "s2n", "relieff"), False) == (
        "Fisher and S2N and ReliefF have identical curves: the same G-means at every top-k, "
        "from different genes. S2N, ReliefF: drawn dashed, with open markers, over Fisher's "
        "line."
    )
    assert sweep._identical_curves_text(("s2n", "relieff"), True) == (
        "S2N and ReliefF have identical curves: they kept the same genes on every split and "
        "top-k. ReliefF: drawn dashed, with open markers, over S2N's line."
    )


#: A K sweep's summary: 1-NN best at K = 4 and 5 (0.95), the SVM at K = 3 and 4 (0.8).
SUMMARY = [
    {"k": 3, "gmean_1nn_mean": 0.9, "gmean_svm_mean": 0.8},
    {"k": 4, "gmean_1nn_mean": 0.95, "gmean_svm_mean": 0.8},
    {"k": 5, "gmean_1nn_mean": 0.95, "gmean_svm_mean": 0.7},
]
MEASURED = (
    "Measured on these 2 splits: the mean G-mean is highest at K = 4, 5 with 1-NN (0.950) "
    "and at K = 3, 4 with the SVM (0.800); a difference smaller than the standard "
    "deviations may be chance."
)


def test_the_best_values_measured_are_said_alone_without_a_rule_or_below_it():
    assert sweep._measured_best_text(SUMMARY, "k", "K", 2, None) == MEASURED
    assert sweep._measured_best_text(SUMMARY, "k", "K", 2, 6) == MEASURED  # all K < 6


def test_kofsd_rule_is_set_against_the_measurements_when_the_sweep_reaches_it():
    assert sweep._measured_best_text(SUMMARY, "k", "K", 2, 4) == MEASURED + (
        " K-OFSD's rule of K below a training half's 4 minority samples (so that a minority "
        "sample can have only minority neighbours) is about neighbourhoods, not a "
        "measurement: on these splits K = 4, 5, at or above it, measured best."
    )
    assert sweep._measured_best_text(SUMMARY, "k", "K", 2, 5) == MEASURED + (
        " In line with K-OFSD's rule of K below a training half's 5 minority samples."
    )
