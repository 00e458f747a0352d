"""Programs from TensorFlow's own TF1 examples, reduced to the behaviour that differed on
tfcluster: the candidate samplers' draws (word2vec_basic's nce_loss) and the gradient graph an
optimizer builds (its gate_gradients tuples, the starting gradient's names). Each case is
`fn(tf) -> dict of plain values`, run on TF 1.15 by record_tf1_programs.py and on tfcluster by
tests/unit/test_tf1_example_programs.py. Python 3.7 code."""

from __future__ import annotations


def _sampler_runs(tf, build, steps=2):
    tf.reset_default_graph()
    tf.set_random_seed(3)
    true = tf.constant([[1], [5]], tf.int64)
    sampled = build(tf, true)
    out = []
    with tf.Session() as sess:
        for _ in range(steps):
            r = sess.run(sampled)
            out.append(
                {
                    "sampled": r.sampled_candidates.tolist(),
                    "true_expected": r.true_expected_count.tolist(),
                    "sampled_expected": r.sampled_expected_count.tolist(),
                }
            )
    return {"runs": out}


def log_uniform_unique(tf):
    return _sampler_runs(tf, lambda tf, t: tf.nn.log_uniform_candidate_sampler(t, 1, 8, True, 50))


def log_uniform_with_repeats(tf):
    return _sampler_runs(
        tf, lambda tf, t: tf.nn.log_uniform_candidate_sampler(t, 1, 5, False, 300, seed=7)
    )


def uniform_with_repeats(tf):
    return _sampler_runs(tf, lambda tf, t: tf.nn.uniform_candidate_sampler(t, 1, 6, False, 1000))


def uniform_unique(tf):
    return _sampler_runs(
        tf, lambda tf, t: tf.nn.uniform_candidate_sampler(t, 1, 10, True, 20, seed=7)
    )


def nce_loss_training(tf):
    """word2vec_basic's model, small: the NCE loss over 5 SGD steps."""
    import numpy as np

    tf.reset_default_graph()
    tf.set_random_seed(0)
    vocab, dim, batch = 40, 8, 16
    rng = np.random.RandomState(0)
    inputs = tf.constant(rng.randint(0, vocab, batch).astype(np.int32))
    labels = tf.constant(rng.randint(0, vocab, (batch, 1)).astype(np.int32))
    embeddings = tf.Variable(tf.random_uniform([vocab, dim], -1.0, 1.0))
    nce_w = tf.Variable(tf.truncated_normal([vocab, dim], stddev=1.0 / np.sqrt(dim)))
    nce_b = tf.Variable(tf.zeros([vocab]))
    embed = tf.nn.embedding_lookup(embeddings, inputs)
    loss = tf.reduce_mean(
        tf.nn.nce_loss(
            weights=nce_w,
            biases=nce_b,
            labels=labels,
            inputs=embed,
            num_sampled=6,
            num_classes=vocab,
        )
    )
    train = tf.train.GradientDescentOptimizer(1.0).minimize(loss)
    losses = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(5):
            losses.append(float(sess.run([train, loss])[1]))
    return {"losses": losses}


def _gradient_graph(tf, gate):
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    w = tf.Variable(tf.ones([3, 2]), name="w")
    scale = tf.Variable(tf.ones([4, 2]), name="scale")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) * scale))
    tf.train.GradientDescentOptimizer(0.1).minimize(loss, gate_gradients=gate)
    ops = tf.get_default_graph().get_operations()
    # TF 1.15's gradient functions of broadcasting ops make other helper ops than tfcluster's
    # (whose shortcuts use static shapes): the model has none; compare the gating and the
    # starting gradient.
    wanted = [
        op
        for op in ops
        if "/tuple/" in op.name
        or (op.name.split("/")[-1] in ("Fill", "Shape", "grad_ys_0") and op.name.count("/") == 1)
    ]
    return {
        "ops": sorted([op.name, op.type] for op in wanted),
        "control_inputs": sorted(
            [op.name, sorted(c.name for c in op.control_inputs)] for op in wanted
        ),
        "colocation": sorted(
            [op.name, [c.decode() for c in op.colocation_groups()]]
            for op in wanted
            if op.type == "Identity"
        ),
    }


def gradient_graph_gate_op(tf):
    return _gradient_graph(tf, tf.train.Optimizer.GATE_OP)


