"""Programs over TF 1.15's BoostedTrees raw ops (tf.raw_ops.BoostedTrees*): each case builds a
graph with `tf` (TensorFlow 1.15 when recorded by record_boosted_trees.py, tfcluster in
tests/unit/test_boosted_trees_ops.py) and returns what it computes, error classes included.
Python 3.7 code: the recorder runs it under TF 1.15 itself."""

import numpy as np

R = None  # set per call: tf.raw_ops


def _rng():
    return np.random.RandomState(11)


def _error_class(sess, fetch, feed=None):
    try:
        sess.run(fetch, feed_dict=feed)
    except Exception as e:  # the class name is what the test compares
        return type(e).__name__
    return "no error"


def _build_or_run_error(sess, build):
    """The class of the error building the op (graph-time shape checks) or running it."""
    try:
        fetch = build()
    except Exception as e:
        return "build:" + type(e).__name__
    return "run:" + _error_class(sess, fetch)


def _grads(n, seed=3):
    rng = np.random.RandomState(seed)
    g = rng.uniform(-1, 1, size=(n, 1)).astype(np.float32)
    h = rng.uniform(0.1, 1, size=(n, 1)).astype(np.float32)
    return g, h


def stats_summaries(tf):
    raw = tf.raw_ops
    rng = _rng()
    n = 40
    g, h = _grads(n)
    node_ids = rng.randint(0, 3, size=n).astype(np.int32)
    f0 = rng.randint(0, 5, size=n).astype(np.int32)
    f1 = rng.randint(0, 5, size=n).astype(np.int32)
    dense = np.stack([f0, f1], axis=1)
    dense[::7, 1] = -1  # missing values go to the extra bucket
    make = raw.BoostedTreesMakeStatsSummary(
        node_ids=node_ids,
        gradients=g,
        hessians=h,
        bucketized_features_list=[f0, f1],
        max_splits=4,
        num_buckets=5,
    )
    agg = raw.BoostedTreesAggregateStats(
        node_ids=node_ids, gradients=g, hessians=h, feature=dense, max_splits=4, num_buckets=5
    )
    idx = np.asarray([[0, 0], [1, 1], [3, 0], [3, 1], [6, 0], [9, 1]], np.int32)
    vals = np.asarray([1, 2, 0, 4, 3, 1], np.int32)
    sparse = raw.BoostedTreesSparseAggregateStats(
        node_ids=node_ids[:10],
        gradients=g[:10],
        hessians=h[:10],
        feature_indices=idx,
        feature_values=vals,
        feature_shape=[10, 2],
        max_splits=4,
        num_buckets=5,
    )
    # Buckets past num_buckets at the first nodes: TF indexes the flat summary, so they land
    # in the next node's buckets (quantile boundaries can outnumber the buckets asked for).
    spill = raw.BoostedTreesMakeStatsSummary(
        node_ids=np.asarray([0, 0, 1, 2], np.int32),
        gradients=g[:4],
        hessians=h[:4],
        bucketized_features_list=[np.asarray([5, 6, 2, 1], np.int32)],
        max_splits=4,
        num_buckets=5,
    )
    with tf.Session() as sess:
        m, a, s = sess.run([make, agg, sparse])
        spilled = sess.run(spill)
    return {
        "make": m,
        "aggregate": a,
        "sparse_indices": s[0],
        "sparse_values": s[1],
        "sparse_shape": s[2],
        "spilled": spilled,
    }


def best_gains_per_feature(tf):
    raw = tf.raw_ops
    rng = _rng()
    stats = [rng.uniform(-1, 1, size=(4, 6, 2)).astype(np.float32) for _ in range(3)]
    for s in stats:
        s[:, :, 1] = np.abs(s[:, :, 1]) + 0.05
    out = {}
    settings = [(0.0, 0.0, 0.0, 0.0), (0.1, 0.3, 0.05, 0.0), (0.0, 1.0, 0.0, 2.0)]
    with tf.Session() as sess:
        for k, (l1, l2, tc, mnw) in enumerate(settings):
            res = raw.BoostedTreesCalculateBestGainsPerFeature(
                node_id_range=[1, 4],
                stats_summary_list=stats,
                l1=l1,
                l2=l2,
                tree_complexity=tc,
                min_node_weight=mnw,
                max_splits=4,
            )
            vals = sess.run(res)
            for name, group in zip(["node_ids", "gains", "thresholds", "left", "right"], vals):
                for f, v in enumerate(group):
                    out[f"{name}_{k}_{f}"] = v
        out["bad_range"] = _build_or_run_error(
            sess,
            lambda: raw.BoostedTreesCalculateBestGainsPerFeature(
                node_id_range=[1, 2, 3],
                stats_summary_list=stats,
                l1=0.0,
                l2=0.0,
                tree_complexity=0.0,
                min_node_weight=0.0,
                max_splits=4,
            ),
        )
    return out


