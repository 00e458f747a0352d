"""Programs for TF 1.15 names added late (Keras's CTC backend, mixed-precision loss scaling,
early-stopping hooks...): each case builds a graph with `tf` (TensorFlow 1.15 when recorded by
record_later_names.py, tfcluster in tests/unit/test_later_names.py) and returns what it
computes. Python 3.7 code: the recorder runs it under TF 1.15 itself."""

import os
import shutil
import tempfile
import threading

import numpy as np


def _softmax_outputs():
    rng = np.random.RandomState(7)
    y = rng.rand(3, 7, 5).astype(np.float32)
    return y / y.sum(-1, keepdims=True)


def keras_ctc_batch_cost(tf):
    K = tf.keras.backend
    labels = np.array([[1, 2, 0, 0], [3, 3, 1, 0], [0, 1, 2, 3]], np.float32)
    cost = K.ctc_batch_cost(
        labels,
        _softmax_outputs(),
        np.array([[7], [6], [7]], np.int64),
        np.array([[2], [3], [4]], np.int64),
    )
    with tf.Session() as sess:
        return {"cost": sess.run(cost), "shape": cost.shape.as_list()}


def keras_ctc_decode(tf):
    K = tf.keras.backend
    y = _softmax_outputs()
    lengths = np.array([7, 5, 6], np.int32)
    greedy, greedy_lp = K.ctc_decode(y, lengths)
    beams, beam_lp = K.ctc_decode(y, lengths, greedy=False, beam_width=5, top_paths=2)
    with tf.Session() as sess:
        g, glp, b, blp = sess.run([greedy, greedy_lp, beams, beam_lp])
    return {"greedy": g, "greedy_log_prob": glp, "beams": b, "beam_log_prob": blp}


def keras_ctc_label_dense_to_sparse(tf):
    K = tf.keras.backend
    st = K.ctc_label_dense_to_sparse(
        tf.constant([[4, 5, 6], [7, 0, 0], [1, 2, 0]]), tf.constant([3, 1, 2])
    )
    with tf.Session() as sess:
        v = sess.run(st)
    return {
        "indices": v.indices,
        "values": v.values,
        "dense_shape": v.dense_shape,
        "dtypes": [st.indices.dtype.name, st.values.dtype.name, st.dense_shape.dtype.name],
    }


def _loss_scale_training(tf, loss_scale):
    """A variable trained by a loss-scaled optimizer; step 3's feed makes the gradient
    infinite, which a dynamic scale must skip (and halve)."""
    w = tf.Variable([1.0, -2.0], name="w")
    x = tf.placeholder(tf.float32, [2], name="x")
    loss = tf.reduce_sum(w * w * x)
    global_step = tf.train.get_or_create_global_step()
    opt = tf.train.experimental.MixedPrecisionLossScaleOptimizer(
        tf.train.GradientDescentOptimizer(0.1), loss_scale
    )
    train = opt.minimize(loss, global_step=global_step)
    scale = opt._loss_scale()
    steps = []
    feeds = [[1.0, 1.0], [0.5, 2.0], [np.inf, 1.0], [1.0, 1.0], [2.0, 1.0]]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for feed in feeds:
            sess.run(train, {x: feed})
            steps.append(sess.run([w, scale, global_step]))
    return {
        "w": np.array([s[0] for s in steps]),
        "scale": np.array([s[1] for s in steps], np.float32),
        "global_step": np.array([s[2] for s in steps]),
        "variables": sorted(v.op.name for v in tf.global_variables()),
    }


def dynamic_loss_scale_training(tf):
    scale = tf.train.experimental.DynamicLossScale(
        initial_loss_scale=8.0, increment_period=2, multiplier=2.0
    )
    out = _loss_scale_training(tf, scale)
    out["repr"] = repr(scale)
    out["config"] = scale.get_config()
    return out


def fixed_loss_scale_training(tf):
    scale = tf.train.experimental.FixedLossScale(128)
    out = _loss_scale_training(tf, scale)
    out["repr"] = repr(scale)
    out["config"] = scale.get_config()
    return out


def loss_scale_errors(tf):
    errors = {}
    for name, make in [
        ("fixed_below_one", lambda: tf.train.experimental.FixedLossScale(0.5)),
        ("fixed_string", lambda: tf.train.experimental.FixedLossScale("8")),
        (
            "optimizer_not_optimizer",
            lambda: tf.train.experimental.MixedPrecisionLossScaleOptimizer(3, 8),
        ),
        (
            "rewrite_twice",
            lambda: tf.train.experimental.enable_mixed_precision_graph_rewrite(
                tf.train.experimental.MixedPrecisionLossScaleOptimizer(
                    tf.train.GradientDescentOptimizer(0.1), 8
                )
            ),
        ),
        (
            "bad_identifier",
            lambda: tf.train.experimental.MixedPrecisionLossScaleOptimizer(
                tf.train.GradientDescentOptimizer(0.1), "static"
            ),
        ),
    ]:
        try:
            make()
            errors[name] = "none"
        except Exception as e:  # the class is what is compared
            errors[name] = type(e).__name__
    return errors


def mixed_precision_rewrite_and_optimizer_options(tf):
    seen = [tf.config.optimizer.get_experimental_options(), tf.config.optimizer.get_jit()]
    tf.config.optimizer.set_experimental_options(
        {"constant_folding": False, "layout_optimizer": True, "min_graph_nodes": 4}
    )
    tf.config.optimizer.set_jit(True)
    seen += [tf.config.optimizer.get_experimental_options(), tf.config.optimizer.get_jit()]
    opt = tf.train.experimental.enable_mixed_precision_graph_rewrite(
        tf.train.GradientDescentOptimizer(0.5)
    )
    seen.append(tf.config.optimizer.get_experimental_options())
    tf.train.experimental.disable_mixed_precision_graph_rewrite()
    seen.append(tf.config.optimizer.get_experimental_options())
    tf.config.optimizer.set_experimental_options(
        {"constant_folding": None, "layout_optimizer": None, "min_graph_nodes": None}
    )
    tf.config.optimizer.set_experimental_options({"auto_mixed_precision": None})
    tf.config.optimizer.set_jit(False)
    seen.append(tf.config.optimizer.get_experimental_options())
    # The wrapped optimizer trains with the default dynamic scale (2 ** 15).
    w = tf.Variable(3.0, name="w")
    train = opt.minimize(w * w)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        value = sess.run(w)
    return {
        "options": seen,
        "optimizer": type(opt).__name__,
        "w": value,
    }


def config_protos_serialize(tf):
    config = tf.ConfigProto(
        intra_op_parallelism_threads=2,
        session_inter_op_thread_pool=[tf.ConfigProto().session_inter_op_thread_pool.add()],
    )
    config.session_inter_op_thread_pool[0].num_threads = 3
    config.graph_options.optimizer_options.global_jit_level = tf.OptimizerOptions.ON_1
    config.graph_options.rewrite_options.auto_mixed_precision = 1
    config.graph_options.rewrite_options.memory_optimization = 3
    config.graph_options.build_cost_model = 7
    config.gpu_options.experimental.virtual_devices.add().memory_limit_mb.append(512.0)
    config.experimental.collective_group_leader = "/job:worker/task:0"
    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    options.debug_options.debug_tensor_watch_opts.add(node_name="x", debug_ops=["DebugIdentity"])
    options.experimental.collective_graph_key = 5
    return {
        "config": config.SerializeToString(deterministic=True),
        "run_options": options.SerializeToString(deterministic=True),
    }


