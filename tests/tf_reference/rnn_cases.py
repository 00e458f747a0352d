"""RNN programs (tf.nn.rnn_cell cells and wrappers; dynamic, static, bidirectional, raw and
state-saving RNNs), written once against the TF1 API and run twice: by record_rnn.py with
TensorFlow 1.15, and by tests/unit/test_rnn_reference.py with tfcluster.

Every variable is loaded with fixed values derived from its name (the same on both sides), so
outputs, final states and gradients must agree to float tolerance. A case returns plain data:
variables (names, shapes), the graph's ops outside loop bodies and the ops a loop body runs
per step, values, gradients, error classes and messages.

Kept runnable on Python 3.7 (TensorFlow 1.15's interpreter) and free of anything but numpy.
"""

from __future__ import annotations

import re
import zlib

import numpy as np

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import registrar
except ImportError:
    from case_tools import registrar

CASES = {}

# TF1's loop plumbing (functional While ops in tfcluster hold no such nodes).
_LOOP_PLUMBING = {"Enter", "Merge", "Switch", "NextIteration", "Exit", "LoopCond"}


case = registrar(CASES)


def values(shape, seed, low=-1.0, high=1.0):
    """Deterministic scattered float64 values in [low, high), the same in every numpy."""
    n = int(np.prod(shape, dtype=np.int64))
    frac = np.modf(np.abs(np.sin(np.arange(n) * 12.9898 + seed * 78.233 + 1.0)) * 43758.5453)[0]
    return (low + (high - low) * frac).reshape(shape)


def _error(fn):
    try:
        fn()
    except Exception as e:
        text = str(e.args[0]) if len(e.args) == 1 else str(e)
        # Objects' reprs name their module and address: keep the class name only.
        text = re.sub(r"<([\w.]+\.)?(\w+) object at 0x[0-9a-f]+>", r"<\2 object>", text)
        return {"error": type(e).__name__, "message": text.split("\n")[0]}
    return {"error": None}


def _flat(structure, prefix, out):
    """{prefix.i.j: tensor} for a nested structure of tensors (namedtuples included)."""
    if isinstance(structure, (list, tuple)):
        for i, s in enumerate(structure):
            _flat(s, f"{prefix}.{i}", out)
    else:
        out[prefix] = structure
    return out


def _all_ops(g):
    """[name, type] of the ops TF1 has in the graph: tfcluster's functional While/If ops are
    replaced by the nodes of their bodies (named as TF1 names them); TF1's control-flow
    plumbing (Enter, Merge, Switch, NextIteration, Exit, the loop's and cond's Identities,
    and tfcluster's Identities named as TF's Exits and Merges) is left out on both sides."""
    out = []
    for op in g.get_operations():
        if op.type in _FUNCTIONAL:
            for attr in _FUNCTIONAL[op.type]:
                _function_nodes(op.get_attr(attr), out)
        elif op.type != "_RefHandle" and not _plumbing(op.name, op.type):
            out.append([op.name, op.type])
    return out


_FUNCTIONAL = {
    "While": ("cond", "body"),
    "StatelessWhile": ("cond", "body"),
    "If": ("then_branch", "else_branch"),
    "StatelessIf": ("then_branch", "else_branch"),
}


def _plumbing(name, op_type):
    if op_type in _LOOP_PLUMBING:
        return True
    last = name.split("/")[-1]
    if op_type == "Identity" and "while/" in name and re.match(r"Identity(_\d+)?$", last):
        return True
    if op_type == "Identity" and re.match(r"(Exit|Merge)(_\d+)?$", last):
        return True  # tfcluster's stand-ins for TF1's Exit and Merge (results named as TF's)
    return "cond" in name and last in ("switch_t", "switch_f", "pred_id")


def _function_nodes(func, out):
    from tfcluster.framework import func_graph  # only reached on tfcluster

    body = func_graph.parse_function(func)
    for n in body.graph_def.node:
        if n.op in _FUNCTIONAL:
            for attr in _FUNCTIONAL[n.op]:
                _function_nodes(n.attr[attr].func, out)
        elif (
            n.op not in ("_Arg", "_RefArg", "_Retval")
            and n.name.split("/")[-1] not in ("unused_export",)
            and not _plumbing(n.name, n.op)  # a nested cond's or loop's Merge/Exit Identities
        ):
            out.append([n.name, n.op])


def _ops(g):
    """The graph's ops outside loops, sorted."""
    return sorted(x for x in _all_ops(g) if "while/" not in x[0])


