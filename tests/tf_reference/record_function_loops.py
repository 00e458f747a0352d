"""Records TF 1.15's answers for function_loops_cases.py (For, SymbolicGradient, MapDefun,
RemoteCall, BatchFunction) and writes TF-built GraphDefs using those ops into
data/function_loops/ for tests/unit/test_function_loops.py. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_function_loops.py
"""

import os

import tensorflow as tf
from function_loops_cases import CASES
from function_loops_graphs import GRAPHS
from recorder import Recorder

if not tf.__version__.startswith("1."):
    raise SystemExit("record_function_loops.py records TensorFlow 1.15")

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "data", "function_loops")

rec = Recorder("function_loops")
for name, program in sorted(CASES.items()):
    with tf.Graph().as_default():
        rec.add(name, **program(tf))
os.makedirs(OUT, exist_ok=True)
for name, build in sorted(GRAPHS.items()):
    with tf.Graph().as_default() as g:
        fetches, feeds = build(tf)
        with tf.Session() as sess:
            values = sess.run(fetches, feeds)
        with open(os.path.join(OUT, name + ".pb"), "wb") as f:
            f.write(g.as_graph_def().SerializeToString())
    rec.add(
        "graph_" + name,
        fetches=[t.name for t in fetches],
        feeds={t.name: v for t, v in feeds.items()},
        values=values,
    )
rec.save()
