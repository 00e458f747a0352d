"""Programs for what the public-signature fixes added (run by record_signature_behaviours.py
on TF 1.15 and by tests/unit/test_signature_behaviours.py on tfcluster): each returns plain
values (names, shapes, arrays, error class names) that the two must agree on.
Python 3.7 code: TF 1.15 runs it."""

import numpy as np


def _error(fn):
    try:
        fn()
    except Exception as e:
        return type(e).__name__
    return None


def tensor_shape_methods(tf):
    S = tf.TensorShape
    return {
        "at_most": str(S([1, None]).with_rank_at_most(3)),
        "at_most_unknown": str(S(None).with_rank_at_most(2)),
        "at_most_error": _error(lambda: S([1, 2, 3]).with_rank_at_most(2)),
        "same_rank": [
            _error(lambda: S(a).assert_same_rank(S(b)))  # noqa: B023
            for a, b in [([1, 2], [3, None]), (None, [1]), ([1], [1, 2])]
        ],
        "specific": [
            str(S(a).most_specific_compatible_shape(b))
            for a, b in [([1, 2], S([1, 3])), ([1, 2], S(None)), ([1, 2], [1]), ([None, 4], [2, 4])]
        ],
        "dimension": [
            _error(lambda: tf.Dimension(3).assert_is_compatible_with(v))  # noqa: B023
            for v in (None, 3, 4)
        ],
    }


def keras_nodes(tf):
    d = tf.keras.layers.Dense(2, name="d")
    a = tf.keras.Input((3,))
    b = tf.keras.Input((5, 3))
    c = tf.keras.Input((4,), dtype="int32")
    d(a)
    d(b)
    d(tf.keras.layers.Embedding(10, 3, mask_zero=True)(c))
    return {
        "input0": d.get_input_at(0).name,
        "output0": d.get_output_at(0).name,
        "input_shape1": d.get_input_shape_at(1),
        "output_shape0": d.get_output_shape_at(0),
        "input_mask0": d.get_input_mask_at(0),
        "input_mask2": d.get_input_mask_at(2).op.type,
        "output_mask2": d.get_output_mask_at(2).op.type,
        "beyond": _error(lambda: d.get_input_at(3)),
        "never_called": _error(lambda: tf.keras.layers.Dense(1).get_output_at(0)),
    }


