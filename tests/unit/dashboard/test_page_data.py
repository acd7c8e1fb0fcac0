"""The Data page's pure helpers (dashboard/pages/data.py): the boxes' choices computed from
the data set, the class names parsed from the box, and the texts built from the data set's
numbers, checked against values written out by hand."""

import pandas as pd

from dashboard.pages import data


def test_the_three_steps_name_the_bundled_sample_only_while_it_is_loaded():
    with_sample = data._start_here_text(True)
    without = data._start_here_text(False)
    assert with_sample.startswith(
        "**Start here, in three steps:** **1. Upload** your matrix below (until then, the "
        "bundled SRBCT sample is loaded) · **2. Choose the minority class**"
    )
    assert without.startswith(
        "**Start here, in three steps:** **1. Upload** your matrix below · **2. Choose"
    )
    assert without.endswith("watch a method select genes one at a time.")


def test_opening_a_data_directory_file_says_the_servers_memory_when_known():
    assert data._opening_text("1.2 GB", None) == "Opening it takes 1.2 GB."
    assert data._opening_text("1.2 GB", 0) == "Opening it takes 1.2 GB."
    assert (
        data._opening_text("300.0 MB", 3 * 2**30)
        == "Opening it takes 300.0 MB; the server has 3.0 GB available."
    )


def test_the_preprocessing_flags_are_the_command_lines_with_floats_shortest():
    params = {"floor": 20.0, "transform": "log2", "offset": 1, "min_variance": 0.25}
    assert data._flags(params) == "`--floor 20 --transform log2 --offset 1 --min-variance 0.25`"


def test_the_label_box_offers_a_failed_files_columns_else_the_annotations_else_the_columns():
    features = ("g1", "label", "g2")
    assert data._label_options(("class", "batch"), ("disease",), "label", features) == [
        "class",
        "batch",
    ]
    assert data._label_options(None, ("disease", "title"), "label", features) == [
        "disease",
        "title",
    ]
    # No annotations: the label column first, then every other column.
    assert data._label_options((), (), "label", features) == ["label", "g1", "g2"]


def test_the_groups_box_offers_the_annotations_but_the_label():
    options = data._group_options(
        ("disease", "patient", "batch"), "disease", None, ("g1",), None, data.NO_GROUPS
    )
    assert options == ["patient", "batch"]


def test_without_annotations_the_groups_box_offers_the_groups_column_then_the_features():
    assert data._group_options((), "label", "patient", ("g1", "g2"), None, "patient") == [
        "patient",
        "g1",
        "g2",
    ]
    assert data._group_options((), "label", None, ("g1", "g2"), None, None) == [None, "g1", "g2"]


def test_the_groups_box_puts_a_failed_files_column_and_a_typed_name_first_each_once():
    annotations = ("disease", "patient", "batch")
    assert data._group_options(annotations, "disease", None, (), "donor", data.NO_GROUPS) == [
        "donor",
        "patient",
        "batch",
    ]
    assert data._group_options(annotations, "disease", None, (), "batch", "batch") == [
        "batch",
        "patient",
    ]
    assert data._group_options(annotations, "disease", None, (), "donor", "typed") == [
        "typed",
        "donor",
        "patient",
        "batch",
    ]


def test_a_class_in_the_minority_box_shows_its_name_count_and_whether_it_is_the_default():
    counts = {1: 23, 2: 8, 3: 12}
    names = {"2": "RMS"}
    assert data._minority_option_text(2, counts, names, 2) == "2 (RMS): 8 samples, the default"
    assert data._minority_option_text(1, counts, names, 2) == "1: 23 samples"
    assert data._minority_option_text(3, counts, {}, 3) == "3: 12 samples, the default"


def test_class_names_read_back_as_the_box_shows_them():
    assert data._class_names_text({"0": "EWS", "1": "RMS"}) == "0=EWS, 1=RMS"
    assert data._class_names_text({}) == ""
    assert data._parse_class_names("0=EWS, 1=RMS", [0, 1, 2]) == ({"0": "EWS", "1": "RMS"}, [])


def test_class_names_are_trimmed_and_the_parts_naming_no_class_or_no_name_are_listed():
    parsed, unknown = data._parse_class_names(" 0 = EWS , 1=RMS,, 5=X, 2=, NB", [0, 1, 2])
    assert parsed == {"0": "EWS", "1": "RMS"}
    assert unknown == ["5=X", "2=", "NB"]
    assert data._parse_class_names("", [0, 1]) == ({}, [])
    assert (
        data._class_names_error(["5=X", "2="], [0, 1, 2])
        == "Class names: '5=X', '2=' do not name a class as code=name; the classes are 0, 1, 2."
    )


