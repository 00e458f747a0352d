"""tf.raw_ops that TF 1.15's CPU build defines but registers no kernel for, on any device: the
TPU ops (infeed / outfeed, embedding load / retrieve / enqueue, replication, collectives) and
the MKL-only fused quantized ops. Each case builds one op with `tf` (TF 1.15 under
record_no_kernel_ops.py, tfcluster in tests/unit/test_no_kernel_raw_ops.py): its output dtypes
and static shapes, its attrs after defaults, and the error of running it (no kernel) or of
building it (the shape function's). Python 3.7 code: the recorder runs it under TF 1.15."""

import re

# The "(defined at <file>:<line>)" part names the building line: TF 1.15 names its own ops.py.
_DEFINED_AT = re.compile(r" \(defined at [^)]*\)")
# A traced function's name ends in a process-wide counter.
_FUNCTION_UID = re.compile(r"(__inference_[A-Za-z0-9_]*?)_[0-9]+\b")


def _ph(tf, dtype, shape):
    return tf.placeholder(getattr(tf, dtype), shape)


def _f(tf, shape=()):
    return tf.placeholder(tf.float32, shape)


def _split_attrs(text):
    """TF's attr summary `a=1, b=[1, 2]` as its items, sorted: TF prints a NodeDef's attrs in
    its proto map's order, which changes from run to run."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "[<":
            depth += 1
        elif ch in "]>":
            depth -= 1
        elif text.startswith(", ", i) and depth == 0:
            items.append(text[start:i])
            start = i + 2
    if text:
        items.append(text[start:])
    return sorted(items)


def error_summary(error):
    """An error's class and the first line of its message, the attr list sorted and the
    defining line left out."""
    first = str(error.message if hasattr(error, "message") else error).split("\n")[0]
    first = _FUNCTION_UID.sub(r"\1_N", _DEFINED_AT.sub("", first))
    match = re.match(r"(.* with these attrs: \[)(.*)\]$", first)
    if match:
        first = match.group(1) + ", ".join(_split_attrs(match.group(2))) + "]"
    return [type(error).__name__, first]


def _shape(tensor):
    """A tensor's static shape; the error where TF's shape function made a negative dimension
    that TF's Python cannot hold."""
    try:
        shape = tensor.shape
    except ValueError as e:
        return ["ValueError", str(e)]
    return None if shape.ndims is None else [d for d in shape.as_list()]


def _attr_plain(value):
    kind = value.WhichOneof("value")
    if kind == "list":
        lst = value.list
        for field in ("s", "i", "f", "b", "type", "shape", "func"):
            items = list(getattr(lst, field))
            if items:
                return [field, [_one(field, v) for v in items]]
        return ["list", []]
    return [kind, _one(kind, getattr(value, kind))]


def _one(kind, v):
    if kind == "s":
        return v.decode("latin-1")
    if kind == "shape":
        return None if v.unknown_rank else [d.size for d in v.dim]
    if kind == "func":
        return _FUNCTION_UID.sub(r"\1_N", v.name)
    if kind == "f":
        return float(v)
    if kind in ("i", "type"):
        return int(v)
    return v


def describe(tf, build):
    """What one case builds and what running it does, in plain values."""
    with tf.Graph().as_default() as g:
        try:
            result = build(tf)
        except Exception as e:  # the shape function's error
            return {"build_error": error_summary(e)}
        op = result if isinstance(result, tf.Operation) else _op_of(result)
        node = op.node_def
        out = {
            "op": op.type,
            "outputs": [[t.dtype.name, _shape(t)] for t in op.outputs],
            "attrs": {k: _attr_plain(node.attr[k]) for k in sorted(node.attr)},
        }
        const = tf.constant(1.0, name="unrelated")
        with tf.Session(graph=g) as sess:
            out["run_error"] = _run_error(sess, op)
            # The whole graph is placed: a step without the op fails the same way.
            out["other_step_error"] = _run_error(sess, const)
    return out


def _op_of(result):
    while isinstance(result, (list, tuple)):
        result = result[0]
    return result.op


def _run_error(sess, fetch):
    try:
        sess.run(fetch)
    except Exception as e:
        return error_summary(e)
    return None


# A TPUEmbeddingConfiguration of two tables (a: 8 wide, 2 features; b: 3 wide, 1 feature),
# 4 examples per core.
_TWO_TABLES = (
    b"\n\r\n\x01a\x10d\x18\x08 \x02*\x02\x1a\x00\n\r\n\x01b\x10\n\x18\x03 \x01*\x02\x1a"
    b"\x00\x10\x01\x18\x04 \x01(\x08"
)


