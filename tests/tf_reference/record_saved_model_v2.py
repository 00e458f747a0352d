"""tf.saved_model.save / load_v2 in TF 1.15's graph mode, both ways: TF saves the programs of
saved_model_v2_cases.py into data/saved_model_v2/tf115_{keras,module} and records what its own
loaders give; it also loads what tfcluster saved into data/saved_model_v2/tfcluster_* (made by
`PYTHONPATH=server python tests/tf_reference/write_saved_model_v2_samples.py`, run first) and
records those results; and the errors of bad input. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_saved_model_v2.py
"""

import os
import shutil

import saved_model_v2_cases as cases
import tensorflow as tf
from recorder import Recorder

if not tf.__version__.startswith("1."):
    raise SystemExit("record_saved_model_v2.py records TensorFlow 1.15")

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(here, "data", "saved_model_v2")
rec = Recorder("saved_model_v2")
for kind, save, run in cases.PROGRAMS:
    path = os.path.join(root, "tf115_" + kind)
    shutil.rmtree(path, ignore_errors=True)
    save(tf, path)
    rec.add("tf115_" + kind, **run(tf, path))
    rec.add("tf_loads_tfcluster_" + kind, **run(tf, os.path.join(root, "tfcluster_" + kind)))

with tf.Graph().as_default():
    rec.add(
        "save_not_trackable", error=rec.catch(lambda: tf.saved_model.save(object(), root + "/x"))
    )
    module = cases.module_class(tf)()
    rec.add(
        "save_signature_without_input_signature",
        error=rec.catch(
            lambda: tf.saved_model.save(module, root + "/x", signatures={"s": lambda: 1})
        ),
    )
    for kind in ("nested", "non_tensor_value"):
        rec.add(
            "signature_outputs_" + kind,
            error=rec.catch(lambda k=kind: cases.save_signature_outputs(tf, root + "/x", k)),
        )
    ref_module = cases.ref_variable_class(tf)()
    unsaved = tf.train.Checkpoint(v=tf.Variable(1.0, name="refonly"))
    fresh = tf.train.Checkpoint(v=tf.Variable(1.0, use_resource=True, name="fresh"))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        rec.add(
            "save_function_capturing_ref_variable",
            error=rec.catch(lambda: tf.saved_model.save(ref_module, root + "/x")),
        )
        rec.add(
            "save_ref_variable", error=rec.catch(lambda: tf.saved_model.save(unsaved, root + "/x"))
        )
        rec.add(
            "save_checkpoint_uninitialized_save_counter",
            error=rec.catch(lambda: tf.saved_model.save(fresh, root + "/x")),
        )
    rec.add(
        "load_wrong_tags",
        error=rec.catch(
            lambda: tf.saved_model.load_v2(os.path.join(root, "tf115_module"), tags=["train"])
        ),
    )
    rec.add("load_missing_path", error=rec.catch(lambda: tf.saved_model.load_v2(root + "/missing")))
shutil.rmtree(root + "/x", ignore_errors=True)
cases.save_signature_outputs(tf, root + "/x", "pair")
rec.add("signature_outputs_pair", **cases.run_loaded_pair(tf, root + "/x"))
shutil.rmtree(root + "/x", ignore_errors=True)
rec.save()
