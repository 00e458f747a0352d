"""Writes the MetaGraphs tfcluster exports for interop_gaps_cases.py (run with tfcluster's
Python, after record_interop_gaps.py wrote TF's files, then run the recorder again):

    PYTHONPATH=server python tests/tf_reference/write_interop_gaps_samples.py

into data/interop_gaps/tfcluster/: ref_loop.meta and ref_loop_limited.meta (a while_loop
updating ref variables), unused_library.meta (TF's unused_library.meta imported and exported
again). record_interop_gaps.py imports them into TF 1.15 and records what TF computes.
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import tfcluster as tf  # noqa: E402
from interop_gaps_cases import build_ref_variable_loop  # noqa: E402

DATA = os.path.join(HERE, "data", "interop_gaps")
OUT = os.path.join(DATA, "tfcluster")


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    for name, limit in (("ref_loop", None), ("ref_loop_limited", 3)):
        with tf.Graph().as_default():
            build_ref_variable_loop(tf, limit)
            tf.train.export_meta_graph(os.path.join(OUT, f"{name}.meta"))
    with tf.Graph().as_default():
        tf.train.import_meta_graph(os.path.join(DATA, "tf", "unused_library.meta"))
        tf.train.export_meta_graph(os.path.join(OUT, "unused_library.meta"))


if __name__ == "__main__":
    main()