def _linear_estimator(tf, model_dir):
    """y = w * x + b from zeros, plain SGD: the same numbers on any runtime."""

    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [], initializer=tf.zeros_initializer())
        b = tf.get_variable("b", [], initializer=tf.zeros_initializer())
        pred = w * features["x"] + b
        loss = tf.reduce_mean(tf.square(pred - labels))
        train = tf.train.GradientDescentOptimizer(0.05).minimize(
            loss, global_step=tf.train.get_global_step()
        )
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train)

    return tf.estimator.Estimator(model_fn, model_dir=model_dir)


def _xy_input_fn(tf):
    x = np.arange(8, dtype=np.float32) / 4.0
    y = 3.0 * x + 1.0

    def input_fn():
        data = tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(4).repeat()
        return data

    return input_fn


def _eval_metrics(eval_dir):
    """step -> loss of the evaluation events in eval_dir."""
    out = {}
    for path in sorted(os.listdir(eval_dir)):
        if not path.startswith("events"):
            continue
        for event in tf_summary_iterator(os.path.join(eval_dir, path)):
            for value in event.summary.value:
                if value.tag == "loss":
                    out[str(event.step)] = value.simple_value
    return out


tf_summary_iterator = None


def estimator_early_stopping(tf):
    """Each hook watches the evaluations of one run (steps 4 and 8; the loss falls) and
    trains a fresh model: the hook's STOP variable must exist from the first checkpoint."""
    global tf_summary_iterator
    tf_summary_iterator = tf.train.summary_iterator
    root = tempfile.mkdtemp()
    try:
        input_fn = _xy_input_fn(tf)
        watched = _linear_estimator(tf, os.path.join(root, "watched"))
        watched.train(input_fn, steps=4)
        losses = [watched.evaluate(input_fn, steps=2)["loss"]]
        watched.train(input_fn, steps=4)
        losses.append(watched.evaluate(input_fn, steps=2)["loss"])
        eval_dir = watched.eval_dir()
        experimental = tf.estimator.experimental
        hooks = {
            "lower": lambda est: experimental.stop_if_lower_hook(
                est, "loss", 1e9, eval_dir=eval_dir, run_every_secs=None, run_every_steps=1
            ),
            "lower_after_min_steps": lambda est: experimental.stop_if_lower_hook(
                est,
                "loss",
                1e9,
                eval_dir=eval_dir,
                min_steps=6,
                run_every_secs=None,
                run_every_steps=1,
            ),
            "higher": lambda est: experimental.stop_if_higher_hook(
                est, "loss", 1e9, eval_dir=eval_dir, run_every_secs=None, run_every_steps=1
            ),
            "no_decrease": lambda est: experimental.stop_if_no_decrease_hook(
                est, "loss", 1, eval_dir=eval_dir, run_every_secs=None, run_every_steps=1
            ),
            "no_increase": lambda est: experimental.stop_if_no_increase_hook(
                est, "loss", 1, eval_dir=eval_dir, run_every_secs=None, run_every_steps=2
            ),
            "predicate_every_3_steps": lambda est: experimental.make_early_stopping_hook(
                est, lambda: True, run_every_secs=None, run_every_steps=3
            ),
        }
        steps = {}
        for name, make in sorted(hooks.items()):
            est = _linear_estimator(tf, os.path.join(root, name))
            est.train(input_fn, steps=12, hooks=[make(est)])
            steps[name] = est.get_variable_value("global_step")
            stop_var = [v for v in tf.train.list_variables(est.model_dir) if "STOP" in v[0]]
        errors = {}
        for name, make in [
            (
                "both_intervals",
                lambda: experimental.stop_if_lower_hook(
                    watched, "loss", 1.0, run_every_secs=5, run_every_steps=5
                ),
            ),
            (
                "not_an_estimator",
                lambda: experimental.make_early_stopping_hook(object(), lambda: True),
            ),
        ]:
            try:
                make()
                errors[name] = "none"
            except Exception as e:
                errors[name] = type(e).__name__
        return {
            "eval_losses": np.array(losses, np.float32),
            "steps": steps,
            "stop_variable": [[n, list(s)] for n, s in stop_var],
            "chief_stop_at_checkpoint_hook": type(
                experimental.make_stop_at_checkpoint_step_hook(watched, 10)
            ).__name__,
            "errors": errors,
        }
    finally:
        shutil.rmtree(root, ignore_errors=True)


def estimator_in_memory_evaluator(tf):
    global tf_summary_iterator
    tf_summary_iterator = tf.train.summary_iterator
    model_dir = tempfile.mkdtemp()
    try:
        est = _linear_estimator(tf, model_dir)
        input_fn = _xy_input_fn(tf)
        hook = tf.estimator.experimental.InMemoryEvaluatorHook(
            est, input_fn, steps=2, name="mem", every_n_iter=3
        )
        est.train(input_fn, steps=7, hooks=[hook])
        metrics = _eval_metrics(os.path.join(model_dir, "eval_mem"))
        try:
            tf.estimator.experimental.InMemoryEvaluatorHook(est, input_fn, every_n_iter=0)
            bad = "none"
        except Exception as e:
            bad = type(e).__name__
        return {"eval_losses": metrics, "bad_every_n_iter": bad}
    finally:
        shutil.rmtree(model_dir, ignore_errors=True)


def estimator_logit_fns(tf):
    features = {"x": tf.constant([[1.0, 2.0], [3.0, 4.0]])}
    columns = [tf.feature_column.numeric_column("x", shape=[2])]
    dnn_fn = tf.estimator.experimental.dnn_logit_fn_builder(
        3, [4], columns, tf.nn.relu, None, None, False
    )
    dnn = tf.estimator.experimental.call_logit_fn(
        dnn_fn, features, tf.estimator.ModeKeys.TRAIN, {}, None
    )
    linear_fn = tf.estimator.experimental.linear_logit_fn_builder(2, columns)
    linear = tf.estimator.experimental.call_logit_fn(
        linear_fn, features, tf.estimator.ModeKeys.EVAL, {}, None
    )
    errors = {}
    try:
        tf.estimator.experimental.dnn_logit_fn_builder(2.0, [4], columns, None, None, None, False)
        errors["float_units"] = "none"
    except Exception as e:
        errors["float_units"] = type(e).__name__
    try:
        tf.estimator.experimental.call_logit_fn(
            lambda features: [features["x"]], features, "train", None, None
        )
        errors["list_result"] = "none"
    except Exception as e:
        errors["list_result"] = type(e).__name__
    seen = {}
    tf.estimator.experimental.call_logit_fn(
        lambda features, params, config: seen.update(params=params, config=config) or features["x"],
        features,
        "train",
        {"p": 1},
        "cfg",
    )
    return {
        "variables": sorted(v.op.name for v in tf.global_variables()),
        "shapes": [dnn.shape.as_list(), linear.shape.as_list()],
        "errors": errors,
        "passed": [seen["params"]["p"], seen["config"]],
    }


def estimator_input_receivers(tf):
    x = tf.placeholder(tf.float32, [None, 3], name="feature_x")
    y = tf.placeholder(tf.int64, [None], name="label_y")
    out = {}
    with tf.Graph().as_default():
        receiver = tf.estimator.experimental.build_raw_supervised_input_receiver_fn(
            {"x": x}, y, default_batch_size=5
        )()
        out["supervised"] = {
            "features": {k: [v.name, v.shape.as_list()] for k, v in receiver.features.items()},
            "labels": [receiver.labels.name, receiver.labels.shape.as_list()],
            "receiver_tensors": sorted([k, v.name] for k, v in receiver.receiver_tensors.items()),
        }
    with tf.Graph().as_default():
        receiver = tf.estimator.experimental.build_raw_supervised_input_receiver_fn(x, {"y": y})()
        out["supervised_single_feature"] = sorted(
            [k, v.name] for k, v in receiver.receiver_tensors.items()
        )
    with tf.Graph().as_default():
        serving = tf.estimator.export.build_raw_serving_input_receiver_fn({"x": x})()
        out["serving"] = {k: [v.name, v.shape.as_list()] for k, v in serving.features.items()}
    try:
        tf.estimator.experimental.build_raw_supervised_input_receiver_fn({"a": x}, {"a": y})
        out["overlap"] = "none"
    except Exception as e:
        out["overlap"] = type(e).__name__
    return out


