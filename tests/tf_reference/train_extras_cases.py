"""tf.train.ExponentialMovingAverage, the cosine learning-rate schedules and
tf.train.warm_start/VocabInfo, as programs written once against the TF1 API and run twice: by
record_train_extras.py with TensorFlow (`tf` is tensorflow.compat.v1) and by
tests/unit/test_train_extras_reference.py with tfcluster. Each case builds its own graph and
returns plain data (names, devices, values, errors) that the test compares.

The warm-start cases read checkpoints and vocabulary files TensorFlow 1.15 wrote
(write_sources, run by the recorder only) under data/train_extras/.

Kept runnable on Python 3.7 (TensorFlow 1.15's interpreter) and free of anything but numpy.
"""

from __future__ import annotations

import os

import numpy as np

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import registrar
except ImportError:
    from case_tools import registrar

CASES = {}
SOURCES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "train_extras")
WARM_CKPT = os.path.join(SOURCES, "warm", "model.ckpt")
EMA_DIR = os.path.join(SOURCES, "ema")

OLD_VOCAB = ["apple", "banana", "cherry", "date", "elder"]
NEW_VOCAB = ["cherry", "fig", "apple", "grape", "elder", "banana"]
OLD_CLASSES = ["cat", "dog", "bird", "fish"]
NEW_CLASSES = ["fish", "cow", "cat"]


case = registrar(CASES)


def _error(fn):
    """{"error": class name, "message": its first line} of what fn raises, or None."""
    try:
        fn()
    except Exception as e:
        text = str(e.args[0]) if len(e.args) == 1 else str(e)
        return {"error": type(e).__name__, "message": text.split("\n")[0]}
    return None


def _ops(g, prefix=""):
    return [[op.name, op.type] for op in g.get_operations() if op.name.startswith(prefix)]


def _names(vs):
    return [v.name for v in vs]


def _vocab(name):
    return os.path.join(SOURCES, name)


# ---- sources TensorFlow writes (recorder only) ----------------------------------------------
def _fixed(shape, start):
    return (np.arange(int(np.prod(shape)), dtype=np.float32) * 0.5 + start).reshape(shape)


def write_sources(tf):
    """The warm-start checkpoint and vocabularies, and a checkpoint of a model trained with
    an ExponentialMovingAverage of its weights; returns what the EMA training saw."""
    if not os.path.isdir(SOURCES):
        os.makedirs(SOURCES)
    for name, words in (
        ("old_vocab.txt", OLD_VOCAB),
        ("new_vocab.txt", NEW_VOCAB),
        ("old_classes.txt", OLD_CLASSES),
        ("new_classes.txt", NEW_CLASSES),
    ):
        with open(_vocab(name), "w") as f:
            f.write("".join(w + "\n" for w in words))
    g = tf.Graph()
    with g.as_default():
        tf.get_variable("dense/kernel", initializer=_fixed([4, 3], 1.0))
        tf.get_variable("dense/bias", initializer=_fixed([3], -1.0))
        tf.get_variable("emb", initializer=_fixed([5, 2], 10.0))
        tf.get_variable("out/kernel", initializer=_fixed([2, 4], 20.0))
        tf.get_variable("old_name/v", initializer=_fixed([2], 30.0))
        part = tf.get_variable("part", [6, 2], partitioner=tf.fixed_size_partitioner(2))
        tf.get_variable("emb_part", initializer=_fixed([5, 2], 50.0))
        full = _fixed([6, 2], 40.0)
        fills = [tf.assign(p, full[3 * i : 3 * i + 3]) for i, p in enumerate(part)]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(fills)
            tf.train.Saver(save_relative_paths=True).save(sess, WARM_CKPT, write_meta_graph=False)
    return _train_with_ema(tf, save=True)


def _ema_model(tf):
    w = tf.get_variable("model/w", initializer=_fixed([3, 2], 0.25))
    b = tf.get_variable("model/b", initializer=_fixed([2], -0.5))
    step = tf.train.get_or_create_global_step()
    x = tf.constant(_fixed([4, 3], -1.0) / 4.0)
    y = tf.constant(_fixed([4, 2], 2.0) / 8.0)
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    return w, b, step, loss


