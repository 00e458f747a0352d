"""Records TF 1.15's answers for small API names (tf.sysconfig, tf.debugging's device
placement flag): tests/unit/test_small_names.py compares tfcluster's with them. Paths are
stored as <include>/<lib> since they name TF's install. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_small_names.py
"""

from __future__ import annotations

import tensorflow as tf
from recorder import Recorder

if not tf.__version__.startswith("1."):
    raise SystemExit("record_small_names.py records TensorFlow 1.15")

rec = Recorder("small_names")
sc = tf.sysconfig
include, lib = sc.get_include(), sc.get_lib()
rec.add(
    "sysconfig",
    compile_flags=[f.replace(include, "<include>") for f in sc.get_compile_flags()],
    link_flags=[f.replace(lib, "<lib>") for f in sc.get_link_flags()],
    cxx11_abi_flag=sc.CXX11_ABI_FLAG,
    monolithic_build=sc.MONOLITHIC_BUILD,
)
placements = [tf.debugging.get_log_device_placement()]
tf.debugging.set_log_device_placement(True)
placements.append(tf.debugging.get_log_device_placement())
tf.debugging.set_log_device_placement(False)
placements.append(tf.debugging.get_log_device_placement())
rec.add("log_device_placement", values=placements)

# tf.summary's small names and the top-level protos.
from tensorflow.core.framework import node_def_pb2  # noqa: E402

rec.add(
    "summary_protos",
    summary_description=tf.summary.SummaryDescription(type_hint="image").SerializeToString(),
    tagged_run_metadata=tf.summary.TaggedRunMetadata(
        tag="t", run_metadata=b"ab"
    ).SerializeToString(),
    histogram=tf.HistogramProto(
        min=1, max=2, num=3, sum=4, sum_squares=5, bucket_limit=[1.0, 2.5], bucket=[2.0, 1.0]
    ).SerializeToString(),
    name_attr_list=tf.NameAttrList(
        name="f", attr={"T": tf.AttrValue(type=tf.float32.as_datatype_enum)}
    ).SerializeToString(),
)


def _summary_node(op, description):
    node = node_def_pb2.NodeDef(name="s", op=op)
    node.attr["description"].s = description
    return node


rec.add(
    "get_summary_description",
    value=tf.summary.get_summary_description(
        _summary_node("TensorSummary", b'{"typeHint": "audio"}')
    ).SerializeToString(),
)
for case, op, text in (
    ("get_summary_description_wrong_op", "TensorSummaryV2", b'{"typeHint": "audio"}'),
    ("get_summary_description_bad_json", "TensorSummary", b'{"bogus": 1}'),
):
    rec.add(
        case,
        error=rec.catch(
            lambda op=op, text=text: tf.summary.get_summary_description(_summary_node(op, text))
        ),
    )
with tf.Graph().as_default():
    tf.summary.scalar("loss", tf.constant(1.0))
    rec.add("all_v2_summary_ops", value=tf.summary.all_v2_summary_ops())
    with tf.Session():
        rec.add("summary_initialize_without_writer", error=rec.catch(tf.summary.initialize))

# tf.test: Benchmark reports, benchmark_config, StubOutForTesting, test_src_dir_path.
import tempfile  # noqa: E402

import tftest_api_cases  # noqa: E402

with tempfile.TemporaryDirectory() as report_dir:
    rec.add("benchmark_reports", **tftest_api_cases.benchmark_reports(tf, report_dir))
rec.add("benchmark_config", value=tf.test.benchmark_config().SerializeToString())
rec.add("stubout", seen=tftest_api_cases.stubout_story(tf))
import os  # noqa: E402

os.environ["TEST_SRCDIR"] = "/runfiles"
rec.add("test_src_dir_path", value=tf.test.test_src_dir_path("core/platform"))
del os.environ["TEST_SRCDIR"]
rec.add("test_src_dir_path_unset", error=rec.catch(lambda: tf.test.test_src_dir_path("x")))
rec.save()
