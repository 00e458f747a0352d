"""The graph API: names and scopes, devices, control deps, colocation, collections, GraphDef."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf


def test_unique_names_follow_tensorflow() -> None:
    a = tf.constant(1.0)
    b = tf.constant(2.0)
    c = tf.constant(3.0, name="Const_1")
    assert (a.op.name, b.op.name, c.op.name) == ("Const", "Const_1", "Const_1_1")
    var = tf.Variable(0.0, name="var")
    u1 = var.assign_add(1.0)
    u2 = var.assign_add(1.0)
    assert u1.op.name == "AssignAdd" and u2.op.name == "AssignAdd_1"
    assert u2.op.inputs[1].op.name == "AssignAdd_1/value"
    assert a.name == "Const:0" and a.dtype == tf.float32 and a.shape == tf.TensorShape([])


def test_a_variable_makes_initial_value_assign_and_read_ops() -> None:
    graph1 = tf.Graph()
    with graph1.as_default():
        tf.Variable(0.0, name="var")
    assert repr(graph1.get_operations()) == (
        "[<tf.Operation 'var/initial_value' type=Const>, <tf.Operation 'var' type=VariableV2>, "
        "<tf.Operation 'var/Assign' type=Assign>, <tf.Operation 'var/read' type=Identity>]"
    )
    assert tf.Graph().get_operations() == []


def test_name_scopes_nest_and_reset() -> None:
    with tf.name_scope("outer"):
        with tf.name_scope("inner") as scope:
            x = tf.constant(1, name="x")
        with tf.name_scope("inner"):
            y = tf.constant(1, name="x")
        with tf.name_scope(None):
            z = tf.constant(1, name="top")
        with tf.name_scope("abs/"):
            w = tf.constant(1, name="w")
    assert scope == "outer/inner/"
    assert x.op.name == "outer/inner/x"
    assert y.op.name == "outer/inner_1/x"
    assert z.op.name == "top"
    assert w.op.name == "abs/w"


def test_lookups_and_errors() -> None:
    g = tf.get_default_graph()
    c = tf.constant([1, 2], name="c")
    assert g.get_operation_by_name("c") is c.op
    assert g.get_tensor_by_name("c:0") is c
    with pytest.raises(KeyError):
        g.get_operation_by_name("missing")
    with pytest.raises(KeyError):
        g.get_tensor_by_name("c:1")
    with pytest.raises(ValueError):
        g.get_tensor_by_name("c")
    with pytest.raises(ValueError):
        g.get_operation_by_name("c:0")


@pytest.mark.parametrize(
    ("outer", "inner", "expected"),
    [
        ("/job:ps/task:0", "", "/job:ps/task:0"),
        ("/job:worker", "job:worker/task:1", "/job:worker/task:1"),
        ("/job:ps/task:0", "/cpu:0", "/job:ps/task:0/device:CPU:0"),
        ("/job:ps/task:0/device:GPU:1", "/task:2", "/job:ps/task:2/device:GPU:1"),
        ("/job:a", "/device:GPU:0", "/job:a/device:GPU:0"),
    ],
)
def test_device_scopes_merge_like_tensorflow(outer: str, inner: str, expected: str) -> None:
    with tf.device(outer), tf.device(inner):
        c = tf.constant(1.0)
    assert c.device == expected


def test_device_none_and_functions() -> None:
    with tf.device("/job:ps/task:0"):
        with tf.device(None):
            a = tf.constant(1.0)
        with tf.device(lambda op: "/job:worker/task:3" if op.type == "Const" else ""):
            b = tf.constant(1.0)
    assert a.device == ""
    assert b.device == "/job:worker/task:3"
    spec = tf.DeviceSpec(job="ps", task=1, device_type="CPU", device_index=0)
    with tf.device(spec):
        c = tf.constant(1.0)
    assert c.device == "/job:ps/task:1/device:CPU:0"


def test_variables_colocate_read_and_assign_with_the_variable() -> None:
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(1.0, name="v")
    assert v.device == "/job:ps/task:0"
    read = tf.get_default_graph().get_operation_by_name("v/read")
    assert read.device == "/job:ps/task:0"
    assert read.get_attr("_class") == [b"loc:@v"]
    with tf.device("/job:worker/task:0"), tf.colocate_with(v.op):
        x = tf.identity(v)
    assert x.device == "/job:ps/task:0"


def test_control_dependencies_and_group() -> None:
    a = tf.constant(1.0)
    b = tf.constant(2.0)
    with tf.control_dependencies([a]):
        c = tf.identity(b)
        with tf.control_dependencies(None):
            d = tf.identity(b)
    assert c.op.control_inputs == [a.op]
    assert d.op.control_inputs == []
    g = tf.group(a, b, name="both")
    assert g.type == "NoOp" and set(g.control_inputs) == {a.op, b.op}


def test_collections() -> None:
    v1 = tf.Variable(1.0, name="layer1/w")
    v2 = tf.Variable(1.0, name="layer2/w", trainable=False)
    assert tf.global_variables() == [v1, v2]
    assert tf.trainable_variables() == [v1]
    assert tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope="layer2") == [v2]
    tf.add_to_collection("mine", 3)
    assert tf.get_collection("mine") == [3]
    tf.get_collection_ref("mine").append(4)
    assert tf.get_collection("mine") == [3, 4]


def test_finalize_blocks_changes() -> None:
    g = tf.Graph()
    with g.as_default():
        tf.constant(1)
        g.finalize()
        with pytest.raises(RuntimeError, match="finalized"):
            tf.constant(2)


def test_tensor_from_another_graph_is_rejected() -> None:
    g1, g2 = tf.Graph(), tf.Graph()
    with g1.as_default():
        a = tf.constant(1.0)
    with g2.as_default():
        b = tf.constant(2.0)
        with pytest.raises(ValueError, match="same graph"):
            tf.add(a, b)
    with tf.Session(graph=g2) as sess, pytest.raises(ValueError):
        sess.run(a)


def test_tensor_is_not_a_bool_and_not_iterable() -> None:
    t = tf.constant([1, 2])
    with pytest.raises(TypeError):
        bool(t)
    it = iter(t)  # TF 1.15's __iter__ is a generator: it raises on the first next()
    with pytest.raises(TypeError):
        next(it)


def test_graph_def_round_trip_runs_the_same() -> None:
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        w = tf.constant([[1.0], [2.0]], name="w")
        with tf.device("/cpu:0"):
            y = tf.matmul(x, w, name="y")
        tf.identity(y, name="out")
    gd = g.as_graph_def()
    assert [n.name for n in gd.node] == ["x", "w", "y", "out"]
    assert gd.node[2].device == "/device:CPU:0"
    restored = tf.GraphDef()
    restored.ParseFromString(gd.SerializeToString())
    g2 = tf.Graph()
    with g2.as_default():
        x2, out = tf.import_graph_def(restored, return_elements=["x:0", "out:0"], name="imp")
        assert out.name == "imp/out:0" and out.shape.as_list() == [None, 1]
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(out, {x2: [[1.0, 1.0]]}), [[3.0]])


def test_import_graph_def_input_map() -> None:
    g = tf.Graph()
    with g.as_default():
        a = tf.placeholder(tf.float32, [], name="a")
        tf.multiply(a, 2.0, name="double")
    gd = g.as_graph_def()
    c = tf.constant(21.0)
    (out,) = tf.import_graph_def(gd, input_map={"a:0": c}, return_elements=["double:0"])
    with tf.Session() as sess:
        assert sess.run(out) == 42.0


def test_import_graph_def_rejects_unknown_ops_and_bad_inputs() -> None:
    gd = tf.GraphDef()
    node = gd.node.add()
    node.name, node.op = "n", "NoSuchOp"
    with pytest.raises(tf.errors.NotFoundError, match="Op type not registered 'NoSuchOp'"):
        tf.import_graph_def(gd)
    gd = tf.GraphDef()
    node = gd.node.add()
    node.name, node.op = "n", "Identity"
    node.input.append("missing")
    with pytest.raises(ValueError, match="missing"):
        tf.import_graph_def(gd)
    # Nothing half-imported was left behind.
    assert tf.get_default_graph().get_operations() == []


def test_dtypes() -> None:
    assert tf.as_dtype("float32") is tf.float32
    assert tf.as_dtype(np.int64) is tf.int64
    assert tf.float32.as_numpy_dtype is np.float32
    assert tf.float32_ref.base_dtype is tf.float32
    assert tf.Variable(1.0).dtype == tf.float32_ref
    with pytest.raises(TypeError):
        tf.as_dtype("float99")


def test_tensor_shape() -> None:
    s = tf.TensorShape([None, 3])
    assert s.ndims == 2 and s.as_list() == [None, 3] and not s.is_fully_defined()
    assert s[1].value == 3 and s[0].value is None
    assert s.is_compatible_with([5, 3]) and not s.is_compatible_with([5, 4])
    assert s.merge_with([5, None]).as_list() == [5, 3]
    assert tf.TensorShape(None).ndims is None
    with pytest.raises(ValueError):
        s.merge_with([1, 2])


def test_a_process_that_never_imported_an_ops_module_still_knows_its_op_types() -> None:
    """A task server registers graphs whose op types its own process may never have built
    (summaries, parsing, ...): the op table loads every ops module on the first miss."""
    import subprocess
    import sys

    program = (
        "import sys, tfcluster\n"
        "from tfcluster.framework import op_def_registry\n"
        "assert 'tfcluster.ops.summary_ops' not in sys.modules\n"
        "assert op_def_registry.lookup('MergeSummary') is not None\n"
        "assert op_def_registry.lookup('NoSuchOpType') is None\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