# ---- TPU: replication and collectives --------------------------------------------------------
def _group(tf):
    return _ph(tf, "int32", [1, 2])


CASES = {
    "AllToAll": lambda tf: tf.raw_ops.AllToAll(
        input=_f(tf, [4, 6, 3]),
        group_assignment=_group(tf),
        concat_dimension=0,
        split_dimension=1,
        split_count=2,
    ),
    "AllToAll_unknown_dims": lambda tf: tf.raw_ops.AllToAll(
        input=_f(tf, [None, 6, None]),
        group_assignment=_group(tf),
        concat_dimension=2,
        split_dimension=0,
        split_count=3,
    ),
    "AllToAll_unknown_split_dimension": lambda tf: tf.raw_ops.AllToAll(
        input=_f(tf, [4, None]),
        group_assignment=_group(tf),
        concat_dimension=0,
        split_dimension=1,
        split_count=2,
    ),
    "AllToAll_split_dimension_negative": lambda tf: tf.raw_ops.AllToAll(
        input=_f(tf, [4, 6]),
        group_assignment=_group(tf),
        concat_dimension=0,
        split_dimension=-1,
        split_count=2,
    ),
    "AllToAll_unknown_rank": lambda tf: tf.raw_ops.AllToAll(
        input=_f(tf, None),
        group_assignment=_group(tf),
        concat_dimension=0,
        split_dimension=0,
        split_count=2,
    ),
    "AllToAll_dimension_out_of_range": lambda tf: tf.raw_ops.AllToAll(
        input=_f(tf, [4, 6]),
        group_assignment=_group(tf),
        concat_dimension=2,
        split_dimension=0,
        split_count=2,
    ),
    "CollectivePermute": lambda tf: tf.raw_ops.CollectivePermute(
        input=_f(tf, [3, None]), source_target_pairs=_ph(tf, "int32", [2, 2])
    ),
    "CrossReplicaSum": lambda tf: tf.raw_ops.CrossReplicaSum(
        input=_ph(tf, "int32", [5]), group_assignment=_group(tf)
    ),
    "TPUReplicatedInput": lambda tf: tf.raw_ops.TPUReplicatedInput(
        inputs=[_f(tf, [None, 3]), _f(tf, [2, None]), _f(tf, [2, 3])]
    ),
    "TPUReplicatedInput_unknown": lambda tf: tf.raw_ops.TPUReplicatedInput(
        inputs=[_f(tf, None), _f(tf, [None, 4])]
    ),
    "TPUReplicatedInput_mismatch": lambda tf: tf.raw_ops.TPUReplicatedInput(
        inputs=[_f(tf, [2, 3]), _f(tf, [2, 4])]
    ),
    "TPUReplicatedInput_rank_mismatch": lambda tf: tf.raw_ops.TPUReplicatedInput(
        inputs=[_f(tf, [2, 3]), _f(tf, [2, 3]), _f(tf, [3])]
    ),
    "TPUReplicatedOutput": lambda tf: tf.raw_ops.TPUReplicatedOutput(
        input=_f(tf, [2, None]), num_replicas=3
    ),
    "TPUReplicateMetadata": lambda tf: tf.raw_ops.TPUReplicateMetadata(num_replicas=2),
    "TPUCompilationResult": lambda tf: tf.raw_ops.TPUCompilationResult(),
    "TPUOrdinalSelector": lambda tf: tf.raw_ops.TPUOrdinalSelector(),
    "TPUPartitionedCall": lambda tf: _partitioned_call(tf),
    "ConfigureDistributedTPU": lambda tf: tf.raw_ops.ConfigureDistributedTPU(),
    "ShutdownDistributedTPU": lambda tf: tf.raw_ops.ShutdownDistributedTPU(),
    "ConfigureTPUEmbedding": lambda tf: tf.raw_ops.ConfigureTPUEmbedding(config=""),
    # ---- infeed / outfeed ------------------------------------------------------------------
    "InfeedDequeue": lambda tf: tf.raw_ops.InfeedDequeue(dtype=tf.float32, shape=[2, 3]),
    "InfeedDequeue_unknown_dim": lambda tf: tf.raw_ops.InfeedDequeue(
        dtype=tf.int32, shape=[None, 3]
    ),
    "OutfeedDequeue_unknown_shape": lambda tf: tf.raw_ops.OutfeedDequeue(
        dtype=tf.int64, shape=None, device_ordinal=1
    ),
    "InfeedDequeueTuple": lambda tf: tf.raw_ops.InfeedDequeueTuple(
        dtypes=[tf.float32, tf.int32], shapes=[[2], [3, 1]]
    ),
    "InfeedEnqueue": lambda tf: tf.raw_ops.InfeedEnqueue(input=_f(tf, [2, 2]), shape=[2, 2]),
    "InfeedEnqueueTuple": lambda tf: tf.raw_ops.InfeedEnqueueTuple(
        inputs=[_f(tf, [2]), _ph(tf, "int32", [])], shapes=[[2], []]
    ),
    "InfeedEnqueuePrelinearizedBuffer": lambda tf: tf.raw_ops.InfeedEnqueuePrelinearizedBuffer(
        input=_ph(tf, "variant", [])
    ),
    "OutfeedDequeue": lambda tf: tf.raw_ops.OutfeedDequeue(dtype=tf.float32, shape=[4]),
    "OutfeedDequeueTuple": lambda tf: tf.raw_ops.OutfeedDequeueTuple(
        dtypes=[tf.float32, tf.bool], shapes=[[], [2, None]]
    ),
    "OutfeedEnqueue": lambda tf: tf.raw_ops.OutfeedEnqueue(input=_f(tf, [3])),
    "OutfeedEnqueueTuple": lambda tf: tf.raw_ops.OutfeedEnqueueTuple(
        inputs=[_f(tf, [3]), _ph(tf, "int64", [None])]
    ),
    "Prelinearize": lambda tf: tf.raw_ops.Prelinearize(input=_f(tf, [2, 2]), shape=[2, 2]),
    "PrelinearizeTuple": lambda tf: tf.raw_ops.PrelinearizeTuple(
        inputs=[_f(tf, [2]), _ph(tf, "int32", [3])], shapes=[[2], [3]]
    ),
    # ---- TPU embeddings --------------------------------------------------------------------
    "EnqueueTPUEmbeddingIntegerBatch": lambda tf: tf.raw_ops.EnqueueTPUEmbeddingIntegerBatch(
        batch=[_ph(tf, "int32", [4]), _ph(tf, "int32", [2])],
        mode_override=tf.constant("unspecified"),
    ),
    "EnqueueTPUEmbeddingSparseBatch": lambda tf: tf.raw_ops.EnqueueTPUEmbeddingSparseBatch(
        sample_indices=[_ph(tf, "int32", [3])],
        embedding_indices=[_ph(tf, "int32", [3])],
        aggregation_weights=[_f(tf, [3])],
        mode_override=tf.constant("inference"),
        combiners=["sum"],
    ),
    "EnqueueTPUEmbeddingSparseTensorBatch": (
        lambda tf: tf.raw_ops.EnqueueTPUEmbeddingSparseTensorBatch(
            sample_indices=[_ph(tf, "int64", [3]), _ph(tf, "int64", [2])],
            embedding_indices=[_ph(tf, "int32", [3]), _ph(tf, "int32", [None])],
            aggregation_weights=[_ph(tf, "float64", [3]), _ph(tf, "float64", [2])],
            mode_override=tf.constant("train"),
            table_ids=[0, 1],
        )
    ),
    "RecvTPUEmbeddingActivations": lambda tf: tf.raw_ops.RecvTPUEmbeddingActivations(
        num_outputs=2, config=""
    ),
    "RecvTPUEmbeddingActivations_two_tables": lambda tf: tf.raw_ops.RecvTPUEmbeddingActivations(
        num_outputs=2, config=_TWO_TABLES
    ),
    "SendTPUEmbeddingGradients": lambda tf: tf.raw_ops.SendTPUEmbeddingGradients(
        inputs=[_f(tf, [4, 2])], learning_rates=[], config=""
    ),
    "TPUEmbeddingActivations": lambda tf: tf.raw_ops.TPUEmbeddingActivations(
        embedding_variable=_f(tf, [None]),
        sliced_activations=_f(tf, [4, 8]),
        table_id=0,
        lookup_id=1,
    ),
}


