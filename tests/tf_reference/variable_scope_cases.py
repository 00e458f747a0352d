"""Variable scope, get_variable, partitioner, template, initializer and regularizer programs,
written once against the TF1 API and run twice: by record_variable_scopes.py with TensorFlow
(`tf` is tensorflow.compat.v1), and by tests/unit/test_variable_scopes_reference.py with
tfcluster. Each case builds its own graph and returns plain data (names, collections, devices,
values, errors) that the test compares with what TensorFlow returned.

Kept runnable on Python 3.7 (TensorFlow 1.15's interpreter) and free of anything but numpy.
"""

from __future__ import annotations

import os
import tempfile

import numpy as np

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import registrar
except ImportError:
    from case_tools import registrar

CASES = {}


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
    """[name, type] of the graph's ops (those under prefix), in creation order."""
    return [[op.name, op.type] for op in g.get_operations() if op.name.startswith(prefix)]


def _consts(tf, g, prefix=""):
    """name -> value of the small Const ops under prefix (initializer limits, scales)."""
    out = {}
    for op in g.get_operations():
        if op.type == "Const" and op.name.startswith(prefix):
            arr = tf.make_ndarray(op.get_attr("value"))
            if arr.size <= 64:
                out[op.name] = arr
    return out


def _names(vs):
    return [v.name for v in vs]


def _collections(tf):
    return {
        "global": _names(tf.global_variables()),
        "local": _names(tf.local_variables()),
        "trainable": _names(tf.trainable_variables()),
        "model": _names(tf.model_variables()),
    }


def _class_attrs(g):
    """op name -> its colocation groups, for ops that have them."""
    out = {}
    for op in g.get_operations():
        try:
            groups = op.get_attr("_class")
        except ValueError:
            continue
        out[op.name] = [s.decode() if isinstance(s, bytes) else s for s in groups]
    return out


# ---- scopes and names ------------------------------------------------------------------------
@case
def scope_opened_twice(tf):
    g = tf.Graph()
    with g.as_default():
        with tf.variable_scope("foo") as s1:
            v = tf.get_variable("v", [2, 3])
            c1 = tf.constant(1.0, name="c")
        with tf.variable_scope("foo") as s2:
            w = tf.get_variable("w", [1])
            c2 = tf.constant(1.0, name="c")
        return {
            "vars": [v.name, w.name],
            "consts": [c1.name, c2.name],
            "scopes": [s1.name, s2.name, s1.original_name_scope, s2.original_name_scope],
            "ops": _ops(g),
            "class": _class_attrs(g),
        }


@case
def nested_scopes_and_reuse(tf):
    g = tf.Graph()
    with g.as_default():
        with tf.variable_scope("outer"), tf.variable_scope("inner"):
            a = tf.get_variable("a", [1])
        with tf.variable_scope("outer", reuse=True) as s:
            reuse_outer = s.reuse
            with tf.variable_scope("inner") as s_in:
                reuse_inner = s_in.reuse
                a2 = tf.get_variable("a", [1])
                new = _error(lambda: tf.get_variable("b", [1]))
        with tf.variable_scope("outer"):
            with tf.variable_scope("inner", reuse=True):
                a3 = tf.get_variable("a")
            again = _error(lambda: tf.get_variable("inner/a", [1]))
        with tf.variable_scope("outer", reuse=tf.AUTO_REUSE):
            b1 = tf.get_variable("b", [2])
            b2 = tf.get_variable("b", [2])
        with tf.variable_scope("outer"):
            tf.get_variable_scope().reuse_variables()
            b3 = tf.get_variable("b", [2])
            after = tf.get_variable_scope().reuse
        return {
            "same": [a2 is a, a3 is a, b1 is b2, b3 is b1],
            "reuse": [reuse_outer, reuse_inner, after],
            "reuse_missing": new,
            "create_existing": again,
            "vars": _names(tf.global_variables()),
            "ops": _ops(g),
        }