def best_feature_split(tf):
    raw = tf.raw_ops
    rng = _rng()
    stats = rng.uniform(-1, 1, size=(4, 2, 6, 2)).astype(np.float32)
    stats[..., 1] = np.abs(stats[..., 1]) + 0.05
    out = {}
    with tf.Session() as sess:
        for kind in ("inequality", "equality"):
            for k, (l1, l2, tc, mnw) in enumerate([(0.0, 0.1, 0.0, 0.0), (0.2, 0.5, 0.1, 0.5)]):
                res = sess.run(
                    raw.BoostedTreesCalculateBestFeatureSplit(
                        node_id_range=[0, 4],
                        stats_summary=stats,
                        l1=l1,
                        l2=l2,
                        tree_complexity=tc,
                        min_node_weight=mnw,
                        logits_dimension=1,
                        split_type=kind,
                    )
                )
                for name, v in zip(
                    ["node_ids", "gains", "dims", "thresholds", "left", "right", "types"], res
                ):
                    out[f"{kind}_{name}_{k}"] = v
        # The sparse version on the sparse form of the same stats.
        nz = np.argwhere(stats != 0).astype(np.int32)
        res = sess.run(
            raw.BoostedTreesSparseCalculateBestFeatureSplit(
                node_id_range=[0, 4],
                stats_summary_indices=nz,
                stats_summary_values=stats[tuple(nz.T)],
                stats_summary_shape=[4, 2, 6, 2],
                l1=0.0,
                l2=0.1,
                tree_complexity=0.0,
                min_node_weight=0.0,
                logits_dimension=1,
            )
        )
        for name, v in zip(
            ["node_ids", "gains", "dims", "thresholds", "left", "right", "types"], res
        ):
            out[f"sparse_{name}"] = v
        out["bad_rank"] = _build_or_run_error(
            sess,
            lambda: raw.BoostedTreesCalculateBestFeatureSplit(
                node_id_range=[0, 4],
                stats_summary=stats[0],
                l1=0.0,
                l2=0.1,
                tree_complexity=0.0,
                min_node_weight=0.0,
                logits_dimension=1,
            ),
        )
    return out


def _grow(tf, raw, handle, feats, g, h, depth, lr, pruning, l1, l2, tc, steps, v2):
    """`steps` layers grown from stats of the current tree's nodes; the ensemble state and
    bytes after each."""
    cached_tree = tf.placeholder(tf.int32, [None])
    cached_node = tf.placeholder(tf.int32, [None])
    logits, tree_ids, node_ids = raw.BoostedTreesTrainingPredict(
        tree_ensemble_handle=handle,
        cached_tree_ids=cached_tree,
        cached_node_ids=cached_node,
        bucketized_features=feats,
        logits_dimension=1,
    )
    states = raw.BoostedTreesGetEnsembleStates(tree_ensemble_handle=handle)
    max_splits = (1 << depth) - 1
    stats = [
        tf.squeeze(
            raw.BoostedTreesMakeStatsSummary(
                node_ids=node_ids,
                gradients=g,
                hessians=h,
                bucketized_features_list=[f],
                max_splits=max_splits,
                num_buckets=6,
            ),
            axis=0,
        )
        for f in feats
    ]
    gains = raw.BoostedTreesCalculateBestGainsPerFeature(
        node_id_range=states[4],
        stats_summary_list=stats,
        l1=l1,
        l2=l2,
        tree_complexity=tc,
        min_node_weight=0.0,
        max_splits=max_splits,
    )
    if v2:
        nodes_, gains_, thr, left, right = gains
        update = raw.BoostedTreesUpdateEnsembleV2(
            tree_ensemble_handle=handle,
            feature_ids=list(range(len(feats))),
            dimension_ids=[tf.zeros_like(t) for t in thr],
            node_ids=nodes_,
            gains=gains_,
            thresholds=thr,
            left_node_contribs=left,
            right_node_contribs=right,
            split_types=[tf.fill(tf.shape(t), "INEQUALITY_DEFAULT_LEFT") for t in thr],
            max_depth=depth,
            learning_rate=lr,
            pruning_mode=pruning,
        )
    else:
        update = raw.BoostedTreesUpdateEnsemble(
            tree_ensemble_handle=handle,
            feature_ids=list(range(len(feats))),
            node_ids=gains[0],
            gains=gains[1],
            thresholds=gains[2],
            left_node_contribs=gains[3],
            right_node_contribs=gains[4],
            max_depth=depth,
            learning_rate=lr,
            pruning_mode=pruning,
        )
    ser = raw.BoostedTreesSerializeEnsemble(tree_ensemble_handle=handle)
    return cached_tree, cached_node, (logits, tree_ids, node_ids), states, update, ser


