"""Cases of tf.raw_ops, run on TensorFlow 1.15 by record_raw_ops.py and on tfcluster by
tests/unit/test_raw_ops_cases.py: a sample of raw ops per family (values, tensor names of the
op and of the constants it makes from Python values, output structures), gradients through
raw ops (tf.gradients uses the op's registered gradient), and the error classes of misuse."""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    from casebook import Book, values
except ImportError:  # imported as tf_reference.cases_raw_ops by the tests
    from tf_reference.casebook import Book, values

BOOK = Book()
add = BOOK.add

M23 = values((2, 3), seed=1).astype(np.float32)
M34 = values((3, 4), seed=2).astype(np.float32)
IMG = values((1, 5, 5, 2), seed=3).astype(np.float32)
FILT = values((3, 3, 2, 3), seed=4).astype(np.float32)
SQ = (values((3, 3), seed=5) + 3 * np.eye(3)).astype(np.float64)
V6 = values((6,), seed=6).astype(np.float32)
IDS = np.array([0, 2, 1, 0, 2, 2], dtype=np.int32)


# ---- math -------------------------------------------------------------------------------
@add("matmul_attrs_and_gradient", {"a": M23, "b": M34}, grad=("y", ("a", "b")))
def _matmul(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    y = tf.raw_ops.MatMul(a=t["a"], b=t["b"], transpose_a=False)
    yt = tf.raw_ops.MatMul(a=t["b"], b=t["a"], transpose_a=True, transpose_b=True, name="mm_t")
    return {"y": y, "yt": yt}


@add("python_values_become_constants_in_the_op_scope", {})
def _consts(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    y = tf.raw_ops.AddV2(x=[1.0, 2.0], y=3.0, name="plus")
    n = tf.raw_ops.AddN(inputs=[[1, 2], [3, 4], [5, 6]])
    return {"y": y, "y_x": y.op.inputs[0], "y_y": y.op.inputs[1], "n": n, "n_2": n.op.inputs[2]}


@add("sum_axis_sets_reduction_indices", {"x": M34}, grad=("s", ("x",)))
def _sum(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    s = tf.raw_ops.Sum(input=t["x"], axis=[1], keep_dims=True)
    m = tf.raw_ops.Max(input=t["x"], axis=0)
    p = tf.raw_ops.Prod(input=t["x"], axis=np.array([0, 1], dtype=np.int64))
    return {"s": s, "m": m, "p": p}


@add("unary_binary_and_scan", {"x": V6}, grad=("c", ("x",)))
def _cwise(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "tanh": tf.raw_ops.Tanh(x=t["x"]),
        "sqd": tf.raw_ops.SquaredDifference(x=t["x"], y=0.5),
        "c": tf.raw_ops.Cumsum(x=t["x"], axis=0, exclusive=True, reverse=True),
        "cast": tf.raw_ops.Cast(x=t["x"], DstT=tf.int32),
        "less": tf.raw_ops.Less(x=t["x"], y=0.0),
    }


# ---- arrays ------------------------------------------------------------------------------
@add("list_inputs_and_list_outputs", {"x": M34}, grad=("packed", ("x",)))
def _lists(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    parts = tf.raw_ops.Split(axis=1, value=t["x"], num_split=2)
    unpacked = tf.raw_ops.Unpack(value=t["x"], num=3, axis=0)
    cat = tf.raw_ops.ConcatV2(values=[parts[1], parts[0]], axis=1)
    packed = tf.raw_ops.Pack(values=unpacked, axis=1)
    return {"parts": parts, "unpacked": unpacked, "cat": cat, "packed": packed}


@add(
    "gather_reshape_transpose_gradients",
    {"x": M34, "i": np.array([2, 0, 2], np.int32)},
    grad=("g", ("x",)),
)
def _gather(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    # Through Mul first: the gradient of x is then dense (GatherV2's own is IndexedSlices).
    x2 = tf.raw_ops.Mul(x=t["x"], y=1.5)
    g = tf.raw_ops.GatherV2(params=x2, indices=t["i"], axis=0)
    r = tf.raw_ops.Reshape(tensor=g, shape=[4, 3])
    tr = tf.raw_ops.Transpose(x=r, perm=[1, 0])
    return {"g": tf.raw_ops.Mul(x=tr, y=2.0), "r": r, "tr": tr}


@add("namedtuple_outputs", {"x": np.array([3, 1, 3, 2, 1], np.int64)})
def _unique(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    u = tf.raw_ops.Unique(x=t["x"], out_idx=tf.int64)
    top = tf.raw_ops.TopKV2(input=tf.raw_ops.Cast(x=t["x"], DstT=tf.float32), k=2)
    return {"y": u.y, "idx": u.idx, "values": top.values, "indices": top.indices}


# ---- nn ----------------------------------------------------------------------------------
@add("conv_relu_pool_gradients", {"x": IMG, "f": FILT}, grad=("p", ("x", "f")), rtol=1e-4)
def _conv(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    c = tf.raw_ops.Conv2D(input=t["x"], filter=t["f"], strides=[1, 1, 1, 1], padding="SAME")
    r = tf.raw_ops.Relu(features=c)
    p = tf.raw_ops.MaxPool(input=r, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
    return {"c": c, "p": p}


@add(
    "softmax_cross_entropy_gradient",
    {"x": M23, "y": np.eye(3)[[0, 2]].astype(np.float32)},
    grad=("loss", ("x",)),
)
def _xent(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    out = tf.raw_ops.SoftmaxCrossEntropyWithLogits(features=t["x"], labels=t["y"])
    b = tf.raw_ops.BiasAdd(value=t["x"], bias=[0.1, 0.2, 0.3])
    return {"loss": out.loss, "backprop": out.backprop, "sm": tf.raw_ops.Softmax(logits=b)}


# ---- linalg, segments, images, strings, random, state --------------------------------------
@add("matrix_inverse_gradient", {"m": SQ}, grad=("inv", ("m",)))
def _inv(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "inv": tf.raw_ops.MatrixInverse(input=t["m"]),
        "chol": tf.raw_ops.Cholesky(input=t["m"] + tf.transpose(t["m"])),
    }


@add("segment_sum_gradient", {"x": V6, "ids": IDS}, grad=("s", ("x",)))
def _segments(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"s": tf.raw_ops.UnsortedSegmentSum(data=t["x"], segment_ids=t["ids"], num_segments=3)}


@add("resize_bilinear", {"x": IMG}, grad=("y", ("x",)), rtol=1e-4)
def _resize(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.raw_ops.ResizeBilinear(images=t["x"], size=[7, 3], align_corners=True)}


@add("strings", {"s": np.array([b"ab", b"cde"], dtype=object)})
def _strings(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    j = tf.raw_ops.StringJoin(inputs=[t["s"], "-x"], separator="+")
    sub = tf.raw_ops.Substr(input=t["s"], pos=1, len=1)
    h = tf.raw_ops.StringToHashBucketFast(input=t["s"], num_buckets=7)
    return {"j": j, "sub": sub, "h": h}


@add("random_op_output_type_attr", {})
def _random(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    u = tf.raw_ops.RandomUniform(shape=[2, 3], dtype=tf.float64, seed=3, seed2=4)
    return {"shape": tf.raw_ops.Shape(input=u), "dtype_ok": tf.raw_ops.Cast(x=u, DstT=tf.float32)}


@add("ref_inputs_take_a_variable", {})
def _assign(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    v = tf.Variable([1.0, 2.0], name="v")
    a = tf.raw_ops.AssignAdd(ref=v, value=[10.0, 20.0])
    return {"a": a}


@add("no_outputs_returns_the_operation", {})
def _noop(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    op = tf.raw_ops.NoOp(name="nothing")
    with tf.control_dependencies([op]):
        y = tf.identity(1.0)
    return {"y": y}


@add("sparse_to_dense", {})
def _sparse(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    d = tf.raw_ops.SparseToDense(
        sparse_indices=[[0, 1], [2, 0]], output_shape=[3, 2], sparse_values=[5, 7], default_value=-1
    )
    return {"d": d}


# ---- misuse --------------------------------------------------------------------------------
def _error_case(name: str, call: Any) -> None:
    @add(name, {})
    def _build(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
        return {"y": call(tf)}


_error_case("positional_arguments", lambda tf: tf.raw_ops.MatMul([[1.0]], [[1.0]]))
_error_case("unknown_keyword", lambda tf: tf.raw_ops.MatMul(a=[[1.0]], b=[[1.0]], c=1))
_error_case("missing_input", lambda tf: tf.raw_ops.MatMul(a=[[1.0]]))
_error_case("inferred_attr_given", lambda tf: tf.raw_ops.MatMul(a=[[1.0]], b=[[1.0]], T=tf.float32))
_error_case(
    "op_def_name_of_renamed_arg",
    lambda tf: tf.raw_ops.Split(split_dim=0, value=[1.0, 2.0], num_split=2),
)
_error_case("bool_attr_not_bool", lambda tf: tf.raw_ops.MatMul(a=[[1.0]], b=[[1.0]], transpose_a=1))
_error_case(
    "int_attr_not_int", lambda tf: tf.raw_ops.Split(axis=0, value=[1.0, 2.0], num_split="2")
)
_error_case(
    "list_attr_not_list",
    lambda tf: tf.raw_ops.MaxPool(input=[[[[1.0]]]], ksize=1, strides=[1, 1, 1, 1], padding="SAME"),
)
_error_case(
    "string_attr_not_allowed",
    lambda tf: tf.raw_ops.MaxPool(
        input=[[[[1.0]]]], ksize=[1, 1, 1, 1], strides=[1, 1, 1, 1], padding="FULL"
    ),
)
_error_case("dtype_not_allowed", lambda tf: tf.raw_ops.MatMul(a=[["a"]], b=[["b"]]))
_error_case("input_types_differ", lambda tf: tf.raw_ops.AddV2(x=tf.constant(1.0), y=tf.constant(1)))
_error_case("list_input_not_list", lambda tf: tf.raw_ops.AddN(inputs=tf.constant([1.0])))
_error_case("list_input_too_short", lambda tf: tf.raw_ops.AddN(inputs=[]))
_error_case(
    "list_types_differ", lambda tf: tf.raw_ops.AddN(inputs=[tf.constant(1.0), tf.constant(1)])
)
_error_case(
    "list_lengths_differ", lambda tf: tf.raw_ops.DynamicStitch(indices=[[0], [1]], data=[[1.0]])
)
_error_case(
    "ref_input_not_a_variable", lambda tf: tf.raw_ops.Assign(ref=tf.constant(1.0), value=2.0)
)
_error_case("type_attr_not_a_dtype", lambda tf: tf.raw_ops.Cast(x=[1.0], DstT="no_such_type"))
_error_case("int_attr_below_minimum", lambda tf: tf.raw_ops.Unpack(value=[1.0, 2.0], num=-1))
_error_case(
    "bad_value_at_run_time", lambda tf: tf.raw_ops.Reshape(tensor=[1.0, 2.0, 3.0], shape=[2, 2])
)


@add("bad_value_at_run_time_fed", {"x": np.array([1.0, 2.0, 3.0], np.float32)}, unknown_shapes=True)
def _reshape_fed(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.raw_ops.Reshape(tensor=t["x"], shape=[2, 2])}


@add("tensor_and_shape_attrs", {})
def _tensor_attr(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    proto = tf.make_tensor_proto(np.array([1.5, 2.5], np.float32))
    c = tf.raw_ops.Const(value=proto, dtype=tf.float32, name="c")
    ph = tf.raw_ops.PlaceholderWithDefault(input=c, shape=[2])
    return {"c": c, "ph": ph, "shape": tf.raw_ops.Shape(input=ph, out_type=tf.int64)}


_error_case(
    "tensor_attr_not_a_proto",
    lambda tf: tf.raw_ops.Const(value=np.array([1.0], np.float32), dtype=tf.float32),
)
_error_case("removed_op", lambda tf: tf.raw_ops.RandomPoisson(shape=[2], rate=1.0))


# ---- stateful ops, chained through handles and variables ------------------------------------
@add("variable_updates_through_refs", {})
def _variables(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    v = tf.Variable([1.0, 2.0, 3.0], name="v")
    w = tf.Variable([[1.0, 1.0], [2.0, 2.0]], name="w")
    m = tf.Variable([0.0, 0.0, 0.0], name="m")
    step = tf.Variable(0, name="step")
    ups = []
    for make in (
        lambda: tf.raw_ops.ApplyGradientDescent(var=v, alpha=0.5, delta=[1.0, 1.0, 1.0]),
        lambda: tf.raw_ops.ApplyMomentum(
            var=v, accum=m, lr=0.1, grad=[1.0, 2.0, 3.0], momentum=0.9, use_nesterov=True
        ),
        lambda: tf.raw_ops.ScatterAdd(ref=v, indices=[0, 2], updates=[10.0, 20.0]),
        lambda: tf.raw_ops.ScatterNdUpdate(ref=w, indices=[[1, 0]], updates=[7.0]),
        lambda: tf.raw_ops.ScatterMul(ref=w, indices=[0], updates=[[3.0, 4.0]]),
        lambda: tf.raw_ops.SparseApplyProximalGradientDescent(
            var=w, alpha=0.1, l1=0.0, l2=0.1, grad=[[1.0, 1.0]], indices=[1]
        ),
        lambda: tf.raw_ops.AssignSub(ref=v, value=[1.0, 1.0, 1.0]),
    ):
        deps = [ups[-1]] if ups else []
        with tf.control_dependencies(deps):
            ups.append(make())
    with tf.control_dependencies(ups[-1:]):
        count = tf.raw_ops.CountUpTo(ref=step, limit=5)
        inited = tf.raw_ops.IsVariableInitialized(ref=v)
    with tf.control_dependencies([count]):
        out_v, out_w = tf.identity(v), tf.identity(w)
    return {"v": out_v, "w": out_w, "count": count, "inited": inited, "m": tf.identity(m)}


@add("queue_ops_through_a_handle", {})
def _queues(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    q = tf.raw_ops.FIFOQueueV2(component_types=[tf.int32, tf.string], shapes=[[], []], capacity=5)
    e1 = tf.raw_ops.QueueEnqueueManyV2(handle=q, components=[[1, 2, 3], ["a", "b", "c"]])
    with tf.control_dependencies([e1]):
        e2 = tf.raw_ops.QueueEnqueueV2(handle=q, components=[4, "d"])
    with tf.control_dependencies([e2]):
        size = tf.raw_ops.QueueSizeV2(handle=q)
    with tf.control_dependencies([size]):
        one = tf.raw_ops.QueueDequeueV2(handle=q, component_types=[tf.int32, tf.string])
    with tf.control_dependencies(one):
        many = tf.raw_ops.QueueDequeueManyV2(handle=q, n=2, component_types=[tf.int32, tf.string])
    with tf.control_dependencies(many):
        close = tf.raw_ops.QueueCloseV2(handle=q)
    with tf.control_dependencies([close]):
        rest = tf.raw_ops.QueueDequeueUpToV2(handle=q, n=5, component_types=[tf.int32, tf.string])
        closed = tf.raw_ops.QueueIsClosedV2(handle=q)
    return {"size": size, "one": one, "many": many, "rest": rest, "closed": closed}


@add("tensor_array_ops_through_a_handle", {"x": M34}, grad=("read", ("x",)))
def _tensor_arrays(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    ta = tf.raw_ops.TensorArrayV3(size=4, dtype=tf.float32, element_shape=[4])
    flow = tf.raw_ops.TensorArrayScatterV3(
        handle=ta.handle, indices=[2, 0, 1], value=t["x"], flow_in=ta.flow
    )
    flow = tf.raw_ops.TensorArrayWriteV3(
        handle=ta.handle, index=3, value=[9.0, 9.0, 9.0, 9.0], flow_in=flow
    )
    read = tf.raw_ops.TensorArrayReadV3(handle=ta.handle, index=0, flow_in=flow, dtype=tf.float32)
    gathered = tf.raw_ops.TensorArrayGatherV3(
        handle=ta.handle, indices=[3, 1], flow_in=flow, dtype=tf.float32
    )
    size = tf.raw_ops.TensorArraySizeV3(handle=ta.handle, flow_in=flow)
    cat = tf.raw_ops.TensorArrayConcatV3(handle=ta.handle, flow_in=flow, dtype=tf.float32)
    return {"read": read, "gathered": gathered, "size": size, "cat": cat.value}


@add("tensor_array_split", {"x": V6})
def _tensor_array_split(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    ta = tf.raw_ops.TensorArrayV3(size=2, dtype=tf.float32)
    flow = tf.raw_ops.TensorArraySplitV3(
        handle=ta.handle, value=t["x"], lengths=np.array([2, 4], np.int64), flow_in=ta.flow
    )
    second = tf.raw_ops.TensorArrayReadV3(handle=ta.handle, index=1, flow_in=flow, dtype=tf.float32)
    with tf.control_dependencies([second]):
        close = tf.raw_ops.TensorArrayCloseV3(handle=ta.handle)
    with tf.control_dependencies([close]):
        out = tf.identity(second)
    return {"second": out}


@add("lookup_table_ops", {})
def _tables(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    table = tf.raw_ops.HashTableV2(key_dtype=tf.string, value_dtype=tf.int64)
    init = tf.raw_ops.InitializeTableV2(
        table_handle=table, keys=["a", "b"], values=np.array([1, 2], np.int64)
    )
    with tf.control_dependencies([init]):
        found = tf.raw_ops.LookupTableFindV2(
            table_handle=table, keys=["b", "z", "a"], default_value=np.int64(-1)
        )
        size = tf.raw_ops.LookupTableSizeV2(table_handle=table)
    return {"found": found, "size": size}


@add("accumulator_ops", {})
def _accumulators(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    acc = tf.raw_ops.ConditionalAccumulator(dtype=tf.float32, shape=[2])
    a1 = tf.raw_ops.AccumulatorApplyGradient(
        handle=acc, local_step=np.int64(0), gradient=[1.0, 2.0]
    )
    with tf.control_dependencies([a1]):
        a2 = tf.raw_ops.AccumulatorApplyGradient(
            handle=acc, local_step=np.int64(0), gradient=[3.0, 6.0]
        )
    with tf.control_dependencies([a2]):
        n = tf.raw_ops.AccumulatorNumAccumulated(handle=acc)
    with tf.control_dependencies([n]):
        mean = tf.raw_ops.AccumulatorTakeGradient(handle=acc, num_required=2, dtype=tf.float32)
    return {"n": n, "mean": mean}


@add("reader_ops_over_a_queue", {})
def _readers(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    q = tf.raw_ops.FIFOQueueV2(component_types=[tf.string], capacity=4)
    fill = tf.raw_ops.QueueEnqueueManyV2(handle=q, components=[["w1", "w2", "w3"]])
    with tf.control_dependencies([fill]):
        close = tf.raw_ops.QueueCloseV2(handle=q)
    reader = tf.raw_ops.IdentityReaderV2()
    with tf.control_dependencies([close]):
        first = tf.raw_ops.ReaderReadV2(reader_handle=reader, queue_handle=q)
    with tf.control_dependencies(list(first)):
        more = tf.raw_ops.ReaderReadUpToV2(
            reader_handle=reader, queue_handle=q, num_records=np.int64(5)
        )
    with tf.control_dependencies(list(more)):
        produced = tf.raw_ops.ReaderNumRecordsProducedV2(reader_handle=reader)
        done = tf.raw_ops.ReaderNumWorkUnitsCompletedV2(reader_handle=reader)
    return {"first": first, "more": more, "produced": produced, "done": done}


@add("dataset_ops_through_an_iterator", {})
def _datasets(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    types, shapes = [tf.int64], [[None]]
    ds = tf.raw_ops.TensorSliceDataset(
        components=[np.arange(7, dtype=np.int64)], output_shapes=[[]]
    )
    ds = tf.raw_ops.SkipDataset(
        input_dataset=ds, count=np.int64(1), output_types=types, output_shapes=[[]]
    )
    ds = tf.raw_ops.TakeDataset(
        input_dataset=ds, count=np.int64(5), output_types=types, output_shapes=[[]]
    )
    ds = tf.raw_ops.RepeatDataset(
        input_dataset=ds, count=np.int64(2), output_types=types, output_shapes=[[]]
    )
    ds = tf.raw_ops.BatchDatasetV2(
        input_dataset=ds,
        batch_size=np.int64(4),
        drop_remainder=False,
        output_types=types,
        output_shapes=shapes,
    )
    it = tf.raw_ops.IteratorV2(
        shared_name="", container="", output_types=types, output_shapes=shapes
    )
    make = tf.raw_ops.MakeIterator(dataset=ds, iterator=it)
    with tf.control_dependencies([make]):
        b1 = tf.raw_ops.IteratorGetNext(iterator=it, output_types=types, output_shapes=shapes)
    with tf.control_dependencies(b1):
        b2 = tf.raw_ops.IteratorGetNext(iterator=it, output_types=types, output_shapes=shapes)
    return {"b1": b1, "b2": b2}


@add("quantize_and_dequantize", {"x": V6})
def _quantize(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    q = tf.raw_ops.QuantizeV2(input=t["x"], min_range=-1.0, max_range=1.0, T=tf.quint8)
    d = tf.raw_ops.Dequantize(input=q.output, min_range=q.output_min, max_range=q.output_max)
    return {"d": d, "min": q.output_min, "max": q.output_max}


@add("non_max_suppression_v1_v2", {})
def _nms(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    boxes = [[0.0, 0.0, 1.0, 1.0], [0.0, 0.1, 1.0, 1.1], [0.0, 2.0, 1.0, 3.0]]
    scores = [0.9, 0.8, 0.7]
    v1 = tf.raw_ops.NonMaxSuppression(boxes=boxes, scores=scores, max_output_size=3)
    v2 = tf.raw_ops.NonMaxSuppressionV2(
        boxes=boxes, scores=scores, max_output_size=2, iou_threshold=0.5
    )
    return {"v1": v1, "v2": v2}


# ---- the training ops, one case each: two updates, then the variable and its slots ---------
_SCALARS = {
    "lr": 0.1,
    "alpha": 0.1,
    "rho": 0.9,
    "epsilon": 1e-3,
    "l1": 0.01,
    "l2": 0.02,
    "l2_shrinkage": 0.03,
    "lr_power": -0.5,
    "momentum": 0.9,
    "beta1_power": 0.9,
    "beta2_power": 0.999,
    "beta1": 0.9,
    "beta2": 0.999,
}
# op -> its ref inputs after var (the slots), and its other inputs, in TF's names.
_TRAINING_OPS = {
    "ApplyAdadelta": (["accum", "accum_update"], ["lr", "rho", "epsilon", "grad"]),
    "ApplyAdagrad": (["accum"], ["lr", "grad"]),
    "ApplyAdagradDA": (
        ["gradient_accumulator", "gradient_squared_accumulator"],
        ["grad", "lr", "l1", "l2", "global_step"],
    ),
    "ApplyAdam": (
        ["m", "v"],
        ["beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"],
    ),
    "ApplyCenteredRMSProp": (["mg", "ms", "mom"], ["lr", "rho", "momentum", "epsilon", "grad"]),
    "ApplyFtrl": (["accum", "linear"], ["grad", "lr", "l1", "l2", "lr_power"]),
    "ApplyFtrlV2": (["accum", "linear"], ["grad", "lr", "l1", "l2", "l2_shrinkage", "lr_power"]),
    "ApplyProximalAdagrad": (["accum"], ["lr", "l1", "l2", "grad"]),
    "ApplyProximalGradientDescent": ([], ["alpha", "l1", "l2", "delta"]),
    "ApplyRMSProp": (["ms", "mom"], ["lr", "rho", "momentum", "epsilon", "grad"]),
    "SparseApplyAdadelta": (["accum", "accum_update"], ["lr", "rho", "epsilon", "grad", "indices"]),
    "SparseApplyAdagrad": (["accum"], ["lr", "grad", "indices"]),
    "SparseApplyAdagradDA": (
        ["gradient_accumulator", "gradient_squared_accumulator"],
        ["grad", "indices", "lr", "l1", "l2", "global_step"],
    ),
    "SparseApplyCenteredRMSProp": (
        ["mg", "ms", "mom"],
        ["lr", "rho", "momentum", "epsilon", "grad", "indices"],
    ),
    "SparseApplyFtrl": (["accum", "linear"], ["grad", "indices", "lr", "l1", "l2", "lr_power"]),
    "SparseApplyFtrlV2": (
        ["accum", "linear"],
        ["grad", "indices", "lr", "l1", "l2", "l2_shrinkage", "lr_power"],
    ),
    "SparseApplyMomentum": (["accum"], ["lr", "grad", "indices", "momentum"]),
    "SparseApplyProximalAdagrad": (["accum"], ["lr", "l1", "l2", "grad", "indices"]),
    "SparseApplyRMSProp": (["ms", "mom"], ["lr", "rho", "momentum", "epsilon", "grad", "indices"]),
}
VAR0 = values((3, 2), seed=20).astype(np.float32)
SLOT0 = (values((3, 2), seed=21, low=0.1, high=1.0)).astype(np.float32)
DENSE_GRAD = values((3, 2), seed=22).astype(np.float32)
SPARSE_GRAD = values((2, 2), seed=23).astype(np.float32)


def _training_case(op_type: str) -> None:
    slots, others = _TRAINING_OPS[op_type]
    sparse = op_type.startswith("Sparse")

    @add(f"training_op_{op_type}", {}, rtol=1e-5, atol=1e-6)
    def _build(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
        var = tf.Variable(VAR0, name="var")
        slot_vars = {s: tf.Variable(SLOT0, name=s) for s in slots}
        kwargs: dict[str, Any] = {"var": var, **slot_vars}
        for name in others:
            if name in ("grad", "delta"):
                kwargs[name] = SPARSE_GRAD if sparse else DENSE_GRAD
            elif name == "indices":
                kwargs[name] = np.array([2, 0], np.int32)
            elif name == "global_step":
                kwargs[name] = np.int64(3)
            else:
                kwargs[name] = np.float32(_SCALARS[name])
        first = getattr(tf.raw_ops, op_type)(**kwargs)
        with tf.control_dependencies([first]):
            second = getattr(tf.raw_ops, op_type)(**kwargs)
        with tf.control_dependencies([second]):
            out = {"var": tf.identity(var)}
            out.update({s: tf.identity(v) for s, v in slot_vars.items()})
        return out


for _op_type in _TRAINING_OPS:
    _training_case(_op_type)


@add("scatter_family", {})
def _scatters(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for op_type, updates in (
        ("ScatterSub", [[1.0, 1.0]]),
        ("ScatterDiv", [[2.0, 4.0]]),
        ("ScatterMax", [[0.5, -0.5]]),
        ("ScatterMin", [[0.5, -0.5]]),
        ("ScatterUpdate", [[9.0, 8.0]]),
    ):
        v = tf.Variable(VAR0, name=op_type)
        up = getattr(tf.raw_ops, op_type)(ref=v, indices=[1], updates=updates)
        out[op_type] = up
    for op_type in ("ScatterNdAdd", "ScatterNdSub"):
        v = tf.Variable(VAR0, name=op_type)
        out[op_type] = getattr(tf.raw_ops, op_type)(
            ref=v, indices=[[0, 1], [2, 0]], updates=[1.0, 2.0]
        )
    return out


# ---- more datasets, sparse accumulators, quantized concat -------------------------------------
def _drain(tf: Any, ds: Any, shapes: list[Any], n: int) -> list[Any]:
    """n elements of ds through a raw iterator (IteratorV2, MakeIterator, IteratorGetNext)."""
    types = [tf.int64]
    it = tf.raw_ops.IteratorV2(
        shared_name="", container="", output_types=types, output_shapes=shapes
    )
    deps = [tf.raw_ops.MakeIterator(dataset=ds, iterator=it)]
    out = []
    for _ in range(n):
        with tf.control_dependencies(deps):
            (x,) = tf.raw_ops.IteratorGetNext(iterator=it, output_types=types, output_shapes=shapes)
        out.append(x)
        deps = [x]
    return out


@add("dataset_combinators", {})
def _dataset_combinators(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    types, scalar = [tf.int64], [[]]
    common = {"output_types": types, "output_shapes": scalar}
    a = tf.raw_ops.TensorSliceDataset(
        components=[np.array([1, 2, 2, 3], np.int64)], output_shapes=scalar
    )
    b = tf.raw_ops.TensorSliceDataset(components=[np.array([7, 8], np.int64)], output_shapes=scalar)
    cat = tf.raw_ops.ConcatenateDataset(input_dataset=a, another_dataset=b, **common)
    uniq = tf.raw_ops.UniqueDataset(input_dataset=cat, **common)
    shard = tf.raw_ops.ShardDataset(
        input_dataset=uniq, num_shards=np.int64(2), index=np.int64(1), **common
    )
    shuffled = tf.raw_ops.ShuffleDataset(
        input_dataset=cat, buffer_size=np.int64(1), seed=np.int64(1), seed2=np.int64(2), **common
    )
    cached = tf.raw_ops.CacheDataset(input_dataset=shuffled, filename="", **common)
    pre = tf.raw_ops.PrefetchDataset(input_dataset=cached, buffer_size=np.int64(2), **common)
    ign = tf.raw_ops.IgnoreErrorsDataset(input_dataset=pre, **common)
    card = tf.raw_ops.DatasetCardinality(input_dataset=cat)
    return {"shard": _drain(tf, shard, scalar, 2), "ign": _drain(tf, ign, scalar, 6), "card": card}


@add("dataset_batching_and_single_elements", {})
def _dataset_batching(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    types = [tf.int64]
    rows = tf.raw_ops.TensorDataset(
        components=[np.array([[1, 2], [3, 4]], np.int64)], output_shapes=[[2, 2]]
    )
    unb = tf.raw_ops.UnbatchDataset(input_dataset=rows, output_types=types, output_shapes=[[2]])
    vec = tf.raw_ops.TensorSliceDataset(
        components=[np.array([1, 2, 3], np.int64)], output_shapes=[[]]
    )
    padded = tf.raw_ops.PaddedBatchDatasetV2(
        input_dataset=vec,
        batch_size=np.int64(2),
        padded_shapes=[np.array([], np.int64)],
        padding_values=[np.int64(0)],
        drop_remainder=False,
        output_shapes=[[None]],
    )
    single = tf.raw_ops.DatasetToSingleElement(
        dataset=rows, output_types=types, output_shapes=[[2, 2]]
    )
    return {
        "unbatched": _drain(tf, unb, [[2]], 2),
        "padded": _drain(tf, padded, [[None]], 2),
        "single": single,
    }


@add("sparse_accumulator_and_global_step", {})
def _sparse_acc(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    acc = tf.raw_ops.SparseConditionalAccumulator(dtype=tf.float32, shape=[3, 2])
    step = tf.raw_ops.AccumulatorSetGlobalStep(handle=acc, new_global_step=np.int64(1))
    with tf.control_dependencies([step]):
        a1 = tf.raw_ops.SparseAccumulatorApplyGradient(
            handle=acc,
            local_step=np.int64(1),
            gradient_indices=np.array([0, 2], np.int64),
            gradient_values=[[1.0, 2.0], [3.0, 4.0]],
            gradient_shape=np.array([3, 2], np.int64),
            has_known_shape=True,
        )
    with tf.control_dependencies([a1]):
        a2 = tf.raw_ops.SparseAccumulatorApplyGradient(
            handle=acc,
            local_step=np.int64(1),
            gradient_indices=np.array([2], np.int64),
            gradient_values=[[5.0, 6.0]],
            gradient_shape=np.array([3, 2], np.int64),
            has_known_shape=True,
        )
    with tf.control_dependencies([a2]):
        taken = tf.raw_ops.SparseAccumulatorTakeGradient(
            handle=acc, num_required=2, dtype=tf.float32
        )
    return {"indices": taken.indices, "values": taken.values, "shape": taken.shape}


@add("quantized_concat", {"x": V6})
def _quantized_concat(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    q1 = tf.raw_ops.QuantizeV2(input=t["x"], min_range=-1.0, max_range=1.0, T=tf.quint8)
    q2 = tf.raw_ops.QuantizeV2(input=t["x"] * 0.5, min_range=-2.0, max_range=2.0, T=tf.quint8)
    c = tf.raw_ops.QuantizedConcat(
        concat_dim=0,
        values=[q1.output, q2.output],
        input_mins=[q1.output_min, q2.output_min],
        input_maxes=[q1.output_max, q2.output_max],
    )
    d = tf.raw_ops.Dequantize(input=c.output, min_range=c.output_min, max_range=c.output_max)
    return {"d": d, "min": c.output_min, "max": c.output_max}


@add("zip_shuffle_and_repeat_and_optionals", {})
def _zip_optionals(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    scalar = [[]]
    a = tf.raw_ops.TensorSliceDataset(components=[np.array([1, 2], np.int64)], output_shapes=scalar)
    b = tf.raw_ops.TensorSliceDataset(components=[np.array([5, 6], np.int64)], output_shapes=scalar)
    both = tf.raw_ops.ZipDataset(
        input_datasets=[a, b], output_types=[tf.int64, tf.int64], output_shapes=[[], []]
    )
    rep = tf.raw_ops.ShuffleAndRepeatDataset(
        input_dataset=a,
        buffer_size=np.int64(1),
        seed=np.int64(3),
        seed2=np.int64(4),
        count=np.int64(2),
        output_types=[tf.int64],
        output_shapes=scalar,
    )
    types2 = [tf.int64, tf.int64]
    it = tf.raw_ops.IteratorV2(
        shared_name="", container="", output_types=types2, output_shapes=[[], []]
    )
    make = tf.raw_ops.MakeIterator(dataset=both, iterator=it)
    with tf.control_dependencies([make]):
        opt = tf.raw_ops.IteratorGetNextAsOptional(
            iterator=it, output_types=types2, output_shapes=[[], []]
        )
        has = tf.raw_ops.OptionalHasValue(optional=opt)
        pair = tf.raw_ops.OptionalGetValue(
            optional=opt, output_types=types2, output_shapes=[[], []]
        )
    return {"rep": _drain(tf, rep, scalar, 4), "has": has, "pair": pair}


@add("sparse_tensors_map_many", {})
def _sparse_map(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    handles = tf.raw_ops.AddManySparseToTensorsMap(
        sparse_indices=np.array([[0, 0], [1, 2]], np.int64),
        sparse_values=[1.0, 2.0],
        sparse_shape=np.array([2, 3], np.int64),
        shared_name="raw_map",
    )
    back = tf.raw_ops.TakeManySparseFromTensorsMap(
        sparse_handles=handles, dtype=tf.float32, shared_name="raw_map"
    )
    return {
        "indices": back.sparse_indices,
        "values": back.sparse_values,
        "shape": back.sparse_shape,
    }


@add("reader_state_reset", {})
def _reader_state(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    q = tf.raw_ops.FIFOQueueV2(component_types=[tf.string], capacity=4)
    fill = tf.raw_ops.QueueEnqueueManyV2(handle=q, components=[["w1", "w2"]])
    reader = tf.raw_ops.IdentityReaderV2()
    with tf.control_dependencies([fill]):
        first = tf.raw_ops.ReaderReadV2(reader_handle=reader, queue_handle=q)
    with tf.control_dependencies(list(first)):
        reset = tf.raw_ops.ReaderResetV2(reader_handle=reader)
    with tf.control_dependencies([reset]):
        produced = tf.raw_ops.ReaderNumRecordsProducedV2(reader_handle=reader)
    return {"first": first, "produced": produced}


_error_case("type_attr_none", lambda tf: tf.raw_ops.Cast(x=[1.0], DstT=None))
_error_case("python_float_for_an_int_input", lambda tf: tf.raw_ops.AddV2(x=tf.constant(1), y=2.5))
