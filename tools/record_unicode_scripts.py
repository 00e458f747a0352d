"""Writes server/tfcluster/kernels/unicode_scripts.json: ICU's UScriptCode of every code point
as TensorFlow 1.15's tf.strings.unicode_script reports it (ICU 64, Unicode 12.1), as runs of
equal codes (start code point, code). Run once with TF 1.15's Python (3.7):

    /tmp/tf115/bin/python tools/record_unicode_scripts.py

tfcluster's UnicodeScript kernel looks code points up in it (no ICU needed at run time)."""

import json
import os

import numpy as np
import tensorflow as tf

OUT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    "..",
    "server",
    "tfcluster",
    "kernels",
    "unicode_scripts.json",
)

points = np.arange(0, 0x110000, dtype=np.int32)
with tf.Session() as sess:
    codes = sess.run(tf.strings.unicode_script(points))
starts = np.concatenate([[0], np.nonzero(np.diff(codes))[0] + 1])
doc = {
    "source": f"tensorflow {tf.__version__} tf.strings.unicode_script",
    "starts": starts.tolist(),
    "codes": codes[starts].tolist(),
}
with open(OUT, "w") as f:
    json.dump(doc, f, separators=(",", ":"))
    f.write("\n")
print(f"{len(starts)} runs -> {OUT}")