def _train_with_ema(tf, save):
    g = tf.Graph()
    with g.as_default():
        w, b, step, loss = _ema_model(tf)
        opt = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
        ema = tf.train.ExponentialMovingAverage(0.9, num_updates=step)
        with tf.control_dependencies([opt]):
            train = ema.apply([w, b])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(6):
                sess.run(train)
            if save:
                saver = tf.train.Saver(save_relative_paths=True)
                saver.save(sess, os.path.join(EMA_DIR, "model.ckpt"), global_step=step)
            return {
                "vars": _names(tf.global_variables()),
                "w": sess.run(w),
                "b": sess.run(b),
                "w_avg": sess.run(ema.average(w)),
                "b_avg": sess.run(ema.average(b)),
            }


# ---- ExponentialMovingAverage ----------------------------------------------------------------
@case
def ema_shadow_names_and_values(tf):
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable([1.0, 2.0], name="v")
        with tf.variable_scope("scope1"):
            w = tf.get_variable("w", initializer=tf.constant([[3.0, -1.0]]))
        t = tf.multiply(v, 2.0, name="doubled")
        ema = tf.train.ExponentialMovingAverage(0.75)
        names_before = [ema.average_name(v), ema.average_name(w), ema.average_name(t)]
        update = ema.apply([v, w, t])
        step_v = tf.assign_add(v, [1.0, -1.0])
        step_w = tf.assign(w, w * 2.0)
        values = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            values.append(sess.run([ema.average(v), ema.average(w), ema.average(t)]))
            for _ in range(4):
                sess.run([step_v, step_w])
                sess.run(update)
                values.append(sess.run([ema.average(v), ema.average(w), ema.average(t)]))
        return {
            "update": update.name,
            "update_type": update.type,
            "names_before": names_before,
            "names_after": [ema.average_name(v), ema.average_name(w), ema.average_name(t)],
            "average": [ema.average(x).name for x in (v, w, t)],
            "name": ema.name,
            "global": _names(tf.global_variables()),
            "trainable": _names(tf.trainable_variables()),
            "moving_average": _names(tf.moving_average_variables()),
            "values": values,
            "variable_ops": [
                [op.name, op.type]
                for op in g.get_operations()
                if op.type in ("VariableV2", "AssignSub", "NoOp")
            ],
            "update_inputs": sorted(i.name for i in update.control_inputs),
            "shadow_dtypes": [ema.average(x).dtype.name for x in (v, w, t)],
        }


@case
def ema_num_updates(tf):
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable([10.0, -4.0], name="v")
        step = tf.Variable(0, name="step", trainable=False)
        ema = tf.train.ExponentialMovingAverage(0.99, num_updates=step)
        update = ema.apply([v])
        with tf.control_dependencies([update]):
            advance = tf.group(tf.assign_add(v, [1.0, 2.0]), tf.assign_add(step, 3))
        out = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(5):
                sess.run(advance)
                out.append(sess.run(ema.average(v)))
        return {
            "values": out,
            "decay_ops": _ops(g, "ExponentialMovingAverage/"),
        }


@case
def ema_zero_debias(tf):
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable([1.0, 3.0], name="v")
        t = tf.identity(v * 4.0, name="t")
        u = tf.add(v, 1.0, name="u")
        ema = tf.train.ExponentialMovingAverage(0.8, zero_debias=True, name="avg")
        update = ema.apply([v, t, u])
        bump = tf.assign_add(v, [0.5, -1.0])
        out = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(4):
                sess.run(update)
                out.append(sess.run([ema.average(v), ema.average(t), ema.average(u)]))
                sess.run(bump)
        return {
            "global": _names(tf.global_variables()),
            "values": out,
            "update_ops": [[op.name, op.type] for op in g.get_operations() if op.type == "Assign"],
        }


@case
def ema_variables_to_restore(tf):
    g = tf.Graph()
    with g.as_default():
        a = tf.get_variable("net/a", [2], initializer=tf.zeros_initializer())
        b = tf.get_variable("net/b", [2], initializer=tf.zeros_initializer())
        tf.get_variable("frozen", [1], trainable=False)
        tf.train.get_or_create_global_step()
        ema = tf.train.ExponentialMovingAverage(0.9)
        before = ema.variables_to_restore()
        ema.apply([a])
        after = ema.variables_to_restore()
        chosen = ema.variables_to_restore([b])
        return {
            "before": {k: v.name for k, v in before.items()},
            "after": {k: v.name for k, v in after.items()},
            "chosen": {k: v.name for k, v in chosen.items()},
        }


