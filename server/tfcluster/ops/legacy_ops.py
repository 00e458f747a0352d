"""TF 1.15's older op types, kept for graphs that name them (tf.raw_ops and imported GraphDefs):
Concat (axis first), Gather (no axis), TopK (k as attr), Reverse (a mask of dims), Inv, Mod,
MaxPoolV2 (window as inputs), UniqueV2, Variable, the Batch* linalg names, ... Each shares the
inference of the newer op it equals where the inputs line up; the others infer here.

TF 1.15's tf.matmul emits BatchMatMulV2 (broadcasting batch dimensions) for batched operands.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry, tensor_util
from tfcluster.framework.graph import Tensor
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import (  # noqa: F401 - their op defs are reused below
    array_ops,
    linalg_ops,
    math_ops,
    nn_ops,
    pooling_ops,
    scatter_ops,
    spectral_ops,
    state_ops,
)
from tfcluster.ops.infer_util import static_ints
from tfcluster.ops.op_util import Outputs, unary_same

# Ops whose inputs, attrs and semantics are exactly a newer op's: the same inference.
_SAME_AS = {
    "Inv": "Reciprocal",
    "InvGrad": "ReciprocalGrad",
    "Mod": "TruncateMod",
    "BiasAddV1": "BiasAdd",
    "Variable": "VariableV2",
    "PlaceholderV2": "Placeholder",
    "ScatterNdNonAliasingAdd": "TensorScatterAdd",
    "ConjugateTranspose": "Transpose",
    "BatchCholesky": "Cholesky",
    "BatchMatrixBandPart": "MatrixBandPart",
    "BatchMatrixDeterminant": "MatrixDeterminant",
    "BatchMatrixDiag": "MatrixDiag",
    "BatchMatrixDiagPart": "MatrixDiagPart",
    "BatchMatrixInverse": "MatrixInverse",
    "BatchMatrixSetDiag": "MatrixSetDiag",
    "BatchMatrixSolve": "MatrixSolve",
    "BatchMatrixSolveLs": "MatrixSolveLs",
    "BatchMatrixTriangularSolve": "MatrixTriangularSolve",
    "BatchSelfAdjointEigV2": "SelfAdjointEigV2",
    "BatchSvd": "Svd",
    "BatchFFT": "FFT",
    "BatchFFT2D": "FFT2D",
    "BatchFFT3D": "FFT3D",
    "BatchIFFT": "IFFT",
    "BatchIFFT2D": "IFFT2D",
    "BatchIFFT3D": "IFFT3D",
}


def _register_same_as() -> None:
    for old, new in _SAME_AS.items():
        base = op_def_registry.lookup(new)
        if base is None:
            raise LookupError(f"{old} shares {new}'s op definition, which is not registered")
        op_def_registry.register(
            old,
            base.infer,
            ref_inputs=sorted(base.ref_inputs),
            ref_outputs=base.ref_outputs,
            stateful=base.stateful,
        )


_register_same_as()


def _infer_of(op_type: str) -> Any:
    op_def = op_def_registry.lookup(op_type)
    assert op_def is not None, op_type
    return op_def.infer


def _rank_error(op: str, want: str, shape: TensorShape) -> ValueError:
    return ValueError(f"Shape must be {want} but is rank {shape.ndims} for '{op}'")


# ---- matmul with broadcast batch dimensions ----------------------------------------------


def _broadcast_dims(a: list[int | None], b: list[int | None], op: str) -> list[int | None]:
    n = max(len(a), len(b))
    one: list[int | None] = [1]
    a = one * (n - len(a)) + a
    b = one * (n - len(b)) + b
    out: list[int | None] = []
    for x, y in zip(a, b):
        if x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x is None or y is None:
            out.append(x if y is None else y)
        elif x != y:
            # Graph.create_op names the node, as TF's broadcasting shape function does.
            raise op_def_registry.NodeShapeError(f"Dimensions must be equal, but are {x} and {y}")
        else:
            out.append(x)
    return out


def _batch_matmul_v2_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    a, b = inputs
    dtype = a.dtype.base_dtype
    for t in (a, b):
        if t.shape.ndims is not None and t.shape.ndims < 2:
            raise _rank_error("BatchMatMulV2", "at least rank 2", t.shape)
    if a.shape.ndims is None or b.shape.ndims is None:
        return [(dtype, TensorShape(None))]
    ad, bd = a.shape.as_list(), b.shape.as_list()
    batch = _broadcast_dims(ad[:-2], bd[:-2], "BatchMatMulV2")
    m, ka = (ad[-1], ad[-2]) if attrs.get("adj_x") else (ad[-2], ad[-1])
    kb, n = (bd[-1], bd[-2]) if attrs.get("adj_y") else (bd[-2], bd[-1])
    if ka is not None and kb is not None and ka != kb:
        raise op_def_registry.NodeShapeError(f"Dimensions must be equal, but are {ka} and {kb}")
    return [(dtype, TensorShape([*batch, m, n]))]


# ---- array ops with older input layouts ----------------------------------------------------


def _concat_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    # Concat takes the axis first; ConcatV2 last.
    return _infer_of("ConcatV2")([*inputs[1:], inputs[0]], attrs)  # type: ignore[no-any-return]


def _gather_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    params, indices = inputs
    dtype = params.dtype.base_dtype
    if params.shape.ndims == 0:
        raise _rank_error("Gather", "at least rank 1", params.shape)
    if params.shape.ndims is None or indices.shape.ndims is None:
        return [(dtype, TensorShape(None))]
    return [(dtype, TensorShape(indices.shape.as_list() + params.shape.as_list()[1:]))]


def _top_k_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x = inputs[0]
    k = int(attrs["k"])
    if k < 0:
        raise ValueError(f"Need k >= 0, got {k}")
    if x.shape.ndims is None:
        shape = TensorShape(None)
    else:
        if x.shape.ndims < 1:
            raise _rank_error("TopK", "at least rank 1", x.shape)
        last = x.shape.as_list()[-1]
        if last is not None and last < k:
            raise ValueError(f"input must have last dimension >= k = {k} but is {last}")
        shape = TensorShape([*x.shape.as_list()[:-1], k])
    return [(x.dtype.base_dtype, shape), (dtypes.int32, shape)]


def _tile_grad_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x = inputs[0]
    rank = x.shape.ndims
    return [(x.dtype.base_dtype, TensorShape(None if rank is None else [None] * rank))]


def _unique_v2_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x = inputs[0]
    idx = attrs.get("out_idx", dtypes.int32)
    # TF 1.15's shape function: y a vector whatever the axis, idx shaped as x.
    return [(x.dtype.base_dtype, TensorShape([None])), (idx, x.shape)]


def _unique_with_counts_v2_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    out = _unique_v2_infer(inputs, attrs)
    return [*out, (attrs.get("out_idx", dtypes.int32), TensorShape([None]))]


def _empty_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    shape = tensor_util.constant_value_as_shape(inputs[0])
    return [(attrs["dtype"], shape)]


def _bool_like_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.bool_, inputs[0].shape)]


def _uint8_like_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.uint8, inputs[0].shape)]


def _bitpack_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x, threshold = inputs
    if threshold.shape.ndims not in (None, 0):
        raise _rank_error("CompareAndBitpack", "rank 0", threshold.shape)
    if x.shape.ndims is None:
        return [(dtypes.uint8, TensorShape(None))]
    if x.shape.ndims < 1:
        raise _rank_error("CompareAndBitpack", "at least rank 1", x.shape)
    dims = x.shape.as_list()
    last = dims[-1]
    if last is not None and last % 8:
        raise ValueError(
            f"CompareAndBitpack: inner dimension of input must be divisible by 8, but saw "
            f"shape: {x.shape}"
        )
    return [(dtypes.uint8, TensorShape([*dims[:-1], None if last is None else last // 8]))]


def _nth_element_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x, n = inputs
    if n.shape.ndims not in (None, 0):
        raise _rank_error("NthElement", "rank 0", n.shape)
    if x.shape.ndims is None:
        return [(x.dtype.base_dtype, TensorShape(None))]
    if x.shape.ndims < 1:
        raise _rank_error("NthElement", "at least rank 1", x.shape)
    return [(x.dtype.base_dtype, TensorShape(x.shape.as_list()[:-1]))]


def _string_scalar_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.string, TensorShape([]))]


def _sparse_dense_cwise_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [
        (
            inputs[1].dtype.base_dtype,
            TensorShape([inputs[1].shape.as_list()[0]] if inputs[1].shape.ndims == 1 else [None]),
        )
    ]


def _decode_padded_raw_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    data, length = inputs
    out_type = attrs["out_type"]
    fixed = static_ints(length)
    inner = None if not fixed else fixed[0] // out_type.size
    base = data.shape.as_list() if data.shape.ndims is not None else None
    return [(out_type, TensorShape(None if base is None else [*base, inner]))]


def _self_adjoint_eig_v1_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x = inputs[0]
    if x.shape.ndims is None:
        return [(x.dtype.base_dtype, TensorShape(None))]
    dims = x.shape.as_list()
    n = dims[-1]
    return [(x.dtype.base_dtype, TensorShape([*dims[:-2], None if n is None else n + 1, n]))]


def _like_input(index: int) -> Any:
    def infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
        return [(attrs["T"], inputs[index].shape)]

    return infer


def _max_pool_v2_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x, ksize, strides = inputs
    k, s = static_ints(ksize), static_ints(strides)
    if k is None or s is None:
        return [(x.dtype.base_dtype, TensorShape(None))]
    window = {**attrs, "ksize": k, "strides": s}
    return _infer_of("MaxPool")([x], window)  # type: ignore[no-any-return]


def _ref_like_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(inputs[0].dtype.base_dtype._as_ref, inputs[0].shape)]


def _ref_select_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    refs = inputs[1:]
    shape = refs[0].shape
    for r in refs[1:]:
        if not r.shape.is_compatible_with(shape):
            shape = TensorShape(None)
    return [(refs[0].dtype.base_dtype._as_ref, shape)]


def _temporary_variable_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(attrs["dtype"]._as_ref, TensorShape(attrs["shape"]))]


def _value_of_ref_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(inputs[0].dtype.base_dtype, inputs[0].shape)]


def _conv3d_backprop_infer(index: int) -> Any:
    def infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
        return [(inputs[0].dtype.base_dtype, inputs[index].shape)]

    return infer


def _fused_pad_conv_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    """Conv2D's shape of the padded (and resized) input."""
    x, paddings, filt = inputs[0], inputs[-2], inputs[-1]
    dtype = x.dtype.base_dtype
    unknown: list[int | None] = [None] * 4
    dims: list[int | None] = x.shape.as_list() if x.shape.ndims == 4 else unknown
    if len(inputs) == 4:
        size = static_ints(inputs[1])
        dims[1:3] = [size[0], size[1]] if size is not None else [None, None]
    pads = tensor_util.constant_value(paddings)
    k: list[int | None] = filt.shape.as_list() if filt.shape.ndims == 4 else list(unknown)
    strides = [int(v) for v in attrs["strides"]]
    out = [dims[0], None, None, k[3]]
    for i in (1, 2):
        d, kd = dims[i], k[i - 1]
        if d is None or pads is None or kd is None:
            continue
        d += int(pads[i][0]) + int(pads[i][1])
        if attrs["padding"] == "VALID":
            out[i] = (d - kd + strides[i]) // strides[i]
        else:
            out[i] = (d + strides[i] - 1) // strides[i]
    return [(dtype, TensorShape(out))]


