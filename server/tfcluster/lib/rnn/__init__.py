"""Recurrent networks built from ops: the cells of tf.nn.rnn_cell (cells.py, wrappers.py, on the
tf.layers-like base in layer_base.py) and the RNN drivers of tf.nn (rnn.py)."""