def gradient_graph_gate_none(tf):
    return _gradient_graph(tf, tf.train.Optimizer.GATE_NONE)


def tf_tuple_of_tensors(tf):
    tf.reset_default_graph()
    a = tf.constant(1.0, name="a")
    b = tf.constant(2.0, name="b")
    out = tf.tuple([a, b, a])
    ops = tf.get_default_graph().get_operations()
    return {
        "names": [t.name for t in out],
        "ops": [[op.name, op.type, sorted(c.name for c in op.control_inputs)] for op in ops],
        "colocation": [[op.name, [c.decode() for c in op.colocation_groups()]] for op in ops],
    }


def local_cpu_devices(tf):
    """ptb_word_lm's GPU count comes from device_lib (its CPU entries are compared here; the
    XLA_CPU entry is compared in xla_cpu_device_cases.py)."""
    import importlib

    root = "tfcluster" if tf.__name__.startswith("tfcluster") else "tensorflow"
    device_lib = importlib.import_module(root + ".python.client.device_lib")
    devices = device_lib.list_local_devices()
    return {
        "cpus": [
            [d.name, d.device_type, d.memory_limit] for d in devices if d.device_type == "CPU"
        ],
        "gpus": [d.name for d in devices if d.device_type == "GPU"],
        "incarnations_set": all(d.incarnation != 0 for d in devices),
    }


def strided_slice_default_strides(tf):
    """ptb_word_lm's reader slices with tf.strided_slice and no strides: TF makes ones_like(begin)
    before the op's scope; the op count decides the op seeds of the dropout after it."""
    tf.reset_default_graph()
    data = tf.reshape(tf.range(12), [2, 6], name="data")
    i = tf.placeholder(tf.int32, [], name="i")
    x = tf.strided_slice(data, [0, i * 2], [2, (i + 1) * 2])
    y = tf.strided_slice(data, [0, 1], [2, 3], name="fixed")
    ops = tf.get_default_graph().get_operations()
    with tf.Session() as sess:
        values = sess.run([x, y], {i: 1})
    return {
        "ops": [[op.name, op.type] for op in ops],
        "strides_input": [x.op.inputs[3].name, y.op.inputs[3].name],
        "values": [v.tolist() for v in values],
    }


def seeds_after_a_conv_net_gradient(tf):
    """hunkim's cnn ensemble: a second model built after the first one's AdamOptimizer gets its
    op seeds from the op count, so the ops of the first one's gradients (Mean's, Conv2D's)
    must be TF's in number. Its initial weights and the ops tf.gradients makes are recorded."""
    tf.reset_default_graph()
    tf.set_random_seed(777)
    graph = tf.get_default_graph()
    x = tf.placeholder(tf.float32, [None, 6, 6, 1])
    y = tf.placeholder(tf.float32, [None, 3])
    conv = tf.layers.conv2d(x, 2, [3, 3], padding="SAME", activation=tf.nn.relu)
    logits = tf.layers.dense(tf.reshape(conv, [-1, 72]), 3)
    cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(logits=logits, labels=y))
    before = len(graph.get_operations())
    grads = tf.gradients(cost, tf.trainable_variables())
    made = [
        [op.name, op.type]
        for op in graph.get_operations()[before:]
        if "Mean_grad" in op.name or "Conv2D_grad" in op.name
    ]
    tf.train.AdamOptimizer(0.001).minimize(cost)
    second = tf.layers.dense(tf.reshape(conv, [-1, 72]), 4, name="second")
    kernel = next(v for v in tf.global_variables() if v.name == "second/kernel:0")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        drawn = sess.run(kernel)
    return {
        "gradient_ops": made,
        "gradient_shapes": [g.shape.as_list() for g in grads],
        "second_kernel": drawn.tolist(),
        "ops_before_second": [op.name for op in graph.get_operations()].index(
            "second/kernel/Initializer/random_uniform/shape"
        ),
        "second_is_used": second.shape.as_list(),
    }