def _loop_ops(g):
    """The ops a loop runs per step (named .../while/...), sorted; the iteration counter TF1
    adds for maximum_iterations (tfcluster has none) left out."""
    return sorted(x for x in _all_ops(g) if "while/" in x[0] and not _counter_op(x[0]))


def _counter_op(name):
    """TF1's iteration counter of a loop with maximum_iterations, and the ops named like it in
    loops without one (left out on both sides)."""
    return name.endswith(
        ("while/iteration_counter", "while/add", "while/add/y", "while/Less", "while/LogicalAnd")
    )


def _load_fixed(tf, sess):
    """Every variable gets values made from its name: the same weights on both sides."""
    for v in tf.global_variables():
        shape = v.shape.as_list()
        seed = zlib.crc32(v.op.name.encode()) % 997
        v.load(values(shape, seed, -0.6, 0.6).astype(v.dtype.base_dtype.as_numpy_dtype), sess)


def _finish(tf, g, feeds, outputs, wrt=None, cells=(), extra=None):
    """Runs the case: fixed weights, the outputs, and the gradients of a weighted sum of every
    output with respect to the inputs named in `wrt` and every trainable variable."""
    flat = {}
    for key, value in outputs.items():
        _flat(value, key, flat)
    result = {
        "variables": [[v.op.name, v.shape.as_list()] for v in tf.global_variables()],
        "trainable": [v.op.name for v in tf.trainable_variables()],
        "ops": _ops(g),
        "loop_ops": _loop_ops(g),
        "shapes": {k: _shape(t) for k, t in flat.items()},
        # TF1's loop and cond results are its Exits and Merges (while/Exit_3:0, cond/Merge:0);
        # tfcluster's are Identities named so.
        "names": {k: t.name for k, t in flat.items()},
        "cells": {
            c.name: {
                "trainable_weights": [_weight_name(w) for w in c.trainable_weights],
                "weights": [_weight_name(w) for w in c.weights],
            }
            for c in cells
        },
    }
    if extra:
        result.update(extra)
    loss = None
    for i, (_key, t) in enumerate(sorted(flat.items())):
        if not t.dtype.is_floating:
            continue
        w = tf.constant(values([d or 1 for d in t.shape.as_list()], 50 + i, 0.25, 1.75), t.dtype)
        term = tf.reduce_sum(t * w)
        loss = term if loss is None else loss + term
    xs = [feeds_t for feeds_t in (wrt or [])] + tf.trainable_variables()
    grads = tf.gradients(loss, xs)
    names = [f"input:{i}" for i in range(len(wrt or []))] + [
        v.op.name for v in tf.trainable_variables()
    ]
    fetch = {"out:" + k: t for k, t in flat.items()}
    for n, gr in zip(names, grads):
        if gr is not None:
            fetch["grad:" + n] = tf.convert_to_tensor(gr)
    with tf.Session(graph=g) as sess:
        sess.run(tf.global_variables_initializer())
        _load_fixed(tf, sess)
        got = sess.run(fetch, feeds)
    result["values"] = {k: np.asarray(v) for k, v in got.items()}
    return result


def _weight_name(w):
    op = getattr(w, "op", None)
    return op.name if op is not None else "partitioned:" + w.name


def _shape(t):
    return t.shape.as_list() if t.shape.ndims is not None else None


def _x(shape, seed=1):
    return values(shape, seed).astype(np.float32)


# ---- dynamic_rnn over each cell -------------------------------------------------------------
@case
def basic_lstm_dynamic_sequence_length(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [4, 5, 3], name="x")
        cell = tf.nn.rnn_cell.BasicLSTMCell(6)
        out, state = tf.nn.dynamic_rnn(cell, x, sequence_length=[5, 3, 0, 2], dtype=tf.float32)
        return _finish(tf, g, {x: _x([4, 5, 3])}, {"out": out, "state": state}, [x], [cell])


@case
def basic_lstm_time_major_initial_state(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [5, 2, 3], name="x")
        c0 = tf.constant(values([2, 4], 7).astype(np.float32))
        h0 = tf.constant(values([2, 4], 8).astype(np.float32))
        cell = tf.nn.rnn_cell.BasicLSTMCell(4, forget_bias=0.5, activation=tf.nn.relu)
        init = tf.nn.rnn_cell.LSTMStateTuple(c0, h0)
        out, state = tf.nn.dynamic_rnn(cell, x, initial_state=init, time_major=True)
        return _finish(tf, g, {x: _x([5, 2, 3])}, {"out": out, "state": state}, [x], [cell])