def grow_and_predict(tf):
    raw = tf.raw_ops
    rng = _rng()
    n = 30
    feats_np = [rng.randint(0, 6, size=n).astype(np.int32) for _ in range(3)]
    g, h = _grads(n, seed=5)
    out = {}
    runs = [
        ("none", 3, 0.3, 0, 0.0, 0.1, 0.0, False),
        ("pre", 2, 0.5, 1, 0.0, 0.5, 0.2, False),
        ("post", 3, 0.4, 2, 0.1, 0.2, 0.15, False),
        ("v2post", 2, 0.4, 2, 0.0, 0.2, 0.1, True),
    ]
    for tag, depth, lr, pruning, l1, l2, tc, v2 in runs:
        tf.reset_default_graph()
        handle = raw.BoostedTreesEnsembleResourceHandleOp(shared_name="ens_" + tag)
        create = raw.BoostedTreesCreateEnsemble(
            tree_ensemble_handle=handle, stamp_token=0, tree_ensemble_serialized=""
        )
        feats = [tf.constant(f) for f in feats_np]
        center = raw.BoostedTreesCenterBias(
            tree_ensemble_handle=handle,
            mean_gradients=np.mean(g, 0, keepdims=True),
            mean_hessians=np.mean(h, 0, keepdims=True),
            l1=l1,
            l2=l2,
        )
        ct, cn, tp, states, update, ser = _grow(
            tf, raw, handle, feats, g, h, depth, lr, pruning, l1, l2, tc, 7, v2
        )
        predict = raw.BoostedTreesPredict(
            tree_ensemble_handle=handle, bucketized_features=feats, logits_dimension=1
        )
        with tf.Session() as sess:
            sess.run(create)
            out[tag + "_center"] = np.asarray([sess.run(center) for _ in range(2)])
            cache_t = np.zeros(n, np.int32)
            cache_n = -np.ones(n, np.int32)
            cached_logits = np.zeros((n, 1), np.float32)
            for step in range(7):
                lo, ti, ni = sess.run(tp, {ct: cache_t, cn: cache_n})
                cached_logits = cached_logits + lo
                out[f"{tag}_partial_{step}"] = lo
                out[f"{tag}_nodes_{step}"] = ni
                sess.run(update, {ct: cache_t, cn: cache_n})
                cache_t, cache_n = ti, ni
                st = sess.run(states)
                out[f"{tag}_states_{step}"] = np.asarray(
                    [st[0], st[1], st[2], st[3], st[4][0], st[4][1]], np.int64
                )
            out[tag + "_cached_logits"] = cached_logits
            out[tag + "_predict"] = sess.run(predict)
            stamp, blob = sess.run(ser)
            out[tag + "_stamp"] = np.int64(stamp)
            out[tag + "_serialized"] = blob
    return out