def fetched_scalar_arithmetic(tf):
    """The tutorials' `avg_cost += c / total_batch`: under TF 1.15 (numpy 1.x) a fetched float32
    scalar meeting a Python number computes in float64. Each expression's type and value."""
    tf.reset_default_graph()
    cost = tf.constant(3915.1299, tf.float32) / tf.constant(7.0)
    half = tf.constant(0.5, tf.float16)
    with tf.Session() as sess:
        c, h = sess.run([cost, half])
        alone = sess.run(cost)
    avg_cost = 0.0
    for _ in range(3):
        avg_cost += c / 3
    exprs = {
        "avg_cost": avg_cost,
        "div_int": c / 3,
        "add_float": c + 0.1,
        "radd_float": 0.1 + c,
        "rsub_int": 1 - c,
        "mul_float": c * 1.5,
        "rtruediv": 1.0 / c,
        "pow_int": c**2,
        "rpow": 2.0 ** (c / 1000),
        "floordiv": c // 0.3,
        "mod": c % 0.3,
        "with_float32": c * tf.float32.as_numpy_dtype(2.5),
        "with_bool": c + True,
        "half_float": h + 0.1,
        "alone_div": alone / 7,
        "negated": -c,
    }
    return {
        "values": {k: [type(v).__name__, repr(float(v))] for k, v in sorted(exprs.items())},
        "type_shown": str(type(c)),
        "format": f"{avg_cost:.9f}",
    }


def normal_initial_weights(tf):
    """Weights drawn by tf.random_normal / tf.truncated_normal (golbin's Variable.py printed
    0.5691869 for TF's 0.569187): TF's Box-Muller calls glibc's logf and sincosf, which are not
    correctly rounded. The bits of 4096 draws each."""
    import numpy as np

    tf.reset_default_graph()
    tf.set_random_seed(1)
    normal = tf.random_normal([64, 64])
    truncated = tf.truncated_normal([4096], stddev=0.1, seed=3)
    with tf.Session() as sess:
        n, t = sess.run([normal, truncated])
    return {
        "normal_bits": n.view(np.uint32).ravel().tolist(),
        "truncated_bits": t.view(np.uint32).tolist(),
    }


def loss_sums_in_tfs_order(tf):
    """A loss like linear_regression's reduce_sum(pow(pred - Y, 2)) / (2 * n) printed other last
    digits: TF adds float32 values in Eigen's packet order, not numpy's pairwise one. The bits
    of whole-tensor sums and means (one thread in TF) and of row sums."""
    import numpy as np

    tf.reset_default_graph()
    rng = np.random.RandomState(7)
    lengths = [3, 8, 9, 17, 31, 64, 127, 257, 1000, 1025, 4096, 5000]
    flat = [tf.constant(rng.standard_normal(n).astype(np.float32)) for n in lengths]
    rows = [tf.constant(rng.standard_normal((4, n)).astype(np.float32)) for n in (10, 33, 784)]
    cube = tf.constant(rng.standard_normal((3, 5, 20)).astype(np.float32))
    fetches = {
        "sums": [tf.reduce_sum(t) for t in flat],
        "means": [tf.reduce_mean(t) for t in flat],
        "row_sums": [tf.reduce_sum(t, 1) for t in rows],
        "row_means": [tf.reduce_mean(t, axis=-1, keepdims=True) for t in rows],
        "trailing_two": [tf.reduce_sum(cube, [1, 2]), tf.reduce_mean(cube, [2, 1])],
    }
    with tf.Session() as sess:
        got = sess.run(fetches)
    return {k: [np.asarray(v).view(np.uint32).tolist() for v in vs] for k, vs in got.items()}


def broadcast_mismatch_messages(tf):
    """znxlwm's MNIST GAN adds a [1024] bias to a [?,256] product inside variable_scope('D'): TF's
    ValueError names the node it would have made (the name stays taken), its op type and the
    input shapes."""
    tf.reset_default_graph()
    messages = []
    with tf.variable_scope("D"):
        a = tf.placeholder(tf.float32, [None, 256])
        for build in (
            lambda: a + tf.zeros([1024]),
            lambda: a + tf.zeros([1024]),
            lambda: tf.zeros([2, 3]) * tf.ones([4]),
            lambda: tf.maximum(a, tf.ones([5, 7]), name="mx"),
            lambda: tf.equal(a, tf.ones([3])),
        ):
            try:
                build()
                messages.append(None)
            except ValueError as e:
                messages.append(str(e))
        after = tf.add(a, 1.0).name
    return {"messages": messages, "next_name": after}


