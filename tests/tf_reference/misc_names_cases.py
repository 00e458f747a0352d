"""Programs for the last TF 1.15 names of issue 15 (Session.partial_run, GetSessionHandleV2,
random / dataset / ragged / quantized raw ops, tf.config devices, PythonState...): each case
builds a graph with `tf` (TensorFlow 1.15 when recorded by record_misc_names.py, tfcluster in
tests/unit/test_misc_names.py) and returns what it computes. Python 3.7 code: the recorder
runs it under TF 1.15 itself."""

import glob
import os
import shutil
import tempfile
import threading

import numpy as np


def _error(fn):
    """The class name of what `fn` raises ("none" when it returns), and its first line for
    the op errors whose message TF's runtime makes."""
    try:
        fn()
    except Exception as e:  # the class is what is compared
        return type(e).__name__
    return "none"


# ---- Session.partial_run ---------------------------------------------------------------------


def _partial_run_graph(tf):
    a = tf.placeholder(tf.float32, shape=[], name="a")
    b = tf.placeholder(tf.float32, shape=[], name="b")
    c = tf.placeholder(tf.float32, shape=[], name="c")
    r1 = tf.add(a, b)
    r2 = tf.multiply(r1, c)
    v = tf.Variable(0.0, name="counter")
    inc = tf.assign_add(v, 1.0)
    r3 = inc * r1
    return a, b, c, r1, r2, v, r3


def _partial_run_program(tf, target):
    a, b, c, r1, r2, v, r3 = _partial_run_graph(tf)
    x = tf.random_uniform([3], seed=1)
    p = tf.placeholder(tf.float32, name="p")
    y = x + p
    out = {}
    with tf.Session(target) as sess:
        sess.run(v.initializer)
        h = sess.partial_run_setup([r1, r2, r3], [a, b, c])
        out["handle"] = h
        out["first"] = sess.partial_run(h, r1, feed_dict={a: 1, b: 2})
        out["second"] = sess.partial_run(h, [r2, r3], feed_dict={c: out["first"]})
        # The assign_add ran once, in the call that could run it.
        out["counter"] = sess.run(v)
        h = sess.partial_run_setup([x, y], [p])
        xv = sess.partial_run(h, x)
        yv = sess.partial_run(h, y, feed_dict={p: 0.5})
        out["random_seen_once"] = bool(np.allclose(xv + 0.5, yv))
        h = sess.partial_run_setup({"sum": r1, "prod": r2}, [a, b, c])
        out["dict_fetch"] = sess.partial_run(h, {"s": r1}, feed_dict={a: 2, b: 3})
        out["after_dict"] = sess.partial_run(h, (r2,), feed_dict={c: 4})
        out["still_usable"] = sess.run(r2, {a: 1, b: 1, c: 5})
        # Feeds only, then the fetch; and fetches needing no feed (run at setup).
        e = tf.placeholder(tf.float32, name="e")
        doubled = e * 2.0
        h = sess.partial_run_setup(fetches=[doubled], feeds=[e])
        out["feeds_only"] = sess.partial_run(h, [], {e: 3.0})
        out["then_fetch"] = sess.partial_run(h, [doubled], {})
        k = tf.constant(2.0)
        kb, kc = k * 2, k * 6
        h = sess.partial_run_setup([kb, kc], [])
        out["no_feeds"] = sess.partial_run(h, [kb, kc])
        # A chain fed one placeholder per call.
        chain, links = tf.constant(2.0), []
        for i in range(20):
            links.append(tf.placeholder(tf.float32, shape=[], name=f"link{i}"))
            chain = chain * links[-1]
        ends = [chain]
        h = sess.partial_run_setup(ends, links)
        for i, link in enumerate(links[:-1]):
            sess.partial_run(h, [], {link: 1.0 + i})
        out["chain"] = sess.partial_run(h, ends[0], {links[-1]: 0.5})
    return out


def partial_run_setup_failure(tf):
    """A fetch needing a placeholder not declared as a feed: setup returns, the partial run
    reports the placeholder's error."""
    x = tf.placeholder(tf.float32, shape=(), name="x")
    fetches = [x * 2, x * 3]
    with tf.Session() as sess:
        handle = sess.partial_run_setup(fetches=fetches, feeds=[])
        return {"error": _error(lambda: sess.partial_run(handle, fetches[0]))}


def partial_run_in_steps(tf):
    return _partial_run_program(tf, "")


def partial_run_over_grpc(tf):
    server = tf.train.Server.create_local_server()
    out = _partial_run_program(tf, server.target)
    out.pop("handle")  # counts differ by target only in the step number
    return out


