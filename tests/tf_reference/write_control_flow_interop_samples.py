"""Writes tfcluster's MetaGraphs of control_flow_interop_cases.py (run with tfcluster's
Python before record_control_flow_interop.py):

    PYTHONPATH=server python tests/tf_reference/write_control_flow_interop_samples.py

into data/control_flow_interop/tfcluster/<case>.meta, with <case>.json naming the loss.
"""

from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import tfcluster as tf  # noqa: E402
from control_flow_interop_cases import CASES  # noqa: E402

OUT = os.path.join(HERE, "data", "control_flow_interop", "tfcluster")


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    for name, build in sorted(CASES.items()):
        with tf.Graph().as_default():
            loss_name = build(tf)
            tf.train.export_meta_graph(os.path.join(OUT, f"{name}.meta"))
        with open(os.path.join(OUT, f"{name}.json"), "w") as f:
            json.dump({"loss": loss_name}, f)
            f.write("\n")


if __name__ == "__main__":
    main()
