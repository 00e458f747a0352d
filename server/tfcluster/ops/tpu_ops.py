"""TF 1.15's TPU ops (replication, cross-replica collectives, infeed / outfeed, embedding
tables, the TPU system's configuration) with TF's shape functions. TF 1.15's CPU build
registers no kernel for any of them: a graph builds them as TF does, and running one fails as
in TF (the placer's "No OpKernel was registered" error). tfcluster has no TPU."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry, op_signatures
from tfcluster.framework.graph import Tensor
from tfcluster.framework.op_def_registry import NodeShapeError
from tfcluster.framework.tensor_shape import TensorShape, as_shape
from tfcluster.ops.shape_fn_checks import merge, with_rank

Outputs = list[tuple[dtypes.DType, TensorShape]]
_F32 = dtypes.float32


def _register(op_type: str, infer: op_def_registry.InferFn) -> None:
    sig = op_signatures.lookup(op_type)
    op_def_registry.register(op_type, infer, stateful=bool(sig is not None and sig.stateful))


def _none(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return []


def _same_as_input(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(inputs[0].dtype.base_dtype, inputs[0].shape)]


def _c_dim(value: int) -> int | None:
    """A dimension TF's shape function made from a C++ int64 (-1: unknown)."""
    return None if value == -1 else value


def _all_to_all_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    """TF 1.15 multiplies the concat dimension and divides the split dimension by split_count
    as C++ ints, an unknown dimension (-1) included."""
    shape = inputs[0].shape
    if shape.ndims is None:
        raise NodeShapeError("input's rank is unknown.")
    rank = shape.ndims
    count = int(attrs["split_count"])
    concat, split = int(attrs["concat_dimension"]), int(attrs["split_dimension"])
    for what, axis in (("concat_dimension", concat), ("split_dimension", split)):
        if axis < 0 or axis >= rank:
            raise NodeShapeError(f"{what} {axis} is out of range of input rank {rank}")
    dims: list[int | None] = []
    for i, d in enumerate(shape.as_list()):
        value = -1 if d is None else d
        if i == concat:
            value *= count
        if i == split:
            value = int(value / count)  # C++ division truncates toward zero
        dims.append(_c_dim(value))
    return [(inputs[0].dtype.base_dtype, TensorShape(dims))]


_register("AllToAll", _all_to_all_infer)
_register("CollectivePermute", _same_as_input)
_register("CrossReplicaSum", _same_as_input)


def _replicated_input_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    """The inputs' shapes merged from the last one back."""
    cur = inputs[-1].shape
    for i in range(len(inputs) - 2, -1, -1):
        try:
            cur = merge(inputs[i].shape, cur)
        except NodeShapeError as e:
            raise NodeShapeError(f"{e}\n\tFrom merging shape {i} with other shapes.") from None
    return [(inputs[0].dtype.base_dtype, cur)]


def _replicated_output_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(inputs[0].dtype.base_dtype, inputs[0].shape)] * int(attrs["num_replicas"])


_register("TPUReplicatedInput", _replicated_input_infer)
_register("TPUReplicatedOutput", _replicated_output_infer)
_register("TPUReplicateMetadata", _none)
_register("TPUCompilationResult", op_def_registry.fixed((dtypes.string, [])))
_register("TPUOrdinalSelector", op_def_registry.fixed((dtypes.int32, [None])))
_register("ConfigureDistributedTPU", op_def_registry.fixed((dtypes.string, None)))
_register("ShutdownDistributedTPU", _none)
_register("ConfigureTPUEmbedding", _none)


def _partitioned_call_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.as_dtype(t), TensorShape(None)) for t in attrs["Tout"]]


_register("TPUPartitionedCall", _partitioned_call_infer)


# ---- infeed / outfeed ------------------------------------------------------------------------
def _dequeue_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.as_dtype(attrs["dtype"]), as_shape(attrs["shape"]))]


def _dequeue_tuple_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.as_dtype(t), as_shape(s)) for t, s in zip(attrs["dtypes"], attrs["shapes"])]


for _op in ("InfeedDequeue", "OutfeedDequeue"):
    _register(_op, _dequeue_infer)
for _op in ("InfeedDequeueTuple", "OutfeedDequeueTuple"):
    _register(_op, _dequeue_tuple_infer)
for _op in (
    "InfeedEnqueue",
    "InfeedEnqueueTuple",
    "InfeedEnqueuePrelinearizedBuffer",
    "OutfeedEnqueue",
    "OutfeedEnqueueTuple",
):
    _register(_op, _none)
