"""The Upload page in the browser: an upload that added nothing says so, and never names the matches an
earlier upload of the session added."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from playwright.sync_api import expect

from tests.conftest import REPO
from tests.e2e.conftest import serve, wait_for_app

BASE = REPO / "tests" / "data" / "probe_head.jsonl"


@pytest.fixture(scope="module")
def app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    d = tmp_path_factory.mktemp("e2e-upload")
    duckdb.connect(str(d / "kifu.duckdb")).close()  # an empty database, as DuckDB makes it
    with serve(d / "kifu.duckdb", KIFU_DATA=str(d / "data")) as url:
        yield url


def _upload(page: Any, path: Path) -> None:
    page.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(str(path))
    # the click counts only once the file is the uploader's (its chip names it) and the rerun it set off ended
    expect(page.get_by_test_id("stFileChipName")).to_have_text(path.name, timeout=30_000)
    wait_for_app(page)
    page.get_by_role("button", name="Ingest").click()


def test_an_upload_after_one_that_added_says_what_it_did(page: Any, app_url: str, tmp_path: Path) -> None:
    page.goto(f"{app_url}/upload")
    wait_for_app(page)
    _upload(page, BASE)
    expect(page.get_by_test_id("stAlertContentSuccess")).to_contain_text("24 new events", timeout=60_000)
    expect(page.get_by_text("Added or updated")).to_have_count(1)
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    _upload(page, empty)
    expect(page.get_by_test_id("stAlertContentError")).to_have_text(
        "Nothing could be read: the file is empty. The database is unchanged.", timeout=60_000)
    expect(page.get_by_text("Added or updated")).to_have_count(0)
    _upload(page, BASE)
    expect(page.get_by_test_id("stAlertContentInfo")).to_contain_text(
        "Nothing new: every record of this file was already in the database (24 already present · 0 "
        "quarantined).", timeout=60_000)  # fmt: skip
    expect(page.get_by_text(re.compile("^Already in the database: "))).to_have_count(1)
    expect(page.get_by_text("Added or updated")).to_have_count(0)