def partial_run_errors(tf):
    a, b, c, r1, r2, v, r3 = _partial_run_graph(tf)
    d = tf.placeholder(tf.float32, name="d")
    out = {}
    with tf.Session() as sess:
        sess.run(v.initializer)
        h = sess.partial_run_setup([r1, r2], [a, b, c])
        out["needs_unfed"] = _error(lambda: sess.partial_run(h, r2, feed_dict={a: 1, b: 2}))
        out["after_refusal"] = sess.partial_run(h, r1, feed_dict={a: 1, b: 2})
        out["fed_twice"] = _error(lambda: sess.partial_run(h, r1, feed_dict={a: 1}))
        out["fetched_twice"] = _error(lambda: sess.partial_run(h, r1))
        out["fetch_not_declared"] = _error(lambda: sess.partial_run(h, r3, feed_dict={c: 1}))
        out["last"] = sess.partial_run(h, r2, feed_dict={c: 2})
        out["after_done"] = _error(lambda: sess.partial_run(h, r2, feed_dict={c: 1}))
        out["unknown_handle"] = _error(lambda: sess.partial_run("bogus", r2))
        h = sess.partial_run_setup([r1, r2], [a, b, c])
        out["feed_not_declared"] = _error(
            lambda: sess.partial_run(h, r1, feed_dict={d: 1, a: 1, b: 1})
        )
        out["bad_feed_value"] = _error(lambda: sess.partial_run(h, r1, feed_dict={a: "x", b: 1}))
        out["then"] = sess.partial_run(h, r1, feed_dict={a: 1, b: 1})
        out["nothing_to_fetch"] = _error(lambda: sess.partial_run_setup([], [a]))
        out["fed_and_fetched"] = _error(lambda: sess.partial_run_setup([r1, a], [a, b]))
        h = sess.partial_run_setup([r2, r3.op], [a, b, c])
        out["fetch_an_op"] = _error(lambda: sess.partial_run(h, r3.op))
        h = sess.partial_run_setup([v.value()], None)
        out["no_feeds"] = sess.partial_run(h, v.value())
        out["run_after_errors"] = sess.run(r2, {a: 1, b: 2, c: 3})
    return out


# ---- session handles -------------------------------------------------------------------------


def session_handle_v2(tf):
    out = {}
    with tf.Session() as sess:
        h2 = tf.raw_ops.GetSessionHandleV2(value=tf.constant([1.0, 2.0]))
        out["v2_dtype"] = h2.dtype.name
        out["v2_shape"] = h2.shape.as_list()
        out["v2_fetch_type"] = type(sess.run(h2)).__name__
        p = tf.placeholder(tf.string)
        t = tf.raw_ops.GetSessionTensor(handle=p, dtype=tf.float32)
        h1 = sess.run(tf.raw_ops.GetSessionHandle(value=tf.constant([3.0, 4.0])))
        out["handle"] = h1.handle
        out["read"] = sess.run(t, {p: h1.handle})
        delete = tf.raw_ops.DeleteSessionTensor(handle=p)
        sess.run(delete, {p: h1.handle})
        out["read_deleted"] = _error(lambda: sess.run(t, {p: h1.handle}))
        out["delete_twice"] = _error(lambda: sess.run(delete, {p: h1.handle}))
        out["read_garbage"] = _error(lambda: sess.run(t, {p: "garbage"}))
        wrong = tf.raw_ops.GetSessionTensor(handle=p, dtype=tf.int32)
        h3 = sess.run(tf.raw_ops.GetSessionHandle(value=tf.constant([3.0])))
        out["read_wrong_dtype"] = _error(lambda: sess.run(wrong, {p: h3.handle}))
        out["still_usable"] = sess.run(t, {p: h3.handle})
    return out


# ---- ParameterizedTruncatedNormal ----------------------------------------------------------

_PTN_CASES = [
    # name, shape, means, stdevs, minvals, maxvals, dtype: one per sampler of TF's kernel
    ("both_sides", [5], 0.0, 1.0, -1.0, 1.0, "float32"),
    ("wide_bounds_randn", [7], 1.0, 2.0, -10.0, 10.0, "float32"),
    ("narrow_uniform", [9], 0.0, 1.0, 0.5, 0.7, "float32"),
    ("upper_tail", [9], 0.0, 1.0, 2.0, float("inf"), "float32"),
    ("lower_tail", [6], 0.0, 1.0, -float("inf"), -3.0, "float32"),
    ("three_batches", [250], 0.5, 0.3, 0.0, 1.0, "float32"),
    (
        "per_row",
        [3, 4],
        [0.0, 1.0, 2.0],
        [1.0, 0.5, 2.0],
        [-1.0, 0.0, 3.0],
        [1.0, 2.0, 10.0],
        "float32",
    ),
    ("row_broadcast", [2, 3], [0.0], 1.0, [-1.0], [0.5, 2.0], "float32"),
    ("double", [6], 0.0, 1.0, -0.5, 2.0, "float64"),
    ("double_tail", [5], 0.0, 1.0, 1.5, float("inf"), "float64"),
]


def parameterized_truncated_normal(tf):
    out = {}
    for name, shape, m, s, lo, hi, dt in _PTN_CASES:
        dtype = tf.as_dtype(dt)
        t = tf.raw_ops.ParameterizedTruncatedNormal(
            shape=shape,
            means=tf.constant(m, dtype),
            stdevs=tf.constant(s, dtype),
            minvals=tf.constant(lo, dtype),
            maxvals=tf.constant(hi, dtype),
            seed=7,
            seed2=3,
        )
        with tf.Session() as sess:
            out[name] = [sess.run(t), sess.run(t)]  # the second run draws on
        out[name + "_static_shape"] = t.shape.as_list()
    return out