@case
def ema_apply_twice_and_second_average(tf):
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable([4.0], name="v")
        ema = tf.train.ExponentialMovingAverage(0.5)
        first = ema.apply([v])
        second = ema.apply([v])
        other = tf.train.ExponentialMovingAverage(0.5, name="Other")
        third = other.apply()
        ema2 = tf.train.ExponentialMovingAverage(0.5)
        name_clash = ema2.average_name(v)
        fourth = ema2.apply([v])
        return {
            "ops": [first.name, second.name, third.name, fourth.name],
            "global": _names(tf.global_variables()),
            "clash": [name_clash, ema2.average(v).name],
        }


@case
def ema_bad_input(tf):
    g = tf.Graph()
    with g.as_default():
        i = tf.Variable([1, 2], name="ints")
        ema = tf.train.ExponentialMovingAverage(0.9)
        return {
            "int_variable": _error(lambda: ema.apply([i])),
            "missing": ema.average(i),
        }


@case
def ema_on_parameter_servers(tf):
    g = tf.Graph()
    with g.as_default():
        with tf.device(tf.train.replica_device_setter(ps_tasks=2, worker_device="/job:worker")):
            a = tf.get_variable("a", [3])
            b = tf.get_variable("b", [3])
            x = tf.identity(a * 2.0, name="x")
            ema = tf.train.ExponentialMovingAverage(0.9, zero_debias=True)
            update = ema.apply([a, b, x])
        return {
            "devices": [[v.name, v.device] for v in tf.global_variables()],
            "update": update.device,
            "class": {
                v.op.name: [c.decode() for c in v.op.colocation_groups()]
                for v in tf.global_variables()
            },
        }


@case
def ema_restores_averages_into_model(tf):
    """A TF 1.15 checkpoint of a model trained with an EMA, restored through
    variables_to_restore: the model's variables get the averages."""
    g = tf.Graph()
    with g.as_default():
        w, b, _, _ = _ema_model(tf)
        ema = tf.train.ExponentialMovingAverage(0.9)
        to_restore = ema.variables_to_restore()
        saver = tf.train.Saver(to_restore)
        with tf.Session() as sess:
            saver.restore(sess, tf.train.latest_checkpoint(EMA_DIR))
            return {
                "map": sorted([k, v.name] for k, v in to_restore.items()),
                "w": sess.run(w),
                "b": sess.run(b),
            }


# ---- learning-rate schedules ----------------------------------------------------------------
STEPS = [0, 1, 3, 7, 10, 15, 24, 30, 45, 60, 71, 99, 100, 101, 150, 250, 310, 500, 1000]


def _schedule(tf, build):
    g = tf.Graph()
    with g.as_default():
        step = tf.placeholder(tf.int64, [], name="step")
        outs = build(step)
        with tf.Session() as sess:
            values = [sess.run(outs, {step: s}) for s in STEPS]
        return {
            "names": [o.name for o in outs],
            "dtypes": [o.dtype.name for o in outs],
            "values": values,
            "ops": _ops(g),
        }


@case
def cosine_decay_values(tf):
    return _schedule(
        tf,
        lambda s: [
            tf.train.cosine_decay(0.1, s, 100),
            tf.train.cosine_decay(0.5, s, 250, alpha=0.2),
            tf.train.cosine_decay(tf.constant(0.3), s, 60, alpha=0.05, name="cd"),
        ],
    )


@case
def older_schedules_values(tf):
    """The schedules tf.train had before the cosine ones, on the same steps."""
    return _schedule(
        tf,
        lambda s: [
            tf.train.exponential_decay(0.1, s, 100, 0.96),
            tf.train.exponential_decay(0.1, s, 30, 0.5, staircase=True),
            tf.train.natural_exp_decay(0.2, s, 50, 0.3),
            tf.train.inverse_time_decay(0.3, s, 40, 0.5, staircase=True),
            tf.train.polynomial_decay(0.1, s, 200, 0.001, power=2.0),
            tf.train.polynomial_decay(0.1, s, 60, 0.01, cycle=True),
        ],
    )