def ensemble_resource(tf):
    """Create, serialize, deserialize and the ops' errors on a missing or bad ensemble."""
    raw = tf.raw_ops
    handle = raw.BoostedTreesEnsembleResourceHandleOp(shared_name="resource_case")
    other = raw.BoostedTreesEnsembleResourceHandleOp(shared_name="never_created")
    blob = tf.placeholder(tf.string, [])
    create = raw.BoostedTreesCreateEnsemble(
        tree_ensemble_handle=handle, stamp_token=7, tree_ensemble_serialized=blob
    )
    init = raw.IsBoostedTreesEnsembleInitialized(tree_ensemble_handle=handle)
    init_other = raw.IsBoostedTreesEnsembleInitialized(tree_ensemble_handle=other)
    ser = raw.BoostedTreesSerializeEnsemble(tree_ensemble_handle=handle)
    stamp_in = tf.placeholder(tf.int64, [])
    deser = raw.BoostedTreesDeserializeEnsemble(
        tree_ensemble_handle=handle, stamp_token=stamp_in, tree_ensemble_serialized=blob
    )
    feats = [tf.constant([0, 3, 5], tf.int32), tf.constant([2, 2, 0], tf.int32)]
    predict = raw.BoostedTreesPredict(
        tree_ensemble_handle=handle, bucketized_features=feats, logits_dimension=1
    )
    # An ensemble written by hand: a bias tree and one split tree, finalized.
    proto = (
        b"\n\t\n\x07\n\x05\x1d\x00\x00\x80?\n&\n\x12\x12\x08\x08\x01\x10\x02\x18"
        b"\x01 \x02\xca0\x05\r\x00\x00\x00?\n\x07\n\x05\x1d\xcd\xcc\xcc\xbd\n\x07\n"
        b"\x05\x1d\x9a\x99\x99>\x12\x08\x00\x00\x80?\x00\x00\x00?\x1a\x02\x18\x01\x1a"
        b'\x04\x10\x01\x18\x01"\x06\x08\x02\x10\x02 \x01'
    )
    debug = raw.BoostedTreesExampleDebugOutputs(
        tree_ensemble_handle=handle, bucketized_features=feats, logits_dimension=1
    )
    with tf.Session() as sess:
        before = sess.run(init)
        sess.run(create, {blob: proto})
        after = sess.run(init)
        sess.run(create, {blob: b""})  # a second create keeps the first ensemble
        stamp, data = sess.run(ser)
        logits = sess.run(predict)
        debug_out = sess.run(debug)
        sess.run(deser, {stamp_in: 9, blob: b""})
        stamp2, data2 = sess.run(ser)
        logits2 = sess.run(predict)
        bad_proto = _error_class(sess, deser, {stamp_in: 1, blob: b"\xff\xff\xff"})
        missing = _error_class(sess, raw.BoostedTreesSerializeEnsemble(tree_ensemble_handle=other))
        other_init = sess.run(init_other)
        still = sess.run(ser)[0]
    return {
        "before": before,
        "after": after,
        "stamp": np.int64(stamp),
        "data": data,
        "logits": logits,
        "debug": debug_out,
        "stamp2": np.int64(stamp2),
        "data2": data2,
        "logits2": logits2,
        "bad_proto": bad_proto,
        "missing": missing,
        "other_init": other_init,
        "stamp_after_error": np.int64(still),
    }


def quantiles(tf):
    raw = tf.raw_ops
    rng = _rng()
    out = {}
    x0 = rng.normal(size=300).astype(np.float32)
    x1 = np.round(rng.exponential(size=300), 1).astype(np.float32)  # many ties
    w = rng.uniform(0.1, 2.0, size=300).astype(np.float32)
    w[::13] = 0.0  # zero weights are ignored
    for eps in (0.01, 0.05):
        summ = raw.BoostedTreesMakeQuantileSummaries(
            float_values=[x0, x1], example_weights=w, epsilon=eps
        )
        with tf.Session() as sess:
            s = sess.run(summ)
        out[f"summary0_{eps:g}"] = s[0]
        out[f"summary1_{eps:g}"] = s[1]
    tf.reset_default_graph()
    handle = raw.BoostedTreesQuantileStreamResourceHandleOp(shared_name="qs")
    create = raw.BoostedTreesCreateQuantileStreamResource(
        quantile_stream_resource_handle=handle, epsilon=0.02, num_streams=2
    )
    init = raw.IsBoostedTreesQuantileStreamResourceInitialized(
        quantile_stream_resource_handle=handle
    )
    xs = tf.placeholder(tf.float32, [None])
    ys = tf.placeholder(tf.float32, [None])
    ws = tf.placeholder(tf.float32, [None])
    summ = raw.BoostedTreesMakeQuantileSummaries(
        float_values=[xs, ys], example_weights=ws, epsilon=0.01
    )
    add = raw.BoostedTreesQuantileStreamResourceAddSummaries(
        quantile_stream_resource_handle=handle, summaries=summ
    )
    flush = raw.BoostedTreesQuantileStreamResourceFlush(
        quantile_stream_resource_handle=handle, num_buckets=10
    )
    flush_q = raw.BoostedTreesQuantileStreamResourceFlush(
        quantile_stream_resource_handle=handle, num_buckets=5, generate_quantiles=True
    )
    bounds = raw.BoostedTreesQuantileStreamResourceGetBucketBoundaries(
        quantile_stream_resource_handle=handle, num_features=2
    )
    flush_summ = raw.BoostedTreesFlushQuantileSummaries(
        quantile_stream_resource_handle=handle, num_features=2
    )
    # Unknown shapes, as a restore's tensors (TF 1.15's shape function wants rank 0).
    b0, b1 = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    deser = raw.BoostedTreesQuantileStreamResourceDeserialize(
        quantile_stream_resource_handle=handle, bucket_boundaries=[b0, b1]
    )
    buckets = raw.BoostedTreesBucketize(float_values=[x0[:20], x1[:20]], bucket_boundaries=bounds)
    with tf.Session() as sess:
        out["init_before"] = sess.run(init)
        sess.run(create)
        out["init_after"] = sess.run(init)
        for k in range(3):
            sl = slice(100 * k, 100 * (k + 1))
            sess.run(add, {xs: x0[sl], ys: x1[sl], ws: w[sl]})
        sess.run(flush)
        b = sess.run(bounds)
        out["bounds0"], out["bounds1"] = b[0], b[1]
        bk = sess.run(buckets)
        out["buckets0"], out["buckets1"] = bk[0], bk[1]
        for k in range(2):
            sl = slice(150 * k, 150 * (k + 1))
            sess.run(add, {xs: x0[sl], ys: x1[sl], ws: w[sl]})
        sess.run(flush_q)
        b = sess.run(bounds)
        out["quantiles0"], out["quantiles1"] = b[0], b[1]
        sess.run(add, {xs: x0[:50], ys: x1[:50], ws: w[:50]})
        fs = sess.run(flush_summ)
        out["flushed0"], out["flushed1"] = fs[0], fs[1]
        sess.run(deser, {b0: [-1.0, 0.0, 1.0], b1: [0.5, 2.5]})
        b = sess.run(bounds)
        out["deser0"], out["deser1"] = b[0], b[1]
        out["bad_weights"] = _error_class(sess, summ, {xs: x0[:5], ys: x1[:5], ws: w[:3]})
        other = raw.BoostedTreesQuantileStreamResourceHandleOp(shared_name="never")
        out["missing"] = _error_class(
            sess,
            raw.BoostedTreesQuantileStreamResourceFlush(
                quantile_stream_resource_handle=other, num_buckets=3
            ),
        )
    return out


