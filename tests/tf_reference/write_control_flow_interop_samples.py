"""Writes tfcluster's MetaGraphs of control_flow_interop_cases.py (run with tfcluster's
Python before record_control_flow_interop.py):

    PYTHONPATH=server python tests/tf_reference/write_control_flow_interop_samples.py

(a new case: run the recorder once first, which writes TF's file, then this, then the recorder
again)

into data/control_flow_interop/tfcluster/<case>.meta, with <case>.json naming the loss, and
<case>_reexport.meta: TF's file for the case (data/control_flow_interop/tf/, written by the
recorder) imported by tfcluster and exported again; and the SavedModels of SAVED_MODEL_CASES
into data/control_flow_interop/tfcluster_saved_model/<case>/.
"""

from __future__ import annotations

import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import tfcluster as tf  # noqa: E402
from control_flow_interop_cases import CASES, SAVED_MODEL_CASES, save_model  # noqa: E402

OUT = os.path.join(HERE, "data", "control_flow_interop", "tfcluster")
TF_FILES = os.path.join(HERE, "data", "control_flow_interop", "tf")
SAVED = os.path.join(HERE, "data", "control_flow_interop", "tfcluster_saved_model")


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    for name, build in sorted(CASES.items()):
        with tf.Graph().as_default():
            loss_name = build(tf)
            tf.train.export_meta_graph(os.path.join(OUT, f"{name}.meta"))
        with open(os.path.join(OUT, f"{name}.json"), "w") as f:
            json.dump({"loss": loss_name}, f)
            f.write("\n")
        # TF's file for the case imported and written again (once the recorder wrote it).
        if not os.path.exists(os.path.join(TF_FILES, f"{name}.meta")):
            continue
        with tf.Graph().as_default():
            tf.train.import_meta_graph(os.path.join(TF_FILES, f"{name}.meta"))
            tf.train.export_meta_graph(os.path.join(OUT, f"{name}_reexport.meta"))


def saved_models() -> None:
    for name in SAVED_MODEL_CASES:
        path = os.path.join(SAVED, name)
        shutil.rmtree(path, ignore_errors=True)
        save_model(tf, name, path)


if __name__ == "__main__":
    saved_models()
    main()