@case
def basic_rnn_dynamic(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [3, 6, 2], name="x")
        cell = tf.nn.rnn_cell.BasicRNNCell(5)
        out, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        return _finish(tf, g, {x: _x([3, 6, 2])}, {"out": out, "state": state}, [x], [cell])


@case
def gru_dynamic_initializers_float64(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float64, [2, 4, 3], name="x")
        cell = tf.nn.rnn_cell.GRUCell(
            4,
            kernel_initializer=tf.constant_initializer(0.1),
            bias_initializer=tf.zeros_initializer(),
        )
        out, state = tf.nn.dynamic_rnn(
            cell, x, sequence_length=tf.constant([4, 1], tf.int64), dtype=tf.float64
        )
        feeds = {x: values([2, 4, 3], 3)}
        return _finish(tf, g, feeds, {"out": out, "state": state}, [x], [cell])


@case
def gru_default_initial_values(tf):
    """GRUCell's own initializers: gate biases start at 1, candidate biases at 0."""
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(_x([2, 3]))
        cell = tf.nn.rnn_cell.GRUCell(3)
        out, _ = cell(x, cell.zero_state(2, tf.float32))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            biases = sess.run([v for v in tf.global_variables() if "bias" in v.op.name])
        return {
            "variables": [[v.op.name, v.shape.as_list()] for v in tf.global_variables()],
            "biases": [np.asarray(b) for b in biases],
            "out_name": out.name,
        }


@case
def lstm_peepholes_clip_projection(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [3, 4, 2], name="x")
        cell = tf.nn.rnn_cell.LSTMCell(
            5,
            use_peepholes=True,
            cell_clip=0.3,
            num_proj=3,
            proj_clip=0.2,
            forget_bias=0.7,
            initializer=tf.random_uniform_initializer(-0.1, 0.1, seed=3),
        )
        out, state = tf.nn.dynamic_rnn(cell, x, sequence_length=[4, 2, 3], dtype=tf.float32)
        return _finish(tf, g, {x: _x([3, 4, 2])}, {"out": out, "state": state}, [x], [cell])


@case
def lstm_concatenated_state(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
        cells = [
            tf.nn.rnn_cell.LSTMCell(3, state_is_tuple=False),
            tf.nn.rnn_cell.BasicLSTMCell(2, state_is_tuple=False),
        ]
        out1, s1 = tf.nn.dynamic_rnn(cells[0], x, dtype=tf.float32, scope="first")
        out2, s2 = tf.nn.dynamic_rnn(cells[1], out1, dtype=tf.float32, scope="second")
        outputs = {"out": out2, "s1": s1, "s2": s2}
        return _finish(tf, g, {x: _x([2, 3, 4])}, outputs, [x], cells)


@case
def lstm_sharded_kernel(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
        cell = tf.nn.rnn_cell.LSTMCell(4, num_unit_shards=2, num_proj=3, num_proj_shards=3)
        out, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        return _finish(tf, g, {x: _x([2, 3, 4])}, {"out": out, "state": state}, [x], [cell])


@case
def multi_rnn_cell_stack(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [3, 4, 2], name="x")
        cells = [
            tf.nn.rnn_cell.BasicLSTMCell(4),
            tf.nn.rnn_cell.LSTMCell(3),
            tf.nn.rnn_cell.GRUCell(2),
        ]
        cell = tf.nn.rnn_cell.MultiRNNCell(cells)
        out, state = tf.nn.dynamic_rnn(cell, x, sequence_length=[4, 1, 3], dtype=tf.float32)
        return _finish(tf, g, {x: _x([3, 4, 2])}, {"out": out, "state": state}, [x], [cell, *cells])


@case
def multi_rnn_cell_concatenated(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2, 3, 2], name="x")
        cell = tf.nn.rnn_cell.MultiRNNCell(
            [tf.nn.rnn_cell.BasicRNNCell(3), tf.nn.rnn_cell.GRUCell(2)], state_is_tuple=False
        )
        out, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        return _finish(tf, g, {x: _x([2, 3, 2])}, {"out": out, "state": state}, [x], [cell])


@case
def wrappers_residual_device_dropout(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2, 4, 3], name="x")
        inner = tf.nn.rnn_cell.BasicLSTMCell(3)
        wrapped = tf.nn.rnn_cell.DropoutWrapper(
            tf.nn.rnn_cell.ResidualWrapper(tf.nn.rnn_cell.DeviceWrapper(inner, "/cpu:0")),
            input_keep_prob=1.0,
            output_keep_prob=1.0,
            state_keep_prob=1.0,
        )
        cell = tf.nn.rnn_cell.MultiRNNCell(
            [
                wrapped,
                tf.nn.rnn_cell.ResidualWrapper(
                    tf.nn.rnn_cell.GRUCell(3), residual_fn=lambda i, o: i * 0.5 + o
                ),
            ]
        )
        out, state = tf.nn.dynamic_rnn(cell, x, sequence_length=[4, 2], dtype=tf.float32)
        extra = {"wrapper_names": [wrapped.name, wrapped.wrapped_cell.name]}
        outputs = {"out": out, "state": state}
        return _finish(tf, g, {x: _x([2, 4, 3])}, outputs, [x], [cell, wrapped, inner], extra)