@case
def piecewise_constant_values(tf):
    return _schedule(
        tf,
        lambda s: [
            tf.train.piecewise_constant(s, [10, 100], [1.0, 0.5, 0.1]),
            tf.train.piecewise_constant_decay(s, [24], [0.3, 0.03]),
        ],
    )


@case
def cosine_decay_float64_fails(tf):
    # TF 1.15's schedules multiply by a float32 pi: a float64 learning rate fails.
    def build():
        lr = tf.constant(0.3, tf.float64)
        tf.train.cosine_decay(lr, tf.constant(1, tf.int64), 60)

    with tf.Graph().as_default():
        return {"error": _error(build)}


@case
def cosine_decay_restarts_values(tf):
    return _schedule(
        tf,
        lambda s: [
            tf.train.cosine_decay_restarts(0.1, s, 10),
            tf.train.cosine_decay_restarts(0.2, s, 20, t_mul=1.0, m_mul=0.5, alpha=0.1),
            tf.train.cosine_decay_restarts(0.05, s, 7, t_mul=3.0, m_mul=0.8, name="sgdr"),
        ],
    )


@case
def linear_cosine_decay_values(tf):
    return _schedule(
        tf,
        lambda s: [
            tf.train.linear_cosine_decay(0.1, s, 100),
            tf.train.linear_cosine_decay(0.4, s, 300, num_periods=2.0, alpha=0.1, beta=0.01),
        ],
    )


@case
def noisy_linear_cosine_decay_without_noise(tf):
    # initial_variance 0: the noise is exactly zero, so the values are comparable.
    return _schedule(
        tf,
        lambda s: [
            tf.train.noisy_linear_cosine_decay(0.1, s, 100, initial_variance=0.0),
            tf.train.noisy_linear_cosine_decay(
                0.3, s, 200, initial_variance=0.0, num_periods=1.5, alpha=0.2, beta=0.0
            ),
        ],
    )


@case
def noisy_linear_cosine_decay_noise(tf):
    g = tf.Graph()
    with g.as_default():
        step = tf.placeholder(tf.int64, [])
        lr = tf.train.noisy_linear_cosine_decay(1.0, step, 1000, beta=0.0)
        with tf.Session() as sess:
            draws = np.array([sess.run(lr, {step: 0}) for _ in range(400)], dtype=np.float64)
        # At step 0 the value is (1 + noise) with noise ~ N(0, 1): mean 1, std 1.
        return {
            "name": lr.name,
            "mean_near_1": bool(abs(draws.mean() - 1.0) < 0.2),
            "std_near_1": bool(abs(draws.std() - 1.0) < 0.2),
        }


@case
def piecewise_constant_decay_is_piecewise_constant(tf):
    return {"same": tf.train.piecewise_constant_decay is tf.train.piecewise_constant}


@case
def schedule_errors(tf):
    return {
        "cosine_no_step": _error(lambda: tf.train.cosine_decay(0.1, None, 10)),
        "restarts_no_step": _error(lambda: tf.train.cosine_decay_restarts(0.1, None, 10)),
        "linear_no_step": _error(lambda: tf.train.linear_cosine_decay(0.1, None, 10)),
    }


# ---- warm_start ------------------------------------------------------------------------------
def _warm_graph(tf):
    """The new model: same names as the checkpoint's, other initial values."""
    minus = tf.constant_initializer(-1.0)
    tf.get_variable("dense/kernel", [4, 3], initializer=minus)
    tf.get_variable("dense/bias", [3], initializer=minus)
    tf.get_variable("emb", [len(NEW_VOCAB) + 2, 2], initializer=minus)
    tf.get_variable("out/kernel", [2, len(NEW_CLASSES)], initializer=minus)
    tf.get_variable("new_name/v", [2], initializer=minus)
    tf.get_variable("part", [6, 2], initializer=minus, partitioner=tf.fixed_size_partitioner(3))
    tf.get_variable(
        "emb_part",
        [len(NEW_VOCAB) + 1, 2],
        initializer=minus,
        partitioner=tf.fixed_size_partitioner(3),
    )
    tf.get_variable("not_trainable", [2], initializer=minus, trainable=False)


