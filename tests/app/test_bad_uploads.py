"""The bad-input corpus uploaded to the Data page under AppTest.

One AppTest instance per phase (starting one costs more than a case): every error case
is uploaded in turn and must show the loader's message in one error box, the options
it suggests named by their widgets ("the 'Genes in rows (transpose)' toggle"), with no
exception, while the bundled SRBCT (83 x 2308) stays loaded. Usable cases then replace
the data set. The upload limit is enforced by Streamlit's uploader in the browser
(server.maxUploadSize), which AppTest bypasses; here we check the limit is shown.
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from bad_inputs import UPLOAD_LIMIT_MB, corpus, mime
from conftest import ROOT, SLOW_SECONDS
from dashboard import messages

SRBCT = {"Samples": "83", "Features": "2308"}


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    return corpus(tmp_path_factory.mktemp("bad_uploads"))


def _app():
    return AppTest.from_file(str(ROOT / "app.py"), default_timeout=SLOW_SECONDS).run()


def _metrics(at):
    return {m.label: m.value for m in at.metric}


def _upload(at, case):
    at.file_uploader(key="uploader").set_value((case.filename, case.data, mime(case.filename)))
    return at.run()


def _options(case):
    return {k: case.load_kwargs.get(k, False) for k in ("transpose", "drop_constant")}


def test_error_uploads_show_the_message_and_keep_the_previous_data(cases):
    errors = [
        c
        for c in cases
        if c.expected == "error" and c.kind == "loader" and "label" not in c.load_kwargs
    ]
    assert len(errors) >= 20
    at = _app()
    assert {k: _metrics(at)[k] for k in SRBCT} == SRBCT
    failures = []
    for case in errors:
        for key, value in _options(case).items():
            if at.toggle(key=key).value != value:
                at.toggle(key=key).set_value(value).run()  # reloads SRBCT with the option
        _upload(at, case)
        problems = []
        if at.exception:
            problems.append(f"exception: {at.exception[0].value}")
        if len(at.error) != 1:
            problems.append(f"{len(at.error)} error boxes")
        elif (
            case.message(messages.words) not in at.error[0].value
            or "Still using SRBCT.parquet" not in at.error[0].value
            or "=True" in at.error[0].value
            or "--" in at.error[0].value
        ):
            problems.append(f"message: {at.error[0].value!r}")
        if {k: _metrics(at).get(k) for k in SRBCT} != SRBCT:
            problems.append(f"metrics: {_metrics(at)}")
        if at.subheader[0].value != "SRBCT.parquet":
            problems.append(f"subheader: {at.subheader[0].value}")
        if problems:
            failures.append(f"{case.name}: {'; '.join(problems)}")
    assert not failures, "\n".join(failures)


def test_label_column_box_refuses_the_row_index(cases):
    case = next(c for c in cases if c.name == "label-is-row-index")
    at = _upload(_app(), case)  # loads: 'label' is the label, 'index' a feature
    assert not at.error and not at.exception
    assert _metrics(at)["Samples"] == "12" and _metrics(at)["Features"] == "6"
    at.selectbox(key="label_column").set_value("index").run()
    assert not at.exception
    assert len(at.error) == 1 and case.message(messages.words) in at.error[0].value
    assert "choose the class column with the 'Label column' box" in at.error[0].value
    assert "Still using row_index.csv" in at.error[0].value
    assert _metrics(at)["Features"] == "6"  # the previous load stays


def test_usable_uploads_replace_the_data_set(cases):
    # The transpose case has its own tests below (the toggle is set before the upload).
    usable = [
        c
        for c in cases
        if c.expected in ("usable", "warning")
        and not c.large
        and not c.load_kwargs.get("transpose")
    ]
    at = _app()
    failures = []
    for case in usable:
        for key, value in _options(case).items():
            if at.toggle(key=key).value != value:
                at.toggle(key=key).set_value(value).run()
        _upload(at, case)
        metrics = _metrics(at)
        expected = {
            "Samples": str(case.shape[0]),
            "Features": str(case.shape[1]),
            "Classes": str(len(case.class_counts)),
        }
        problems = []
        if at.exception:
            problems.append(f"exception: {at.exception[0].value}")
        if at.error:
            problems.append(f"error: {at.error[0].value}")
        if {k: metrics.get(k) for k in expected} != expected:
            problems.append(f"metrics: {metrics}")
        if at.subheader[0].value != case.filename:
            problems.append(f"subheader: {at.subheader[0].value}")
        if problems:
            failures.append(f"{case.name}: {'; '.join(problems)}")
    assert not failures, "\n".join(failures)


def test_the_upload_limit_is_shown():
    at = _app()
    uploader = at.file_uploader(key="uploader")
    assert f"up to {UPLOAD_LIMIT_MB} MB" in uploader.label


def test_genes_in_rows_upload_after_the_toggle(cases):
    """The toggle keeps the user's choice even when re-reading the current data set that
    way fails, so the next upload is read genes-in-rows."""
    case = next(c for c in cases if c.name == "genes-in-rows-with-transpose")
    at = _app()
    at.toggle(key="transpose").set_value(True).run()
    _upload(at, case)
    assert not at.error and _metrics(at)["Features"] == str(case.shape[1])


def test_the_toggle_the_error_suggests_retries_the_failed_file(cases):
    """Regression: after a genes-in-rows file failed without the toggle, switching the
    toggle on re-read the previous data set instead of the file that failed."""
    case = next(c for c in cases if c.name == "genes-in-rows-with-transpose")
    at = _app()
    _upload(at, case)
    assert at.error and "load it with the 'Genes in rows (transpose)' toggle" in at.error[0].value
    assert _metrics(at)["Samples"] == "83"  # SRBCT still loaded
    at.toggle(key="transpose").set_value(True).run()
    assert not at.error
    assert _metrics(at)["Features"] == str(case.shape[1])
    assert at.subheader[0].value == case.filename