@case
def default_names_are_unique(tf):
    g = tf.Graph()
    with g.as_default():
        names = []
        for _ in range(3):
            with tf.variable_scope(None, default_name="layer") as s:
                v = tf.get_variable("w", [1])
                c = tf.constant(0, name="c")
                names.append([s.name, s.original_name_scope, v.name, c.name])
        with tf.variable_scope("net"):
            for _ in range(2):
                with tf.variable_scope(None, default_name="layer") as s:
                    names.append([s.name, s.original_name_scope, tf.get_variable("w", [1]).name])
        with tf.variable_scope("net"), tf.variable_scope(None, default_name="layer") as s:
            names.append([s.name, s.original_name_scope])
        with tf.variable_scope(None, default_name="layer", values=[c]) as s:
            names.append([s.name, s.original_name_scope])
        return {"names": names, "ops": _ops(g)}


@case
def reentering_a_scope_object(tf):
    g = tf.Graph()
    with g.as_default():
        with tf.variable_scope("model") as scope:
            w = tf.get_variable("w", [1])
        with tf.variable_scope(scope):
            v = tf.get_variable("v", [1])
            c = tf.constant(1, name="c")
        with tf.variable_scope(scope, reuse=True) as again:
            w2 = tf.get_variable("w", [1])
            c2 = tf.constant(1, name="c")
        with tf.variable_scope("other"), tf.variable_scope(scope) as jumped:
            u = tf.get_variable("u", [1])
            c3 = tf.constant(1, name="c")
        cm = tf.variable_scope("same_cm")
        with cm as s1:
            c4 = tf.constant(1, name="c")
        with cm as s2:
            c5 = tf.constant(1, name="c")
        return {
            "vars": [w.name, v.name, u.name],
            "shared": w2 is w,
            "consts": [c.name, c2.name, c3.name, c4.name, c5.name],
            "scopes": [
                again.name,
                again.original_name_scope,
                jumped.name,
                jumped.original_name_scope,
                s1.name,
                s2.name,
            ],
        }


@case
def name_scopes_and_variable_scopes(tf):
    g = tf.Graph()
    with g.as_default():
        with tf.name_scope("ns"):
            a = tf.get_variable("a", [1])
            with tf.variable_scope("vs"):
                b = tf.get_variable("b", [1])
                x = tf.constant(1.0, name="x")
                y = a * b
        with tf.variable_scope("vs2", auxiliary_name_scope=False) as s:
            c = tf.get_variable("c", [1])
            z = tf.constant(1.0, name="z")
        with tf.variable_scope(s, auxiliary_name_scope=False):
            z2 = tf.constant(1.0, name="z")
        with tf.name_scope("outer"), tf.variable_scope(s, auxiliary_name_scope=False):
            z3 = tf.constant(1.0, name="z")
        with tf.variable_scope(""):
            e = tf.get_variable("e", [1])
            q = tf.constant(1.0, name="q")
        return {
            "vars": [a.name, b.name, c.name, e.name],
            "ops": [x.name, y.name, z.name, z2.name, z3.name, q.name],
            "scope": [s.name, s.original_name_scope],
        }


@case
def scope_defaults(tf):
    g = tf.Graph()
    with g.as_default():
        with tf.variable_scope(
            "d", initializer=tf.constant_initializer(0.5), dtype=tf.float64
        ) as s:
            a = tf.get_variable("a", [2])
            b = tf.get_variable("b", [2], initializer=tf.ones_initializer())
            c = tf.get_variable("c", [2], dtype=tf.float32)
            with tf.variable_scope("sub"):
                d = tf.get_variable("d", [1])
            i = tf.get_variable("i", [2], dtype=tf.int32, initializer=tf.zeros_initializer())
        with tf.variable_scope("ints"):
            j = tf.get_variable("j", [2], dtype=tf.int64)
            k = tf.get_variable("k", [], dtype=tf.bool)
            s_ = tf.get_variable("s", [1], dtype=tf.string)
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            values = sess.run([a, b, c, d, i, j, k])
        return {
            "dtypes": [v.dtype.base_dtype.name for v in (a, b, c, d, i, j, k, s_)],
            "values": values,
            "scope_dtype": s.dtype.name,
            "ops": _ops(g),
        }


@case
def get_variable_initial_values(tf):
    g = tf.Graph()
    with g.as_default():
        a = tf.get_variable("from_tensor", initializer=tf.constant([[1.0, 2.0], [3.0, 4.0]]))
        b = tf.get_variable("from_numpy", initializer=np.arange(6, dtype=np.int32).reshape(2, 3))
        c = tf.get_variable("from_list", initializer=[1.5, 2.5], dtype=tf.float32)
        d = tf.get_variable("from_fn", initializer=lambda: tf.ones([2]))
        e = tf.get_variable(
            "no_validate",
            initializer=tf.placeholder_with_default([1.0, 2.0], [None]),
            validate_shape=False,
        )
        f = tf.get_variable("init_class", [2], initializer=tf.ones_initializer)
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            values = sess.run([a, b, c, d, e, f])
        return {
            "values": values,
            "shapes": [
                str(v.get_shape().as_list() if v.get_shape().ndims is not None else None)
                for v in (a, b, c, d, e, f)
            ],
            "ops": _ops(g),
        }