def test_the_memory_caption_says_a_backed_matrixs_dense_copy_else_the_matrixs_own():
    backed = data._memory_text(1000, 2000, 0, False, True)
    # 8 bytes x 1000 x 2000 = 16,000,000 bytes = 15.26 MiB
    assert backed.startswith(
        "Read from disk a block of genes at a time (backed): 1,000 x 2,000, whose dense copy "
        "would take 15.3 MB of memory. Stream reads"
    )
    assert (
        data._memory_text(83, 2308, 3 * 2**20, True, False)
        == "In memory: 3.0 MB (sparse 83 x 2,308), one copy for every session that reads it."
    )
    assert data._memory_text(83, 2308, 1000, False, False).startswith(
        "In memory: 1000 B (dense 83 x 2,308)"
    )


def test_a_class_text_is_cut_to_fourteen_characters_for_its_metric():
    assert data._short_class_text("2 (RMS)") == "2 (RMS)"
    assert data._short_class_text("12345678901234") == "12345678901234"
    assert data._short_class_text("2 (Rhabdomyosarcoma)") == "2 (Rhabdomyos\u2026"


def test_the_imbalance_help_divides_the_larger_side_by_the_smaller():
    expected = "Majority / minority of the one-versus-rest problem: {} / {}."
    assert data._imbalance_help(25, 83) == expected.format(58, 25)
    assert data._imbalance_help(50, 83) == expected.format(50, 33)


def test_the_warning_of_a_minority_larger_than_the_default_names_both_and_the_box():
    assert data._larger_minority_warning(1, 29, 4, 11) == (
        "Class 1 (29 samples) is larger than the default, class 4 (11 samples), the smallest "
        "class the 50/50 comparison can use. The methods are built for a rare minority: choose "
        "class 4 in the 'Minority class (one versus rest)' box unless class 1 is the one you "
        "study."
    )


def test_compare_and_sweeps_refusal_says_what_it_was_checked_with():
    assert data._compare_refusal_text("Class 3 has 3 samples.", 3, None, 20, 7) == (
        "Class 3 has 3 samples. Compare and Sweep cannot run on class 3: their 50/50 splits "
        "need at least 2 of it in each half."
    )
    assert data._compare_refusal_text("Too few groups.", "B", "patient", 20, 7) == (
        "Too few groups. Compare and Sweep cannot run on class B: with the groups of 'patient' "
        "(checked on the Compare page's 20 splits, seed 7; Sweep checks its own)."
    )


def test_the_suggestion_capitalises_what_the_matrix_looks_like_and_gives_the_flags():
    text = data._suggestion_text("raw counts, not logged", "log2(x + 1)", "`--transform log2`")
    assert text == (
        "Raw counts, not logged. Suggested preprocessing: **log2(x + 1)** (the command "
        "line's `--transform log2`); apply it below, or with the button."
    )


def test_the_class_table_gives_each_class_its_share_and_role():
    table = data._class_table(["1", "2 (RMS)", "3"], {1: 20, 2: 8, 3: 12}, 40, 2, 3)
    expected = pd.DataFrame(
        {
            "class": ["1", "2 (RMS)", "3"],
            "samples": [20, 8, 12],
            "share": [0.5, 0.2, 0.3],
            "role": ["", "minority", "default minority"],
        }
    )
    pd.testing.assert_frame_equal(table, expected)
    # The default chosen: it is the minority, and no other class has a role.
    same = data._class_table(["a", "b"], {"a": 3, "b": 1}, 4, "b", "b")
    assert same["role"].tolist() == ["", "minority"]
    assert same["share"].tolist() == [0.75, 0.25]


def test_the_report_lists_how_the_data_set_was_read():
    groups = data._groups_line("patient", 12, ", 20 splits")
    assert groups == (
        "- sample groups: column **patient**, 12 groups (each kept on one side of a split, "
        "20 splits)\n"
    )
    text = data._report_markdown(
        "class", "sheet.csv", "log2(x + 1)", ["floor 20", "log2"], groups, 2, 1, ["note a"]
    )
    assert text == (
        "- label column: **class**\n"
        "- sample sheet: **sheet.csv**\n"
        "- preprocessing: **log2(x + 1)** (floor 20; log2)\n"
        "- sample groups: column **patient**, 12 groups (each kept on one side of a split, "
        "20 splits)\n"
        "- constant features: **2** (their distances are undefined; consider dropping them)\n"
        "- dropped features: **1**\n"
        "- note a\n"
    )


def test_the_report_of_a_plain_reading_has_no_sheet_groups_steps_nor_notes():
    text = data._report_markdown("label", None, "", [], "", 0, 0, [])
    assert text == (
        "- label column: **label**\n"
        "- preprocessing: **none**\n"
        "- constant features: **0**\n"
        "- dropped features: **0**\n"
    )
