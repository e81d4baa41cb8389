"""Browser tests: `kifu serve` on a free port, driven by Playwright in Debian's chromium.

Playwright's own browser download does not work on these machines, so the tests use
``/usr/bin/chromium`` (``apt-get install chromium``; ``scripts/setup.sh dev`` does it as
root) and skip, saying why, when it is missing.  Screenshots go to ``test-results/``.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO

CHROMIUM = Path(os.environ.get("KIFU_CHROMIUM", "/usr/bin/chromium"))
SCREENSHOTS = REPO / "test-results" / "screenshots"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/e2e/" in str(item.fspath):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} not installed (apt-get install -y chromium); browser tests skipped")
    return {
        **browser_type_launch_args,
        "executable_path": str(CHROMIUM),
        "args": ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
    }  # fmt: skip


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_healthy(url: str, proc: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.read() == b"ok":
                    return
        except OSError:
            pass
        time.sleep(0.3)
    raise TimeoutError(f"{url} not healthy after {timeout}s")


_SERVED: list[Path] = []


@pytest.fixture(scope="session")
def served_db(sample_db: Path) -> Path:
    """The bundled sample match (tests/conftest.py's ``sample_db``, read-only: the server opens it so)."""
    _SERVED.append(sample_db)
    return sample_db


def served_db_path() -> Path:
    """The database ``app_url`` serves (a copy is read: the server holds the file open read-only)."""
    return _SERVED[0]


@contextmanager
def streamlit_server(args: list[str], port: int, env: dict[str, str] | None = None) -> Iterator[str]:
    """A Streamlit server started by ``args`` (listening on ``port``), healthy before its URL is yielded; stopped
    (terminated, then killed after 10 s) when the block ends."""
    proc = subprocess.Popen(args, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


@contextmanager
def serve(db: Path, **env: str) -> Iterator[str]:
    """`kifu serve` exactly as the README runs it, on a free port; yields its URL."""
    port = free_port()
    with streamlit_server([sys.executable, "-m", "kifu.cli", "serve", "--db", str(db), "--port", str(port)], port,
                          {**os.environ, "PYTHONPATH": str(REPO), **env}) as url:  # fmt: skip
        yield url


@pytest.fixture(scope="session")
def app_url(served_db: Path) -> Iterator[str]:
    with serve(served_db) as url:
        yield url

class LentTab:
    """A browser tab lent to one test: it is the tab (every attribute is the tab's), and what the test
    registers on it with ``on`` is removed when the test ends (:meth:`give_back`)."""

    def __init__(self, tab: Any) -> None:
        self._tab, self._handlers = tab, []

    def on(self, event: str, handler: Any) -> None:
        self._handlers.append((event, handler))
        self._tab.on(event, handler)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._tab, name)

    def give_back(self) -> None:
        for event, handler in self._handlers:
            self._tab.remove_listener(event, handler)
        self._handlers.clear()


_TAB: list[Any] = []


@pytest.fixture(scope="session")
def _shared_context(browser: Any, browser_context_args: dict[str, Any]) -> Iterator[Any]:
    context = browser.new_context(**browser_context_args)
    yield context
    context.close()


@pytest.fixture
def shared_tab(_shared_context: Any) -> Iterator[LentTab]:
    """One browser tab for the visits of many tests (one per worker process), for tests whose every visit is
    a whole page load of its own URL (the page sweep). A new tab (pytest-playwright's ``page``) starts a new
    renderer, which compiles Streamlit's whole frontend again: about half of a visit's time on two cores.
    Nothing of one test reaches the next: the handlers a test registers are removed after it, and the tab
    is left on about:blank (the previous page's session ended) -- or closed and replaced if that fails."""
    if not _TAB or _TAB[0].is_closed():
        _TAB[:] = [_shared_context.new_page()]
    lent = LentTab(_TAB[0])
    try:
        yield lent
    finally:
        lent.give_back()
        try:
            _TAB[0].goto("about:blank")
        except Exception:  # a visit that went wrong: the next test gets a new tab
            try:
                _TAB[0].close()
            finally:
                _TAB.clear()


def wait_for_app(page: Any) -> None:
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", timeout=30_000)


def screenshot(page: Any, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
