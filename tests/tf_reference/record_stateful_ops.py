"""Records TF 1.15's answers for the programs of stateful_ops_cases.py (the first versions of
the queue / reader / stack / table ops, mutable tables, barriers, staging areas...):
tests/unit/test_stateful_raw_ops.py runs the same programs on tfcluster. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_stateful_ops.py
"""

import json
import os
import sys

import numpy as np
import tensorflow as tf
from recorder import DATA_DIR, Recorder
from stateful_ops_cases import CASES, DENSE_KEYS, DENSE_VALUES, build_dense_hash_table

if not tf.__version__.startswith("1."):
    raise SystemExit("record_stateful_ops.py records TensorFlow 1.15")

PIPELINE_DIR = os.path.join(DATA_DIR, "stateful_ops")


def _pipeline_graph_def():
    """An input pipeline as graphs written before resource handles have it: filename queue,
    TFRecordReader, a vocabulary HashTable and a RandomShuffleQueue batch, all first-version
    ops (TF 1.15 builds the removed readers only from old GraphDefs: the V2 reader ops are
    renamed, and the producer version set to 21)."""
    from tensorflow.python.ops import gen_data_flow_ops, gen_lookup_ops

    R = tf.raw_ops
    g = tf.Graph()
    with g.as_default():
        files = tf.placeholder(tf.string, [None], name="filenames")
        fq = gen_data_flow_ops.fifo_queue([tf.string], shapes=[[]], name="filename_queue")
        gen_data_flow_ops.queue_enqueue_many(fq, [files], name="enqueue_filenames")
        gen_data_flow_ops.queue_close(fq, name="close_filenames")
        reader = R.TFRecordReaderV2(name="reader")
        stand_in = R.FIFOQueueV2(component_types=[tf.string], name="stand_in")
        _key, value = R.ReaderReadV2(reader_handle=reader, queue_handle=stand_in, name="read")
        table = gen_lookup_ops.hash_table(tf.string, tf.int64, name="labels")
        gen_lookup_ops.initialize_table(
            table,
            tf.constant([b"odd", b"even"]),
            tf.constant([1, 0], tf.int64),
            name="init_labels",
        )
        kind = tf.strings.split([value], "-").values[0]
        label = gen_lookup_ops.lookup_table_find(
            table, kind, tf.constant(-1, tf.int64), name="label"
        )
        sq = gen_data_flow_ops.random_shuffle_queue(
            [tf.string, tf.int64],
            shapes=[[], []],
            capacity=50,
            min_after_dequeue=4,
            seed=7,
            seed2=8,
            name="shuffle_queue",
        )
        gen_data_flow_ops.queue_enqueue(sq, [value, label], name="enqueue_example")
        gen_data_flow_ops.queue_close(sq, name="close_examples")
        gen_data_flow_ops.queue_dequeue_many(sq, 4, [tf.string, tf.int64], name="batch")
        gen_data_flow_ops.queue_size(sq, name="examples_size")
    graph_def = g.as_graph_def()
    graph_def.versions.producer = 21
    for node in graph_def.node:
        if node.op == "TFRecordReaderV2":
            node.op = "TFRecordReader"
        if node.op == "ReaderReadV2":
            # The first ReaderRead takes the filename queue's string handle itself.
            node.op = "ReaderRead"
            node.input[1] = "filename_queue"
    graph_def.node.remove(next(n for n in graph_def.node if n.name == "stand_in"))
    return graph_def


def record_pipeline():
    os.makedirs(PIPELINE_DIR, exist_ok=True)
    paths = []
    for f in range(2):
        path = os.path.join(PIPELINE_DIR, f"part-{f}.tfrecord")
        with tf.python_io.TFRecordWriter(path) as w:
            for i in range(6):
                n = f * 6 + i
                w.write(f"{'odd' if n % 2 else 'even'}-{n}".encode())
        paths.append(path)
    graph_def = _pipeline_graph_def()
    with open(os.path.join(PIPELINE_DIR, "v1_input_pipeline.pb"), "wb") as f:
        f.write(graph_def.SerializeToString())
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(graph_def, name="")
        with tf.Session() as sess:
            sess.run("init_labels")
            sess.run("enqueue_filenames", {"filenames:0": paths})
            sess.run("close_filenames")
            for _ in range(12):
                sess.run("enqueue_example")
            end_of_files = Recorder.catch(lambda: sess.run("enqueue_example"))
            batches = [sess.run(["batch:0", "batch:1"]) for _ in range(2)]
            left = sess.run("examples_size:0")
            sess.run("close_examples")
            batches.append(sess.run(["batch:0", "batch:1"]))
            after = Recorder.catch(lambda: sess.run("batch:0"))
    records = np.concatenate([b[0] for b in batches])
    labels = np.concatenate([b[1] for b in batches])
    order = np.argsort(records)
    return {
        "files": [os.path.basename(p) for p in paths],
        "ops": sorted({n.op for n in graph_def.node}),
        "records": records[order],
        "labels": labels[order],
        "left_before_close": left,
        "end_of_files": end_of_files,
        "after_close": after,
    }


def record_dense_checkpoint():
    """A checkpoint TF 1.15 saved of a DenseHashTable (its bucket arrays), for tfcluster to
    restore, and what the table then looks up."""
    folder = os.path.join(PIPELINE_DIR, "dense_table")
    os.makedirs(folder, exist_ok=True)
    g = tf.Graph()
    with g.as_default():
        table = build_dense_hash_table(tf)
        insert = table.insert(DENSE_KEYS, DENSE_VALUES)
        found = table.lookup(tf.constant([19, 3, 2], tf.int64))
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(insert)
            saver.save(
                sess, os.path.join(folder, "model"), write_meta_graph=False, write_state=False
            )
            return {"found": sess.run(found), "size": sess.run(table.size())}


rec = Recorder("stateful_ops")
only = sys.argv[1:]  # case names to record again; the others keep their recorded values
if only:
    with open(os.path.join(DATA_DIR, "stateful_ops.json")) as f:
        rec.cases = {k: v for k, v in json.load(f)["cases"].items() if k not in only}
for name, program in sorted(CASES.items()):
    if only and name not in only:
        continue
    tf.reset_default_graph()
    tf.set_random_seed(1)
    rec.add(name, **program(tf))
if not only or "dense_checkpoint" in only:
    rec.add("dense_checkpoint", **record_dense_checkpoint())
if not only or "v1_input_pipeline" in only:
    rec.add("v1_input_pipeline", **record_pipeline())
rec.save()
