"""The warning TF 1.15 gives when a tf.data function's random op takes its seed from the
outer graph's seed ("Seed 3 from outer graph might be getting used by function
Dataset_map_<lambda>, ..."): which functions get it (map, filter, flat_map; a random op
without an op seed; not inside a cond's branch, not without a graph seed), how it names
them (lambdas, functions, partials, methods) and where it points (the program's line, this
file's). Written once for TF 1.15 (record_dataset_seed_warning.py) and tfcluster
(tests/unit/test_dataset_seed_warning.py); kept runnable on Python 3.7."""

import functools
import os
import warnings

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import registrar
except ImportError:
    from case_tools import registrar

CASES = {}
case = registrar(CASES, own_graph=True)


def _caught(fn, where=True):
    """The warnings fn gives, with the file they name (TF names its own dataset_ops.py for
    filter and flat_map: `where=False` leaves the file out)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    out = []
    for w in caught:
        if "from outer graph" in str(w.message):
            item = {"category": w.category.__name__, "message": str(w.message)}
            if where:
                item["file"] = os.path.basename(w.filename)
            out.append(item)
    return out


def _noisy(x):
    return x + tf_random_uniform()


def tf_random_uniform():
    return _TF[0].random_uniform([], dtype=_TF[0].int64, maxval=3)


_TF = []


def _noisy_dataset(x):
    tf = _TF[0]
    return tf.data.Dataset.from_tensors(x + tf.random_uniform([], dtype=tf.int64, maxval=2))


class _Augment:
    def add_noise(self, x):
        return _noisy(x)


@case
def seeded_graph_map_lambda(tf):
    tf.set_random_seed(3)
    data = tf.data.Dataset.range(3)
    noise = tf.random_uniform
    return {"map": _caught(lambda: data.map(lambda x: x + noise([], dtype=tf.int64, maxval=3)))}


@case
def seeded_graph_named_partial_method(tf):
    tf.set_random_seed(4)
    _TF[:] = [tf]
    data = tf.data.Dataset.range(3)
    return {
        "function": _caught(lambda: data.map(_noisy)),
        "partial": _caught(lambda: data.map(functools.partial(_noisy))),
        "method": _caught(lambda: data.map(_Augment().add_noise)),
    }


@case
def seeded_graph_filter_and_flat_map(tf):
    tf.set_random_seed(5)
    _TF[:] = [tf]
    data = tf.data.Dataset.range(3)
    return {
        "filter": _caught(lambda: data.filter(lambda x: tf.random_uniform([]) > 0.5), False),
        "flat_map": _caught(lambda: data.flat_map(_noisy_dataset), False),
    }


@case
def quiet_cases(tf):
    data = tf.data.Dataset.range(3)
    unseeded = _caught(lambda: data.map(lambda x: tf.random_uniform([])))
    tf.set_random_seed(6)
    op_seed = _caught(lambda: data.map(lambda x: tf.random_uniform([], seed=1)))
    no_random = _caught(lambda: data.map(lambda x: x * 2))
    in_branch = _caught(
        lambda: data.map(lambda x: tf.cond(x > 1, lambda: tf.random_uniform([]), lambda: 0.0))
    )
    return {
        "unseeded": unseeded,
        "op_seed": op_seed,
        "no_random": no_random,
        "in_branch": in_branch,
    }
