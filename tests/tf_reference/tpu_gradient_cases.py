"""Gradients through the TPU ops TF 1.15 registers them for (tpu_ops.py, tpu.py): the ops
have no kernel in TF's CPU build (nor in tfcluster), but a graph built for a TPU is
differentiated through them. Each case returns the gradient graph as plain data: every op
tf.gradients added (type, inputs, attrs TF's signature names), which inputs got None, and
the TPU embedding gradient collection. Run by record_tpu_gradients.py under TF 1.15 and by
tests/unit/test_tpu_gradients.py under tfcluster; Python 3.7 code."""

try:
    from tf_reference.case_tools import error, registrar
except ImportError:
    from case_tools import error, registrar

CASES = {}
case = registrar(CASES, own_graph=True)

_ATTRS = (
    "T",
    "split_dimension",
    "concat_dimension",
    "split_count",
    "dtype",
    "table_id",
    "lookup_id",
    "begin_mask",
    "end_mask",
    "shrink_axis_mask",
    "ellipsis_mask",
    "new_axis_mask",
    "Index",
)


def _attr(op, name):
    try:
        value = op.get_attr(name)
    except ValueError:
        return None
    return value.name if hasattr(value, "as_numpy_dtype") else value


def _gradient_ops(tf, before):
    ops = [op for op in tf.get_default_graph().get_operations() if op.name not in before]
    return [
        {
            "name": op.name,
            "type": op.type,
            "inputs": [t.name for t in op.inputs],
            "attrs": {k: _attr(op, k) for k in _ATTRS if _attr(op, k) is not None},
        }
        for op in ops
    ]


def _grads(tf, ys, xs):
    before = {op.name for op in tf.get_default_graph().get_operations()}
    grads = tf.gradients(ys, xs)
    return {
        "gradients": [None if g is None else g.name for g in grads],
        "ops": _gradient_ops(tf, before),
    }


def _groups(tf):
    return tf.constant([[0, 1]], dtype=tf.int32, name="groups")


@case
def all_to_all_swaps_split_and_concat_dimensions(tf):
    x = tf.placeholder(tf.float32, [4, 6], name="x")
    y = tf.raw_ops.AllToAll(
        input=x, group_assignment=_groups(tf), concat_dimension=0, split_dimension=1, split_count=2
    )
    return _grads(tf, y, [x])


@case
def collective_permute_reverses_its_pairs(tf):
    x = tf.placeholder(tf.float32, [3], name="x")
    pairs = tf.constant([[0, 1], [1, 0]], dtype=tf.int32, name="pairs")
    y = tf.raw_ops.CollectivePermute(input=x, source_target_pairs=pairs)
    return _grads(tf, tf.reduce_sum(y * 2.0), [x])


@case
def cross_replica_sum_of_the_gradient(tf):
    x = tf.placeholder(tf.float32, [2, 2], name="x")
    y = tf.raw_ops.CrossReplicaSum(input=x, group_assignment=_groups(tf))
    return _grads(tf, y, [x])


@case
def replicated_input_is_not_differentiable(tf):
    a = tf.placeholder(tf.float32, [2], name="a")
    b = tf.placeholder(tf.float32, [2], name="b")
    y = tf.raw_ops.TPUReplicatedInput(inputs=[a, b])
    return _grads(tf, y, [a, b])


@case
def embedding_activations_gradient_goes_to_the_table_collection(tf):
    variable = tf.placeholder(tf.float32, [1], name="tpu_gradient_variable")
    sliced = tf.placeholder(tf.float32, [4, 3], name="sliced")
    y = tf.raw_ops.TPUEmbeddingActivations(
        embedding_variable=variable, sliced_activations=sliced, table_id=1, lookup_id=0
    )
    collection = tf.get_collection_ref("tpu_embedding_gradients_table_1")
    collection.append(None)
    out = _grads(tf, y, [variable, sliced])
    out["collection"] = [None if t is None else t.name for t in collection]
    return out


@case
def embedding_activations_gradient_outside_training(tf):
    variable = tf.placeholder(tf.float32, [1], name="tpu_gradient_variable")
    sliced = tf.placeholder(tf.float32, [4, 3], name="sliced")
    y = tf.raw_ops.TPUEmbeddingActivations(
        embedding_variable=variable, sliced_activations=sliced, table_id=0, lookup_id=0
    )
    return {"error": error(lambda: tf.gradients(y, [sliced]))}
