"""Programs calling TF 1.15's remaining dataset raw ops (the Experimental* spellings of the
transformations taking functions, ParseExampleDataset, AssertNextDataset, GeneratorDataset,
ChooseFastestBranchDataset, FilterByLastComponentDataset) with concrete functions: each
builds its graph with `tf` (TF 1.15 under record_dataset_form_ops.py, tfcluster in
tests/unit/test_dataset_form_ops.py) and returns what it computes. Python 3.7 code."""

try:
    from tf_reference.int64_dataset_functions import int64_functions
    from tf_reference.iterator_steps import run_to_end
except ImportError:  # the recorder runs from this folder
    from int64_dataset_functions import int64_functions
    from iterator_steps import run_to_end

I64 = None  # set per call: tf.TensorSpec([], tf.int64)


def _spec(tf, shape=(), dtype=None):
    return tf.TensorSpec(list(shape), dtype or tf.int64)


def _range(tf, stop, start=0):
    return tf.raw_ops.RangeDataset(
        start=start, stop=stop, step=1, output_types=[tf.int64], output_shapes=[[]]
    )


def _drain(tf, sess, dataset, types, shapes):
    """Every element of a dataset variant (a list of its components), or the error met:
    [class name, first line of the message]."""
    handle = tf.raw_ops.IteratorV2(
        shared_name="", container="", output_types=types, output_shapes=shapes
    )
    init = tf.raw_ops.MakeIterator(dataset=dataset, iterator=handle)
    nxt = tf.raw_ops.IteratorGetNext(iterator=handle, output_types=types, output_shapes=shapes)
    steps, error = run_to_end(tf, sess, init, list(nxt))
    return error or steps


def _function_forms(tf):
    """name -> (plain op name, build(op) -> (dataset, element shapes)): one dataset of each
    Experimental* transformation taking functions, built with `op` (that op or its plain
    spelling). Called inside a fresh graph."""
    i64 = _spec(tf)
    types, shapes = [tf.int64], [[]]
    common = {"output_types": types, "output_shapes": shapes}
    one = tf.constant(1, tf.int64)
    two = tf.constant(2, tf.int64)
    fns = int64_functions(tf)

    @tf.function
    def running(state, v):
        return state + v, state * v

    @tf.function
    def scaled(v, k):
        return v * k

    def map_(op):
        f = fns.square.get_concrete_function(i64)
        return op(input_dataset=_range(tf, 5), other_arguments=[], f=f, **common), shapes

    def map_captured(op):
        return (
            op(
                input_dataset=_range(tf, 4),
                other_arguments=[tf.constant(7, tf.int64)],
                f=scaled.get_concrete_function(i64, i64),
                **common,
            ),
            shapes,
        )

    def map_and_batch(drop):
        def build(op):
            out_shapes = [[3]] if drop else [[None]]
            made = op(
                input_dataset=_range(tf, 7),
                other_arguments=[],
                batch_size=tf.constant(3, tf.int64),
                num_parallel_calls=two,
                drop_remainder=tf.constant(drop),
                f=fns.square.get_concrete_function(i64),
                output_types=types,
                output_shapes=out_shapes,
            )
            return made, out_shapes

        return build

    def parallel_interleave(op):
        made = op(
            input_dataset=_range(tf, 5),
            other_arguments=[],
            cycle_length=two,
            block_length=one,
            sloppy=tf.constant(False),
            buffer_output_elements=two,
            prefetch_input_elements=two,
            f=fns.upto.get_concrete_function(i64),
            **common,
        )
        return made, shapes

    def scan(op):
        made = op(
            input_dataset=_range(tf, 6),
            initial_state=[tf.constant(1, tf.int64)],
            other_arguments=[],
            f=running.get_concrete_function(i64, i64),
            **common,
        )
        return made, shapes

    def take_while(op):
        made = op(
            input_dataset=_range(tf, 6),
            other_arguments=[],
            predicate=fns.small.get_concrete_function(i64),
            **common,
        )
        return made, shapes

    def group_by_reducer(op):
        made = op(
            input_dataset=_range(tf, 7),
            key_func_other_arguments=[],
            init_func_other_arguments=[],
            reduce_func_other_arguments=[],
            finalize_func_other_arguments=[],
            key_func=fns.parity.get_concrete_function(i64),
            init_func=fns.init.get_concrete_function(i64),
            reduce_func=fns.reduce_fn.get_concrete_function(i64, i64),
            finalize_func=fns.finalize.get_concrete_function(i64),
            **common,
        )
        return made, shapes

    def group_by_window(op):
        made = op(
            input_dataset=_range(tf, 9),
            key_func_other_arguments=[],
            reduce_func_other_arguments=[],
            window_size_func_other_arguments=[],
            key_func=fns.parity.get_concrete_function(i64),
            reduce_func=fns.pairs.get_concrete_function(i64, tf.TensorSpec([], tf.variant)),
            window_size_func=fns.window_size.get_concrete_function(i64),
            output_types=types,
            output_shapes=[[None]],
        )
        return made, [[None]]

    return {
        "ExperimentalMapDataset": ("MapDataset", map_),
        "ExperimentalMapDataset/captured": ("MapDataset", map_captured),
        "ExperimentalMapAndBatchDataset": ("MapAndBatchDataset", map_and_batch(False)),
        "ExperimentalMapAndBatchDataset/drop": ("MapAndBatchDataset", map_and_batch(True)),
        "ExperimentalParallelInterleaveDataset": (
            "ParallelInterleaveDataset",
            parallel_interleave,
        ),
        "ExperimentalScanDataset": ("ScanDataset", scan),
        "ExperimentalTakeWhileDataset": ("TakeWhileDataset", take_while),
        "ExperimentalGroupByReducerDataset": ("GroupByReducerDataset", group_by_reducer),
        "ExperimentalGroupByWindowDataset": ("GroupByWindowDataset", group_by_window),
    }


