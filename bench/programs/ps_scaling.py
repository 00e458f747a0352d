"""Issue 20: scaling curves of parameter-server training, plain processes as users run them.

Two curves, each point a fresh cluster trained as ps_training.py trains (async SGD on an MLP
784-H-10, batches fed from memory, every worker with its own server):
  - workers: 1, 2 and 4 workers over 1 ps, MLP 784-512-10 (1.6 MB), batch 128;
  - model size: MLPs of about 1, 16 and 128 MB of parameters over 2 ps tasks (w1 in two
    halves so each ps holds about half), 2 workers, batch 8 (a step is mostly its
    parameter traffic: every step reads all parameters and sends all gradients).

Rows, per point:
  scaling: <point> (steps/s per worker)   the mean over workers of each one's steps/s
  scaling: <point> (MB/s per worker)      steps/s per worker x 2 x the parameters' bytes
bench/run.py plots both curves, tfcluster against TensorFlow (bench/scaling.png).
"""

from __future__ import annotations

import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _common as c
from ps_training import FEATURES, N_IN, N_OUT, Setup, train

WORKER_COUNTS = (1, 2, 4)
MODEL_MB = (1, 16, 128)


def hidden_for(mb: float) -> int:
    """Hidden units of the MLP whose parameters are about `mb` MiB."""
    return max(2, round(mb * 2**20 / 4 / (N_IN + 1 + N_OUT)))


def points(quick: bool) -> list[tuple[str, Setup]]:
    out = [
        (f"{n} worker{'s' if n > 1 else ''} x 1 ps, 1.6 MB model", Setup(workers=n))
        for n in WORKER_COUNTS
    ]
    for mb in MODEL_MB:
        setup = Setup(workers=2, ps=2, hidden=hidden_for(mb), batch=8, window=2.0)
        out.append((f"2 workers x 2 ps, {setup.model_bytes() / 2**20:.0f} MB model", setup))
    return out


def rows_for(point: str, setup: Setup, run: dict[str, Any]) -> list[c.Row]:
    per_worker = run["per_worker"]
    steps = sum(per_worker) / len(per_worker)
    mbps = steps * 2 * setup.model_bytes() / 1e6
    detail = (
        "per worker "
        + ", ".join(f"{x:.1f}" for x in per_worker)
        + f" steps/s; total {run['overall']:.1f} steps/s"
    )
    meta = {
        "workers": setup.workers,
        "ps": setup.ps,
        "model_mb": setup.model_bytes() / 2**20,
        "batch": setup.batch,
    }
    step_row = c.rate_row(f"scaling: {point} (steps/s per worker)", "steps/s", [steps], detail)
    byte_row = c.rate_row(f"scaling: {point} (MB/s per worker)", "MB/s", [mbps], detail)
    step_row.extra = byte_row.extra = meta
    return [step_row, byte_row]


def main() -> None:
    p = c.base_parser(__doc__ or "")
    p.add_argument("--warmup", type=int, default=10)
    args = p.parse_args()
    args.duration = min(8.0, c.seconds_cap(args))
    tf = c.import_tf(args.impl)
    c.require(tf, args.impl, FEATURES, "issue 20")
    rows: list[c.Row] = []
    for point, setup in points(args.quick):
        run = train(args, setup)
        new = rows_for(point, setup, run)
        for row in new:
            c.progress(f"  {row.name}: {row.median:.3g} {row.unit} ({row.detail})")
        rows += new
    c.emit(args.impl, rows)


if __name__ == "__main__":
    main()