def _recurrent_dropout_fit(tf, make_layer):
    """A recurrent layer with dropout trained by fit from fixed weights: the masks' seeds
    come from numpy's generator (seeded here), the random ops from the graph seed."""
    np.random.seed(3)
    tf.set_random_seed(5)
    rng = np.random.RandomState(0)
    x = rng.rand(6, 4, 3).astype(np.float32)
    y = rng.rand(6, 2).astype(np.float32)
    model = tf.keras.Sequential([make_layer(), tf.keras.layers.Dense(2)])
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    model.set_weights(
        [
            np.linspace(-0.5, 0.5, w.size, dtype=np.float32).reshape(w.shape)
            for w in model.get_weights()
        ]
    )
    history = model.fit(x, y, batch_size=3, epochs=3, shuffle=False, verbose=0)
    return {
        "losses": np.array(history.history["loss"], np.float32),
        "predict": model.predict(x),
        "variables": [w.name for w in model.weights],
    }


def keras_lstm_dropout(tf):
    return _recurrent_dropout_fit(
        tf,
        lambda: tf.keras.layers.LSTM(
            4, dropout=0.3, recurrent_dropout=0.25, input_shape=(4, 3), return_sequences=False
        ),
    )


def keras_lstm_dropout_implementation_2(tf):
    return _recurrent_dropout_fit(
        tf,
        lambda: tf.keras.layers.LSTM(
            4, dropout=0.3, recurrent_dropout=0.25, implementation=2, input_shape=(4, 3)
        ),
    )


def keras_gru_dropout(tf):
    return _recurrent_dropout_fit(
        tf, lambda: tf.keras.layers.GRU(5, dropout=0.2, recurrent_dropout=0.4, input_shape=(4, 3))
    )


def keras_gru_dropout_implementation_2_reset_after(tf):
    return _recurrent_dropout_fit(
        tf,
        lambda: tf.keras.layers.GRU(
            5,
            dropout=0.2,
            recurrent_dropout=0.4,
            implementation=2,
            reset_after=True,
            input_shape=(4, 3),
        ),
    )


def keras_simple_rnn_dropout(tf):
    return _recurrent_dropout_fit(
        tf,
        lambda: tf.keras.layers.SimpleRNN(
            3, dropout=0.5, recurrent_dropout=0.5, input_shape=(4, 3)
        ),
    )


def keras_stacked_cells_dropout(tf):
    return _recurrent_dropout_fit(
        tf,
        lambda: tf.keras.layers.RNN(
            [
                tf.keras.layers.LSTMCell(4, dropout=0.3, recurrent_dropout=0.2),
                tf.keras.layers.GRUCell(2, dropout=0.1),
            ],
            input_shape=(4, 3),
        ),
    )


def keras_experimental_schedules(tf):
    step = tf.placeholder(tf.int64, [])
    schedules = {
        "cosine": tf.keras.experimental.CosineDecay(0.1, 10, alpha=0.05),
        "restarts": tf.keras.experimental.CosineDecayRestarts(0.2, 4, t_mul=1.5, m_mul=0.8),
        "linear_cosine": tf.keras.experimental.LinearCosineDecay(0.3, 12, num_periods=1.5),
    }
    values = {name: s(step) for name, s in schedules.items()}
    out = {}
    with tf.Session() as sess:
        for name, value in sorted(values.items()):
            out[name] = np.array([sess.run(value, {step: k}) for k in range(0, 20, 3)])
    out["configs"] = {name: s.get_config() for name, s in schedules.items()}
    restored = tf.keras.optimizers.schedules.deserialize(
        tf.keras.optimizers.schedules.serialize(schedules["cosine"])
    )
    out["deserialized"] = [type(restored).__name__, restored.get_config()]
    out["op_name"] = values["cosine"].op.name
    return out


def data_element_specs_and_structures(tf):
    e = tf.data.experimental
    d = tf.data.Dataset.from_tensor_slices(({"a": [1, 2]}, [[1.0, 2.0], [3.0, 4.0]]))
    sparse = tf.data.Dataset.from_tensors(tf.SparseTensor([[0, 0]], [1.5], [2, 3])).batch(2)
    nested = tf.data.Dataset.range(3).window(2)
    iterator = tf.data.make_initializable_iterator(d.batch(2))
    try:
        e.get_structure([1])
        error = "none"
    except Exception as err:
        error = type(err).__name__
    return {
        "dataset": repr(d.element_spec),
        "sparse": repr(sparse.element_spec),
        "window": repr(nested.element_spec),
        "iterator": repr(e.get_structure(iterator)),
        "constructors": [
            repr(e.TensorStructure(tf.float32, [2])),
            repr(e.SparseTensorStructure(tf.int64, [None, 3])),
            repr(e.RaggedTensorStructure(tf.int32, [2, None], 1)),
            repr(e.TensorArrayStructure(tf.float32, [3], True, False)),
            repr(e.DatasetStructure(e.TensorStructure(tf.int32, []))),
            repr(e.OptionalStructure(e.TensorStructure(tf.int32, []))),
            e.Structure.__name__,
        ],
        "error": error,
    }


def keras_scikit_learn_wrappers(tf):
    keras = tf.keras
    rng = np.random.RandomState(4)
    x = rng.rand(12, 3).astype(np.float32)
    labels = np.array([3, 7, 9] * 4)

    def build_classifier(hidden=4, optimizer="sgd"):
        model = keras.Sequential(
            [
                keras.layers.Dense(
                    hidden,
                    activation="relu",
                    input_shape=(3,),
                    kernel_initializer=keras.initializers.Constant(0.3),
                ),
                keras.layers.Dense(
                    3, activation="softmax", kernel_initializer=keras.initializers.Constant(-0.2)
                ),
            ]
        )
        model.compile(optimizer, "categorical_crossentropy", metrics=["accuracy"])
        return model

    def build_regressor():
        model = keras.Sequential(
            [
                keras.layers.Dense(
                    1, input_shape=(3,), kernel_initializer=keras.initializers.Constant(0.5)
                )
            ]
        )
        model.compile("sgd", "mse")
        return model

    wrappers = tf.keras.wrappers.scikit_learn
    clf = wrappers.KerasClassifier(
        build_classifier, hidden=5, epochs=3, batch_size=4, shuffle=False, verbose=0
    )
    clf.fit(x, labels)
    reg = wrappers.KerasRegressor(
        build_fn=build_regressor, epochs=2, batch_size=6, shuffle=False, verbose=0
    )
    reg.fit(x, x.sum(axis=1))
    errors = {}
    try:
        wrappers.KerasClassifier(build_classifier, no_such_param=1)
        errors["unknown_param"] = "none"
    except Exception as e:
        errors["unknown_param"] = type(e).__name__
    try:
        clf.fit(x, np.zeros((12, 2, 2)))
        errors["bad_y"] = "none"
    except Exception as e:
        errors["bad_y"] = type(e).__name__
    params = clf.get_params()
    return {
        "classes": clf.classes_,
        "predict": clf.predict(x),
        "predict_proba": clf.predict_proba(x),
        "score": np.float32(clf.score(x, labels)),
        "regressor_predict": reg.predict(x),
        "regressor_score": np.float32(reg.score(x, x.sum(axis=1))),
        "params": sorted(k for k in params if k != "build_fn"),
        "set_params": sorted(clf.set_params(epochs=1).sk_params),
        "errors": errors,
    }