FUNCTION_FORMS = sorted(
    [
        "ExperimentalMapDataset",
        "ExperimentalMapDataset/captured",
        "ExperimentalMapAndBatchDataset",
        "ExperimentalMapAndBatchDataset/drop",
        "ExperimentalParallelInterleaveDataset",
        "ExperimentalScanDataset",
        "ExperimentalTakeWhileDataset",
        "ExperimentalGroupByReducerDataset",
        "ExperimentalGroupByWindowDataset",
    ]
)


def function_form(tf, key, plain=False):
    """The elements of one Experimental* form (or, with `plain`, of the same dataset made
    with the plain op), in a graph of its own: TF 1.15 has no CPU kernel for some of the
    Experimental spellings, and a graph holding such a node fails as a whole."""
    with tf.Graph().as_default():
        plain_name, build = _function_forms(tf)[key]
        op_name = plain_name if plain else key.split("/")[0]
        dataset, shapes = build(getattr(tf.raw_ops, op_name))
        with tf.Session() as sess:
            return _drain(tf, sess, dataset, [tf.int64], shapes)


def experimental_function_forms(tf):
    return {
        "elements": {k: function_form(tf, k) for k in FUNCTION_FORMS},
        "plain": {k: function_form(tf, k, plain=True) for k in FUNCTION_FORMS},
    }


def experimental_forms_bad_input(tf):
    """Errors TF's kernels raise for bad arguments of the Experimental* spellings."""
    i64 = _spec(tf)
    types = [tf.int64]

    @tf.function
    def square(v):
        return v * v

    @tf.function
    def not_bool(v):
        return v

    square_fn = square.get_concrete_function(i64)
    size = tf.placeholder(tf.int64, [])
    batched = tf.raw_ops.ExperimentalMapAndBatchDataset(
        input_dataset=_range(tf, 4),
        other_arguments=[],
        batch_size=size,
        num_parallel_calls=tf.constant(1, tf.int64),
        drop_remainder=tf.constant(False),
        f=square_fn,
        output_types=types,
        output_shapes=[[None]],
    )
    take = tf.raw_ops.ExperimentalTakeWhileDataset(
        input_dataset=_range(tf, 4),
        other_arguments=[],
        predicate=not_bool.get_concrete_function(i64),
        output_types=types,
        output_shapes=[[]],
    )
    out = {}
    with tf.Session() as sess:
        try:
            sess.run(batched, {size: 0})
            out["batch_size_zero"] = "no error"
        except tf.errors.OpError as e:
            out["batch_size_zero"] = type(e).__name__
        got = _drain(tf, sess, take, types, [[]])
        out["predicate_not_bool"] = got[0] if got and isinstance(got[0], str) else "no error"
    return {"errors": out}


