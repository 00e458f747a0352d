"""Programs from public TF1 tutorials (Hvass-Labs, hwalsuklee, ageron's handson-ml, Stanford's
CS20), reduced to the behaviour that differed on tfcluster. Each case is `fn(tf) -> dict of
plain values`, run on TF 1.15 by record_tutorial_programs.py and on tfcluster by
tests/unit/test_tutorial_programs.py. Python 3.7 code."""

from __future__ import annotations

import warnings

import numpy as np

try:
    from tf_reference.case_tools import error
except ImportError:  # run by the recorder from tests/tf_reference
    from case_tools import error


def fetched_scalar_comparisons(tf):
    """hwalsuklee's VAE keeps `min_tot_loss = 1e99` and tests `min_tot_loss > tot_loss` on a
    fetched float32 loss: under TF 1.15 (numpy 1.x) the comparison is made in float64, without
    numpy 2's overflow warning; `c == 0.1` is False there."""
    tf.reset_default_graph()
    loss = tf.constant(0.1, tf.float32)
    half = tf.constant(0.1, tf.float16)
    with tf.Session() as sess:
        c, h = sess.run([loss, half])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exprs = {
            "big_gt": 1e99 > c,  # noqa: SIM300 - the reflected form is the case
            "big_lt": c < 1e99,
            "eq_float": c == 0.1,
            "ne_float": c != 0.1,
            "req_float": 0.1 == c,  # noqa: SIM300
            "le_float": c <= 0.1,
            "ge_float": c >= 0.1,
            "gt_float": c > 0.1,
            "eq_int": c == 0,
            "lt_int": c < 1,
            "half_eq": h == 0.1,
            "half_gt_big": h > 1e10,
            "eq_float32": c == tf.float32.as_numpy_dtype(0.1),
            "eq_bool": c == True,  # noqa: E712 - the comparison itself is the case
        }
    return {
        "values": {k: [isinstance(v, np.bool_), bool(v)] for k, v in sorted(exprs.items())},
        "warnings": sorted(str(w.category.__name__) for w in caught),
        "hash_equal": hash(c) == hash(float(c)),
        "in_set": c in {float(c)},
    }


def unfed_placeholder_messages(tf):
    """hwalsuklee's GANs fail with `You must feed a value for placeholder tensor 'real_images'
    with dtype float and shape [64,28,28,1]`: TF names the dtype as its C++ runtime does."""
    tf.reset_default_graph()
    ph = {
        "float_known": tf.placeholder(tf.float32, [64, 28, 28, 1], name="real_images"),
        "float_partial": tf.placeholder(tf.float32, [None, 784], name="x"),
        "float_unknown": tf.placeholder(tf.float32, name="u"),
        "double": tf.placeholder(tf.float64, [2], name="d"),
        "half": tf.placeholder(tf.float16, [], name="h"),
        "int32": tf.placeholder(tf.int32, [None], name="i"),
        "int64": tf.placeholder(tf.int64, [3], name="l"),
        "string": tf.placeholder(tf.string, [1], name="s"),
        "bool": tf.placeholder(tf.bool, name="b"),
        "uint8": tf.placeholder(tf.uint8, [2, 2], name="u8"),
    }
    out = {}
    with tf.Session() as sess:
        for key, p in sorted(ph.items()):
            out[key] = error(lambda p=p: sess.run(tf.identity(p)))
    return out


def string_concatenation(tf):
    """Learning TensorFlow's hello_world adds two string constants (`h + w`): TF's Add
    concatenates strings, broadcasting a scalar over a vector."""
    tf.reset_default_graph()
    h = tf.constant("Hello")
    w = tf.constant(" World!")
    names = tf.constant(["a", "bc"])
    with tf.Session() as sess:
        scalar, vector, added, both = sess.run([h + w, names + w, tf.add(h, names), names + names])
    return {
        "scalar": [type(scalar).__name__, scalar.decode()],
        "vector": [v.decode() for v in vector],
        "added": [v.decode() for v in added],
        "both": [v.decode() for v in both],
        "dtype": str(vector.dtype),
    }


def _itemset_results():
    a = np.zeros((2, 3), np.int64)
    a.itemset(4, 7)
    a.itemset((0, 1), 5)
    a.itemset(1, 2, 9)
    one = np.zeros(1)
    one.itemset(2.5)
    return {"matrix": a.tolist(), "one": one.tolist()}


