"""Programs reading the graph-object API (Operation.get_attr of every attr kind, node_def,
op_def, traceback, consumers, control inputs, colocation groups, lookup errors, GraphDef,
version, seed, reprs), run on TensorFlow 1.15 by record_graph_object.py and on tfcluster by
test_tf_reference_graph_object.py.

Each program takes the `tf` module and returns {key: value} of plain Python values. An attr
value is stored as [type name, text]: repr for bytes, numbers, bools and DTypes, the text
format for protos, so a str where TF gives bytes or an array where TF gives a TensorProto
shows. Kept runnable on Python 3.7 (TF 1.15's).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

PROGRAMS: dict[str, Callable[[Any], dict[str, Any]]] = {}


def program(name: str) -> Callable[[Callable[[Any], Any]], Callable[[Any], Any]]:
    def deco(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
        PROGRAMS[name] = fn
        return fn

    return deco


def run(tf: Any, name: str) -> dict[str, Any]:
    with tf.Graph().as_default():
        return PROGRAMS[name](tf)


def describe(value: Any) -> Any:
    """[type name, text] of an attr value; a list of those for a list."""
    if isinstance(value, list):
        return ["list", [describe(v) for v in value]]
    kind = type(value).__name__
    if kind in ("TensorProto", "TensorShapeProto", "NameAttrList", "AttrValue", "NodeDef"):
        return [kind, str(value)]
    return [kind, repr(value)]


def _error(fn: Callable[[], Any]) -> list[str]:
    try:
        fn()
    except Exception as e:
        return [type(e).__name__, str(e)]
    return ["none", ""]


@program("get_attr_scalars")
def _get_attr_scalars(tf: Any) -> dict[str, Any]:
    x = tf.placeholder(tf.float32, [1, 4, 4, 1], name="x")
    conv = tf.nn.conv2d(x, tf.zeros([2, 2, 1, 1]), [1, 1, 1, 1], "SAME", name="conv")
    mm = tf.matmul(tf.zeros([2, 2]), tf.zeros([2, 2]), transpose_a=True, name="mm")
    leaky = tf.nn.leaky_relu(x, alpha=0.25, name="leaky")
    cast = tf.cast(x, tf.int32, name="cast")
    hot = tf.one_hot([1, 2], 3, axis=0, name="hot")
    out = {
        "padding": conv.op.get_attr("padding"),
        "data_format": conv.op.get_attr("data_format"),
        "use_cudnn_on_gpu": conv.op.get_attr("use_cudnn_on_gpu"),
        "conv_T": conv.op.get_attr("T"),
        "transpose_a": mm.op.get_attr("transpose_a"),
        "transpose_b": mm.op.get_attr("transpose_b"),
        "alpha": leaky.op.get_attr("alpha"),
        "DstT": cast.op.get_attr("DstT"),
        "axis": hot.op.get_attr("axis"),
    }
    return {k: describe(v) for k, v in out.items()}


@program("get_attr_shapes_and_tensors")
def _get_attr_shapes_and_tensors(tf: Any) -> dict[str, Any]:
    known = tf.placeholder(tf.float32, [None, 3], name="known")
    unknown = tf.placeholder(tf.int64, name="unknown")
    scalar = tf.placeholder(tf.bool, [], name="scalar")
    vec = tf.constant([[1.0, 2.0]], name="vec")
    one = tf.constant(7, name="one")
    words = tf.constant(["ab", "c"], name="words")
    out = {
        "known_shape": known.op.get_attr("shape"),
        "unknown_shape": unknown.op.get_attr("shape"),
        "scalar_shape": scalar.op.get_attr("shape"),
        "vec_value": vec.op.get_attr("value"),
        "one_value": one.op.get_attr("value"),
        "words_value": words.op.get_attr("value"),
        "vec_dtype": vec.op.get_attr("dtype"),
    }
    got = {k: describe(v) for k, v in out.items()}
    # What programs do with them: TensorShape(proto) and make_ndarray(proto).
    got["known_as_shape"] = str(tf.TensorShape(known.op.get_attr("shape")))
    got["unknown_as_shape"] = str(tf.TensorShape(unknown.op.get_attr("shape")))
    got["vec_as_array"] = tf.make_ndarray(vec.op.get_attr("value")).tolist()
    got["words_as_array"] = tf.make_ndarray(words.op.get_attr("value")).tolist()
    return got


@program("get_attr_lists")
def _get_attr_lists(tf: Any) -> dict[str, Any]:
    x = tf.placeholder(tf.float32, [1, 4, 4, 1], name="x")
    conv = tf.nn.conv2d(x, tf.zeros([2, 2, 1, 1]), [1, 2, 2, 1], "VALID", name="conv")
    buckets = tf.raw_ops.Bucketize(input=tf.constant([1.0, 2.0]), boundaries=[0.5, 1.5])
    q = tf.FIFOQueue(3, [tf.float32, tf.int32], shapes=[[2], []], name="q")
    q_free = tf.FIFOQueue(3, [tf.float32], name="q_free")
    with tf.colocate_with(x):
        near = tf.identity(x, name="near")
    out = {
        "strides": conv.op.get_attr("strides"),
        "dilations": conv.op.get_attr("dilations"),
        "boundaries": buckets.op.get_attr("boundaries"),
        "component_types": q.queue_ref.op.get_attr("component_types"),
        "shapes": q.queue_ref.op.get_attr("shapes"),
        "empty_shapes": q_free.queue_ref.op.get_attr("shapes"),
        "class": near.op.get_attr("_class"),
    }
    got = {k: describe(v) for k, v in out.items()}
    got["shapes_as_shapes"] = [str(tf.TensorShape(s)) for s in q.queue_ref.op.get_attr("shapes")]
    return got


@program("get_attr_variables_and_py_func")
def _get_attr_variables_and_py_func(tf: Any) -> dict[str, Any]:
    v = tf.Variable(tf.zeros([2, 3]), name="v")
    assign = tf.assign(v, tf.ones([2, 3]), use_locking=True, name="assign")
    shared = tf.get_variable("shared", [4], dtype=tf.int64, initializer=tf.zeros_initializer())
    rnd = tf.random_uniform([2], seed=5, name="rnd")
    noarg = tf.py_func(lambda: 1.0, [], tf.float32, stateful=False, name="noarg")
    pair = tf.py_func(
        lambda a, b: (a, b), [tf.constant(1), tf.constant("x")], [tf.int32, tf.string], name="pair"
    )
    out = {
        "v_shape": v.op.get_attr("shape"),
        "v_dtype": v.op.get_attr("dtype"),
        "v_container": v.op.get_attr("container"),
        "v_shared_name": v.op.get_attr("shared_name"),
        "shared_dtype": shared.op.get_attr("dtype"),
        "assign_use_locking": assign.op.get_attr("use_locking"),
        "assign_validate_shape": assign.op.get_attr("validate_shape"),
        "assign_T": assign.op.get_attr("T"),
        "rnd_seed": rnd.graph.get_operation_by_name("rnd/RandomUniform").get_attr("seed"),
        "noarg_Tin": noarg.op.get_attr("Tin"),
        "noarg_Tout": noarg.op.get_attr("Tout"),
        "pair_Tin": pair[0].op.get_attr("Tin"),
        "pair_token_type": type(pair[0].op.get_attr("token")).__name__,
    }
    return {k: describe(v) for k, v in out.items()}


@program("get_attr_func_and_missing")
def _get_attr_func_and_missing(tf: Any) -> dict[str, Any]:
    @tf.function
    def double(v: Any) -> Any:
        return v * 2.0

    y = double(tf.constant(1.0, name="c"))
    call = y.op.inputs[0].op if y.op.type == "Identity" else y.op
    f = call.get_attr("f")
    return {
        "call_type": call.type,
        "f_type": type(f).__name__,
        "f_name_prefix": f.name.rsplit("_", 1)[0],
        "missing": _error(lambda: call.get_attr("no_such_attr")),
        "missing_on_const": _error(
            lambda: tf.get_default_graph().get_operation_by_name("c").get_attr("T")
        ),
    }


def _without_docs(op_def: Any) -> str:
    """The OpDef's text without its summary and descriptions (tfcluster keeps none)."""
    op_def.summary = ""
    op_def.description = ""
    for arg in list(op_def.input_arg) + list(op_def.output_arg) + list(op_def.attr):
        arg.description = ""
    return str(op_def)


