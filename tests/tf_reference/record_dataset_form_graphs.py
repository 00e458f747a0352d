"""Writes MetaGraphs of tf.data pipelines whose graphs TF 1.15 builds with the remaining
dataset ops (ExperimentalGroupByReducerDataset, ParseExampleDataset with its variant sparse
components, AssertNextDataset, ChooseFastestBranchDataset) into
data/dataset_form_graphs/, and records what they give (every element, or the error met)
for tests/unit/test_dataset_form_graphs.py, which imports and runs them on tfcluster. Run
under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_dataset_form_graphs.py
"""

import os

import numpy as np
import tensorflow as tf
from dataset_form_ops_cases import DATASET_GRAPHS, snapshot_input
from iterator_steps import run_to_end
from recorder import Recorder
from tensorflow.python.data.experimental.ops import optimization, snapshot

if not tf.__version__.startswith("1."):
    raise SystemExit("record_dataset_form_graphs.py records TensorFlow 1.15")

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "data", "dataset_form_graphs")


def _plain_options():
    """No optimisation and no autotuning: the graph holds the pipeline as written."""
    options = tf.data.Options()
    options.experimental_optimization.apply_default_optimizations = False
    options.experimental_optimization.autotune = False
    return options


def group_by_reducer():
    reducer = tf.data.experimental.Reducer(
        init_func=lambda key: tf.constant(0, tf.int64),
        reduce_func=lambda state, v: state + v * v,
        finalize_func=lambda state: state * 10,
    )
    ds = tf.data.Dataset.range(10).apply(
        tf.data.experimental.group_by_reducer(lambda v: v % 3, reducer)
    )
    return ds


def _example(x, tags):
    feature = {"x": tf.train.Feature(float_list=tf.train.FloatList(value=x))}
    if tags:
        feature["tags"] = tf.train.Feature(int64_list=tf.train.Int64List(value=tags))
    proto = tf.train.Example(features=tf.train.Features(feature=feature))
    return proto.SerializeToString()


def parse_example_dataset():
    records = [
        _example([1.0, 2.0], [1, 2, 3]),
        _example([3.0, 4.0], []),
        _example([5.0, 6.0], [4]),
        _example([7.0, 8.0], [5, 6]),
        _example([9.0, 10.0], []),
    ]
    ds = tf.data.Dataset.from_tensor_slices(tf.constant(records)).batch(2)
    features = {
        "x": tf.io.FixedLenFeature([2], tf.float32),
        "tags": tf.io.VarLenFeature(tf.int64),
        "weight": tf.io.FixedLenFeature([], tf.float32, default_value=0.5),
    }
    return ds.apply(tf.data.experimental.parse_example_dataset(features, num_parallel_calls=2))


def assert_next_passes():
    ds = (
        tf.data.Dataset.range(5)
        .apply(optimization.assert_next(["Map", "BatchV2"]))
        .map(lambda v: v * 3)
        .batch(2)
    )
    return ds.with_options(_plain_options())


def assert_next_fails():
    ds = (
        tf.data.Dataset.range(5)
        .apply(optimization.assert_next(["Filter"]))
        .map(lambda v: v * 3)
        .batch(2)
    )
    return ds.with_options(_plain_options())


def choose_fastest_branch():
    ds = tf.data.Dataset.range(13)
    return optimization._ChooseFastestBranchDataset(  # pylint: disable=protected-access
        ds,
        [lambda d: d.map(lambda v: v * 2).batch(3), lambda d: d.batch(3).map(lambda v: v * 2)],
        ratio_numerator=3,
        num_elements_per_branch=2,
    )


PIPELINES = {
    f.__name__: f
    for f in (
        group_by_reducer,
        parse_example_dataset,
        assert_next_passes,
        assert_next_fails,
        choose_fastest_branch,
    )
}


def _flat(value):
    if isinstance(value, dict):
        return [x for k in sorted(value) for x in _flat(value[k])]
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in _flat(v)]
    if isinstance(value, tf.SparseTensor):
        return [value.indices, value.values, value.dense_shape]
    return [value]


def _elements(sess, dataset):
    nxt = tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()
    out = []
    while True:
        try:
            out.append(sess.run(nxt))
        except tf.errors.OutOfRangeError:
            return out


def record_dataset_graphs(rec):
    """TF's GraphDefs of datasets (DatasetToGraph) to <name>.dataset_graph."""
    for name, build in sorted(DATASET_GRAPHS.items()):
        with tf.Graph().as_default():
            dataset = build(tf)
            graph = tf.raw_ops.DatasetToGraph(input_dataset=dataset._variant_tensor)
            with tf.Session() as sess:
                data = sess.run(graph)
                elements = _elements(sess, dataset)
        with open(os.path.join(OUT, name + ".dataset_graph"), "wb") as f:
            f.write(data)
        rec.add("dataset_graph/" + name, elements=elements)