def zero_fraction_then_seeded_draws(tf):
    """The canned DNN's layer summaries call tf.nn.zero_fraction, a v1 cond in TF 1.15: the
    draws after it (the next layer's initializer) take their op seeds from its op count."""
    tf.reset_default_graph()
    tf.set_random_seed(0)
    x = tf.placeholder(tf.float32, [None, 10])
    z = tf.nn.zero_fraction(tf.nn.relu(x))
    r = tf.random_uniform([3])
    c = tf.nn.zero_fraction(tf.constant([[0.0, 1.0], [2.0, 0.0]]), name="k")
    r2 = tf.random_uniform([3])
    with tf.Session() as sess:
        out = sess.run([z, c, r, r2], {x: [[0, 1, -1, 2, 0, 0, 3, 0, 0, 5]]})
    return {"fractions": [float(out[0]), float(out[1])], "draws": [out[2], out[3]]}


def initialized_value_then_seeded_draw(tf):
    """Estimator's training graph reads the global step with initialized_value (a v1 cond of
    nine ops in TF 1.15) before the input_fn: later op seeds count those ops."""
    tf.reset_default_graph()
    tf.set_random_seed(0)
    v = tf.Variable(2.0)
    init = v.initialized_value() + 0
    r = tf.random_uniform([3])
    with tf.Session() as sess:
        before = sess.run(init)
        sess.run(tf.global_variables_initializer())
        return {"before": float(before), "draw": sess.run(r)}