@case
def get_variable_errors(tf):
    g = tf.Graph()
    with g.as_default():
        tf.get_variable("v", [2, 3])
        out = {
            "exists": _error(lambda: tf.get_variable("v", [2, 3])),
            "shape_on_reuse": None,
            "constant_with_shape": _error(
                lambda: tf.get_variable("k", [2], initializer=tf.constant([1.0, 2.0]))
            ),
            "no_shape": _error(lambda: tf.get_variable("noshape")),
            "dtype_vs_initializer": _error(
                lambda: tf.get_variable("dt", initializer=np.float32(1.0), dtype=tf.int32)
            ),
            "reuse_without_name": _error(
                lambda: tf.variable_scope(None, default_name="x", reuse=True).__enter__()
            ),
            "bad_reuse": _error(lambda: tf.variable_scope("x", reuse=1)),
            "no_name": _error(lambda: tf.variable_scope(None)),
            "bad_getter": _error(lambda: tf.get_variable("bg", [1], custom_getter=3)),
            "complex_without_initializer": _error(
                lambda: tf.get_variable("cx", [1], dtype=tf.complex64)
            ),
        }
        with tf.variable_scope("", reuse=True):
            out["shape_on_reuse"] = _error(lambda: tf.get_variable("v", [3, 2]))
            out["dtype_on_reuse"] = _error(lambda: tf.get_variable("v", [2, 3], dtype=tf.int32))
            out["missing"] = _error(lambda: tf.get_variable("nope", [1]))
        return out


@case
def collections_and_trainable(tf):
    g = tf.Graph()
    with g.as_default():
        tf.get_variable("plain", [1])
        tf.get_variable("frozen", [1], trainable=False)
        tf.get_variable("mine", [1], collections=["mine"])
        tf.get_variable(
            "model", [1], collections=[tf.GraphKeys.GLOBAL_VARIABLES, tf.GraphKeys.MODEL_VARIABLES]
        )
        tf.get_local_variable("loc", [1])
        tf.get_local_variable("loc2", [1], collections=["extra"])
        tf.get_variable(
            "on_read",
            [1],
            synchronization=tf.VariableSynchronization.ON_READ,
            aggregation=tf.VariableAggregation.MEAN,
        )
        with tf.variable_scope("s") as s:
            tf.get_variable("in_s", [1])
            scope_lists = [_names(s.global_variables()), _names(s.trainable_variables())]
        out = _collections(tf)
        out["mine"] = _names(tf.get_collection("mine"))
        out["extra"] = _names(tf.get_collection("extra"))
        out["scope"] = scope_lists
        return out


@case
def custom_getters(tf):
    g = tf.Graph()
    calls = []

    def suffix(getter, name, *args, **kwargs):
        calls.append(["suffix", name])
        return getter(name + "_sfx", *args, **kwargs)

    def freeze(getter, name, *args, **kwargs):
        calls.append(["freeze", name, kwargs.get("trainable")])
        kwargs["trainable"] = False
        return getter(name, *args, **kwargs)

    def double(getter, *args, **kwargs):
        calls.append(["double", kwargs.get("name", args[0] if args else None)])
        return getter(*args, **kwargs) * 2.0

    with g.as_default():
        with tf.variable_scope("outer", custom_getter=suffix):
            a = tf.get_variable("a", [1])
            with tf.variable_scope("inner", custom_getter=freeze):
                b = tf.get_variable("b", [1])
        c = tf.get_variable("c", [1], custom_getter=double)
        return {
            "calls": calls,
            "vars": _names(tf.global_variables()),
            "trainable": _names(tf.trainable_variables()),
            "results": [a.name, b.name, c.name],
        }


# ---- initializers ------------------------------------------------------------------------------
_SHAPES = {"dense": [3, 4], "conv": [2, 3, 4, 5], "vector": [5]}


