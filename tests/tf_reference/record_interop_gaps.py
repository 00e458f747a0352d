"""Records TF 1.15 for the programs of interop_gaps_cases.py, both ways. Run under TF 1.15,
then write_interop_gaps_samples.py (tfcluster's files), then this again:

    cd tests/tf_reference && /tmp/tf115/bin/python record_interop_gaps.py
    PYTHONPATH=server python tests/tf_reference/write_interop_gaps_samples.py
    cd tests/tf_reference && /tmp/tf115/bin/python record_interop_gaps.py

- `partial_run/<case>`: what each call of a partial run whose step fails returns or raises;
- `case_gradients`: the Case op of tf.switch_case, written to data/interop_gaps/tf/
  switch_case.meta, and the gradients TF computes through it for each branch index;
- `unused_library`: a MetaGraph (tf/unused_library.meta, export_scope "keep") whose library
  has a Defun never called and a dataset function whose node was left out; the functions
  TF's own import + export keeps, and what TF finds in tfcluster's round trip of the file;
- `ref_loop/<name>`: a while_loop updating ref variables: TF's values and op types, and the
  values TF computes from tfcluster's MetaGraph of the same program; TF's own MetaGraph of it
  goes to data/interop_gaps/tf/<name>.meta;
- `ref_function`: a tf.function updating a ref variable (TF refuses it while tracing) and
  one reading it;
- `cudnn_cpu/<option>`: CudnnRNN with skip_input / dropout / num_proj on CPU: TF 1.15's error
  class (it has no CPU kernel for any CudnnRNN op).

tests/unit/test_interop_gaps.py compares tfcluster with these.
"""

import os

import tensorflow as tf
from interop_gaps_cases import (
    CUDNN_OPTIONS,
    PARTIAL_RUN_CASES,
    build_ref_variable_loop,
    build_switch_case,
    build_unused_library,
    case_gradients,
    cudnn_option_on_cpu,
    function_updates_ref_variable,
)
from recorder import DATA_DIR, Recorder
from tensorflow.python.framework import function
from tensorflow.python.ops import gen_cudnn_rnn_ops

if not tf.__version__.startswith("1."):
    raise SystemExit("record_interop_gaps.py records TensorFlow 1.15")

TF_DIR = os.path.join(DATA_DIR, "interop_gaps", "tf")
OURS_DIR = os.path.join(DATA_DIR, "interop_gaps", "tfcluster")
os.makedirs(TF_DIR, exist_ok=True)
rec = Recorder("interop_gaps")

for name, program in sorted(PARTIAL_RUN_CASES.items()):
    with tf.Graph().as_default():
        rec.add("partial_run/" + name, **program(tf))

with tf.Graph().as_default():
    x, y, index, out = build_switch_case(tf)
    tf.train.export_meta_graph(os.path.join(TF_DIR, "switch_case.meta"))
    case_ops = [op.type for op in tf.get_default_graph().get_operations() if op.type == "Case"]
    with tf.Session() as sess:
        values = case_gradients(tf, x, y, index, out, sess)
    rec.add("case_gradients", case_ops=case_ops, **values)


def library_names(graph_def):
    return sorted(f.signature.name for f in graph_def.library.function)


def run_out(path):
    with tf.Graph().as_default():
        tf.train.import_meta_graph(path)
        names = library_names(tf.get_default_graph().as_graph_def())
        with tf.Session() as sess:
            return names, sess.run("out:0")


with tf.Graph().as_default():
    build_unused_library(tf, function)
    path = os.path.join(TF_DIR, "unused_library.meta")
    tf.train.export_meta_graph(path, export_scope="keep")
written = tf.compat.v1.MetaGraphDef()
with open(path, "rb") as f:
    written.ParseFromString(f.read())
roundtrip_names, out_value = run_out(path)
unused = {"in_file": library_names(written.graph_def), "tf_round_trip": roundtrip_names}
unused["out"] = out_value
ours = os.path.join(OURS_DIR, "unused_library.meta")
if os.path.exists(ours):
    unused["tf_reads_tfcluster"], unused["tfcluster_out"] = run_out(ours)
rec.add("unused_library", **unused)

for name, limit in (("ref_loop", None), ("ref_loop_limited", 3)):
    with tf.Graph().as_default():
        v, w = build_ref_variable_loop(tf, limit)
        types = sorted({op.type for op in tf.get_default_graph().get_operations()})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            acc, count, v_value, w_value = sess.run(["acc:0", "count:0", v, w])
        # TF's own MetaGraph of the program (RefEnter for each variable), for tfcluster to
        # import and run.
        tf.train.export_meta_graph(os.path.join(TF_DIR, name + ".meta"))
    loop = {"op_types": types, "acc": acc, "count": count, "v": v_value, "w": w_value}
    ours = os.path.join(OURS_DIR, name + ".meta")
    if os.path.exists(ours):
        with tf.Graph().as_default():
            tf.train.import_meta_graph(ours)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                got = sess.run(["acc:0", "count:0", "v:0", "w:0"])
        loop.update(zip(("tfcluster_acc", "tfcluster_count", "tfcluster_v", "tfcluster_w"), got))
    rec.add("ref_loop/" + name, **loop)

with tf.Graph().as_default():
    rec.add("ref_function", **function_updates_ref_variable(tf))

for option in sorted(CUDNN_OPTIONS):
    with tf.Graph().as_default():
        rec.add("cudnn_cpu/" + option, **cudnn_option_on_cpu(tf, gen_cudnn_rnn_ops, option))

rec.save()