def parameterized_truncated_normal_errors(tf):
    ptn = tf.raw_ops.ParameterizedTruncatedNormal
    p = tf.placeholder(tf.int32)
    m = tf.placeholder(tf.float32)
    s = tf.placeholder(tf.float32)
    good = ptn(shape=p, means=m, stdevs=s, minvals=-1.0, maxvals=1.0, seed=1, seed2=2)
    out = {
        "params_rank_2": _error(
            lambda: ptn(shape=[2], means=[[0.0]], stdevs=1.0, minvals=-1.0, maxvals=1.0)
        ),
        "shape_rank_2": _error(
            lambda: ptn(shape=[[2]], means=0.0, stdevs=1.0, minvals=-1.0, maxvals=1.0)
        ),
        "gradient": tf.gradients(good, [m, s]) == [None, None],
    }
    with tf.Session() as sess:
        out["run_shape_rank_2"] = _error(lambda: sess.run(good, {p: [[2]], m: 0.0, s: 1.0}))
        out["run_params_rank_2"] = _error(lambda: sess.run(good, {p: [2], m: [[0.0]], s: 1.0}))
        out["length_mismatch"] = _error(lambda: sess.run(good, {p: [3, 2], m: [0.0, 1.0], s: 1.0}))
        out["zero_stddev"] = _error(lambda: sess.run(good, {p: [3], m: 0.0, s: 0.0}))
        out["negative_dim"] = _error(lambda: sess.run(good, {p: [-3], m: 0.0, s: 1.0}))
        out["still_usable"] = sess.run(good, {p: [2, 2], m: [0.0, 5.0], s: 1.0}).shape
    return out


# ---- Fact, FakeParam, ImmutableConst --------------------------------------------------------


def constants_from_attrs(tf):
    raw = tf.raw_ops
    folder = tempfile.mkdtemp()
    try:
        region = os.path.join(folder, "region.bin")
        np.arange(6, dtype=np.float32).tofile(region)
        fact = raw.Fact()
        fake = raw.FakeParam(dtype=tf.float32, shape=[2, 3])
        fake_unknown = raw.FakeParam(dtype=tf.int32, shape=None)
        mapped = raw.ImmutableConst(dtype=tf.float32, shape=[2, 3], memory_region_name=region)
        prefix = raw.ImmutableConst(dtype=tf.int8, shape=[5], memory_region_name=region)
        empty = raw.ImmutableConst(dtype=tf.float32, shape=[0], memory_region_name=region)
        too_big = raw.ImmutableConst(dtype=tf.float32, shape=[10], memory_region_name=region)
        missing = raw.ImmutableConst(
            dtype=tf.float32, shape=[1], memory_region_name=region + ".missing"
        )
        out = {
            "fact_shape": str(fact.shape),
            "fact_dtype": fact.dtype.name,
            "fake_shape": fake.shape.as_list(),
            "fake_unknown_shape": str(fake_unknown.shape),
            "mapped_shape": mapped.shape.as_list(),
            "bad_shape_attr": _error(
                lambda: raw.ImmutableConst(dtype=tf.float32, shape=[-1], memory_region_name=region)
            ),
        }
        with tf.Session() as sess:
            out["fact"] = sess.run(fact)
            out["fake_run_shape"] = list(sess.run(fake).shape)
            out["mapped"] = sess.run(mapped)
            out["mapped_plus_one"] = sess.run(mapped + 1.0)
            out["prefix"] = sess.run(prefix)
            out["empty"] = sess.run(empty)
            out["too_big"] = _error(lambda: sess.run(too_big))
            out["missing"] = _error(lambda: sess.run(missing))
            out["still_usable"] = sess.run(mapped)
    finally:
        shutil.rmtree(folder)
    return out


# ---- tf.train.experimental.PythonState ------------------------------------------------------


def python_state_in_checkpoints(tf):
    log = []

    class Counter(tf.train.experimental.PythonState):
        def __init__(self, n):
            self.n = n

        def serialize(self):
            log.append(["serialize", self.n])
            return str(self.n)

        def deserialize(self, string_value):
            log.append(["deserialize", string_value.decode()])
            self.n = int(string_value)

    folder = tempfile.mkdtemp()
    try:
        v = tf.Variable(3.0, name="v")
        counter = Counter(5)
        ckpt = tf.train.Checkpoint(v=v, counter=counter)
        with tf.Session() as sess:
            sess.run(v.initializer)
            path = ckpt.save(os.path.join(folder, "ck"))
            counter.n = 9
            status = ckpt.restore(path)
            log.append(["after restore()", counter.n])
            status.run_restore_ops()
            log.append(["after run_restore_ops", counter.n])
        reader = tf.train.load_checkpoint(path)
        keys = sorted(reader.get_variable_to_shape_map())
        saved = reader.get_tensor("counter/.ATTRIBUTES/py_state")
        tf.reset_default_graph()
        later = tf.train.Checkpoint()
        later.restore(path)
        attached = Counter(0)
        later.counter = attached
        log.append(["attached after restore()", attached.n])
        abstract = _error(lambda: tf.train.experimental.PythonState())
    finally:
        shutil.rmtree(folder)
    return {
        "log": log,
        "keys": keys,
        "saved": saved,
        "abstract": abstract,
        "path_tail": os.path.basename(path),
    }


