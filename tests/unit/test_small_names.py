"""tf.sysconfig and tf.debugging's device-placement flag answer as TF 1.15 does (recorded by
tests/tf_reference/record_small_names.py), except where tfcluster has no C++ library."""

from __future__ import annotations

import os

import pytest
import tfcluster as tf
from tf_reference import reference
from tfcluster.protos import node_def_pb2


def test_sysconfig_flags_have_tf_form_without_a_library_to_link() -> None:
    recorded = reference.case("small_names", "sysconfig")
    include, lib = tf.sysconfig.get_include(), tf.sysconfig.get_lib()
    assert os.path.isdir(include) and os.path.isdir(lib)
    assert [f.replace(include, "<include>") for f in tf.sysconfig.get_compile_flags()] == (
        recorded["compile_flags"]
    )
    # TF also names -l:libtensorflow_framework.so.1; tfcluster has no such library.
    assert [f.replace(lib, "<lib>") for f in tf.sysconfig.get_link_flags()] == (
        recorded["link_flags"][:1]
    )
    assert recorded["cxx11_abi_flag"] == tf.sysconfig.CXX11_ABI_FLAG
    assert recorded["monolithic_build"] == tf.sysconfig.MONOLITHIC_BUILD


def test_log_device_placement_flag_is_set_and_read_back() -> None:
    values = [tf.debugging.get_log_device_placement()]
    tf.debugging.set_log_device_placement(True)
    values.append(tf.debugging.get_log_device_placement())
    tf.debugging.set_log_device_placement(False)
    values.append(tf.debugging.get_log_device_placement())
    assert values == reference.case("small_names", "log_device_placement")["values"]


def test_summary_and_top_level_protos_serialize_as_tf() -> None:
    recorded = reference.case("small_names", "summary_protos")
    made = {
        "summary_description": tf.summary.SummaryDescription(type_hint="image"),
        "tagged_run_metadata": tf.summary.TaggedRunMetadata(tag="t", run_metadata=b"ab"),
        "histogram": tf.HistogramProto(
            min=1, max=2, num=3, sum=4, sum_squares=5, bucket_limit=[1.0, 2.5], bucket=[2.0, 1.0]
        ),
        "name_attr_list": tf.NameAttrList(
            name="f", attr={"T": tf.AttrValue(type=tf.float32.as_datatype_enum)}
        ),
    }
    assert {k: v.SerializeToString() for k, v in made.items()} == recorded


def _summary_node(op: str, description: bytes) -> node_def_pb2.NodeDef:
    node = node_def_pb2.NodeDef(name="s", op=op)
    node.attr["description"].s = description
    return node


def test_get_summary_description_parses_the_description_attr() -> None:
    got = tf.summary.get_summary_description(
        _summary_node("TensorSummary", b'{"typeHint": "audio"}')
    )
    assert (
        got.SerializeToString() == reference.case("small_names", "get_summary_description")["value"]
    )


@pytest.mark.parametrize(
    ("case", "op", "text"),
    [
        ("get_summary_description_wrong_op", "TensorSummaryV2", b'{"typeHint": "audio"}'),
        ("get_summary_description_bad_json", "TensorSummary", b'{"bogus": 1}'),
    ],
)
def test_get_summary_description_errors_as_tf(case: str, op: str, text: bytes) -> None:
    recorded = reference.case("small_names", case)["error"]
    with pytest.raises(Exception) as raised:
        tf.summary.get_summary_description(_summary_node(op, text))
    assert type(raised.value).__name__ == reference.error_class(recorded)


def test_v2_summary_ops_and_initialize_as_in_a_graph_without_v2_writers() -> None:
    with tf.Graph().as_default():
        tf.summary.scalar("loss", tf.constant(1.0))
        assert (
            tf.summary.all_v2_summary_ops()
            == (reference.case("small_names", "all_v2_summary_ops")["value"])
        )
        with tf.Session():
            recorded = reference.case("small_names", "summary_initialize_without_writer")
            with pytest.raises(RuntimeError) as raised:
                tf.summary.initialize()
            assert str(raised.value) == recorded["error"]["message"]
            assert reference.error_class(recorded["error"]) == "RuntimeError"