def random_generator_streams(tf):
    e = tf.random.experimental
    g = e.Generator.from_seed(7)
    big = e.Generator.from_seed(2**70 + 12345)
    keyed = e.Generator.from_key_counter(key=99, counter=[5, 1], alg=1)
    draws = [
        g.normal([10]),
        g.uniform([3], dtype=tf.float64),
        g.uniform([5], minval=0, maxval=10, dtype=tf.int32),
        g.truncated_normal([6]),
        g.uniform_full_int([3], dtype=tf.int64),
        g.normal([2, 3], mean=1.0, stddev=0.5, dtype=tf.float64),
        g.uniform([4], minval=-2.0, maxval=3.0),
        big.uniform([5]),
        keyed.normal([4]),
        keyed.uniform_full_int([2], dtype=tf.uint32),
        big.make_seeds(3),
    ]
    out = {}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["initial_states"] = sess.run([g.state, big.state, keyed.state])
        values = []
        for d in draws:
            values.append(sess.run(d))
        out["draws"] = values
        out["states"] = sess.run([g.state, big.state, keyed.state])
        # skip/reset add ops and return nothing (TF 1.15 graph mode): nothing runs them.
        out["returns"] = [g.skip(10), g.reset_from_seed(7), g.reset_from_key_counter(3, [4, 0])]
        out["state_unchanged"] = sess.run(g.state)
        out["key"] = sess.run(keyed.key)
    out["create_rng_state"] = [
        e.create_rng_state(5, 1),
        e.create_rng_state(2**64 + 3, 1),
        e.create_rng_state([1, 2], 1),
        e.create_rng_state(-1, 2),
    ]
    errors = {}
    for name, make in [
        ("int_without_maxval", lambda: g.uniform([2], dtype=tf.int32)),
        ("bad_algorithm", lambda: e.create_rng_state(1, 9)),
        ("split_in_graph_mode", lambda: g.split(2)),
    ]:
        try:
            make()
            errors[name] = "none"
        except Exception as err:
            errors[name] = type(err).__name__
    out["errors"] = errors
    e.set_global_generator(g)
    out["global_is_set"] = e.get_global_generator() is g
    return out


def config_context_settings(tf):
    c = tf.config.experimental
    seen = [c.get_device_policy(), c.get_synchronous_execution()]
    c.set_device_policy("warn")
    c.set_synchronous_execution(False)
    seen += [c.get_device_policy(), c.get_synchronous_execution()]
    c.set_device_policy(None)
    c.set_synchronous_execution(None)
    seen += [c.get_device_policy(), c.get_synchronous_execution()]
    try:
        c.set_device_policy("bogus")
        error = "none"
    except Exception as e:
        error = type(e).__name__
    devices = [d for d in tf.config.experimental_list_devices() if "XLA" not in d]
    return {"seen": seen, "error": error, "devices": devices}


def keras_peephole_lstm(tf):
    return _recurrent_dropout_fit(
        tf,
        lambda: tf.keras.layers.RNN(tf.keras.experimental.PeepholeLSTMCell(4), input_shape=(4, 3)),
    )


def keras_peephole_lstm_dropout(tf):
    return _recurrent_dropout_fit(
        tf,
        lambda: tf.keras.layers.RNN(
            tf.keras.experimental.PeepholeLSTMCell(4, dropout=0.2, recurrent_dropout=0.3),
            input_shape=(4, 3),
        ),
    )


def keras_fit_checks_target_shapes(tf):
    """A target of another shape than the model's output is refused before training, as
    Keras's standardize_input_data / check_loss_and_target_compatibility do."""
    model = tf.keras.Sequential(
        [
            tf.keras.layers.LSTM(3, return_sequences=True, input_shape=(4, 3)),
            tf.keras.layers.Dense(2),
        ]
    )
    model.compile("sgd", "mse")
    x = np.zeros((6, 4, 3), np.float32)
    out = {}
    for name, y in [
        ("rank", np.zeros((6, 2), np.float32)),
        ("last_dim", np.zeros((6, 4, 5), np.float32)),
        ("batch", np.zeros((5, 4, 2), np.float32)),
    ]:
        try:
            model.fit(x, y, epochs=1, verbose=0)
            out[name] = "none"
        except Exception as e:
            out[name] = type(e).__name__
    dense = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(2,))])
    dense.compile("sgd", "categorical_crossentropy")
    try:
        dense.fit(np.zeros((4, 2), np.float32), np.zeros((4, 5), np.float32), verbose=0)
        out["categorical_width"] = "none"
    except Exception as e:
        out["categorical_width"] = type(e).__name__
    return out


def keras_fit_on_datasets(tf):
    x = np.arange(24, dtype=np.float32).reshape(12, 2) / 10
    y = x.sum(1, keepdims=True)
    model = tf.keras.Sequential(
        [tf.keras.layers.Dense(1, input_shape=(2,), kernel_initializer="zeros")]
    )
    model.compile(tf.keras.optimizers.SGD(0.01), "mse", metrics=["mae"])
    data = tf.data.Dataset.from_tensor_slices((x, y)).batch(5)
    out = {}
    h = model.fit(data, epochs=2, verbose=0)
    out["finite"] = h.history
    out["finite_params"] = {k: h.params[k] for k in ("steps", "samples", "epochs")}
    out["repeat"] = model.fit(data.repeat(), epochs=2, steps_per_epoch=3, verbose=0).history
    out["evaluate"] = model.evaluate(data, verbose=0)
    out["evaluate_steps"] = model.evaluate(data.repeat(), steps=2, verbose=0)
    out["validation"] = model.fit(data, epochs=1, validation_data=data, verbose=0).history
    out["validation_steps"] = model.fit(
        data.repeat(),
        epochs=1,
        steps_per_epoch=2,
        validation_data=data.repeat(),
        validation_steps=2,
        verbose=0,
    ).history
    unknown = tf.data.Dataset.from_tensor_slices((x, y)).filter(lambda a, b: a[0] > 0.3).batch(4)
    out["unknown_size"] = model.fit(unknown, epochs=2, verbose=0).history
    out["predict"] = model.predict(data)
    out["predict_features_only"] = model.predict(tf.data.Dataset.from_tensor_slices(x).batch(7))
    out["predict_steps"] = model.predict(data.repeat(), steps=3)
    errors = {}
    for name, run in [
        ("batch_size", lambda: model.fit(data, batch_size=3, verbose=0)),
        ("targets", lambda: model.fit(data, y, verbose=0)),
        ("infinite", lambda: model.fit(data.repeat(), verbose=0)),
        ("infinite_evaluate", lambda: model.evaluate(data.repeat(), verbose=0)),
        (
            "iterator",
            lambda: model.fit(
                tf.data.make_one_shot_iterator(data.repeat()), steps_per_epoch=2, verbose=0
            ),
        ),
    ]:
        try:
            run()
            errors[name] = "none"
        except Exception as e:
            errors[name] = type(e).__name__
    out["errors"] = errors
    return out