@case
def dropout_wrapper_graph(tf):
    """Dropout's random draws differ between frameworks: the graph, names and shapes are
    compared, and that keep_prob 1 leaves values unchanged."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
        cell = tf.nn.rnn_cell.DropoutWrapper(
            tf.nn.rnn_cell.LSTMCell(3),
            input_keep_prob=0.5,
            output_keep_prob=0.75,
            state_keep_prob=0.9,
            seed=5,
        )
        var_cell = tf.nn.rnn_cell.DropoutWrapper(
            tf.nn.rnn_cell.GRUCell(3),
            input_keep_prob=0.6,
            output_keep_prob=0.8,
            state_keep_prob=0.7,
            variational_recurrent=True,
            input_size=3,
            dtype=tf.float32,
            seed=2,
        )
        out, _state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32, scope="plain")
        out2, state2 = tf.nn.dynamic_rnn(var_cell, out, dtype=tf.float32, scope="variational")
        return {
            "variables": [[v.op.name, v.shape.as_list()] for v in tf.global_variables()],
            "ops": _ops(g),
            "loop_ops": _loop_ops(g),
            "shapes": [_shape(t) for t in (out, out2, state2)],
            "errors": {
                "keep_prob_above_1": _error(
                    lambda: tf.nn.rnn_cell.DropoutWrapper(
                        tf.nn.rnn_cell.GRUCell(2), output_keep_prob=1.5
                    )
                ),
                "variational_without_dtype": _error(
                    lambda: tf.nn.rnn_cell.DropoutWrapper(
                        tf.nn.rnn_cell.GRUCell(2), variational_recurrent=True
                    )
                ),
                "variational_without_input_size": _error(
                    lambda: tf.nn.rnn_cell.DropoutWrapper(
                        tf.nn.rnn_cell.GRUCell(2),
                        input_keep_prob=0.5,
                        variational_recurrent=True,
                        dtype=tf.float32,
                    )
                ),
                "filter_not_callable": _error(
                    lambda: tf.nn.rnn_cell.DropoutWrapper(
                        tf.nn.rnn_cell.GRUCell(2), dropout_state_filter_visitor=3
                    )
                ),
            },
        }


@case
def dropout_wrapper_fed_keep_probs(tf):
    """Keep probabilities as tensors build the dropout ops even where they are 1; fed 1 the
    masks keep everything (floor(1 + uniform) is 1), so values and gradients are TF's."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [3, 4, 4], name="x")
        keep = {n: tf.placeholder(tf.float32, [], name=n) for n in ("k_in", "k_out", "k_state")}
        variational = tf.nn.rnn_cell.DropoutWrapper(
            tf.nn.rnn_cell.GRUCell(3),
            input_keep_prob=keep["k_in"],
            output_keep_prob=keep["k_out"],
            state_keep_prob=keep["k_state"],
            variational_recurrent=True,
            input_size=4,
            dtype=tf.float32,
            seed=4,
        )
        plain = tf.nn.rnn_cell.DropoutWrapper(
            tf.nn.rnn_cell.LSTMCell(2, use_peepholes=True),
            input_keep_prob=keep["k_out"],
            output_keep_prob=keep["k_in"],
            state_keep_prob=keep["k_state"],
        )
        cell = tf.nn.rnn_cell.MultiRNNCell([variational, plain])
        out, state = tf.nn.dynamic_rnn(cell, x, sequence_length=[4, 2, 3], dtype=tf.float32)
        feeds = {x: _x([3, 4, 4]), **{k: 1.0 for k in keep.values()}}
        outputs = {"out": out, "state": state}
        return _finish(tf, g, feeds, outputs, [x], [cell, variational, plain])


def _pass_through_cell(tf, depth):
    """A cell whose output is its input and whose state adds its input: what dropout does to
    a cell's input, output and state shows in its outputs and final state."""

    class PassThrough(tf.nn.rnn_cell.RNNCell):
        @property
        def state_size(self):
            return depth

        @property
        def output_size(self):
            return depth

        def call(self, inputs, state):
            return inputs, state + inputs

    return PassThrough()