def _warm_values(tf):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return {v.name: sess.run(v) for v in tf.global_variables()}


@case
def warm_start_by_regex(tf):
    g = tf.Graph()
    with g.as_default():
        _warm_graph(tf)
        tf.train.warm_start(WARM_CKPT, vars_to_warm_start="dense/.*|part")
        return {"values": _warm_values(tf)}


@case
def warm_start_everything_with_renames_and_vocabularies(tf):
    g = tf.Graph()
    with g.as_default():
        _warm_graph(tf)
        emb_info = tf.train.VocabInfo(
            new_vocab=_vocab("new_vocab.txt"),
            new_vocab_size=len(NEW_VOCAB),
            num_oov_buckets=2,
            old_vocab=_vocab("old_vocab.txt"),
            # The backup gets a shape holding a tensor (the count of missing cells):
            # constant_initializer cannot take it, a fill can.
            backup_initializer=lambda shape, dtype=tf.float32, partition_info=None: tf.fill(
                shape, 0.5
            ),
        )
        emb_part_info = tf.train.VocabInfo(
            new_vocab=_vocab("new_vocab.txt"),
            new_vocab_size=len(NEW_VOCAB),
            num_oov_buckets=1,
            old_vocab=_vocab("old_vocab.txt"),
            old_vocab_size=3,
        )
        out_info = tf.train.VocabInfo(
            new_vocab=_vocab("new_classes.txt"),
            new_vocab_size=len(NEW_CLASSES),
            num_oov_buckets=0,
            old_vocab=_vocab("old_classes.txt"),
            backup_initializer=tf.ones_initializer(),
            axis=1,
        )
        tf.train.warm_start(
            os.path.dirname(WARM_CKPT),  # a directory: its latest checkpoint
            vars_to_warm_start=".*",
            var_name_to_vocab_info={
                "emb": emb_info,
                "emb_part": emb_part_info,
                "out/kernel": out_info,
            },
            var_name_to_prev_var_name={"new_name/v": "old_name/v"},
        )
        return {
            "values": _warm_values(tf),
            "vocab_info": [list(emb_info)[1:3], emb_info.old_vocab_size, emb_info.axis],
        }


@case
def warm_start_list_of_names_and_of_variables(tf):
    g = tf.Graph()
    with g.as_default():
        _warm_graph(tf)
        tf.train.warm_start(WARM_CKPT, vars_to_warm_start=["dense/bias", "part"])
        first = _warm_values(tf)
    g = tf.Graph()
    with g.as_default():
        _warm_graph(tf)
        kernel = [v for v in tf.global_variables() if v.op.name == "dense/kernel"]
        tf.train.warm_start(WARM_CKPT, vars_to_warm_start=kernel)
        second = _warm_values(tf)
    g = tf.Graph()
    with g.as_default():
        _warm_graph(tf)
        info = tf.train.VocabInfo(
            _vocab("new_vocab.txt"), len(NEW_VOCAB), 2, _vocab("old_vocab.txt")
        )
        # None: only the variables with a VocabInfo.
        tf.train.warm_start(
            WARM_CKPT, vars_to_warm_start=None, var_name_to_vocab_info={"emb": info}
        )
        third = _warm_values(tf)
    return {"names": first, "variables": second, "vocab_only": third}


@case
def warm_start_errors(tf):
    def in_graph(fn):
        def run():
            with tf.Graph().as_default():
                _warm_graph(tf)
                fn()

        return _error(run)

    info = tf.train.VocabInfo(_vocab("new_vocab.txt"), len(NEW_VOCAB), 0, _vocab("old_vocab.txt"))
    return {
        "unused_prev_name": in_graph(
            lambda: tf.train.warm_start(
                WARM_CKPT, "dense/.*", var_name_to_prev_var_name={"nope": "dense/bias"}
            )
        ),
        "unused_vocab_info": in_graph(
            lambda: tf.train.warm_start(WARM_CKPT, "dense/.*", var_name_to_vocab_info={"x": info})
        ),
        "bad_type": in_graph(lambda: tf.train.warm_start(WARM_CKPT, vars_to_warm_start=3)),
        "mixed_list": in_graph(
            lambda: tf.train.warm_start(
                WARM_CKPT, vars_to_warm_start=["emb", tf.global_variables()[0]]
            )
        ),
        "bad_axis": _error(lambda: tf.train.VocabInfo("a", 1, 0, "b", axis=2)),
        # Found at initialization: the checkpoint's emb_part is [5, 2], the new one [7, 2].
        "partitioned_shape_mismatch": in_graph(
            lambda: (
                tf.train.warm_start(WARM_CKPT, vars_to_warm_start=["emb_part"]),
                _warm_values(tf),
            )
        ),
        "missing_in_checkpoint": in_graph(
            lambda: tf.train.warm_start(WARM_CKPT, vars_to_warm_start=["not_trainable"])
        ),
    }