def keras_sample_and_class_weights(tf):
    x = (np.arange(24, dtype=np.float32).reshape(12, 2) % 5) / 4
    labels = np.array([0, 1, 2, 1] * 3)
    onehot = np.eye(3, dtype=np.float32)[labels]

    def model(loss):
        m = tf.keras.Sequential(
            [
                tf.keras.layers.Dense(
                    3,
                    activation="softmax",
                    input_shape=(2,),
                    kernel_initializer=tf.keras.initializers.Constant(0.1),
                )
            ]
        )
        m.compile(tf.keras.optimizers.SGD(0.5), loss, metrics=["accuracy"])
        return m

    out = {}
    weights = np.linspace(0.5, 2.0, 12).astype(np.float32)
    m = model("categorical_crossentropy")
    out["sample_weight"] = m.fit(
        x, onehot, batch_size=5, epochs=2, shuffle=False, sample_weight=weights, verbose=0
    ).history
    out["class_weight"] = m.fit(
        x,
        onehot,
        batch_size=5,
        epochs=2,
        shuffle=False,
        class_weight={0: 1.0, 1: 3.0, 2: 0.5},
        verbose=0,
    ).history
    out["both"] = m.fit(
        x,
        onehot,
        batch_size=12,
        epochs=1,
        shuffle=False,
        sample_weight=weights,
        class_weight={0: 2.0, 1: 1.0, 2: 1.0},
        verbose=0,
    ).history
    out["evaluate_weighted"] = m.evaluate(x, onehot, sample_weight=weights, verbose=0)
    sparse = model("sparse_categorical_crossentropy")
    out["sparse_class_weight"] = sparse.fit(
        x,
        labels,
        batch_size=4,
        epochs=2,
        shuffle=False,
        class_weight={0: 0.2, 1: 1.0, 2: 4.0},
        verbose=0,
    ).history
    out["train_on_batch"] = sparse.train_on_batch(x[:4], labels[:4], sample_weight=weights[:4])
    out["validation_weights"] = sparse.fit(
        x,
        labels,
        batch_size=6,
        epochs=1,
        shuffle=False,
        validation_data=(x, labels, weights),
        verbose=0,
    ).history
    errors = {}
    for name, run in [
        ("missing_class", lambda: m.fit(x, onehot, class_weight={0: 1.0}, verbose=0)),
        ("weights_2d", lambda: m.fit(x, onehot, sample_weight=np.ones((12, 2)), verbose=0)),
        ("weights_length", lambda: m.fit(x, onehot, sample_weight=np.ones(5), verbose=0)),
    ]:
        try:
            run()
            errors[name] = "none"
        except Exception as e:
            errors[name] = type(e).__name__
    out["errors"] = errors
    out["weights"] = [w for w in m.get_weights()]
    return out


def _linspace_weights(model):
    return [
        np.linspace(-1, 1, a.size).reshape(a.shape).astype(np.float32) for a in model.get_weights()
    ]


def _estimator_answers(tf, est, train_fn, eval_fn, predict_fn, steps):
    est.train(train_fn, steps=steps)
    names = sorted(n for n, _ in tf.train.list_variables(est.model_dir))
    keras_dir = os.path.join(est.model_dir, "keras")
    out = {
        "checkpoint_variables": names,
        "keras_checkpoint_variables": sorted(n for n, _ in tf.train.list_variables(keras_dir)),
        "trained": {
            n: tf.train.load_variable(est.model_dir, n)
            for n in names
            if "/kernel" in n or "/bias" in n
        },
        "eval": {k: np.float64(v) for k, v in est.evaluate(eval_fn).items()},
    }
    preds = list(est.predict(predict_fn))
    out["prediction_keys"] = sorted(preds[0])
    out["predictions"] = {k: np.stack([p[k] for p in preds]) for k in preds[0]}
    return out


def keras_model_to_estimator_functional(tf):
    rng = np.random.RandomState(0)
    x = rng.rand(64, 4).astype(np.float32)
    y = (x.sum(1) > 2).astype(np.int64)
    inp = tf.keras.layers.Input(shape=(4,), name="feats")
    h = tf.keras.layers.Dense(5, activation="relu", name="hid")(inp)
    o = tf.keras.layers.Dense(2, activation="softmax", name="probs")(h)
    model = tf.keras.models.Model(inp, o)
    model.compile(
        optimizer=tf.keras.optimizers.SGD(0.5),
        loss="sparse_categorical_crossentropy",
        metrics=["accuracy"],
    )
    model.set_weights(_linspace_weights(model))
    root = tempfile.mkdtemp()
    try:
        est = tf.keras.estimator.model_to_estimator(
            keras_model=model, model_dir=os.path.join(root, "m")
        )
        data = tf.data.Dataset.from_tensor_slices
        out = _estimator_answers(
            tf,
            est,
            lambda: data(({"feats": x}, y)).batch(16).repeat(2),
            lambda: data(({"feats": x}, y)).batch(16),
            lambda: data({"feats": x[:5]}).batch(2),
            6,
        )
        try:
            est.train(lambda: data(({"wrong": x}, y)).batch(16), steps=1)
        except Exception as e:  # the error class and its first line
            out["wrong_feature_key"] = type(e).__name__
        return out
    finally:
        shutil.rmtree(root)


def keras_model_to_estimator_sequential_adam(tf):
    rng = np.random.RandomState(1)
    x = rng.rand(40, 3).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)
    model = tf.keras.models.Sequential(
        [
            tf.keras.layers.Dense(6, activation="tanh", input_shape=(3,)),
            tf.keras.layers.Dense(1),
        ]
    )
    model.compile(optimizer=tf.keras.optimizers.Adam(0.05), loss="mse", metrics=["mae"])
    model.set_weights(_linspace_weights(model))
    root = tempfile.mkdtemp()
    try:
        config = tf.estimator.RunConfig(model_dir=os.path.join(root, "m"), tf_random_seed=3)
        est = tf.keras.estimator.model_to_estimator(keras_model=model, config=config)
        data = tf.data.Dataset.from_tensor_slices
        return _estimator_answers(
            tf,
            est,
            lambda: data((x, y)).batch(8).repeat(3),
            lambda: data((x, y)).batch(10),
            lambda: data(x[:4]).batch(4),
            12,
        )
    finally:
        shutil.rmtree(root)


def keras_model_to_estimator_two_outputs(tf):
    rng = np.random.RandomState(2)
    a = rng.rand(32, 3).astype(np.float32)
    b = rng.rand(32, 2).astype(np.float32)
    y_cls = (a[:, 0] > 0.5).astype(np.float32)[:, None]
    y_reg = (b.sum(1, keepdims=True) - a[:, 1:2]).astype(np.float32)
    ia = tf.keras.layers.Input(shape=(3,), name="a")
    ib = tf.keras.layers.Input(shape=(2,), name="b")
    h = tf.keras.layers.concatenate([ia, ib])
    h = tf.keras.layers.Dense(4, activation="relu", name="shared")(h)
    cls = tf.keras.layers.Dense(1, activation="sigmoid", name="cls")(h)
    reg = tf.keras.layers.Dense(1, name="reg")(h)
    model = tf.keras.models.Model([ia, ib], [cls, reg])
    model.compile(
        optimizer=tf.keras.optimizers.RMSprop(0.01),
        loss={"cls": "binary_crossentropy", "reg": "mse"},
        loss_weights={"cls": 1.0, "reg": 0.5},
        metrics={"cls": ["accuracy"], "reg": ["mae"]},
    )
    model.set_weights(_linspace_weights(model))
    root = tempfile.mkdtemp()
    try:
        est = tf.keras.estimator.model_to_estimator(
            keras_model=model, model_dir=os.path.join(root, "m")
        )
        data = tf.data.Dataset.from_tensor_slices
        feats = {"a": a, "b": b}
        labels = {"cls": y_cls, "reg": y_reg}
        return _estimator_answers(
            tf,
            est,
            lambda: data((feats, labels)).batch(8).repeat(),
            lambda: data((feats, labels)).batch(16),
            lambda: data({"a": a[:3], "b": b[:3]}).batch(3),
            5,
        )
    finally:
        shutil.rmtree(root)


def keras_model_to_estimator_errors(tf):
    out = {}
    model = tf.keras.models.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
    for name, kwargs in [
        ("not_compiled", {"keras_model": model}),
        ("nothing_given", {}),
        ("both_given", {"keras_model": model, "keras_model_path": "/nonexistent.h5"}),
    ]:
        try:
            tf.keras.estimator.model_to_estimator(**kwargs)
            out[name] = "no error"
        except Exception as e:
            out[name] = type(e).__name__
    model.compile("sgd", "mse")
    try:
        tf.keras.estimator.model_to_estimator(keras_model=model, checkpoint_format="bogus")
        out["bad_format"] = "no error"
    except Exception as e:
        out["bad_format"] = type(e).__name__
    return out