@case
def dropout_wrapper_masks(tf):
    """Dropout's draws differ between frameworks; what they must share is compared: kept
    values scaled by 1/keep_prob, about half kept, plain masks drawn anew at every step and
    for every batch row, variational masks the same at every step and (TF 1.15 draws the noise
    with shape [1, size]) for every batch row."""
    batch, steps, depth = 64, 6, 32
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(11)
        x = tf.ones([batch, steps, depth])
        results = {}
        for name, kwargs in (
            ("variational_input", {"input_keep_prob": 0.5}),
            ("variational_output", {"output_keep_prob": 0.5}),
            ("variational_state", {"state_keep_prob": 0.5}),
            ("plain_input", {"input_keep_prob": 0.5}),
            ("plain_state", {"state_keep_prob": 0.5}),
        ):
            extra = (
                {"variational_recurrent": True, "input_size": depth, "dtype": tf.float32}
                if name.startswith("variational")
                else {}
            )
            cell = tf.nn.rnn_cell.DropoutWrapper(
                _pass_through_cell(tf, depth), seed=7, **kwargs, **extra
            )
            results[name] = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32, scope=name)
        with tf.Session() as sess:
            got = sess.run(results)
    out = {}
    for name, (o, s) in got.items():
        kept = o != 0
        out[name] = {
            "output_values": sorted({float(v) for v in np.unique(np.round(o, 4))}),
            "output_mask_same_each_step": bool((kept == kept[:, :1]).all()),
            "output_rows_differ": bool((kept != kept[:1]).any()),
            "output_kept_about_half": bool(0.35 < kept.mean() < 0.65) if not kept.all() else None,
            "final_state_values": sorted({float(v) for v in np.unique(np.round(s, 4))})[:4],
        }
    return out


