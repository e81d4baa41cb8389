"""`kifu dealer`: a match played over socket.io by four bots in their own processes, and what the dealer spends.

    .venv/bin/python benchmarks/dealer.py [--rounds 1000] [--demo-rounds 50] [--official-rounds 50] [--skip-demo]

Each match is a fresh `kifu dealer` process on a free loopback port (contest clock, seeded deck) and four
player processes:

* four fast bots, `tests/node/bot.js` (socket.io-client 2.x in Node, as contestants' JS bots; they answer
  at once, over a websocket) play --rounds rounds.  Target: 1,000 rounds in ≤ 3 minutes on this 2-core
  machine.  The bot's socket.io-client is installed by `npm ci` into .cache/ (tests/node) the first time;
* the same four fast bots with ``kifu dealer --pace official`` (the kit's 10 ms waits) play --official-rounds
  rounds, extrapolated to 1,000 rounds, next to the kit's 51 minutes;
* four unchanged official demo players (../shared/reference/algori-demo-player/player_v0.py,
  python-socketio 4.x) play --demo-rounds rounds, and the time of 1,000 rounds is extrapolated from
  their per-round rate.  The demo player sleeps 10 ms on every event it receives (its TIME_DELAY) and
  prints every event with rich: the players, not the dealer, bound that rate — the dealer's CPU share
  of the wall time shows it.

Figures per match: wall time of the match (the players started → the last one gone, after finish-game
and the dealer closing the sockets), rounds/s and log lines/s; the latency of every action as the fast
bots see it (emit → acknowledgement: the dealer judging the action and sending what it caused, p50,
p95, max over the four bots); the CPU seconds (user + system) of kifu dealer — the dealer process and
its watcher process, to the end of the watcher's catch-up — and each one's peak RSS (psutil, sampled
every 0.1 s), with the CPU share of the match's wall time; the four players' CPU seconds (their
rusage); then the time from the match's end to the dealer's exit (the watcher storing the last lines
and compacting) and the findings by family found in its database.
"""

from __future__ import annotations

import argparse
import os
import resource
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import orjson
import psutil

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests import node as node_bot

DEMO = REPO.parent / "shared" / "reference" / "algori-demo-player" / "player_v0.py"
ROOM = "Bench"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


class Sampler:
    """A process's CPU seconds and peak RSS, sampled every 0.1 s in a thread until :meth:`stop`."""

    def __init__(self, pid: int) -> None:
        self.proc = psutil.Process(pid)
        self.cpu, self.rss = 0.0, 0
        self.cpus: dict[int, float] = {}  # pid -> CPU seconds (the last sample of each)
        self.peaks = {False: 0, True: 0}  # the dealer's peak RSS, its children's
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def sample(self) -> None:
        """The process and its children (kifu dealer's watcher process, storing the match as it is played):
        CPU seconds summed, RSS the peak of each (the dealer's, the watcher's)."""
        try:
            procs = [self.proc, *self.proc.children(recursive=True)]
        except psutil.Error:  # gone
            return
        for i, p in enumerate(procs):
            try:
                t = p.cpu_times()
                self.cpus[p.pid] = t.user + t.system
                self.peaks[i > 0] = max(self.peaks[i > 0], p.memory_info().rss)
            except psutil.Error:
                pass
        self.cpu, self.rss = sum(self.cpus.values()), self.peaks[False]

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(0.1)

    def mark(self) -> tuple[int, int]:
        """The peaks so far (the dealer's, the watcher's): at the match's end, before the watcher's catch-up."""
        self.sample()
        return self.peaks[False], self.peaks[True]

    def stop(self) -> tuple[float, int, int]:
        self._stop.set()
        self._thread.join()
        self.sample()
        return self.cpu, self.rss, self.peaks[True]


@dataclass
class Result:
    rounds: int
    wall: float = 0.0
    lines: int = 0
    dealer_cpu: float = 0.0
    dealer_rss: int = 0
    watcher_rss: int = 0
    match_rss: tuple[int, int] = (0, 0)  # the dealer's and the watcher's peak RSS until the match's end
    players_cpu: float = 0.0
    ingest: float = 0.0
    families: dict[str, int] = field(default_factory=dict)
    latency_ms: list[float] = field(default_factory=list)


