"""Programs calling tf.raw_ops that take functions (If, While, PartitionedCall, the dataset
ops) with concrete functions, as TF 1.15's raw ops accept: each builds its graph with `tf`
(TF 1.15 under record_raw_function_ops.py, tfcluster in tests/unit/test_raw_function_ops.py)
and returns what it computes. Python 3.7 code: the recorder runs it under TF 1.15."""

import numpy as np

try:
    from tf_reference.int64_dataset_functions import int64_functions
except ImportError:  # the recorder runs from this folder
    from int64_dataset_functions import int64_functions


def _scalar(tf, dtype):
    return tf.TensorSpec([], dtype)


def raw_if(tf):
    @tf.function
    def then_fn(x):
        return x * 2.0

    @tf.function
    def else_fn(x):
        return x - 1.0

    spec = tf.TensorSpec([2], tf.float32)
    p = tf.placeholder(tf.bool, [])
    x = tf.constant([1.0, 2.0])
    out = {}
    for op in (tf.raw_ops.If, tf.raw_ops.StatelessIf):
        out[op.__name__] = op(
            cond=p,
            input=[x],
            Tout=[tf.float32],
            then_branch=then_fn.get_concrete_function(spec),
            else_branch=else_fn.get_concrete_function(spec),
        )[0]
    with tf.Session() as sess:
        return {
            "true": sess.run(out, {p: True}),
            "false": sess.run(out, {p: False}),
        }


def raw_while(tf):
    @tf.function
    def cond(i, s):
        return i < 5

    @tf.function
    def body(i, s):
        return i + 1, s * 1.5

    specs = (_scalar(tf, tf.int32), _scalar(tf, tf.float32))
    out = {}
    for op in (tf.raw_ops.While, tf.raw_ops.StatelessWhile):
        result = op(
            input=[tf.constant(0), tf.constant(2.0)],
            cond=cond.get_concrete_function(*specs),
            body=body.get_concrete_function(*specs),
        )
        out[op.__name__] = list(result)
    with tf.Session() as sess:
        return {"loops": sess.run(out)}


def raw_partitioned_call(tf):
    @tf.function
    def f(x, y):
        return x * y + 1.0, x - y

    specs = (tf.TensorSpec([3], tf.float32), tf.TensorSpec([3], tf.float32))
    x = tf.constant([1.0, 2.0, 3.0])
    y = tf.constant([4.0, 5.0, 6.0])
    out = {}
    for op in (tf.raw_ops.PartitionedCall, tf.raw_ops.StatefulPartitionedCall):
        out[op.__name__] = list(
            op(args=[x, y], Tout=[tf.float32, tf.float32], f=f.get_concrete_function(*specs))
        )
    with tf.Session() as sess:
        return {"calls": sess.run(out)}


def raw_dataset_functions(tf):
    i64 = _scalar(tf, tf.int64)

    @tf.function
    def times_ten(v):
        return v * 10

    @tf.function
    def keep_big(v):
        return v > 15

    @tf.function
    def running(state, v):
        return state + v, state * v

    @tf.function
    def add(state, v):
        return state + v

    types, shapes = [tf.int64], [[]]
    ds = tf.raw_ops.RangeDataset(start=0, stop=6, step=1, output_types=types, output_shapes=shapes)
    mapped = tf.raw_ops.MapDataset(
        input_dataset=ds,
        other_arguments=[],
        f=times_ten.get_concrete_function(i64),
        output_types=types,
        output_shapes=shapes,
    )
    kept = tf.raw_ops.FilterDataset(
        input_dataset=mapped,
        other_arguments=[],
        predicate=keep_big.get_concrete_function(i64),
        output_types=types,
        output_shapes=shapes,
    )
    scanned = tf.raw_ops.ScanDataset(
        input_dataset=ds,
        initial_state=[tf.constant(1, tf.int64)],
        other_arguments=[],
        f=running.get_concrete_function(i64, i64),
        output_types=types,
        output_shapes=shapes,
    )
    add_fn = add.get_concrete_function(i64, i64)
    zero = [tf.constant(0, tf.int64)]

    def total(dataset):
        return tf.raw_ops.ReduceDataset(
            input_dataset=dataset,
            initial_state=zero,
            other_arguments=[],
            f=add_fn,
            output_types=types,
            output_shapes=shapes,
        )[0]

    with tf.Session() as sess:
        return {
            "sums": sess.run([total(ds), total(mapped), total(kept), total(scanned)]),
        }