@case
def dynamic_rnn_time_major_fed_lengths_swap_memory(tf):
    """time_major inputs of unknown batch size, lengths fed at run time (one of them 0: zero
    outputs and the initial state), swap_memory and parallel_iterations accepted; the same
    through bidirectional_dynamic_rnn."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [5, None, 3], name="x")
        lengths = tf.placeholder(tf.int32, [None], name="lengths")
        cell = tf.nn.rnn_cell.LSTMCell(4)
        init = cell.zero_state(tf.shape(x)[1], tf.float32)
        init = tf.nn.rnn_cell.LSTMStateTuple(init.c + 0.25, init.h - 0.5)
        out, state = tf.nn.dynamic_rnn(
            cell,
            x,
            sequence_length=lengths,
            initial_state=init,
            time_major=True,
            swap_memory=True,
            parallel_iterations=1,
        )
        fw, bw = tf.nn.rnn_cell.GRUCell(2), tf.nn.rnn_cell.BasicRNNCell(3)
        (o_fw, o_bw), (s_fw, s_bw) = tf.nn.bidirectional_dynamic_rnn(
            fw,
            bw,
            tf.transpose(x, [1, 0, 2]),
            sequence_length=lengths,
            dtype=tf.float32,
            swap_memory=True,
            parallel_iterations=2,
        )
        feeds = {x: _x([5, 3, 3]), lengths: np.array([5, 0, 3], np.int32)}
        outputs = {"out": out, "state": state, "fw": o_fw, "bw": o_bw, "s_fw": s_fw, "s_bw": s_bw}
        return _finish(tf, g, feeds, outputs, [x], [cell, fw, bw])


# ---- static, bidirectional, raw, state saving -------------------------------------------------
@case
def static_rnn_sequence_length(tf):
    g = tf.Graph()
    with g.as_default():
        xs = [tf.placeholder(tf.float32, [3, 2], name=f"x{t}") for t in range(4)]
        cell = tf.nn.rnn_cell.LSTMCell(3, use_peepholes=True)
        outs, state = tf.nn.static_rnn(cell, xs, sequence_length=[4, 1, 2], dtype=tf.float32)
        feeds = {x: _x([3, 2], seed=t) for t, x in enumerate(xs)}
        return _finish(tf, g, feeds, {"outs": outs, "state": state}, xs[:2], [cell])


@case
def static_rnn_plain(tf):
    g = tf.Graph()
    with g.as_default():
        xs = [tf.placeholder(tf.float32, [2, 3], name=f"x{t}") for t in range(3)]
        cell = tf.nn.rnn_cell.MultiRNNCell(
            [tf.nn.rnn_cell.GRUCell(2), tf.nn.rnn_cell.BasicRNNCell(3)]
        )
        outs, state = tf.nn.static_rnn(cell, xs, dtype=tf.float32, scope="unrolled")
        feeds = {x: _x([2, 3], seed=t) for t, x in enumerate(xs)}
        return _finish(tf, g, feeds, {"outs": outs, "state": state}, xs, [cell])


@case
def static_bidirectional_sequence_length(tf):
    g = tf.Graph()
    with g.as_default():
        xs = [tf.placeholder(tf.float32, [3, 2], name=f"x{t}") for t in range(4)]
        fw = tf.nn.rnn_cell.BasicLSTMCell(3)
        bw = tf.nn.rnn_cell.GRUCell(2)
        outs, s_fw, s_bw = tf.nn.static_bidirectional_rnn(
            fw, bw, xs, sequence_length=tf.constant([4, 2, 3]), dtype=tf.float32
        )
        feeds = {x: _x([3, 2], seed=t) for t, x in enumerate(xs)}
        outputs = {"outs": outs, "fw": s_fw, "bw": s_bw}
        return _finish(tf, g, feeds, outputs, xs, [fw, bw])


@case
def bidirectional_dynamic_sequence_length(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [3, 5, 2], name="x")
        fw = tf.nn.rnn_cell.LSTMCell(3)
        bw = tf.nn.rnn_cell.LSTMCell(4)
        (o_fw, o_bw), (s_fw, s_bw) = tf.nn.bidirectional_dynamic_rnn(
            fw, bw, x, sequence_length=[5, 2, 4], dtype=tf.float32
        )
        outputs = {"fw": o_fw, "bw": o_bw, "s_fw": s_fw, "s_bw": s_bw}
        return _finish(tf, g, {x: _x([3, 5, 2])}, outputs, [x], [fw, bw])


@case
def bidirectional_dynamic_time_major_no_lengths(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [4, 2, 3], name="x")
        fw = tf.nn.rnn_cell.GRUCell(2)
        bw = tf.nn.rnn_cell.BasicRNNCell(3)
        (o_fw, o_bw), (s_fw, s_bw) = tf.nn.bidirectional_dynamic_rnn(
            fw, bw, x, dtype=tf.float32, time_major=True, scope="birnn"
        )
        outputs = {"fw": o_fw, "bw": o_bw, "s_fw": s_fw, "s_bw": s_bw}
        return _finish(tf, g, {x: _x([4, 2, 3])}, outputs, [x], [fw, bw])


@case
def raw_rnn_as_dynamic_rnn(tf):
    """The raw_rnn example of TF's documentation: dynamic_rnn written with a loop_fn."""
    g = tf.Graph()
    with g.as_default():
        max_time, batch_size, depth = 4, 3, 2
        inputs = tf.placeholder(tf.float32, [max_time, batch_size, depth], name="x")
        sequence_length = tf.constant([4, 2, 3])
        inputs_ta = tf.TensorArray(dtype=tf.float32, size=max_time).unstack(inputs)
        cell = tf.nn.rnn_cell.LSTMCell(3)

        def loop_fn(time, cell_output, cell_state, loop_state):
            emit_output = cell_output
            if cell_output is None:
                next_cell_state = cell.zero_state(batch_size, tf.float32)
            else:
                next_cell_state = cell_state
            elements_finished = time >= sequence_length
            finished = tf.reduce_all(elements_finished)
            next_input = tf.cond(
                finished,
                lambda: tf.zeros([batch_size, depth], dtype=tf.float32),
                lambda: inputs_ta.read(time),
            )
            return (elements_finished, next_input, next_cell_state, emit_output, None)

        outputs_ta, final_state, loop_state = tf.nn.raw_rnn(cell, loop_fn)
        outputs = {"out": outputs_ta.stack(), "state": final_state}
        extra = {"loop_state_is_none": loop_state is None}
        return _finish(tf, g, {inputs: _x([4, 3, 2])}, outputs, [inputs], [cell], extra)


