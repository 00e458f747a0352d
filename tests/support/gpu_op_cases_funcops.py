"""GPU cases of the debugging ops written over xp (CheckNumerics), added to gpu_op_cases.CASES."""

from __future__ import annotations

import numpy as np
import tfcluster as tf

from support.gpu_op_cases import Build, _case


@_case("CheckNumerics")
def _check_numerics() -> Build:
    x = tf.constant(np.linspace(-3.0, 3.0, 12, dtype=np.float32).reshape(3, 4))
    return Build(
        [tf.check_numerics(x * 2.0, "finite"), tf.check_numerics(tf.cast(x, tf.float64), "f64")]
    )
