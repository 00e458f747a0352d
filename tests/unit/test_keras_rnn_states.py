"""A Keras RNN layer's account of its states against TF 1.15's recorded answers
(tests/tf_reference/record_keras_rnn_states.py): `states` before and after the layer is
built (None per state, nested as the cell's state_size; a stateful layer's variables),
`state_spec`, `constants_spec`, `get_initial_state(inputs)`, and the cells' state_size
(an LSTMCell's a list, StackedRNNCells' nested per cell)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.keras_rnn_states_cases import CASES

AREA = "keras_rnn_states"


@pytest.mark.parametrize("name", sorted(CASES))
def test_keras_rnn_states_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)