def filter_by_last_component(tf):
    """The elements whose last component is true, without it. TF 1.15 has no CPU kernel for
    the op (its graph fails as a whole): each part runs in a graph of its own, and the same
    elements are also computed through filter and map."""
    with tf.Graph().as_default():
        values = tf.raw_ops.TensorSliceDataset(
            components=[
                tf.constant([10, 11, 12, 13, 14], tf.int64),
                tf.constant([1.5, 2.5, 3.5, 4.5, 5.5]),
                tf.constant([True, False, True, True, False]),
            ],
            output_shapes=[[], [], []],
        )
        kept = tf.raw_ops.FilterByLastComponentDataset(
            input_dataset=values, output_types=[tf.int64, tf.float32], output_shapes=[[], []]
        )
        with tf.Session() as sess:
            got = _drain(tf, sess, kept, [tf.int64, tf.float32], [[], []])
    with tf.Graph().as_default():
        same = (
            tf.data.Dataset.from_tensor_slices(
                (
                    tf.constant([10, 11, 12, 13, 14], tf.int64),
                    [1.5, 2.5, 3.5, 4.5, 5.5],
                    [True, False, True, True, False],
                )
            )
            .filter(lambda a, b, keep: keep)
            .map(lambda a, b, keep: (a, b))
        )
        nxt = tf.compat.v1.data.make_one_shot_iterator(same).get_next()
        expected = []
        with tf.Session() as sess:
            while True:
                try:
                    expected.append(list(sess.run(nxt)))
                except tf.errors.OutOfRangeError:
                    break
    return {"elements": got, "through_filter": expected}


def assert_next(tf):
    """AssertNextDataset checks the transformations that consume it (nearest first), when
    its iterator is made."""
    i64 = _spec(tf)
    types, shapes = [tf.int64], [[]]

    @tf.function
    def double(v):
        return v * 2

    double_fn = double.get_concrete_function(i64)
    out = {}
    cases = {
        "map_batch_ok": ["Map", "Batch"],
        "map_ok": ["Map"],
        "wrong_name": ["Batch"],
        "too_many": ["Map", "Batch", "Prefetch"],
        "nothing": [],
    }
    with tf.Session() as sess:
        for op in (tf.raw_ops.AssertNextDataset, tf.raw_ops.ExperimentalAssertNextDataset):
            for key, names in sorted(cases.items()):
                checked = op(
                    input_dataset=_range(tf, 5),
                    transformations=tf.constant(names, tf.string, shape=[len(names)]),
                    **{"output_types": types, "output_shapes": shapes},
                )
                mapped = tf.raw_ops.MapDataset(
                    input_dataset=checked,
                    other_arguments=[],
                    f=double_fn,
                    output_types=types,
                    output_shapes=shapes,
                )
                batched = tf.raw_ops.BatchDatasetV2(
                    input_dataset=mapped,
                    batch_size=tf.constant(2, tf.int64),
                    drop_remainder=tf.constant(False),
                    output_types=types,
                    output_shapes=[[None]],
                )
                out[op.__name__ + "/" + key] = _drain(tf, sess, batched, types, [[None]])
    return {"results": out}