# ---- tf.train.Checkpoint / CheckpointManager (graph mode) -----------------------------------
OBJECT_DIR = os.path.join(SOURCES, "object")


def _object_model(tf, start=1.0):
    v = tf.get_variable("v", initializer=tf.constant([start, 2.0 * start]))
    w = tf.Variable(3.0 * start, name="w")
    opt = tf.train.AdamOptimizer(0.1)
    train = opt.minimize(tf.reduce_sum(v * v) + w * w)
    ck = tf.train.Checkpoint(v=v, opt=opt, nested=tf.train.Checkpoint(w=w))
    return v, w, opt, train, ck


def _files(directory):
    """name -> sha256 of each file of a checkpoint directory but the 'checkpoint' state."""
    import hashlib

    out = {}
    for name in sorted(os.listdir(directory)):
        if name != "checkpoint":
            with open(os.path.join(directory, name), "rb") as f:
                out[name] = hashlib.sha256(f.read()).hexdigest()
    return out


def write_object_checkpoint(tf):
    """TF's object-based checkpoint of the Adam model after one step (recorder only)."""
    with tf.Graph().as_default():
        v, w, opt, train, ck = _object_model(tf)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            ck.save(os.path.join(OBJECT_DIR, "ck"), session=sess)
            return {"values": sess.run([v, w, opt.get_slot(v, "m"), opt.get_slot(w, "v")])}


@case
def object_checkpoint_files(tf):
    import tempfile

    with tf.Graph().as_default():
        _, _, _, train, ck = _object_model(tf)
        tmp = tempfile.mkdtemp()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            first = ck.save(os.path.join(tmp, "ck"), session=sess)
            second = ck.save(os.path.join(tmp, "ck"), session=sess)
            written = ck.write(os.path.join(tmp, "plain"), session=sess)
        reader = tf.train.NewCheckpointReader(first)
        shapes = reader.get_variable_to_shape_map()
        dtypes_ = reader.get_variable_to_dtype_map()
        state = tf.train.get_checkpoint_state(tmp)
        return {
            "paths": [os.path.basename(p) for p in (first, second, written)],
            "keys": sorted([k, list(shapes[k]), dtypes_[k].name] for k in shapes),
            "files": _files(tmp),
            "state": [
                os.path.basename(state.model_checkpoint_path),
                [os.path.basename(p) for p in state.all_model_checkpoint_paths],
            ],
            "globals": _names(tf.global_variables()),
        }


@case
def object_checkpoint_restores_what_tensorflow_saved(tf):
    with tf.Graph().as_default():
        v, w, opt, _, ck = _object_model(tf, start=0.0)
        status = ck.restore(tf.train.latest_checkpoint(OBJECT_DIR))
        with tf.Session() as sess:
            status.assert_consumed().run_restore_ops()
            restored = sess.run([v, w, opt.get_slot(v, "m"), opt.get_slot(w, "v"), ck.save_counter])
    with tf.Graph().as_default():
        # Fewer objects than the checkpoint: the existing ones match, not all are consumed.
        v = tf.get_variable("v", [2])
        ck = tf.train.Checkpoint(v=v)
        status = ck.restore(os.path.join(OBJECT_DIR, "ck-1"))
        with tf.Session() as sess:
            status.assert_existing_objects_matched().assert_nontrivial_match()
            status.initialize_or_restore()
            partial = sess.run(v)
            unconsumed = _error(status.assert_consumed)
    with tf.Graph().as_default():
        # More objects than the checkpoint: restored where found, initialized elsewhere.
        v = tf.get_variable("v", [2])
        extra = tf.Variable([5.0, 6.0], name="extra")
        ck = tf.train.Checkpoint(v=v, extra=extra)
        status = ck.restore(os.path.join(OBJECT_DIR, "ck-1"))
        with tf.Session() as sess:
            not_matched = _error(status.assert_existing_objects_matched)
            status.initialize_or_restore()
            more = sess.run([v, extra])
    return {
        "restored": restored,
        "partial": partial,
        "unconsumed": unconsumed,
        "not_matched": not_matched,
        "more": more,
    }