def _partitioned_call(tf):
    @tf.function
    def double(x):
        return x * 2.0

    concrete = double.get_concrete_function(tf.TensorSpec([3], tf.float32))
    return tf.raw_ops.TPUPartitionedCall(
        args=[_f(tf, [3])],
        device_ordinal=tf.constant(0),
        Tout=[tf.float32],
        f=concrete,
    )


# The embedding optimizers' tables: the tensors each keeps beside `parameters`.
_OPTIMIZERS = {
    "ADAM": ("momenta", "velocities"),
    "Adadelta": ("accumulators", "updates"),
    "Adagrad": ("accumulators",),
    "CenteredRMSProp": ("ms", "mom", "mg"),
    "FTRL": ("accumulators", "linears"),
    "MDLAdagradLight": ("accumulators", "weights", "benefits"),
    "Momentum": ("momenta",),
    "ProximalAdagrad": ("accumulators",),
    "RMSProp": ("ms", "mom"),
    "StochasticGradientDescent": (),
}
_DEBUG = ("ADAM", "Adadelta", "Adagrad", "FTRL", "Momentum", "ProximalAdagrad", "RMSProp")


def _load(op_type, names, shapes, **attrs):
    def build(tf):
        kwargs = {n: _f(tf, s) for n, s in zip(names, shapes)}
        kwargs.update(attrs)
        return getattr(tf.raw_ops, op_type)(**kwargs)

    return build


