"""Records TF 1.15 on graphs that carry functions, both ways (run under TF 1.15, after
write_function_library_samples.py):

    cd tests/tf_reference && /tmp/tf115/bin/python record_function_library.py

- `tf/<case>`: each program of function_library_cases.py built by TF 1.15 (control flow v2
  on), its MetaGraph written to data/function_library/tf/<case>.meta, and what it computes;
- `tf/defun_call`, `tf/saved_model_function`: a Defun called by name and a SavedModel whose
  signature runs a tf.function and a cond_v2 (TF-only ways to write functions);
- `tfcluster_file/<case>`: the MetaGraph tfcluster wrote for the case, imported by TF 1.15
  and run (the error class where TF cannot);
- `tfcluster_corpus/<name>`: tfcluster's MetaGraphs of function_library_corpus.py imported
  by TF 1.15 (nodes it lacks afterwards: none), variables initialized, an Estimator's train_op run.

tests/unit/test_function_library_interop.py imports TF's files into tfcluster and compares.
"""

import json
import os
import shutil

import numpy as np
import tensorflow as tf
from function_library_cases import CASES, run_spec
from recorder import DATA_DIR, Recorder
from tensorflow.python.framework import function

if not tf.__version__.startswith("1."):
    raise SystemExit("record_function_library.py records TensorFlow 1.15")

tf.compat.v1.enable_control_flow_v2()
TF_DIR = os.path.join(DATA_DIR, "function_library", "tf")
OURS_DIR = os.path.join(DATA_DIR, "function_library", "tfcluster")
rec = Recorder("function_library")
shutil.rmtree(TF_DIR, ignore_errors=True)
os.makedirs(TF_DIR)


def save_spec(name, spec):
    with open(os.path.join(TF_DIR, name + ".json"), "w") as f:
        json.dump(spec, f, indent=1, sort_keys=True)
        f.write("\n")


# TF 1.15's initialized_value is a cond on IsVariableInitialized: under control flow v2 its
# If reads the variable before the predicate (FailedPrecondition), so TF records it in v1
# (Switch/Merge), the form tfcluster writes for it.
# A cond updating a ref variable is TF 1.15's default (v1) cond too: cond_v2 cannot take one.
V1_CONTROL_FLOW = {"variable_initialized_value", "cond_updates_variable"}

for name, program in sorted(CASES.items()):
    if name in V1_CONTROL_FLOW:
        tf.compat.v1.disable_control_flow_v2()
    else:
        tf.compat.v1.enable_control_flow_v2()
    with tf.Graph().as_default():
        spec = program(tf)
        tf.train.export_meta_graph(os.path.join(TF_DIR, name + ".meta"))
        save_spec(name, spec)
        rec.add("tf/" + name, steps=run_spec(tf, spec))
tf.compat.v1.enable_control_flow_v2()


def defun_call():
    @function.Defun(tf.float32, tf.float32)
    def scaled_sum(x, y):
        return x * 2.0 + y

    a = tf.constant([1.0, 2.0], name="a")
    out = tf.identity(scaled_sum(a, tf.constant(0.5)), name="out")
    return {"init": [], "fetch": [out.name], "steps": 1}


def defun_nested_call():
    @function.Defun(tf.float32)
    def halve(x):
        return x * 0.5, x + 1.0

    @function.Defun(tf.float32)
    def outer(x):
        a, b = halve(x)
        return a * b

    out = tf.identity(outer(tf.constant([2.0, 4.0], name="a")), name="out")
    return {"init": [], "fetch": [out.name], "steps": 1}


with tf.Graph().as_default():
    spec = defun_nested_call()
    tf.train.export_meta_graph(os.path.join(TF_DIR, "defun_nested_call.meta"))
    save_spec("defun_nested_call", spec)
    rec.add("tf/defun_nested_call", steps=run_spec(tf, spec))


def switch_case_v2():
    """TF 1.15's tf.switch_case under control flow v2 is a Case op."""
    x = tf.constant(3.0, name="x")
    out = []
    for k in (0, 1, 2, 7, -1):
        r = tf.switch_case(tf.constant(k), [lambda: x * 1.0, lambda: x * 2.0, lambda: x * 3.0])
        out.append(tf.identity(r, name=f"case_{k + 1}").name)
    return {"init": [], "fetch": out, "steps": 1}


with tf.Graph().as_default():
    spec = switch_case_v2()
    tf.train.export_meta_graph(os.path.join(TF_DIR, "switch_case_v2.meta"))
    save_spec("switch_case_v2", spec)
    rec.add("tf/switch_case_v2", steps=run_spec(tf, spec))

with tf.Graph().as_default():
    spec = defun_call()
    tf.train.export_meta_graph(os.path.join(TF_DIR, "defun_call.meta"))
    save_spec("defun_call", spec)
    rec.add("tf/defun_call", steps=run_spec(tf, spec))


def defun_with_grad_func():
    @function.Defun(tf.float32, tf.float32)
    def cube_grad(x, dy):
        return dy * 100.0 * x

    @function.Defun(tf.float32, grad_func=cube_grad)
    def cube(x):
        return x * x * x

    x = tf.constant([1.0, 2.0], name="x")
    y = tf.identity(cube(x), name="y")
    return {"init": [], "fetch": [y.name], "steps": 1}