def numpy1_names(tf):
    """TF1 programs written against numpy 1.x use its names numpy 1.24/2.0 removed
    (`dtype=np.float`, `np.zeros(n, np.int)`, `np.infty`, `np.asscalar`): under tfcluster
    (`import tfcluster` first) they mean what they meant beside TF 1.15."""
    tf.reset_default_graph()
    x = tf.placeholder(np.float, [None, 2])
    y = tf.reduce_sum(x)
    with tf.Session() as sess:
        total = sess.run(y, {x: np.ones((3, 2), dtype=np.float_)})
    arrays = {
        "zeros_int": np.zeros(2, np.int),
        "zeros_float": np.zeros(2, dtype=np.float),
        "asarray_complex": np.asarray([1, 2], np.complex),
        "asarray_bool": np.asarray([0, 1], np.bool),
        "asarray_object": np.asarray([1, "a"], np.object),
        "asarray_str": np.asarray([1, 2], np.str),
        "asarray_unicode": np.asarray([1, 2], np.unicode),
        "float_": np.float_(1) / 3,
        "complex_": np.asarray([1], np.complex_),
        "string_": np.asarray(["ab"], np.string_),
        "unicode_": np.asarray(["ab"], np.unicode_),
        "bool8": np.asarray([1], np.bool8),
        "int0": np.asarray([1], np.int0),
        "product": np.product([2, 3, 4]),
        "cumproduct": np.cumproduct([2, 3, 4]),
        "sometrue": np.sometrue([0, 1]),
        "alltrue": np.alltrue([0, 1]),
        "round_": np.round_([1.26, 2.5], 1),
        "msort": np.msort(np.array([[3, 1], [1, 2]])),
        "asfarray_int": np.asfarray([1, 2]),
        "asfarray_float32": np.asfarray([1, 2], np.float32),
        "asfarray_to_float": np.asfarray([1, 2], np.int32),
        "alen": np.alen(np.zeros((3, 2))),
        "alen_scalar": np.alen(5),
        "in1d": np.in1d(np.array([[1, 2], [3, 4]]), [2, 3]),
        "in1d_invert": np.in1d([1, 2, 3], [2], invert=True),
        "trapz": np.trapz([1.0, 2.0, 4.0], dx=0.5),
        "ptp": np.array([[1, 5], [2, 9]]).ptp(axis=0),
        "ptp_all": np.array([[1, 5], [2, 9]]).ptp(),
    }
    return {
        "session": [str(total), type(total).__name__],
        "arrays": {
            k: [np.asarray(v).dtype.str, repr(np.asarray(v).tolist())]
            for k, v in sorted(arrays.items())
        },
        "constants": [
            repr(float(v))
            for v in (np.infty, np.Inf, np.Infinity, np.PINF, np.NINF, np.PZERO, np.NZERO)
        ],
        "nans": [bool(np.isnan(v)) for v in (np.NaN, np.NAN)],
        "asscalar": [repr(np.asscalar(np.array([3]))), repr(np.asscalar(np.float32(1.5)))],
        "builtins": [np.int is int, np.float is float, np.object is object, np.str is str],
        "issubclass_": [np.issubclass_(np.float32, np.floating), np.issubclass_(1, int)],
        "itemset": _itemset_results(),
    }


def numpy1_byte_strings(tf):
    """TFRecord tutorials put an image's bytes into a tf.train.Example with numpy 1.x's
    `ndarray.tostring()` and read fetched bytes back with `np.fromstring` (both removed by
    numpy 2): under tfcluster they give the bytes and arrays they gave beside TF 1.15."""
    tf.reset_default_graph()
    image = np.arange(24, dtype=np.uint8).reshape(2, 4, 3)
    weights = np.linspace(-1.0, 1.0, 6).astype(np.float32).reshape(2, 3)
    example = tf.train.Example(
        features=tf.train.Features(
            feature={
                "image_raw": tf.train.Feature(
                    bytes_list=tf.train.BytesList(value=[image.tostring()])
                ),
                "weights_raw": tf.train.Feature(
                    bytes_list=tf.train.BytesList(value=[weights.T.tostring()])
                ),
            }
        )
    )
    serialized = tf.placeholder(tf.string, [])
    parsed = tf.parse_single_example(
        serialized,
        {
            "image_raw": tf.FixedLenFeature([], tf.string),
            "weights_raw": tf.FixedLenFeature([], tf.string),
        },
    )
    decoded = tf.reshape(tf.decode_raw(parsed["image_raw"], tf.uint8), [2, 4, 3])
    with tf.Session() as sess:
        pixels, raw_weights = sess.run(
            [decoded, parsed["weights_raw"]], {serialized: example.SerializeToString()}
        )
    from_bytes = np.fromstring(raw_weights, dtype=np.float32)
    from_bytes[0] = 7.0  # numpy 1.x's fromstring gave a new, writable array
    return {
        "pixels": pixels.tolist(),
        "weights_from_bytes": from_bytes.tolist(),
        "scalar_bytes": list(np.float32(1.5).tostring()),
        "fortran_bytes": list(image[0].tostring("F")[:6]),
        "text": np.fromstring("1 2 3", dtype=np.int64, sep=" ").tolist(),
    }