def _embedding_cases():
    for opt, extra in _OPTIMIZERS.items():
        for debug in (False, True) if opt in _DEBUG else (False,):
            suffix = "GradAccumDebug" if debug else ""
            names = ("parameters",) + extra + (("gradient_accumulators",) if debug else ())
            load = f"LoadTPUEmbedding{opt}Parameters{suffix}"
            shapes = [[8, 4]] + [[None, 4]] * (len(names) - 1)
            CASES[load] = _load(load, names, shapes, table_name="t", num_shards=1, shard_id=0)
            retrieve = f"RetrieveTPUEmbedding{opt}Parameters{suffix}"
            CASES[retrieve] = _retrieve(retrieve)
    # Wrong shapes for the shape function: a rank-1 table, tables of other shapes.
    CASES["LoadTPUEmbeddingAdagradParameters_rank_1"] = _load(
        "LoadTPUEmbeddingAdagradParameters",
        ("parameters", "accumulators"),
        [[8], [8]],
        table_id=0,
        num_shards=1,
        shard_id=0,
    )
    CASES["RetrieveTPUEmbeddingAdagradParameters_no_table"] = lambda tf: (
        tf.raw_ops.RetrieveTPUEmbeddingAdagradParameters(num_shards=1, shard_id=0)
    )
    CASES["LoadTPUEmbeddingAdagradParameters_both_tables"] = _load(
        "LoadTPUEmbeddingAdagradParameters",
        ("parameters", "accumulators"),
        [[2, 2], [2, 2]],
        table_id=0,
        table_name="x",
        num_shards=1,
        shard_id=0,
    )
    CASES["LoadTPUEmbeddingAdagradParameters_accumulator_rank_1"] = _load(
        "LoadTPUEmbeddingAdagradParameters",
        ("parameters", "accumulators"),
        [[2, 2], [2]],
        table_id=1,
        num_shards=1,
        shard_id=0,
    )
    CASES["LoadTPUEmbeddingMomentumParameters_mismatch"] = _load(
        "LoadTPUEmbeddingMomentumParameters",
        ("parameters", "momenta"),
        [[8, 4], [8, 5]],
        table_id=0,
        num_shards=1,
        shard_id=0,
    )
    CASES["LoadTPUEmbeddingFTRLParameters_unknown"] = _load(
        "LoadTPUEmbeddingFTRLParameters",
        ("parameters", "accumulators", "linears"),
        [None, None, [3, None]],
        num_shards=2,
        shard_id=1,
    )


def _retrieve(op_type):
    if op_type.endswith("StochasticGradientDescentParameters"):
        return lambda tf: getattr(tf.raw_ops, op_type)(table_name="t", num_shards=2, shard_id=1)
    return lambda tf: getattr(tf.raw_ops, op_type)(table_id=0, num_shards=1, shard_id=0)


_embedding_cases()