def _premade_data():
    rng = np.random.RandomState(0)
    x = rng.rand(32, 3).astype(np.float32)
    x2 = rng.rand(32, 2).astype(np.float32)
    y = x @ np.array([[1.0], [2.0], [-1.0]], np.float32)
    y = (y + x2 @ np.array([[0.5], [1.0]], np.float32)).astype(np.float32)
    return x, x2, y


def keras_linear_model(tf):
    x, x2, y = _premade_data()
    one = tf.keras.experimental.LinearModel(kernel_initializer="ones")
    one.compile("sgd", "mse")
    h1 = one.fit(x, y, epochs=3, batch_size=8, verbose=0, shuffle=False)
    two = tf.keras.experimental.LinearModel(
        units=2,
        activation="relu",
        kernel_initializer="ones",
        name="lm2",
        kernel_regularizer=tf.keras.regularizers.l2(0.01),
    )
    two.compile("sgd", "mse")
    h2 = two.fit(
        [x, x2], np.concatenate([y, -y], 1), epochs=2, batch_size=16, verbose=0, shuffle=False
    )
    config = one.get_config()
    again = tf.keras.experimental.LinearModel.from_config(config)
    return {
        "one_input_losses": np.array(h1.history["loss"]),
        "one_input_weights": [w.name for w in one.weights],
        "one_input_predictions": one.predict(x[:4]),
        "config": config,
        "from_config_units": again.units,
        "two_input_losses": np.array(h2.history["loss"]),
        "two_input_weights": [w.name for w in two.weights],
        "two_input_predictions": two.predict([x[:3], x2[:3]]),
    }


def keras_wide_deep_model(tf):
    x, x2, y = _premade_data()
    linear = tf.keras.experimental.LinearModel(kernel_initializer="ones")
    dnn = tf.keras.models.Sequential(
        [
            tf.keras.layers.Dense(4, activation="relu", kernel_initializer="ones"),
            tf.keras.layers.Dense(1, kernel_initializer="ones"),
        ]
    )
    model = tf.keras.experimental.WideDeepModel(linear, dnn)
    model.compile(
        optimizer=[tf.keras.optimizers.SGD(0.01), tf.keras.optimizers.Adam(0.01)], loss="mse"
    )
    h = model.fit([x, x2], y, epochs=3, batch_size=8, verbose=0, shuffle=False)
    single = tf.keras.experimental.WideDeepModel(
        tf.keras.experimental.LinearModel(kernel_initializer="ones"),
        tf.keras.models.Sequential([tf.keras.layers.Dense(1, kernel_initializer="ones")]),
        activation="sigmoid",
    )
    single.compile("sgd", "binary_crossentropy", metrics=["accuracy"])
    h1 = single.fit(x, (y > 1).astype(np.float32), epochs=2, batch_size=8, verbose=0, shuffle=False)
    config = single.get_config()
    return {
        "two_optimizer_losses": np.array(h.history["loss"]),
        "optimizer_variables": sorted(
            v.name for v in tf.global_variables() if v.name.startswith("training")
        ),
        "weights": [w.name for w in model.weights],
        "predictions": model.predict([x[:2], x2[:2]]),
        "one_optimizer_history": {k: np.array(v, np.float64) for k, v in h1.history.items()},
        "config_keys": sorted(config),
        "config_activation": config["activation"],
        "config_parts": [config["linear_model"]["class_name"], config["dnn_model"]["class_name"]],
    }


def _keras_export_model(tf):
    model = tf.keras.Sequential(
        [
            tf.keras.layers.Dense(
                3, activation="relu", input_shape=(4,), kernel_initializer="ones"
            ),
            tf.keras.layers.Dense(2, kernel_initializer="ones"),
        ]
    )
    model.compile(tf.keras.optimizers.SGD(0.1), "mse", metrics=["mae"])
    x = np.linspace(0, 1, 32).reshape(8, 4).astype(np.float32)
    model.fit(x, np.ones((8, 2), np.float32), epochs=2, batch_size=4, verbose=0, shuffle=False)
    return model


def _signature_summary(meta_graph):
    return {
        key: {
            "inputs": sorted(sig.inputs),
            "outputs": sorted(sig.outputs),
            "method": sig.method_name,
        }
        for key, sig in meta_graph.signature_def.items()
        if not key.startswith("__")
    }


def keras_export_saved_model(tf):
    model = _keras_export_model(tf)
    x = np.linspace(-1, 1, 12).reshape(3, 4).astype(np.float32)
    root = tempfile.mkdtemp()
    try:
        path = os.path.join(root, "export")
        tf.keras.experimental.export_saved_model(model, path)
        out = {
            "files": sorted(os.listdir(path)),
            "assets": sorted(os.listdir(os.path.join(path, "assets"))),
            "checkpoint_keys": sorted(
                n for n, _ in tf.train.list_variables(os.path.join(path, "variables", "variables"))
            ),
            "keras_predictions": tf.keras.experimental.load_from_saved_model(path).predict(x),
        }
        for tag, key in [("serve", "serving_default"), ("eval", "eval"), ("train", "train")]:
            with tf.Graph().as_default(), tf.Session() as sess:
                meta_graph = tf.saved_model.loader.load(sess, [tag], path)
                sig = meta_graph.signature_def[key]
                feed = {sig.inputs["dense_input"].name: x}
                if "dense_1_target" in sig.inputs:
                    feed[sig.inputs["dense_1_target"].name] = np.full((3, 2), 0.5, np.float32)
                names = sorted(k for k in sig.outputs if not k.endswith("update_op"))
                values = sess.run([sig.outputs[k].name for k in names], feed)
                out[tag] = {
                    "signatures": _signature_summary(meta_graph),
                    "values": dict(zip(names, values)),
                }
        try:
            tf.keras.experimental.export_saved_model(model, path)
        except Exception as e:
            out["export_into_non_empty_dir"] = type(e).__name__
        return out
    finally:
        shutil.rmtree(root)


def keras_mixed_precision_policies(tf):
    mp = tf.keras.mixed_precision.experimental
    out = {}
    for name in [
        "float32",
        "infer",
        "infer_float32_vars",
        "float16_with_float32_vars",
        "mixed_bfloat16",
        "float64",
        "mixed_float16",
    ]:
        p = mp.Policy(name)
        out[name] = [
            p.name,
            str(p.compute_dtype),
            str(p.variable_dtype),
            p.should_cast_variables,
            repr(p.loss_scale),
        ]
    out["global"] = mp.global_policy().name
    mp.set_policy("infer_float32_vars")
    out["global_after_set"] = mp.global_policy().name
    mp.set_policy(None)
    for label, fn in [
        ("set_non_infer", lambda: mp.set_policy("float32")),
        ("bad_name", lambda: mp.Policy("bogus")),
        ("dtype_not_name", lambda: mp.Policy(tf.float32)),
        ("bad_suffix", lambda: mp.Policy("bogus_with_float32_vars")),
    ]:
        try:
            fn()
            out[label] = "no error"
        except Exception as e:
            out[label] = type(e).__name__
    return out


