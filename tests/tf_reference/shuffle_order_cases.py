"""Programs whose answer is the order a seeded tf.data shuffle hands elements out in: each case
builds a graph with `tf` (TensorFlow 1.15 when recorded by record_shuffle_order.py, tfcluster in
tests/unit/test_shuffle_order_tf115.py) and returns the elements it reads. Python 3.7 code: the
recorder runs it under TF 1.15 itself."""

import numpy as np


def _read(tf, tensor, n=None):
    """Every element of a one-shot iterator's get_next (n of them when given)."""
    out = []
    with tf.Session() as sess:
        while n is None or len(out) < n:
            try:
                out.append(int(sess.run(tensor)))
            except tf.errors.OutOfRangeError:
                break
    return out


def _shuffled(tf, n, buffer_size, seed=7, **kw):
    ds = tf.data.Dataset.range(n).shuffle(buffer_size, seed=seed, **kw)
    return np.array(_read(tf, ds.make_one_shot_iterator().get_next()), np.int64)


def buffer_smaller_than_input(tf):
    return {"order": _shuffled(tf, 40, 8)}


def buffer_equal_to_input(tf):
    return {"order": _shuffled(tf, 30, 30, seed=123)}


def buffer_larger_than_input(tf):
    return {"order": _shuffled(tf, 25, 1000, seed=3)}


def buffer_of_one_keeps_order(tf):
    return {"order": _shuffled(tf, 10, 1)}


def negative_and_large_seeds(tf):
    return {
        "negative": _shuffled(tf, 20, 6, seed=-5),
        "large": _shuffled(tf, 20, 6, seed=2**40 + 17),
    }


def graph_seed_only(tf):
    tf.set_random_seed(1234)
    ds = tf.data.Dataset.range(30).shuffle(10)
    return {"order": np.array(_read(tf, ds.make_one_shot_iterator().get_next()), np.int64)}


def graph_and_op_seed(tf):
    tf.set_random_seed(99)
    return {"order": _shuffled(tf, 30, 10, seed=5)}


def shuffle_then_repeat_reshuffles(tf):
    ds = tf.data.Dataset.range(12).shuffle(5, seed=11).repeat(3)
    return {"order": np.array(_read(tf, ds.make_one_shot_iterator().get_next()), np.int64)}


def shuffle_then_repeat_same_order(tf):
    ds = tf.data.Dataset.range(12).shuffle(5, seed=11, reshuffle_each_iteration=False).repeat(3)
    return {"order": np.array(_read(tf, ds.make_one_shot_iterator().get_next()), np.int64)}


def shuffle_map_repeat_draws_new_seeds_each_epoch(tf):
    # A map between shuffle and repeat stops TF's shuffle_and_repeat fusion: each epoch is
    # a new shuffle iterator seeded by the RandomSeedGenerator.
    ds = tf.data.Dataset.range(12).shuffle(5, seed=11).map(lambda x: x + 100).repeat(3)
    return {"order": np.array(_read(tf, ds.make_one_shot_iterator().get_next()), np.int64)}


def shuffle_repeat_with_fusion_disabled(tf):
    ds = tf.data.Dataset.range(12).shuffle(5, seed=11).repeat(3)
    options = tf.data.Options()
    options.experimental_optimization.shuffle_and_repeat_fusion = False
    ds = ds.with_options(options)
    return {"order": np.array(_read(tf, ds.make_one_shot_iterator().get_next()), np.int64)}


def repeat_then_shuffle(tf):
    ds = tf.data.Dataset.range(10).repeat(3).shuffle(7, seed=21)
    return {"order": np.array(_read(tf, ds.make_one_shot_iterator().get_next()), np.int64)}


def shuffle_and_repeat(tf):
    ds = tf.data.Dataset.range(10).apply(
        tf.data.experimental.shuffle_and_repeat(6, count=3, seed=8)
    )
    return {"order": np.array(_read(tf, ds.make_one_shot_iterator().get_next()), np.int64)}


def shuffle_and_repeat_buffer_spans_epochs(tf):
    ds = tf.data.Dataset.range(3).apply(
        tf.data.experimental.shuffle_and_repeat(100, count=6, seed=8)
    )
    return {"order": np.array(_read(tf, ds.make_one_shot_iterator().get_next()), np.int64)}