with tf.Graph().as_default() as g:
    spec = defun_with_grad_func()
    tf.train.export_meta_graph(os.path.join(TF_DIR, "defun_with_grad_func.meta"))
    save_spec("defun_with_grad_func", spec)
    rec.add("tf/defun_with_grad_func", steps=run_spec(tf, spec))
with tf.Graph().as_default() as g:
    # The library's gradient function, not the body's derivative (3x^2), gives the gradient.
    tf.train.import_meta_graph(os.path.join(TF_DIR, "defun_with_grad_func.meta"))
    (grad,) = tf.gradients(g.get_tensor_by_name("y:0"), g.get_tensor_by_name("x:0"))
    with tf.Session() as sess:
        rec.add("tf/defun_with_grad_func/gradient", grad=sess.run(grad))


def saved_model_function():
    path = os.path.join(TF_DIR, "saved_model_function")
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None], name="x")

        @tf.function
        def poly(v):
            return v * v + 1.0

        y = tf.cond(tf.reduce_sum(x) > 0.0, lambda: poly(x), lambda: -x, name="pick")
        with tf.Session() as sess:
            tf.saved_model.simple_save(sess, path, {"x": x}, {"y": y})
            values = {
                "pos": sess.run(y, {x: np.array([1.0, 2.0], np.float32)}),
                "neg": sess.run(y, {x: np.array([-1.0, -2.0], np.float32)}),
            }
    return values


rec.add("tf/saved_model_function", **saved_model_function())

# A gradient built on an imported loop (TF's layout: captures and limit are loop variables).
with tf.Graph().as_default() as g:
    tf.train.import_meta_graph(os.path.join(TF_DIR, "while_captures_and_limit.meta"))
    (grad,) = tf.gradients(g.get_tensor_by_name("s:0"), g.get_tensor_by_name("x:0"))
    with tf.Session() as sess:
        rec.add("tf/gradient_of_imported_loop", grad=sess.run(grad))

for name in sorted(CASES):
    meta = os.path.join(OURS_DIR, name + ".meta")
    if not os.path.exists(meta):
        raise SystemExit(f"run write_function_library_samples.py first (missing {meta})")
    with open(os.path.join(OURS_DIR, name + ".json")) as f:
        spec = json.load(f)
    with tf.Graph().as_default():
        try:
            tf.train.import_meta_graph(meta)
            rec.add("tfcluster_file/" + name, steps=run_spec(tf, spec))
        except Exception as e:  # what TF says about a file it cannot run
            print(f"TF 1.15 cannot run tfcluster's {name}: {type(e).__name__}: {e}")
            rec.add("tfcluster_file/" + name, error=e)
# tfcluster's SavedModel of the same program, served by TF.
with tf.Graph().as_default(), tf.Session() as sess:
    loaded = tf.saved_model.loader.load(
        sess, ["serve"], os.path.join(OURS_DIR, "saved_model_function")
    )
    sig = loaded.signature_def["serving_default"]
    x_name, y_name = sig.inputs["x"].name, sig.outputs["y"].name
    rec.add(
        "tfcluster_saved_model_function",
        pos=sess.run(y_name, {x_name: np.array([1.0, 2.0], np.float32)}),
        neg=sess.run(y_name, {x_name: np.array([-1.0, -2.0], np.float32)}),
    )

# tfcluster's MetaGraphs of usual programs (function_library_corpus.py): TF imports each,
# initializes its variables and runs an Estimator's train_op.
corpus = os.path.join(OURS_DIR, "corpus")
for meta in sorted(os.listdir(corpus)):
    name = meta[: -len(".meta")]
    with tf.Graph().as_default() as g:
        try:
            tf.train.import_meta_graph(os.path.join(corpus, meta))
            with open(os.path.join(corpus, meta), "rb") as f:
                nodes = tf.MetaGraphDef.FromString(f.read()).graph_def.node
            have = {op.name for op in g.get_operations()}
            missing = sorted(n.name for n in nodes if n.name not in have)
            ran = []
            # Zeros for the placeholders (a dimension TF does not know: 1).
            feeds = {
                op.outputs[0]: np.zeros(
                    [d or 1 for d in op.outputs[0].shape.as_list()], op.outputs[0].dtype.name
                )
                for op in g.get_operations()
                if op.type == "Placeholder" and op.outputs[0].shape.dims is not None
            }
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                sess.run(tf.local_variables_initializer())
                for op in g.get_operations():
                    if op.type == "MakeIterator":  # an Estimator's hook runs these
                        sess.run(op)
                for op in tf.get_collection(tf.GraphKeys.TRAIN_OP):
                    sess.run(op, feeds)
                    ran.append(op.name)
            rec.add("tfcluster_corpus/" + name, nodes=len(nodes), missing=missing, ran=ran)
        except Exception as e:
            print(f"TF 1.15 cannot import tfcluster's {meta}: {type(e).__name__}: {e}")
            rec.add("tfcluster_corpus/" + name, error=e)
rec.save()