def python37_names(tf):
    """TF1 programs were written for Python 3.5-3.7: they time loops with `time.clock()`, test
    `isinstance(x, collections.Iterable)`, read a model function's arguments with
    `inspect.getargspec`, poll `thread.isAlive()`; under tfcluster these mean what they meant
    beside TF 1.15."""
    import base64
    import collections
    import fractions
    import inspect
    import threading
    import time

    def model_fn(features, labels, mode, params=None, *extra, **config):
        return features

    def annotated(x: int) -> int:
        return x

    tf.reset_default_graph()
    start = time.clock()
    with tf.Session() as sess:
        total = sess.run(tf.reduce_sum(tf.range(10)))
    elapsed = time.clock() - start
    thread = threading.Thread(target=lambda: None)
    alive_before = thread.isAlive()
    thread.start()
    thread.join()
    spec = inspect.getargspec(model_fn)
    return {
        "total": int(total),
        "clock": [type(start).__name__, elapsed >= 0],
        "abcs": [
            isinstance([1], collections.Iterable),
            isinstance({}, collections.Mapping),
            isinstance((1,), collections.Sequence),
            isinstance(len, collections.Callable),
            isinstance({}, collections.MutableMapping),
            collections.Iterable is __import__("collections.abc").abc.Iterable,
        ],
        "getargspec": [
            type(spec).__name__,
            list(spec._fields),
            spec.args,
            spec.varargs,
            spec.keywords,
            list(spec.defaults),
        ],
        "getargspec_annotated": error(lambda: inspect.getargspec(annotated)),
        "is_alive": [alive_before, thread.isAlive()],
        "base64": [
            base64.encodestring(b"tfcluster" * 10).decode(),
            base64.decodestring(b"dGY=\n").decode(),
        ],
        "gcd": [
            fractions.gcd(12, 18),
            fractions.gcd(-12, 18),
            fractions.gcd(12, -18),
            fractions.gcd(0, -5),
            repr(fractions.gcd(7.5, 2.5)),
        ],
    }


def runtime_error_messages(tf):
    """Programs print a failed step's error: TF's client expands the runtime's `{{node x}}`
    to `node x (defined at <file>:<line>) `, hands the op to the error (e.op, e.node_def) and
    ends str(e) with the op's creation stack. Where the op was defined differs between the
    two (TF 1.15's pip build names its own ops.py for every op), so it is masked here."""
    import re

    def shape_of(fn):
        try:
            fn()
        except tf.errors.OpError as e:
            masked = re.sub(r"\(defined at [^)]*\)", "(defined at F)", e.message)
            head = f"{e.message}\n\nOriginal stack trace for {e.op.name!r}:\n"
            return {
                "error": type(e).__name__,
                "message": masked,
                "op": e.op.name,
                "node_def": e.node_def.name,
                "str_starts_with_stack": str(e).startswith(head),
            }
        return None

    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, None, name="x")
    y = tf.reshape(x, [2, 2], name="r")
    v = tf.Variable(1.0, name="v")
    with tf.Session() as sess:
        out = {
            "unfed": shape_of(lambda: sess.run(y)),
            "reshape": shape_of(lambda: sess.run(y, {x: [[1.0, 2.0, 3.0]]})),
            "uninitialized": shape_of(lambda: sess.run(v + 1.0)),
        }
    return out


CASES = {
    "fetched_scalar_comparisons": fetched_scalar_comparisons,
    "unfed_placeholder_messages": unfed_placeholder_messages,
    "string_concatenation": string_concatenation,
    "numpy1_names": numpy1_names,
    "numpy1_byte_strings": numpy1_byte_strings,
    "python37_names": python37_names,
    "runtime_error_messages": runtime_error_messages,
}