def keras_mixed_float16_training(tf):
    mp = tf.keras.mixed_precision.experimental
    policy = mp.Policy("mixed_float16")
    x = np.linspace(-1, 1, 24).reshape(6, 4).astype(np.float32)
    y = np.linspace(0, 1, 12).reshape(6, 2).astype(np.float32)
    inp = tf.keras.layers.Input(shape=(4,), dtype="float16")
    h = tf.keras.layers.Dense(
        3, activation="relu", kernel_initializer="ones", dtype=policy, name="d1"
    )(inp)
    o = tf.keras.layers.Dense(2, kernel_initializer="ones", dtype=policy, name="d2")(h)
    f32 = tf.keras.layers.Dense(2, kernel_initializer="ones", name="plain")(inp)
    model = tf.keras.models.Model(inp, o)
    opt = mp.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1), "dynamic")
    model.compile(opt, "mse")
    hist = model.fit(x.astype(np.float16), y, epochs=3, batch_size=3, verbose=0, shuffle=False)
    return {
        "dtypes": [h.dtype.name, o.dtype.name, f32.dtype.name],
        "weights": [[w.name, w.dtype.base_dtype.name, type(w).__name__] for w in model.weights],
        "loss": np.array(hist.history["loss"]),
        "weights_after": model.get_weights(),
        "loss_scale": np.float32(tf.keras.backend.get_value(opt.loss_scale())),
        "predictions": model.predict(x[:2].astype(np.float16)).astype(np.float32),
    }


def keras_loss_scale_optimizer(tf):
    mp = tf.keras.mixed_precision.experimental
    # TF's Keras optimizers update resource variables.
    v = tf.Variable(2.0, use_resource=True)
    w = tf.Variable([1.0, -1.0], use_resource=True)
    loss = v * 3.0 + tf.reduce_sum(w * w)
    opt = mp.LossScaleOptimizer(tf.keras.optimizers.SGD(0.5), 8.0)
    scaled = opt.get_scaled_loss(loss)
    grads = tf.gradients(scaled, [v, w])
    unscaled = opt.get_unscaled_gradients(grads)
    step = opt.apply_gradients(zip(unscaled, [v, w]))
    inf_opt = mp.LossScaleOptimizer(tf.keras.optimizers.Adam(0.1), "dynamic")
    bad = inf_opt.apply_gradients([(tf.constant(float("inf")), v)])
    sess = tf.keras.backend.get_session()
    sess.run(tf.global_variables_initializer())
    out = {"scaled": sess.run([scaled, *grads, *unscaled])}
    sess.run(step)
    out["after_step"] = sess.run([v, w])
    sess.run(bad)
    out["after_inf_step"] = sess.run([v, inf_opt.loss_scale()])
    out["lr"] = np.float32(tf.keras.backend.get_value(opt.learning_rate))
    errors = {}
    for label, fn in [
        (
            "clipnorm",
            lambda: mp.LossScaleOptimizer(tf.keras.optimizers.SGD(1.0, clipnorm=1.0), "dynamic"),
        ),
        (
            "clipvalue",
            lambda: mp.LossScaleOptimizer(tf.keras.optimizers.SGD(1.0, clipvalue=1.0), "dynamic"),
        ),
        (
            "tf_train_optimizer",
            lambda: mp.LossScaleOptimizer(tf.train.GradientDescentOptimizer(1.0), "dynamic"),
        ),
        ("get_config", lambda: opt.get_config()),
    ]:
        try:
            fn()
            errors[label] = "no error"
        except Exception as e:
            errors[label] = type(e).__name__
    out["errors"] = errors
    return out


def keras_sequence_features(tf):
    fc = tf.feature_column
    ids = fc.sequence_categorical_column_with_identity("ids", num_buckets=5)
    emb = fc.embedding_column(ids, dimension=3, initializer=tf.constant_initializer(0.5))
    ind = fc.indicator_column(fc.sequence_categorical_column_with_identity("tok", num_buckets=4))
    num = fc.sequence_numeric_column("vals", shape=(2,))
    features = {
        "ids": tf.SparseTensor(
            indices=[[0, 0], [0, 1], [1, 0]],
            values=np.array([1, 2, 3], np.int64),
            dense_shape=[2, 2],
        ),
        "tok": tf.SparseTensor(
            indices=[[0, 0], [0, 1], [1, 0]],
            values=np.array([0, 3, 2], np.int64),
            dense_shape=[2, 2],
        ),
        "vals": tf.SparseTensor(
            indices=[[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1]],
            values=np.arange(6, dtype=np.float32),
            dense_shape=[2, 4],
        ),
    }
    layer = tf.keras.experimental.SequenceFeatures([emb, ind, num])
    out, length = layer(features)
    loss = tf.reduce_sum(out * out)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    result = {
        "shapes": [out.shape.as_list(), length.shape.as_list()],
        "weights": [v.name for v in layer.weights],
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        result["output"], result["length"] = sess.run([out, length])
        sess.run(train)
        result["embedding_after_step"] = sess.run(layer.weights[0])
    for label, fn in [
        (
            "non_sequence_column",
            lambda: tf.keras.experimental.SequenceFeatures([fc.numeric_column("x")]),
        ),
        ("sequence_column_in_input_layer", lambda: fc.input_layer(features, [emb])),
        ("not_a_dict", lambda: layer(features["ids"])),
    ]:
        try:
            fn()
            result[label] = "no error"
        except Exception as e:
            result[label] = type(e).__name__
    return result


def keras_stateful_rnns(tf):
    constant = tf.keras.initializers.Constant
    x = np.linspace(-1, 1, 30).reshape(2, 3, 5).astype(np.float32)
    model = tf.keras.Sequential(
        [
            tf.keras.layers.LSTM(
                4,
                stateful=True,
                batch_input_shape=(2, 3, 5),
                kernel_initializer=constant(0.1),
                recurrent_initializer=constant(0.05),
                return_sequences=True,
            ),
            tf.keras.layers.GRU(
                3,
                stateful=True,
                kernel_initializer=constant(-0.1),
                recurrent_initializer=constant(0.2),
            ),
            tf.keras.layers.Dense(1, kernel_initializer="ones"),
        ]
    )
    model.compile("sgd", "mse")
    out = {"first": model.predict(x, batch_size=2), "second": model.predict(x, batch_size=2)}
    model.reset_states()
    out["after_reset"] = model.predict(x, batch_size=2)
    out["variables"] = [v.name for v in tf.global_variables()]
    out["weights"] = [w.name for w in model.weights]
    y = np.ones((2, 1), np.float32)
    out["fit_loss"] = np.array(
        model.fit(x, y, batch_size=2, epochs=3, shuffle=False, verbose=0).history["loss"]
    )
    out["evaluate"] = np.float64(model.evaluate(x, y, batch_size=2, verbose=0))
    out["lstm_state"] = tf.keras.backend.batch_get_value(model.layers[0].states)
    model.layers[0].reset_states([np.ones((2, 4), np.float32), np.zeros((2, 4), np.float32)])
    out["given_state"] = tf.keras.backend.batch_get_value(model.layers[0].states)
    for label, fn in [
        (
            "unknown_batch",
            lambda: tf.keras.layers.LSTM(2, stateful=True)(tf.keras.layers.Input(shape=(3, 5))),
        ),
        ("wrong_state_count", lambda: model.layers[0].reset_states([np.zeros((2, 4))])),
        (
            "wrong_state_shape",
            lambda: model.layers[0].reset_states([np.zeros((3, 4)), np.zeros((2, 4))]),
        ),
        ("not_stateful", lambda: model.layers[2].reset_states()),
    ]:
        try:
            fn()
            out[label] = "no error"
        except Exception as e:
            out[label] = type(e).__name__
    return out


def keras_time_major_and_unrolled_rnns(tf):
    constant = tf.keras.initializers.Constant
    x = np.linspace(-1, 1, 30).reshape(2, 3, 5).astype(np.float32)
    time_major = tf.keras.layers.SimpleRNN(
        2,
        time_major=True,
        return_sequences=True,
        kernel_initializer=constant(0.3),
        recurrent_initializer=constant(0.1),
    )
    inp = tf.keras.layers.Input(shape=(3, 5))
    seq = time_major(tf.transpose(inp, [1, 0, 2]))
    unrolled = tf.keras.layers.GRU(
        2,
        unroll=True,
        kernel_initializer=constant(0.3),
        recurrent_initializer=constant(0.1),
        return_state=True,
    )
    last, state = unrolled(tf.constant(x))
    rolled = tf.keras.layers.GRU(
        2, kernel_initializer=constant(0.3), recurrent_initializer=constant(0.1)
    )(tf.constant(x))
    sess = tf.keras.backend.get_session()
    sess.run(tf.global_variables_initializer())
    out = {
        "time_major_shape": seq.shape.as_list(),
        "time_major": sess.run(seq, {inp: x}),
        "unrolled": sess.run([last, state]),
        "rolled": sess.run(rolled),
    }
    try:
        tf.keras.layers.LSTM(2, unroll=True)(tf.keras.layers.Input(shape=(None, 5)))
        out["unroll_unknown_steps"] = "no error"
    except Exception as e:
        out["unroll_unknown_steps"] = type(e).__name__
    return out


def sync_replicas_with_variable_averages(tf):
    # The chief's update (its queue runner's op) is run by hand once per worker step, so the
    # moving average is read after each whole update.
    global_step = tf.train.get_or_create_global_step()
    x = tf.constant([[1.0, 2.0], [0.5, -1.0]])
    w = tf.Variable([[1.0, -1.0], [0.5, 2.0]], name="w")
    loss = tf.reduce_sum(tf.square(tf.matmul(x, w)))
    ema = tf.train.ExponentialMovingAverage(0.5, num_updates=global_step)
    opt = tf.train.SyncReplicasOptimizer(
        tf.train.GradientDescentOptimizer(0.05),
        replicas_to_aggregate=1,
        variable_averages=ema,
        variables_to_average=[w],
    )
    train = opt.minimize(loss, global_step=global_step)
    chief_update = opt.get_chief_queue_runner().enqueue_ops[0]
    averages = ema.average(w)
    trace = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.local_variables_initializer())
        sess.run(opt.chief_init_op)
        for _ in range(3):
            # The worker's step waits for the token the chief's update hands out.
            worker = threading.Thread(target=sess.run, args=(train,))
            worker.start()
            sess.run(chief_update)
            worker.join()
            trace.append(sess.run([global_step, w, averages]))
    return {
        "average_name": averages.op.name,
        "chief_update_type": chief_update.type,
        "steps": [np.int64(t[0]) for t in trace],
        "weights": [t[1] for t in trace],
        "averages": [t[2] for t in trace],
    }


