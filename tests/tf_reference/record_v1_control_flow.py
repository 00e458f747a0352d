"""Records graphs TensorFlow 1.15 writes with its v1 control flow (Switch, Merge, Enter, Exit,
NextIteration, LoopCond, stacks and TensorArrays), and TF's outputs for fixed inputs.

Run with TensorFlow 1.15 itself (it builds v1 control flow natively; 2.x would need
disable_control_flow_v2): `cd tests/tf_reference && /tmp/tf115/bin/python
record_v1_control_flow.py`. Python 3.7 code.

Written into data/v1_control_flow/ (committed; tests import, run and train them):
  cond.pb           frozen GraphDef: nested tf.cond on a bool placeholder, a while_loop in a
                    cond branch (its frame is dead when the branch is not taken)
  while.pb          frozen GraphDef: nested tf.while_loop (outer counter, inner accumulator)
  lstm.pb           frozen GraphDef: dynamic_rnn over an LSTMCell with sequence_length
  lstm_train.meta   MetaGraphDef of an LSTM training graph (Adam train_op, gradients through
  + lstm_train.*    the loop: stacks and TensorArray gradients) and its initial checkpoint
  bn_saved_model/   SavedModel: tf.layers dense + batch_normalization(training=placeholder) +
                    dropout(training=placeholder), after a few training steps
  bn_train.meta     MetaGraphDef of a batch-norm model trained through its cond (gradients of
  + bn_train.*      Switch and Merge) and its initial checkpoint
  misc.pb           frozen GraphDef: map_fn, scan, a cond in a loop, tf.case, a bidirectional
                    GRU with sequence_length, the gradient of a nested while loop
and data/v1_control_flow.json: the inputs fed and TF's outputs (and losses per train step).
"""

import json
import os
import shutil

import numpy as np
import tensorflow as tf
from tensorflow.python.framework import graph_util

assert tf.__version__.startswith("1.15"), tf.__version__
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "data", "v1_control_flow")
RESULTS = {"tensorflow": tf.__version__}


def arr(value):
    value = np.asarray(value)
    return {"dtype": value.dtype.name, "shape": list(value.shape), "value": value.tolist()}


def write_frozen(sess, outputs, name):
    frozen = graph_util.convert_variables_to_constants(
        sess, sess.graph.as_graph_def(), [o.split(":")[0] for o in outputs]
    )
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(frozen.SerializeToString())
    return sorted({n.op for n in frozen.node})


def record_cond():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        flag = tf.placeholder(tf.bool, [], name="flag")
        other = tf.placeholder_with_default(True, [], name="other")

        def taken():
            inner = tf.cond(other, lambda: x * 2.0 + 1.0, lambda: x - 3.0)
            return tf.reduce_sum(inner, axis=1)

        def untaken():
            # A loop on a branch: not taken, its Enter nodes are dead.
            _, total = tf.while_loop(
                lambda i, acc: i < 4,
                lambda i, acc: (i + 1, acc + tf.reduce_sum(x, axis=1) * tf.cast(i, tf.float32)),
                [tf.constant(0), tf.zeros_like(x[:, 0])],
            )
            return total

        y = tf.identity(tf.cond(flag, taken, untaken), name="y")
        # A control dependency on a cond's output, and a Merge of two constants.
        with tf.control_dependencies([y]):
            tf.identity(
                tf.cond(flag, lambda: tf.constant(10.0), lambda: tf.constant(-1.0)), name="z"
            )
        with tf.Session(graph=g) as sess:
            ops = write_frozen(sess, ["y", "z"], "cond.pb")
            xv = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 4.0]], np.float32)
            runs = []
            for f, o in [(True, True), (True, False), (False, True)]:
                yv, zv = sess.run(["y:0", "z:0"], {x: xv, flag: f, other: o})
                runs.append({"flag": f, "other": o, "y": arr(yv), "z": arr(zv)})
    RESULTS["cond"] = {"x": arr(xv), "runs": runs, "ops": ops}


def record_while():
    g = tf.Graph()
    with g.as_default():
        n = tf.placeholder(tf.int32, [], name="n")
        v = tf.placeholder(tf.float32, [2], name="v")

        def outer_body(i, acc):
            def inner_body(j, inner_acc):
                return j + 1, inner_acc + v * tf.cast(i * j, tf.float32)

            _, inner = tf.while_loop(lambda j, a: j < i, inner_body, [0, tf.zeros([2])])
            return i + 1, acc + inner

        i_final, total = tf.while_loop(lambda i, acc: i < n, outer_body, [0, tf.zeros([2])])
        tf.identity(i_final, name="i_final")
        tf.identity(total, name="total")
        with tf.Session(graph=g) as sess:
            ops = write_frozen(sess, ["i_final", "total"], "while.pb")
            runs = []
            vv = np.array([0.5, -2.0], np.float32)
            for nv in [0, 1, 5]:
                iv, tv = sess.run(["i_final:0", "total:0"], {n: nv, v: vv})
                runs.append({"n": nv, "i_final": arr(iv), "total": arr(tv)})
    RESULTS["while"] = {"v": arr(vv), "runs": runs, "ops": ops}