def keras_weights_and_cells(tf):
    class Unnamed(tf.keras.layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight(shape=(2,))
            self.v = self.add_variable("v", (3,))
            self.p = self.add_weight("p", (2,), None, "ones", None, False, None, None)

        def call(self, x):
            return x

    layer = Unnamed()
    layer(tf.zeros((1, 2)))
    lstm = tf.keras.layers.LSTMCell(
        3, use_bias=False, kernel_initializer=tf.keras.initializers.Constant(0.1)
    )
    gru = tf.keras.layers.GRUCell(4, "relu", "sigmoid", False, "ones")
    x = tf.constant(np.ones((2, 5), np.float32))
    lstm_out, lstm_states = lstm(x, lstm.get_initial_state(x))
    gru_out, _ = gru(x, [gru.get_initial_state(batch_size=2, dtype=tf.float32)])
    simple = tf.keras.layers.SimpleRNNCell(2)
    zero = simple.get_initial_state(inputs=x)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run([lstm_out, gru_out, zero])
    return {
        "names": [v.name for v in (layer.w, layer.v, layer.p)],
        "trainable": [v.name for v in layer.trainable_weights],
        "lstm_weights": [v.name for v in lstm.weights],
        "gru_weights": [v.name for v in gru.weights],
        "lstm_out": values[0],
        "lstm_states": len(lstm_states),
        "gru_out": values[1],
        "zero_state": values[2],
        "lstm_config": sorted(k for k, v in lstm.get_config().items() if v is False),
    }


def keras_dynamic(tf):
    class Doubles(tf.keras.layers.Layer):
        def call(self, x):
            return x * 2

        def compute_output_shape(self, s):
            return s

    layer = Doubles(dynamic=True)
    inp = tf.keras.Input((3,))
    out = layer(inp)
    model = tf.keras.Model(inp, out)
    return {
        "dynamic": [layer.dynamic, Doubles().dynamic, model.dynamic],
        "output": [out.op.type, out.shape.as_list(), out.dtype.name],
        "compile": _error(lambda: model.compile("sgd", "mse")),
    }


def variable_methods(tf):
    ref = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
    res = tf.get_variable(
        "res", initializer=np.arange(6, dtype=np.float32).reshape(2, 3), use_resource=True
    )
    gathered = res.sparse_read([1, 0])
    nd = res.gather_nd([[1, 2], [0, 1]])
    delta = tf.IndexedSlices(tf.constant([[10.0], [20.0]]), tf.constant([[2], [0]]))
    batch = ref.batch_scatter_update(delta)
    refs = {ref.experimental_ref(): 1, gathered.experimental_ref(): 2}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run([gathered, nd, batch])
    return {
        "sparse_read": values[0],
        "gather_nd": values[1],
        "gather_nd_op": [nd.op.type, nd.op.inputs[0].op.type, nd.name],
        "batch_scatter_update": values[2],
        "ref_sparse_read": _error(lambda: ref.sparse_read([0])),
        "ref_gather_nd": _error(lambda: ref.gather_nd([[0, 0]])),
        "refs": [
            refs[ref.experimental_ref()],
            refs[gathered.experimental_ref()],
            ref.experimental_ref().deref() is ref,
            ref.experimental_ref() == res.experimental_ref(),
        ],
        "ref_vs_plain": _error(lambda: ref.experimental_ref() == ref),
    }


def keras_rnn_extras(tf):
    class Constant(tf.keras.layers.Layer):
        state_size = 2

        def build(self, input_shape):
            self.built = True

        def call(self, inputs, states, constants):
            out = inputs * 2.0 + states[0] + constants[0]
            return out, [out]

    x = tf.constant(np.arange(12, dtype=np.float32).reshape(2, 3, 2))
    c = tf.constant([[1.0, -1.0], [0.5, 0.25]])
    with_constants = tf.keras.layers.RNN(Constant(), return_sequences=True)(x, constants=c)
    plain = _error(lambda: tf.keras.layers.RNN(tf.keras.layers.SimpleRNNCell(2))(x, constants=c))
    tokens = tf.constant([[1, 2, 0, 0], [3, 0, 0, 0]])
    embedded = tf.keras.layers.Embedding(5, 2, embeddings_initializer="ones", mask_zero=True)(
        tokens
    )
    steps = tf.constant(np.arange(16, dtype=np.float32).reshape(2, 4, 2))
    pooled = tf.keras.layers.GlobalAveragePooling1D()(embedded)
    pooled_given = tf.keras.layers.GlobalAveragePooling1D()(
        steps, mask=tf.constant([[True, True, False, True], [False, True, False, False]])
    )
    stacked = tf.keras.layers.StackedRNNCells(
        [tf.keras.layers.LSTMCell(3), tf.keras.layers.GRUCell(2)]
    )
    stacked_states = stacked.get_initial_state(batch_size=4, dtype=tf.float32)
    conv = tf.keras.layers.ConvLSTM2D(3, (3, 2), padding="valid")
    conv(tf.zeros((2, 4, 6, 5, 1)))  # TF 1.15's needs the layer built
    conv_states = conv.get_initial_state(tf.zeros((2, 4, 6, 5, 1)))
    cudnn = tf.keras.layers.CuDNNGRU(4)
    cudnn_states = cudnn.get_initial_state(tf.zeros((3, 5, 2)))
    bidi = tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(2))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run(
            [with_constants, pooled, stacked_states, conv_states, cudnn_states, pooled_given]
        )
    return {
        "constants": values[0],
        "cell_without_constants": plain,
        "pooled_mask": values[1],
        "pooled_given_mask": values[5],
        "pooled_output_mask": getattr(pooled, "_keras_mask", None),
        "stacked_states": [[np.shape(s) for s in cell] for cell in values[2]],
        "conv_states": [np.shape(s) for s in values[3]],
        "cudnn_states": [np.shape(s) for s in values[4]],
        "reset_states": [
            _error(bidi.reset_states),
            _error(conv.reset_states),
            _error(cudnn.reset_states),
        ],
        "spatial_1d_positional": _error(lambda: tf.keras.layers.SpatialDropout1D(0.5, "x")),
        "locally_connected_padding": tf.keras.layers.LocallyConnected2D(
            2, 2, 1, "valid", "channels_first"
        ).data_format,
        "cudnn_lstm_positional": type(
            tf.keras.layers.CuDNNLSTM(3, "ones", "zeros", "ones", False).kernel_initializer
        ).__name__,
        "cudnn_lstm_unit_forget_bias": tf.keras.layers.CuDNNLSTM(
            3, "ones", "zeros", "ones", False
        ).unit_forget_bias,
    }