def _initializer_cases(tf):
    return {
        "zeros": tf.zeros_initializer(),
        "ones": tf.ones_initializer(),
        "constant_scalar": tf.constant_initializer(0.25),
        "random_uniform": tf.random_uniform_initializer(-0.3, 0.7, seed=1),
        "random_normal": tf.random_normal_initializer(0.5, 2.0, seed=1),
        "truncated_normal": tf.truncated_normal_initializer(0.1, 0.3, seed=1),
        "uniform_unit_scaling": tf.uniform_unit_scaling_initializer(1.5, seed=1),
        "glorot_uniform": tf.glorot_uniform_initializer(seed=1),
        "glorot_normal": tf.glorot_normal_initializer(seed=1),
        "he_uniform": tf.initializers.he_uniform(seed=1),
        "he_normal": tf.initializers.he_normal(seed=1),
        "lecun_uniform": tf.initializers.lecun_uniform(seed=1),
        "lecun_normal": tf.initializers.lecun_normal(seed=1),
        "vs_fan_out_untruncated": tf.variance_scaling_initializer(
            3.0, "fan_out", "untruncated_normal", seed=1
        ),
        "vs_fan_avg_normal": tf.variance_scaling_initializer(0.5, "fan_avg", "normal", seed=1),
        "vs_fan_in_uniform": tf.variance_scaling_initializer(2.0, "fan_in", "uniform", seed=1),
    }


@case
def initializer_graphs_and_limits(tf):
    """Each initializer's ops under '<var>/Initializer/' and its constants: the limits,
    standard deviations and means TF computes from the shape."""
    out = {}
    for key, shape in _SHAPES.items():
        for name, init in _initializer_cases(tf).items():
            g = tf.Graph()
            with g.as_default():
                v = tf.get_variable("v", shape, initializer=init)
                out[key + ":" + name] = {
                    "ops": _ops(g),
                    "consts": _consts(tf, g, "v/Initializer/"),
                    "shape": v.get_shape().as_list(),
                }
    return out


@case
def deterministic_initializer_values(tf):
    g = tf.Graph()
    with g.as_default():
        vs = [
            tf.get_variable("c_list", [2, 3], initializer=tf.constant_initializer([1, 2, 3, 4])),
            tf.get_variable(
                "c_array",
                [2, 2],
                initializer=tf.constant_initializer(np.array([[1.0, 2.0], [3.0, 4.0]])),
            ),
            tf.get_variable("c_int", [3], dtype=tf.int32, initializer=tf.constant_initializer(7)),
            tf.get_variable("ones64", [2], dtype=tf.float64, initializer=tf.ones_initializer()),
            tf.get_variable("eye", [3, 3], initializer=tf.initializers.identity()),
            tf.get_variable("eye_wide", [2, 4], initializer=tf.initializers.identity(gain=2.0)),
            tf.get_variable("eye_tall", [4, 2], initializer=tf.initializers.identity()),
        ]
        orth = [
            tf.get_variable(
                "orth_" + str(i), shape, initializer=tf.orthogonal_initializer(gain=gain, seed=3)
            )
            for i, (shape, gain) in enumerate(
                [([4, 4], 1.0), ([3, 5], 2.0), ([6, 2], 1.0), ([2, 3, 4], 1.0)]
            )
        ]
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            values = sess.run(vs)
            orth_values = sess.run(orth)
        gram = []
        for w, gain in zip(orth_values, [1.0, 2.0, 1.0, 1.0]):
            flat = w.reshape(-1, w.shape[-1])
            small = flat.T @ flat if flat.shape[0] >= flat.shape[1] else flat @ flat.T
            gram.append(np.round(small / gain**2, 4).astype(np.float32))
        return {
            "values": values,
            "orthogonal_gram": gram,
            "orthogonal_ops": _ops(g, "orth_1/"),
            "identity_ops": _ops(g, "eye_wide/"),
        }


