"""Program scaffolding as TensorFlow has it (the scenarios of scaffolding_cases.py): tf.compat
conversions, tf.logging's levels, tf.gfile's results and error classes on a temporary tree,
tf.test's assertions and gradient checker, and small programs run in their own process (flags
parsed from sys.argv, tf.app.run, tf.logging's output).

TensorFlow 2.x's tf.compat.v1 differs from 1.15 in two places the tests take care of:
tf.gfile.Glob of a missing directory (1.15 may raise NotFoundError; 2.x returns []) and
assertProtoEquals on a mismatch (2.x raises AttributeError from its own comparison code).
"""

from __future__ import annotations

import scaffolding_cases as cases
import tensorflow.compat.v1 as tf
from recorder import Recorder

tf.disable_v2_behavior()
rec = Recorder("scaffolding")

for scenario in (
    cases.compat_cases,
    cases.logging_cases,
    cases.gfile_cases,
    cases.assertion_cases,
    cases.gradient_cases,
    cases.device_cases,
):
    for case, values in scenario(tf).items():
        rec.add(case, **values)

for case, (program, args) in cases.PROGRAM_CASES.items():
    rec.add(f"program_{case}", **cases.run_program(cases.TF_IMPORT, program, args))

rec.save()