@case
def object_checkpoint_from_name_based_and_none(tf):
    with tf.Graph().as_default():
        kernel = tf.get_variable("dense/kernel", [4, 3])
        ck = tf.train.Checkpoint(k=kernel)
        status = ck.restore(WARM_CKPT)
        with tf.Session() as sess:
            # A name-based checkpoint restores every variable by its name: the save counter
            # restore() made is not in a Saver's checkpoint.
            named = _error(status.initialize_or_restore)
    with tf.Graph().as_default():
        w = tf.Variable([1.5], name="w")
        ck = tf.train.Checkpoint(w=w)
        status = ck.restore(None)
        with tf.Session() as sess:
            status.initialize_or_restore(sess)
            nothing = sess.run(w)
            consumed = _error(status.assert_consumed)
            run_ops = _error(lambda: status.run_restore_ops(sess))
    return {"named": named, "nothing": nothing, "consumed": consumed, "run_ops": run_ops}


@case
def checkpoint_manager_keeps_the_newest(tf):
    import tempfile

    with tf.Graph().as_default():
        _, _, _, train, ck = _object_model(tf)
        step = tf.train.get_or_create_global_step()
        bump = tf.assign_add(step, 10)
        tmp = tempfile.mkdtemp()
        manager = tf.train.CheckpointManager(ck, tmp, max_to_keep=2)
        before = manager.latest_checkpoint
        saved = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(train)
                saved.append(manager.save())
            sess.run(bump)
            saved.append(manager.save(checkpoint_number=step))
            saved.append(manager.save(checkpoint_number=77))
            counter = sess.run(ck.save_counter)
        again = tf.train.CheckpointManager(ck, tmp, max_to_keep=2)
        state = tf.train.get_checkpoint_state(tmp)
        return {
            "before": before,
            "saved": [os.path.basename(p) for p in saved],
            "kept": [os.path.basename(p) for p in manager.checkpoints],
            "latest": os.path.basename(manager.latest_checkpoint),
            "reopened": [os.path.basename(p) for p in again.checkpoints],
            "files": sorted(os.listdir(tmp)),
            "state": [os.path.basename(p) for p in state.all_model_checkpoint_paths],
            "counter": counter,
        }


@case
def checkpoint_errors(tf):
    with tf.Graph().as_default():
        w = tf.Variable(1.0, name="w")
        ck = tf.train.Checkpoint(w=w)
        return {
            "list_value": _error(lambda: tf.train.Checkpoint(x=[w])),
            "number_value": _error(lambda: tf.train.Checkpoint(x=3)),
            "manager_max_to_keep": _error(lambda: tf.train.CheckpointManager(ck, "/tmp", 0)),
            "missing_file": _error(lambda: ck.restore(os.path.join(SOURCES, "nope", "ck-1"))),
        }


# ---- the remapping ops themselves ------------------------------------------------------------
def _remap_ops(tf):
    """(generate_vocab_remapping, load_and_remap_matrix): TF's raw ops, tfcluster's op module."""
    if tf.__name__.startswith("tfcluster"):
        from tfcluster.ops import checkpoint_ops

        return checkpoint_ops.generate_vocab_remapping, checkpoint_ops.load_and_remap_matrix
    raw = tf.raw_ops

    def generate(
        new_vocab_file, old_vocab_file, new_vocab_offset, num_new_vocab, old_vocab_size=-1
    ):
        return raw.GenerateVocabRemapping(
            new_vocab_file=new_vocab_file,
            old_vocab_file=old_vocab_file,
            new_vocab_offset=new_vocab_offset,
            num_new_vocab=num_new_vocab,
            old_vocab_size=old_vocab_size,
        )

    def load(
        ckpt_path,
        old_tensor_name,
        row_remapping,
        col_remapping,
        initializing_values,
        num_rows,
        num_cols,
    ):
        return raw.LoadAndRemapMatrix(
            ckpt_path=ckpt_path,
            old_tensor_name=old_tensor_name,
            row_remapping=row_remapping,
            col_remapping=col_remapping,
            initializing_values=initializing_values,
            num_rows=num_rows,
            num_cols=num_cols,
        )

    return generate, load


