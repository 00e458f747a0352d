"""Records TensorFlow's answers to the programs of supervisor_cases.py (Supervisor, Scaffold,
session creators, MonitoredSession, hooks, ProfilerHook timelines, summary_iterator).

Run under TensorFlow 1.15 (the reference tfcluster follows; Python 3.7:
`python3.7 -m venv V && V/bin/pip install tensorflow-cpu==1.15.0 "numpy<1.19"`), it writes
data/supervisor.json:

    V/bin/python tests/tf_reference/record_supervisor.py

Run by run.py under the project's TensorFlow 2.x (tf.compat.v1), it writes
data/supervisor_tf2.json; tests compare with the 1.15 file and, except where 2.x behaves
differently from 1.15 (listed in the test), with the 2.x file too.
"""

from __future__ import annotations

import json
import sys
import traceback

import tensorflow as real_tf
from recorder import Recorder
from supervisor_cases import CASES

if real_tf.__version__.startswith("1."):
    tf = real_tf.compat.v1
    area = "supervisor"
else:
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    area = "supervisor_tf2"

rec = Recorder(area)
wanted = sys.argv[1:]
for name, fn in sorted(CASES.items()):
    if wanted and name not in wanted:
        continue
    try:
        result = fn(tf)
    except Exception as e:
        traceback.print_exc()
        rec.add(name, skipped=f"{type(e).__name__}: {e}")
        continue
    rec.add(name, **result)
if not wanted:
    rec.save()
else:
    import json

    print(json.dumps({k: v for k, v in rec.cases.items()}, indent=1, sort_keys=True, default=str))
