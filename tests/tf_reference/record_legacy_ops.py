"""Records TF 1.15's answers for TF's older raw op types: the programs of legacy_ops_cases.py
(tests/unit/test_legacy_ops.py runs them on tfcluster), a GraphDef TF 1.15 wrote with
tf.matmul of rank-3 tensors (BatchMatMulV2) and its gradient, and GraphDefs holding the ops TF
1.15 no longer builds (TopK, Conv3DBackpropInput, the Batch* linalg names...) as an old
producer wrote them, with what TF computes from them (and its error under producer 134).
Run under TF 1.15 itself:

    cd tests/tf_reference && /tmp/tf115/bin/python record_legacy_ops.py
"""

import tempfile

import numpy as np
import tensorflow as tf
from legacy_ops_cases import CASES, v1_checkpoint_save_and_restore
from recorder import Recorder
from tensorflow.core.protobuf import saver_pb2

if not tf.__version__.startswith("1."):
    raise SystemExit("record_legacy_ops.py records TensorFlow 1.15")

rec = Recorder("legacy_ops")
for name, program in sorted(CASES.items()):
    tf.reset_default_graph()
    rec.add(name, **program(tf))

with tempfile.TemporaryDirectory() as tmp:
    tf.reset_default_graph()
    rec.add("v1_checkpoint_save_and_restore", **v1_checkpoint_save_and_restore(tf, tmp))


# ---- a V1 checkpoint written by TF 1.15's Saver (write_version=V1), partitioned variable ---
def _saver_v1(directory):
    rng = np.random.RandomState(4)
    g = tf.Graph()
    with g.as_default():
        w = tf.get_variable(
            "w",
            shape=[6, 3],
            initializer=tf.random_normal_initializer(seed=1),
            partitioner=tf.fixed_size_partitioner(2),
        )
        b = tf.Variable(rng.randn(3).astype(np.float64), name="scope/b")
        step = tf.Variable(42, dtype=tf.int64, name="global_step")
        saver = tf.train.Saver(write_version=saver_pb2.SaverDef.V1)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, directory + "/model.ckpt")
            values = sess.run([tf.convert_to_tensor(w), b, step])
    with open(path, "rb") as f:
        content = f.read()
    return {"file": content, "values": values}


with tempfile.TemporaryDirectory() as tmp:
    rec.add("v1_checkpoint_from_tf_saver", **_saver_v1(tmp))


# ---- a GraphDef with BatchMatMulV2, written by TF 1.15 ---------------------------------------
def _matmul_graph():
    rng = np.random.RandomState(3)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3, 4], name="x")
        y = tf.placeholder(tf.float32, [4, 2], name="y")
        w = tf.constant(rng.randn(2, 1, 2, 5).astype(np.float32), name="w")
        z = tf.matmul(tf.matmul(x, y), w, name="z")
        loss = tf.reduce_sum(z * z, name="loss")
        gx, gy = tf.gradients(loss, [x, y])
        tf.identity(gx, name="grad_x")
        tf.identity(gy, name="grad_y")
    feeds = {
        "x": rng.randn(3, 3, 4).astype(np.float32),
        "y": rng.randn(4, 2).astype(np.float32),
    }
    fetches = ["z:0", "loss:0", "grad_x:0", "grad_y:0"]
    with tf.Session(graph=g) as sess:
        values = sess.run(fetches, {k + ":0": v for k, v in feeds.items()})
    gd = g.as_graph_def()
    rec.add(
        "batch_matmul_v2_graph_def",
        graph_def=gd.SerializeToString(),
        op_types=sorted({n.op for n in gd.node}),
        feeds=feeds,
        fetches=fetches,
        values=values,
    )


_matmul_graph()


# ---- GraphDefs of ops TF 1.15 no longer builds ------------------------------------------------
RNG = np.random.RandomState(8)
SPD = RNG.randn(2, 3, 3)
SPD = SPD @ SPD.transpose(0, 2, 1) + 3 * np.eye(3)
LOWER = np.tril(RNG.randn(2, 3, 3)) + 4 * np.eye(3)
F = RNG.randn(2, 3, 4).astype(np.float32)
V3 = RNG.randn(1, 3, 3, 3, 2).astype(np.float32)
K3 = RNG.randn(2, 2, 2, 2, 3).astype(np.float32)
G3 = RNG.randn(1, 3, 3, 3, 3).astype(np.float32)
IMG = RNG.randn(2, 2, 3, 3).astype(np.float32)
VEC3 = [
    np.array(v, np.float32) for v in ([0.5, -1, 2], [1.5, 0.5, 2.0], [0.1, 0.2, 0.3], [1, 2, 3])
]

