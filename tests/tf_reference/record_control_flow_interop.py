"""Records TF 1.15 on MetaGraphs with control flow, both ways (TF 1.15 only):

    cd tests/tf_reference && /tmp/tf115/bin/python record_control_flow_interop.py

- `tf/<case>`: each program of control_flow_interop_cases.py built by TF 1.15 (its own v1
  control flow: Enter/Exit/Switch/Merge frames and the while_context / cond_context
  collections), written to data/control_flow_interop/tf/<case>.meta, then imported into a
  fresh graph and differentiated and trained there (`gradients_and_training`); also the
  collections TF writes when it exports the imported graph again.
- `tfcluster/<case>`: the MetaGraph tfcluster wrote for the case
  (data/control_flow_interop/tfcluster/, by `PYTHONPATH=server python
  tests/tf_reference/write_control_flow_interop_samples.py`), imported by a plain TF 1.15
  program (a process of its own: nothing loaded TF's while_v2/cond_v2 modules before) and
  differentiated and trained the same way; the error where TF cannot.
- `tfcluster_reexport/<case>`: TF's file imported by tfcluster and exported again
  (<case>_reexport.meta), run the same way by TF 1.15.
- `tf_saved_model/<case>`, `tfcluster_saved_model/<case>` (SAVED_MODEL_CASES): the same
  through SavedModels (simple_save; data/control_flow_interop/tf_saved_model/ written here
  once, tfcluster_saved_model/ by the writer), TF's loaded by TF, tfcluster's by a plain
  TF 1.15 process.
- `tf_v2/<case>`: TF 1.15's own functional form of a case (built with control flow v2 on,
  data/control_flow_interop/tf/<case>_v2.meta) in a plain TF 1.15 program: it cannot
  differentiate an imported While (LookupError), which is why tfcluster writes its loops as
  TF1's frames with their WhileContextDefs, as TF 1.15's tf.while_loop does.

tests/unit/test_control_flow_interop.py compares tfcluster with both.
"""

import json
import os
import subprocess
import sys

import tensorflow as tf
from control_flow_interop_cases import (
    CASES,
    FEED,
    SAVED_MODEL_CASES,
    gradients_and_training,
    load_and_train,
    save_model,
)
from recorder import DATA_DIR, Recorder

if not tf.__version__.startswith("1.15"):
    raise SystemExit("record_control_flow_interop.py records TensorFlow 1.15")

TF_DIR = os.path.join(DATA_DIR, "control_flow_interop", "tf")
OURS_DIR = os.path.join(DATA_DIR, "control_flow_interop", "tfcluster")
TF_SAVED = os.path.join(DATA_DIR, "control_flow_interop", "tf_saved_model")
OURS_SAVED = os.path.join(DATA_DIR, "control_flow_interop", "tfcluster_saved_model")


def imported_run(path, loss_name):
    g = tf.Graph()
    with g.as_default():
        tf.train.import_meta_graph(path)
        with tf.Session() as sess:
            return gradients_and_training(tf, g, loss_name, sess)


def run_file(path, loss_name):
    """In a child process: TF 1.15 on a file or SavedModel folder (json on stdout)."""
    try:
        if os.path.isdir(path):
            out = load_and_train(tf, path, loss_name)
        else:
            out = imported_run(path, loss_name)
    except Exception as e:  # what TF raises is the record
        out = {"error": type(e).__name__, "message": str(e)[:300]}
    print("RESULT " + json.dumps(out))


def in_child(path, loss_name):
    proc = subprocess.run(
        [sys.executable, __file__, "--file", path, loss_name],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        check=True,
    )
    (line,) = [x for x in proc.stdout.splitlines() if x.startswith("RESULT ")]
    return json.loads(line[len("RESULT ") :])


def record_saved_models(rec):
    """TF's SavedModels of some cases loaded by TF, and tfcluster's (written by the writer
    into data/control_flow_interop/tfcluster_saved_model/) loaded by a plain TF 1.15."""
    for name in SAVED_MODEL_CASES:
        path = os.path.join(TF_SAVED, name)
        if not os.path.exists(path):
            save_model(tf, name, path)
        with tf.Graph().as_default():
            loss_name = CASES[name](tf)
        rec.add("tf_saved_model/" + name, **load_and_train(tf, path, loss_name))
        ours = os.path.join(OURS_SAVED, name)
        if os.path.exists(ours):
            rec.add("tfcluster_saved_model/" + name, **in_child(ours, loss_name))


def record_v2_form(rec):
    """TF 1.15's own functional form (control flow v2 on when built) in a plain TF 1.15
    program: whether it differentiates an imported functional While (it does not: its
    gradient is registered by while_v2, which only control flow v2 loads)."""
    tf.compat.v1.enable_control_flow_v2()
    try:
        for name in ("while_loop", "cond_of_variables"):
            path = os.path.join(TF_DIR, name + "_v2.meta")
            with tf.Graph().as_default():
                loss_name = CASES[name](tf)
                tf.train.export_meta_graph(path)
            rec.add("tf_v2/" + name, **in_child(path, loss_name))
    finally:
        tf.compat.v1.disable_control_flow_v2()


def record_tf_side(rec):
    os.makedirs(TF_DIR, exist_ok=True)
    for name, build in sorted(CASES.items()):
        path = os.path.join(TF_DIR, name + ".meta")
        with tf.Graph().as_default():
            loss_name = build(tf)
            # Kept once written: tfcluster's re-exports are made from these files (delete
            # the folder to write them again, then rerun the writer and this recorder).
            if not os.path.exists(path):
                tf.train.export_meta_graph(path)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                built_loss = float(sess.run(loss_name, FEED))
        g = tf.Graph()
        with g.as_default():
            tf.train.import_meta_graph(os.path.join(TF_DIR, name + ".meta"))
            again = tf.train.export_meta_graph()
        result = imported_run(os.path.join(TF_DIR, name + ".meta"), loss_name)
        rec.add(
            "tf/" + name,
            loss_name=loss_name,
            built_loss=built_loss,
            reexported_collections=sorted(again.collection_def),
            **result,
        )


def record_tfcluster_side(rec):
    for name in sorted(CASES):
        if not os.path.exists(os.path.join(OURS_DIR, name + ".meta")):
            continue
        with open(os.path.join(OURS_DIR, name + ".json")) as f:
            loss_name = json.load(f)["loss"]
        rec.add("tfcluster/" + name, **in_child(os.path.join(OURS_DIR, name + ".meta"), loss_name))
        again = os.path.join(OURS_DIR, name + "_reexport.meta")
        if os.path.exists(again):
            rec.add("tfcluster_reexport/" + name, **in_child(again, loss_name))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--file":
        run_file(sys.argv[2], sys.argv[3])
        return
    rec = Recorder("control_flow_interop")
    record_tf_side(rec)
    record_tfcluster_side(rec)
    record_saved_models(rec)
    record_v2_form(rec)
    rec.save()


if __name__ == "__main__":
    main()