for _op in ("Prelinearize", "PrelinearizeTuple"):
    _register(_op, op_def_registry.fixed((dtypes.variant, [])))


# ---- embeddings ------------------------------------------------------------------------------
def _one_table(attrs: dict[str, Any]) -> None:
    table_id = int(attrs.get("table_id", -1))
    table_name = attrs.get("table_name", b"")
    if (table_id >= 0) == bool(table_name):
        raise NodeShapeError("exactly one of table_id or table_name must be non-default")


def _load_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    """Every table a matrix, all of one shape."""
    _one_table(attrs)
    parameters = with_rank(inputs[0].shape, 2)
    for t in inputs[1:]:
        parameters = merge(parameters, with_rank(t.shape, 2))
    return []


def _retrieve_infer(op_type: str) -> op_def_registry.InferFn:
    sig = op_signatures.lookup(op_type)
    count = len(sig.outputs) if sig is not None else 0

    def infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
        _one_table(attrs)
        return [(_F32, TensorShape([None, None]))] * count

    return infer


_OPTIMIZERS = (
    "ADAM",
    "Adadelta",
    "Adagrad",
    "CenteredRMSProp",
    "FTRL",
    "MDLAdagradLight",
    "Momentum",
    "ProximalAdagrad",
    "RMSProp",
    "StochasticGradientDescent",
)
for _name in _OPTIMIZERS:
    for _suffix in ("", "GradAccumDebug"):
        _load = f"LoadTPUEmbedding{_name}Parameters{_suffix}"
        if op_signatures.lookup(_load) is not None:
            _register(_load, _load_infer)
            _retrieve = f"RetrieveTPUEmbedding{_name}Parameters{_suffix}"
            _register(_retrieve, _retrieve_infer(_retrieve))

for _op in (
    "EnqueueTPUEmbeddingIntegerBatch",
    "EnqueueTPUEmbeddingSparseBatch",
    "EnqueueTPUEmbeddingSparseTensorBatch",
    "SendTPUEmbeddingGradients",
):
    _register(_op, _none)


def _embedding_activations_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(_F32, inputs[1].shape)]


_register("TPUEmbeddingActivations", _embedding_activations_infer)


def _varints(data: bytes) -> list[tuple[int, int, Any]]:
    """A protobuf message's fields as (number, wire type, value); bytes for length-delimited
    fields. Stops at the first malformed field."""
    out: list[tuple[int, int, Any]] = []
    pos = 0

    def varint() -> int:
        nonlocal pos
        shift = result = 0
        while True:
            if pos >= len(data):
                raise ValueError("truncated")
            byte = data[pos]
            pos += 1
            result |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return result

    try:
        while pos < len(data):
            key = varint()
            number, wire = key >> 3, key & 7
            if wire == 0:
                out.append((number, wire, varint()))
            elif wire == 2:
                size = varint()
                if pos + size > len(data):
                    raise ValueError("truncated")
                out.append((number, wire, data[pos : pos + size]))
                pos += size
            elif wire in (1, 5):
                pos += 8 if wire == 1 else 4
            else:
                raise ValueError("unsupported wire type")
    except ValueError:
        pass
    return out


def _activation_shapes(config: bytes) -> list[TensorShape]:
    """Each table's activations in a TPUEmbeddingConfiguration: [batch_size_per_tensor_core *
    num_features, dimension] (table_descriptor = 1, batch_size_per_tensor_core = 3; a table's
    dimension = 3, num_features = 4)."""
    fields = _varints(config)
    batch = 0
    tables: list[tuple[int, int]] = []
    for number, wire, value in fields:
        if number == 3 and wire == 0:
            batch = value
        elif number == 1 and wire == 2:
            dim = features = 0
            for n, w, v in _varints(value):
                if n == 3 and w == 0:
                    dim = v
                elif n == 4 and w == 0:
                    features = v
            tables.append((dim, features))
    return [TensorShape([batch * features, dim]) for dim, features in tables]


def _recv_activations_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    config = attrs["config"]
    shapes = _activation_shapes(config if isinstance(config, bytes) else str(config).encode())
    if len(shapes) != int(attrs["num_outputs"]):
        raise NodeShapeError("num outputs != size of output shapes")
    return [(_F32, s) for s in shapes]


_register("RecvTPUEmbeddingActivations", _recv_activations_infer)