# ---- the MKL-only fused quantized ops --------------------------------------------------------
def _conv(op_type, extra=(), filter_shape=(2, 2, 3, 4), input_shape=(1, 5, 5, 3), **attrs):
    """One fused quantized convolution: input quint8, filter qint8, then `extra` inputs after
    the six of every one (bias, ranges, ...) as (keyword, dtype, shape)."""

    def build(tf):
        kwargs = {
            "input": _ph(tf, "quint8", list(input_shape) if input_shape else None),
            "filter": _ph(tf, "qint8", list(filter_shape) if filter_shape else None),
            "min_input": _f(tf),
            "max_input": _f(tf),
            "min_filter": _f(tf),
            "max_filter": _f(tf),
        }
        for key, dtype, shape in extra:
            kwargs[key] = _ph(tf, dtype, shape)
        kwargs.setdefault("strides", [1, 1, 1, 1])
        kwargs.setdefault("padding", "VALID")
        kwargs.update(attrs)
        return getattr(tf.raw_ops, op_type)(**kwargs)

    return build


_BIAS = ("bias", "float32", [4])
_QBIAS = ("bias", "qint32", [4])
_FROZEN = (("min_freezed_output", "float32", []), ("max_freezed_output", "float32", []))
_SUMMAND = (
    ("summand", "quint8", [1, 4, 4, 4]),
    ("min_summand", "float32", []),
    ("max_summand", "float32", []),
)


