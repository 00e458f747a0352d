"""Records TF 1.15's answers for the programs of quantaudio_cases.py (audio feature ops, block
RNN cells, quantized ops): tests/unit/test_quantaudio_ops.py runs the same programs on
tfcluster. Run under TF 1.15 itself:

    cd tests/tf_reference && /tmp/tf115/bin/python record_quantaudio.py
"""

import tensorflow as tf

# TF 1.15 registers the gradients of LSTMBlockCell and GRUBlockCell in tf.contrib.rnn (core has
# those of BlockLSTM / BlockLSTMV2 only); tfcluster registers them always.
import tensorflow.contrib.rnn
from quantaudio_cases import CASES
from recorder import Recorder

if not tf.__version__.startswith("1."):
    raise SystemExit("record_quantaudio.py records TensorFlow 1.15")

rec = Recorder("quantaudio")
for name, program in sorted(CASES.items()):
    tf.reset_default_graph()
    tf.set_random_seed(1)
    rec.add(name, **program(tf))
rec.save()