def keras_misc_methods(tf):
    class M(tf.keras.metrics.Metric):
        def __init__(self):
            super().__init__(name="m")
            self.a = self.add_weight("a")
            self.b = self.add_weight("b", (2,), initializer="ones")
            self.c = self.add_weight(
                "c",
                (2,),
                tf.VariableAggregation.MEAN,
                tf.VariableSynchronization.ON_READ,
                "ones",
                "int32",
            )

        def update_state(self, x):
            return self.a.assign_add(x)

        def result(self):
            return self.a

    metric = M()
    stopping = tf.keras.callbacks.EarlyStopping(monitor="acc")
    loss = tf.keras.losses.BinaryCrossentropy(from_logits=True, label_smoothing=0.25)
    x = tf.constant(1.0)
    session = tf.keras.backend.get_session([x])
    with session.as_default():
        session.run([v.initializer for v in metric.variables])
        values = session.run(metric.variables)
    return {
        "metric_values": values[1:],
        "metric_a_within_glorot": bool(0.0 < abs(values[0]) <= 3**0.5),
        "metric_dtypes": [v.dtype.base_dtype.name for v in metric.variables],
        "metric_aggregation": [str(v.aggregation) for v in metric.variables],
        "metric_synchronization": [str(v.synchronization) for v in metric.variables],
        "monitor": [stopping.get_monitor_value({"acc": 0.5}), stopping.get_monitor_value(None)],
        "loss_from_config": sorted(type(loss).from_config(loss.get_config()).get_config().items()),
        "session_graph": session.graph is x.graph,
    }


