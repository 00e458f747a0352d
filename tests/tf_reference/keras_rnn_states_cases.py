"""What a Keras RNN layer says about its states, as TF 1.15's does: `states` (a None per
state, nested as the cell's state_size, until a stateful layer makes its variables),
`state_spec` (an InputSpec of [None, size] per state once built), `constants_spec`,
`get_initial_state(inputs)` (zeros of [batch, size], or the cell's own), and the cells'
`state_size` (an LSTMCell's a list, StackedRNNCells' each cell's own). Written once for
TF 1.15 (record_keras_rnn_states.py) and tfcluster (tests/unit/test_keras_rnn_states.py);
kept runnable on Python 3.7."""

import numpy as np

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import registrar
except ImportError:
    from case_tools import registrar

CASES = {}
case = registrar(CASES, own_graph=True, graph_seed=3)


def _plain(value):
    """states as plain data: None, a variable's (shape, dtype), nested lists and tuples as
    {"list": ...} / {"tuple": ...}."""
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        kind = "tuple" if isinstance(value, tuple) else "list"
        return {kind: [_plain(v) for v in value]}
    return [value.shape.as_list(), value.dtype.base_dtype.name]


def _specs(specs):
    if specs is None:
        return None
    return [[list(s.shape), s.ndim] for s in specs]


def _report(tf, layer, batch=2):
    before = {"states": _plain(layer.states), "state_spec": _specs(layer.state_spec)}
    x = tf.constant(np.linspace(0, 1, batch * 3 * 5, dtype=np.float32).reshape(batch, 3, 5))
    layer(x)
    init = layer.get_initial_state(x)
    with tf.Session() as sess:
        values = [v.tolist() for v in sess.run(tf.nest.flatten(init))]
    return {
        "before": before,
        "states": _plain(layer.states),
        "state_spec": _specs(layer.state_spec),
        "constants_spec": layer.constants_spec,
        "initial_state_kind": type(init).__name__,
        "initial_state": values,
        "cell_state_size": _plain_sizes(layer.cell.state_size),
    }


def _plain_sizes(sizes):
    if isinstance(sizes, (list, tuple)):
        return {type(sizes).__name__: [_plain_sizes(s) for s in sizes]}
    return int(sizes)


@case
def lstm_states(tf):
    return _report(tf, tf.keras.layers.LSTM(4))


@case
def gru_states(tf):
    return _report(tf, tf.keras.layers.GRU(3))


@case
def simple_rnn_states(tf):
    return _report(tf, tf.keras.layers.SimpleRNN(2))


@case
def stacked_cells_states(tf):
    cells = [tf.keras.layers.LSTMCell(2), tf.keras.layers.GRUCell(3)]
    return _report(tf, tf.keras.layers.RNN(cells))


@case
def stateful_lstm_states(tf):
    return _report(tf, tf.keras.layers.LSTM(4, stateful=True))