@case
def initializer_errors_and_configs(tf):
    cfg = {}
    for name, init in _initializer_cases(tf).items():
        cfg[name] = {
            k: (v if not isinstance(v, float) else round(v, 6))
            for k, v in init.get_config().items()
        }
    cfg["orthogonal"] = tf.orthogonal_initializer(gain=2.0).get_config()
    cfg["identity"] = tf.initializers.identity(gain=3.0).get_config()
    back = tf.initializers.variance_scaling.from_config(cfg["vs_fan_in_uniform"]).get_config()
    return {
        "configs": cfg,
        "from_config": back,
        "normal_int": _error(lambda: tf.random_normal_initializer(dtype=tf.int32)),
        "bad_mode": _error(lambda: tf.variance_scaling_initializer(mode="fan")),
        "bad_distribution": _error(lambda: tf.variance_scaling_initializer(distribution="x")),
        "bad_scale": _error(lambda: tf.variance_scaling_initializer(scale=0.0)),
        "bad_constant": _error(lambda: tf.constant_initializer({})),
        "orthogonal_1d": _error(lambda: tf.orthogonal_initializer()([3])),
        "identity_3d": _error(lambda: tf.initializers.identity()([2, 2, 2])),
        "glorot_dtype": tf.glorot_uniform_initializer(dtype=tf.float64).dtype.name,
    }


@case
def random_initializer_moments(tf):
    """Sample moments of large draws: compared within sampling error (the streams differ)."""
    shape = [400, 300]
    g = tf.Graph()
    out = {}
    with g.as_default():
        vs = {
            name: tf.get_variable(name, shape, initializer=init)
            for name, init in _initializer_cases(tf).items()
            if "uniform" in name or "normal" in name or name.startswith("vs_")
        }
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            for name, value in sess.run(vs).items():
                out[name] = np.array(
                    [value.mean(), value.std(), value.min(), value.max()], dtype=np.float64
                )
    return out


# ---- partitioned variables -------------------------------------------------------------------
@case
def partitioners(tf):
    shapes = [[10, 4], [7], [1000, 300], [3, 100000], [2]]
    out = {}
    for shape in shapes:
        ts = tf.TensorShape(shape)
        for dtype in (tf.float32, tf.float64, tf.string):
            key = str(shape) + dtype.name
            out[key] = [
                tf.fixed_size_partitioner(3)(shape=ts, dtype=dtype),
                tf.min_max_variable_partitioner(max_partitions=4)(shape=ts, dtype=dtype),
                tf.min_max_variable_partitioner(8, axis=0, min_slice_size=1024)(
                    shape=ts, dtype=dtype
                ),
                tf.variable_axis_size_partitioner(4096)(shape=ts, dtype=dtype),
                tf.variable_axis_size_partitioner(1 << 20, max_shards=2)(shape=ts, dtype=dtype),
            ]
    out["bad_axis_size"] = _error(lambda: tf.variable_axis_size_partitioner(0))
    return out


@case
def partitioned_variable(tf):
    g = tf.Graph()
    with g.as_default():
        full = np.arange(40, dtype=np.float32).reshape(10, 4)
        with tf.variable_scope("scope", partitioner=tf.fixed_size_partitioner(3)):
            p = tf.get_variable("emb", initializer=tf.constant(full))
            q = tf.get_variable(
                "from_array",
                [10, 4],
                initializer=tf.constant_initializer(full[:3].reshape(-1).tolist()),
            )
            r = tf.get_variable("eye", [5, 5], initializer=tf.initializers.identity())
            tf.get_variable("glorot", [9, 6])
        with tf.variable_scope("scope", reuse=True):
            p2 = tf.get_variable("emb", [10, 4])
        t = tf.get_variable(
            "ax1",
            [3, 7],
            partitioner=tf.fixed_size_partitioner(2, axis=1),
            initializer=tf.constant_initializer(1.0),
        )
        scalar = tf.get_variable("scalar", [], partitioner=tf.fixed_size_partitioner(2))
        as_tensor = tf.convert_to_tensor(p)
        concat_ops = [
            op.name
            for op in g.get_operations()
            if "ConcatPartitions" in op.name or op.name == "scope/emb"
        ]
        errors = {
            "unpartitioned_exists": _error(
                lambda: tf.get_variable(
                    "ax1", [3, 7], partitioner=tf.fixed_size_partitioner(3, axis=1)
                )
            ),
            "partitioned_without_partitioner": _error(
                lambda: tf.get_variable("scope/emb", [10, 4])
            ),
            "plain_then_partitioned": _error(
                lambda: tf.get_variable("scalar", [4], partitioner=tf.fixed_size_partitioner(2))
            ),
            "two_axes": _error(
                lambda: tf.get_variable("two", [4, 4], partitioner=lambda shape, dtype: [2, 2])
            ),
        }
        with tf.variable_scope("scope", reuse=True):
            errors["different_partitions"] = _error(
                lambda: tf.get_variable("emb", [10, 4], partitioner=tf.fixed_size_partitioner(2))
            )
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            values = sess.run([as_tensor, list(p)] + [tf.convert_to_tensor(v) for v in (q, r, t)])
        # (only the class: TF's message holds the object's address)
        errors["fetch_partitioned"] = _error(lambda: tf.Session(graph=g).run(p))["error"]
        glorot = [
            c for n, c in sorted(_consts(tf, g, "scope/glorot/").items()) if n.endswith("max")
        ]
        # Every shard gets the whole list: more values than a shard holds is an error.
        errors["constant_list_too_long"] = _error(
            lambda: tf.get_variable(
                "long",
                [10, 4],
                partitioner=tf.fixed_size_partitioner(3),
                initializer=tf.constant_initializer(full.reshape(-1).tolist()),
            )
        )
        return {
            "shards": [[v.name, v.get_shape().as_list()] for v in p],
            "slice_specs": [v._save_slice_info.spec for v in list(p) + list(t)],
            "full_names": [v._save_slice_info.full_name for v in p],
            "reused": p2 is p,
            "len": len(p),
            "partitions": [p._get_partitions(), t._get_partitions()],
            "tensor_name": as_tensor.name,
            "concat_ops": concat_ops,
            "values": values,
            "glorot_limits": glorot,
            "scalar": [scalar.name, type(scalar).__name__ == "PartitionedVariable"],
            "vars": _names(tf.global_variables()),
            "errors": errors,
        }