# op type -> (inputs, attrs); attr values: bool, int, float, str, list of ints, or a dtype.
OLD_OPS = {
    "TopK": ([F], {"k": 2, "sorted": True, "T": tf.float32}),
    "TileGrad": (
        [RNG.randn(2, 6).astype(np.float32), np.array([1, 3], np.int32)],
        {"T": tf.float32},
    ),
    "Conv3DBackpropInput": (
        [V3, K3, G3],
        {"T": tf.float32, "strides": [1, 1, 1, 1, 1], "padding": "SAME"},
    ),
    "Conv3DBackpropFilter": (
        [V3, K3, G3],
        {"T": tf.float32, "strides": [1, 1, 1, 1, 1], "padding": "SAME"},
    ),
    "BatchMatrixDiag": ([F], {"T": tf.float32}),
    "BatchMatrixDiagPart": ([F], {"T": tf.float32}),
    "BatchMatrixSetDiag": ([F, F[:, :, 0]], {"T": tf.float32}),
    "BatchMatrixBandPart": ([F, np.array(1, np.int64), np.array(0, np.int64)], {"T": tf.float32}),
    "BatchMatrixDeterminant": ([SPD], {"T": tf.float64}),
    "BatchMatrixInverse": ([SPD], {"T": tf.float64, "adjoint": False}),
    "BatchMatrixSolve": ([SPD, LOWER], {"T": tf.float64, "adjoint": True}),
    "BatchMatrixTriangularSolve": (
        [LOWER, SPD],
        {"T": tf.float64, "lower": True, "adjoint": False},
    ),
    "BatchMatrixSolveLs": ([SPD, LOWER, np.array(0.1)], {"T": tf.float64, "fast": True}),
    "BatchCholesky": ([SPD], {"T": tf.float64}),
    "BatchCholeskyGrad": ([np.linalg.cholesky(SPD), LOWER], {"T": tf.float64}),
    "BatchSelfAdjointEigV2": ([SPD], {"T": tf.float64, "compute_v": False}),
    "BatchSvd": ([SPD], {"T": tf.float64, "compute_uv": False, "full_matrices": False}),
    "BatchFFT": ([np.ones([2, 4], np.complex64)], {}),
    "BatchIFFT2D": ([np.ones([2, 4], np.complex64)], {}),
    "AdjustContrast": (
        [IMG, np.array(1.7, np.float32), np.array(-1.0, np.float32), np.array(0.8, np.float32)],
        {"T": tf.float32},
    ),
    "BatchNormWithGlobalNormalization": (
        [IMG, *VEC3[:3], VEC3[3]],
        {"T": tf.float32, "variance_epsilon": 0.001, "scale_after_normalization": True},
    ),
    "BatchNormWithGlobalNormalizationGrad": (
        [IMG, VEC3[0], VEC3[1], VEC3[3], IMG * 2],
        {"T": tf.float32, "variance_epsilon": 0.001, "scale_after_normalization": False},
    ),
}
# Without vectors, TF 1.15 leaves the vector outputs as empty scalars: only values compared.
NUM_OUTPUTS = {"TopK": 2}
NUM_OUTPUTS["BatchNormWithGlobalNormalizationGrad"] = 5


def _set_attr(node, key, value):
    a = node.attr[key]
    if isinstance(value, tf.DType):
        a.type = value.as_datatype_enum
    elif isinstance(value, bool):
        a.b = value
    elif isinstance(value, int):
        a.i = value
    elif isinstance(value, float):
        a.f = value
    elif isinstance(value, str):
        a.s = value.encode()
    else:
        a.list.i.extend(value)


def old_graph_def(op_type, producer):
    inputs, attrs = OLD_OPS[op_type]
    g = tf.Graph()
    with g.as_default():
        for i, v in enumerate(inputs):
            tf.constant(v, name=f"in{i}")
    gd = g.as_graph_def()
    node = gd.node.add()
    node.name = "old"
    node.op = op_type
    node.input.extend(f"in{i}" for i in range(len(inputs)))
    for k, v in attrs.items():
        _set_attr(node, k, v)
    gd.versions.producer = producer
    return gd


def _run_old(gd, n):
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(gd, name="")
        with tf.Session() as sess:
            return sess.run([f"old:{i}" for i in range(n)])


for op_type in sorted(OLD_OPS):
    n = NUM_OUTPUTS.get(op_type, 1)
    old = old_graph_def(op_type, 1)
    current = old_graph_def(op_type, 134)
    try:
        result = _run_old(old, n)
    except Exception as e:
        result = e
    rec.add(
        "old_graph_" + op_type,
        graph_def=old.SerializeToString(),
        current_graph_def=current.SerializeToString(),
        outputs=n,
        values=result,
        at_current_version=rec.catch(lambda current=current, n=n: _run_old(current, n)),
    )

rec.save()