# ---- tf.keras.experimental.terminate_keras_multiprocessing_pools ----------------------------


def keras_pools_terminated(tf):
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
    model.compile("sgd", "mse")

    def batches():
        while True:
            yield np.ones((4, 2), np.float32), np.ones((4, 1), np.float32)

    model.fit_generator(batches(), steps_per_epoch=2, epochs=1, verbose=0, workers=2)
    return {
        "after_fit": tf.keras.experimental.terminate_keras_multiprocessing_pools(),
        "with_sigkill": tf.keras.experimental.terminate_keras_multiprocessing_pools(
            grace_period=0.01, use_sigkill=True
        ),
    }


# ---- dataset ops over anonymous resources ---------------------------------------------------


def _range_variant(tf, n):
    return tf.data.experimental.to_variant(tf.data.Dataset.range(n))


def _read_int64(tf, variant):
    return tf.data.experimental.from_variant(variant, tf.TensorSpec([], tf.int64))


def _epochs(tf, sess, dataset, epochs, keep=None):
    """The elements of each pass of an initializable iterator; `keep` is run with the
    initializer (what keeps an anonymous resource's deleter alive while the dataset is made)."""
    it = tf.data.make_initializable_iterator(dataset)
    nxt = it.get_next()
    init = [it.initializer]
    if keep is not None:
        with tf.control_dependencies([it.initializer]):
            init.append(tf.identity(keep).op)
    out = []
    for _ in range(epochs):
        sess.run(init)
        values = []
        while True:
            try:
                values.append(int(sess.run(nxt)))
            except tf.errors.OutOfRangeError:
                break
        out.append(values)
    return out


def dataset_anonymous_resources(tf):
    raw = tf.raw_ops
    out = {}
    with tf.Session() as sess:
        handle, deleter = raw.AnonymousRandomSeedGenerator(seed=1, seed2=2)
        out["generator_outputs"] = [handle.dtype.name, deleter.dtype.name, handle.shape.as_list()]
        shuffled = raw.ShuffleDatasetV2(
            input_dataset=_range_variant(tf, 10),
            buffer_size=4,
            seed_generator=handle,
            output_types=[tf.int64],
            output_shapes=[[]],
        )
        passes = _epochs(tf, sess, _read_int64(tf, shuffled), 2, keep=deleter)
        # The shuffle order is each framework's own stream: compared are the elements, and
        # that a generator made afresh with the same seeds gives the same order.
        out["shuffled_sorted"] = [sorted(p) for p in passes]
        out["same_seeds_same_order"] = passes[0] == passes[1]
        out["shuffled_is_shuffled"] = passes[0] != sorted(passes[0])
        out["generator_dropped"] = _error(lambda: _epochs(tf, sess, _read_int64(tf, shuffled), 1))
        zero = raw.ShuffleDatasetV2(
            input_dataset=_range_variant(tf, 3),
            buffer_size=0,
            seed_generator=handle,
            output_types=[tf.int64],
            output_shapes=[[]],
        )
        out["zero_buffer"] = _error(lambda: _epochs(tf, sess, _read_int64(tf, zero), 1, deleter))
        sess.run(raw.DeleteRandomSeedGenerator(handle=handle, deleter=deleter))

        cache, cache_deleter = raw.AnonymousMemoryCache()
        cached = raw.CacheDatasetV2(
            input_dataset=_range_variant(tf, 5),
            filename="",
            cache=cache,
            output_types=[tf.int64],
            output_shapes=[[]],
        )
        out["cached"] = _epochs(tf, sess, _read_int64(tf, cached), 2, keep=cache_deleter)
        out["cache_dropped"] = _error(lambda: _epochs(tf, sess, _read_int64(tf, cached), 1))
        sess.run(raw.DeleteMemoryCache(handle=cache, deleter=cache_deleter))

        fastest = raw.ChooseFastestDataset(
            input_datasets=[_range_variant(tf, 4), _range_variant(tf, 4)],
            num_experiments=2,
            output_types=[tf.int64],
            output_shapes=[[]],
        )
        out["fastest"] = _epochs(tf, sess, _read_int64(tf, fastest), 2)
        unequal = raw.ExperimentalChooseFastestDataset(
            input_datasets=[_range_variant(tf, 4), _range_variant(tf, 5)],
            num_experiments=2,
            output_types=[tf.int64],
            output_shapes=[[]],
        )
        out["fastest_unequal"] = _error(lambda: _epochs(tf, sess, _read_int64(tf, unequal), 1))
        out["still_usable"] = _epochs(tf, sess, _read_int64(tf, fastest), 1)
    return out


# ---- tf.config.experimental devices -----------------------------------------------------------