def _quantized_cases():
    CASES.update(
        {
            "QuantizedConv2DAndRelu": _conv("QuantizedConv2DAndRelu", padding="SAME"),
            "QuantizedConv2DAndReluAndRequantize": _conv(
                "QuantizedConv2DAndReluAndRequantize", _FROZEN, strides=[1, 2, 2, 1]
            ),
            "QuantizedConv2DAndRequantize": _conv("QuantizedConv2DAndRequantize", _FROZEN),
            "QuantizedConv2DPerChannel": _conv(
                "QuantizedConv2DPerChannel", (), input_shape=(None, None, 7, 3)
            ),
            "QuantizedConv2DWithBias": _conv("QuantizedConv2DWithBias", (_BIAS,)),
            "QuantizedConv2DWithBias_unknown_input": _conv(
                "QuantizedConv2DWithBias", (_BIAS,), input_shape=None, padding="SAME"
            ),
            "QuantizedConv2DWithBias_dilated": _conv(
                "QuantizedConv2DWithBias", (_BIAS,), dilations=[1, 2, 2, 1]
            ),
            "QuantizedConv2DWithBias_bias_rank_2": _conv(
                "QuantizedConv2DWithBias", (("bias", "float32", [4, 1]),)
            ),
            "QuantizedConv2DWithBias_input_rank_3": _conv(
                "QuantizedConv2DWithBias", (_BIAS,), input_shape=(5, 5, 3)
            ),
            "QuantizedConv2DWithBiasAndRelu": _conv("QuantizedConv2DWithBiasAndRelu", (_BIAS,)),
            "QuantizedConv2DWithBiasAndReluAndRequantize": _conv(
                "QuantizedConv2DWithBiasAndReluAndRequantize", (_QBIAS, *_FROZEN)
            ),
            "QuantizedConv2DWithBiasAndRequantize": _conv(
                "QuantizedConv2DWithBiasAndRequantize", (_BIAS, *_FROZEN)
            ),
            "QuantizedConv2DWithBiasSignedSumAndReluAndRequantize": _conv(
                "QuantizedConv2DWithBiasSignedSumAndReluAndRequantize",
                (_BIAS, *_FROZEN, ("summand", "qint8", [1, 4, 4, 4]), *_SUMMAND[1:]),
            ),
            "QuantizedConv2DWithBiasSumAndRelu": _conv(
                "QuantizedConv2DWithBiasSumAndRelu",
                (_BIAS, ("summand", "float32", [1, 4, 4, 4])),
            ),
            "QuantizedConv2DWithBiasSumAndReluAndRequantize": _conv(
                "QuantizedConv2DWithBiasSumAndReluAndRequantize", (_QBIAS, *_FROZEN, *_SUMMAND)
            ),
            "QuantizedConv2DWithBias_filter_range_vector": _conv(
                "QuantizedConv2DWithBias",
                (_BIAS, ("min_filter", "float32", [4]), ("max_filter", "float32", [4])),
                padding="SAME",
            ),
            "QuantizedConv2DWithBias_batch_stride": _conv(
                "QuantizedConv2DWithBias", (_BIAS,), strides=[2, 1, 1, 1]
            ),
            "QuantizedConv2DWithBias_three_strides": _conv(
                "QuantizedConv2DWithBias", (_BIAS,), strides=[1, 1, 1]
            ),
            "QuantizedConv2DWithBias_depth_not_a_multiple": _conv(
                "QuantizedConv2DWithBias", (_BIAS,), filter_shape=(2, 2, 5, 4)
            ),
            "QuantizedConv2DWithBias_filter_range_rank_2": _conv(
                "QuantizedConv2DWithBias", (_BIAS, ("min_filter", "float32", [1, 1]))
            ),
            "QuantizedConv2DAndRequantize_filter_range_vector": _conv(
                "QuantizedConv2DAndRequantize", (("max_filter", "float32", [4]), *_FROZEN)
            ),
            "QuantizedConv2DAndReluAndRequantize_filter_range_vector": _conv(
                "QuantizedConv2DAndReluAndRequantize",
                (("min_filter", "float32", [4]), ("max_filter", "float32", [4]), *_FROZEN),
            ),
            "QuantizedConv2DWithBiasAndRequantize_frozen_range_vector": _conv(
                "QuantizedConv2DWithBiasAndRequantize",
                (
                    _BIAS,
                    ("min_freezed_output", "float32", []),
                    ("max_freezed_output", "float32", [2]),
                ),
            ),
            "QuantizedConv2DWithBiasSumAndReluAndRequantize_summand_range_vector": _conv(
                "QuantizedConv2DWithBiasSumAndReluAndRequantize",
                (_QBIAS, *_FROZEN, *_SUMMAND[:1], ("min_summand", "float32", [3]), *_SUMMAND[2:]),
            ),
            "QuantizedConv2DWithBiasAndRelu_input_range_vector": _conv(
                "QuantizedConv2DWithBiasAndRelu", (_BIAS, ("max_input", "float32", [2]))
            ),
            "QuantizedDepthwiseConv2D_unknown_input_dilated": _conv(
                "QuantizedDepthwiseConv2D",
                (("min_filter", "float32", [1, 1]),),
                filter_shape=(2, 2, 3, 2),
                input_shape=None,
                dilations=[1, 2, 2, 1],
            ),
            "QuantizedDepthwiseConv2D_three_strides": _conv(
                "QuantizedDepthwiseConv2D", filter_shape=(2, 2, 3, 2), strides=[1, 1, 1]
            ),
            "QuantizedDepthwiseConv2D": _conv(
                "QuantizedDepthwiseConv2D", filter_shape=(2, 2, 3, 2)
            ),
            "QuantizedDepthwiseConv2DWithBias": _conv(
                "QuantizedDepthwiseConv2DWithBias",
                (("bias", "float32", [6]),),
                filter_shape=(3, 3, 3, 2),
                padding="SAME",
            ),
            "QuantizedDepthwiseConv2DWithBiasAndRelu": _conv(
                "QuantizedDepthwiseConv2DWithBiasAndRelu",
                (("bias", "float32", [6]),),
                filter_shape=(2, 2, 3, 2),
                input_shape=(2, None, 6, 3),
            ),
            "QuantizedDepthwiseConv2DWithBiasAndReluAndRequantize": _conv(
                "QuantizedDepthwiseConv2DWithBiasAndReluAndRequantize",
                (("bias", "qint32", [6]), *_FROZEN),
                filter_shape=(2, 2, 3, 2),
                strides=[1, 2, 2, 1],
            ),
            "QuantizedDepthwiseConv2D_depth_mismatch": _conv(
                "QuantizedDepthwiseConv2D", filter_shape=(2, 2, 4, 2)
            ),
            "QuantizedMatMulWithBias": _matmul(
                "QuantizedMatMulWithBias", [2, 3], [3, 4], ("bias", "qint32", [4])
            ),
            "QuantizedMatMulWithBias_transposed": _matmul(
                "QuantizedMatMulWithBias",
                [3, None],
                [4, 3],
                ("bias", "float32", [4]),
                transpose_a=True,
                transpose_b=True,
            ),
            "QuantizedMatMulWithBias_inner_mismatch": _matmul(
                "QuantizedMatMulWithBias", [2, 3], [5, 4], ("bias", "qint32", [4])
            ),
            "QuantizedMatMulWithBias_b_range_vector": _matmul(
                "QuantizedMatMulWithBias", [2, 3], [3, 4], ("bias", "qint32", [4]), max_b=None
            ),
            "QuantizedMatMulWithBias_a_rank_3": _matmul(
                "QuantizedMatMulWithBias", [2, 3, 1], [3, 4], ("bias", "qint32", [4])
            ),
            "QuantizedMatMulWithBiasAndRelu_bias_rank_2": _matmul(
                "QuantizedMatMulWithBiasAndRelu", [2, 3], [3, 4], ("bias", "float32", [4, 4])
            ),
            "QuantizedMatMulWithBiasAndRelu": _matmul(
                "QuantizedMatMulWithBiasAndRelu", [None, 3], [3, 4], ("bias", "float32", [4])
            ),
            "QuantizedMatMulWithBiasAndReluAndRequantize": _matmul(
                "QuantizedMatMulWithBiasAndReluAndRequantize",
                [2, 3],
                [3, 4],
                ("bias", "qint32", [4]),
                frozen=True,
            ),
            "QuantizedReluX": lambda tf: tf.raw_ops.QuantizedReluX(
                features=_ph(tf, "quint8", [2, None]),
                max_value=_f(tf),
                min_features=_f(tf),
                max_features=_f(tf),
            ),
            "QuantizedReluX_on_a_gpu_the_session_lacks": lambda tf: _on_gpu(tf),
            "QuantizedReluX_range_rank_1": lambda tf: tf.raw_ops.QuantizedReluX(
                features=_ph(tf, "quint8", [2]),
                max_value=_f(tf),
                min_features=_f(tf, [1]),
                max_features=_f(tf),
            ),
            "RequantizationRangePerChannel": lambda tf: tf.raw_ops.RequantizationRangePerChannel(
                input=_ph(tf, "qint32", [1, 3, 3, 4]),
                input_min=_f(tf, [4]),
                input_max=_f(tf, [4]),
                clip_value_max=6.0,
            ),
            "RequantizationRangePerChannel_min_rank_0": (
                lambda tf: tf.raw_ops.RequantizationRangePerChannel(
                    input=_ph(tf, "qint32", [1, 3, 3, 4]),
                    input_min=_f(tf),
                    input_max=_f(tf, [4]),
                    clip_value_max=6.0,
                )
            ),
            "RequantizePerChannel_input_max_rank_0": lambda tf: tf.raw_ops.RequantizePerChannel(
                input=_ph(tf, "qint32", [2, 4]),
                input_min=_f(tf, [4]),
                input_max=_f(tf),
                requested_output_min=_f(tf),
                requested_output_max=_f(tf),
            ),
            "RequantizePerChannel": lambda tf: tf.raw_ops.RequantizePerChannel(
                input=_ph(tf, "qint32", [1, None, 3, 4]),
                input_min=_f(tf, [4]),
                input_max=_f(tf, [4]),
                requested_output_min=_f(tf),
                requested_output_max=_f(tf),
            ),
            "RequantizePerChannel_output_range_rank_1": lambda tf: tf.raw_ops.RequantizePerChannel(
                input=_ph(tf, "qint32", [2, 4]),
                input_min=_f(tf, [4]),
                input_max=_f(tf, [4]),
                requested_output_min=_f(tf, [1]),
                requested_output_max=_f(tf),
                out_type=tf.qint8,
            ),
        }
    )


def _on_gpu(tf):
    """An explicit device the session has no such device for: the missing kernel is told
    first, as TF's placer checks every node's kernels before it reads devices."""
    with tf.device("/device:GPU:0"):
        return tf.raw_ops.QuantizedReluX(
            features=_ph(tf, "qint32", [3]),
            max_value=_f(tf),
            min_features=_f(tf),
            max_features=_f(tf),
            out_type=tf.qint8,
            name="relu_x",
        )


def _matmul(op_type, a_shape, b_shape, bias, frozen=False, **attrs):
    def build(tf):
        kwargs = {
            "a": _ph(tf, "quint8", a_shape),
            "b": _ph(tf, "qint8", b_shape),
            bias[0]: _ph(tf, bias[1], bias[2]),
            "min_a": _f(tf),
            "max_a": _f(tf),
            "min_b": _f(tf),
            "max_b": _f(tf),
        }
        if frozen:
            kwargs["min_freezed_output"] = _f(tf)
            kwargs["max_freezed_output"] = _f(tf)
        for key, value in attrs.items():
            # None: that range input a vector.
            kwargs[key] = _f(tf, [2]) if value is None else value
        return getattr(tf.raw_ops, op_type)(**kwargs)

    return build


_quantized_cases()
