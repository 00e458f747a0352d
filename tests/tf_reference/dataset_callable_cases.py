"""Dataset transformations given something that is not a function, for TF 1.15 (recorded by
record_dataset_callable_errors.py) and tfcluster (tests/unit/test_dataset_callable_errors.py):
the error's class and message. Python 3.7 code."""

CASES = {
    "map": lambda tf, ds: ds.map(3),
    "map_keyword": lambda tf, ds: ds.map(map_func=[1]),
    "filter": lambda tf, ds: ds.filter(None),
    "flat_map": lambda tf, ds: ds.flat_map("x"),
    "interleave": lambda tf, ds: ds.interleave(5, cycle_length=1),
    "reduce": lambda tf, ds: ds.reduce(0, 7),
    "apply": lambda tf, ds: ds.apply(3),
    "from_generator": lambda tf, ds: tf.data.Dataset.from_generator(3, tf.int64),
}


def run_cases(tf):
    out = {}
    for name, make in sorted(CASES.items()):
        with tf.Graph().as_default():
            try:
                make(tf, tf.data.Dataset.range(3))
                out[name] = ["no error", ""]
            except Exception as e:
                out[name] = [type(e).__name__, str(e)]
    return out
