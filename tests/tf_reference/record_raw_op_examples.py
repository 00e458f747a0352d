"""Records TensorFlow 1.15's results for every collected raw op example
(raw_op_examples.json, made by collect_raw_op_examples.py): outputs, tensor names, or the
class of the error, for `tf.raw_ops.<Op>(**kwargs)` on those inputs and attrs.

Each example runs in a forked child: some inputs make TF 1.15 abort the process (a failed
CHECK), which is recorded as such instead of ending the recording.

Run with TF 1.15 itself (Python 3.7): `cd tests/tf_reference && /tmp/tf115/bin/python
record_raw_op_examples.py`."""

from __future__ import annotations

import json
import os
import pickle

import tensorflow.compat.v1 as tf
from codec import encode
from raw_op_replay import run_example
from recorder import Recorder

tf.disable_v2_behavior()


def run_isolated(example):
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            result = {k: encode(v) for k, v in run_example(tf, example).items()}
        except BaseException as e:  # the child reports whatever happened
            result = {"error": encode(e), "stage": "build"}
        with os.fdopen(write, "wb") as f:
            pickle.dump(result, f)
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as f:
        data = f.read()
    _, status = os.waitpid(pid, 0)
    if not data:
        return {"tf_aborted": f"TF 1.15 ended the process (status {status})"}
    return pickle.loads(data)


with open("raw_op_examples.json") as f:
    examples = json.load(f)
rec = Recorder("raw_op_examples")
for example in examples:
    # Already encoded in the child: stored as they are.
    rec.cases[example["op"]] = run_isolated(example)
rec.save()