def lstm_graph(train):
    tf.set_random_seed(7)
    x = tf.placeholder(tf.float32, [2, 4, 3], name="x")
    lengths = tf.placeholder(tf.int32, [2], name="lengths")
    cell = tf.nn.rnn_cell.LSTMCell(5)
    outputs, state = tf.nn.dynamic_rnn(cell, x, sequence_length=lengths, dtype=tf.float32)
    tf.identity(outputs, name="outputs")
    tf.identity(state.c, name="c")
    tf.identity(state.h, name="h")
    if not train:
        return x, lengths, None
    target = tf.placeholder(tf.float32, [2, 5], name="target")
    # Through the outputs too: their gradient flows back through TensorArrayGradV3.
    loss = tf.add(
        tf.reduce_mean(tf.square(state.h - target)),
        0.1 * tf.reduce_mean(tf.square(outputs)),
        name="loss",
    )
    global_step = tf.train.get_or_create_global_step()
    train_op = tf.train.AdamOptimizer(0.05).minimize(loss, global_step=global_step, name="train")
    tf.add_to_collection("train_op", train_op)
    return x, lengths, target


def lstm_inputs():
    rng = np.random.RandomState(3)
    xv = rng.uniform(-1, 1, [2, 4, 3]).astype(np.float32)
    target = rng.uniform(-0.5, 0.5, [2, 5]).astype(np.float32)
    return xv, np.array([4, 2], np.int32), target


def record_lstm():
    g = tf.Graph()
    xv, lv, _ = lstm_inputs()
    with g.as_default():
        x, lengths, _ = lstm_graph(train=False)
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            ops = write_frozen(sess, ["outputs", "c", "h"], "lstm.pb")
            o, c, h = sess.run(["outputs:0", "c:0", "h:0"], {x: xv, lengths: lv})
    RESULTS["lstm"] = {
        "x": arr(xv),
        "lengths": arr(lv),
        "outputs": arr(o),
        "c": arr(c),
        "h": arr(h),
        "ops": ops,
    }


def record_lstm_train():
    g = tf.Graph()
    xv, lv, tv = lstm_inputs()
    with g.as_default():
        x, lengths, target = lstm_graph(train=True)
        saver = tf.train.Saver()
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            saver.save(sess, os.path.join(OUT, "lstm_train"), write_meta_graph=False)
            tf.train.export_meta_graph(os.path.join(OUT, "lstm_train.meta"), clear_devices=True)
            feed = {x: xv, lengths: lv, target: tv}
            losses = []
            for _ in range(4):
                loss, _ = sess.run(["loss:0", "train"], feed)
                losses.append(float(loss))
            final_loss = float(sess.run("loss:0", feed))
            kernel = sess.run("rnn/lstm_cell/kernel:0")
            step = int(sess.run("global_step:0"))
            ops = sorted({n.op for n in g.as_graph_def().node})
    os.remove(os.path.join(OUT, "checkpoint"))
    RESULTS["lstm_train"] = {
        "x": arr(xv),
        "lengths": arr(lv),
        "target": arr(tv),
        "losses": losses,
        "final_loss": final_loss,
        "kernel_after": arr(kernel),
        "global_step": step,
        "ops": ops,
    }


def record_bn_saved_model():
    g = tf.Graph()
    rng = np.random.RandomState(5)
    xv = rng.normal(size=[4, 3]).astype(np.float32)
    with g.as_default():
        tf.set_random_seed(11)
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        training = tf.placeholder_with_default(False, [], name="training")
        h = tf.layers.dense(x, 6, activation=tf.nn.relu)
        bn = tf.layers.batch_normalization(h, training=training, momentum=0.5)
        tf.identity(bn, name="bn_out")
        dropped = tf.layers.dropout(bn, rate=0.5, training=training)
        y = tf.identity(tf.layers.dense(dropped, 2), name="y")
        update = tf.group(*tf.get_collection(tf.GraphKeys.UPDATE_OPS), name="update")
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            bn_train = [
                sess.run(["bn_out:0", update], {x: xv, training: True})[0] for _ in range(2)
            ]
            y_infer = sess.run(y, {x: xv})
            moving = sess.run("batch_normalization/moving_mean:0")
            path = os.path.join(OUT, "bn_saved_model")
            builder = tf.saved_model.builder.SavedModelBuilder(path)
            sig = tf.saved_model.signature_def_utils.predict_signature_def(
                {"x": x, "training": training}, {"y": y, "bn": bn}
            )
            builder.add_meta_graph_and_variables(
                sess,
                [tf.saved_model.tag_constants.SERVING],
                signature_def_map={"serving_default": sig},
            )
            builder.save()
            # One more training step after saving: a test runs the same step on the model.
            sess.run(update, {x: xv, training: True})
            moving_after = sess.run("batch_normalization/moving_mean:0")
            ops = sorted({n.op for n in g.as_graph_def().node})
    RESULTS["bn_saved_model"] = {
        "x": arr(xv),
        "bn_train": [arr(b) for b in bn_train],
        "y_infer": arr(y_infer),
        "moving_mean": arr(moving),
        "moving_mean_after_update": arr(moving_after),
        "ops": ops,
    }