def functions_run_eagerly(tf):
    """tf.config.experimental_run_functions_eagerly(True): a tf.function called in a graph
    runs its Python body there (its ops in the caller's graph, no call op, traced on every
    call); False brings back the traced function call."""
    calls = []

    @tf.function
    def double(x):
        calls.append(1)
        return x * 2.0

    tf.config.experimental_run_functions_eagerly(True)
    try:
        a = double(tf.constant(1.5))
        b = double(tf.constant(2.5))
    finally:
        tf.config.experimental_run_functions_eagerly(False)
    c = double(tf.constant(3.0))
    d = double(tf.constant(4.0))
    ops = [[op.name, op.type] for op in tf.get_default_graph().get_operations()]
    with tf.Session() as sess:
        values = sess.run([a, b, c, d])
    return {"ops": ops, "values": [float(v) for v in values], "python_calls": len(calls)}


def control_dependencies_leave_out_dominated_ops(tf):
    """An op made in a control_dependencies block gets its control inputs unless one of its
    inputs was made in that block (it runs after them through it); a block under
    control_dependencies(None) is seen by no outer block; values still read after the
    block's assign."""
    v = tf.Variable(1.0, name="v")
    a = tf.assign_add(v, 1.0, name="a")
    with tf.control_dependencies([a]):
        c = tf.constant(2.0, name="c")
        m = tf.multiply(v, c, name="m")
        r = tf.identity(v, name="r")
        with tf.control_dependencies(None):
            free = tf.identity(c, name="free")
        n = tf.no_op(name="n")
        with tf.control_dependencies([n]):
            both = tf.add(v, 1.0, name="both")
            x = tf.identity(free, name="x")
            y = tf.square(m, name="y")
    graph_def = tf.get_default_graph().as_graph_def()
    inputs = {
        node.name: list(node.input)
        for node in graph_def.node
        if node.name in ("c", "m", "r", "free", "n", "both", "both/y", "x", "y")
    }
    with tf.Session() as sess:
        sess.run(v.initializer)
        values = [sess.run([m, r, both, x, y]) for _ in range(2)]
    return {"inputs": inputs, "values": [[float(x) for x in run] for run in values]}


CASES = {
    "control_dependencies_leave_out_dominated_ops": control_dependencies_leave_out_dominated_ops,
    "functions_run_eagerly": functions_run_eagerly,
    "sync_replicas_with_variable_averages": sync_replicas_with_variable_averages,
    "keras_stateful_rnns": keras_stateful_rnns,
    "keras_time_major_and_unrolled_rnns": keras_time_major_and_unrolled_rnns,
    "keras_sequence_features": keras_sequence_features,
    "keras_mixed_precision_policies": keras_mixed_precision_policies,
    "keras_mixed_float16_training": keras_mixed_float16_training,
    "keras_loss_scale_optimizer": keras_loss_scale_optimizer,
    "keras_export_saved_model": keras_export_saved_model,
    "keras_linear_model": keras_linear_model,
    "keras_wide_deep_model": keras_wide_deep_model,
    "keras_model_to_estimator_functional": keras_model_to_estimator_functional,
    "keras_model_to_estimator_sequential_adam": keras_model_to_estimator_sequential_adam,
    "keras_model_to_estimator_two_outputs": keras_model_to_estimator_two_outputs,
    "keras_model_to_estimator_errors": keras_model_to_estimator_errors,
    "keras_sample_and_class_weights": keras_sample_and_class_weights,
    "keras_fit_on_datasets": keras_fit_on_datasets,
    "keras_fit_checks_target_shapes": keras_fit_checks_target_shapes,
    "keras_peephole_lstm": keras_peephole_lstm,
    "keras_peephole_lstm_dropout": keras_peephole_lstm_dropout,
    "config_context_settings": config_context_settings,
    "random_generator_streams": random_generator_streams,
    "keras_scikit_learn_wrappers": keras_scikit_learn_wrappers,
    "data_element_specs_and_structures": data_element_specs_and_structures,
    "keras_experimental_schedules": keras_experimental_schedules,
    "keras_gru_dropout": keras_gru_dropout,
    "keras_gru_dropout_implementation_2_reset_after": (
        keras_gru_dropout_implementation_2_reset_after
    ),
    "keras_lstm_dropout": keras_lstm_dropout,
    "keras_lstm_dropout_implementation_2": keras_lstm_dropout_implementation_2,
    "keras_simple_rnn_dropout": keras_simple_rnn_dropout,
    "keras_stacked_cells_dropout": keras_stacked_cells_dropout,
    "estimator_early_stopping": estimator_early_stopping,
    "estimator_in_memory_evaluator": estimator_in_memory_evaluator,
    "estimator_input_receivers": estimator_input_receivers,
    "estimator_logit_fns": estimator_logit_fns,
    "config_protos_serialize": config_protos_serialize,
    "dynamic_loss_scale_training": dynamic_loss_scale_training,
    "fixed_loss_scale_training": fixed_loss_scale_training,
    "loss_scale_errors": loss_scale_errors,
    "mixed_precision_rewrite_and_optimizer_options": mixed_precision_rewrite_and_optimizer_options,
    "keras_ctc_batch_cost": keras_ctc_batch_cost,
    "keras_ctc_decode": keras_ctc_decode,
    "keras_ctc_label_dense_to_sparse": keras_ctc_label_dense_to_sparse,
}
