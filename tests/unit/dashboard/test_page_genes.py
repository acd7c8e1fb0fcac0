"""The Genes page's pure helpers (dashboard/pages/genes.py): the captions it writes for
what its figures draw, and the order stability's counts and texts, checked against values
written out by hand."""

import numpy as np

from dashboard.pages import genes
from dashboard.widgets import table_height
from fsengine.evaluation.genes import ClassSample

#: Every one of 5 samples drawn.
ALL = ClassSample(np.arange(5), {"a": 2, "b": 3}, {"a": 2, "b": 3}, 0)
#: 4 of 3,000 samples drawn, 2 of each class.
PART = ClassSample(np.array([0, 1, 5, 6]), {"a": 2, "b": 2}, {"a": 3, "b": 2997}, 0)
PART_TEXT = "a seeded sample (seed 0) of 4 of 3,000 samples, up to 2 of each class"
PART_CLASSES = "a 2 of 3, b 2 of 2,997"


def test_a_table_is_35_pixels_a_row_with_its_header_and_3_more_at_most_the_cap():
    assert table_height(3, 420) == 143
    assert table_height(11, 420) == 420  # 423 capped
    assert table_height(7, 300) == 283
    assert table_height(8, 300) == 300  # 318 capped


def test_the_gene_table_file_is_named_after_the_selections_page():
    assert genes._gene_table_file_name("Compare: Fisher (whole data set)") == ("genes_compare.csv")
    assert genes._gene_table_file_name("Stream: K-OFSD (index order)") == "genes_stream.csv"


def test_the_heat_map_caption_says_what_a_sample_draws():
    assert genes._heat_map_caption(3000, PART) == (
        f"3,000 samples are too many to draw one by one: {PART_TEXT} ({PART_CLASSES}), "
        "grouped by class and ordered within each by average-linkage clustering. Values "
        "z-scored per gene over all samples (clipped at ±3); the bar on top is each "
        "sample's class."
    )
    assert genes._heat_map_caption(5, ALL) == (
        "Values z-scored per gene (clipped at ±3); samples and genes ordered by "
        "average-linkage clustering; the bar on top is each sample's class."
    )


def test_the_plots_by_class_name_their_limit_above_24_genes():
    assert genes._box_limit_caption(24) is None
    assert genes._box_limit_caption(25) == ("The first 24 of 25 genes, in the selection's order.")


def test_the_by_class_caption_speaks_of_sampled_points_only():
    assert genes._by_class_caption(3000, PART, "box") == (
        "Each box summarises all 3,000 samples of its class (quartiles, whiskers to the "
        "furthest value within 1.5 IQR); the points are not drawn above 2,000 samples. "
        "The violins draw a seeded sample's points."
    )
    assert genes._by_class_caption(3000, PART, "violin") == (
        f"Violins and points of {PART_TEXT} ({PART_CLASSES})."
    )
    assert genes._by_class_caption(5, ALL, "box") is None
    assert genes._by_class_caption(5, ALL, "violin") is None


def test_the_projection_caption_names_the_drawn_samples_when_sampled():
    whole = (
        "PCA of the samples (standardised genes) on the selected genes, next to all genes: "
        "a selection that separates the minority should make it stand apart."
    )
    assert genes._projection_caption(ALL) == whole
    assert genes._projection_caption(PART) == (
        whole + f" Drawn: {PART_TEXT}; the selected genes' PCA is fit on all samples, the "
        "PCA of all genes on the drawn ones."
    )


def test_the_order_counts_rank_by_orders_then_by_name():
    selections = [("g2", "g1"), ("g1", "g3"), ("g1", "g2"), ()]
    assert genes._order_counts(selections) == [("g1", 3), ("g2", 2), ("g3", 1)]
    assert genes._order_counts([("b", "c"), ("a",)]) == [("a", 1), ("b", 1), ("c", 1)]
    assert genes._order_counts([]) == []


def test_the_sizes_text_is_the_smallest_and_largest():
    assert genes._sizes_text((5, 3, 7)) == "3-7"
    assert genes._sizes_text([4, 4]) == "4-4"


def test_the_stability_title_names_the_selector_orders_seed_and_task():
    assert genes._stability_title("kofsd", 3, 0, "SRBCT.parquet", 2) == (
        "Order stability of K-OFSD: 3 random orders from seed 0 (SRBCT.parquet, minority 2)"
    )


def test_the_selections_listed_take_exports_of_this_data_set_and_minority_only(monkeypatch):
    """Export's runs join the list for the data set they were computed on and its
    minority class; nothing computed on Export, or another data set's, lists none."""
    import types

    import streamlit as st

    from dashboard import streams
    from dashboard.session import state

    monkeypatch.setattr(st, "session_state", {})
    monkeypatch.setattr(streams, "current", lambda: None)
    monkeypatch.setattr(genes.session, "current_results", lambda store: [])

    class Loaded:
        def __init__(self, sha256):
            self.sha256, self.options = sha256, {}

    loaded, other = Loaded("a" * 64), Loaded("b" * 64)
    assert genes.selections_of(loaded, 1) == {}
    selection = types.SimpleNamespace(features=("g1", "g2"), fallback=False)
    result = types.SimpleNamespace(selection=selection)
    state.export_results(loaded)[(1, "fisher", 2, ())] = result
    state.export_results(loaded)[(2, "kofsd", 2, ())] = result  # another minority class
    assert genes.selections_of(loaded, 1) == {"Export: Fisher": ("g1", "g2")}
    assert genes.selections_of(other, 1) == {}