def virtual_cpu_devices(tf):
    """Two logical CPUs from the one physical CPU: sessions made without a config get
    /device:CPU:0 and CPU:1; the settings are fixed once the context lists its devices."""
    conf = tf.config.experimental
    cpu = conf.list_physical_devices("CPU")[0]
    vdc = conf.VirtualDeviceConfiguration
    out = {
        "physical": [list(d) for d in conf.list_physical_devices("CPU")],
        "before": conf.get_virtual_device_configuration(cpu),
        "vdc_repr": repr(vdc(memory_limit=5)),
        "cpu_memory_limit": _error(
            lambda: conf.set_virtual_device_configuration(cpu, [vdc(memory_limit=10)])
        ),
        "unknown_device": _error(lambda: conf.set_virtual_device_configuration("x", [vdc()])),
        "visible_unknown": _error(lambda: conf.set_visible_devices(["x"])),
        "visible_wrong_type": _error(lambda: conf.set_visible_devices([cpu], "GPU")),
        "visible": [list(d) for d in conf.get_visible_devices()],
    }
    conf.set_visible_devices([cpu])  # unchanged: allowed at any time
    conf.set_virtual_device_configuration(cpu, [vdc(), vdc()])
    out["after"] = [list(v) for v in conf.get_virtual_device_configuration(cpu)]
    with tf.device("/cpu:1"):
        a = tf.constant(2.0, name="on_cpu1") * 3.0
    with tf.device("/cpu:0"):
        b = a + 1.0
    with tf.Session() as sess:
        out["session_cpus"] = sorted(d.name for d in sess.list_devices() if d.device_type == "CPU")
        out["across_cpus"] = sess.run(b)
    with tf.Graph().as_default():  # TF places a session's whole graph: this one alone
        with tf.device("/cpu:2"):
            c = tf.constant(1.0) + 1.0
        with tf.Session() as sess:
            out["missing_cpu"] = _error(lambda: sess.run(c))
    with tf.Session() as sess:
        out["still_usable"] = sess.run(b)
    out["logical"] = [list(d) for d in conf.list_logical_devices("CPU")]
    out["change_after_init"] = _error(lambda: conf.set_virtual_device_configuration(cpu, [vdc()]))
    out["same_after_init"] = _error(
        lambda: conf.set_virtual_device_configuration(cpu, [vdc(), vdc()])
    )
    out["visible_after_init"] = _error(lambda: conf.set_visible_devices([]))
    out["visible_same_after_init"] = _error(lambda: conf.set_visible_devices([cpu]))
    return out


# ---- ragged conversions ----------------------------------------------------------------------


def ragged_conversions(tf):
    raw = tf.raw_ops
    values = tf.constant([1, 2, 3, 4, 5, 6], tf.int32)
    splits = tf.constant([0, 3, 3, 5, 6], tf.int64)

    def to_tensor(shape, default=0, kinds=("ROW_SPLITS",), parts=None, vals=values):
        return raw.RaggedTensorToTensor(
            shape=shape,
            values=vals,
            default_value=default,
            row_partition_tensors=parts or [splits],
            row_partition_types=list(kinds),
        )

    unknown = tf.constant([-1, -1], tf.int64)
    dense = {
        "computed": to_tensor(unknown),
        "cut": to_tensor(tf.constant([2, 2], tf.int64)),
        "padded": to_tensor(tf.constant([5, 4], tf.int64), default=9),
        "scalar_shape": to_tensor(tf.constant(-1, tf.int64), default=7),
        "value_rowids": to_tensor(
            unknown,
            kinds=("FIRST_DIM_SIZE", "VALUE_ROWIDS"),
            parts=[tf.constant(4, tf.int64), tf.constant([0, 0, 0, 2, 2, 3], tf.int64)],
        ),
        "two_levels": to_tensor(
            tf.constant([-1, -1, -1], tf.int64),
            kinds=("ROW_SPLITS", "ROW_SPLITS"),
            parts=[tf.constant([0, 2, 4], tf.int64), splits],
        ),
        "inner_dims": to_tensor(
            tf.constant([-1, -1, 2], tf.int64),
            default=[0, -1],
            parts=[tf.constant([0, 2, 2, 3], tf.int64)],
            vals=tf.reshape(values, [3, 2]),
        ),
    }
    float_values = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    float_dense = to_tensor(unknown, default=0.0, vals=float_values)
    encoded = raw.RaggedTensorToVariant(
        rt_nested_splits=[splits], rt_dense_values=values, batched_input=False
    )
    rows = raw.RaggedTensorToVariant(
        rt_nested_splits=[splits], rt_dense_values=values, batched_input=True
    )
    nested = tf.RaggedTensor.from_nested_row_splits(
        values, [tf.constant([0, 2, 4], tf.int64), splits]
    )
    nested_rows = raw.RaggedTensorToVariant(
        rt_nested_splits=nested.nested_row_splits,
        rt_dense_values=nested.flat_values,
        batched_input=True,
    )

    def from_variant(variant, input_rank, output_rank, dtype=tf.int32):
        return raw.RaggedTensorFromVariant(
            encoded_ragged=variant,
            input_ragged_rank=input_rank,
            output_ragged_rank=output_rank,
            Tvalues=dtype,
            Tsplits=tf.int64,
        )

    decoded = {
        "whole": from_variant(encoded, 1, 1),
        "rows": from_variant(rows, 0, 1),
        "rows_inferred_rank": from_variant(rows, -1, 1),
        "nested_rows": from_variant(nested_rows, 1, 2),
    }
    out = {
        "static_shapes": {k: str(v.shape) for k, v in dense.items()},
        "variant_shapes": [encoded.shape.as_list(), rows.shape.as_list()],
        "decoded_static": [str(t.shape) for t in decoded["whole"].output_nested_splits]
        + [str(decoded["whole"].output_dense_values.shape)],
        "unknown_kind": _error(lambda: to_tensor(unknown, kinds=("BOGUS",))),
        "decode_rank_mismatch": _error(lambda: from_variant(encoded, 1, 2)),
        "no_gradient": _error(lambda: tf.gradients(float_dense * tf.ones([4, 3]), [float_values])),
        "to_tensor_name": nested.to_tensor().name,
    }
    bad_splits = to_tensor(unknown, parts=[tf.constant([0, 3, 2, 7], tf.int64)])
    with tf.Session() as sess:
        out["dense"] = sess.run(dense)
        out["decoded"] = {
            k: [sess.run(v.output_nested_splits), sess.run(v.output_dense_values)]
            for k, v in decoded.items()
        }
        out["to_tensor"] = sess.run(nested.to_tensor(default_value=-1))
        out["bad_splits"] = _error(lambda: sess.run(bad_splits))
        out["wrong_dtype"] = _error(lambda: sess.run(from_variant(encoded, 1, 1, tf.float32)))
        out["wrong_rank"] = _error(lambda: sess.run(from_variant(encoded, 2, 2)))
        out["still_usable"] = sess.run(dense["computed"])
    return out