def generator_dataset(tf):
    """GeneratorDataset: init_func makes the state from its arguments, next_func makes each
    element from the state and its own arguments (here a counter variable it advances), and
    the generator goes on until next_func raises OutOfRange (here: a TakeDataset stops it).
    A second iterator calls init_func again."""
    types, shapes = [tf.int64], [[]]
    counter = tf.Variable(tf.constant(0, tf.int64), use_resource=True, name="counter")

    @tf.function
    def init(start):
        return start * 100

    @tf.function
    def next_fn(state, handle, step):
        added = tf.raw_ops.AssignAddVariableOp(resource=handle, value=step)
        with tf.control_dependencies([added]):
            return state + tf.raw_ops.ReadVariableOp(resource=handle, dtype=tf.int64)

    @tf.function
    def finalize(state):
        return state

    i64 = _spec(tf)
    resource = tf.TensorSpec([], tf.resource)
    made = tf.raw_ops.GeneratorDataset(
        init_func_other_args=[tf.constant(4, tf.int64)],
        next_func_other_args=[counter.handle, tf.constant(3, tf.int64)],
        finalize_func_other_args=[],
        init_func=init.get_concrete_function(i64),
        next_func=next_fn.get_concrete_function(i64, resource, i64),
        finalize_func=finalize.get_concrete_function(i64),
        output_types=types,
        output_shapes=shapes,
    )
    taken = tf.raw_ops.TakeDataset(
        input_dataset=made, count=tf.constant(4, tf.int64), output_types=types, output_shapes=shapes
    )
    with tf.Session() as sess:
        sess.run(counter.initializer)
        first = _drain(tf, sess, taken, types, shapes)
        second = _drain(tf, sess, taken, types, shapes)
    return {"elements": first, "again": second}


def generator_dataset_ends(tf):
    """next_func raising OutOfRange (a closed queue runs dry) ends the generator's sequence;
    every later read is the end too."""
    types, shapes = [tf.int64], [[]]
    queue = tf.FIFOQueue(10, [tf.int64], shapes=[[]])
    fill = queue.enqueue_many([tf.constant([5, 6, 7], tf.int64)])
    close = queue.close()

    @tf.function
    def init(x):
        return x

    @tf.function
    def next_fn(state, handle):
        return tf.raw_ops.QueueDequeueV2(handle=handle, component_types=[tf.int64])[0] * state

    @tf.function
    def finalize(state):
        return state

    i64 = _spec(tf)
    made = tf.raw_ops.GeneratorDataset(
        init_func_other_args=[tf.constant(2, tf.int64)],
        next_func_other_args=[queue.queue_ref],
        finalize_func_other_args=[],
        init_func=init.get_concrete_function(i64),
        next_func=next_fn.get_concrete_function(i64, tf.TensorSpec([], tf.resource)),
        finalize_func=finalize.get_concrete_function(i64),
        output_types=types,
        output_shapes=shapes,
    )
    handle = tf.raw_ops.IteratorV2(
        shared_name="", container="", output_types=types, output_shapes=shapes
    )
    init_op = tf.raw_ops.MakeIterator(dataset=made, iterator=handle)
    nxt = tf.raw_ops.IteratorGetNext(iterator=handle, output_types=types, output_shapes=shapes)
    out = []
    with tf.Session() as sess:
        sess.run(fill)
        sess.run(close)
        sess.run(init_op)
        for _ in range(5):
            try:
                out.append(sess.run(nxt))
            except tf.errors.OutOfRangeError:
                out.append("OutOfRange")
    return {"reads": out}


def _example(tf, features):
    feature = {}
    for key, value in features.items():
        if isinstance(value[0], float):
            feature[key] = tf.train.Feature(float_list=tf.train.FloatList(value=value))
        elif isinstance(value[0], bytes):
            feature[key] = tf.train.Feature(bytes_list=tf.train.BytesList(value=value))
        else:
            feature[key] = tf.train.Feature(int64_list=tf.train.Int64List(value=value))
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


EXAMPLES = [
    {"x": [1.0, 2.0], "id": [7], "name": [b"a"], "tags": [1, 2, 3]},
    {"x": [3.0, 4.0], "name": [b"bb"], "tags": [4]},
    {"x": [5.0, 6.0], "id": [9], "tags": [5, 6]},
    {"x": [7.0, 8.0], "id": [11], "name": [b"c"]},
    {"x": [9.0, 10.0], "id": [13], "tags": [7]},
]


