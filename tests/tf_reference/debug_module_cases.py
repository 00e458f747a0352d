"""tensorflow.python.debug (tfdbg) as programs import it (`from tensorflow.python import debug
as tf_debug`): its public names, and has_inf_or_nan on floats, integers, complex numbers,
strings and None. Each case is `fn(tf_debug) -> dict of plain values`, run on TF 1.15 by
record_debug_module.py and on tfcluster by tests/unit/test_debug_module.py. Python 3.7 code."""

import numpy as np

CASES = {}


def public_names(tf_debug):
    return {"names": sorted(n for n in dir(tf_debug) if not n.startswith("_"))}


def has_inf_or_nan(tf_debug):
    values = {
        "finite": np.array([1.0, 2.0], np.float32),
        "nan": np.array([1.0, np.nan]),
        "inf": np.array([[-np.inf]], np.float16),
        "ints": np.array([1, 2], np.int64),
        "complex_nan": np.array([1 + 1j, complex(np.nan, 0)]),
        "strings": np.array([b"a", b"nan"]),
        "bools": np.array([True, False]),
        "scalar_inf": np.float64(np.inf) * np.ones(()),
    }
    out = {name: bool(tf_debug.has_inf_or_nan(None, v)) for name, v in sorted(values.items())}
    try:
        tf_debug.has_inf_or_nan(None, None)
        out["none"] = None
    except AttributeError:
        out["none"] = "AttributeError"
    return out


CASES["public_names"] = public_names
CASES["has_inf_or_nan"] = has_inf_or_nan