def bucketize(tf):
    raw = tf.raw_ops
    values = np.asarray([-1.0, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 9.0], np.float32)
    res = raw.BoostedTreesBucketize(
        float_values=[values, values], bucket_boundaries=[[0.0, 1.0, 2.0, 3.0], []]
    )
    with tf.Session() as sess:
        r = sess.run(res)
    return {"with_bounds": r[0], "no_bounds": r[1]}


def update_v2_split_types(tf):
    """UpdateEnsembleV2 with TF's split types: an equality (categorical) split with the
    default right, an inequality split with the default right; prediction follows them."""
    raw = tf.raw_ops
    handle = raw.BoostedTreesEnsembleResourceHandleOp(shared_name="v2_types")
    create = raw.BoostedTreesCreateEnsemble(
        tree_ensemble_handle=handle, stamp_token=0, tree_ensemble_serialized=""
    )
    node_ids = tf.placeholder(tf.int32, [None])
    split_type = tf.placeholder(tf.string, [None])
    update = raw.BoostedTreesUpdateEnsembleV2(
        tree_ensemble_handle=handle,
        feature_ids=[0, 1],
        dimension_ids=[[0], [0]],
        node_ids=[node_ids, node_ids],
        gains=[[0.5], [0.7]],
        thresholds=[[2], [3]],
        left_node_contribs=[[[0.1]], [[-0.2]]],
        right_node_contribs=[[[0.3]], [[0.4]]],
        split_types=[split_type, split_type],
        max_depth=2,
        learning_rate=0.5,
        pruning_mode=0,
    )
    feats = [tf.constant([0, 2, 3, 5], tf.int32), tf.constant([1, 3, 4, 2], tf.int32)]
    predict = raw.BoostedTreesPredict(
        tree_ensemble_handle=handle, bucketized_features=feats, logits_dimension=1
    )
    ser = raw.BoostedTreesSerializeEnsemble(tree_ensemble_handle=handle)
    with tf.Session() as sess:
        sess.run(create)
        sess.run(update, {node_ids: [0], split_type: ["EQUALITY_DEFAULT_RIGHT"]})
        first = sess.run(predict)
        sess.run(update, {node_ids: [1], split_type: ["INEQUALITY_DEFAULT_RIGHT"]})
        second = sess.run(predict)
        stamp, data = sess.run(ser)
    return {"first": first, "second": second, "stamp": np.int64(stamp), "data": data}


CASES = {
    "stats_summaries": stats_summaries,
    "best_gains_per_feature": best_gains_per_feature,
    "best_feature_split": best_feature_split,
    "grow_and_predict": grow_and_predict,
    "ensemble_resource": ensemble_resource,
    "quantiles": quantiles,
    "bucketize": bucketize,
    "update_v2_split_types": update_v2_split_types,
}
