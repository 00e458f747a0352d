"""What a recorder script uses to write TensorFlow's values into tests/tf_reference/data/.

A recorder is run by tests/tf_reference/run.py with the Python of TensorFlow's venv:

    rec = Recorder("layers")
    rec.add("dense_relu", output=sess.run(y), names=[v.name for v in tf.global_variables()])
    rec.add("dense_bad_units", error=rec.catch(lambda: tf.layers.dense(x, -1)))
    rec.save()

A recorder that runs under both TF 1.15 and 2.x takes its `tf` and data file name from
`reference_tf`, or hands its programs to `record_programs`.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable
from typing import Any

from codec import encode

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


class Recorder:
    def __init__(self, area: str) -> None:
        self.area = area
        self.cases: dict[str, dict[str, Any]] = {}

    def add(self, case: str, **values: Any) -> None:
        if case in self.cases:
            raise ValueError(f"case {case!r} recorded twice in {self.area}")
        self.cases[case] = {k: encode(v) for k, v in values.items()}

    @staticmethod
    def catch(fn: Callable[[], Any]) -> BaseException:
        """The exception fn raises (its class name is what tests compare)."""
        try:
            fn()
        except Exception as e:
            return e
        raise AssertionError("expected an error, none was raised")

    def save(self) -> str:
        import tensorflow as tf  # only the recorders' venv has it

        os.makedirs(DATA_DIR, exist_ok=True)
        path = os.path.join(DATA_DIR, f"{self.area}.json")
        doc = {"tensorflow": tf.__version__, "cases": self.cases}
        with open(path, "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"[tf_reference] {self.area}: {len(self.cases)} cases -> {path}", file=sys.stderr)
        return path


def reference_tf(area: str) -> tuple[Any, str]:
    """(tf, area) for a recorder that runs under both: TF 1.15's tf.compat.v1 and `area`, the
    reference; under TensorFlow 2.x its tf.compat.v1 in graph mode and `<area>_tf2`, a file
    for reference only.

    TF 1.15 needs Python 3.7 (/tmp/tf115 on the project's machine; elsewhere `python3.7 -m
    venv V && V/bin/pip install tensorflow-cpu==1.15.0 "numpy<1.19"`): `cd tests/tf_reference
    && V/bin/python record_<area>.py`. run.py runs a recorder under the project's 2.x."""
    import tensorflow as real_tf  # only the recorders' venv has it

    if real_tf.__version__.startswith("1."):
        return real_tf.compat.v1, area
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    return tf, area + "_tf2"


def record_programs(
    area: str, programs: Iterable[str], run: Callable[[Any, str], dict[str, Any]]
) -> str:
    """Records run(tf, name) of every program under `reference_tf(area)`; the file's path."""
    tf, area = reference_tf(area)
    rec = Recorder(area)
    for name in programs:
        rec.add(name, **run(tf, name))
    return rec.save()
