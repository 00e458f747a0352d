"""Protos with float fields print as TF 1.15's protobuf prints them (the double a float widens
to: `simple_value: 0.10000000149011612`) in str(), repr() and the text files tf.train.write_graph
writes, and an Int64List takes bools as TF 1.15's protobuf does. Each program of
tests/tf_reference/proto_float_text_cases.py runs here and is compared with TF 1.15's recorded
answers (record_proto_float_text.py)."""

from __future__ import annotations

import os

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.proto_float_text_cases import CASES
from tfcluster.framework import proto_text


@pytest.mark.parametrize("name", sorted(CASES))
def test_program_prints_what_tf_printed(name: str) -> None:
    tf.reset_default_graph()
    assert CASES[name](tf) == reference.case("proto_float_text", name)


def test_python_text_format_keeps_protobufs_own_float_form() -> None:
    """text_format.MessageToString called by a program prints as the installed protobuf does
    (on TF 1.15 too it prints the shortest float): only str() and TF's writers change."""
    from google.protobuf import text_format

    summary = tf.Summary(value=[tf.Summary.Value(tag="loss", simple_value=0.1)])
    assert "simple_value: 0.1\n" in text_format.MessageToString(summary)
    assert "simple_value: 0.10000000149011612" in str(summary)


def test_saved_model_text_writes_floats_as_tf_does(tmp_path: os.PathLike[str]) -> None:
    export_dir = os.path.join(str(tmp_path), "model")
    tf.reset_default_graph()
    with tf.Session() as sess:
        x = tf.placeholder(tf.float32, [None], name="x")
        y = tf.nn.leaky_relu(x, alpha=0.3, name="y")
        builder = tf.saved_model.builder.SavedModelBuilder(export_dir)
        signature = tf.saved_model.signature_def_utils.predict_signature_def({"x": x}, {"y": y})
        builder.add_meta_graph_and_variables(sess, ["serve"], {"predict": signature})
        builder.save(as_text=True)
    with open(os.path.join(export_dir, "saved_model.pbtxt")) as f:
        text = f.read()
    assert "f: 0.30000001192092896" in text
    loaded = tf.Graph()
    with tf.Session(graph=loaded) as sess:
        tf.saved_model.loader.load(sess, ["serve"], export_dir)
        assert sess.run("y:0", {"x:0": [-1.0]}).tolist() == pytest.approx([-0.3])


def test_one_line_text_has_no_trailing_space() -> None:
    floats = tf.train.FloatList(value=[0.5, 0.1])
    assert proto_text.message_to_string(floats, as_one_line=True) == (
        "value: 0.5 value: 0.10000000149011612"
    )
