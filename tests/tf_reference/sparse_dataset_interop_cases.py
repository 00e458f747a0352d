"""tf.data pipelines whose elements hold SparseTensors, built the same way by TF 1.15 and by
tfcluster, and the SavedModels each writes of them read by the other
(record_sparse_dataset_interop.py under TF 1.15; tests/unit/test_sparse_dataset_interop.py).

TF boxes each sparse leaf of an element into one variant tensor (SerializeSparse or
SerializeManySparse going in, DeserializeSparse coming out), so a graph that holds such a
pipeline names only TF's own ops and types. Each case builds its pipeline in the default
graph and returns its dense outputs by name; `run` reads them for a few steps.

Kept runnable on Python 3.7 (the recorder runs under TF 1.15).
"""

try:
    from tf_reference.case_tools import registrar
except ImportError:  # the recorder, run from tests/tf_reference under TF 1.15
    from case_tools import registrar

CASES = {}
case = registrar(CASES)
# Pipelines only run (no SavedModel: they write files of their own).
RUN_CASES = {}
run_case = registrar(RUN_CASES)
STEPS = 3
SIGNATURE = "serving_default"


def _sparse(tf):
    return tf.SparseTensor(
        indices=[[0, 0], [1, 2], [2, 1], [3, 3]], values=[1.0, 2.0, 3.0, 4.0], dense_shape=[4, 4]
    )


def _examples(tf):
    out = []
    for i in range(4):
        feature = {
            "ids": tf.train.Feature(int64_list=tf.train.Int64List(value=list(range(i + 1)))),
            "x": tf.train.Feature(float_list=tf.train.FloatList(value=[float(i)])),
        }
        example = tf.train.Example(features=tf.train.Features(feature=feature))
        out.append(example.SerializeToString())
    return out


def _spec(tf):
    return {"ids": tf.VarLenFeature(tf.int64), "x": tf.FixedLenFeature([1], tf.float32)}


def _next(tf, ds):
    return tf.data.make_one_shot_iterator(ds).get_next()


@case
def sliced_mapped_batched(tf):
    """from_tensor_slices of a sparse leaf, a map that reorders it, batch and a variable."""
    ds = tf.data.Dataset.from_tensor_slices(({"a": _sparse(tf)}, [0, 1, 2, 3]))
    ds = ds.map(lambda f, y: ({"a": tf.sparse.reorder(f["a"])}, y)).batch(2).repeat()
    features, label = _next(tf, ds)
    dense = tf.sparse.to_dense(features["a"])
    w = tf.Variable(tf.ones([4, 1]), name="w")
    return {"dense": dense, "product": tf.matmul(dense, w), "label": label}


@case
def parsed_var_len_batched(tf):
    """parse_single_example of a VarLenFeature in a map, then batch."""
    ds = tf.data.Dataset.from_tensor_slices(_examples(tf))
    ds = ds.map(lambda s: tf.parse_single_example(s, _spec(tf))).batch(2).repeat()
    f = _next(tf, ds)
    ids = f["ids"]
    return {"ids": tf.sparse.to_dense(ids), "ids_shape": ids.dense_shape, "x": f["x"]}


@case
def parsed_in_parallel_prefetched(tf):
    """The same parse with num_parallel_calls, shuffle off, prefetch."""
    ds = tf.data.Dataset.from_tensor_slices(_examples(tf))
    ds = ds.map(lambda s: tf.parse_single_example(s, _spec(tf)), num_parallel_calls=2)
    ds = ds.batch(3).repeat().prefetch(1)
    f = _next(tf, ds)
    return {"ids": tf.sparse.to_dense(f["ids"]), "ids_indices": f["ids"].indices}


@case
def unbatched_rebatched(tf):
    """A rank-2 SparseTensor from from_tensors, unbatched into rows and batched by 3."""
    ds = tf.data.Dataset.from_tensors(_sparse(tf)).apply(tf.data.experimental.unbatch())
    s = _next(tf, ds.batch(3).repeat())
    return {"dense": tf.sparse.to_dense(s), "shape": s.dense_shape}


@case
def dense_to_sparse_batched(tf):
    """dense_to_sparse_batch of ragged rows."""
    ds = tf.data.Dataset.range(1, 6).map(lambda n: tf.fill([tf.cast(n, tf.int32)], n))
    ds = ds.apply(tf.data.experimental.dense_to_sparse_batch(2, [5])).repeat()
    s = _next(tf, ds)
    return {"dense": tf.sparse.to_dense(s), "indices": s.indices}


@case
def parse_example_dataset(tf):
    """parse_example_dataset over batches of serialized Examples."""
    ds = tf.data.Dataset.from_tensor_slices(_examples(tf)).batch(2)
    ds = ds.apply(tf.data.experimental.parse_example_dataset(_spec(tf))).repeat()
    f = _next(tf, ds)
    return {"ids": tf.sparse.to_dense(f["ids"]), "x": f["x"]}


@run_case
def file_cache_read_back(tf):
    """A file cache of sparse elements written in the first pass and read in the second."""
    import tempfile

    prefix = tempfile.mkdtemp() + "/cache"
    ds = tf.data.Dataset.from_tensor_slices(_sparse(tf)).cache(prefix).repeat(3)
    s = _next(tf, ds.batch(3))
    return {"dense": tf.sparse.to_dense(s), "shape": s.dense_shape}


def run(sess, outputs, steps=STEPS):
    """The outputs' values (plain lists) for `steps` runs."""
    names = sorted(outputs)
    out = []
    for _ in range(steps):
        values = sess.run([outputs[k] for k in names])
        out.append({k: v.tolist() for k, v in zip(names, values)})
    return out


def boxing_ops(graph):
    """The op types (sorted) of a graph's dataset, iterator and sparse boxing ops, and the
    dtypes IteratorGetNext hands out."""
    kinds = sorted(
        op.type
        for op in graph.get_operations()
        if "Dataset" in op.type or "Sparse" in op.type or op.type.startswith("Iterator")
    )
    get_next = [op for op in graph.get_operations() if op.type == "IteratorGetNext"]
    return {"ops": kinds, "get_next_types": [t.dtype.name for t in get_next[0].outputs]}


def built_and_run(tf, name):
    with tf.Graph().as_default() as g:
        outputs = {**CASES, **RUN_CASES}[name](tf)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return {"values": run(sess, outputs), **boxing_ops(g)}


def save_model(tf, name, path):
    """The case's SavedModel (tag serve, one predict signature of its outputs)."""
    with tf.Graph().as_default():
        outputs = CASES[name](tf)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            infos = {k: tf.saved_model.utils.build_tensor_info(t) for k, t in outputs.items()}
            signature = tf.saved_model.signature_def_utils.build_signature_def(
                inputs={}, outputs=infos, method_name="tensorflow/serving/predict"
            )
            builder = tf.saved_model.builder.SavedModelBuilder(path)
            builder.add_meta_graph_and_variables(
                sess, ["serve"], signature_def_map={SIGNATURE: signature}
            )
            builder.save()


def load_and_run(tf, path):
    """The saved signature's outputs, run for STEPS steps in a fresh session."""
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], path)
        sig = meta.signature_def[SIGNATURE]
        outputs = {k: sess.graph.get_tensor_by_name(v.name) for k, v in sig.outputs.items()}
        return run(sess, outputs)