@case
def raw_rnn_with_loop_state_and_emit_structure(tf):
    g = tf.Graph()
    with g.as_default():
        inputs = tf.placeholder(tf.float32, [3, 2, 2], name="x")
        inputs_ta = tf.TensorArray(dtype=tf.float32, size=3).unstack(inputs)
        cell = tf.nn.rnn_cell.GRUCell(2)

        def loop_fn(time, cell_output, cell_state, loop_state):
            if cell_output is None:
                state = cell.zero_state(2, tf.float32)
                emit = (tf.zeros([2], tf.float32), tf.zeros([], tf.float32))
                loop = tf.constant(0.0)
            else:
                state = cell_state
                emit = (cell_output * 2.0, tf.reduce_sum(cell_output, axis=1))
                loop = loop_state + tf.reduce_sum(cell_output)
            finished = tf.tile(tf.expand_dims(time >= 3, 0), [2])
            nxt = tf.cond(
                time >= 3, lambda: tf.zeros([2, 2]), lambda: inputs_ta.read(tf.minimum(time, 2))
            )
            return finished, nxt, state, emit, loop

        emit_ta, final_state, loop_state = tf.nn.raw_rnn(cell, loop_fn)
        outputs = {
            "emit0": emit_ta[0].stack(),
            "emit1": emit_ta[1].stack(),
            "state": final_state,
            "loop": loop_state,
        }
        return _finish(tf, g, {inputs: _x([3, 2, 2])}, outputs, [inputs], [cell])


class _StateSaver:
    """A state saver over variables (what a SequenceQueueingStateSaver gives a program)."""

    def __init__(self, tf, sizes):
        self._tf = tf
        self._vars = {
            name: tf.Variable(values([2, size], i + 20).astype(np.float32), name="saved_" + name)
            for i, (name, size) in enumerate(sorted(sizes.items()))
        }

    def state(self, name):
        # A copy of the value: TF1's read of a reference variable shares the buffer that the
        # save's Assign then overwrites in place, so TF's gradients would see the saved state
        # (an aliasing race tfcluster, whose assignments swap buffers, does not have).
        return self._vars[name] + 0.0

    def save_state(self, name, value):
        return self._tf.assign(self._vars[name], value)


@case
def static_state_saving_rnn_saves(tf):
    g = tf.Graph()
    with g.as_default():
        xs = [tf.placeholder(tf.float32, [2, 3], name=f"x{t}") for t in range(3)]
        cell = tf.nn.rnn_cell.BasicLSTMCell(4)
        saver = _StateSaver(tf, {"c": 4, "h": 4})
        outs, state = tf.nn.static_state_saving_rnn(cell, xs, saver, ("c", "h"))
        feeds = {x: _x([2, 3], seed=t) for t, x in enumerate(xs)}
        result = _finish(tf, g, feeds, {"outs": outs, "state": state}, xs, [cell])
        result["mismatch"] = _error(lambda: tf.nn.static_state_saving_rnn(cell, xs, saver, "c"))
        return result


# ---- cells called directly -----------------------------------------------------------------
@case
def cells_called_directly_with_scopes(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2, 3], name="x")
        cell = tf.nn.rnn_cell.BasicLSTMCell(4)
        state = cell.zero_state(2, tf.float32)
        o1, s1 = cell(x, state)
        o2, s2 = cell(x, s1)
        named = tf.nn.rnn_cell.GRUCell(3, name="my_gru")
        o3, _ = named(x, named.zero_state(tf.constant(2), tf.float32))
        scoped = tf.nn.rnn_cell.BasicRNNCell(2)
        with tf.variable_scope("outer"):
            o4, _ = scoped(x, tf.zeros([2, 2]), scope="explicit")
        multi = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(2)])
        o5, _ = multi(x, multi.zero_state(2, tf.float32), scope="stack")
        extra = {
            "scope_names": [c.scope_name for c in (cell, named, scoped, multi)],
            "cell_names": [c.name for c in (cell, named, scoped, multi)],
            "sizes": [str(c.state_size) for c in (cell, named, scoped, multi)],
            "output_sizes": [c.output_size for c in (cell, named, scoped, multi)],
            "dtypes": [cell.dtype, named.dtype],
        }
        outputs = {"o1": o1, "o2": o2, "s2": s2, "o3": o3, "o4": o4, "o5": o5}
        return _finish(tf, g, {x: _x([2, 3])}, outputs, [x], [cell, named, scoped, multi], extra)


@case
def dynamic_rnn_reused_scope(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2, 3, 2], name="x")
        cell = tf.nn.rnn_cell.GRUCell(3)
        with tf.variable_scope("shared"):
            out1, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        with tf.variable_scope("shared", reuse=True):
            out2, _ = tf.nn.dynamic_rnn(cell, x * 2.0, dtype=tf.float32)
        other = tf.nn.rnn_cell.GRUCell(3)
        with tf.variable_scope("shared", reuse=True):
            out3, _ = tf.nn.dynamic_rnn(other, x, dtype=tf.float32)
        outputs = {"out1": out1, "out2": out2, "out3": out3}
        return _finish(tf, g, {x: _x([2, 3, 2])}, outputs, [x], [cell, other])


