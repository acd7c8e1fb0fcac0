"""The Export page's pure helpers (dashboard/pages/export.py): the selection's sources and
key, the run's record, the command line's flags and what differs from its defaults, and the
captions and file names built from them, checked against values written out by hand."""

from dashboard.pages import export
from fsengine.methods.registry import get_method


def test_the_finished_stream_is_offered_first_when_there_is_one():
    assert export._sources(True) == ["Last Stream run", "Compute here"]
    assert export._sources(False) == ["Compute here"]


def test_a_method_is_labelled_with_its_kind():
    assert export._method_label("kofsd") == "K-OFSD (online)"
    assert export._method_label("fisher") == "Fisher (ranker)"


def test_a_computed_selections_key_sorts_the_parameters_by_name():
    key = export._selection_key(2, "kofsd", None, {"k": 5, "alpha": 0.5, "card": "imbalanced"})
    assert key == (2, "kofsd", None, (("alpha", 0.5), ("card", "imbalanced"), ("k", 5)))
    assert export._selection_key("B", "fisher", 10, {}) == ("B", "fisher", 10, ())


def test_the_runs_record_takes_the_reading_toggles_of_the_loaded_data():
    params = {"method": "kofsd", "k": 5, "transpose": False}
    assert export._run_record(params, True, False) == {
        "method": "kofsd",
        "k": 5,
        "transpose": True,
        "drop_constant": False,
    }
    assert params == {"method": "kofsd", "k": 5, "transpose": False}  # not changed


def test_a_flag_is_the_command_lines_form_of_a_value():
    kofsd = get_method("kofsd").spec.parameters
    assert export._flag_text(kofsd["k"], 5) == "--k 5"
    assert export._flag_text(kofsd["alpha"], 0.25) == "--alpha 0.25"
    assert export._flag_text(kofsd["alpha"], 1.0) == "--alpha 1"
    assert export._flag_text(kofsd["metric"], "euclidean") == "--metric euclidean"
    standardise = get_method("grafting").spec.parameters["standardise"]
    assert export._flag_text(standardise, True) == "--standardise"
    assert export._flag_text(standardise, False) == "--no-standardise"


def test_the_parameters_differing_from_the_command_lines_defaults_say_where_they_came_from():
    record = {
        "method": "kofsd",
        "data": "SRBCT.parquet",
        "minority": 2,
        "k": 3,
        "alpha": 0.5,  # K-OFSD's default: not said
        "metric": "euclidean",
        "gamma": None,  # not recorded: not said
    }
    lines = export._from_the_dashboard(record, {"k": (3, "K below the minority's 4.")})
    assert lines == [
        "`--k 3` is the dashboard's default for this minority class; the command line's "
        "default is 7. K below the minority's 4.",
        "`--metric euclidean` was set in the dashboard; the command line's default is seuclidean.",
    ]
    # A K the user set over the dashboard's default is the user's.
    lines = export._from_the_dashboard({**record, "k": 4}, {"k": (3, "Why.")})
    assert lines[0] == "`--k 4` was set in the dashboard; the command line's default is 7."
    assert export._from_the_dashboard({"method": "kofsd", "k": 7}, {}) == []


def test_the_streams_caption_names_its_method_class_and_order():
    assert export._stream_caption("K-OFSD", 2, "random") == (
        "The Stream page's K-OFSD run on minority class 2, random order, parameters as set there."
    )


def test_the_reduced_matrixs_caption_names_the_sample_ids_only_when_there_are_some():
    assert export._reduced_matrix_caption(True, 3, "label") == (
        "sample identifiers, the 3 selected features in rank order and the label column 'label'."
    )
    assert export._reduced_matrix_caption(False, 12, "class") == (
        "the 12 selected features in rank order and the label column 'class'."
    )


def test_the_command_line_runs_beside_the_data_file_and_its_sample_sheet():
    tail = (
        ": it reads them as this page did (label, sample sheet, groups, preprocessing) and "
        "writes the same CSV to standard output (`--out FILE` for a file)."
    )
    assert export._run_it_text({"data": "SRBCT.parquet"}) == (
        "Run it in the folder that holds SRBCT.parquet" + tail
    )
    assert export._run_it_text({"data": "m.csv", "samples": "sheet.csv"}) == (
        "Run it in the folder that holds m.csv and its sample sheet sheet.csv" + tail
    )
    assert export._run_it_text({"data": "m.csv", "samples": None}) == (
        "Run it in the folder that holds m.csv" + tail
    )


def test_the_report_is_named_after_the_data_file_without_its_suffixes():
    assert export._report_stem("Adeno.csv.gz") == "fsengine-report-Adeno"
    assert export._report_stem("SRBCT.parquet") == "fsengine-report-SRBCT"


def test_the_reports_sections_are_counted_and_none_said_so():
    assert export._sections_text(3) == "3 sections"
    assert export._sections_text(0) == "0 sections: nothing has run yet"
