"""import_graph_def refuses GraphDefs whose nodes do not fit their ops as TF 1.15's importer
does, with its ValueError messages (tests/tf_reference/record_node_def_checks.py): an attr the
op lacks, an attr missing without a default, a value of the wrong kind, below its minimum or
not allowed, the wrong number of inputs, an input of another dtype, an unknown input node or
output; attrs with defaults left out and internal `_` attrs are accepted."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.node_def_check_cases import CASES

AREA = "node_def_checks"


@pytest.mark.parametrize("name", sorted(CASES))
def test_imported_node_defs_checked_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)


def test_the_default_graph_keeps_working_after_a_refused_import() -> None:
    with tf.Graph().as_default() as graph:
        a = tf.constant([1.0, 2.0], name="a")
        tf.identity(a, name="b")
    graph_def = graph.as_graph_def()
    graph_def.node[1].attr["foo"].i = 1
    with tf.Graph().as_default() as target:
        kept = tf.constant(3.0, name="kept")
        with pytest.raises(ValueError, match="NodeDef mentions attr 'foo'"):
            tf.import_graph_def(graph_def)
        with tf.Session() as sess:
            assert sess.run(kept) == 3.0
        assert [op.name for op in target.get_operations()] == ["kept"]


def test_attrs_a_newer_tensorflow_added_are_read() -> None:
    """A GraphDef TF 2.x wrote: its gradient MatMuls carry grad_a/grad_b, attrs TF 1.15's
    MatMul lacks (tfcluster/framework/newer_tf_attrs.json); the graph imports and runs."""
    with tf.Graph().as_default() as graph:
        a = tf.constant([[1.0, 2.0]], name="a")
        tf.matmul(a, a, transpose_b=True, name="b")
    graph_def = graph.as_graph_def()
    product = next(n for n in graph_def.node if n.name == "b")
    product.attr["grad_a"].b = True
    product.attr["grad_b"].b = False
    with tf.Graph().as_default():
        (out,) = tf.import_graph_def(graph_def, return_elements=["b:0"], name="")
        with tf.Session() as sess:
            assert sess.run(out).tolist() == [[5.0]]
