"""The datasets TF 1.15 puts after a pipeline when an iterator is made over it
(Dataset._apply_options): the threading options' MaxIntraOpParallelismDataset and
PrivateThreadPoolDataset (only where set), OptimizeDataset, ModelDataset; their ops count
before a seeded draw made after them. Recorded by record_dataset_options_graph.py;
tests/unit/test_dataset_options_graph.py compares.

Python 3.7 code (the recorder runs under TF 1.15).
"""

try:
    from tf_reference.case_tools import registrar
except ImportError:  # the recorder, run from tests/tf_reference under TF 1.15
    from case_tools import registrar

CASES = {}
case = registrar(CASES, own_graph=True, graph_seed=3)


def _run(tf, threading):
    ds = tf.data.Dataset.range(4).map(lambda x: x * 2)
    options = tf.data.Options()
    for name, value in threading.items():
        setattr(options.experimental_threading, name, value)
    it = tf.data.make_initializable_iterator(ds.with_options(options))
    nxt = it.get_next()
    draw = tf.random_uniform([2])
    ops = [
        [op.type, op.name, [t.name for t in op.inputs]]
        for op in tf.get_default_graph().get_operations()
        if op.type not in ("Const",) or op.name in ("max_intra_op_parallelism", "num_threads")
    ]
    with tf.Session() as sess:
        sess.run(it.initializer)
        values = [int(sess.run(nxt)) for _ in range(4)]
        return {"ops": ops, "values": values, "draw": sess.run(draw).tolist()}


@case
def both_threading_options(tf):
    return _run(tf, {"max_intra_op_parallelism": 1, "private_threadpool_size": 2})


@case
def a_private_pool_only(tf):
    return _run(tf, {"private_threadpool_size": 3})


@case
def no_threading_option(tf):
    return _run(tf, {})