@program("operation_surface")
def _operation_surface(tf: Any) -> dict[str, Any]:
    a = tf.constant(1.0, name="a")
    b = tf.constant(2.0, name="b")
    with tf.control_dependencies([a.op]):
        s = tf.add(a, b, name="s")
    t = tf.multiply(a, s, name="t")
    with tf.colocate_with(b):
        u = tf.identity(b, name="u")
    tb = s.op.traceback
    tbs = s.op.traceback_with_start_lines
    here = next(frame for frame in tbs if frame[2] == "_operation_surface")
    return {
        "node_def": describe(s.op.node_def),
        "op_def_type": type(s.op.op_def).__name__,
        "op_def_name": s.op.op_def.name,
        "op_def_inputs": [arg.name for arg in s.op.op_def.input_arg],
        "op_def_outputs": [arg.name for arg in s.op.op_def.output_arg],
        "op_def_attrs": [attr.name for attr in s.op.op_def.attr],
        "op_def_without_docs": {
            op.type: _without_docs(op.op_def)
            for op in (
                s.op,
                u.op,
                tf.nn.conv2d(
                    tf.zeros([1, 2, 2, 1]), tf.zeros([1, 1, 1, 1]), [1, 1, 1, 1], "SAME"
                ).op,
            )
        },
        "traceback_type": type(tb).__name__,
        "traceback_frame": [type(tb[-1]).__name__, len(tb[-1])],
        "traceback_has_caller": any(frame[2] == "_operation_surface" for frame in tb),
        "traceback_with_start_lines_type": type(tbs).__name__,
        "traceback_with_start_lines_frame": [type(v).__name__ for v in tbs[-1]],
        "traceback_with_start_lines_adds_to_traceback": [f[:4] for f in tbs] == list(tb),
        # The caller's frame: the line that made `s`, lines below its function's first.
        "traceback_with_start_lines_caller": [here[3], here[1] - here[4]],
        "traceback_with_start_lines_caller_start": (
            here[4] == _operation_surface.__code__.co_firstlineno
        ),
        "consumers_of_a": [op.name for op in a.consumers()],
        "consumers_of_t": [op.name for op in t.consumers()],
        "control_inputs": [op.name for op in s.op.control_inputs],
        "control_inputs_type": type(s.op.control_inputs).__name__,
        "colocation_s": s.op.colocation_groups(),
        "colocation_u": u.op.colocation_groups(),
        "tensor_repr": repr(s),
        "tensor_str": str(s),
        "op_repr": repr(s.op),
        "op_str": str(s.op),
        "placeholder_repr": repr(tf.placeholder(tf.int32, name="p")),
        "placeholder_str": str(tf.placeholder(tf.int32, [None, 2], name="p2")),
    }


