"""`tensorflow.core`'s protocol buffer modules import as TF1 programs import them (freeze and
export scripts, summary writers, session configs), as the modules holding those messages."""

from __future__ import annotations

import importlib

import pytest
import tfcluster as tf
from tfcluster.protos import config_pb2, graph_pb2


def test_from_package_import_module_gives_the_messages() -> None:
    from tfcluster.core.example import example_pb2
    from tfcluster.core.framework import graph_pb2 as core_graph_pb2
    from tfcluster.core.protobuf import rewriter_config_pb2

    assert core_graph_pb2 is graph_pb2
    assert example_pb2.Example is tf.train.Example
    assert rewriter_config_pb2.RewriterConfig is config_pb2.RewriterConfig


def test_import_of_the_full_module_path_works() -> None:
    module = importlib.import_module("tfcluster.core.protobuf.config_pb2")
    assert module.ConfigProto is tf.ConfigProto
    summary = importlib.import_module("tfcluster.core.framework.summary_pb2")
    assert summary.Summary is tf.Summary
    event = importlib.import_module("tfcluster.core.util.event_pb2")
    assert event.Event is tf.Event


def test_a_module_tf_core_lacks_is_a_module_not_found_error() -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("tfcluster.core.framework.no_such_pb2")
    with pytest.raises(ImportError):
        exec("from tfcluster.core.framework import no_such_pb2", {})


def test_a_session_config_with_xla_and_grappler_settings_runs() -> None:
    config = tf.ConfigProto()
    config.graph_options.optimizer_options.global_jit_level = tf.OptimizerOptions.ON_1
    config.graph_options.rewrite_options.memory_optimization = config_pb2.RewriterConfig.NO_MEM_OPT
    with tf.Graph().as_default(), tf.Session(config=config) as sess:
        assert sess.run(tf.constant(2.0) * 3.0) == 6.0
