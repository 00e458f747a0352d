"""TF's CudnnRNN ops (gen_cudnn_rnn_ops): the fused multi-layer RNN (LSTM, GRU, relu/tanh
RNN; uni- or bidirectional) over one opaque parameter buffer, its backprop, and the
conversions between the buffer and cuDNN's canonical weights and biases. Kernels:
kernels/cudnn_rnn.py (the buffer's layout is described there)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import make_op

_RNN_ATTRS = ("rnn_mode", "input_mode", "direction", "dropout", "seed", "seed2")


def _rnn_attrs(dtype: Any, kwargs: dict[str, Any], extra: Sequence[str] = ()) -> dict[str, Any]:
    attrs: dict[str, Any] = {
        "T": dtype,
        "rnn_mode": kwargs.get("rnn_mode", "lstm"),
        "input_mode": kwargs.get("input_mode", "linear_input"),
        "direction": kwargs.get("direction", "unidirectional"),
        "dropout": float(kwargs.get("dropout", 0.0)),
        "seed": int(kwargs.get("seed", 0)),
        "seed2": int(kwargs.get("seed2", 0)),
    }
    defaults = {"is_training": True, "num_proj": 0, "time_major": True}
    for name in extra:
        attrs[name] = kwargs.get(name, defaults[name])
    return attrs


def _tensors(*values: Any, dtype: Any = None) -> list[Tensor]:
    first = convert_to_tensor(values[0], dtype=dtype)
    return [first] + [convert_to_tensor(v, dtype=first.dtype) for v in values[1:]]


def _sizes(num_layers: Any, num_units: Any, input_size: Any) -> list[Tensor]:
    return [convert_to_tensor(v, dtype=dtypes.int32) for v in (num_layers, num_units, input_size)]


def _forward(
    op_type: str,
    rnn_inputs: Sequence[Any],
    extra: Sequence[str],
    kwargs: dict[str, Any],
    name: str | None,
    lengths: Any = None,
) -> tuple[Tensor, ...]:
    """A CudnnRNN/V2/V3 node: input, input_h, input_c and params of one dtype (plus V3's int32
    sequence lengths), the shared RNN attrs and the version's `extra` ones."""
    ts = _tensors(*rnn_inputs)
    if lengths is not None:
        ts.append(convert_to_tensor(lengths, dtype=dtypes.int32))
    attrs = _rnn_attrs(ts[0].dtype.base_dtype, kwargs, extra)
    return tuple(make_op(op_type, ts, attrs, name=name or op_type).outputs)


def _conversion(
    op_type: str,
    inputs: list[Tensor],
    dtype: Any,
    counts: dict[str, int],
    extra: Sequence[str],
    kwargs: dict[str, Any],
    name: str | None,
) -> Any:
    """A params <-> canonical conversion node: the sizes, the tensors, the shared RNN attrs
    and the version's parameter counts."""
    attrs = {**_rnn_attrs(dtype, kwargs, extra), **counts}
    return make_op(op_type, inputs, attrs, name=name or op_type)


def cudnn_rnn(
    input: Any,
    input_h: Any,
    input_c: Any,
    params: Any,
    name: str | None = None,
    **kwargs: Any,
) -> tuple[Tensor, ...]:
    return _forward("CudnnRNN", (input, input_h, input_c, params), ("is_training",), kwargs, name)


def cudnn_rnnv2(
    input: Any,
    input_h: Any,
    input_c: Any,
    params: Any,
    name: str | None = None,
    **kwargs: Any,
) -> tuple[Tensor, ...]:
    rnn_inputs = (input, input_h, input_c, params)
    return _forward("CudnnRNNV2", rnn_inputs, ("is_training",), kwargs, name)


def cudnn_rnnv3(
    input: Any,
    input_h: Any,
    input_c: Any,
    params: Any,
    sequence_lengths: Any,
    name: str | None = None,
    **kwargs: Any,
) -> tuple[Tensor, ...]:
    rnn_inputs = (input, input_h, input_c, params)
    extra = ("num_proj", "is_training", "time_major")
    return _forward("CudnnRNNV3", rnn_inputs, extra, kwargs, name, lengths=sequence_lengths)


def cudnn_rnn_params_size(
    num_layers: Any,
    num_units: Any,
    input_size: Any,
    T: Any,
    S: Any,
    name: str | None = None,
    **kwargs: Any,
) -> Tensor:
    ins = _sizes(num_layers, num_units, input_size)
    attrs = _rnn_attrs(dtypes.as_dtype(T), kwargs, ("num_proj",))
    attrs["S"] = dtypes.as_dtype(S)
    return make_op("CudnnRNNParamsSize", ins, attrs, name=name or "CudnnRNNParamsSize").outputs[0]


def cudnn_rnn_params_to_canonical(
    num_layers: Any,
    num_units: Any,
    input_size: Any,
    params: Any,
    num_params: int,
    name: str | None = None,
    **kwargs: Any,
) -> tuple[list[Tensor], list[Tensor]]:
    p = convert_to_tensor(params)
    ins = [*_sizes(num_layers, num_units, input_size), p]
    counts = {"num_params": int(num_params)}
    op_type = "CudnnRNNParamsToCanonical"
    op = _conversion(op_type, ins, p.dtype.base_dtype, counts, (), kwargs, name)
    return list(op.outputs[:num_params]), list(op.outputs[num_params:])


