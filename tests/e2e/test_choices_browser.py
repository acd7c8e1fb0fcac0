"""A choice made just before a page switch is the one used (issue 43), in Chromium against
`streamlit run app.py` with the bundled SRBCT: the minority class is chosen on the Data
page and another page opened at once, without waiting for the choice's rerun (a user
who picks a class and clicks on), three times over; each time the Data page, back again,
shows the class chosen, and the Stream page's stream is of that class."""

from __future__ import annotations

import pytest

from tests.e2e.test_browser import (
    TIMEOUT_MS,
    choose,
    idle,
    metrics,
    no_exception,
    open_app,
    open_page,
    wait_for_metric,
)

pytestmark = pytest.mark.e2e

MINORITY = "Minority class (one versus rest)"


def test_a_class_chosen_just_before_a_page_switch_is_kept(page, server):
    open_app(page, server)
    open_page(page, "Data")
    first = metrics(page)["Minority class"]
    page.get_by_role("combobox", name=MINORITY).click()
    classes = [o.split(":")[0] for o in page.get_by_role("option").all_inner_texts()]
    page.keyboard.press("Escape")
    others = [c for c in classes if c != first]
    assert len(others) >= 2, classes
    for chosen, then in ((others[0], "Stream"), (others[1], "Compare"), (first, "Sweep")):
        idle(page)
        choose(page, MINORITY, chosen)
        # the next page at once: the choice's rerun may not have started yet
        page.get_by_test_id("stSidebarNavLink").filter(has_text=then).click()
        page.get_by_role("heading", name=then, exact=True).first.wait_for(timeout=TIMEOUT_MS)
        idle(page)
        no_exception(page, then)
        open_page(page, "Data")
        wait_for_metric(page, "Minority class", chosen)