def shuffle_and_repeat_forever(tf):
    ds = tf.data.Dataset.range(7).apply(tf.data.experimental.shuffle_and_repeat(4, seed=2))
    return {"order": np.array(_read(tf, ds.make_one_shot_iterator().get_next(), 40), np.int64)}


def two_iterators_of_one_dataset(tf):
    ds = tf.data.Dataset.range(15).shuffle(6, seed=4)
    a = ds.make_one_shot_iterator().get_next()
    b = ds.make_one_shot_iterator().get_next()
    out_a, out_b = [], []
    with tf.Session() as sess:
        for _ in range(15):
            x, y = sess.run([a, b])
            out_a.append(int(x))
            out_b.append(int(y))
    return {"first": np.array(out_a, np.int64), "second": np.array(out_b, np.int64)}


def initializable_iterator_reinitialised(tf):
    ds = tf.data.Dataset.range(12).shuffle(5, seed=9)
    it = ds.make_initializable_iterator()
    nxt = it.get_next()
    runs = []
    with tf.Session() as sess:
        for _ in range(3):
            sess.run(it.initializer)
            run = []
            for _ in range(12):
                run.append(int(sess.run(nxt)))
            runs.append(run)
    return {"runs": np.array(runs, np.int64)}


def batched_shuffle(tf):
    ds = tf.data.Dataset.range(50).shuffle(16, seed=42).batch(7)
    nxt = ds.make_one_shot_iterator().get_next()
    out = []
    with tf.Session() as sess:
        while True:
            try:
                out.extend(int(v) for v in sess.run(nxt))
            except tf.errors.OutOfRangeError:
                break
    return {"order": np.array(out, np.int64)}


def _batches(tf, ds):
    """Every element of a dataset of batches, in order."""
    nxt = ds.make_one_shot_iterator().get_next()
    out = []
    with tf.Session() as sess:
        while True:
            try:
                out.extend(int(v) for v in sess.run(nxt))
            except tf.errors.OutOfRangeError:
                break
    return np.array(out, np.int64)


def large_batches_of_a_shuffle_fill_and_drain(tf):
    # Batches larger than the buffer: a batch spans the fill, the steady picks and the drain.
    ds = tf.data.Dataset.range(300).shuffle(40, seed=5).batch(64)
    return {"order": _batches(tf, ds)}


def batches_of_shuffle_and_repeat_with_more_epochs_than_the_buffer_keeps(tf):
    # Epochs of 5 in a buffer of 100: once more than 3 epochs are in it, each pick lets one
    # element more in, though a batch's read has the rest of the epoch at hand.
    ds = tf.data.Dataset.range(5).apply(
        tf.data.experimental.shuffle_and_repeat(100, count=12, seed=3)
    )
    return {"order": _batches(tf, ds.batch(16))}


def repeated_batches_of_a_shuffle_refill_each_epoch(tf):
    ds = tf.data.Dataset.range(90).shuffle(30, seed=17).batch(32, drop_remainder=True).repeat(3)
    return {"order": _batches(tf, ds)}


def shuffled_slices_batched_map(tf):
    x = np.arange(60, dtype=np.float32).reshape(30, 2)
    ds = tf.data.Dataset.from_tensor_slices(x).shuffle(9, seed=13).map(lambda v: v * 2.0).batch(4)
    nxt = ds.make_one_shot_iterator().get_next()
    out = []
    with tf.Session() as sess:
        while True:
            try:
                out.append(sess.run(nxt))
            except tf.errors.OutOfRangeError:
                break
    return {"values": np.concatenate(out)}


def shuffle_repeated_once_is_a_plain_shuffle(tf):
    # TF's noop_elimination drops repeat(1) before shuffle_and_repeat fusion could apply.
    ds = tf.data.Dataset.range(30).shuffle(10, seed=7).repeat(1)
    return {"order": np.array(_read(tf, ds.make_one_shot_iterator().get_next()), np.int64)}


def shuffle_map_repeat_batched(tf):
    # The map between shuffle and repeat still stops the fusion when the batch after them
    # computes the map on whole batches.
    tf.set_random_seed(5)
    ds = tf.data.Dataset.range(40).shuffle(100).map(lambda x: x * 2).repeat(2).batch(8)
    return {"order": _batches(tf, ds)}


