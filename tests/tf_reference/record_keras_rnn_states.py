"""Records TensorFlow 1.15's answers to the programs of keras_rnn_states_cases.py (a Keras
RNN layer's states, state_spec, constants_spec, get_initial_state and its cell's
state_size): data/keras_rnn_states.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_keras_rnn_states.py
"""

from __future__ import annotations

from case_tools import record_tf115
from keras_rnn_states_cases import CASES

record_tf115("keras_rnn_states", CASES)
