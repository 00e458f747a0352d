"""tf.keras programs whose graph-building stages move TF 1.15's op count, hence the op seeds
of every random op made after them (graph seed set, no op seed). Each case builds a model in
stages (build, compile, first fit, evaluate, predict) and records, after each stage, the op
count, the (name, type) of the ops the stage made, and a seeded draw made right after it
(a Dropout layer's mask, a tf.random_normal), so that tfcluster builds the same ops in the same
order and draws TF's numbers. Runs under Python 3.7 (TF 1.15) and on tfcluster.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _count(graph: Any) -> int:
    return graph._op_count() if hasattr(graph, "_op_count") else graph._last_id


class _Stages:
    """Op count and the ops made by each stage of a program, in one graph."""

    def __init__(self, graph: Any) -> None:
        self.graph = graph
        self.seen = 0
        self.out: dict[str, Any] = {"stages": [], "counts": [], "ops": []}

    def mark(self, stage: str) -> None:
        ops = self.graph.get_operations()
        self.out["stages"].append(stage)
        self.out["counts"].append(_count(self.graph))
        self.out["ops"].append([[op.name, op.type] for op in ops[self.seen :]])
        self.seen = len(ops)


def _data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, (12, 3)).astype(np.float32)
    y = (np.arange(12) % 2).astype(np.int64)
    return x, y


def _mlp(K: Any, kernel_constraint: Any = None) -> Any:
    return K.Sequential(
        [
            K.layers.Dense(
                4, activation="relu", input_shape=(3,), kernel_constraint=kernel_constraint
            ),
            K.layers.Dense(2, activation="softmax"),
        ]
    )


def _embedding_model(K: Any) -> Any:
    """An Embedding: its gradient is IndexedSlices (the optimizers' sparse updates)."""
    return K.Sequential(
        [
            K.layers.Embedding(7, 3, input_length=3),
            K.layers.Flatten(),
            K.layers.Dense(2, activation="softmax"),
        ]
    )


def _program(
    tf: Any, optimizer: Any, loss: str, metrics: Any, model_fn: Any = None
) -> dict[str, Any]:
    K = tf.keras
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(1)
        sess = tf.Session(graph=graph)
        K.backend.set_session(sess)
        stages = _Stages(graph)
        model = model_fn(K) if model_fn is not None else _mlp(K)
        stages.mark("build")
        model.compile(optimizer() if callable(optimizer) else optimizer, loss, metrics=metrics)
        stages.mark("compile")
        after_compile = tf.random_normal([4], name="after_compile")
        x, y = _data()
        if model_fn is _embedding_model:
            x = np.random.RandomState(1).randint(0, 7, (12, 3)).astype(np.int64)
        if loss == "mse":
            y = np.eye(2, dtype=np.float32)[y]
        history = model.fit(x, y, batch_size=4, epochs=2, verbose=0, shuffle=False)
        stages.mark("fit")
        evaluated = model.evaluate(x, y, batch_size=4, verbose=0)
        stages.mark("evaluate")
        predicted = model.predict(x[:3])
        stages.mark("predict")
        after = tf.random_uniform([3], name="after_all")
        out = stages.out
        out["after_compile"] = sess.run(after_compile)
        out["after_all"] = sess.run(after)
        out["history"] = {k: [float(v) for v in vs] for k, vs in history.history.items()}
        out["evaluate"] = [float(v) for v in np.atleast_1d(evaluated)]
        out["predict"] = predicted
        out["metrics_names"] = list(model.metrics_names)
        sess.close()
    return out


def sgd_mse_without_metrics(tf: Any) -> dict[str, Any]:
    return _program(tf, lambda: tf.train.GradientDescentOptimizer(0.1), "mse", None)


def rmsprop_sparse_crossentropy_with_accuracy(tf: Any) -> dict[str, Any]:
    return _program(
        tf, lambda: tf.train.RMSPropOptimizer(0.01), "sparse_categorical_crossentropy", ["acc"]
    )


def sgd_mse_with_two_metrics(tf: Any) -> dict[str, Any]:
    return _program(tf, lambda: tf.train.GradientDescentOptimizer(0.1), "mse", ["mae", "acc"])


def dropout_after_compile(tf: Any) -> dict[str, Any]:
    """A Dropout layer called after compile: its mask's seed is the op count then."""
    K = tf.keras
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(3)
        sess = tf.Session(graph=graph)
        K.backend.set_session(sess)
        stages = _Stages(graph)
        inputs = K.Input((6,))
        model = K.Model(inputs, K.layers.Dense(2)(inputs))
        model.compile(tf.train.AdamOptimizer(0.01), "categorical_crossentropy", ["accuracy"])
        stages.mark("compile")
        dropped = K.layers.Dropout(0.5)(tf.ones([5, 6]), training=True)
        stages.mark("dropout")
        out = stages.out
        out["dropout"] = sess.run(dropped)
        sess.close()
    return out


def two_outputs_compile(tf: Any) -> dict[str, Any]:
    """Two outputs: each loss also a Mean metric (`dense_loss`), metrics named per output."""
    K = tf.keras
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(5)
        sess = tf.Session(graph=graph)
        K.backend.set_session(sess)
        stages = _Stages(graph)
        inputs = K.Input((3,))
        a = K.layers.Dense(2, activation="softmax")(inputs)
        b = K.layers.Dense(1)(inputs)
        model = K.Model(inputs, [a, b])
        stages.mark("build")
        model.compile(
            tf.train.GradientDescentOptimizer(0.1),
            ["sparse_categorical_crossentropy", "mse"],
            metrics=["acc"],
            loss_weights=[1.0, 0.5],
        )
        stages.mark("compile")
        x, y = _data()
        history = model.fit(x, [y, x[:, :1]], batch_size=5, epochs=2, verbose=0, shuffle=False)
        stages.mark("fit")
        after = tf.random_normal([3], name="after_fit")
        out = stages.out
        out["after_fit"] = sess.run(after)
        out["history"] = {k: [float(v) for v in vs] for k, vs in history.history.items()}
        out["metrics_names"] = list(model.metrics_names)
        sess.close()
    return out


# tf.keras optimizers (OptimizerV2) in fit: (case name, how to make it from tf.keras).
# Each one's coefficients are built once per step (`_prepare_local`), its updates are
# Resource* ops under `<name>/<name>/update_<variable>/`, its slots start from
# `Initializer/zeros` (Adagrad's and Ftrl's accumulators from `Initializer/Const`).
_KERAS_OPTIMIZERS = (
    ("sgd_by_name", lambda K: "sgd"),
    ("sgd_momentum", lambda K: K.optimizers.SGD(0.1, momentum=0.9)),
    ("sgd_nesterov_clipnorm", lambda K: K.optimizers.SGD(0.1, 0.9, True, clipnorm=0.5)),
    ("sgd_clipvalue_decay", lambda K: K.optimizers.SGD(0.1, clipvalue=0.05, decay=0.1)),
    ("adam_by_name", lambda K: "adam"),
    ("adam_amsgrad_decay", lambda K: K.optimizers.Adam(0.01, amsgrad=True, decay=0.01)),
    ("rmsprop_by_name", lambda K: "rmsprop"),
    ("rmsprop_momentum", lambda K: K.optimizers.RMSprop(momentum=0.5)),
    ("rmsprop_centered", lambda K: K.optimizers.RMSprop(centered=True)),
    ("rmsprop_centered_momentum", lambda K: K.optimizers.RMSprop(0.01, 0.8, 0.5, centered=True)),
    ("adagrad_by_name", lambda K: "adagrad"),
    ("adadelta_by_name", lambda K: "adadelta"),
    ("adamax_by_name", lambda K: "adamax"),
    ("nadam_by_name", lambda K: "nadam"),
    ("ftrl_by_name", lambda K: "ftrl"),
    (
        "ftrl_l1_l2_shrinkage",
        lambda K: K.optimizers.Ftrl(0.05, -0.5, 0.1, 0.01, 0.01, "Ftrl", 0.1),
    ),
)
# Learning-rate schedules evaluated at the optimizer's step, inside its `_prepare_local`.
_SCHEDULED = (
    (
        "adam_exponential_decay",
        lambda K: K.optimizers.Adam(K.optimizers.schedules.ExponentialDecay(0.01, 2, 0.5)),
    ),
    (
        "sgd_momentum_piecewise_constant",
        lambda K: K.optimizers.SGD(
            K.optimizers.schedules.PiecewiseConstantDecay([2, 4], [0.1, 0.05, 0.01]), 0.5
        ),
    ),
    (
        "rmsprop_polynomial_decay_cycle",
        lambda K: K.optimizers.RMSprop(
            K.optimizers.schedules.PolynomialDecay(0.01, 2, 0.001, 2.0, cycle=True)
        ),
    ),
    (
        "adagrad_inverse_time_decay_staircase",
        lambda K: K.optimizers.Adagrad(
            K.optimizers.schedules.InverseTimeDecay(0.1, 2, 0.5, staircase=True)
        ),
    ),
)
_SPARSE = (
    "sgd_by_name", "sgd_momentum", "adam_by_name", "adam_amsgrad_decay", "rmsprop_by_name",
    "rmsprop_momentum", "rmsprop_centered", "rmsprop_centered_momentum", "adagrad_by_name",
    "adadelta_by_name", "adamax_by_name", "nadam_by_name", "ftrl_l1_l2_shrinkage",
)  # fmt: skip


def _keras_optimizer_case(name: str, make: Any, model_fn: Any = None) -> Any:
    def case(tf: Any) -> dict[str, Any]:
        return _program(
            tf, lambda: make(tf.keras), "sparse_categorical_crossentropy", ["acc"], model_fn
        )

    case.__name__ = name
    return case


def _max_norm_mlp(K: Any) -> Any:
    return _mlp(K, kernel_constraint=K.constraints.MaxNorm(0.5))


def _min_max_norm_mlp(K: Any) -> Any:
    return _mlp(K, kernel_constraint=K.constraints.MinMaxNorm(0.2, 0.6, rate=0.5))


_OPTIMIZER_CASES = (
    *(_keras_optimizer_case("keras_" + name, make) for name, make in _KERAS_OPTIMIZERS),
    *(
        _keras_optimizer_case("keras_" + name + "_embedding", make, _embedding_model)
        for name, make in _KERAS_OPTIMIZERS
        if name in _SPARSE
    ),
    *(_keras_optimizer_case("keras_" + name, make) for name, make in _SCHEDULED),
    _keras_optimizer_case("keras_adam_max_norm_kernel", lambda K: "adam", _max_norm_mlp),
    _keras_optimizer_case(
        "keras_sgd_min_max_norm_kernel", lambda K: K.optimizers.SGD(0.5), _min_max_norm_mlp
    ),
)


def train_piecewise_constant_then_draw(tf: Any) -> dict[str, Any]:
    """tf.train.piecewise_constant (TF 1.15: its keras schedule, an exclusive tf.case) and
    tf.case without a default, then a seeded draw (its op seed is the op count)."""
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(2)
        stages = _Stages(graph)
        step = tf.Variable(0, dtype=tf.int64, name="step", use_resource=True)
        stages.mark("step")
        lr = tf.train.piecewise_constant(step, [2, 4], [0.1, 0.05, 0.01])
        stages.mark("piecewise_constant")
        x = tf.cast(step, tf.float32)
        picked = tf.case([(x < 3.0, lambda: x * 2.0), (x >= 3.0, lambda: x - 1.0)])
        stages.mark("case")
        after = tf.random_normal([3], name="after")
        out = stages.out
        with tf.Session(graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            values = []
            for _ in range(6):
                values.append(sess.run([lr, picked]))
                sess.run(step.assign_add(1))
            out["values"] = np.array(values, dtype=np.float32)
            out["after_all"] = sess.run(after)
    return out


def _recurrent(
    tf: Any,
    layer: str,
    return_sequences: bool = False,
    go_backwards: bool = False,
    **options: Any,
) -> dict[str, Any]:
    """A Keras RNN layer's K.rnn loop (a v1 while_loop in the layer's scope), then a seeded
    draw: its op seed is the op count after the loop; predict runs the loop."""
    K = tf.keras
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(4)
        sess = tf.Session(graph=graph)
        K.backend.set_session(sess)
        stages = _Stages(graph)
        model = K.Sequential(
            [
                getattr(K.layers, layer)(
                    4,
                    batch_input_shape=(2, 5, 3),
                    return_sequences=return_sequences,
                    go_backwards=go_backwards,
                    **options,
                )
            ]
        )
        stages.mark("build")
        after = tf.random_normal([3], name="after_rnn")
        x = np.random.RandomState(5).uniform(-1, 1, (2, 5, 3)).astype(np.float32)
        predicted = model.predict(x)
        stages.mark("predict")
        out = stages.out
        out["after_all"] = sess.run(after)
        out["predict"] = predicted
        sess.close()
    return out


def simple_rnn_last_output(tf: Any) -> dict[str, Any]:
    return _recurrent(tf, "SimpleRNN")


def simple_rnn_sequences(tf: Any) -> dict[str, Any]:
    return _recurrent(tf, "SimpleRNN", return_sequences=True)


def simple_rnn_backwards_sequences(tf: Any) -> dict[str, Any]:
    return _recurrent(tf, "SimpleRNN", return_sequences=True, go_backwards=True)


def gru_last_output(tf: Any) -> dict[str, Any]:
    return _recurrent(tf, "GRU")


def gru_backwards_sequences(tf: Any) -> dict[str, Any]:
    return _recurrent(tf, "GRU", return_sequences=True, go_backwards=True)


def lstm_last_output(tf: Any) -> dict[str, Any]:
    return _recurrent(tf, "LSTM")


def lstm_sequences(tf: Any) -> dict[str, Any]:
    return _recurrent(tf, "LSTM", return_sequences=True)


def lstm_backwards_last_output(tf: Any) -> dict[str, Any]:
    return _recurrent(tf, "LSTM", go_backwards=True)


def lstm_dropouts(tf: Any) -> dict[str, Any]:
    """Dropout masks drawn in the step K.rnn calls before the loop (v1 conds on the learning
    phase), reused by every step in the loop."""
    return _recurrent(tf, "LSTM", dropout=0.3, recurrent_dropout=0.2)


def gru_input_dropout_sequences(tf: Any) -> dict[str, Any]:
    return _recurrent(tf, "GRU", return_sequences=True, dropout=0.3)


def lstm_stateful(tf: Any) -> dict[str, Any]:
    """The states are K.zeros variables (`zeros`, `Variable`), read by the step before the
    loop and by the loop; their updates assign the final states."""
    return _recurrent(tf, "LSTM", stateful=True)


def simple_rnn_stateful_sequences(tf: Any) -> dict[str, Any]:
    return _recurrent(tf, "SimpleRNN", return_sequences=True, stateful=True)


def gru_implementation_2(tf: Any) -> dict[str, Any]:
    return _recurrent(tf, "GRU", implementation=2)


def gru_reset_after(tf: Any) -> dict[str, Any]:
    """The bias as two rows, unstacked (its read in the layer's scope, before `unstack`)."""
    return _recurrent(tf, "GRU", reset_after=True)


def _recurrent_model(
    tf: Any, make: Any, x: np.ndarray, fit: tuple[int, ...] = (), functional: bool = False
) -> dict[str, Any]:
    """Like _recurrent, for any layers around an RNN: make(K) gives a Sequential's layers,
    or with `functional` the model itself; with `fit` (the targets' shape), compile and two
    epochs of SGD too."""
    K = tf.keras
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(4)
        sess = tf.Session(graph=graph)
        K.backend.set_session(sess)
        stages = _Stages(graph)
        model = make(K) if functional else K.Sequential(make(K))
        stages.mark("build")
        after = tf.random_normal([3], name="after_rnn")
        out = stages.out
        if fit:
            model.compile(K.optimizers.SGD(0.1), "mse")
            stages.mark("compile")
            target = np.linspace(-0.5, 0.5, int(np.prod(fit))).reshape(fit).astype(np.float32)
            history = model.fit(x, target, batch_size=len(x), epochs=2, verbose=0)
            stages.mark("fit")
            out["history"] = history.history
        predicted = model.predict(x)
        stages.mark("predict")
        out["after_all"] = sess.run(after)
        out["predict"] = predicted
        sess.close()
    return out


def _padded_inputs() -> np.ndarray:
    x = np.random.RandomState(5).uniform(-1, 1, (2, 5, 3)).astype(np.float32)
    x[0, 3:] = 0.0  # masked by Masking(0.0)
    x[1, 1] = 0.0
    return x


def masking_lstm(tf: Any) -> dict[str, Any]:
    """K.rnn with a mask: a mask TensorArray, the previous output as a loop variable, each
    step's output and states chosen by tf.where on the tiled mask."""

    def make(K: Any) -> Any:
        return [K.layers.Masking(0.0, batch_input_shape=(2, 5, 3)), K.layers.LSTM(4)]

    return _recurrent_model(tf, make, _padded_inputs(), fit=(2, 4))


def masking_gru_sequences_backwards(tf: Any) -> dict[str, Any]:
    def make(K: Any) -> Any:
        return [
            K.layers.Masking(0.0, batch_input_shape=(2, 5, 3)),
            K.layers.GRU(4, return_sequences=True, go_backwards=True),
        ]

    return _recurrent_model(tf, make, _padded_inputs())


def embedding_mask_zero_simple_rnn(tf: Any) -> dict[str, Any]:
    def make(K: Any) -> Any:
        return [
            K.layers.Embedding(7, 3, mask_zero=True, batch_input_shape=(2, 5)),
            K.layers.SimpleRNN(4, return_sequences=True),
        ]

    tokens = np.array([[3, 1, 4, 0, 0], [5, 2, 6, 1, 0]], np.int32)
    return _recurrent_model(tf, make, tokens, fit=(2, 5, 4))


def lstm_return_state(tf: Any) -> dict[str, Any]:
    def make(K: Any) -> Any:
        inputs = K.layers.Input(batch_shape=(2, 5, 3))
        output, h, c = K.layers.LSTM(4, return_state=True)(inputs)
        return K.Model(inputs, [output, h, c])

    x = np.random.RandomState(5).uniform(-1, 1, (2, 5, 3)).astype(np.float32)
    return _recurrent_model(tf, make, x, functional=True)


def stacked_cells_rnn(tf: Any) -> dict[str, Any]:
    def make(K: Any) -> Any:
        cells = [K.layers.LSTMCell(4), K.layers.GRUCell(3)]
        return [K.layers.RNN(cells, batch_input_shape=(2, 5, 3))]

    x = np.random.RandomState(5).uniform(-1, 1, (2, 5, 3)).astype(np.float32)
    return _recurrent_model(tf, make, x, fit=(2, 3))


def simple_rnn_unrolled(tf: Any) -> dict[str, Any]:
    return _recurrent(tf, "SimpleRNN", return_sequences=True, unroll=True)


def lstm_unrolled(tf: Any) -> dict[str, Any]:
    return _recurrent(tf, "LSTM", unroll=True)


def lstm_implementation_2(tf: Any) -> dict[str, Any]:
    return _recurrent(tf, "LSTM", implementation=2)


def bidirectional_lstm_sequences(tf: Any) -> dict[str, Any]:
    def make(K: Any) -> Any:
        lstm = K.layers.LSTM(4, return_sequences=True)
        return [K.layers.Bidirectional(lstm, batch_input_shape=(2, 5, 3))]

    x = np.random.RandomState(5).uniform(-1, 1, (2, 5, 3)).astype(np.float32)
    return _recurrent_model(tf, make, x, fit=(2, 5, 8))


def masking_bidirectional_gru(tf: Any) -> dict[str, Any]:
    def make(K: Any) -> Any:
        return [
            K.layers.Masking(0.0, batch_input_shape=(2, 5, 3)),
            K.layers.Bidirectional(K.layers.GRU(4)),
        ]

    return _recurrent_model(tf, make, _padded_inputs())


def lstm_time_distributed_dense(tf: Any) -> dict[str, Any]:
    def make(K: Any) -> Any:
        return [
            K.layers.LSTM(4, return_sequences=True, batch_input_shape=(2, 5, 3)),
            K.layers.TimeDistributed(K.layers.Dense(2)),
        ]

    x = np.random.RandomState(5).uniform(-1, 1, (2, 5, 3)).astype(np.float32)
    return _recurrent_model(tf, make, x, fit=(2, 5, 2))


def lstm_fit(tf: Any) -> dict[str, Any]:
    def make(K: Any) -> Any:
        return [K.layers.LSTM(4, batch_input_shape=(2, 5, 3))]

    x = np.random.RandomState(5).uniform(-1, 1, (2, 5, 3)).astype(np.float32)
    return _recurrent_model(tf, make, x, fit=(2, 4))


def gru_fit(tf: Any) -> dict[str, Any]:
    """GRU's step (implementation 1: a slice of the kernel, bias and recurrent kernel per
    gate) in the loop, and the loop's gradient."""

    def make(K: Any) -> Any:
        return [K.layers.GRU(4, batch_input_shape=(2, 5, 3))]

    x = np.random.RandomState(5).uniform(-1, 1, (2, 5, 3)).astype(np.float32)
    return _recurrent_model(tf, make, x, fit=(2, 4))


def lstm_implementation_2_fit(tf: Any) -> dict[str, Any]:
    """LSTM's implementation 2 (one product for the four gates, split) and its gradient."""

    def make(K: Any) -> Any:
        return [
            K.layers.LSTM(4, implementation=2, return_sequences=True, batch_input_shape=(2, 5, 3))
        ]

    x = np.random.RandomState(5).uniform(-1, 1, (2, 5, 3)).astype(np.float32)
    return _recurrent_model(tf, make, x, fit=(2, 5, 4))


def lstm_fit_unknown_batch(tf: Any) -> dict[str, Any]:
    """An unknown batch size: the gradients of the step's broadcasting ops take their
    inputs' shapes as Shape ops (of the hard sigmoid's constants too), which TF 1.15's
    gradient loop keeps on stacks."""

    def make(K: Any) -> Any:
        return [K.layers.LSTM(4, input_shape=(5, 3))]

    x = np.random.RandomState(5).uniform(-1, 1, (2, 5, 3)).astype(np.float32)
    return _recurrent_model(tf, make, x, fit=(2, 4))


def dense_gru_fit_unknown_batch(tf: Any) -> dict[str, Any]:
    """A Dense layer before the GRU: the loop's inputs get a gradient too."""

    def make(K: Any) -> Any:
        return [K.layers.Dense(3, input_shape=(5, 3)), K.layers.GRU(4)]

    x = np.random.RandomState(5).uniform(-1, 1, (2, 5, 3)).astype(np.float32)
    return _recurrent_model(tf, make, x, fit=(2, 4))


_RECURRENT_CASES = (
    simple_rnn_last_output,
    simple_rnn_sequences,
    simple_rnn_backwards_sequences,
    gru_last_output,
    gru_backwards_sequences,
    lstm_last_output,
    lstm_sequences,
    lstm_backwards_last_output,
    lstm_dropouts,
    gru_input_dropout_sequences,
    lstm_stateful,
    simple_rnn_stateful_sequences,
    gru_implementation_2,
    gru_reset_after,
    masking_lstm,
    masking_gru_sequences_backwards,
    embedding_mask_zero_simple_rnn,
    lstm_return_state,
    stacked_cells_rnn,
    simple_rnn_unrolled,
    lstm_unrolled,
    lstm_implementation_2,
    bidirectional_lstm_sequences,
    masking_bidirectional_gru,
    lstm_time_distributed_dense,
    lstm_fit,
    gru_fit,
    lstm_implementation_2_fit,
    lstm_fit_unknown_batch,
    dense_gru_fit_unknown_batch,
)

CASES = {
    fn.__name__: fn
    for fn in (
        sgd_mse_without_metrics,
        rmsprop_sparse_crossentropy_with_accuracy,
        sgd_mse_with_two_metrics,
        dropout_after_compile,
        two_outputs_compile,
        *_OPTIMIZER_CASES,
        train_piecewise_constant_then_draw,
        *_RECURRENT_CASES,
    )
}