def _batch_norm_global_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(inputs[0].dtype.base_dtype, inputs[0].shape)]


def _batch_norm_global_grad_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x, m = inputs[0], inputs[1]
    dtype = x.dtype.base_dtype
    return [
        (dtype, x.shape),
        (dtype, m.shape),
        (dtype, m.shape),
        (dtype, m.shape),
        (dtype, m.shape),
    ]


op_def_registry.register("BatchMatMulV2", _batch_matmul_v2_infer)
op_def_registry.register("Concat", _concat_infer)
op_def_registry.register("Gather", _gather_infer)
op_def_registry.register("TopK", _top_k_infer)
op_def_registry.register("TileGrad", _tile_grad_infer)
op_def_registry.register("UniqueV2", _unique_v2_infer)
op_def_registry.register("UniqueWithCountsV2", _unique_with_counts_v2_infer)
op_def_registry.register("Empty", _empty_infer, stateful=True)
op_def_registry.register("ApproximateEqual", _bool_like_infer)
op_def_registry.register("PopulationCount", _uint8_like_infer)
op_def_registry.register("CompareAndBitpack", _bitpack_infer)
op_def_registry.register("NthElement", _nth_element_infer)
op_def_registry.register("ShardedFilespec", _string_scalar_infer)
op_def_registry.register("DecodePaddedRaw", _decode_padded_raw_infer)
op_def_registry.register("SelfAdjointEig", _self_adjoint_eig_v1_infer)
op_def_registry.register("BatchSelfAdjointEig", _self_adjoint_eig_v1_infer)
op_def_registry.register("BatchCholeskyGrad", unary_same)
op_def_registry.register("MaxPoolV2", _max_pool_v2_infer)
op_def_registry.register("MaxPoolGradV2", _like_input(0))
op_def_registry.register("MaxPoolGradGradV2", _like_input(1))
op_def_registry.register("Conv3DBackpropInput", _conv3d_backprop_infer(0))
op_def_registry.register("Conv3DBackpropFilter", _conv3d_backprop_infer(1))
op_def_registry.register("FusedPadConv2D", _fused_pad_conv_infer)
op_def_registry.register("FusedResizeAndPadConv2D", _fused_pad_conv_infer)
op_def_registry.register("BatchNormWithGlobalNormalization", _batch_norm_global_infer)
op_def_registry.register("BatchNormWithGlobalNormalizationGrad", _batch_norm_global_grad_infer)
for _op in (
    "Reverse",
    "ClipByValue",
    "CholeskyGrad",
    "DataFormatDimMap",
    "DataFormatVecPermute",
    "Snapshot",
    "DeepCopy",
    "DebugGradientIdentity",
    "InplaceAdd",
    "InplaceSub",
    "InplaceUpdate",
    "TensorStridedSliceUpdate",
):
    op_def_registry.register(_op, unary_same)