@case
def zero_states(tf):
    g = tf.Graph()
    with g.as_default():
        b = tf.placeholder(tf.int32, [], name="b")
        cells = [
            tf.nn.rnn_cell.BasicLSTMCell(3),
            tf.nn.rnn_cell.MultiRNNCell(
                [tf.nn.rnn_cell.GRUCell(2), tf.nn.rnn_cell.LSTMCell(2, num_proj=1)]
            ),
            tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.BasicRNNCell(2)),
        ]
        states = {f"s{i}": c.zero_state(b, tf.float64) for i, c in enumerate(cells)}
        static = cells[0].zero_state(5, tf.float32)
        flat = {}
        for k, v in states.items():
            _flat(v, k, flat)
        with tf.Session() as sess:
            got = sess.run(flat, {b: 3})
        return {
            "ops": _ops(g),
            "shapes": {k: _shape(t) for k, t in flat.items()},
            "static": [_shape(t) for t in static],
            "values": {k: np.asarray(v) for k, v in got.items()},
        }


# ---- errors --------------------------------------------------------------------------------
@case
def errors(tf):
    g = tf.Graph()
    with g.as_default():
        x3 = tf.placeholder(tf.float32, [2, 3, 4])
        x2 = tf.placeholder(tf.float32, [2, 4])
        cell = tf.nn.rnn_cell.BasicLSTMCell(3)
        unknown_depth = tf.placeholder(tf.float32, [2, 3, None])
        out = {
            "rank_2_input": _error(lambda: tf.nn.dynamic_rnn(cell, x2, dtype=tf.float32)),
            "no_dtype": _error(lambda: tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(2), x3)),
            "not_a_cell": _error(lambda: tf.nn.dynamic_rnn(object(), x3, dtype=tf.float32)),
            "sequence_length_matrix": _error(
                lambda: tf.nn.dynamic_rnn(
                    tf.nn.rnn_cell.GRUCell(2), x3, sequence_length=[[1, 2]], dtype=tf.float32
                )
            ),
            "unknown_depth": _error(
                lambda: tf.nn.dynamic_rnn(
                    tf.nn.rnn_cell.GRUCell(2), unknown_depth, dtype=tf.float32
                )
            ),
            "int_inputs": _error(
                lambda: tf.nn.dynamic_rnn(
                    tf.nn.rnn_cell.GRUCell(2), tf.zeros([2, 3, 4], tf.int32), dtype=tf.int32
                )
            ),
            "cell_rank_3": _error(lambda: tf.nn.rnn_cell.GRUCell(2)(x3, tf.zeros([2, 2]))),
            "static_not_a_list": _error(lambda: tf.nn.static_rnn(cell, x2, dtype=tf.float32)),
            "static_empty": _error(lambda: tf.nn.static_rnn(cell, [], dtype=tf.float32)),
            "static_no_dtype": _error(lambda: tf.nn.static_rnn(tf.nn.rnn_cell.GRUCell(2), [x2])),
            "multi_empty": _error(lambda: tf.nn.rnn_cell.MultiRNNCell([])),
            "multi_not_list": _error(lambda: tf.nn.rnn_cell.MultiRNNCell(cell)),
            "multi_tuple_states_concatenated": _error(
                lambda: tf.nn.rnn_cell.MultiRNNCell([cell], state_is_tuple=False)
            ),
            "int_cell_dtype": _error(lambda: tf.nn.rnn_cell.GRUCell(2, dtype=tf.int32)),
            "raw_rnn_not_callable": _error(lambda: tf.nn.raw_rnn(cell, 3)),
            "bidirectional_bad_cell": _error(
                lambda: tf.nn.bidirectional_dynamic_rnn(cell, "bw", x3, dtype=tf.float32)
            ),
        }
        # Run time: a sequence_length of the wrong size fails the step, the session goes on.
        lengths = tf.placeholder(tf.int32, [None])
        y, _ = tf.nn.dynamic_rnn(
            tf.nn.rnn_cell.GRUCell(2), x3, sequence_length=lengths, dtype=tf.float32, scope="r"
        )
        feed = {x3: _x([2, 3, 4])}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())

            def run_bad():
                feed[lengths] = [1, 2, 3]
                sess.run(y, feed)

            out["wrong_length_count"] = {"error": _error(run_bad)["error"]}
            feed[lengths] = [3, 1]
            out["after_error_shape"] = list(sess.run(y, feed).shape)
        return out
