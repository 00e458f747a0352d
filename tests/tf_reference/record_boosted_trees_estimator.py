"""Records TF 1.15's canned gradient boosted trees (boosted_trees_estimator_cases.py): losses
per step, metrics, predictions, checkpoint names and ensemble bytes; and keeps one TF-written
checkpoint (data/boosted_trees_checkpoint/) that tests restore in tfcluster. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_boosted_trees_estimator.py
"""

import glob
import os
import shutil
import tempfile

import tensorflow as tf
from boosted_trees_estimator_cases import (
    CASES,
    checkpoint_dir,
    estimator_with_heads,
    explanations,
    feature_importances,
    train_for_checkpoint,
)
from recorder import DATA_DIR, Recorder

if not tf.__version__.startswith("1."):
    raise SystemExit("record_boosted_trees_estimator.py records TensorFlow 1.15")

rec = Recorder("boosted_trees_estimator")
for name, program in sorted(CASES.items()):
    tf.reset_default_graph()
    rec.add(name, **program(tf))

tf.reset_default_graph()
rec.add("estimator_with_heads", **estimator_with_heads(tf))

# A checkpoint TF wrote, kept (without events and graph) for the restore test.
work = tempfile.mkdtemp(prefix="bt_ckpt_")
probs = train_for_checkpoint(tf, work)
keep = checkpoint_dir(DATA_DIR)
shutil.rmtree(keep, ignore_errors=True)
os.makedirs(keep)
state = tf.train.get_checkpoint_state(work)
last = os.path.basename(state.model_checkpoint_path)
for path in glob.glob(os.path.join(work, last + ".*")):
    if not path.endswith(".meta"):
        shutil.copy(path, keep)
with open(os.path.join(keep, "checkpoint"), "w") as f:
    f.write(f'model_checkpoint_path: "{last}"\nall_model_checkpoint_paths: "{last}"\n')
names, values, normalized = feature_importances(tf, work)
bias, dfc_names, dfc_values, dfc_probabilities = explanations(tf, work)
shutil.rmtree(work)
rec.add(
    "tf_checkpoint",
    probabilities=probs,
    checkpoint=last,
    importance_names=names,
    importances=values,
    normalized_importances=normalized,
    bias=bias,
    dfc_names=dfc_names,
    dfc_values=dfc_values,
    dfc_probabilities=dfc_probabilities,
)
rec.save()