for _op in ("SparseDenseCwiseAdd", "SparseDenseCwiseDiv", "SparseDenseCwiseMul"):
    op_def_registry.register(_op, _sparse_dense_cwise_infer)
op_def_registry.register("RefIdentity", _ref_like_infer, ref_inputs=[0], ref_outputs=True)
op_def_registry.register(
    "DebugGradientRefIdentity", _ref_like_infer, ref_inputs=[0], ref_outputs=True
)
op_def_registry.register(
    "StridedSliceAssign", _ref_like_infer, ref_inputs=[0], ref_outputs=True, stateful=True
)
op_def_registry.register(
    "TemporaryVariable", _temporary_variable_infer, ref_outputs=True, stateful=True
)
op_def_registry.register(
    "DestroyTemporaryVariable", _value_of_ref_infer, ref_inputs=[0], stateful=True
)
op_def_registry.register("Abort", op_def_registry.no_outputs, stateful=True)
# RefSelect forwards one of N references: every input after the index may be one.
op_def_registry.register(
    "RefSelect", _ref_select_infer, ref_inputs=range(1, 1025), ref_outputs=True
)


def _deserialize_sparse_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    serialized = inputs[0].shape
    if serialized.ndims is not None:
        last = serialized.as_list()[-1] if serialized.ndims else None
        if serialized.ndims == 0 or last not in (None, 3):
            raise ValueError(
                f"Shape must be [...,3] for serialized sparse tensors, got {serialized}"
            )
    return [
        (dtypes.int64, TensorShape([None, None])),
        (attrs["dtype"], TensorShape([None])),
        (dtypes.int64, TensorShape([None])),
    ]


def _float_like_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.float32, inputs[0].shape)]


def _stateful_normal_v1_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(attrs.get("dtype", dtypes.float32), tensor_util.constant_value_as_shape(inputs[1]))]


op_def_registry.register("DeserializeSparse", _deserialize_sparse_infer)
op_def_registry.register("AdjustContrast", _float_like_infer)
# Removed from TF 1.15's GraphDef version: defined so tf.raw_ops raises as TF's does; TF's
# random crop and first stateful normal draw from its own generators (no kernel here).
op_def_registry.register("RandomCrop", unary_same, stateful=True)
op_def_registry.register("StatefulStandardNormal", _stateful_normal_v1_infer, stateful=True)