def parse_example_dataset(tf):
    """ParseExampleDataset (both spellings) on batches of serialized Examples: dense features
    with defaults; and tf.data.experimental.parse_example_dataset with a VarLenFeature."""
    serialized = tf.constant([_example(tf, e) for e in EXAMPLES])
    batches = tf.raw_ops.BatchDatasetV2(
        input_dataset=tf.raw_ops.TensorSliceDataset(components=[serialized], output_shapes=[[]]),
        batch_size=tf.constant(2, tf.int64),
        drop_remainder=tf.constant(False),
        output_types=[tf.string],
        output_shapes=[[None]],
    )
    types = [tf.int64, tf.string, tf.float32]
    shapes = [[None, 1], [None], [None, 2]]
    out = {}
    with tf.Session() as sess:
        for op in (tf.raw_ops.ParseExampleDataset, tf.raw_ops.ExperimentalParseExampleDataset):
            parsed = op(
                input_dataset=batches,
                num_parallel_calls=tf.constant(2, tf.int64),
                # Outputs come in the order of the keys, sorted.
                dense_defaults=[
                    tf.constant([], tf.float32),
                    tf.constant([-1], tf.int64),
                    tf.constant("none"),
                ],
                sparse_keys=[],
                dense_keys=["x", "id", "name"],
                sparse_types=[],
                dense_shapes=[[2], [1], []],
                output_types=types,
                output_shapes=shapes,
            )
            out[op.__name__] = _drain(tf, sess, parsed, types, shapes)
        ds = tf.data.Dataset.from_tensor_slices(serialized).batch(3)
        ds = ds.apply(
            tf.data.experimental.parse_example_dataset(
                {
                    "x": tf.io.FixedLenFeature([2], tf.float32),
                    "tags": tf.io.VarLenFeature(tf.int64),
                }
            )
        )
        nxt = tf.compat.v1.data.make_one_shot_iterator(ds).get_next()
        public = []
        while True:
            try:
                got = sess.run(nxt)
            except tf.errors.OutOfRangeError:
                break
            tags = got["tags"]
            public.append([got["x"], tags.indices, tags.values, tags.dense_shape])
        out["public"] = public
    return {"parsed": out}


def parse_example_dataset_bad_input(tf):
    """A record that is no Example, and a missing feature without a default."""
    batches = tf.raw_ops.BatchDatasetV2(
        input_dataset=tf.raw_ops.TensorSliceDataset(
            components=[tf.constant([_example(tf, EXAMPLES[1]), b"\xff\xffnot a proto"])],
            output_shapes=[[]],
        ),
        batch_size=tf.constant(1, tf.int64),
        drop_remainder=tf.constant(False),
        output_types=[tf.string],
        output_shapes=[[None]],
    )
    parsed = tf.raw_ops.ParseExampleDataset(
        input_dataset=batches,
        num_parallel_calls=tf.constant(1, tf.int64),
        dense_defaults=[tf.constant([], tf.int64)],
        sparse_keys=[],
        dense_keys=["id"],
        sparse_types=[],
        dense_shapes=[[1]],
        output_types=[tf.int64],
        output_shapes=[[None, 1]],
    )
    with tf.Session() as sess:
        got = _drain(tf, sess, parsed, [tf.int64], [[None, 1]])
    return {"error_class": got[0]}


def choose_fastest_branch(tf):
    """ChooseFastestBranchDataset runs each branch on its share of the input, then the
    fastest; equivalent branches give the same elements whichever wins."""
    types, shapes = [tf.int64], [[]]
    variant = tf.TensorSpec([], tf.variant)

    @tf.function
    def double(v):
        return v * 2

    @tf.function
    def plus_self(v):
        return v + v

    @tf.function
    def offset(v, k):
        return v * 2 + k

    def branch(fn, extra):
        @tf.function
        def apply(ds, *captured):
            return tf.raw_ops.MapDataset(
                input_dataset=ds,
                other_arguments=list(captured),
                f=fn,
                output_types=types,
                output_shapes=shapes,
            )

        return apply.get_concrete_function(variant, *extra)

    i64 = _spec(tf)
    made = tf.raw_ops.ChooseFastestBranchDataset(
        input_dataset=_range(tf, 20),
        ratio_numerator=tf.constant(1, tf.int64),
        ratio_denominator=tf.constant(1, tf.int64),
        other_arguments=[tf.constant(0, tf.int64)],
        num_elements_per_branch=3,
        branches=[
            branch(double.get_concrete_function(i64), ()),
            branch(plus_self.get_concrete_function(i64), ()),
            branch(offset.get_concrete_function(i64, i64), (i64,)),
        ],
        other_arguments_lengths=[0, 0, 1],
        output_types=types,
        output_shapes=shapes,
    )

    @tf.function
    def pairs(ds):
        return tf.raw_ops.BatchDatasetV2(
            input_dataset=ds,
            batch_size=tf.constant(2, tf.int64),
            drop_remainder=tf.constant(False),
            output_types=types,
            output_shapes=[[None]],
        )

    pairs_fn = pairs.get_concrete_function(variant)
    # Each element of a branch reads two of the input: its pieces hold 2 * 2 elements.
    batched = tf.raw_ops.ChooseFastestBranchDataset(
        input_dataset=_range(tf, 11),
        ratio_numerator=tf.constant(2, tf.int64),
        ratio_denominator=tf.constant(1, tf.int64),
        other_arguments=[],
        num_elements_per_branch=2,
        branches=[pairs_fn, pairs_fn],
        other_arguments_lengths=[0, 0],
        output_types=types,
        output_shapes=[[None]],
    )
    with tf.Session() as sess:
        return {
            "elements": _drain(tf, sess, made, types, shapes),
            "batched": _drain(tf, sess, batched, types, [[None]]),
        }


