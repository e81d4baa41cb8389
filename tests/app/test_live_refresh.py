"""The Matches page's live refresh reads the database only when its file changed (a refresh of an unchanged
database neither waits for the file nor makes a watcher wait)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from queries import dashboard
from tests.app.test_live_pages import App, live_db, watcher  # noqa: F401 - the fixtures


def test_a_refresh_of_an_unchanged_file_reads_nothing(app: App, live_db: tuple[Path, str, str], watcher: None,  # noqa: F811
                                                      monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    db, playing, _ = live_db
    calls: list[int] = []
    real = dashboard.match_list

    def counted(*a: Any, **kw: Any) -> Any:
        calls.append(1)
        return real(*a, **kw)

    monkeypatch.setattr(dashboard, "match_list", counted)
    at = app(db)
    first = len(calls)  # the page's own reads (sidebar, list) and the live part's first read
    at.run()
    assert len(calls) == 2 * first - 1  # the live part: the file as before, nothing read again
    st = db.stat()
    os.utime(db, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # a batch written
    at.run()
    assert len(calls) == 3 * first - 1  # the live part reads again
    assert not at.exception
    assert playing in set(at.dataframe[0].value.iloc[:, -1])
