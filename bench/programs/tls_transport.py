"""Issue 23: what mutual TLS costs, tfcluster against itself (TensorFlow 1.x has no transport
security to compare with).

cluster_session.py (a client and two task processes) and ps_training.py (1 ps + 2 workers)
run alternately without and with TLS: with TLS every task and the client hold a certificate
of a CA made for this run (TFCLUSTER_TLS_CERT/_KEY/_CA), so gRPC and the direct streams are
mutual TLS. Each mode runs `rounds` times, plain and TLS in turn, so that both see the same
load; a row is the median of its rounds' medians.

Tensors of 256 KiB or more between processes of one host go through /dev/shm when the
connection is TLS (4 MiB over gRPC): encrypting them costs more than a file. Across
hosts, or pods with /dev/shm of their own, they travel encrypted: the third mode,
`mutual TLS, no /dev/shm` (TFCLUSTER_SHM=0), measures that (cluster_session only).

Rows (each `plain: X` and `mutual TLS: X`; the 64 MiB ones also `mutual TLS, no /dev/shm: X`):
  remote step (other task)         cluster_session's `remote step: op on other task`
  fetch 64 MiB / feed 64 MiB       cluster_session's transfers to and from the other task
  ps training steps/s (2 workers)  ps_training's asynchronous SGD
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _common as c

PROGRAMS = os.path.dirname(os.path.abspath(__file__))
# (program, its row) -> the name of our rows
MEASURED = {
    ("cluster_session.py", "remote step: op on other task"): "remote step (other task)",
    ("cluster_session.py", "fetch 64 MiB from other task"): "fetch 64 MiB",
    ("cluster_session.py", "feed 64 MiB to other task"): "feed 64 MiB",
    ("ps_training.py", "ps training steps/s (2 workers, plain processes)"): (
        "ps training steps/s (2 workers)"
    ),
}
MODES = ("plain", "mutual TLS", "mutual TLS, no /dev/shm")


def run(program: str, env: dict[str, str], extra: list[str]) -> dict[str, dict[str, Any]]:
    """The rows of one run of `program` on tfcluster (a run that fails is tried once more:
    a loaded machine's timeouts are no figure; a second failure is)."""
    try:
        return _run_once(program, env, extra)
    except RuntimeError as e:
        c.progress(f"{program} failed, once more: {str(e)[-300:]}")
        return _run_once(program, env, extra)


def _run_once(program: str, env: dict[str, str], extra: list[str]) -> dict[str, dict[str, Any]]:
    proc = subprocess.run(
        [sys.executable, os.path.join(PROGRAMS, program), "--impl", "tfcluster", *extra],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    for line in proc.stdout.splitlines():
        if line.startswith(c.RESULT_PREFIX):
            payload = json.loads(line[len(c.RESULT_PREFIX) :])
            return {row["name"]: row for row in payload["rows"]}
    raise RuntimeError(f"{program} gave no result ({proc.returncode}): {proc.stderr[-2000:]}")


def main() -> None:
    p = c.base_parser(__doc__ or "")
    p.add_argument("--rounds", type=int, default=None)
    args = p.parse_args()
    if args.impl != "tfcluster":
        c.skip(args.impl, "TensorFlow 1.x has no transport security: tfcluster against itself")
    from tfcluster.cli.local_ca import local_identities

    rounds = args.rounds or (1 if args.quick else 3)
    extra = ["--quick"] if args.quick else []
    if args.seconds is not None:
        extra += ["--seconds", str(args.seconds)]
    found: dict[tuple[str, str], list[dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory() as folder:
        tasks, _ = local_identities(folder, ["localhost"])
        plain_env = {k: v for k, v in c.child_env().items() if not k.startswith("TFCLUSTER_TLS_")}
        secured = {
            **plain_env,
            "TFCLUSTER_TLS_CERT": tasks.cert,
            "TFCLUSTER_TLS_KEY": tasks.key,
            "TFCLUSTER_TLS_CA": tasks.ca,
        }
        envs = {
            "plain": plain_env,
            "mutual TLS": secured,
            "mutual TLS, no /dev/shm": {**secured, "TFCLUSTER_SHM": "0"},
        }
        for i in range(rounds):
            for mode in MODES:
                programs = ["cluster_session.py"]
                if mode != "mutual TLS, no /dev/shm":  # the 64 MiB rows are what it is for
                    programs.append("ps_training.py")
                for program in programs:
                    c.progress(f"round {i + 1}/{rounds}: {program}, {mode}")
                    rows = run(program, envs[mode], extra)
                    for (prog, name), ours in MEASURED.items():
                        if mode.endswith("/dev/shm") and "64 MiB" not in ours:
                            continue
                        if prog == program and name in rows:
                            found.setdefault((mode, ours), []).append(rows[name])
    out = []
    for (mode, ours), rows in sorted(found.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        medians = [r["median"] for r in rows]
        row = c.Row(
            f"{mode}: {ours}",
            rows[0]["kind"],
            rows[0]["unit"],
            statistics.median(medians),
            min(r["q1"] for r in rows),
            max(r["q3"] for r in rows),
            sum(r["samples"] for r in rows),
            detail=f"median of {len(rows)} run(s): "
            + ", ".join(
                f"{m * 1e6:.0f} us" if rows[0]["kind"] == "time" else f"{m:.3g}" for m in medians
            ),
        )
        out.append(row)
        c.progress(f"  {row.name}: {row.median:.6g} {row.unit} ({row.detail})")
    c.emit(args.impl, out)


if __name__ == "__main__":
    main()
