"""Gradient values of the ops whose gradient table entry follows TF 1.15's
(tests/unit/test_gradient_registry_parity.py), and of common ops without a gradient value
test elsewhere, run on TensorFlow 1.15 by record_gradient_values.py and on tfcluster by
tests/unit/test_tf_reference_gradient_values.py: values, gradients (their dtypes, shapes,
and None where TF gives None: no "grad:" key) and the error class where TF has no gradient."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

try:
    from casebook import Book, Build, values
except ImportError:  # imported as tf_reference.cases_gradient_values by the tests
    from tf_reference.casebook import Book, Build, values

BOOK = Book()


def case(name: str, inputs: dict[str, Any], **options: Any) -> Callable[[Build], Build]:
    """A case whose output "y" is differentiated with respect to every input, in order."""
    return BOOK.add(name, inputs, grad=("y", tuple(inputs)), **options)


def floats(shape: tuple[int, ...], low: float = -1.0, high: float = 1.0, seed: int = 0) -> Any:
    """The casebook's values as float32."""
    return values(shape, low=low, high=high, seed=seed).astype(np.float32)


X = floats((3, 4), low=-2.0, high=2.0, seed=60)
POS = floats((3, 4), low=0.2, high=1.8, seed=61)
UNIT = floats((3, 4), low=-0.9, high=0.9, seed=62)
X64 = values((2, 3), low=-1.5, high=1.5, seed=63)
SQ = (values((3, 3), seed=64) + 3.0 * np.eye(3)).astype(np.float64)


