"""Packaging contracts: the pure rules engine, pages without SQL, the Dockerfile, the README."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.conftest import REPO

#: What rules/ never imports (the import rules between Kifu's own packages: tests/test_architecture.py).
FORBIDDEN_IN_RULES = {"streamlit", "duckdb", "pandas", "pymongo", "bson", "plotly", "pyarrow",
                      "loaders", "queries", "app", "kifu", "referee"}  # fmt: skip


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_rules_engine_is_pure() -> None:
    files = sorted((REPO / "rules").rglob("*.py"))
    assert files, "rules/ has no modules"
    offenders = {str(f.relative_to(REPO)): sorted(_imports(f) & FORBIDDEN_IN_RULES) for f in files}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_purity_check_can_fail(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import duckdb\nfrom pandas import DataFrame\nfrom . import sibling\n")
    assert _imports(bad) & FORBIDDEN_IN_RULES == {"duckdb", "pandas"}


def test_pages_hold_no_sql() -> None:
    sql_words = re.compile(r"\b(select|insert|delete|update)\b.+\b(from|into|set)\b", re.I | re.S)
    for page in (REPO / "app").rglob("*.py"):
        for node in ast.walk(ast.parse(page.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                assert not sql_words.search(node.value), f"SQL in {page}: {node.value[:60]!r}"


def test_dockerfile_names_existing_paths() -> None:
    text = (REPO / "Dockerfile").read_text()
    for src in re.findall(r"^COPY\s+(?:--\S+\s+)*(\S+)\s+\S+$", text, re.M):
        assert (REPO / src).exists(), f"Dockerfile copies missing {src}"
    assert "HEALTHCHECK" in text and "/_stcore/health" in text
    assert "0.0.0.0" in text, "inside a container the server must listen on all interfaces"
    compose = (REPO / "docker-compose.yml").read_text()
    assert "mongo" in compose and "build: ." in compose


@pytest.mark.parametrize("name", ["requirements.txt", "requirements-dev.txt"])
def test_requirements_are_exact_pins(name: str) -> None:
    for line in (REPO / name).read_text().splitlines():
        line = line.strip()
        if line and not line.startswith(("#", "-r")):
            assert re.fullmatch(r"[A-Za-z0-9_.\-\[\]]+==[\w.\-+]+", line), line


@pytest.mark.parametrize("name", ["README.md", "README.ja.md"])
def test_readme_has_the_two_commands_and_ci_runs_the_test_one(name: str) -> None:
    readme = (REPO / name).read_text(encoding="utf-8")
    assert "make demo" in readme and "make test" in readme
    assert "make test" in (REPO / ".ci" / "run").read_text()


def test_rules_doc_lists_every_check() -> None:
    from rules.uno.catalog import CHECKS

    from rules.uno.catalog import PROFILE_ONLY

    doc = (REPO / "docs" / "rules" / "algori-uno.md").read_text(encoding="utf-8")
    assert [code for code in CHECKS if code not in PROFILE_ONLY and f"| `{code}` |" not in doc] == []
    jua = (REPO / "docs" / "rules" / "jua.md").read_text(encoding="utf-8")
    assert [code for code in PROFILE_ONLY if f"| `{code}` |" not in jua] == []


def test_python_m_kifu_is_the_command_line() -> None:
    import subprocess
    import sys

    from common import __version__

    done = subprocess.run([sys.executable, "-m", "kifu", "--version"], capture_output=True, text=True, timeout=60,
                          cwd=REPO)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert __version__ in done.stdout