def read_tfcluster_dataset_graphs(rec):
    """TF 1.15 runs the GraphDefs tfcluster wrote (write_dataset_form_graphs.py)."""
    folder = os.path.join(OUT, "tfcluster")
    for name in sorted(DATASET_GRAPHS):
        with open(os.path.join(folder, name + ".dataset_graph"), "rb") as f:
            data = f.read()
        with tf.Graph().as_default():
            fed = tf.placeholder(tf.string, [])
            # A fed GraphDef: TF's constant folding cannot run DatasetFromGraph ahead.
            made = tf.raw_ops.DatasetFromGraph(graph_def=fed)
            structure = DATASET_GRAPHS[name](tf)
            types = tf.nest.flatten(tf.compat.v1.data.get_output_types(structure))
            shapes = tf.nest.flatten(tf.compat.v1.data.get_output_shapes(structure))
            handle = tf.raw_ops.IteratorV2(
                shared_name="", container="", output_types=types, output_shapes=shapes
            )
            init = tf.raw_ops.MakeIterator(dataset=made, iterator=handle)
            nxt = tf.raw_ops.IteratorGetNext(
                iterator=handle, output_types=types, output_shapes=shapes
            )
            elements = []
            with tf.Session() as sess:
                sess.run(init, {fed: data})
                while True:
                    try:
                        elements.append(sess.run(nxt))
                    except tf.errors.OutOfRangeError:
                        break
        rec.add("tfcluster_dataset_graph/" + name, elements=elements)


def _snapshot_elements(path):
    with tf.Graph().as_default():
        made = snapshot.snapshot(path)(snapshot_input(tf))
        with tf.Session() as sess:
            return [list(e) for e in _elements(sess, made)]


def read_tfcluster_snapshot(rec):
    """TF 1.15 reads the snapshot files tfcluster wrote (write_dataset_form_graphs.py): TF
    writes its own snapshot of the same dataset first, then its finished run's files are
    replaced by tfcluster's (the folders are named by each one's own graph hash)."""
    import glob
    import shutil
    import tempfile
    import time

    path = tempfile.mkdtemp()
    expected = _snapshot_elements(path)
    time.sleep(1.0)  # TF finishes the run in a thread of its own
    (run,) = glob.glob(os.path.join(path, "*", "*", ""))
    theirs = glob.glob(os.path.join(OUT, "tfcluster_snapshot", "*", "*", "*.snapshot"))
    for name in glob.glob(os.path.join(run, "*.snapshot")):
        os.remove(name)
    for name in theirs:
        shutil.copy(name, run)
    # tfcluster's snapshot holds the elements of snapshot_input(tf, scale=10).
    rec.add(
        "tfcluster_snapshot",
        computed=expected,
        files=len(theirs),
        read=_snapshot_elements(path),
    )


def write_tf_snapshot(rec):
    """A finished TF 1.15 snapshot of snapshot_input(tf, scale=100) in tf_snapshot/ (the
    test has tfcluster read its records)."""
    import shutil
    import time

    path = os.path.join(OUT, "tf_snapshot")
    shutil.rmtree(path, ignore_errors=True)
    with tf.Graph().as_default():
        made = snapshot.snapshot(path)(snapshot_input(tf, scale=100))
        with tf.Session() as sess:
            elements = [list(e) for e in _elements(sess, made)]
    time.sleep(1.0)
    rec.add("tf_snapshot", elements=elements)


def main():
    os.makedirs(OUT, exist_ok=True)
    rec = Recorder("dataset_form_graphs")
    read_tfcluster_snapshot(rec)
    write_tf_snapshot(rec)
    record_dataset_graphs(rec)
    read_tfcluster_dataset_graphs(rec)
    for name, build in sorted(PIPELINES.items()):
        with tf.Graph().as_default() as g:
            iterator = tf.compat.v1.data.make_initializable_iterator(build())
            fetch = [t.name for t in _flat(iterator.get_next())]
            init = iterator.initializer.name
            tf.train.export_meta_graph(os.path.join(OUT, name + ".meta"), graph=g)
            op_types = sorted({op.type for op in g.get_operations()})
            with tf.Session() as sess:
                steps, error = run_to_end(tf, sess, init, fetch)
        rec.add(
            name,
            init=init,
            fetch=fetch,
            op_types=op_types,
            steps=steps,
            error=error,
        )
    rec.save()


_ = np
main()
