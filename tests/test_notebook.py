"""The notebook runs top to bottom against the sample database (outputs are not committed)."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tests.conftest import REPO, SAMPLE, ingest


def test_bot_report_notebook_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "kifu.duckdb"
    ingest(db, SAMPLE)
    monkeypatch.setenv("KIFU_DB", str(db))
    monkeypatch.setenv("KIFU_BOT", "Misbehaver")
    monkeypatch.setenv("PYTHONPATH", str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    path = REPO / "notebooks" / "bot_report.ipynb"
    nb = nbformat.read(path, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), "commit the notebook without outputs"
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(REPO)}}).execute()
    text = "\n".join(
        o.get("text", "") or str(o.get("data", {}).get("text/plain", ""))
        for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
    )  # fmt: skip
    assert "118 penalties, 118 explained by the validator" in text
    assert "special-logic-valid" in text