def raw_more_dataset_functions(tf):
    i64 = _scalar(tf, tf.int64)
    types, shapes = [tf.int64], [[]]
    fns = int64_functions(tf)

    def rng(stop):
        return tf.raw_ops.RangeDataset(
            start=0, stop=stop, step=1, output_types=types, output_shapes=shapes
        )

    @tf.function
    def add(state, v):
        return state + tf.reduce_sum(v)

    def total(dataset, element_shape=()):
        fn = add.get_concrete_function(i64, tf.TensorSpec(list(element_shape), tf.int64))
        return tf.raw_ops.ReduceDataset(
            input_dataset=dataset,
            initial_state=[tf.constant(0, tf.int64)],
            other_arguments=[],
            f=fn,
            output_types=types,
            output_shapes=shapes,
        )[0]

    @tf.function
    def factory():
        return tf.raw_ops.RangeDataset(
            start=3, stop=6, step=1, output_types=types, output_shapes=shapes
        )

    variant = tf.TensorSpec([], tf.variant)
    square_fn = fns.square.get_concrete_function(i64)
    upto_fn = fns.upto.get_concrete_function(i64)
    common = {"output_types": types, "output_shapes": shapes}
    one = tf.constant(1, tf.int64)
    two = tf.constant(2, tf.int64)
    datasets = {
        "ParallelMapDataset": tf.raw_ops.ParallelMapDataset(
            input_dataset=rng(6),
            other_arguments=[],
            num_parallel_calls=2,
            f=square_fn,
            **common,
        ),
        "TakeWhileDataset": tf.raw_ops.TakeWhileDataset(
            input_dataset=rng(6),
            other_arguments=[],
            predicate=fns.small.get_concrete_function(i64),
            **common,
        ),
        "FlatMapDataset": tf.raw_ops.FlatMapDataset(
            input_dataset=rng(5), other_arguments=[], f=upto_fn, **common
        ),
        "InterleaveDataset": tf.raw_ops.InterleaveDataset(
            input_dataset=rng(5),
            other_arguments=[],
            cycle_length=two,
            block_length=one,
            f=upto_fn,
            **common,
        ),
        "ParallelInterleaveDatasetV2": tf.raw_ops.ParallelInterleaveDatasetV2(
            input_dataset=rng(5),
            other_arguments=[],
            cycle_length=two,
            block_length=one,
            num_parallel_calls=two,
            f=upto_fn,
            **common,
        ),
        "ParallelInterleaveDataset": tf.raw_ops.ParallelInterleaveDataset(
            input_dataset=rng(5),
            other_arguments=[],
            cycle_length=two,
            block_length=one,
            sloppy=tf.constant(False),
            buffer_output_elements=two,
            prefetch_input_elements=two,
            f=upto_fn,
            **common,
        ),
        "GroupByReducerDataset": tf.raw_ops.GroupByReducerDataset(
            input_dataset=rng(7),
            key_func_other_arguments=[],
            init_func_other_arguments=[],
            reduce_func_other_arguments=[],
            finalize_func_other_arguments=[],
            key_func=fns.parity.get_concrete_function(i64),
            init_func=fns.init.get_concrete_function(i64),
            reduce_func=fns.reduce_fn.get_concrete_function(i64, i64),
            finalize_func=fns.finalize.get_concrete_function(i64),
            **common,
        ),
    }
    sums = {k: total(v) for k, v in datasets.items()}
    batched = tf.raw_ops.MapAndBatchDataset(
        input_dataset=rng(7),
        other_arguments=[],
        batch_size=tf.constant(3, tf.int64),
        num_parallel_calls=two,
        drop_remainder=tf.constant(False),
        f=square_fn,
        output_types=types,
        output_shapes=[[None]],
    )
    sums["MapAndBatchDataset"] = total(batched, [None])
    windows = tf.raw_ops.GroupByWindowDataset(
        input_dataset=rng(9),
        key_func_other_arguments=[],
        reduce_func_other_arguments=[],
        window_size_func_other_arguments=[],
        key_func=fns.parity.get_concrete_function(i64),
        reduce_func=fns.pairs.get_concrete_function(i64, variant),
        window_size_func=fns.window_size.get_concrete_function(i64),
        output_types=types,
        output_shapes=[[None]],
    )
    sums["GroupByWindowDataset"] = total(windows, [None])
    iterator = tf.raw_ops.OneShotIterator(dataset_factory=factory.get_concrete_function(), **common)
    first = tf.raw_ops.IteratorGetNext(iterator=iterator, **common)[0]
    with tf.Session() as sess:
        out = sess.run(sums)
        out["OneShotIterator"] = [sess.run(first) for _ in range(3)]
        return {"sums": out}


def raw_case(tf):
    @tf.function
    def double(v):
        return v * 2.0

    @tf.function
    def negate(v):
        return -v

    @tf.function
    def square(v):
        return v * v

    spec = tf.TensorSpec([2], tf.float32)
    index = tf.placeholder(tf.int32, [])
    out = tf.raw_ops.Case(
        branch_index=index,
        input=[tf.constant([1.5, -2.0])],
        Tout=[tf.float32],
        branches=[f.get_concrete_function(spec) for f in (double, negate, square)],
    )[0]
    with tf.Session() as sess:
        return {"by_index": [sess.run(out, {index: k}) for k in (0, 1, 2, 3, -4)]}


CASES = {
    f.__name__: f
    for f in (
        raw_case,
        raw_if,
        raw_while,
        raw_partitioned_call,
        raw_dataset_functions,
        raw_more_dataset_functions,
    )
}


def unknown_function_name(tf):
    """A func attr naming no function of the graph: the error class (at build or run)."""
    x = tf.constant([1.0])
    try:
        y = tf.raw_ops.PartitionedCall(args=[x], Tout=[tf.float32], f="no_such_function")
        with tf.Session() as sess:
            sess.run(y)
    except Exception as e:  # the class is what is compared
        return type(e).__name__
    return "no error"


_ = np