# ---- ops whose TF 1.15 gradient is a function giving None ----------------------------------
@case("rounding_ops_pass_no_gradient", {"x": X})
def _rounding(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    x = t["x"]
    y = tf.floor(x) * x + tf.ceil(x) + tf.round(x) + tf.floordiv(x, 0.7)
    return {"y": y}


@case("argmax_argmin_pass_no_gradient", {"x": X})
def _argmax(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    x = t["x"]
    idx = tf.cast(tf.argmax(x, 1), tf.float32) + tf.cast(tf.argmin(x, 1), tf.float32)
    return {"y": tf.reduce_sum(x, 1) * idx}


@case("argmax_alone_has_none", {"x": X})
def _argmax_alone(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.cast(tf.argmax(t["x"], 0), tf.float32)}


@case("nextafter_gradient_broadcasts", {"a": X[:, :1], "b": X[0]})
def _nextafter(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.math.nextafter(t["a"], t["b"])}


@case("optional_value_gradient", {"x": X, "z": X64})
def _optional(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    opt = tf.data.experimental.Optional.from_value((t["x"] * 2.0, t["z"]))
    a, b = opt.get_value()
    return {"y": a * 3.0 + tf.cast(tf.reduce_sum(b * b), tf.float32)}


# ---- not differentiable in TF 1.15: None ----------------------------------------------------
@case("euclidean_norm_has_no_gradient", {"x": X})
def _eucl(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    x = t["x"]
    return {"y": tf.math.reduce_euclidean_norm(x, axis=1) + tf.reduce_sum(x, 1)}


@case("where_after_a_comparison_is_not_between", {"x": X})
def _where(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    x = t["x"]
    return {"y": tf.cast(tf.where(x > 0.0), tf.float32)}


@case("is_finite_mask_keeps_the_product_gradient", {"x": X})
def _is_finite(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    x = t["x"]
    return {"y": x * tf.cast(tf.is_finite(x), tf.float32) + tf.cast(tf.is_nan(x), tf.float32)}


# ---- no gradient in TF 1.15's table: LookupError -------------------------------------------
@case("segment_prod_gradient_is_not_registered", {"x": X})
def _segment_prod(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.math.segment_prod(t["x"], tf.constant([0, 0, 1]))}


@case("truncatemod_gradient_is_not_registered", {"x": POS})
def _truncatemod(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.truncatemod(t["x"], 0.5)}


@case("sparse_reduce_max_gradient_is_not_registered", {"v": X[0]})
def _sparse_reduce_max(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    sp = tf.SparseTensor([[0, 0], [0, 2], [1, 1], [2, 3]], t["v"], [3, 4])
    return {"y": tf.sparse_reduce_max(sp, axis=1)}


# ---- common ops: values and gradients -------------------------------------------------------
_UNARY = {
    "tanh": ("tanh", X),
    "sigmoid": ("sigmoid", X),
    "softplus": ("nn.softplus", X),
    "softsign": ("nn.softsign", X),
    "elu": ("nn.elu", X),
    "selu": ("nn.selu", X),
    "relu6": ("nn.relu6", X * 4.0),
    "rsqrt": ("rsqrt", POS),
    "reciprocal": ("reciprocal", POS),
    "log1p": ("log1p", POS),
    "expm1": ("expm1", X),
    "lgamma": ("lgamma", POS),
    "digamma": ("digamma", POS),
    "erf": ("erf", X),
    "erfc": ("erfc", X),
    "asin": ("asin", UNIT),
    "acos": ("acos", UNIT),
    "atan": ("atan", X),
    "asinh": ("asinh", X),
    "acosh": ("acosh", POS + 1.0),
    "atanh": ("atanh", UNIT),
    "sinh": ("sinh", X),
    "cosh": ("cosh", X),
    "tan": ("tan", UNIT),
    "square": ("square", X),
    "abs": ("abs", X),
    "sign": ("sign", X),
    "bessel_i0e": ("math.bessel_i0e", X),
    "bessel_i1e": ("math.bessel_i1e", X),
}


def _resolve(tf: Any, path: str) -> Any:
    fn = tf
    for part in path.split("."):
        fn = getattr(fn, part)
    return fn


def _unary_case(name: str, path: str, x: np.ndarray) -> None:
    @case(f"{name}_gradient", {"x": x}, rtol=1e-4, atol=1e-5)
    def _build(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
        return {"y": _resolve(tf, path)(t["x"])}


for _name, (_path, _x) in _UNARY.items():
    _unary_case(_name, _path, _x)


@case("leaky_relu_gradient", {"x": X})
def _leaky(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.nn.leaky_relu(t["x"], alpha=0.3)}


@case("binary_math_gradients", {"a": POS, "b": POS[0]}, rtol=1e-4)
def _binary(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    a, b = t["a"], t["b"]
    y = (
        tf.pow(a, b)
        + tf.squared_difference(a, b)
        + tf.math.xdivy(a, b)
        + tf.math.xlogy(a, b)
        + tf.maximum(a, b)
        - tf.minimum(a, b)
        + tf.floormod(a, b) * 0.0
        + tf.div_no_nan(a, b)
    )
    return {"y": y}


@case("atan2_gradient", {"a": X, "b": POS}, rtol=1e-4)
def _atan2(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.atan2(t["a"], t["b"])}


# TF 1.15's Atan2 gradient does not sum over broadcast dimensions: tf.gradients raises.
@case("atan2_broadcast_gradient_raises", {"a": X, "b": POS[0]})
def _atan2_broadcast(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.atan2(t["a"], t["b"])}


@case("reductions_gradients", {"x": POS}, rtol=1e-4)
def _reductions(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    x = t["x"]
    y = (
        tf.reduce_prod(x, 1)
        + tf.reduce_max(x, 1)
        + tf.reduce_min(x, 1)
        + tf.reduce_mean(x, 1)
        + tf.reduce_logsumexp(x, 1)
        + tf.reduce_sum(tf.cumsum(x, 1, exclusive=True, reverse=True), 1)
        + tf.reduce_sum(tf.cumprod(x, 1, exclusive=True), 1)
    )
    return {"y": y}


@case("array_reshaping_gradients", {"x": X})
def _arrays(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    x = t["x"]
    parts = tf.split(x, [1, 3], axis=1)
    y = (
        tf.reduce_sum(tf.tile(x, [2, 1]), 0)
        + tf.reduce_sum(tf.pad(x, [[1, 0], [0, 0]], mode="REFLECT"), 0)
        + tf.reverse(x, [1])[0]
        + tf.reduce_sum(tf.transpose(x) * tf.transpose(x), 1)
        + tf.reduce_sum(x[1:, ::2], 0)[0]
        + tf.concat([parts[1], parts[0]], 1)[2]
        + tf.stack(tf.unstack(x, axis=0), 1)[:, 0]
        + tf.gather(x, [2, 0, 2])[1]
        + tf.gather_nd(x, [[0, 1], [2, 3], [0, 1], [1, 0]])
        + tf.reduce_sum(tf.broadcast_to(x[:1], [3, 4]), 0)
        + tf.reduce_sum(tf.matrix_band_part(x, 0, 1), 0)
    )
    return {"y": y}


@case(
    "diag_and_depth_gradients",
    {"x": floats((1, 2, 2, 4), seed=65)},
)
def _depth(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    x = t["x"]
    d2s = tf.depth_to_space(x, 2)
    s2d = tf.space_to_depth(d2s * d2s, 2)
    m = tf.reshape(x, [2, 2, 4])[:, :, :2]
    diag = tf.matrix_diag(tf.matrix_diag_part(m)) + tf.matrix_set_diag(m, tf.ones([2, 2]))
    return {"y": tf.reduce_sum(s2d) + tf.reduce_sum(diag * m)}


@case("nn_gradients", {"x": X, "b": X[0]}, rtol=1e-4)
def _nn(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    x, b = t["x"], t["b"]
    z = tf.nn.bias_add(x, b)
    y = (
        tf.nn.softmax(z) * z
        + tf.nn.log_softmax(z)
        + tf.nn.l2_loss(x)
        + tf.nn.l2_normalize(z, 1)
        + tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.sigmoid(b) + 0.0 * x, logits=z)
    )
    return {"y": y}


@case("linalg_gradients", {"a": SQ, "b": X64.T}, rtol=1e-4)
def _linalg(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    a, b = t["a"], t["b"]
    spd = tf.matmul(a, a, transpose_b=True)
    y = (
        tf.matmul(tf.matrix_inverse(a), b)
        + tf.matrix_solve(a, b, adjoint=True)
        + tf.matrix_triangular_solve(spd, b, lower=True)
        + tf.matmul(tf.cholesky(spd), b)
        + tf.matrix_determinant(a) * b
        + tf.reduce_sum(tf.self_adjoint_eigvals(spd)) * b
        + tf.reduce_sum(tf.svd(a, compute_uv=False)) * b
        + tf.reduce_sum(tf.abs(tf.qr(a)[1])) * b
        + tf.log(tf.matrix_determinant(spd)) * b
    )
    return {"y": y}


@case(
    "pooling_and_conv_gradients",
    {"x": floats((1, 4, 4, 2), seed=66), "w": floats((2, 2, 2, 3), seed=67)},
    rtol=1e-4,
)
def _conv(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    x, w = t["x"], t["w"]
    c = tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME")
    dw = tf.nn.depthwise_conv2d(x, w[:, :, :, :1], [1, 1, 1, 1], "VALID")
    y = (
        tf.reduce_sum(tf.nn.max_pool(c, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"))
        + tf.reduce_sum(tf.nn.avg_pool(c, [1, 3, 3, 1], [1, 1, 1, 1], "SAME"))
        + tf.reduce_sum(tf.nn.lrn(c, 2) * c)
        + tf.reduce_sum(dw * dw)
    )
    return {"y": y}


@case(
    "fused_batch_norm_gradients",
    {"x": floats((2, 2, 2, 3), seed=68), "s": POS[0, :3], "o": X[1, :3]},
    rtol=1e-4,
    atol=1e-5,
)
def _bn(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    y, _, _ = tf.nn.fused_batch_norm(t["x"], t["s"], t["o"], is_training=True)
    return {"y": y * t["x"]}


@case("cast_to_int_and_back_has_no_gradient", {"x": X})
def _cast_int(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.cast(tf.cast(t["x"] * 3.0, tf.int32), tf.float32)}


@case("float64_cast_gradient_keeps_the_input_dtype", {"x": X})
def _cast64(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.cast(t["x"], tf.float64) * 2.0}


@case(
    "rgb_to_hsv_gradient",
    {"x": floats((2, 3, 3), low=0.05, high=0.95, seed=69)},
    rtol=1e-4,
    atol=1e-5,
)
def _rgb_to_hsv(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.image.rgb_to_hsv(t["x"])}


# TF 1.15 registers a gradient for SparseSparseMaximum/Minimum that raises.
@case("sparse_maximum_gradient_raises", {"v": X[0]})
def _sparse_maximum(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    a = tf.SparseTensor([[0, 0], [0, 2], [1, 1], [2, 3]], t["v"], [3, 4])
    b = tf.SparseTensor([[0, 0], [1, 1]], tf.constant([0.5, -0.5]), [3, 4])
    return {"y": tf.sparse_maximum(a, b).values}


# ---- TensorList gradients (through tf.raw_ops, the same on both) --------------------------
LX = floats((3, 4), seed=70)


@case("tensor_list_from_tensor_set_get_stack", {"x": LX})
def _list_items(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    r = tf.raw_ops
    x = t["x"]
    lst = r.TensorListFromTensor(tensor=x, element_shape=[4])
    changed = r.TensorListSetItem(input_handle=lst, index=1, item=x[0] * 2.0)
    stacked = r.TensorListStack(input_handle=changed, element_shape=[4], element_dtype=tf.float32)
    item = r.TensorListGetItem(
        input_handle=lst, index=2, element_shape=[4], element_dtype=tf.float32
    )
    return {"y": stacked * 1.5 + item}


@case("tensor_list_push_pop", {"x": LX})
def _list_push_pop(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    r = tf.raw_ops
    x = t["x"]
    lst = r.EmptyTensorList(element_shape=[4], max_num_elements=-1, element_dtype=tf.float32)
    lst = r.TensorListPushBack(input_handle=lst, tensor=x[0])
    lst = r.TensorListPushBack(input_handle=lst, tensor=x[1] * 3.0)
    lst = r.TensorListPushBack(input_handle=lst, tensor=x[2] * x[2])
    lst, last = r.TensorListPopBack(input_handle=lst, element_shape=[4], element_dtype=tf.float32)
    stacked = r.TensorListStack(input_handle=lst, element_shape=[4], element_dtype=tf.float32)
    return {"y": stacked * last}


@case("tensor_list_split_concat", {"x": LX})
def _list_split_concat(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    r = tf.raw_ops
    x = t["x"]
    lst = r.TensorListSplit(
        tensor=x * x, element_shape=[-1, 4], lengths=tf.constant([1, 2], tf.int64)
    )
    out, lengths = r.TensorListConcatV2(
        input_handle=lst,
        element_shape=[-1, 4],
        leading_dims=tf.constant([], tf.int64),
        element_dtype=tf.float32,
    )
    return {"y": out * 2.0, "lengths": lengths}


@case("tensor_list_scatter_gather_resize", {"x": LX})
def _list_scatter_gather(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    r = tf.raw_ops
    x = t["x"]
    lst = r.TensorListScatterV2(tensor=x, indices=[2, 0, 1], element_shape=[4], num_elements=3)
    gathered = r.TensorListGather(
        input_handle=lst, indices=[0, 2], element_shape=[4], element_dtype=tf.float32
    )
    into = r.TensorListScatterIntoExistingList(input_handle=lst, tensor=x[:2] * 2.0, indices=[1, 2])
    short = r.TensorListResize(input_handle=into, size=2)
    stacked = r.TensorListStack(input_handle=short, element_shape=[4], element_dtype=tf.float32)
    return {"y": tf.concat([gathered * 3.0, stacked], 0)}


# ---- second order through fused batch norm (the gradient of FusedBatchNormGrad) ------------
BN_X = floats((2, 2, 3, 3), seed=71)


def _bn_second_order(tf: Any, t: dict[str, Any], training: bool) -> dict[str, Any]:
    x, s, o = t["x"], t["s"], t["o"]
    mean = tf.constant([0.1, -0.2, 0.3]) if not training else None
    var = tf.constant([0.5, 1.5, 0.8]) if not training else None
    y, _, _ = tf.nn.fused_batch_norm(x, s, o, mean=mean, variance=var, is_training=training)
    w = tf.reshape(tf.cast(tf.range(tf.size(y)) % 5, tf.float32), tf.shape(y)) - 2.0
    gx, gs, go = tf.gradients(tf.reduce_sum(y * w), [x, s, o])
    return {"y": tf.reduce_sum(gx * gx * x) + tf.reduce_sum(gs * gs) + tf.reduce_sum(go * s)}


for _training in (True, False):

    @case(
        f"fused_batch_norm_second_order_{'training' if _training else 'inference'}",
        {"x": BN_X, "s": POS[0, :3], "o": X[1, :3]},
        rtol=1e-3,
        atol=1e-4,
        names=False,
    )
    def _bn2(tf: Any, t: dict[str, Any], training: bool = _training) -> dict[str, Any]:
        return _bn_second_order(tf, t, training)


# ---- Batch / Unbatch: no gradient until tf.contrib.batching is loaded (LookupError) --------
@case("batch_unbatch_gradient_is_not_registered", {"x": X[:2, :3]})
def _batch_unbatch(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    r = tf.raw_ops
    batched, index, batch_id = r.Batch(
        in_tensors=[t["x"] * 2.0],
        num_batch_threads=1,
        max_batch_size=4,
        batch_timeout_micros=1000,
        grad_timeout_micros=1000000,
        shared_name="batch",
    )
    y = r.Unbatch(
        batched_tensor=batched[0] * batched[0],
        batch_index=index,
        id=batch_id,
        timeout_micros=1000000,
        shared_name="unbatch",
    )
    return {"y": y}


# ---- more common ops -------------------------------------------------------------------------
@case(
    "cross_entropy_gradients_reach_labels_and_logits",
    {"x": X, "l": UNIT},
    rtol=1e-4,
)
def _xent(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    x, lab = t["x"], tf.nn.softmax(t["l"])
    y = (
        tf.nn.softmax_cross_entropy_with_logits_v2(labels=lab, logits=x)
        + tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[1, 0, 3], logits=x * 2.0)
        + tf.losses.log_loss(tf.sigmoid(t["l"]), tf.sigmoid(x))
    )
    return {"y": y}


@case("selection_and_clipping_gradients", {"x": X, "z": POS})
def _select(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    x, z = t["x"], t["z"]
    y = (
        tf.where(x > 0.0, x * z, z * 3.0)
        + tf.clip_by_value(x, -0.5, 0.7)
        + tf.clip_by_norm(z, 1.0)
        + tf.sqrt(z) * tf.exp(x * 0.3)
        + tf.log(z)
    )
    return {"y": y}


@case("partition_stitch_segment_gradients", {"x": X})
def _partition(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    x = t["x"]
    parts = tf.dynamic_partition(x, [1, 0, 1], 2)
    stitched = tf.dynamic_stitch([[1], [0, 2]], [parts[0] * 2.0, parts[1]])
    seg = tf.unsorted_segment_sum(x * x, [1, 1, 0], 2)
    return {"y": tf.concat([stitched, seg], 0)}


@case("embedding_lookup_gradient_is_dense_on_fetch", {"x": X})
def _embedding(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.nn.embedding_lookup(t["x"] * 1.0, [2, 0, 2]) * 2.0}


@case("sort_topk_moments_gradients", {"x": X}, rtol=1e-4)
def _sort(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    x = t["x"]
    mean, var = tf.nn.moments(x, [0])
    y = tf.nn.top_k(x, 2).values[:, 0] + tf.reduce_sum(tf.sort(x, direction="DESCENDING")[:, :1], 1)
    return {"y": tf.concat([y, mean, var], 0)}


@case(
    "batch_matmul_norm_gradients",
    {"a": floats((2, 3, 4), seed=72), "b": floats((2, 4, 2), seed=73)},
    rtol=1e-4,
)
def _bmm(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    a, b = t["a"], t["b"]
    y = (
        tf.matmul(a, b)
        + tf.norm(a, axis=[-2, -1])[:, None, None]
        + tf.reduce_sum(tf.squeeze(tf.expand_dims(b, 0)))
    )
    return {"y": y}


@case(
    "image_resize_and_transpose_conv_gradients",
    {"x": floats((1, 3, 3, 2), seed=74), "w": floats((2, 2, 2, 2), seed=75)},
    rtol=1e-4,
)
def _resize(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    x, w = t["x"], t["w"]
    up = (
        tf.image.resize_bilinear(x, [5, 5]) + tf.image.resize_nearest_neighbor(x, [6, 6])[:, :5, :5]
    )
    tr = tf.nn.conv2d_transpose(x, w, [1, 6, 6, 2], [1, 2, 2, 1], "SAME")
    pooled, _ = tf.nn.max_pool_with_argmax(tr, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    return {"y": tf.reduce_sum(up * up) + tf.reduce_sum(pooled)}


# ---- conventions at ties, zeros and boundaries ---------------------------------------------
EDGE = np.array([[0.0, 1.0, 1.0, -2.0], [3.0, 3.0, 0.0, 0.5], [-1.0, 0.0, 2.0, 2.0]], np.float32)


@case("gradients_at_ties_and_zeros", {"x": EDGE})
def _ties(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    x = t["x"]
    y = (
        tf.reduce_sum(tf.nn.relu(x) + tf.nn.relu6(x * 3.0) + tf.abs(x) + tf.sign(x), 1)
        + tf.reduce_max(x, 1)
        + tf.reduce_min(x, 1)
        + tf.reduce_sum(tf.maximum(x, 1.0) + tf.minimum(x, 0.0), 1)
        + tf.reduce_sum(tf.clip_by_value(x, 0.0, 2.0), 1)
        + tf.reduce_prod(x, 1)
        + tf.reduce_sum(tf.cumprod(x, 1), 1)
        + tf.reduce_sum(tf.nn.elu(x) + tf.nn.leaky_relu(x) + tf.nn.selu(x), 1)
    )
    return {"y": y}


@case("gradients_at_ties_in_pools_and_segments", {"x": EDGE})
def _pool_ties(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    x = t["x"]
    img = tf.reshape(x, [1, 3, 4, 1])
    pooled = tf.nn.max_pool(img, [1, 1, 2, 1], [1, 1, 2, 1], "VALID")
    seg = tf.math.segment_max(x, [0, 0, 1]) + tf.math.unsorted_segment_min(x, [1, 0, 1], 2)
    return {"y": tf.concat([tf.reshape(pooled, [3, 2]), seg[:, :2] * 2.0], 0)}


@case(
    "gradients_of_safe_divisions_at_zero",
    {"x": EDGE, "z": EDGE[::-1].copy()},
)
def _safe(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    x, z = t["x"], t["z"]
    y = (
        tf.div_no_nan(x, z)
        + tf.math.xlogy(x, tf.abs(z) + 1.0)
        + tf.math.xdivy(x, tf.abs(z) + 1.0)
        + tf.math.multiply_no_nan(x, z)
        + tf.pow(tf.abs(x), 2.0)
    )
    return {"y": y}


@case("pow_gradient_at_a_zero_base", {"x": EDGE, "p": POS})
def _pow0(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.pow(tf.abs(t["x"]), t["p"] + 1.0)}


@case("sqrt_and_norm_gradients_at_zero", {"x": EDGE})
def _sqrt0(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    x = t["x"]
    return {"y": tf.sqrt(tf.abs(x)) + tf.norm(x, axis=1, keepdims=True) + tf.rsqrt(tf.abs(x) + 1.0)}