def shuffle_and_repeat_fuse_through_eliminated_noops(tf):
    # noop_elimination drops prefetch(0), take(-1) and skip(0) before the fusion; a real
    # prefetch between them stays and keeps them apart.
    def order(between):
        ds = between(tf.data.Dataset.range(30).shuffle(8, seed=3)).repeat(2)
        return np.array(_read(tf, ds.make_one_shot_iterator().get_next()), np.int64)

    return {
        "prefetch_0": order(lambda d: d.prefetch(0)),
        "take_all": order(lambda d: d.take(-1)),
        "skip_none": order(lambda d: d.skip(0)),
        "prefetch_2": order(lambda d: d.prefetch(2)),
        "repeat_once": order(lambda d: d.repeat(1)),
    }


def _files(names):
    """A new directory holding an empty file of each name."""
    import os
    import tempfile

    folder = tempfile.mkdtemp()
    for name in names:
        open(os.path.join(folder, name), "w").close()
    return folder


def list_files_shuffled_by_graph_seed(tf):
    # list_files builds TF's graph op for op: the shuffle's op seed, and every op seed after
    # it, count its ops.
    folder = _files([f"f{i:02d}.txt" for i in range(12)])
    tf.set_random_seed(11)
    files = tf.data.Dataset.list_files(folder + "/*.txt").repeat(2)
    later = tf.data.Dataset.range(20).shuffle(6).repeat(2)
    names = _read_bytes(tf, files.make_one_shot_iterator().get_next())
    return {
        "files": np.array([n[-7:] for n in names]),
        "later": np.array(_read(tf, later.make_one_shot_iterator().get_next()), np.int64),
    }


def _read_bytes(tf, tensor):
    out = []
    with tf.Session() as sess:
        while True:
            try:
                out.append(sess.run(tensor).decode())
            except tf.errors.OutOfRangeError:
                return out


def list_files_without_a_match(tf):
    folder = _files([])
    ds = tf.data.Dataset.list_files(folder + "/*.txt")
    it = ds.make_initializable_iterator()
    one_shot = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        try:
            sess.run(it.initializer)
            init_error = ""
        except tf.errors.InvalidArgumentError as e:
            init_error = e.message.splitlines()[0].replace(folder, "DIR")
    return {"init_error": np.array(init_error), "one_shot": np.array(_read_bytes(tf, one_shot))}


def shuffle_and_repeat_transformation_with_graph_seed(tf):
    tf.set_random_seed(11)
    ds = tf.data.Dataset.range(30).apply(tf.data.experimental.shuffle_and_repeat(8, 2))
    return {"order": np.array(_read(tf, ds.make_one_shot_iterator().get_next()), np.int64)}


def random_dataset_values(tf):
    out = {}
    for key, graph_seed, seed in [
        ("op_seed", None, 5),
        ("graph_seed", 11, None),
        ("large", None, 2**40 + 3),
    ]:
        with tf.Graph().as_default():
            if graph_seed is not None:
                tf.set_random_seed(graph_seed)
            ds = tf.data.experimental.RandomDataset(seed).take(9)
            out[key] = np.array(_read(tf, ds.make_one_shot_iterator().get_next()), np.int64)
    return out


def sample_from_datasets_draws(tf):
    out = {}
    for key in ["uniform", "weights", "weights_dataset"]:
        with tf.Graph().as_default():
            tf.set_random_seed(11)
            a = tf.data.Dataset.range(0, 10)
            b = tf.data.Dataset.range(100, 110)
            c = tf.data.Dataset.range(200, 210)
            if key == "uniform":
                ds = tf.data.experimental.sample_from_datasets([a, b, c])
            elif key == "weights":
                ds = tf.data.experimental.sample_from_datasets([a, b, c], [0.2, 0.5, 0.3], seed=3)
            else:
                w = tf.data.Dataset.from_tensor_slices(
                    np.array([[0.1, 0.8, 0.1], [0.6, 0.2, 0.2]] * 20, np.float32)
                )
                ds = tf.data.experimental.sample_from_datasets([a, b, c], w)
            out[key] = np.array(_read(tf, ds.make_one_shot_iterator().get_next()), np.int64)
    return out


CASES = {
    name: fn
    for name, fn in dict(globals()).items()
    if callable(fn) and not name.startswith("_") and fn.__module__ == __name__
}