def dnn_classifier_seeded_initial_weights(tf):
    """premade_estimator (samples/core/get_started): a DNNClassifier with RunConfig's
    tf_random_seed and no warm start. The weights it starts from (checkpoint 0) depend on the
    op count before each initializer: the global step's read, resource variables, the layer
    summaries' zero_fraction."""
    import shutil
    import tempfile

    import numpy as np

    tmp = tempfile.mkdtemp()
    try:
        rng = np.random.RandomState(2)
        x = {"a": rng.normal(size=(12, 2)).astype(np.float32)}
        y = rng.randint(0, 3, 12).astype(np.int64)
        est = tf.estimator.DNNClassifier(
            hidden_units=[4, 3],
            feature_columns=[tf.feature_column.numeric_column("a", shape=(2,))],
            n_classes=3,
            config=tf.estimator.RunConfig(tf_random_seed=1, model_dir=tmp),
        )
        fn = tf.estimator.inputs.numpy_input_fn(x, y, batch_size=6, num_epochs=1, shuffle=False)
        est.train(fn, steps=2)
        reader = tf.train.load_checkpoint(tmp + "/model.ckpt-0")
        names = sorted(
            n for n in reader.get_variable_to_shape_map() if n.endswith(("kernel", "bias"))
        )
        trained = est.evaluate(fn)
        return {
            "initial": {n: reader.get_tensor(n) for n in names},
            "loss_after_2_steps": float(trained["loss"]),
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def cifar10_distortions_then_seeded_draws(tf):
    """cifar10_input's distorted_inputs: random_crop checks its size with an Assert and
    per_image_standardization's reduce_std subtracts then squares, as TF 1.15 builds them; the
    draws after (flip, brightness, contrast, the shuffle queue) take op seeds from that count."""
    import numpy as np

    tf.reset_default_graph()
    tf.set_random_seed(0)
    img = tf.constant(np.arange(32 * 32 * 3, dtype=np.float32).reshape(32, 32, 3) % 251)
    crop = tf.random_crop(img, [24, 24, 3])
    flipped = tf.image.random_flip_left_right(crop)
    std = tf.image.per_image_standardization(flipped)
    after = tf.random_uniform([3])
    with tf.Session() as sess:
        c, s, a = sess.run([crop, std, after])
    return {"crop_corner": c[0, 0], "standardized_corner": s[0, 0], "draw_after": a}


def random_shuffle_queue_order(tf):
    """cifar10_input's shuffle_batch: a seeded RandomShuffleQueue hands elements out in TF's
    order (one Philox word per element, the element at word % size, the last one moved into
    its place), whatever mix of dequeue, dequeue_many and enqueues in between."""
    tf.reset_default_graph()
    tf.set_random_seed(1)
    out = {}
    for name, seed in (("op_seed", 3), ("graph_seed", None)):
        q = tf.RandomShuffleQueue(30, 5, [tf.int32], shapes=[[]], seed=seed)
        first = q.enqueue_many([list(range(20))])
        more = q.enqueue_many([list(range(100, 110))])
        one, many = q.dequeue(), q.dequeue_many(4)
        order = []
        with tf.Session() as sess:
            sess.run(first)
            order += [int(sess.run(one)) for _ in range(3)]
            order += sess.run(many).tolist()
            sess.run(more)
            order += sess.run(q.dequeue_many(10)).tolist()
        out[name] = order
    return out


def seeds_after_broadcasting_gradients(tf):
    """MorvanZhou's dropout tutorial: a net trained on tf.losses.mean_squared_error, then a
    dropout net whose masks must be TF's. The gradients of DivNoNan and RealDiv (always their
    shapes and BroadcastGradientArgs), and of Mul and SquaredDifference over a batch of unknown
    size (Shape ops, BroadcastGradientArgs), are TF's op for op, so later op seeds are TF's."""
    import numpy as np

    tf.reset_default_graph()
    tf.set_random_seed(1)
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.placeholder(tf.float32, [None, 1])
    w = tf.Variable(tf.ones([3, 1]))
    pred = tf.matmul(x / tf.constant(2.0), w) * tf.constant([3.0])
    loss = tf.losses.mean_squared_error(y, pred) + tf.reduce_sum(tf.squared_difference(pred, y))
    grads = tf.gradients(loss, [w])
    rng = np.random.RandomState(3)
    feed = {
        x: rng.standard_normal((5, 3)).astype(np.float32),
        y: rng.standard_normal((5, 1)).astype(np.float32),
    }
    return _gradient_ops_and_draw_after(tf, grads[0], tf.random_uniform([4]), feed)


def _gradient_ops_and_draw_after(tf, grad, after, feed):
    """The gradient ops' names and types, the gradient's value and the draw made after it."""
    import numpy as np

    gradient_ops = [
        [op.name, op.type]
        for op in tf.get_default_graph().get_operations()
        if op.name.startswith("gradients")
    ]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        value, drawn = sess.run([grad, after], feed)
    return {
        "gradient_ops": gradient_ops,
        "gradient": np.asarray(value).tolist(),
        "drawn_after": np.asarray(drawn).tolist(),
    }


def seeds_after_elementwise_gradients(tf):
    """Pow, Maximum, Minimum, FloorMod, Add and Sub over a batch of unknown size (a loss like
    reduce_sum(pow(pred - Y, 2))): their gradients make TF 1.15's ops, so a later draw is TF's."""
    import numpy as np

    tf.reset_default_graph()
    tf.set_random_seed(2)
    x = tf.placeholder(tf.float32, [None, 3])
    w = tf.Variable([0.5, 1.5, 2.0])
    terms = [
        tf.pow(x - w, 2.0),
        tf.maximum(x, w),
        tf.minimum(x + w, 0.5),
        tf.floormod(x, w),
        tf.abs(x) / tf.constant([2.0, 3.0, 4.0]),
    ]
    grads = tf.gradients(tf.add_n([tf.reduce_sum(t) for t in terms]), [w])
    after = tf.random_normal([3])
    feed = {x: np.random.RandomState(5).uniform(-2, 3, (4, 3)).astype(np.float32)}
    return _gradient_ops_and_draw_after(tf, grads[0], after, feed)


CASES = {
    f.__name__: f
    for f in (
        log_uniform_unique,
        log_uniform_with_repeats,
        uniform_with_repeats,
        uniform_unique,
        nce_loss_training,
        gradient_graph_gate_op,
        gradient_graph_gate_none,
        tf_tuple_of_tensors,
        local_cpu_devices,
        strided_slice_default_strides,
        seeds_after_a_conv_net_gradient,
        fetched_scalar_arithmetic,
        normal_initial_weights,
        loss_sums_in_tfs_order,
        broadcast_mismatch_messages,
        zero_fraction_then_seeded_draws,
        initialized_value_then_seeded_draw,
        dnn_classifier_seeded_initial_weights,
        cifar10_distortions_then_seeded_draws,
        random_shuffle_queue_order,
        seeds_after_broadcasting_gradients,
        seeds_after_elementwise_gradients,
    )
}