@case
def partitioned_variable_on_ps_tasks(tf):
    g = tf.Graph()
    with g.as_default():
        with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
            p = tf.get_variable("emb", [10, 4], partitioner=tf.fixed_size_partitioner(3))
            w = tf.get_variable("w", [3])
            y = tf.reduce_sum(tf.convert_to_tensor(p)) + tf.reduce_sum(w)
        return {
            "devices": [
                [v.name, v.device, v.initializer.device, v.value().device] for v in [*list(p), w]
            ],
            "sum_device": y.device,
        }


@case
def partitioned_variable_checkpoint(tf):
    g = tf.Graph()
    with g.as_default():
        full = np.arange(30, dtype=np.float32).reshape(10, 3)
        with tf.variable_scope("net"):
            tf.get_variable(
                "emb", initializer=tf.constant(full), partitioner=tf.fixed_size_partitioner(4)
            )
            tf.get_variable("bias", initializer=tf.constant([1.0, 2.0]))
        saver = tf.train.Saver()
        with tf.Session(graph=g) as sess, tempfile.TemporaryDirectory() as d:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, os.path.join(d, "model"))
            listed = [[n, list(s)] for n, s in tf.train.list_variables(path)]
            loaded = tf.train.load_variable(path, "net/emb")
    return {"listed": listed, "loaded": loaded}


@case
def optimizer_slots_of_scoped_variables(tf):
    g = tf.Graph()
    with g.as_default():
        with tf.variable_scope("layer"):
            w = tf.get_variable("w", [3], initializer=tf.ones_initializer())
            p = tf.get_variable(
                "p",
                [4, 2],
                partitioner=tf.fixed_size_partitioner(2),
                initializer=tf.ones_initializer(),
            )
        loss = tf.reduce_sum(w * w) + tf.reduce_sum(tf.convert_to_tensor(p))
        tf.train.AdamOptimizer(0.1).minimize(loss, global_step=tf.train.get_or_create_global_step())
        tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
        slot_infos = {
            v.op.name: v._save_slice_info.spec
            for v in tf.global_variables()
            if getattr(v, "_save_slice_info", None) is not None
        }
        return {"vars": _names(tf.global_variables()), "slices": slot_infos}


