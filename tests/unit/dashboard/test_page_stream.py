"""The Stream page's pure helpers: the caption while a chunk computes longer than a tick."""

from dashboard.pages import stream

TAIL = "; the page shows the stream as it was until they are done. Pause stops it after them."


def test_the_computing_caption_names_the_time_a_feature_in_its_unit():
    head = ":material/hourglass_top: Computing the next features: K-OFSD takes "
    assert stream._computing_text("K-OFSD", 2.25) == head + "about 2.2 s a feature here" + TAIL
    assert stream._computing_text("K-OFSD", 1.0) == head + "about 1.0 s a feature here" + TAIL
    assert stream._computing_text("K-OFSD", 0.0304) == head + "about 30 ms a feature here" + TAIL
    assert stream._computing_text("K-OFSD", None) == head + "long here" + TAIL
    assert stream._computing_text("K-OFSD", 0.0) == head + "long here" + TAIL
