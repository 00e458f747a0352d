"""Plots the scaling curves of bench/programs/ps_scaling.py, tfcluster against TensorFlow.

    python bench/plot_scaling.py OUT.png < rows.json

rows.json: {"tfcluster": [row, ...], "tf": [row, ...]} (the rows of both sides' BENCH_RESULT
lines). bench/run.py calls this with the bench virtualenv's Python (it has matplotlib).
Left: steps/s per worker against the number of workers (1 ps, 1.6 MB model). Right: MB/s of
parameters and gradients per worker against the model's size (2 ps, 2 workers).
"""

from __future__ import annotations

import json
import sys
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

SIDES = {"tfcluster": ("tfcluster", "tab:blue", "o"), "tf": ("tensorflow-cpu", "tab:orange", "s")}


def curve(rows: list[dict[str, Any]], unit: str, x_key: str, ps: int) -> tuple[list, list]:
    points = sorted(
        (r["extra"][x_key], r["median"])
        for r in rows
        if r["unit"] == unit and r.get("extra", {}).get("ps") == ps
    )
    return [p[0] for p in points], [p[1] for p in points]


def main() -> None:
    out = sys.argv[1]
    data = json.load(sys.stdin)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    for side, rows in data.items():
        label, color, marker = SIDES[side]
        x, y = curve(rows, "steps/s", "workers", ps=1)
        left.plot(x, y, marker=marker, color=color, label=label)
        x, y = curve(rows, "MB/s", "model_mb", ps=2)
        right.plot(x, y, marker=marker, color=color, label=label)
    left.set(
        title="ps training, 1 ps, MLP 784-512-10, batch 128",
        xlabel="workers",
        ylabel="steps/s per worker",
        xticks=[1, 2, 4],
    )
    right.set(
        title="2 ps, 2 workers, batch 8",
        xlabel="model parameters (MB)",
        ylabel="parameter + gradient MB/s per worker",
        xscale="log",
    )
    for ax in (left, right):
        ax.grid(alpha=0.3)
        ax.legend()
        ax.set_ylim(bottom=0)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
