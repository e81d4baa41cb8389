"""The referee's acceptance run: many `kifu play` matches, one `kifu ingest`, the database checked.

    .venv/bin/python scripts/check_referee.py [--seeds 50] [--players 2 4 10] [--keep DIR]

For every player count N and seed S: `kifu play --ruleset jua-2016 --players N --rounds 5 --seed S`
twice — once with honest built-in bots (random, greedy, stacker), once with a sloppy bot in seat 1
— all written to one folder and ingested together by `kifu ingest`. Then, from the database:
every match has `matches.ruleset = 'jua-2016'` and 5 rounds; no match has a consistency or
dealer-judgement finding; in the sloppy matches every penalty is explained by a player-rule
finding of the penalised bot naming that rule, and no bot but the sloppy one has any finding.
Prints the counts and every exception; exit 1 if any.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from rules.uno.audit import ERROR_CODE  # noqa: E402

HONEST = ["random", "greedy", "stacker"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=50)
    ap.add_argument("--players", type=int, nargs="+", default=[2, 4, 10])
    ap.add_argument("--keep", help="write the logs and the database here (default: a temporary folder)")
    args = ap.parse_args()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    kifu = [sys.executable, "-m", "kifu.cli"]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(args.keep or tmp)
        out.mkdir(parents=True, exist_ok=True)
        for n in args.players:
            for seed in range(1, args.seeds + 1):
                honest = (HONEST * 4)[:n]
                for kind, bots in (("honest", ",".join(honest)), ("sloppy", ",".join(["sloppy", *honest[: n - 1]]))):
                    log = out / f"jua-{n}p-{kind}-{seed:03d}.jsonl.gz"
                    subprocess.run([*kifu, "play", "--ruleset", "jua-2016", "--players", str(n), "--rounds", "5",
                                    "--seed", str(seed), "--bots", bots, "--names", ",".join(
                                        f"{kind}{n}s{seed}-{i + 1}" for i in range(n)),
                                    "--out", str(log), "--no-progress"], check=True, env=env, capture_output=True)  # fmt: skip
        db = out / "referee.duckdb"
        subprocess.run([*kifu, "ingest", str(out), "--db", str(db), "--no-progress"], check=True, env=env)
        import duckdb

        con = duckdb.connect(str(db), read_only=True)
        matches = con.sql("""select m.match_id, m.ruleset, m.rounds_played, m.status, min(p.player_name) as any_name
                             from matches m join players p using (match_id) group by all""").fetchall()
        problems = [f"{mid}: ruleset {rs}, {rounds} rounds, {status}" for mid, rs, rounds, status, _ in matches
                    if rs != "jua-2016" or rounds != 5 or status != "finished"]  # fmt: skip
        faults = con.sql("""select match_id, seq, code, message from violations
                            where family <> 'player-rule' order by match_id, seq""").fetchall()
        problems += [f"{mid} seq {seq}: {code} — {msg}" for mid, seq, code, msg in faults]
        sloppy_ids = {mid for mid, *_, name in matches if name.startswith("sloppy")}
        blamed = con.sql("""select v.match_id, v.player, p.player_name, v.code, v.seq from violations v
                            join players p on p.match_id = v.match_id and p.player_code = v.player
                            where v.family = 'player-rule'""").fetchall()
        problems += [f"{mid} seq {seq}: {code} against {name}, an honest bot" for mid, _, name, code, seq in blamed
                     if not name.endswith("-1") or mid not in sloppy_ids]  # fmt: skip
        found = {(mid, player, code) for mid, player, _, code, _ in blamed}
        penalties = con.sql("select match_id, seq, player, cause from penalties").fetchall()
        unexplained = [f"{mid} seq {seq}: penalty '{cause}' on {victim} without its finding"
                       for mid, seq, victim, cause in penalties if (mid, victim, ERROR_CODE.get(cause)) not in found]  # fmt: skip
        problems += unexplained
        print(f"matches: {len(matches)} ({len(sloppy_ids)} with a sloppy bot), rounds: "
              f"{sum(r for _, _, r, _, _ in matches)}, penalties: {len(penalties)}, player-rule findings: "
              f"{len(blamed)}, consistency or dealer-judgement findings: {len(faults)}")  # fmt: skip
        for p in problems[:50]:
            print("  !", p)
        print("OK" if not problems else f"{len(problems)} problems")
        return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
