"""Values print as they print under TensorFlow 1.15.

TF 1.15 runs on numpy 1.x, where repr() of a numpy scalar is its bare value: a program's
`print(sess.run([loss, acc]))` shows `[0.25, 0.9]`. tfcluster may run on numpy 2, which shows
`[np.float32(0.25), np.float32(0.9)]`; numpy's own legacy print mode "1.25" keeps 1.x's
scalar reprs (and nothing else of numpy 2 changes). A program that chose a print mode keeps it.
"""

from __future__ import annotations

import numpy as np


def install() -> None:
    """Turns on numpy's 1.x scalar reprs under numpy 2, unless a legacy mode is set already."""
    if int(np.__version__.split(".")[0]) < 2:
        return
    if np.get_printoptions().get("legacy", False) is False:
        np.set_printoptions(legacy="1.25")
