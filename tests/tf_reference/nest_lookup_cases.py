"""tf.nest cases written once for TF 1.15 and tfcluster: each returns repr() of its result or
the error it raises (class and message), so the test compares both exactly."""

import collections

Point = collections.namedtuple("Point", ["x", "y"])


def _outcome(fn):
    try:
        return {"value": repr(fn())}
    except Exception as e:  # the class and message are what is compared
        return {"error": type(e).__name__, "message": str(e)}


def nest_cases(tf):
    nest = tf.nest
    nested = {"b": [1, (2, 3)], "a": Point(4, {"z": 5, "y": 6}), "c": None}
    return {
        "flatten_dict_namedtuple": lambda: nest.flatten(nested),
        "flatten_scalar": lambda: nest.flatten(7),
        "flatten_string": lambda: nest.flatten("abc"),
        "flatten_none": lambda: nest.flatten(None),
        "flatten_empty": lambda: nest.flatten([(), [], {}]),
        "is_nested": lambda: [nest.is_nested(v) for v in ([], (), {}, "s", 1, Point(1, 2), None)],
        "pack_roundtrip": lambda: nest.pack_sequence_as(nested, list(range(7))),
        "pack_scalar": lambda: nest.pack_sequence_as(1, [9]),
        "pack_scalar_too_many": lambda: nest.pack_sequence_as(1, [9, 8]),
        "pack_too_few": lambda: nest.pack_sequence_as([1, (2, 3)], [9, 8]),
        "pack_too_many": lambda: nest.pack_sequence_as([1, (2, 3)], [9, 8, 7, 6]),
        "pack_flat_not_sequence": lambda: nest.pack_sequence_as([1], 5),
        "map_add": lambda: nest.map_structure(lambda a, b: a + b, [1, (2, 3)], [10, (20, 30)]),
        "map_dict": lambda: nest.map_structure(lambda v: v * 2, {"b": 1, "a": Point(2, 3)}),
        "map_no_structure": lambda: nest.map_structure(lambda: 1),
        "map_bad_kwarg": lambda: nest.map_structure(lambda v: v, [1], bad=True),
        "map_types_differ": lambda: nest.map_structure(lambda a, b: a, [1, 2], (1, 2)),
        "map_types_unchecked": lambda: nest.map_structure(
            lambda a, b: a + b, [1, 2], (3, 4), check_types=False
        ),
        "same_ok": lambda: nest.assert_same_structure([1, (2, {"k": 3})], [4, (5, {"k": 6})]),
        "same_len_differs": lambda: nest.assert_same_structure([1, 2], [1, 2, 3]),
        "same_seq_vs_scalar": lambda: nest.assert_same_structure([1, [2]], [1, 2]),
        "same_type_differs": lambda: nest.assert_same_structure([1, 2], (1, 2)),
        "same_type_unchecked": lambda: nest.assert_same_structure(
            [1, 2], (1, 2), check_types=False
        ),
        "same_namedtuple_vs_tuple": lambda: nest.assert_same_structure(Point(1, 2), (1, 2)),
        "same_keys_differ": lambda: nest.assert_same_structure({"a": 1}, {"b": 1}),
        "same_expand_composites": lambda: nest.assert_same_structure(
            [1], [2], expand_composites=True
        ),
    }


def run_nest_cases(tf):
    return {name: _outcome(fn) for name, fn in nest_cases(tf).items()}
