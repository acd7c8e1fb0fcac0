"""The Compare page's pure helpers (dashboard/pages/compare.py): the keys, titles and
captions its sections build from the comparison's numbers, checked against texts written
out by hand."""

import math

import pandas as pd

from dashboard.pages import compare
from dashboard.session import settings_key
from dashboard.widgets import table_height
from fsengine.methods.registry import get_method

#: K-OFSD's settings in effect as a comparison records them.
KOFSD_SETTINGS = {
    "k": 5,
    "alpha": 0.5,
    "card": "imbalanced",
    "variant": "reference",
    "metric": "seuclidean",
    "ties": "index",
}
OVERLAP = (
    "Overlap of the gene sets selected on the **whole data set** (all 83 samples, not the "
    "splits): Jaccard index |A ∩ B| / |A ∪ B| between every two methods; "
)


def test_a_table_is_35_pixels_a_row_with_its_header_and_3_more_capped_when_asked():
    assert table_height(2) == 108  # 3 rows of 35, and 3
    assert table_height(0) == 38
    assert table_height(10, 420) == 388
    assert table_height(11, 420) == 420  # 423 capped


def test_the_warnings_are_about_the_chosen_methods_then_the_counter_each_once():
    assert compare._warned_methods(("fisher", "kofsd"), {"kofsd": {}, "fisher": {}}) == [
        "fisher",
        "kofsd",
    ]
    # K-OFSD only sets the rankers' count: it runs, after the chosen ones.
    assert compare._warned_methods(("mi", "fisher"), {"kofsd": {"k": 5}}) == [
        "mi",
        "fisher",
        "kofsd",
    ]
    assert compare._warned_methods((), {}) == []


def test_the_run_key_holds_each_methods_settings_as_text_sorted_by_method():
    key = settings_key({"kofsd": {"k": 5, "alpha": 0.5}, "fisher": {}})
    assert key == (("fisher", "{}"), ("kofsd", "{'k': 5, 'alpha': 0.5}"))
    assert settings_key({}) == ()


def test_the_run_title_names_the_methods_protocol_and_task():
    title = compare._run_title(("kofsd", "fisher", "d-mi"), 20, 7, "SRBCT.parquet", 2)
    assert title == "Compare K-OFSD, Fisher, D-MI: 20 splits, seed 7 (SRBCT.parquet, minority 2)"


def test_the_ranker_rule_says_no_ranker_a_fixed_top_or_the_counters_settings():
    kofsd = get_method("kofsd").spec
    assert compare._ranker_rule(["kofsd", "saola"], None, kofsd, KOFSD_SETTINGS) == (
        "no ranker compared"
    )
    # A fixed top does not read the counter's settings (an old record may lack some).
    assert compare._ranker_rule(["kofsd", "fisher"], 10, kofsd, {}) == (
        "every ranker keeps its top 10 features"
    )
    assert compare._ranker_rule(["fisher"], None, kofsd, KOFSD_SETTINGS) == (
        "every ranker keeps as many features as K-OFSD (k=5, alpha=0.5, card=imbalanced, "
        "variant=reference, metric=seuclidean, ties=index) selected on the same split"
    )


def test_the_results_caption_names_the_splits_seed_and_rule():
    assert compare._results_caption(5, 0, "no ranker compared") == (
        "Mean and standard deviation over 5 splits (seed 0), measured on the test halves; "
        "no ranker compared. Time is the selection time on the training half. Shaded: the "
        "best mean of each measure. Click a column title to sort."
    )


def test_the_overlap_caption_with_a_fixed_top_gives_the_count_and_sizes():
    selections = {"kofsd": ("g1", "g2", "g3"), "fisher": ("g1", "g4")}
    assert compare._overlap_caption(83, selections, [], 2, 2) == (
        OVERLAP + "the rankers keep their top 2. Sizes: K-OFSD 3, Fisher 2."
    )


def test_the_overlap_caption_names_k_ofsds_fallback_and_each_fallen_back_method():
    selections = {"kofsd": ("g9",), "fisher": ("g4",), "made-up": ()}
    assert compare._overlap_caption(83, selections, ["kofsd"], None, 1) == (
        OVERLAP + "the rankers keep as many as K-OFSD returns there (1, its fallback's). "
        "Sizes: K-OFSD 1 (fallback: it selected none), Fisher 1, made-up 0."
    )
    assert compare._overlap_caption(83, selections, ["fisher"], None, 4) == (
        OVERLAP + "the rankers keep as many as K-OFSD returns there (4). "
        "Sizes: K-OFSD 1, Fisher 1 (fallback: it selected none), made-up 0."
    )


def test_the_overlap_caption_without_a_ranker_says_so_whatever_the_top():
    selections = {"kofsd": ("g1",), "saola": ()}
    for top in (None, 3):
        assert compare._overlap_caption(83, selections, [], top, 3) == (
            OVERLAP + "no ranker compared. Sizes: K-OFSD 1, SAOLA 0."
        )


def test_the_fallback_warning_names_the_method_and_its_genes():
    assert compare._fallback_warning("kofsd", 3) == (
        "K-OFSD selected no feature on the whole data set; its 3 genes in the overlap are "
        "its fallback rule's (the top ones by single-feature score), not a selection. The "
        "features column of the table counts what each method returned on the training "
        "halves, fallbacks included."
    )


def test_a_missing_whole_data_rank_reads_not_selected():
    ranks = pd.Series([1.0, math.nan, 12.0])
    assert compare._whole_data_ranks(ranks) == ["1", "not selected", "12"]
    assert compare._whole_data_ranks([]) == []


def test_the_records_file_is_named_after_the_data_set_without_suffixes_and_the_class():
    assert compare._records_file_name("SRBCT.parquet", 2) == "compare_SRBCT_2.csv"
    assert compare._records_file_name("Adeno.csv.gz", "tumour") == "compare_Adeno_tumour.csv"
