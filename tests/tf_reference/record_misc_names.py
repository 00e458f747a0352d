"""Records TF 1.15's answers for the programs of misc_names_cases.py (Session.partial_run,
GetSessionHandleV2, the last random / dataset / ragged / batching raw ops, tf.config
devices, PythonState, ...): tests/unit/test_misc_names.py runs the same programs on
tfcluster. Each case runs in a child process of its own (tf.config's device settings are the
process's). Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_misc_names.py [case ...]
"""

import json
import multiprocessing
import os
import sys

import tensorflow as tf
from misc_names_cases import CASES
from recorder import Recorder, encode

if not tf.__version__.startswith("1."):
    raise SystemExit("record_misc_names.py records TensorFlow 1.15")


def _record(name, queue):
    tf.reset_default_graph()
    tf.set_random_seed(1)
    queue.put({k: encode(v) for k, v in CASES[name](tf).items()})


def _run_alone(name):
    queue = multiprocessing.get_context("fork").Queue()
    child = multiprocessing.get_context("fork").Process(target=_record, args=(name, queue))
    child.start()
    values = queue.get()
    child.join()
    return values


rec = Recorder("misc_names")
wanted = sys.argv[1:] or sorted(CASES)
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "misc_names.json")
if sys.argv[1:] and os.path.exists(path):
    # Recording some cases again keeps the others' values.
    with open(path) as f:
        rec.cases.update(json.load(f)["cases"])
for name in wanted:
    rec.cases[name] = _run_alone(name)
rec.save()