@program("graph_surface")
def _graph_surface(tf: Any) -> dict[str, Any]:
    g = tf.get_default_graph()
    seed_before = g.seed
    version_empty = g.version
    a = tf.constant(1.0, name="a")
    tf.add(a, a, name="s")
    tf.set_random_seed(3)
    return {
        "seed_before": repr(seed_before),
        "seed_after": repr(g.seed),
        "version_empty": version_empty,
        "version": g.version,
        "graph_def": str(g.as_graph_def()),
        "op_missing": _error(lambda: g.get_operation_by_name("nope")),
        "op_given_tensor_name": _error(lambda: g.get_operation_by_name("a:0")),
        "tensor_missing_op": _error(lambda: g.get_tensor_by_name("nope:0")),
        "tensor_bad_index": _error(lambda: g.get_tensor_by_name("a:5")),
        "tensor_given_op_name": _error(lambda: g.get_tensor_by_name("a")),
        "op_not_string": _error(lambda: g.get_operation_by_name(3)),
        "tensor_bad_index_text": _error(lambda: g.get_tensor_by_name("a:x")),
        "tensor_two_colons": _error(lambda: g.get_tensor_by_name("a:0:1")),
        "tensor_negative_index": g.get_tensor_by_name("s:-1").name,
        "element_op_only": _error(lambda: g.as_graph_element("a", allow_operation=False)),
        "element_tensor_only": _error(lambda: g.as_graph_element("a:0", allow_tensor=False)),
        "element_missing": _error(lambda: g.as_graph_element("nope")),
        "element_bad_name": _error(lambda: g.as_graph_element("a:0:1")),
        "element_int": _error(lambda: g.as_graph_element(3)),
        "element_bytes": g.as_graph_element(b"a:0").name,
        "element_neither": _error(
            lambda: g.as_graph_element("a", allow_tensor=False, allow_operation=False)
        ),
    }