def snapshot_dataset(tf):
    """SnapshotDataset passes its input through while its first iterator writes the
    snapshot; once written, iterators (here: of a second graph and session, with new random
    values in its input) read the snapshot back. A bad compression name is refused."""
    import tempfile

    path = tempfile.mkdtemp()
    types, shapes = [tf.int64], [[]]
    passes = []
    for _ in range(2):
        with tf.Graph().as_default():
            noisy = tf.data.Dataset.range(6).map(
                lambda v: v * 1000 + tf.random.uniform([], 0, 1000, tf.int64)
            )
            made = tf.raw_ops.SnapshotDataset(
                input_dataset=tf.data.experimental.to_variant(noisy),
                path=path,
                output_types=types,
                output_shapes=shapes,
            )
            with tf.Session() as sess:
                first = _drain(tf, sess, made, types, shapes)
                # The run is finished when its last element is written; TF 1.15 finishes it
                # in a thread of its own, so give it a moment before the next iterator.
                import time

                time.sleep(1.0)
                second = _drain(tf, sess, made, types, shapes)
            passes.append([first, second])
    same = [passes[0][0] == p for p in (passes[0][1], passes[1][0], passes[1][1])]
    tens = [[int(e[0]) // 1000 for e in p] for p in (passes[0][0], passes[1][1])]
    with tf.Graph().as_default():
        bad = tf.raw_ops.SnapshotDataset(
            input_dataset=_range(tf, 3),
            path=path,
            compression="ZIP",
            output_types=types,
            output_shapes=shapes,
        )
        with tf.Session() as sess:
            try:
                sess.run(bad)
                error = "no error"
            except tf.errors.OpError as e:
                error = [type(e).__name__, str(e.message).splitlines()[0]]
    return {"replayed": same, "thousands": tens, "bad_compression": error}


# Datasets whose GraphDefs (DatasetToGraph) cross between TF 1.15 and tfcluster
# (record_dataset_form_graphs.py, tests/unit/test_dataset_form_graphs.py).
def mapped_batches(tf):
    return tf.data.Dataset.range(7).map(lambda v: v * v + 1).batch(3)


def filtered_slices(tf):
    values = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
    return tf.data.Dataset.from_tensor_slices(values).filter(lambda r: r[0] > 2.0).repeat(2)


DATASET_GRAPHS = {f.__name__: f for f in (mapped_batches, filtered_slices)}


def snapshot_input(tf, scale=1):
    """The dataset whose snapshot files cross between tfcluster and TF 1.15 (tfcluster
    writes one with scale 10: a reader computing the elements anew would give others)."""
    return tf.data.Dataset.range(5).map(
        lambda v: (v * 7 * scale, tf.stack([tf.cast(v * scale, tf.float32), 0.5]))
    )


CASES = {
    f.__name__: f
    for f in (
        experimental_function_forms,
        experimental_forms_bad_input,
        filter_by_last_component,
        assert_next,
        generator_dataset,
        generator_dataset_ends,
        parse_example_dataset,
        parse_example_dataset_bad_input,
        choose_fastest_branch,
        snapshot_dataset,
    )
}
