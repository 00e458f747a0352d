"""Records TF 1.15's costs and trained variables for rnn_dropout_training_cases.py into
data/rnn_dropout_training.json: `cd tests/tf_reference && /tmp/tf115/bin/python
record_rnn_dropout_training.py`.

Not recorded, because TF 1.15 itself does not repeat it: output dropout in dynamic_rnn
(golbin/TensorFlow-Tutorials' "10 - RNN" programs). Its RandomUniform runs once per
iteration off the loop's critical path, so the iterations' calls reserve Philox samples in
thread-pool order; the same program printed first-step costs 1.4094834 and 1.3753306 on
different runs (inter_op_parallelism_threads=4), and 1.38956 (iteration order, tfcluster's
answer) when only the cost is fetched.
"""

from __future__ import annotations

from case_tools import record
from recorder import Recorder, reference_tf
from rnn_dropout_training_cases import CASES

tf, area = reference_tf("rnn_dropout_training")
record(Recorder(area), CASES, tf)
