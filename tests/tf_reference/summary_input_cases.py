"""Summary ops given Python and numpy values, as TF 1.15's op wrappers convert them: in the
summary's scope and the op's input order (`<name>/tags`, `<name>/values`, `<name>/tag`,
`<name>/tensor` constants), to the type attr's default where it has one (HistogramSummary and
ImageSummary: float32, so a numpy uint8 image is scaled like a float one) and to float32 for
the audio clips. Each case is `fn(tf) -> dict of plain values`, run on TF 1.15 by
record_summary_inputs.py and on tfcluster by tests/unit/test_summary_inputs_as_tf.py.
Python 3.7 code."""

from __future__ import annotations

import numpy as np

CASES = {}


def _summaries(tf):
    gray = (np.arange(48).reshape(1, 6, 8, 1) * 4 + 20).astype(np.uint8)
    return {
        "scalar_numpy_float64": tf.summary.scalar("s", np.float64(1.5)),
        "scalar_python_int": tf.summary.scalar("s", 3),
        "histogram_numpy_int64": tf.summary.histogram("h", np.arange(5)),
        "histogram_python_list": tf.summary.histogram("h", [1, 2, 2]),
        "histogram_numpy_float64": tf.summary.histogram("h", np.linspace(0, 1, 7)),
        "image_numpy_uint8": tf.summary.image("g", gray),
        "image_python_list": tf.summary.image("g", [[[[1], [2]], [[3], [250]]]]),
        "audio_numpy_float64": tf.summary.audio("a", np.linspace(-1, 1, 10)[None], 100),
    }


def summary_inputs(tf):
    """Each summary op's input names and dtypes, and the Summary it makes."""
    tf.reset_default_graph()
    summaries = _summaries(tf)
    graph = {
        name: [[t.op.name, t.dtype.name] for t in s.op.inputs] + [[s.op.name, s.op.type]]
        for name, s in summaries.items()
    }
    with tf.Session() as sess:
        values = sess.run(summaries)
    made = {name: tf.Summary.FromString(v) for name, v in values.items()}
    out = {}
    for name in sorted(summaries):
        fields = []
        for v in made[name].value:
            kind = v.WhichOneof("value")
            field = getattr(v, kind)
            value = repr(field) if kind == "simple_value" else field.SerializeToString().hex()
            fields.append([v.tag, kind, value])
        out[name] = {"inputs": graph[name], "summary": fields}
    return out


CASES["summary_inputs"] = summary_inputs
