"""Programs over TF 1.15's stateful raw ops that tfcluster gained late: the first (string ref
handle) versions of the queue, reader, stack and table ops, the mutable tables, the resource
accumulator, barriers, staging areas and RecordInput. Each case builds a graph with `tf`
(TensorFlow 1.15 when recorded by record_stateful_ops.py, tfcluster in
tests/unit/test_stateful_raw_ops.py) and returns what it computes; error cases return the
error's class name. Python 3.7 code: the recorder runs it under TF 1.15 itself."""

import os
import shutil
import tempfile
import threading

import numpy as np


def _error(fn):
    try:
        fn()
    except Exception as e:  # the class name is what is compared
        return type(e).__name__
    return "no error"


def _attempt(fn):
    """fn's result, or the class name of the error it raised."""
    try:
        return fn()
    except Exception as e:
        return type(e).__name__


def _static(t):
    return {
        "dtype": t.dtype.name,
        "shape": t.shape.as_list() if t.shape.ndims is not None else None,
    }


# ---- queues -------------------------------------------------------------------------------


def queue_v1_fifo(tf):
    R = tf.raw_ops
    q = R.FIFOQueue(component_types=[tf.float32, tf.int32], shapes=[[2], []], capacity=5)
    enq = R.QueueEnqueueMany(handle=q, components=[[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [7, 8, 9]])
    one = R.QueueEnqueue(handle=q, components=[[9.0, 9.0], 10])
    deq = R.QueueDequeue(handle=q, component_types=[tf.float32, tf.int32])
    many = R.QueueDequeueMany(handle=q, n=2, component_types=[tf.float32, tf.int32])
    up_to = R.QueueDequeueUpTo(handle=q, n=4, component_types=[tf.float32, tf.int32])
    size = R.QueueSize(handle=q)
    close = R.QueueClose(handle=q)
    closed = R.QueueIsClosed(handle=q)
    with tf.Session() as sess:
        sess.run(enq)
        sess.run(one)
        out = {"size": sess.run(size), "deq": sess.run(deq), "many": sess.run(many)}
        sess.run(close)
        out["closed"] = sess.run(closed)
        out["enqueue_closed"] = _error(lambda: sess.run(one))
        out["up_to"] = sess.run(up_to)
        out["empty"] = _error(lambda: sess.run(deq))
    out["static"] = [_static(q)] + [_static(t) for t in many + up_to] + [_static(size)]
    return out


def queue_v1_padding_priority(tf):
    R = tf.raw_ops
    q = R.PaddingFIFOQueue(component_types=[tf.int32], shapes=[[None]])
    e1 = R.QueueEnqueue(handle=q, components=[[1, 2, 3]])
    e2 = R.QueueEnqueue(handle=q, components=[[4]])
    many = R.QueueDequeueMany(handle=q, n=2, component_types=[tf.int32])
    p = R.PriorityQueue(component_types=[tf.string], shapes=[[]])
    pe = R.QueueEnqueueMany(
        handle=p, components=[np.array([5, 1, 3], np.int64), np.array([b"e", b"a", b"c"])]
    )
    pd = R.QueueDequeueMany(handle=p, n=3, component_types=[tf.int64, tf.string])
    with tf.Session() as sess:
        sess.run([e1])
        sess.run([e2])
        sess.run(pe)
        return {"padded": sess.run(many), "priority": sess.run(pd)}


def queue_v1_random_shuffle(tf):
    R = tf.raw_ops
    q = R.RandomShuffleQueue(
        component_types=[tf.int32], shapes=[[]], capacity=10, min_after_dequeue=2, seed=3, seed2=4
    )
    enq = R.QueueEnqueueMany(handle=q, components=[np.arange(6, dtype=np.int32)])
    up_to = R.QueueDequeueUpTo(handle=q, n=3, component_types=[tf.int32])
    close = R.QueueClose(handle=q)
    size = R.QueueSize(handle=q)
    with tf.Session() as sess:
        sess.run(enq)
        first = sess.run(up_to)
        after = sess.run(size)
        sess.run(close)
        rest = sess.run(up_to)
        return {"taken": np.sort(np.concatenate(first + rest)), "size_after": after}


def queue_v1_blocking(tf):
    R = tf.raw_ops
    q = R.FIFOQueue(component_types=[tf.float32], shapes=[[]], capacity=1)
    deq = R.QueueDequeue(handle=q, component_types=[tf.float32])
    enq = R.QueueEnqueue(handle=q, components=[1.0])
    bad = R.QueueEnqueue(handle=q, components=[np.int32(1)])
    opts = tf.RunOptions(timeout_in_ms=200)
    with tf.Session() as sess:
        out = {"dequeue_empty": _error(lambda: sess.run(deq, options=opts))}
        sess.run(enq)
        out["enqueue_full"] = _error(lambda: sess.run(enq, options=opts))
        out["wrong_type"] = _error(lambda: sess.run(bad))
        out["value"] = sess.run(deq)
    return out


def queue_v1_fake_and_shared(tf):
    R = tf.raw_ops
    res = R.FIFOQueueV2(component_types=[tf.int32], shapes=[[]])
    ref = R.FakeQueue(resource=res)
    enq = R.QueueEnqueueMany(handle=ref, components=[[1, 2, 3]])
    deq = R.QueueDequeueV2(handle=res, component_types=[tf.int32])
    old = R.FIFOQueue(component_types=[tf.int32], shapes=[[]], shared_name="shared_q")
    new = R.FIFOQueueV2(component_types=[tf.int32], shapes=[[]], shared_name="shared_q")
    put = R.QueueEnqueue(handle=old, components=[42])
    get = R.QueueDequeueV2(handle=new, component_types=[tf.int32])
    with tf.Session() as sess:
        sess.run(enq)
        sess.run(put)
        return {
            "fake": [sess.run(deq), sess.run(deq)],
            "shared": sess.run(get),
            "static": _static(ref),
        }


# ---- readers --------------------------------------------------------------------------------


def _files(tf, folder):
    records = os.path.join(folder, "a.tfrecord")
    with tf.python_io.TFRecordWriter(records) as w:
        for i in range(5):
            w.write(f"record-{i}".encode())
    text = os.path.join(folder, "b.txt")
    with open(text, "w") as f:
        f.write("header\nline one\nline two\nline three\n")
    fixed = os.path.join(folder, "c.bin")
    with open(fixed, "wb") as f:
        f.write(b"HH" + b"abcdefghijkl" + b"F")
    return records, text, fixed


def _relative(values, folder):
    prefix = folder.encode()
    flat = [v.replace(prefix, b"DIR") for v in np.asarray(values, object).reshape(-1)]
    return np.array(flat, dtype=object).reshape(np.shape(values))


def _old_reader(tf, op_type, **attrs):
    """A reader op TF 1.15 no longer builds (removed at GraphDef version 26), brought in as
    graphs written before then have it: a GraphDef of producer version 21."""
    graph_def = tf.GraphDef()
    graph_def.versions.producer = 21
    node = graph_def.node.add()
    node.op = op_type
    node.name = "reader"
    for key in ("container", "shared_name"):
        node.attr[key].s = b""
    for key, value in attrs.items():
        node.attr[key].i = value
    (handle,) = tf.import_graph_def(graph_def, return_elements=["reader:0"], name=op_type)
    return handle


def readers_v1(tf):
    R = tf.raw_ops
    folder = tempfile.mkdtemp()
    try:
        records, text, fixed = _files(tf, folder)
        out = {}

        def queue_of(names):
            q = R.FIFOQueue(component_types=[tf.string], shapes=[[]])
            return q, R.QueueEnqueueMany(handle=q, components=[names]), R.QueueClose(handle=q)

        q, fill, close = queue_of([records, records])
        r = _old_reader(tf, "TFRecordReader")
        read = R.ReaderRead(reader_handle=r, queue_handle=q)
        read_up_to = R.ReaderReadUpTo(reader_handle=r, queue_handle=q, num_records=3)
        produced = R.ReaderNumRecordsProduced(reader_handle=r)
        done = R.ReaderNumWorkUnitsCompleted(reader_handle=r)
        state = R.ReaderSerializeState(reader_handle=r)
        reset = R.ReaderReset(reader_handle=r)
        with tf.Session() as sess:
            sess.run(fill)
            sess.run(close)
            k, v = sess.run(read)
            out["tfrecord_first"] = [_relative(k, folder), v]
            ks, vs = sess.run(read_up_to)
            out["tfrecord_up_to"] = [_relative(ks, folder), vs]
            out["tfrecord_serialize"] = _error(lambda: sess.run(state))
            out["counts"] = sess.run([produced, done])
            sess.run(reset)
            out["counts_after_reset"] = sess.run([produced, done])
            out["static"] = [_static(r), _static(read.key), _static(read_up_to.keys)]

        q, fill, close = queue_of([text])
        r = _old_reader(tf, "TextLineReader", skip_header_lines=1)
        read_up_to = R.ReaderReadUpTo(reader_handle=r, queue_handle=q, num_records=10)
        with tf.Session() as sess:
            sess.run(fill)
            sess.run(close)
            ks, vs = sess.run(read_up_to)
            out["text_lines"] = [_relative(ks, folder), vs]
            out["text_exhausted"] = _error(lambda: sess.run(read_up_to))

        q, fill, close = queue_of([fixed])
        r = _old_reader(
            tf, "FixedLengthRecordReader", header_bytes=2, record_bytes=4, footer_bytes=1
        )
        read = R.ReaderRead(reader_handle=r, queue_handle=q)
        with tf.Session() as sess:
            sess.run(fill)
            sess.run(close)
            # TF 1.15's kernel asks for an `encoding` attr the first op never had: it fails
            # with NotFoundError (tfcluster reads the records; the test says so).
            out["fixed"] = _attempt(lambda: [sess.run(read.value) for _ in range(3)])

        q, fill, close = queue_of([text, fixed])
        r = R.WholeFileReader()
        read = R.ReaderRead(reader_handle=r, queue_handle=q)
        with tf.Session() as sess:
            sess.run(fill)
            sess.run(close)
            k, v = sess.run(read)
            out["whole_file"] = [_relative(k, folder), v]

        q, fill, close = queue_of(["w1", "w2", "w3"])
        r = _old_reader(tf, "IdentityReader")
        read = R.ReaderRead(reader_handle=r, queue_handle=q)
        state = R.ReaderSerializeState(reader_handle=r)
        restore = R.ReaderRestoreState(reader_handle=r, state=state)
        with tf.Session() as sess:
            sess.run(fill)
            sess.run(close)
            out["identity"] = [sess.run(read)]
            saved = sess.run(state)
            out["identity"].append(sess.run(read))
            sess.run(restore, feed_dict={state: saved})
            produced = R.ReaderNumRecordsProduced(reader_handle=r)
            out["identity_restored"] = [sess.run(produced), sess.run(read), sess.run(produced)]
            out["restore_garbage"] = _error(lambda: sess.run(restore, {state: b"garbage"}))
        return out
    finally:
        shutil.rmtree(folder)


# ---- stacks -----------------------------------------------------------------------------------


def stack_v1(tf):
    R = tf.raw_ops
    s = R.Stack(elem_type=tf.float32, stack_name="st")
    x = tf.placeholder(tf.float32, [2])
    push = R.StackPush(handle=s, elem=x)
    pop = R.StackPop(handle=s, elem_type=tf.float32)
    close = R.StackClose(handle=s)
    with tf.Session() as sess:
        # A stack lives for one step: push twice and pop in the same run.
        with tf.control_dependencies([push]):
            again = R.StackPush(handle=s, elem=x * 2)
        with tf.control_dependencies([again]):
            top = R.StackPop(handle=s, elem_type=tf.float32)
        out = {
            "pushed": sess.run(push, {x: [1.0, 2.0]}),
            "top": sess.run(top, {x: [1.0, 2.0]}),
            "pop_empty": _error(lambda: sess.run(pop)),
            "static": [_static(s), _static(pop)],
        }
        sess.run(close)
    return out


# ---- tables -----------------------------------------------------------------------------------


def _sorted_export(keys, values):
    order = np.argsort(keys, axis=0, kind="stable").reshape(-1)
    return [keys[order], values[order]]


def tables_v1(tf):
    R = tf.raw_ops
    h = R.HashTable(key_dtype=tf.string, value_dtype=tf.int64)
    init = R.InitializeTable(
        table_handle=h, keys=["a", "b", "c"], values=np.array([1, 2, 3], np.int64)
    )
    find = R.LookupTableFind(
        table_handle=h, keys=[["a", "z"], ["c", "b"]], default_value=np.int64(-1)
    )
    size = R.LookupTableSize(table_handle=h)
    export = R.LookupTableExport(table_handle=h, Tkeys=tf.string, Tvalues=tf.int64)
    insert = R.LookupTableInsert(table_handle=h, keys=["d"], values=np.array([4], np.int64))
    folder = tempfile.mkdtemp()
    try:
        vocab = os.path.join(folder, "vocab.txt")
        with open(vocab, "w") as f:
            f.write("x\t10\ny\t20\n")
        t = R.HashTable(key_dtype=tf.string, value_dtype=tf.int64)
        from_file = R.InitializeTableFromTextFile(
            table_handle=t, filename=vocab, key_index=0, value_index=1
        )
        t_find = R.LookupTableFind(table_handle=t, keys=["y", "x", "q"], default_value=np.int64(0))
        with tf.Session() as sess:
            before = _error(lambda: sess.run(find))
            sess.run(init)
            sess.run(from_file)
            k, v = sess.run(export)
            return {
                "find_before_init": before,
                "find": sess.run(find),
                "size": sess.run(size),
                "export": _sorted_export(k, v),
                "insert_static": _error(lambda: sess.run(insert)),
                "from_file": sess.run(t_find),
                "static": [_static(h), _static(find), _static(size)] + [_static(e) for e in export],
            }
    finally:
        shutil.rmtree(folder)


def _mutable_table(tf, version):
    R = tf.raw_ops
    make = getattr(R, "MutableHashTable" + version)
    insert = getattr(R, "LookupTableInsert" + version)
    find = getattr(R, "LookupTableFind" + version)
    size = getattr(R, "LookupTableSize" + version)
    export = getattr(R, "LookupTableExport" + version)
    imp = getattr(R, "LookupTableImport" + version)
    t = make(key_dtype=tf.int64, value_dtype=tf.float32)
    keys = np.array([3, 1, 2], np.int64)
    ins = insert(table_handle=t, keys=keys, values=np.array([0.3, 0.1, 0.2], np.float32))
    over = insert(table_handle=t, keys=np.array([1], np.int64), values=np.array([1.5], np.float32))
    f = find(
        table_handle=t, keys=np.array([[1, 4], [3, 2]], np.int64), default_value=np.float32(-1)
    )
    ex = export(table_handle=t, Tkeys=tf.int64, Tvalues=tf.float32)
    im = imp(
        table_handle=t, keys=np.array([7, 8], np.int64), values=np.array([7.0, 8.0], np.float32)
    )

    # Built inside the check: TF 1.15's V2 shape functions refuse some at graph time.
    def bad_shape():
        return insert(table_handle=t, keys=keys, values=np.array([1.0, 2.0], np.float32))

    def bad_default():
        return find(table_handle=t, keys=keys, default_value=np.array([1.0], np.float32))

    def bad_key():
        return find(table_handle=t, keys=np.array([1], np.int32), default_value=np.float32(0))

    with tf.Session() as sess:
        sess.run(ins)
        sess.run(over)
        case = {"find": sess.run(f), "size": sess.run(size(table_handle=t))}
        case["export"] = _sorted_export(*sess.run(ex))
        sess.run(im)
        case["after_import"] = _sorted_export(*sess.run(ex))
        case["bad_value_shape"] = _error(lambda: sess.run(bad_shape()))
        case["bad_default"] = _error(lambda: sess.run(bad_default()))
        case["bad_key_type"] = _error(lambda: sess.run(bad_key()))
        if version:
            rm = R.LookupTableRemoveV2(table_handle=t, keys=np.array([7, 9], np.int64))
            sess.run(rm)
            case["after_remove"] = sess.run(size(table_handle=t))
        case["static"] = [_static(t), _static(f)] + [_static(e) for e in ex]
    return case


def mutable_hash_tables(tf):
    return {"V1": _mutable_table(tf, ""), "V2": _mutable_table(tf, "V2")}


def mutable_hash_table_of_tensors(tf):
    R = tf.raw_ops
    out = {}
    for version in ("", "V2"):
        t = getattr(R, "MutableHashTableOfTensors" + version)(
            key_dtype=tf.string, value_dtype=tf.float32, value_shape=[2]
        )
        insert = getattr(R, "LookupTableInsert" + version)
        find = getattr(R, "LookupTableFind" + version)
        export = getattr(R, "LookupTableExport" + version)
        ins = insert(table_handle=t, keys=["a", "b"], values=[[1.0, 2.0], [3.0, 4.0]])
        f = find(table_handle=t, keys=[["a", "c"], ["b", "b"]], default_value=[0.0, -1.0])
        ex = export(table_handle=t, Tkeys=tf.string, Tvalues=tf.float32)
        with tf.Session() as sess:
            sess.run(ins)
            out[version or "V1"] = {
                "find": sess.run(f),
                "export": _sorted_export(*sess.run(ex)),
                "static": [_static(f)] + [_static(e) for e in ex],
            }
    return out


def mutable_dense_hash_table(tf):
    R = tf.raw_ops
    t = R.MutableDenseHashTableV2(
        empty_key=np.int64(-1),
        deleted_key=np.int64(-2),
        value_dtype=tf.float32,
        value_shape=[2],
        initial_num_buckets=8,
        max_load_factor=0.5,
    )
    keys = np.array([5, 13, 3, 100, 7], np.int64)
    ins = R.LookupTableInsertV2(
        table_handle=t, keys=keys, values=np.arange(10, dtype=np.float32).reshape(5, 2)
    )
    rm = R.LookupTableRemoveV2(table_handle=t, keys=np.array([13, 99], np.int64))
    f = R.LookupTableFindV2(
        table_handle=t, keys=np.array([5, 13, 100, 4], np.int64), default_value=[-1.0, -1.0]
    )
    ex = R.LookupTableExportV2(table_handle=t, Tkeys=tf.int64, Tvalues=tf.float32)
    size = R.LookupTableSizeV2(table_handle=t)
    empty = R.LookupTableInsertV2(
        table_handle=t, keys=np.array([-1], np.int64), values=[[0.0, 0.0]]
    )
    deleted = R.LookupTableFindV2(
        table_handle=t, keys=np.array([-2], np.int64), default_value=[0.0, 0.0]
    )
    # TF's shape function refuses constant keys and values of a tensor-valued table: fed.
    import_keys = tf.placeholder(tf.int64)
    import_values = tf.placeholder(tf.float32)
    imp = R.LookupTableImportV2(table_handle=t, keys=import_keys, values=import_values)
    s = R.MutableDenseHashTableV2(
        empty_key="", deleted_key="<del>", value_dtype=tf.int64, initial_num_buckets=4
    )
    s_ins = R.LookupTableInsertV2(
        table_handle=s, keys=["apple", "pear", "fig"], values=np.array([1, 2, 3], np.int64)
    )
    s_ex = R.LookupTableExportV2(table_handle=s, Tkeys=tf.string, Tvalues=tf.int64)
    with tf.Session() as sess:
        sess.run(ins)
        sess.run(rm)
        out = {"find": sess.run(f), "export": sess.run(ex), "size": sess.run(size)}
        out["insert_empty_key"] = _error(lambda: sess.run(empty))
        out["find_deleted_key"] = _error(lambda: sess.run(deleted))
        # What an export gives back (keys [buckets, 1]), empty and deleted keys skipped.
        fed = {
            import_keys: np.array([[-1], [11], [-2], [12]], np.int64),
            import_values: np.ones([4, 2], np.float32),
        }
        sess.run(imp, fed)
        out["after_import"] = sess.run([ex, size])
        fed[import_keys] = np.array([11, 12, 13, 14], np.int64)
        out["import_flat_keys"] = _error(lambda: sess.run(imp, fed))
        sess.run(s_ins)
        out["strings"] = sess.run(s_ex)
        out["static"] = [_static(f)] + [_static(e) for e in ex]
    return out


# ---- accumulators -----------------------------------------------------------------------------


def resource_accumulator(tf):
    R = tf.raw_ops
    acc = R.ResourceConditionalAccumulator(dtype=tf.float32, shape=[2], shared_name="acc")
    g = tf.placeholder(tf.float32, [2])
    step = tf.placeholder(tf.int64, [])
    apply = R.ResourceAccumulatorApplyGradient(handle=acc, local_step=step, gradient=g)
    num = R.ResourceAccumulatorNumAccumulated(handle=acc)
    take = R.ResourceAccumulatorTakeGradient(handle=acc, num_required=2, dtype=tf.float32)
    set_step = R.ResourceAccumulatorSetGlobalStep(handle=acc, new_global_step=np.int64(5))
    with tf.Session() as sess:
        sess.run(apply, {g: [1.0, 2.0], step: 0})
        sess.run(apply, {g: [3.0, 4.0], step: 0})
        out = {"num": sess.run(num), "mean": sess.run(take)}
        sess.run(set_step)
        sess.run(apply, {g: [9.0, 9.0], step: 1})  # stale: dropped
        out["num_after_stale"] = sess.run(num)
        out["take_times_out"] = _error(
            lambda: sess.run(take, options=tf.RunOptions(timeout_in_ms=200))
        )
        out["static"] = [_static(acc), _static(take)]
    return out


# ---- barriers -------------------------------------------------------------------------------


def barrier(tf):
    R = tf.raw_ops
    b = R.Barrier(component_types=[tf.float32, tf.int32], shapes=[[], [2]], shared_name="bar")
    keys = tf.placeholder(tf.string, [None])
    floats = tf.placeholder(tf.float32, [None])
    pairs = tf.placeholder(tf.int32, [None, 2])
    put0 = R.BarrierInsertMany(handle=b, keys=keys, values=floats, component_index=0)
    put1 = R.BarrierInsertMany(handle=b, keys=keys, values=pairs, component_index=1)
    ready = R.BarrierReadySize(handle=b)
    incomplete = R.BarrierIncompleteSize(handle=b)
    types = [tf.float32, tf.int32]
    take2 = R.BarrierTakeMany(handle=b, num_elements=2, component_types=types)
    take_small = R.BarrierTakeMany(
        handle=b, num_elements=3, component_types=types, allow_small_batch=True
    )
    close = R.BarrierClose(handle=b)
    opts = tf.RunOptions(timeout_in_ms=200)
    with tf.Session() as sess:
        sess.run(put0, {keys: [b"a", b"b", b"c"], floats: [1.0, 2.0, 3.0]})
        out = {"sizes_first": sess.run([ready, incomplete])}
        sess.run(put1, {keys: [b"b", b"a"], pairs: [[1, 1], [2, 2]]})
        out["sizes_second"] = sess.run([ready, incomplete])
        out["take"] = sess.run(take2)
        out["again_component"] = _error(lambda: sess.run(put0, {keys: [b"c"], floats: [9.0]}))
        out["bad_shape"] = _error(lambda: sess.run(put1, {keys: [b"c"], pairs: [[1, 2, 3]]}))
        out["take_times_out"] = _error(lambda: sess.run(take2, options=opts))
        sess.run(put0, {keys: [b"a", b"d"], floats: [4.0, 5.0]})
        sess.run(put1, {keys: [b"d"], pairs: [[5, 5]]})
        sess.run(close)
        out["new_key_closed"] = _error(lambda: sess.run(put0, {keys: [b"e"], floats: [1.0]}))
        sess.run(put1, {keys: [b"c"], pairs: [[3, 3]]})
        out["sizes_closed"] = sess.run([ready, incomplete])
        out["take_small"] = _attempt(lambda: sess.run(take_small, options=opts))
        out["after"] = _error(lambda: sess.run(take_small, options=opts))
        out["static"] = [_static(b)] + [
            _static(t) for t in [take2.indices, take2.keys, *take2.values]
        ]
    return out


def barrier_cancel_and_errors(tf):
    R = tf.raw_ops
    b = R.Barrier(component_types=[tf.string], shapes=[[]])
    put = R.BarrierInsertMany(handle=b, keys=["x", "y"], values=["1", "2"], component_index=0)
    wrong = R.BarrierInsertMany(handle=b, keys=["x"], values=[1.0], component_index=0)
    out_of_range = R.BarrierInsertMany(handle=b, keys=["x"], values=["1"], component_index=1)
    take = R.BarrierTakeMany(handle=b, num_elements=1, component_types=[tf.string])
    waiting = R.BarrierTakeMany(
        handle=b, num_elements=1, component_types=[tf.string], wait_for_incomplete=True
    )
    unshaped = R.Barrier(component_types=[tf.float32])
    b2 = R.Barrier(component_types=[tf.float32, tf.float32], shapes=[[], []])
    half = R.BarrierInsertMany(handle=b2, keys=["k"], values=[1.0], component_index=0)
    other = R.BarrierInsertMany(handle=b2, keys=["k"], values=[2.0], component_index=1)
    cancel = R.BarrierClose(handle=b2, cancel_pending_enqueues=True)
    sizes = [R.BarrierReadySize(handle=b2), R.BarrierIncompleteSize(handle=b2)]
    take2 = R.BarrierTakeMany(handle=b2, num_elements=1, component_types=[tf.float32, tf.float32])
    with tf.Session() as sess:
        sess.run(put)
        out = {
            "take": sess.run(take),
            "wrong_type": _error(lambda: sess.run(wrong)),
            "bad_component": _error(lambda: sess.run(out_of_range)),
            "wait_for_incomplete": _attempt(lambda: sess.run(waiting)),
            "no_shapes": _error(lambda: sess.run(unshaped)),
        }
        sess.run(half)
        sess.run(cancel)
        out["after_cancel"] = sess.run(sizes)
        out["insert_after_cancel"] = _error(lambda: sess.run(other))
        out["take_after_cancel"] = _error(lambda: sess.run(take2))
    return out


# ---- staging areas ----------------------------------------------------------------------------


def _blocks(sess, fetches, feed, release):
    """Whether running fetches blocks (TF's staging ops ignore step timeouts: they wait on a
    condition variable), and what it gives once release() has made room or data."""
    done = {}

    def run():
        try:
            done["value"] = sess.run(fetches, feed)
        except Exception as e:
            done["value"] = type(e).__name__

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(0.3)
    blocked = thread.is_alive()
    release()
    thread.join(10)
    return [blocked, done.get("value", "still blocked")]


def staging_area(tf):
    R = tf.raw_ops
    types = [tf.float32, tf.int32]
    area = {"dtypes": types, "capacity": 2, "shared_name": "area"}
    x = tf.placeholder(tf.float32, [2])
    y = tf.placeholder(tf.int32, [])
    put = R.Stage(values=[x, y], capacity=2, shared_name="area")
    get = R.Unstage(**area)
    peek = R.StagePeek(index=1, **area)
    size = R.StageSize(**area)
    clear = R.StageClear(**area)
    small = {"dtypes": [tf.float32], "memory_limit": 12, "shared_name": "small"}
    z = tf.placeholder(tf.float32, [None])
    put_small = R.Stage(values=[z], memory_limit=12, shared_name="small")
    get_small = R.Unstage(**small)
    size_small = R.StageSize(**small)
    with tf.Session() as sess:
        sess.run(put, {x: [1.0, 2.0], y: 1})
        sess.run(put, {x: [3.0, 4.0], y: 2})
        out = {"size": sess.run(size), "peek": sess.run(peek)}
        got = []
        out["put_full"] = _blocks(
            sess, put, {x: [5.0, 6.0], y: 3}, lambda: got.append(sess.run(get))
        )
        out["get"] = got
        out["size_after_get"] = sess.run(size)
        sess.run(clear)
        out["size_after_clear"] = sess.run(size)
        out["get_empty"] = _blocks(sess, get, None, lambda: sess.run(put, {x: [7.0, 8.0], y: 4}))
        sess.run(put, {x: [7.0, 8.0], y: 5})
        out["peek_missing"] = _blocks(
            sess, peek, None, lambda: sess.run(put, {x: [9.0, 9.0], y: 6})
        )
        sess.run(put_small, {z: [1.0, 2.0]})
        out["memory_blocks"] = _blocks(
            sess, put_small, {z: [1.0, 2.0]}, lambda: sess.run(get_small)
        )
        out["too_big"] = _error(lambda: sess.run(put_small, {z: [1.0, 2.0, 3.0, 4.0]}))
        out["size_small"] = sess.run(size_small)
        out["static"] = [_static(t) for t in get + peek] + [_static(size)]
    return out


def _map_ops(R, ordered):
    prefix = "OrderedMap" if ordered else "Map"
    names = ("Stage", "Unstage", "UnstageNoKey", "Peek", "Size", "IncompleteSize", "Clear")
    return {op: getattr(R, prefix + op) for op in names}


def _map_case(tf, ordered):
    ops = _map_ops(tf.raw_ops, ordered)
    types = [tf.float32, tf.int32]
    name = "ordered" if ordered else "plain"
    common = {"dtypes": types, "shared_name": name, "capacity": 3}
    key = tf.placeholder(tf.int64, [])
    x = tf.placeholder(tf.float32, [])
    y = tf.placeholder(tf.int32, [])
    put = ops["Stage"](key=key, indices=[0, 1], values=[x, y], **common)
    put0 = ops["Stage"](key=key, indices=[0], values=[x], **common)
    put1 = ops["Stage"](key=key, indices=[1], values=[y], **common)
    get = ops["Unstage"](key=key, indices=[0, 1], **common)
    # A partial get lists the types of the components it takes (as MapStagingArea.get).
    get0 = ops["Unstage"](key=key, indices=[0], dtypes=[tf.float32], shared_name=name, capacity=3)
    get1 = ops["Unstage"](key=key, indices=[1], dtypes=[tf.int32], shared_name=name, capacity=3)
    get_any = ops["UnstageNoKey"](indices=[0, 1], **common)
    peek = ops["Peek"](key=key, indices=[0, 1], **common)
    size = ops["Size"](**common)
    incomplete = ops["IncompleteSize"](**common)
    clear = ops["Clear"](**common)
    with tf.Session() as sess:
        for k in (5, 3):
            sess.run(put, {key: k, x: float(k), y: k * 10})
        sess.run(put0, {key: 9, x: 9.0})
        case = {"sizes": sess.run([size, incomplete])}
        case["same_component_again"] = _error(lambda: sess.run(put0, {key: 9, x: 1.0}))
        sess.run(put1, {key: 9, y: 90})
        case["sizes_complete"] = sess.run([size, incomplete])
        got = []
        case["full"] = _blocks(
            sess,
            put,
            {key: 11, x: 1.0, y: 1},
            lambda: got.append(sess.run(get, {key: 5})),
        )
        case["get"] = [*got, sess.run(get, {key: 11})]
        case["peek"] = sess.run(peek, {key: 9})
        case["get_missing"] = _blocks(
            sess, get, {key: 5}, lambda: sess.run(put, {key: 5, x: 2.0, y: 2})
        )
        case["get_part"] = sess.run(get0, {key: 9})
        case["sizes_after_part"] = sess.run([size, incomplete])
        case["get_rest"] = sess.run(get1, {key: 9})
        case["sizes_after_rest"] = sess.run([size, incomplete])
        case["get_any"] = _attempt(lambda: sess.run(get_any))
        case["sizes_end"] = sess.run([size, incomplete])
        sess.run(put, {key: 1, x: 1.0, y: 1})
        sess.run(clear)
        case["after_clear"] = sess.run([size, incomplete])
        statics = [*get, get_any.key, *get_any.values, size]
        case["static"] = [_static(t) for t in statics]
    return case


def map_staging_area(tf):
    return {"plain": _map_case(tf, False), "ordered": _map_case(tf, True)}


# ---- RecordInput -----------------------------------------------------------------------------


def record_input(tf):
    """Batches of a whole epoch's size are each one epoch (in some order)."""
    R = tf.raw_ops
    folder = tempfile.mkdtemp()
    try:
        for f in range(3):
            with tf.python_io.TFRecordWriter(os.path.join(folder, f"p-{f}.rec")) as w:
                for i in range(4):
                    w.write(f"r{f}-{i}".encode())
        pattern = os.path.join(folder, "p-*.rec")
        out = {}
        for buffer_size, parallelism in ((100, 16), (5, 2)):
            records = R.RecordInput(
                file_pattern=pattern,
                batch_size=12,
                file_buffer_size=buffer_size,
                file_parallelism=parallelism,
            )
            with tf.Session() as sess:
                batches = [np.sort(sess.run(records)) for _ in range(3)]
            out[f"buffer_{buffer_size}"] = batches
        small = R.RecordInput(file_pattern=pattern, batch_size=5, file_buffer_size=1)
        with tf.Session() as sess:
            out["small_batches"] = np.sort(np.concatenate([sess.run(small) for _ in range(12)]))
        missing = R.RecordInput(file_pattern=os.path.join(folder, "nothing-*"))
        with tf.Session() as sess:
            out["no_files"] = _error(lambda: sess.run(missing))
        out["static"] = _static(records)
        return out
    finally:
        shutil.rmtree(folder)


# ---- tf.lookup.experimental.DenseHashTable ----------------------------------------------------


def build_dense_hash_table(tf):
    """The table both the checkpoint cases build: int64 keys to float pairs."""
    return tf.lookup.experimental.DenseHashTable(
        key_dtype=tf.int64,
        value_dtype=tf.float32,
        default_value=[-1.0, -1.0],
        empty_key=0,
        deleted_key=-1,
        initial_num_buckets=8,
    )


DENSE_KEYS = np.array([3, 11, 19, 5], np.int64)
DENSE_VALUES = np.array([[0.5, 1.0], [1.5, 2.0], [2.5, 3.0], [3.5, 4.0]], np.float32)


def dense_hash_table(tf):
    table = build_dense_hash_table(tf)
    insert = table.insert(DENSE_KEYS, DENSE_VALUES)
    erase = table.erase(tf.constant([11, 7], tf.int64))
    found = table.lookup(tf.constant([3, 11, 19, 4], tf.int64))
    matrix = table.lookup(tf.constant([[3, 11], [19, 4]], tf.int64))
    size = table.size()
    keys, values = table.export()
    saver = tf.train.Saver()
    folder = tempfile.mkdtemp()
    try:
        with tf.Session() as sess:
            sess.run(insert)
            sess.run(erase)
            out = {
                "found": sess.run(found),
                "size": sess.run(size),
                "export": sess.run([keys, values]),
                "empty_key": _error(lambda: sess.run(table.insert([0], [[1.0, 1.0]]))),
                "matrix_keys": _error(lambda: sess.run(matrix)),
            }
            path = saver.save(sess, os.path.join(folder, "model"))
        out["checkpoint"] = sorted([name, shape] for name, shape in tf.train.list_variables(path))
        with tf.Session() as sess:
            saver.restore(sess, path)
            out["restored"] = sess.run([found, size])
        out["names"] = [
            table.name,
            table.resource_handle.name,
            found.name,
            size.name,
            keys.name,
            insert.name,
            erase.name,
        ]
        out["static"] = [_static(found), _static(keys), _static(values)]
        out["erase_wrong_dtype"] = _error(lambda: table.erase(tf.constant([1], tf.int32)))
        return out
    finally:
        shutil.rmtree(folder)


# ---- TensorArray: the first versions, from old GraphDefs --------------------------------------


def _import_nodes(tf, producer, nodes, fetches):
    """Imports nodes (name, op, inputs, attrs) as a GraphDef of an older producer version
    (TF 1.15 builds these ops only from such graphs) and returns the fetched tensors. An
    attr is (kind, value): kind a field of AttrValue, or "tensor" for a constant."""
    graph_def = tf.GraphDef()
    graph_def.versions.producer = producer
    for name, op, inputs, attrs in nodes:
        node = graph_def.node.add()
        node.name, node.op = name, op
        node.input.extend(inputs)
        for key, (kind, value) in attrs.items():
            attr = node.attr[key]
            if kind == "type":
                attr.type = value.as_datatype_enum
            elif kind == "shape":
                attr.shape.CopyFrom(tf.TensorShape(value).as_proto())
            elif kind == "tensor":
                attr.tensor.CopyFrom(tf.make_tensor_proto(value))
            else:
                setattr(attr, kind, value)
    return tf.import_graph_def(graph_def, return_elements=fetches, name="old")


def _const(tf, name, value, dtype):
    return (name, "Const", [], {"dtype": ("type", dtype), "value": ("tensor", value)})


def _tensor_array_nodes(tf, suffix, make_op):
    f32, i32 = tf.float32, tf.int32
    ta_attrs = {
        "dtype": ("type", f32),
        "element_shape": ("shape", [2]),
        "dynamic_size": ("b", False),
        "clear_after_read": ("b", False),
        "tensor_array_name": ("s", b""),
    }
    t_attr = {"T": ("type", f32)}
    read_attrs = {"dtype": ("type", f32)}
    gather_attrs = {"dtype": ("type", f32), "element_shape": ("shape", [2])}
    return [
        _const(tf, "size", np.int32(3), i32),
        _const(tf, "flow", np.float32(0), f32),
        _const(tf, "v0", np.array([1, 2], np.float32), f32),
        _const(tf, "v1", np.array([3, 4], np.float32), f32),
        _const(tf, "rows", np.array([[5, 6]], np.float32), f32),
        _const(tf, "i0", np.int32(0), i32),
        _const(tf, "i1", np.int32(1), i32),
        _const(tf, "at2", np.array([2], np.int32), i32),
        _const(tf, "order", np.array([2, 0], np.int32), i32),
        ("ta", make_op, ["size"], ta_attrs),
        ("w0", "TensorArrayWrite" + suffix, ["ta", "i0", "v0", "flow"], t_attr),
        ("w1", "TensorArrayWrite" + suffix, ["ta", "i1", "v1", "w0"], t_attr),
        ("sc", "TensorArrayScatter" + suffix, ["ta", "at2", "rows", "w1"], t_attr),
        ("sz", "TensorArraySize" + suffix, ["ta", "sc"], {}),
        ("g", "TensorArrayGather" + suffix, ["ta", "order", "sc"], gather_attrs),
        ("r", "TensorArrayRead" + suffix, ["ta", "i1", "sc"], read_attrs),
        (
            "c",
            "TensorArrayConcat" + suffix,
            ["ta", "sc"],
            {"dtype": ("type", f32), "element_shape_except0": ("shape", None)},
        ),
        ("gr", "TensorArrayGrad" + suffix, ["ta", "sc"], {"source": ("s", b"grad")}),
        ("gw", "TensorArrayWrite" + suffix, ["gr", "i0", "v1", "flow"], t_attr),
        ("gread", "TensorArrayRead" + suffix, ["gr", "i0", "gw"], read_attrs),
        ("close", "TensorArrayClose" + suffix, ["ta"], {}),
    ]


def tensor_array_v1_v2(tf):
    out = {}
    fetches = ["sz:0", "g:0", "r:0", "c:0", "c:1", "gread:0"]
    for suffix, producer, make_op in (("", 15, "TensorArray"), ("V2", 21, "TensorArrayV2")):
        with tf.Graph().as_default():
            nodes = _tensor_array_nodes(tf, suffix, make_op)
            tensors = _import_nodes(tf, producer, nodes, [*fetches, "ta:0", "close"])
            with tf.Session() as sess:
                out[make_op] = {
                    "values": sess.run(tensors[: len(fetches)]),
                    "close": _attempt(lambda close=tensors[-1]: sess.run(close)),
                    "handle": _static(tensors[-2]),
                }
    with tf.Graph().as_default():
        f32 = tf.float32
        nodes = [
            _const(tf, "size", np.int32(3), tf.int32),
            _const(tf, "flow", np.float32(0), f32),
            _const(tf, "value", np.arange(6, dtype=np.float32).reshape(3, 2), f32),
            _const(tf, "i2", np.int32(2), tf.int32),
            (
                "ta",
                "TensorArray",
                ["size"],
                {"dtype": ("type", f32), "clear_after_read": ("b", False)},
            ),
            ("unpack", "TensorArrayUnpack", ["ta", "value", "flow"], {"T": ("type", f32)}),
            ("pack", "TensorArrayPack", ["ta", "unpack"], {"dtype": ("type", f32)}),
            ("r", "TensorArrayRead", ["ta", "i2", "unpack"], {"dtype": ("type", f32)}),
        ]
        pack, read = _import_nodes(tf, 15, nodes, ["pack:0", "r:0"])
        with tf.Session() as sess:
            out["pack_unpack"] = sess.run([pack, read])
    return out


def tensor_array_grad_with_shape(tf):
    R = tf.raw_ops
    ta = R.TensorArrayV3(size=2, dtype=tf.float32, element_shape=[2])
    handle, flow = ta.handle, ta.flow
    flow = R.TensorArrayWriteV3(handle=handle, index=0, value=[1.0, 2.0], flow_in=flow)
    flow = R.TensorArrayWriteV3(handle=handle, index=1, value=[3.0, 4.0], flow_in=flow)
    grad = R.TensorArrayGradWithShape(
        handle=handle, flow_in=flow, shape_to_prepend=[3], source="jac"
    )
    wrote = R.TensorArrayWriteV3(
        handle=grad.grad_handle, index=0, value=np.ones([3, 2], np.float32), flow_in=grad.flow_out
    )
    read0 = R.TensorArrayReadV3(handle=grad.grad_handle, index=0, flow_in=wrote, dtype=tf.float32)
    read1 = R.TensorArrayReadV3(handle=grad.grad_handle, index=1, flow_in=wrote, dtype=tf.float32)

    def bad():
        # TF 1.15 knows the gradient's element shape from its handle: refused at graph time.
        return R.TensorArrayWriteV3(
            handle=grad.grad_handle, index=1, value=[1.0, 1.0], flow_in=grad.flow_out
        )

    with tf.Session() as sess:
        return {
            "reads": sess.run([read0, read1]),
            "wrong_shape": _error(lambda: sess.run(bad())),
            "static": [_static(grad.grad_handle), _static(grad.flow_out)],
        }


# ---- TensorList -------------------------------------------------------------------------------


def tensor_lists(tf):
    R = tf.raw_ops
    f32 = tf.float32
    out = {}
    empty = R.EmptyTensorList(element_shape=[2], max_num_elements=3, element_dtype=f32)
    one = R.TensorListPushBack(input_handle=empty, tensor=[1.0, 2.0])
    two = R.TensorListPushBack(input_handle=one, tensor=[3.0, 4.0])
    popped, item = R.TensorListPopBack(input_handle=two, element_shape=[2], element_dtype=f32)
    full = R.TensorListPushBack(
        input_handle=R.TensorListPushBack(input_handle=two, tensor=[5.0, 6.0]), tensor=[7.0, 8.0]
    )
    reserved = R.TensorListReserve(element_shape=[2], num_elements=3, element_dtype=f32)
    set1 = R.TensorListSetItem(input_handle=reserved, index=1, item=[9.0, 9.0])
    from_tensor = R.TensorListFromTensor(tensor=[[1, 2], [3, 4], [5, 6]], element_shape=[2])
    scattered = R.TensorListScatterV2(
        tensor=[[1.0], [2.0]], indices=[3, 0], element_shape=[1], num_elements=5
    )
    split = R.TensorListSplit(
        tensor=[[1.0], [2.0], [3.0]], element_shape=[-1, 1], lengths=np.array([1, 2], np.int64)
    )
    resized = R.TensorListResize(input_handle=two, size=4)
    lists = R.TensorListConcatLists(input_a=two, input_b=one, element_dtype=f32)
    int_list = R.TensorListFromTensor(tensor=[7, 8], element_shape=-1)
    fetches = {
        "stack_two": R.TensorListStack(input_handle=two, element_shape=[2], element_dtype=f32),
        "popped_item": item,
        "popped_length": R.TensorListLength(input_handle=popped),
        "input_unchanged": R.TensorListLength(input_handle=two),
        "reserved_stack": R.TensorListStack(
            input_handle=set1, element_shape=[2], element_dtype=f32, num_elements=3
        ),
        "get_item": R.TensorListGetItem(
            input_handle=from_tensor, index=2, element_shape=[2], element_dtype=tf.int32
        ),
        "gather": R.TensorListGather(
            input_handle=from_tensor, indices=[2, 0], element_shape=[2], element_dtype=tf.int32
        ),
        "scattered": R.TensorListStack(
            input_handle=scattered, element_shape=[1], element_dtype=f32
        ),
        "split_concat": R.TensorListConcat(input_handle=split, element_dtype=f32),
        "concat_v2": R.TensorListConcatV2(
            input_handle=R.TensorListReserve(
                element_shape=[-1, 2], num_elements=2, element_dtype=f32
            ),
            element_shape=[-1, 2],
            leading_dims=np.array([1, 2], np.int64),
            element_dtype=f32,
        ),
        "resized_length": R.TensorListLength(input_handle=resized),
        "concat_lists": R.TensorListStack(input_handle=lists, element_shape=[2], element_dtype=f32),
        "element_shape": R.TensorListElementShape(input_handle=split, shape_type=tf.int32),
        "unknown_rank": R.TensorListElementShape(input_handle=int_list, shape_type=tf.int64),
    }
    with tf.Session() as sess:
        for key, value in sorted(fetches.items()):
            out[key] = sess.run(value)
        out["dtypes"] = {
            k: (v.dtype.name if hasattr(v, "dtype") else [t.dtype.name for t in v])
            for k, v in fetches.items()
        }
        errors = {
            "push_full": full,
            "push_wrong_dtype": lambda: R.TensorListPushBack(
                input_handle=empty, tensor=np.array([1, 2], np.int32)
            ),
            "push_wrong_shape": lambda: R.TensorListPushBack(input_handle=empty, tensor=[1.0]),
            "pop_empty": lambda: R.TensorListPopBack(
                input_handle=empty, element_shape=[2], element_dtype=f32
            ),
            "get_out_of_range": lambda: R.TensorListGetItem(
                input_handle=from_tensor, index=5, element_shape=[2], element_dtype=tf.int32
            ),
            "stack_wrong_count": lambda: R.TensorListStack(
                input_handle=two, element_shape=[2], element_dtype=f32, num_elements=5
            ),
            "read_unset_unknown_shape": lambda: R.TensorListStack(
                input_handle=R.TensorListReserve(
                    element_shape=-1, num_elements=2, element_dtype=f32
                ),
                element_shape=-1,
                element_dtype=f32,
            ),
            "wrong_element_dtype": lambda: R.TensorListGetItem(
                input_handle=from_tensor, index=0, element_shape=[2], element_dtype=f32
            ),
        }
        for key, build in sorted(errors.items()):
            out[key] = _error(lambda b=build: sess.run(b() if callable(b) else b))
    return out


# ---- summary writers --------------------------------------------------------------------------


def _read_events(tf, folder):
    """Every event of the files in folder, as comparable fields (wall times left out)."""
    out = []
    for name in sorted(os.listdir(folder)):
        for event in tf.train.summary_iterator(os.path.join(folder, name)):
            fields = {"step": event.step}
            if event.file_version:
                fields["file_version"] = event.file_version
            if event.graph_def:
                graph_def = tf.GraphDef()
                graph_def.ParseFromString(event.graph_def)
                fields["graph_nodes"] = sorted(n.name for n in graph_def.node)
            for value in event.summary.value:
                item = {"tag": value.tag}
                kind = value.WhichOneof("value")
                item["kind"] = kind
                if kind == "simple_value":
                    item["value"] = np.float32(value.simple_value)
                elif kind == "histo":
                    item["histo"] = [
                        value.histo.min,
                        value.histo.max,
                        value.histo.num,
                        value.histo.sum,
                        list(value.histo.bucket),
                    ]
                elif kind == "image":
                    item["image"] = [value.image.height, value.image.width, value.image.colorspace]
                elif kind == "audio":
                    item["audio"] = [
                        value.audio.sample_rate,
                        value.audio.num_channels,
                        value.audio.length_frames,
                        value.audio.content_type,
                    ]
                elif kind == "tensor":
                    item["tensor"] = tf.make_ndarray(value.tensor)
                    item["plugin"] = value.metadata.plugin_data.plugin_name
                fields.setdefault("values", []).append(item)
            out.append(fields)
    return out


def summary_writers(tf):
    R = tf.raw_ops
    folder = tempfile.mkdtemp()
    try:
        writer = R.SummaryWriter(shared_name="w")
        create = R.CreateSummaryFileWriter(
            writer=writer, logdir=folder, max_queue=10, flush_millis=100000, filename_suffix=".x"
        )
        step = tf.placeholder(tf.int64, [])
        meta = tf.SummaryMetadata()
        meta.plugin_data.plugin_name = "custom"
        raw = tf.Summary()
        raw.value.add(tag="raw", simple_value=2.5)
        event = tf.Event(step=9, wall_time=1.0)
        event.summary.value.add(tag="imported", simple_value=1.5)
        graph_def = tf.Graph()
        with graph_def.as_default():
            tf.constant(1.0, name="c")
        writes = [
            R.WriteScalarSummary(writer=writer, step=step, tag="loss", value=0.25),
            R.WriteHistogramSummary(writer=writer, step=step, tag="h", values=[1.0, 2.0, 2.0, 5.0]),
            R.WriteImageSummary(
                writer=writer,
                step=step,
                tag="img",
                tensor=np.zeros([2, 3, 4, 1], np.float32),
                bad_color=np.array([255, 0, 0, 255], np.uint8),
                max_images=1,
            ),
            R.WriteAudioSummary(
                writer=writer,
                step=step,
                tag="snd",
                tensor=np.zeros([1, 8], np.float32),
                sample_rate=8000.0,
                max_outputs=2,
            ),
            R.WriteSummary(
                writer=writer,
                step=step,
                tensor=[[1, 2]],
                tag="t",
                summary_metadata=meta.SerializeToString(),
            ),
            R.WriteRawProtoSummary(writer=writer, step=step, tensor=raw.SerializeToString()),
            R.WriteGraphSummary(
                writer=writer, step=step, tensor=graph_def.as_graph_def().SerializeToString()
            ),
            R.ImportEvent(writer=writer, event=[event.SerializeToString()]),
        ]
        flush = R.FlushSummaryWriter(writer=writer)
        close = R.CloseSummaryWriter(writer=writer)
        with tf.Session() as sess:
            sess.run(create)
            for i, op in enumerate(writes):
                sess.run(op, {step: i + 1})
            sess.run(flush)
            sess.run(close)
        files = os.listdir(folder)
        return {
            "files": [f.startswith("events.out.tfevents.") and f.endswith(".x") for f in files],
            "events": _read_events(tf, folder),
        }
    finally:
        shutil.rmtree(folder)


def first_summary_ops(tf):
    """TensorSummary (tagged with its node name) and AudioSummary (from a GraphDef older than
    version 15, its sample rate an attr)."""
    R = tf.raw_ops
    tensor = R.TensorSummary(
        tensor=[[1.5, 2.0]], description="what", display_name="shown", name="tensor_sum"
    )
    nodes = [
        _const(tf, "tag", b"snd", tf.string),
        _const(tf, "clips", np.zeros([2, 4], np.float32), tf.float32),
        (
            "audio",
            "AudioSummary",
            ["tag", "clips"],
            {"sample_rate": ("f", 4000.0), "max_outputs": ("i", 1)},
        ),
    ]
    (audio,) = _import_nodes(tf, 14, nodes, ["audio:0"])
    with tf.Session() as sess:
        t, a = sess.run([tensor, audio])
    ts, aus = tf.Summary(), tf.Summary()
    ts.ParseFromString(t)
    aus.ParseFromString(a)
    value = ts.value[0]
    return {
        "tensor": [
            value.node_name,
            value.tag,
            value.metadata.display_name,
            value.metadata.summary_description,
            tf.make_ndarray(value.tensor),
        ],
        "audio": [
            [v.tag, v.audio.sample_rate, v.audio.num_channels, v.audio.length_frames]
            for v in aus.value
        ],
    }


CASES = {
    f.__name__: f
    for f in [
        queue_v1_fifo,
        queue_v1_padding_priority,
        queue_v1_random_shuffle,
        queue_v1_blocking,
        queue_v1_fake_and_shared,
        readers_v1,
        stack_v1,
        tables_v1,
        mutable_hash_tables,
        mutable_hash_table_of_tensors,
        mutable_dense_hash_table,
        resource_accumulator,
        barrier,
        barrier_cancel_and_errors,
        staging_area,
        map_staging_area,
        record_input,
        dense_hash_table,
        tensor_array_v1_v2,
        tensor_array_grad_with_shape,
        tensor_lists,
        summary_writers,
        first_summary_ops,
    ]
}