def record_bn_train():
    """Training through a cond: the gradients of Switch and Merge are Merge and Switch."""
    g = tf.Graph()
    rng = np.random.RandomState(9)
    xv = rng.normal(size=[8, 3]).astype(np.float32)
    yv = rng.normal(size=[8, 1]).astype(np.float32)
    with g.as_default():
        tf.set_random_seed(13)
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        y = tf.placeholder(tf.float32, [None, 1], name="y")
        training = tf.placeholder(tf.bool, [], name="training")
        h = tf.layers.dense(x, 4, activation=tf.nn.tanh)
        h = tf.layers.batch_normalization(h, training=training)
        pred = tf.layers.dense(h, 1)
        loss = tf.losses.mean_squared_error(y, pred)
        tf.identity(loss, name="loss")
        with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
            train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, name="train")
        tf.add_to_collection("train_op", train_op)
        saver = tf.train.Saver()
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            saver.save(sess, os.path.join(OUT, "bn_train"), write_meta_graph=False)
            tf.train.export_meta_graph(os.path.join(OUT, "bn_train.meta"), clear_devices=True)
            feed = {x: xv, y: yv, training: True}
            losses = [float(sess.run(["loss:0", "train"], feed)[0]) for _ in range(3)]
            eval_loss = float(sess.run("loss:0", {x: xv, y: yv, training: False}))
            ops = sorted({n.op for n in g.as_graph_def().node})
    os.remove(os.path.join(OUT, "checkpoint"))
    RESULTS["bn_train"] = {
        "x": arr(xv),
        "y": arr(yv),
        "losses": losses,
        "eval_loss": eval_loss,
        "ops": ops,
    }


def record_misc():
    """More of what TF 1.x builds from loops and conds, in one frozen graph: map_fn, scan, a
    cond inside a loop, tf.case, a bidirectional GRU, the gradient of a nested loop."""
    g = tf.Graph()
    rng = np.random.RandomState(21)
    xv = rng.uniform(-1, 1, [3, 4]).astype(np.float32)
    seq = rng.uniform(-1, 1, [2, 5, 3]).astype(np.float32)
    with g.as_default():
        tf.set_random_seed(17)
        x = tf.placeholder(tf.float32, [3, 4], name="x")
        s = tf.placeholder(tf.float32, [2, 5, 3], name="seq")
        k = tf.placeholder(tf.int32, [], name="k")
        tf.identity(tf.map_fn(lambda row: tf.reduce_sum(row * row), x), name="out_map_fn")
        tf.identity(tf.scan(lambda a, row: a * 0.5 + row, x), name="out_scan")

        def body(i, acc):
            step = tf.cond(i % 2 > 0, lambda: acc + x[i % 3], lambda: acc * 2.0 - 1.0)
            return i + 1, step

        tf.identity(
            tf.while_loop(lambda i, a: i < 5, body, [0, tf.zeros([4])])[1], name="out_cond_in_loop"
        )
        tf.identity(
            tf.case(
                [(tf.equal(k, 0), lambda: x * 3.0), (tf.equal(k, 1), lambda: x - 1.0)],
                default=lambda: tf.abs(x),
            ),
            name="out_case",
        )
        fw, bw = tf.nn.rnn_cell.GRUCell(3), tf.nn.rnn_cell.GRUCell(3)
        (out_fw, out_bw), _ = tf.nn.bidirectional_dynamic_rnn(
            fw, bw, s, sequence_length=[5, 3], dtype=tf.float32
        )
        tf.identity(tf.concat([out_fw, out_bw], 2), name="out_bigru")
        w = tf.Variable(np.array([0.3, -0.2, 0.1, 0.5], np.float32), name="w")

        def outer(i, acc):
            inner = tf.while_loop(lambda j, b: j < i, lambda j, b: (j + 1, b * w + 0.1), [0, acc])[
                1
            ]
            return i + 1, inner

        nested = tf.while_loop(lambda i, a: i < 3, outer, [0, tf.ones([4])])[1]
        tf.identity(tf.gradients(tf.reduce_sum(nested * x[0]), w)[0], name="out_nested_grad")
        names = ["out_map_fn", "out_scan", "out_cond_in_loop", "out_case", "out_bigru"]
        names.append("out_nested_grad")
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            ops = write_frozen(sess, names, "misc.pb")
            runs = []
            for kv in [0, 1, 2]:
                values = sess.run([n + ":0" for n in names], {x: xv, s: seq, k: kv})
                runs.append({"k": kv, **{n: arr(v) for n, v in zip(names, values)}})
    RESULTS["misc"] = {"x": arr(xv), "seq": arr(seq), "names": names, "runs": runs, "ops": ops}


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    record_cond()
    record_while()
    record_lstm()
    record_lstm_train()
    record_bn_saved_model()
    record_bn_train()
    record_misc()
    with open(os.path.join(HERE, "data", "v1_control_flow.json"), "w") as f:
        json.dump(RESULTS, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