def play(rounds: int, players: list[list[str]], env: dict[str, str] | None, work: Path, pace: str = "fast") -> Result:
    """One match: the dealer, then the players' commands (each given the dealer's URL as {url})."""
    port, db, log = free_port(), work / f"dealer-{rounds}-{pace}.duckdb", work / f"dealer-{rounds}-{pace}.jsonl"
    dealer = subprocess.Popen([sys.executable, "-m", "kifu.cli", "dealer", "--room", ROOM, "--rounds", str(rounds),
                               "--seed", "1", "--port", str(port), "--db", str(db), "--out", str(log),
                               "--join-wait", "60", "--quiet", "--pace", pace],
                              cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)},
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)  # fmt: skip
    while True:  # listening
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                break
        if dealer.poll() is not None:
            raise SystemExit(f"kifu dealer did not start: {dealer.communicate()[1]}")
        time.sleep(0.05)
    sampler = Sampler(dealer.pid)
    cpu0 = children_cpu()
    t0 = time.perf_counter()
    outs = [work / f"player-{i}.out" for i in range(len(players))]
    procs = []
    for cmd, out in zip(players, outs):
        with open(out, "wb") as f:
            procs.append(subprocess.Popen([a.format(url=f"http://127.0.0.1:{port}") for a in cmd], env=env,
                                          stdout=f, stderr=subprocess.STDOUT))  # fmt: skip
    codes = [p.wait() for p in procs]  # every player gone: the match is over
    r = Result(rounds, wall=time.perf_counter() - t0, players_cpu=children_cpu() - cpu0)
    r.match_rss = sampler.mark()
    t1 = time.perf_counter()
    _, err = dealer.communicate()
    r.dealer_cpu, r.dealer_rss, r.watcher_rss = sampler.stop()  # the watcher's CPU to the end of its catch-up
    r.ingest = time.perf_counter() - t1
    for code, out in zip(codes, outs):
        if code != 0:
            text = out.read_text(errors="replace")
            if text.startswith("{"):  # a Node bot's report: what was refused
                text = str(orjson.loads(text)["errors"])
            raise SystemExit(f"a player failed ({code}): {text[-2000:]} (log: {log})")
    if dealer.returncode != 0:
        raise SystemExit(f"kifu dealer failed: {err[-2000:]}")
    for out in outs:  # the Node bots' reports (the demo player prints no JSON)
        last = out.read_bytes().strip().splitlines()[-1:]
        if last and last[0].startswith(b"{"):
            r.latency_ms += orjson.loads(last[0])["latency_ms"]
    with open(log, "rb") as f:
        r.lines = sum(1 for _ in f)
    con = duckdb.connect(str(db), read_only=True)
    r.families = dict(con.sql("select family, count(*) from violations group by 1 order by 1").fetchall())
    con.close()
    return r


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def report(title: str, r: Result) -> None:
    print(f"\n{title}: {r.rounds:,} rounds, {r.lines:,} log lines")
    print(f"  match wall      {r.wall:7.1f} s   {r.rounds / r.wall:6.1f} rounds/s   "
          f"{r.lines / r.wall:,.0f} lines/s")  # fmt: skip
    if r.latency_ms:
        print(f"  action latency  p50 {pct(r.latency_ms, 0.5):.2f} ms   p95 {pct(r.latency_ms, 0.95):.2f} ms   "
              f"max {max(r.latency_ms):.1f} ms   ({len(r.latency_ms):,} actions, emit → ack in the bots)")  # fmt: skip
    print(f"  kifu dealer     {r.dealer_cpu:7.1f} CPU s = {r.dealer_cpu / r.wall:.0%} of the wall (the dealer and "
          f"its watcher process)")  # fmt: skip
    print(f"  peak RSS        during the match: dealer {r.match_rss[0] / 2**20:.0f} MiB, watcher "
          f"{r.match_rss[1] / 2**20:.0f} MiB;  with the watcher's catch-up and compaction: dealer "
          f"{r.dealer_rss / 2**20:.0f} MiB, watcher {r.watcher_rss / 2**20:.0f} MiB")  # fmt: skip
    print(f"  four players    {r.players_cpu:7.1f} CPU s = {r.players_cpu / r.wall:.0%} of the wall")
    print(f"  then the ingest {r.ingest:7.1f} s;  findings by family: {r.families or 'none'}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=1000, help="rounds of the fast bots' match (default: 1000)")
    ap.add_argument("--demo-rounds", type=int, default=50, help="rounds of the demo players' match (default: 50)")
    ap.add_argument("--skip-demo", action="store_true", help="only the fast bots' match")
    ap.add_argument("--official-rounds", type=int, default=50,
                    help="rounds of the fast bots at --pace official, extrapolated to 1,000 (default: 50; 0: skip)")
    args = ap.parse_args()
    try:
        modules = node_bot.install()
    except node_bot.Unavailable as exc:
        print(f"the Node bot cannot run: {exc}", file=sys.stderr)
        return 1
    node = subprocess.run(["node", "--version"], check=False, capture_output=True, text=True).stdout.strip()
    print(f"kifu dealer benchmark — python {sys.version.split()[0]}, node {node}, {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        bots = [node_bot.command("{url}", ROOM, f"node {i}") for i in range(1, 5)]
        fast = play(args.rounds, bots, node_bot.env(modules), Path(tmp))
        report("four Node bots (socket.io-client 2.5.0, websocket)", fast)
        print(f"  target: 1,000 rounds in ≤ 180 s: {fast.wall * 1000 / fast.rounds:.0f} s for 1,000 rounds")
        if args.official_rounds > 0:
            paced = play(args.official_rounds, bots, node_bot.env(modules), Path(tmp), pace="official")
            report("the same bots, --pace official (the kit's 10 ms waits)", paced)
            per = paced.wall / paced.rounds
            print(f"  1,000 rounds extrapolated: {per * 1000:.0f} s = {per * 1000 / 60:.1f} min "
                  f"(the kit: about 51 min; fast pace: {fast.wall * 1000 / fast.rounds / 60:.1f} min)")  # fmt: skip
        if args.skip_demo:
            return 0
        if not DEMO.exists():
            print(f"\nthe official demo player is not at {DEMO}: its match is skipped")
            return 0
        demos = [[sys.executable, str(DEMO), "{url}", ROOM, f"Player {i}"] for i in range(1, 5)]
        demo = play(args.demo_rounds, demos, None, Path(tmp))
        report("four official demo players (player_v0.py, python-socketio 4.x)", demo)
        per_round = demo.wall / demo.rounds
        print(f"  1,000 rounds extrapolated: {per_round * 1000:,.0f} s ({per_round:.2f} s a round, "
              f"{per_round / (fast.wall / fast.rounds):.0f}× the fast bots' round); the dealer busy "
              f"{demo.dealer_cpu / demo.wall:.0%} of the wall: the players bound the rate")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
