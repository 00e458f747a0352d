"""Writes the MetaGraphs tfcluster exports for the programs of function_library_cases.py
(run with tfcluster's Python, before the recorder):

    PYTHONPATH=server python tests/tf_reference/write_function_library_samples.py

into data/function_library/tfcluster/: <case>.meta and <case>.json (what to run), and
corpus/<name>.meta for the graphs of function_library_corpus.py, and saved_model_function/.
record_function_library.py then imports them into TF 1.15 and records what TF computes.
"""

from __future__ import annotations

import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import tfcluster as tf  # noqa: E402
from function_library_cases import CASES  # noqa: E402
from function_library_corpus import CORPUS  # noqa: E402

OUT = os.path.join(HERE, "data", "function_library", "tfcluster")


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    for name, program in sorted(CASES.items()):
        with tf.Graph().as_default():
            spec = program(tf)
            tf.train.export_meta_graph(os.path.join(OUT, f"{name}.meta"))
        with open(os.path.join(OUT, f"{name}.json"), "w") as f:
            json.dump(spec, f, indent=1, sort_keys=True)
            f.write("\n")
    corpus = os.path.join(OUT, "corpus")
    os.makedirs(corpus)
    for name, build in sorted(CORPUS.items()):
        with tf.Graph().as_default():
            written = build(tf)
            target = os.path.join(corpus, f"{name}.meta")
            if written is None:
                tf.train.export_meta_graph(target)
            else:
                shutil.copyfile(written, target)
    saved_model_with_functions(os.path.join(OUT, "saved_model_function"))
    print(f"wrote {len(CASES) + len(CORPUS)} MetaGraphs and a SavedModel into {OUT}")


def saved_model_with_functions(path: str) -> None:
    """The program TF's saved_model_function is (record_function_library.py), saved by
    tfcluster: a tf.function called under a cond."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None], name="x")

        @tf.function
        def poly(v: tf.Tensor) -> tf.Tensor:
            return v * v + 1.0

        y = tf.cond(tf.reduce_sum(x) > 0.0, lambda: poly(x), lambda: -x, name="pick")
        with tf.Session() as sess:
            tf.saved_model.simple_save(sess, path, {"x": x}, {"y": y})


if __name__ == "__main__":
    main()