def cudnn_rnn_params_to_canonical_v2(
    num_layers: Any,
    num_units: Any,
    input_size: Any,
    params: Any,
    num_params_weights: int,
    num_params_biases: int,
    name: str | None = None,
    **kwargs: Any,
) -> tuple[list[Tensor], list[Tensor]]:
    p = convert_to_tensor(params)
    ins = [*_sizes(num_layers, num_units, input_size), p]
    counts = {
        "num_params_weights": int(num_params_weights),
        "num_params_biases": int(num_params_biases),
    }
    op_type = "CudnnRNNParamsToCanonicalV2"
    op = _conversion(op_type, ins, p.dtype.base_dtype, counts, ("num_proj",), kwargs, name)
    return list(op.outputs[:num_params_weights]), list(op.outputs[num_params_weights:])


def cudnn_rnn_canonical_to_params(
    num_layers: Any,
    num_units: Any,
    input_size: Any,
    weights: Sequence[Any],
    biases: Sequence[Any],
    name: str | None = None,
    **kwargs: Any,
) -> Tensor:
    ws = _tensors(*weights)
    bs = _tensors(*biases, dtype=ws[0].dtype)
    ins = [*_sizes(num_layers, num_units, input_size), *ws, *bs]
    counts = {"num_params": len(ws)}
    op_type = "CudnnRNNCanonicalToParams"
    return _conversion(op_type, ins, ws[0].dtype.base_dtype, counts, (), kwargs, name).outputs[0]


def cudnn_rnn_canonical_to_params_v2(
    num_layers: Any,
    num_units: Any,
    input_size: Any,
    weights: Sequence[Any],
    biases: Sequence[Any],
    name: str | None = None,
    **kwargs: Any,
) -> Tensor:
    ws = _tensors(*weights)
    bs = _tensors(*biases, dtype=ws[0].dtype)
    ins = [*_sizes(num_layers, num_units, input_size), *ws, *bs]
    counts = {"num_params_weights": len(ws), "num_params_biases": len(bs)}
    op = _conversion(
        "CudnnRNNCanonicalToParamsV2",
        ins,
        ws[0].dtype.base_dtype,
        counts,
        ("num_proj",),
        kwargs,
        name,
    )
    return op.outputs[0]


# ---- shape inference ---------------------------------------------------------------------------
def _rnn_shapes(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[tuple[Any, TensorShape]]:
    x, h, c = inputs[0], inputs[1], inputs[2]
    dtype = x.dtype.base_dtype
    dirs = 2 if _text(attrs.get("direction", "unidirectional")) == "bidirectional" else 1
    units = h.shape.as_list()[-1] if h.shape.ndims == 3 else None
    out = TensorShape(None)
    if x.shape.ndims == 3:
        dims = x.shape.as_list()
        out = TensorShape([dims[0], dims[1], None if units is None else units * dirs])
    return [(dtype, out), (dtype, h.shape), (dtype, c.shape), (dtype, TensorShape([None]))]


def _rnn_v2_shapes(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[tuple[Any, TensorShape]]:
    return [*_rnn_shapes(inputs, attrs), (dtypes.int8, TensorShape([None]))]


def _backprop_shapes(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[tuple[Any, TensorShape]]:
    return [(t.dtype.base_dtype, t.shape) for t in inputs[:4]]


def _params_size_shape(
    inputs: Sequence[Any], attrs: dict[str, Any]
) -> list[tuple[Any, TensorShape]]:
    return [(dtypes.as_dtype(attrs["S"]), TensorShape([]))]


def _to_canonical_shapes(
    inputs: Sequence[Any], attrs: dict[str, Any]
) -> list[tuple[Any, TensorShape]]:
    n_w = int(attrs.get("num_params", attrs.get("num_params_weights", 0)))
    n_b = int(attrs.get("num_params", attrs.get("num_params_biases", 0)))
    dtype = inputs[3].dtype.base_dtype
    return [(dtype, TensorShape([None, None]))] * n_w + [(dtype, TensorShape([None]))] * n_b


def _to_params_shape(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[tuple[Any, TensorShape]]:
    return [(inputs[3].dtype.base_dtype, TensorShape([None]))]


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


for _name in ("CudnnRNN",):
    op_def_registry.register(_name, _rnn_shapes, stateful=True)
for _name in ("CudnnRNNV2", "CudnnRNNV3"):
    op_def_registry.register(_name, _rnn_v2_shapes, stateful=True)
for _name in ("CudnnRNNBackprop", "CudnnRNNBackpropV2", "CudnnRNNBackpropV3"):
    op_def_registry.register(_name, _backprop_shapes, stateful=True)
op_def_registry.register("CudnnRNNParamsSize", _params_size_shape)
for _name in ("CudnnRNNParamsToCanonical", "CudnnRNNParamsToCanonicalV2"):
    op_def_registry.register(_name, _to_canonical_shapes)
for _name in ("CudnnRNNCanonicalToParams", "CudnnRNNCanonicalToParamsV2"):
    op_def_registry.register(_name, _to_params_shape)