# ---- templates -------------------------------------------------------------------------------
@case
def templates(tf):
    g = tf.Graph()
    with g.as_default():

        def linear(x, units=2):
            w = tf.get_variable("w", [int(x.get_shape()[-1]), units])
            return tf.matmul(x, w, name="out")

        t1 = tf.make_template("linear", linear)
        x = tf.ones([1, 3])
        a = t1(x)
        b = t1(x)
        t2 = tf.make_template("linear", linear, units=4)
        c = t2(x)
        t3 = tf.make_template("now", linear, create_scope_now_=True)
        with tf.variable_scope("elsewhere"):
            d = t3(x)
            e = t3(x)
        t4 = tf.make_template("ignored", linear, unique_name_="fixed")
        f = t4(x)

        def bad(x):
            return x * tf.Variable(1.0, name="fresh")

        t5 = tf.make_template("bad", bad)
        t5(x)
        err = _error(lambda: t5(x))
        return {
            "outputs": [a.name, b.name, c.name, d.name, e.name, f.name],
            "vars": _names(tf.global_variables()),
            "scope_names": [t.variable_scope_name for t in (t1, t2, t3, t4)],
            "template_vars": [_names(t.trainable_variables) for t in (t1, t2, t3, t4)],
            "second_call_error": err,
        }


# ---- regularizers ----------------------------------------------------------------------------
@case
def regularization_losses(tf):
    g = tf.Graph()
    with g.as_default():
        with tf.variable_scope("reg", regularizer=lambda w: tf.reduce_sum(w * w)):
            a = tf.get_variable("a", [2], initializer=tf.constant_initializer(3.0))
            b = tf.get_variable(
                "b", [2], initializer=tf.ones_initializer(), regularizer=tf.no_regularizer
            )
            with tf.variable_scope("sub", regularizer=lambda w: tf.reduce_mean(w) * 0.5):
                c = tf.get_variable("c", [3], initializer=tf.constant_initializer(2.0))
        p = tf.get_variable(
            "p",
            [4],
            partitioner=tf.fixed_size_partitioner(2),
            initializer=tf.ones_initializer(),
            regularizer=lambda w: tf.reduce_sum(w),
        )
        empty_scope = tf.losses.get_regularization_losses("nothing")
        total = tf.losses.get_regularization_loss()
        sub_total = tf.losses.get_regularization_loss("reg/sub", name="sub_total")
        zero = tf.losses.get_regularization_loss("nothing")
        losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            values = sess.run([total, sub_total, zero, *losses])
        return {
            "losses": [t.name for t in losses],
            "totals": [total.name, sub_total.name, zero.name],
            "values": values,
            "empty": empty_scope,
            "vars": [a.name, b.name, c.name, *_names(p)],
        }


@case
def keras_regularizers(tf):
    g = tf.Graph()
    with g.as_default():
        regs = {
            "l1": tf.keras.regularizers.l1(0.1),
            "l2": tf.keras.regularizers.l2(0.2),
            "l1_l2": tf.keras.regularizers.l1_l2(0.1, 0.2),
            "none": tf.keras.regularizers.L1L2(),
            "got": tf.keras.regularizers.get("l2"),
        }
        vs = {
            k: tf.get_variable(
                k, [3], initializer=tf.constant_initializer([1.0, -2.0, 3.0]), regularizer=r
            )
            for k, r in regs.items()
        }
        losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            values = sess.run(losses)
        return {
            "names": [t.name for t in losses],
            "values": values,
            "configs": [r.get_config() for r in regs.values()],
            "serialized": tf.keras.regularizers.serialize(regs["l1_l2"]),
            "ops": _ops(g, "l1_l2/Regularizer/"),
            "vars": sorted(v.name for v in vs.values()),
        }


@case
def global_step_and_local_variables(tf):
    g = tf.Graph()
    with g.as_default():
        step = tf.train.get_or_create_global_step()
        err = _error(lambda: tf.get_variable("global_step", [], dtype=tf.int64))
        counter = tf.get_local_variable("count", [], dtype=tf.int32)
        return {
            "step": step.name,
            "ops": _ops(g),
            "taken": err,
            "local": counter.name,
            "collections": _collections(tf),
        }


@case
def caching_device_and_constraint(tf):
    g = tf.Graph()

    def clip(x):
        return tf.clip_by_value(x, 0.0, 1.0)

    with g.as_default():
        with tf.device("/job:ps/task:0"):
            with tf.variable_scope("c", caching_device="/job:worker/task:1", constraint=clip):
                a = tf.get_variable("a", [2])
            b = tf.get_variable("b", [2], caching_device="/cpu:0")
        return {
            "devices": [[v.op.device, v.value().device, v.value().op.name] for v in (a, b)],
            "constraint": [a.constraint is clip, b.constraint is None],
            "class": _class_attrs(g),
        }
