"""No orphans: whatever kills ``kifu ingest`` (SIGKILL included), its worker processes, the forkserver
they are forked from and the resource tracker end with it, and release the caller's output pipes.

Each run is tagged with an environment variable of its own, which every process it starts inherits
(forkserver, workers, resource tracker): a scan of ``/proc/*/environ`` finds whatever is left of it.
The caller reads the pipes to EOF *before* reaping the killed process, as ``subprocess.run(...,
capture_output=True)`` does: until then the ingest process is a zombie, which still answers a
signal-0 probe as if alive.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import REPO, fixture_path

TAG = "KIFU_TEST_ORPHAN_RUN"
GRACE = 2.0  # seconds after the kill by which the run's processes are gone and the pipes at EOF

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def _pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def _parent(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return int(f.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def _children(pids: set[int]) -> set[int]:
    return {pid for pid in _pids() if _parent(pid) in pids}


def _tagged(tag: str) -> dict[int, str]:
    """The live processes of the run tagged ``tag``: pid → command line (a zombie shows no environment)."""
    found = {}
    for pid in _pids():
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if f"{TAG}={tag}".encode() not in f.read().split(b"\0"):
                    continue
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                found[pid] = f.read().replace(b"\0", b" ").decode(errors="replace")[:160]
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return found


def _read_to_eof(proc: subprocess.Popen[bytes], deadline: float) -> bytes | None:
    """What was written to the pipes, once both are at EOF (every holder closed them); None at ``deadline``"""
    assert proc.stdout is not None and proc.stderr is not None
    out = b""
    with selectors.DefaultSelector() as sel:
        for pipe in (proc.stdout, proc.stderr):
            os.set_blocking(pipe.fileno(), False)
            sel.register(pipe, selectors.EVENT_READ)
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            for key, _ in sel.select(left):
                data = os.read(key.fd, 65536)
                if data:
                    out += data
                else:
                    sel.unregister(key.fileobj)
    return out


def _first_child(pid: int) -> bool:
    return bool(_children({pid}))  # the resource tracker, then the forkserver


def _first_worker(pid: int) -> bool:
    return bool(_children(_children({pid})))  # forked by the forkserver


def _mid_replay(pid: int, started: list[float]) -> bool:
    if len(_children(_children({pid}))) < 2:
        return False
    if not started:
        started.append(time.monotonic())
    return time.monotonic() - started[0] > 1.0


def _forkserver(pid: int) -> int | None:
    for child in _children({pid}):
        try:
            with open(f"/proc/{child}/cmdline", "rb") as f:
                if b"multiprocessing.forkserver" in f.read():
                    return child
        except OSError:
            continue
    return None


def _forkserver_started(pid: int) -> bool:
    return _forkserver(pid) is not None


def _forkserver_guarded(pid: int) -> bool:
    """The forkserver has run its guard (it has let go of the caller's stdin)."""
    fs = _forkserver(pid)
    try:
        return fs is not None and os.readlink(f"/proc/{fs}/fd/0") == os.devnull
    except OSError:
        return False


def _kill_and_watch(cmd: list[str], when: Callable[[int], bool], path: tuple[Path, ...] = (),
                    said: list[bytes] | None = None) -> tuple[float, float]:  # fmt: skip
    """Start ``cmd`` (tagged; ``path`` added to PYTHONPATH), SIGKILL it as soon as ``when(pid)`` holds, and
    return how long after the kill its pipes reached EOF and its last process was gone (at most GRACE)."""
    tag = uuid.uuid4().hex
    env = {**os.environ, TAG: tag, "PYTHONPATH": os.pathsep.join(map(str, (REPO, *path)))}
    pipe = subprocess.PIPE
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdin=pipe, stdout=pipe, stderr=pipe)
    try:
        limit = time.monotonic() + 60
        while not when(proc.pid):
            assert proc.poll() is None, f"ended before the moment to kill it: {proc.communicate()}"
            assert time.monotonic() < limit, "the moment to kill the process never came"
            time.sleep(0.002)
        proc.send_signal(signal.SIGKILL)
        killed = time.monotonic()
        deadline = killed + GRACE
        output = _read_to_eof(proc, deadline)  # before reaping it, as subprocess.run does
        eof = time.monotonic() - killed
        left = _tagged(tag)
        while left and time.monotonic() < deadline:
            time.sleep(0.02)
            left = _tagged(tag)
        gone = time.monotonic() - killed
        assert not left, f"processes of the killed ingest still there {GRACE} s after the kill: {left}"
        assert output is not None, f"the ingest's output pipes still open {GRACE} s after the kill"
        if said is not None:
            said.append(output)  # what the killed run and its helpers printed (stdout and stderr)
        return eof, gone
    finally:
        for pid in _tagged(tag):  # a failed run must not leave its processes to the next tests
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        proc.kill()
        proc.wait()
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()


@pytest.mark.parametrize(
    ("moment", "times"),
    [("first child", 3), ("first worker", 3), ("mid-replay", 1)],
)
def test_sigkill_leaves_no_process_and_releases_the_pipes(tmp_path: Path, moment: str, times: int) -> None:
    """``kifu ingest --jobs 2`` on a 300-round log, SIGKILLed as it starts its helper processes (a race:
    tried several times) or mid-replay."""
    log = fixture_path("demo4_skipbind2_300")
    db = tmp_path / "k.duckdb"
    cmd = [sys.executable, "-m", "kifu.cli", "ingest", str(log), "--db", str(db), "--no-progress"]
    for _ in range(times):
        started: list[float] = []
        when = {"first child": _first_child, "first worker": _first_worker,
                "mid-replay": lambda pid: _mid_replay(pid, started)}[moment]  # fmt: skip
        said: list[bytes] = []
        eof, gone = _kill_and_watch([*cmd, "--jobs", "2"], when, said=said)
        # the resource tracker cleans the pool's semaphores up: its "leaked semaphore" warning is noise
        assert b"leaked semaphore" not in said[0] and b"warnings.warn" not in said[0], said[0].decode(errors="replace")
        print(f"{moment}: pipes at EOF {eof:.3f} s, every process gone {gone:.3f} s after the SIGKILL")


SLOW_PRELOAD = """
import multiprocessing.context

# the forkserver preloads one module more, after Kifu's: one that takes 30 s (a machine under load)
Context = multiprocessing.context.ForkServerContext
real = Context.set_forkserver_preload
Context.set_forkserver_preload = lambda self, names: real(self, [*names, "slow"])

if __name__ == "__main__":
    from loaders.parallel.workers import RoundPool

    pool = RoundPool(1)
    print(pool.call(int, "7").result())
"""


@pytest.mark.parametrize("when", [_forkserver_started, _forkserver_guarded],
                         ids=["before-guard", "after-guard"])  # fmt: skip
def test_a_preloading_forkserver_ends_with_the_ingest(tmp_path: Path, when: Callable[[int], bool]) -> None:
    """``multiprocessing``'s forkserver looks at its pipe from the ingest process only once it has
    preloaded every module: an ingest killed meanwhile — before the forkserver's guard ran (a
    request for a worker already on its way keeps that pipe open) or after — must not leave it
    to finish a slow preload."""
    (tmp_path / "slow.py").write_text("import time\n\ntime.sleep(30)\n")
    (tmp_path / "preloading.py").write_text(SLOW_PRELOAD)
    eof, gone = _kill_and_watch([sys.executable, str(tmp_path / "preloading.py")], when, path=(tmp_path,))
    print(f"pipes at EOF {eof:.3f} s, every process gone {gone:.3f} s after the SIGKILL")