def ragged_to_tensor_method(tf):
    """tf.RaggedTensor.to_tensor as TF 1.15 builds it (a gather, named under RaggedToTensor)."""
    inner = tf.ragged.constant([[[1, 2], [3, 4]], [], [[5, 6]]], ragged_rank=1)
    empty = tf.ragged.constant([[], []], dtype=tf.float32)
    nested = tf.ragged.constant([[[1], [2, 3]], [[4, 5, 6]]])
    words = tf.ragged.constant([["a"], ["b", "c"]])
    held = tf.ragged.placeholder(tf.int32, 1, [])
    dense = {
        "inner_default": inner.to_tensor(default_value=[9, 8]),
        "scalar_default": inner.to_tensor(default_value=7),
        "empty": empty.to_tensor(),
        "nested": nested.to_tensor(name="dense"),
        "words": words.to_tensor(default_value="z"),
    }
    out = {
        "static": {k: str(v.shape) for k, v in dense.items()},
        "names": {k: v.name for k, v in dense.items()},
        "placeholder_static": str(held.to_tensor().shape),
        "bad_default": _error(lambda: inner.to_tensor(default_value=[1, 2, 3])),
    }
    with tf.Session() as sess:
        out["values"] = sess.run(dense)
    return out


# ---- tf.random.experimental.Generator.binomial (StatefulRandomBinomial) ---------------------


