"""tfcluster against an earlier tfcluster: has a change made a benchmark slower?

Runs the same bench programs (this checkout's, with `--impl tfcluster`) alternately against
two source trees, e.g. a `git worktree` of the revision before a refactoring and this
checkout, so that load on the machine hits both alike, and prints each row's median per side
and the ratio new/old. Only the import path differs between the two sides.

    git worktree add --detach /tmp/base <rev>
    python bench/compare_revisions.py --base /tmp/base --rounds 3 \
        --programs local_session,cluster_session,ps_training
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
RESULT_PREFIX = "BENCH_RESULT "


def source_path(tree: str) -> str:
    return os.pathsep.join(os.path.join(tree, part) for part in ("server", "operator"))


def run_program(program: str, tree: str, quick: bool) -> list[dict[str, object]]:
    env = dict(os.environ)
    env["PYTHONPATH"] = source_path(tree)
    cmd = [sys.executable, os.path.join(HERE, "programs", f"{program}.py"), "--impl", "tfcluster"]
    if quick:
        cmd.append("--quick")
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900, check=False)
    for line in out.stdout.splitlines():
        if line.startswith(RESULT_PREFIX):
            rows: list[dict[str, object]] = json.loads(line[len(RESULT_PREFIX) :])["rows"]
            return rows
    raise RuntimeError(f"{program} against {tree} printed no result:\n{out.stderr[-2000:]}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--base", required=True, help="source tree of the earlier revision")
    p.add_argument("--new", default=REPO, help="source tree of the later revision (this one)")
    p.add_argument("--programs", default="local_session,cluster_session,ps_training")
    p.add_argument("--rounds", type=int, default=3, help="alternations of base and new")
    p.add_argument("--full", action="store_true", help="programs' full runs, not --quick")
    args = p.parse_args()

    medians: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    kinds: dict[tuple[str, str], str] = {}
    # Costs a row reports beside its figure (CPU per step, ...): less load-dependent.
    costs: dict[tuple[str, str, str, str], list[float]] = defaultdict(list)
    for program in args.programs.split(","):
        for r in range(args.rounds):
            for side, tree in (("base", args.base), ("new", args.new)):
                print(f"{program}: round {r + 1}/{args.rounds}, {side}", flush=True)
                for row in run_program(program, tree, quick=not args.full):
                    if row.get("median") is None:
                        continue
                    name = str(row["name"])
                    medians[(program, name, side)].append(float(row["median"]))  # type: ignore[arg-type]
                    kinds[(program, name)] = f"{row['kind']} [{row['unit']}]"
                    extra = row.get("extra") or {}
                    for key, value in extra.items():  # type: ignore[attr-defined]
                        if key.endswith("_per_step") and isinstance(value, (int, float)):
                            costs[(program, name, key, side)].append(float(value))

    print("\n| program | row | unit | base | new | new/base |\n|---|---|---|---|---|---|")
    for (program, name), unit in kinds.items():
        base = statistics.median(medians[(program, name, "base")])
        new = statistics.median(medians[(program, name, "new")])
        print(f"| {program} | {name} | {unit} | {base:.4g} | {new:.4g} | {new / base:.2f} |")
    keys = sorted({k[:3] for k in costs})
    if keys:
        print("\n| program | row | cost | base | new | new/base |\n|---|---|---|---|---|---|")
    for program, name, key in keys:
        base = statistics.median(costs[(program, name, key, "base")])
        new = statistics.median(costs[(program, name, key, "new")])
        print(f"| {program} | {name} | {key} | {base:.4g} | {new:.4g} | {new / base:.2f} |")


if __name__ == "__main__":
    main()
