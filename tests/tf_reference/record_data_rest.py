"""Records how TensorFlow 1.15 reads the cases of data_rest_cases.py (SqlDataset, LMDB,
statistics, iterator state in checkpoints, to_variant / from_variant, dataset raw ops without
functions): elements in order, output types / shapes / classes, error classes and the next
read after one, summaries, checkpoint keys. Run under TensorFlow 1.15 (Python 3.7, with the
`lmdb` package installed there) from this folder:

    cd tests/tf_reference && /tmp/tf115/bin/python record_data_rest.py

It writes data/data_rest.json."""

from __future__ import annotations

import tempfile

import data_cases
import data_rest_cases as cases
import tensorflow as real_tf
from recorder import Recorder
from tensorflow.core.framework import summary_pb2

assert real_tf.__version__.startswith("1."), "record under TensorFlow 1.15"
tf = real_tf.compat.v1

rec = Recorder("data_rest")
files = {"dir": tempfile.mkdtemp(prefix="tf_data_rest_")}
for case in cases.CASES:
    rec.add(case.name, order=case.order, **data_cases.run_case(tf, case, files))
for name, build, _ in cases.RUN_ERRORS:
    rec.add(f"error_{name}", **data_cases.run_error(tf, build, files))
for name, build in cases.INIT_ERRORS:
    rec.add(f"init_error_{name}", errors=cases.run_init_error(tf, build, files))
for prefix in ("", "pre"):
    rec.add(f"stats_prefix_{prefix or 'none'}", **cases.run_stats(tf, prefix, summary_pb2.Summary))
rec.add("stats_one_shot_error", error_class=cases.one_shot_with_aggregator_error(tf))
for pipeline in cases.SAVE_PIPELINES:
    for one_shot in (False, True):
        rec.add(
            f"saveable_{pipeline}_{'one_shot' if one_shot else 'initializable'}",
            **cases.run_saveable(tf, pipeline, one_shot, files["dir"]),
        )
rec.add(
    "input_pipeline_hook",
    **cases.run_input_pipeline_hook(tf, tempfile.mkdtemp(prefix="tf_data_rest_est_")),
)
rec.add("iterator_ops", **cases.run_iterator_ops(tf, files["dir"]))
rec.save()