def generator_binomial(tf):
    """TF 1.15's numbers for a seeded Generator, including its first draw after the
    initializer leaving the state where it was (the next draw repeats it)."""
    gen = tf.random.experimental.Generator.from_seed(1234)
    draws = {
        "small_counts": gen.binomial(shape=[12], counts=5.0, probs=0.3),
        "per_row_btrs": gen.binomial(shape=[2, 6], counts=[100.0, 40.0], probs=[0.4, 0.9]),
        "float_output": gen.binomial(shape=[7], counts=50.0, probs=0.75, dtype=tf.float32),
        "double_params": gen.binomial(
            shape=[4],
            counts=tf.constant(20.0, tf.float64),
            probs=tf.constant(0.02, tf.float64),
            dtype=tf.int64,
        ),
        "zero_count": gen.binomial(shape=[3], counts=0.0, probs=0.5),
        "certain": gen.binomial(shape=[3], counts=5.0, probs=1.0),
        "three_batches": gen.binomial(shape=[250], counts=3.0, probs=0.5),
    }
    uniform = gen.uniform([2])
    p = tf.placeholder(tf.float32)
    bad = gen.binomial(shape=[3, 2], counts=p, probs=0.5)
    out = {
        "names": {k: v.name for k, v in draws.items()},
        "dtypes": {k: v.dtype.name for k, v in draws.items()},
        "shapes": {k: v.shape.as_list() for k, v in draws.items()},
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        states = [sess.run(gen.state)]
        values = {}
        for key in sorted(draws):
            values[key] = [sess.run(draws[key]), sess.run(draws[key])]
            states.append(sess.run(gen.state))
        values["uniform"] = sess.run(uniform)
        values["after_uniform"] = sess.run(draws["small_counts"])
        out["bad_length"] = _error(lambda: sess.run(bad, {p: [1.0, 2.0]}))
        out["bad_rank"] = _error(lambda: sess.run(bad, {p: [[1.0]]}))
        values["still_usable"] = sess.run(draws["small_counts"])
        states.append(sess.run(gen.state))
    out["values"] = values
    out["states"] = states
    return out


# ---- Batch / Unbatch / UnbatchGrad -----------------------------------------------------------


def _batch(tf, x, name, max_batch_size=10, timeout_micros=100000, allowed=()):
    return tf.raw_ops.Batch(
        in_tensors=x if isinstance(x, list) else [x],
        num_batch_threads=1,
        max_batch_size=max_batch_size,
        batch_timeout_micros=timeout_micros,
        grad_timeout_micros=1000000,
        allowed_batch_sizes=list(allowed),
        shared_name=name,
    )


def batching_across_steps(tf):
    raw = tf.raw_ops
    x = tf.placeholder(tf.float32, [None, 2])
    b = _batch(tf, x, "batch")
    u = raw.Unbatch(
        batched_tensor=b.batched_tensors[0] * 2,
        batch_index=b.batch_index,
        id=b.id,
        timeout_micros=2000000,
        shared_name="unbatch",
    )
    out = {
        "shapes": [str(t.shape) for t in [*b.batched_tensors, b.batch_index, b.id, u]],
        "no_gradient": _error(lambda: tf.gradients(u, x)),
    }
    with tf.Session() as sess:
        tensors, index, ident, unbatched = sess.run(
            [b.batched_tensors, b.batch_index, b.id, u], {x: [[1, 2], [3, 4]]}
        )
        out["alone"] = [tensors, index[:, 1:], bool(index[0, 0] == ident), unbatched]
        # Three steps at once: every step gets its own rows back, whoever got the batch.
        results = {}

        def step(i):
            results[i] = sess.run([b.batched_tensors[0], b.batch_index, u], {x: [[i, i]] * (i + 1)})

        threads = [threading.Thread(target=step, args=(i,)) for i in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        out["concurrent_own_rows"] = [results[i][2] for i in range(3)]
        out["concurrent_rows_batched"] = int(sum(results[i][0].shape[0] for i in range(3)))
        out["concurrent_index_rows"] = int(sum(results[i][1].shape[0] for i in range(3)))
        padded = _batch(tf, x, "padded", max_batch_size=4, timeout_micros=1000, allowed=(3, 4))
        t, i = sess.run([padded.batched_tensors, padded.batch_index[:, 1:]], {x: [[1, 2]]})
        out["padded"] = [t, i]
        too_big = _batch(tf, x, "small", max_batch_size=2, timeout_micros=1000)
        out["too_big"] = _error(lambda: sess.run(too_big.batched_tensors, {x: np.ones((3, 2))}))
        bad_allowed = _batch(tf, x, "allowed", max_batch_size=4, timeout_micros=1000, allowed=(3,))
        out["bad_allowed"] = _error(lambda: sess.run(bad_allowed.id, {x: [[1, 2]]}))
        y = tf.placeholder(tf.float32, [None])
        mismatch = _batch(tf, [x, y], "mismatch", timeout_micros=1000)
        out["mismatch"] = _error(lambda: sess.run(mismatch.id, {x: [[1, 2]], y: [1, 2]}))
        lost = raw.Unbatch(
            batched_tensor=tf.zeros([0, 2]),
            batch_index=tf.zeros([0, 3], tf.int64),
            id=tf.constant(7, tf.int64),
            timeout_micros=100000,
            shared_name="lost",
        )
        out["unbatch_timeout"] = _error(lambda: sess.run(lost))
        g = tf.placeholder(tf.float32, [None, 2])
        grads = _batch(tf, x, "grads", timeout_micros=1000)
        ug = raw.UnbatchGrad(
            original_input=x, batch_index=grads.batch_index, grad=g, id=grads.id, shared_name="ug"
        )
        out["unbatch_grad"] = sess.run(ug, {x: [[1, 2], [3, 4]], g: [[5, 6], [7, 8]]})
        out["still_usable"] = sess.run(u, {x: [[5, 6]]})
    return out


# ---- StatsAggregatorSetSummaryWriter --------------------------------------------------------


def stats_to_summary_writer(tf):
    """A V2 stats aggregator writing each statistic of a pipeline to a summary writer's
    event file (read back: steps, tags, histogram counts)."""
    raw = tf.raw_ops
    folder = tempfile.mkdtemp()
    try:
        agg = raw.StatsAggregatorHandleV2(shared_name="agg")
        writer = raw.SummaryWriter(shared_name="writer")
        create = raw.CreateSummaryFileWriter(
            writer=writer, logdir=folder, max_queue=1, flush_millis=10, filename_suffix=".v2"
        )
        connect = raw.StatsAggregatorSetSummaryWriter(stats_aggregator=agg, summary=writer)
        ds = (
            tf.data.Dataset.range(4)
            .apply(tf.data.experimental.latency_stats("lat"))
            .apply(tf.data.experimental.bytes_produced_stats("bytes"))
        )
        variant = raw.SetStatsAggregatorDataset(
            input_dataset=tf.data.experimental.to_variant(ds),
            stats_aggregator=agg,
            tag="T",
            counter_prefix="C",
            output_types=[tf.int64],
            output_shapes=[[]],
        )
        it = tf.data.make_initializable_iterator(
            tf.data.experimental.from_variant(variant, tf.TensorSpec([], tf.int64))
        )
        nxt = it.get_next()
        v1 = raw.StatsAggregatorHandle(shared_name="v1")
        out = {}
        with tf.Session() as sess:
            sess.run([create, connect])
            sess.run(it.initializer)
            out["elements"] = [int(sess.run(nxt)) for _ in range(4)]
            out["summary_bytes"] = len(sess.run(raw.StatsAggregatorSummary(iterator=agg)))
            sess.run(raw.FlushSummaryWriter(writer=writer))
            out["v1_aggregator"] = _error(
                lambda: sess.run(
                    raw.StatsAggregatorSetSummaryWriter(stats_aggregator=v1, summary=writer)
                )
            )
            out["swapped_inputs"] = _error(
                lambda: sess.run(
                    raw.StatsAggregatorSetSummaryWriter(stats_aggregator=writer, summary=agg)
                )
            )
            out["still_usable"] = sess.run(raw.StatsAggregatorSummary(iterator=agg)) == b""
        events = []
        for path in sorted(glob.glob(os.path.join(folder, "*"))):
            for event in tf.train.summary_iterator(path):
                for value in event.summary.value:
                    kind = value.WhichOneof("value")
                    count = value.histo.num if kind == "histo" else value.simple_value
                    events.append([int(event.step), value.tag, kind, float(count)])
        out["events"] = events
    finally:
        shutil.rmtree(folder)
    return out


# ---- MultiDeviceIterator ---------------------------------------------------------------------


def multi_device_iterator(tf):
    """A dataset's elements dealt round-robin to two logical CPUs' shards."""
    raw = tf.raw_ops
    conf = tf.config.experimental
    cpu = conf.list_physical_devices("CPU")[0]
    vdc = conf.VirtualDeviceConfiguration
    conf.set_virtual_device_configuration(cpu, [vdc(), vdc()])
    devices = [f"/job:localhost/replica:0/task:0/device:CPU:{i}" for i in range(2)]
    spec = {"output_types": [tf.int64], "output_shapes": [[]]}
    dataset = tf.data.experimental.to_variant(tf.data.Dataset.range(7))
    with tf.device("/cpu:0"):
        handle = raw.MultiDeviceIterator(devices=devices, shared_name="mdi", container="", **spec)
        init = raw.MultiDeviceIteratorInit(
            dataset=dataset, multi_device_iterator=handle, max_buffer_size=2
        )
        string_handle = raw.MultiDeviceIteratorToStringHandle(multi_device_iterator=handle)
    incarnation = tf.placeholder(tf.int64, [])
    shards = []
    for i, device in enumerate(devices):
        with tf.device(device):
            shards.append(
                raw.MultiDeviceIteratorGetNextFromShard(
                    multi_device_iterator=handle,
                    shard_num=i,
                    incarnation_id=incarnation,
                    **spec,
                )
            )
    from_string = raw.MultiDeviceIteratorFromStringHandle(string_handle=string_handle, **spec)
    via_string = raw.MultiDeviceIteratorGetNextFromShard(
        multi_device_iterator=from_string, shard_num=0, incarnation_id=incarnation, **spec
    )
    anonymous, deleter = raw.AnonymousMultiDeviceIterator(devices=devices, **spec)
    out = {
        "dtypes": [handle.dtype.name, init.dtype.name, string_handle.dtype.name],
        "shard_shapes": [str(t.shape) for t in shards[0]],
        "anonymous": [anonymous.dtype.name, deleter.dtype.name],
    }
    with tf.Session() as sess:
        first = sess.run(init)
        out["first_incarnation"] = first
        taken = {0: [], 1: []}
        for _ in range(4):
            for i in range(2):
                try:
                    taken[i].append(int(sess.run(shards[i], {incarnation: first})[0]))
                except tf.errors.OutOfRangeError:
                    taken[i].append("end")
        out["shards"] = [taken[0], taken[1]]
        second = sess.run(init)
        out["second_incarnation"] = second
        out["old_incarnation"] = _error(lambda: sess.run(shards[0], {incarnation: first}))
        out["new_incarnation"] = sess.run(shards[1], {incarnation: second})
        out["string_handle_type"] = type(sess.run(string_handle)).__name__
        out["via_string_handle"] = sess.run(via_string, {incarnation: second})
        out["bad_string_handle"] = _error(
            lambda: sess.run(raw.MultiDeviceIteratorFromStringHandle(string_handle="nope", **spec))
        )
        sess.run(
            raw.DeleteMultiDeviceIterator(
                multi_device_iterator=anonymous, iterators=[], deleter=deleter
            )
        )
        out["still_usable"] = sess.run(shards[0], {incarnation: second})
    return out


CASES = {
    "partial_run_in_steps": partial_run_in_steps,
    "partial_run_over_grpc": partial_run_over_grpc,
    "partial_run_errors": partial_run_errors,
    "partial_run_setup_failure": partial_run_setup_failure,
    "session_handle_v2": session_handle_v2,
    "parameterized_truncated_normal": parameterized_truncated_normal,
    "parameterized_truncated_normal_errors": parameterized_truncated_normal_errors,
    "constants_from_attrs": constants_from_attrs,
    "python_state_in_checkpoints": python_state_in_checkpoints,
    "keras_pools_terminated": keras_pools_terminated,
    "dataset_anonymous_resources": dataset_anonymous_resources,
    "virtual_cpu_devices": virtual_cpu_devices,
    "ragged_conversions": ragged_conversions,
    "ragged_to_tensor_method": ragged_to_tensor_method,
    "generator_binomial": generator_binomial,
    "batching_across_steps": batching_across_steps,
    "stats_to_summary_writer": stats_to_summary_writer,
    "multi_device_iterator": multi_device_iterator,
}
