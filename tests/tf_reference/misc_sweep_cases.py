"""Behaviours public TF1 programs (WaveNet, pix2pix) showed apart on tfcluster. Each case is
`fn(tf) -> dict of plain values`, run on TF 1.15 by record_misc_sweep.py and on tfcluster by
tests/unit/test_misc_sweep_behaviours.py. Python 3.7 code."""

from __future__ import annotations

import logging

try:
    from tf_reference.case_tools import LoggedWarnings
except ImportError:  # run by the recorder from this folder
    from case_tools import LoggedWarnings


def collections_export(tf):
    """Which collections export_meta_graph keeps and how (kind, values), and the warning TF
    logs for each one it leaves out (WaveNet's training script trips on such a collection at
    every checkpoint)."""
    tf.reset_default_graph()
    tf.Variable(1.0, name="v")
    items = {
        "dicts": [{"filter_bias": 1}],
        "strings": ["abc", b"de"],
        "ints": [3, 4],
        "floats": [2.5],
        "bools": [True, False],
        "int_then_string": [1, "filter_bias"],
        "float_then_int": [0.5, 2],
    }
    for key, values in items.items():
        for value in values:
            tf.add_to_collection(key, value)
    handler = LoggedWarnings()
    logger = logging.getLogger("tensorflow")
    level = logger.level
    logger.setLevel(logging.WARNING)  # whatever verbosity a program set before
    logger.addHandler(handler)
    try:
        meta = tf.train.export_meta_graph()
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    kept = {}
    for key in items:
        if key in meta.collection_def:
            col = meta.collection_def[key]
            kind = col.WhichOneof("kind")
            kept[key] = [
                kind,
                [v.decode() if isinstance(v, bytes) else v for v in getattr(col, kind).value],
            ]
    return {"kept": kept, "warnings": sorted(m for m in handler.messages if "serializing" in m)}


def variable_trainable_given_positionally(tf):
    """`tf.Variable(initial, "filter_bias")` (WaveNet's bias variables) passes the name as
    `trainable`: TF keeps that value, makes the variable trainable, and its VariableDef cannot
    be written, so a MetaGraph leaves out both variable collections."""
    tf.reset_default_graph()
    v = tf.Variable([0.0, 1.0], "filter_bias")
    tf.Variable(2.0, name="w")
    out = {
        "trainable": v.trainable,
        "name": v.name,
        "trainable_variables": [x.name for x in tf.trainable_variables()],
        "collections": sorted(tf.train.export_meta_graph().collection_def.keys()),
    }
    try:
        v.to_proto()
        out["to_proto"] = "ok"
    except Exception as e:
        out["to_proto"] = type(e).__name__
    return out


def reshape_to_packed_sizes(tf):
    """GraphSAGE's sampler: reshape(ids, [support_size * batch_size]) with a placeholder of
    unknown shape gives a known rank, so the transposes after the lookup build a constant
    perm (and the op count, hence later op seeds, follows); a transpose of unknown rank."""
    tf.reset_default_graph()
    bs = tf.placeholder(tf.int32, name="bs")
    node = tf.placeholder(tf.int32, shape=None, name="node")
    adj = tf.Variable(tf.placeholder(tf.int32, shape=(61, 6)), trainable=False, name="adj")
    ids = tf.reshape(node, [3 * bs])
    shapes = {
        "flat": ids.shape.as_list(),
        "two": tf.reshape(node, [bs, 2]).shape.as_list(),
        "lookup": tf.nn.embedding_lookup(adj, ids).shape.as_list(),
    }
    graph = tf.get_default_graph()
    before = len(graph.get_operations())
    with tf.name_scope("known"):
        tf.transpose(tf.random_shuffle(tf.transpose(tf.nn.embedding_lookup(adj, ids))))
    with tf.name_scope("unknown"):
        tf.transpose(tf.nn.embedding_lookup(adj, node))
    ops = [[o.name, o.type] for o in graph.get_operations()[before:]]
    return {"shapes": shapes, "ops": ops}


def fixed_unigram_draws(tf):
    """tf.nn.fixed_unigram_candidate_sampler's draws for a graph seed (GraphSAGE's negative
    samples): TF's alias table over the distorted weights, read from its Philox stream; with
    and without unique, reserved ids, shards, and two steps each."""
    tf.reset_default_graph()
    tf.set_random_seed(123)
    labels = tf.constant([[1], [2], [3], [4]], tf.int64)
    unigrams = [3.0, 1.0, 2.0, 5.0, 1.0, 1.0, 2.0, 4.0, 0.5, 7.0, 1.0, 3.0]
    samplers = {
        "plain": tf.nn.fixed_unigram_candidate_sampler(
            labels, 1, 10, False, 12, distortion=0.75, unigrams=unigrams
        ),
        "unique": tf.nn.fixed_unigram_candidate_sampler(
            labels, 1, 6, True, 12, distortion=0.75, unigrams=unigrams
        ),
        "reserved_shard": tf.nn.fixed_unigram_candidate_sampler(
            labels, 1, 8, False, 7, num_reserved_ids=2, num_shards=2, shard=1, unigrams=unigrams
        ),
        "op_seed": tf.nn.fixed_unigram_candidate_sampler(
            labels, 1, 12, False, 12, unigrams=unigrams, seed=7
        ),
    }
    out = {}
    with tf.Session() as sess:
        for step in range(2):
            for name, sampler in samplers.items():
                sampled, true_count, sampled_count = sess.run(sampler)
                out[f"{name}_{step}"] = [
                    sampled.tolist(),
                    true_count.ravel().tolist(),
                    sampled_count.tolist(),
                ]
    return out


CASES = {
    "collections_export": collections_export,
    "variable_trainable_given_positionally": variable_trainable_given_positionally,
    "reshape_to_packed_sizes": reshape_to_packed_sizes,
    "fixed_unigram_draws": fixed_unigram_draws,
}