@case
def remapping_ops_values_and_errors(tf):
    generate, load = _remap_ops(tf)
    with tf.Graph().as_default():
        remap, present = generate(_vocab("new_vocab.txt"), _vocab("old_vocab.txt"), 1, 4)
        limited, limited_present = generate(
            _vocab("new_vocab.txt"), _vocab("old_vocab.txt"), 0, 6, old_vocab_size=2
        )
        rows = tf.constant([2, -1, 0], tf.int64)
        cols = tf.constant([1, -1], tf.int64)
        matrix = load(WARM_CKPT, "emb", rows, cols, tf.constant([9.0, 8.0, 7.0, 6.0]), 3, 2)
        all_cols = load(WARM_CKPT, "emb", rows, tf.constant([], tf.int64), [5.0, 4.0], 3, 2)
        bad_missing_file = generate(_vocab("missing.txt"), _vocab("old_vocab.txt"), 0, 2)
        bad_too_many = generate(_vocab("new_vocab.txt"), _vocab("old_vocab.txt"), 3, 5)
        bad_init_count = load(WARM_CKPT, "emb", rows, cols, [1.0], 3, 2)
        bad_rows = load(WARM_CKPT, "emb", rows, cols, [1.0, 2.0, 3.0, 4.0], 4, 2)
        bad_name = load(WARM_CKPT, "nope", rows, cols, [1.0, 2.0, 3.0, 4.0], 3, 2)
        with tf.Session() as sess:
            values = sess.run([remap, present, limited, limited_present, matrix, all_cols])
            errors = {
                name: _error(lambda t=t: sess.run(t))
                for name, t in (
                    ("missing_file", bad_missing_file),
                    ("too_many", bad_too_many),
                    ("init_count", bad_init_count),
                    ("rows", bad_rows),
                    ("name", bad_name),
                )
            }
            after = sess.run(present)  # the session goes on
    return {"values": values, "errors": errors, "after": after}


@case
def ema_of_a_partitioned_variable(tf):
    """Averages of the shards of a partitioned variable: slots sliced like the shards, saved
    under the partitioned average's name, restored through variables_to_restore."""
    import tempfile

    tmp = tempfile.mkdtemp()
    with tf.Graph().as_default():
        part = tf.get_variable(
            "part",
            initializer=tf.constant(_fixed([4, 2], 1.0)),
            partitioner=tf.fixed_size_partitioner(2),
        )
        shards = list(part)
        ema = tf.train.ExponentialMovingAverage(0.5)
        update = ema.apply(shards)
        bump = [tf.assign_add(s, tf.ones_like(s)) for s in shards]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(2):
                sess.run(bump)
                sess.run(update)
            path = tf.train.Saver().save(sess, os.path.join(tmp, "m"))
            averages = sess.run([ema.average(s) for s in shards])
        keys = sorted(tf.train.list_variables(path))
        to_restore = ema.variables_to_restore()
        names = sorted([k, v.name] for k, v in to_restore.items())
    with tf.Graph().as_default():
        part = tf.get_variable("part", [4, 2], partitioner=tf.fixed_size_partitioner(2))
        ema = tf.train.ExponentialMovingAverage(0.5)
        saver = tf.train.Saver(ema.variables_to_restore())
        with tf.Session() as sess:
            restore = _error(lambda: saver.restore(sess, path))
            restored = sess.run(list(part)) if restore is None else None
    return {
        "slots": [ema_slot for ema_slot in names],
        "keys": [[k, list(s)] for k, s in keys],
        "averages": averages,
        "restore_error": restore,
        "restored": restored,
    }