def graph_and_table_methods(tf):
    import sys

    x = tf.placeholder(tf.float32, [], name="x")
    y = tf.identity(x * 2.0, name="y")
    z = tf.constant(3.0, name="z")
    graph = tf.get_default_graph()
    graph.prevent_feeding(z)
    graph.prevent_fetching(y.op)
    table = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(["a", "b"], [1, 2]), -1, name="static"
    )
    keys, values = table.export()
    dense = tf.lookup.experimental.DenseHashTable(tf.int64, tf.float32, -1.0, 0, 1)
    put = dense.insert_or_assign(tf.constant([3, 5], tf.int64), [0.5, 1.5])
    ragged = tf.ragged.constant([[1, 2], [3]])

    class Case(tf.test.TestCase):
        def runTest(self):
            pass

    case = Case()
    with tf.Session() as sess:
        sess.run(table.initializer)
        exported = sess.run([keys, values])
        sess.run(put)
        found = sess.run(dense.lookup(tf.constant([5, 3, 4], tf.int64)))
        answers = {
            "feed_z": _error(lambda: sess.run(y, {z: 1.0, x: 1.0})),
            "fetch_y": _error(lambda: sess.run(y, {x: 1.0})),
            "fetch_y_op_type": _error(lambda: sess.run(y.op, {x: 1.0})),
            "fetchable": [graph.is_fetchable(y), graph.is_fetchable(x), graph.is_feedable(z)],
        }
    with case.captureWritesToStream(sys.stderr) as printed:
        sys.stderr.write("to the stream\n")
    graph_def = tf.GraphDef()
    graph_def.versions.producer = tf.GRAPH_DEF_VERSION
    graph_def.versions.min_consumer = tf.GRAPH_DEF_VERSION_MIN_CONSUMER
    graph_def.node.add(name="n", op="NoOp")
    thread = tf.train.LooperThread(tf.train.Coordinator(), None, target=lambda: None)
    answers.update(
        {
            "export": sorted(zip([k.decode() for k in exported[0]], exported[1].tolist())),
            "export_shapes": [keys.shape.as_list(), values.shape.as_list(), values.op.type],
            "dense": found,
            "to_list": _error(ragged.to_list),
            "captured": printed.contents(),
            "nd_near": [
                _error(lambda: case.assertNDArrayNear(np.ones(4), np.ones(4) + 0.4, 1.0)),
                _error(lambda: case.assertNDArrayNear(np.ones(4), np.ones(4) + 0.6, 1.0)),
            ],
            "proto_version": [
                _error(
                    lambda: case.assertProtoEqualsVersion(
                        'node { name: "n" op: "NoOp" }', graph_def
                    )
                ),
                _error(
                    lambda: case.assertProtoEqualsVersion(
                        'node { name: "m" op: "NoOp" }', graph_def
                    )
                ),
            ],
            "is_alive": thread.isAlive(),
        }
    )
    return answers


def keras_cell_dropout_alone(tf):
    cell = tf.keras.layers.LSTMCell(
        3,
        kernel_initializer=tf.keras.initializers.Constant(0.1),
        recurrent_initializer=tf.keras.initializers.Constant(-0.2),
        dropout=0.5,
        recurrent_dropout=0.5,
    )
    x = tf.constant(np.arange(8, dtype=np.float32).reshape(2, 4) / 8.0)
    states = [tf.ones((2, 3)), tf.ones((2, 3))]
    trained, _ = cell(x, states, training=True)
    masks_kept = cell.get_dropout_mask_for_cell(x, True, count=4) is not None
    cell.reset_dropout_mask()
    cell.reset_recurrent_dropout_mask()
    inferred, _ = cell(x, states, training=False)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run([trained, inferred])
    return {"trained": values[0], "inferred": values[1], "masks_kept": masks_kept}


def keras_optimizer_slots(tf):
    opt = tf.keras.optimizers.SGD(0.1, momentum=0.5)
    var = tf.Variable([1.0, 2.0], name="w", use_resource=True)  # a ref one fails in TF 1.15
    ones = opt.add_slot(var, "extra", "ones")
    given = opt.add_slot(var, "given", np.array([3.0, 4.0], np.float32))
    again = opt.add_slot(var, "extra", "zeros")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run([ones, given])
    return {
        "values": values,
        "names": [ones.name, given.name],
        "same": [again is ones, opt.get_slot(var, "given") is given],
        "slot_names": opt.get_slot_names(),
    }


CASES = {
    "tensor_shape_methods": tensor_shape_methods,
    "keras_nodes": keras_nodes,
    "keras_weights_and_cells": keras_weights_and_cells,
    "keras_dynamic": keras_dynamic,
    "variable_methods": variable_methods,
    "keras_rnn_extras": keras_rnn_extras,
    "keras_misc_methods": keras_misc_methods,
    "graph_and_table_methods": graph_and_table_methods,
    "keras_cell_dropout_alone": keras_cell_dropout_alone,
    "keras_optimizer_slots": keras_optimizer_slots,
}
