"""Cases of the math ops (segments, scatters, partition/stitch, ordering, counting, special
functions, element-wise extras), run on TensorFlow by record_mathops.py and on tfcluster by
tests/unit/test_tf_reference_mathops.py."""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    from casebook import Book, values
except ImportError:  # imported as tf_reference.cases_mathops by the tests
    from tf_reference.casebook import Book, values

BOOK = Book()
add = BOOK.add

F32 = np.float32
F64 = np.float64
DATA = values((5, 3), -2, 2, seed=1)
IDS = np.array([0, 0, 1, 3, 3], np.int32)
UIDS = np.array([2, -1, 0, 2, 3], np.int32)


# ---- segments ---------------------------------------------------------------------------------
for _kind in ("sum", "mean", "max", "min", "prod"):
    # TF 1.15 has no SegmentProd gradient (2.x has): its LookupError is checked by
    # cases_gradient_values.py, recorded under 1.15; here the values only.
    @add(
        f"segment_{_kind}",
        {"x": DATA, "ids": IDS},
        grad=None if _kind == "prod" else ("y", ("x",)),
        notes="TF 1.15: no gradient" if _kind == "prod" else "",
    )
    def _segment(tf: Any, t: dict[str, Any], kind: str = _kind) -> dict[str, Any]:
        return {"y": getattr(tf.math, f"segment_{kind}")(t["x"], t["ids"])}


for _kind in ("sum", "max", "min", "prod", "mean", "sqrt_n"):

    @add(f"unsorted_segment_{_kind}", {"x": DATA, "ids": UIDS}, grad=("y", ("x",)))
    def _unsorted(tf: Any, t: dict[str, Any], kind: str = _kind) -> dict[str, Any]:
        return {"y": getattr(tf.math, f"unsorted_segment_{kind}")(t["x"], t["ids"], 5)}


@add(
    "unsorted_segment_sum_2d_ids",
    {"x": values((2, 3, 2), seed=2), "ids": [[0, 1, 0], [2, 2, 1]]},
    grad=("y", ("x",)),
)
def _unsorted_2d(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.unsorted_segment_sum(t["x"], t["ids"], 3)}


@add(
    "unsorted_segment_max_int_empty_segment",
    {"x": np.array([[1, 5], [7, -2]], np.int32), "ids": np.array([0, 0], np.int32)},
)
def _unsorted_int(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "max": tf.unsorted_segment_max(t["x"], t["ids"], 2),
        "min": tf.unsorted_segment_min(t["x"], t["ids"], 2),
        "prod": tf.unsorted_segment_prod(t["x"], t["ids"], 2),
    }


@add(
    "segment_mean_int_truncates",
    {"x": np.array([-1, -2, 4, 5], np.int32), "ids": np.array([0, 0, 2, 2], np.int32)},
)
def _segment_mean_int(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.segment_mean(t["x"], t["ids"])}


@add(
    "segment_prod_with_zeros",
    {"x": np.array([[2.0, 0.0], [3.0, 0.0], [0.0, 4.0]]), "ids": np.array([0, 0, 0], np.int32)},
    grad=("y", ("x",)),
)
def _segment_prod_zeros(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.unsorted_segment_prod(t["x"], t["ids"], 1)}


for _kind in ("sum", "mean", "sqrt_n"):

    @add(
        f"sparse_segment_{_kind}",
        {
            "x": DATA,
            "idx": np.array([4, 0, 1, 1], np.int32),
            "ids": np.array([0, 0, 2, 2], np.int32),
        },
        grad=("y", ("x",)),
    )
    def _sparse(tf: Any, t: dict[str, Any], kind: str = _kind) -> dict[str, Any]:
        fn = getattr(tf, f"sparse_segment_{kind}")
        return {
            "y": fn(t["x"], t["idx"], t["ids"]),
            "with_num": fn(t["x"], t["idx"], t["ids"], num_segments=4),
        }


@add("segment_sum_unsorted_ids_fails", {"x": DATA, "ids": np.array([1, 0, 0, 2, 2], np.int32)})
def _segment_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.segment_sum(t["x"], t["ids"])}


@add("unsorted_segment_id_out_of_range_fails", {"x": DATA, "ids": UIDS})
def _unsorted_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.unsorted_segment_sum(t["x"], t["ids"], 3)}


@add(
    "sparse_segment_index_out_of_range_fails",
    {"x": DATA, "idx": np.array([0, 9], np.int32), "ids": np.array([0, 1], np.int32)},
)
def _sparse_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.sparse_segment_sum(t["x"], t["idx"], t["ids"])}


@add(
    "segment_sum_ids_length_mismatch_fails_at_build", {"x": DATA, "ids": np.array([0, 1], np.int32)}
)
def _segment_len_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.segment_sum(t["x"], t["ids"])}


# ---- scatters ---------------------------------------------------------------------------------
VAR = values((4, 3), 1, 3, seed=3)
for _mode, _locking in (
    ("update", True),
    ("add", False),
    ("sub", False),
    ("mul", False),
    ("div", False),
    ("max", False),
    ("min", False),
):

    @add(
        f"scatter_{_mode}",
        {"idx": np.array([2, 0, 2], np.int32), "up": values((3, 3), 0.5, 4, seed=4)},
    )
    def _scatter(
        tf: Any, t: dict[str, Any], mode: str = _mode, lock: bool = _locking
    ) -> dict[str, Any]:
        v = tf.Variable(VAR.astype(F32), name="v")
        up = tf.cast(t["up"], tf.float32)
        if mode == "update":
            # Repeated indices leave the winner unspecified: update distinct rows only.
            return {"y": tf.scatter_update(v, t["idx"][:2], up[:2], use_locking=lock)}
        return {"y": getattr(tf, f"scatter_{mode}")(v, t["idx"], up, use_locking=lock)}


@add("scatter_add_scalar_update_and_int", {"idx": np.array([1, 1, 3], np.int64)})
def _scatter_scalar(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    v = tf.Variable(np.arange(8, dtype=np.int32).reshape(4, 2), name="counts")
    return {"y": tf.scatter_add(v, t["idx"], 5)}


@add("scatter_div_int_truncates", {"idx": np.array([0, 1], np.int32)})
def _scatter_div_int(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    v = tf.Variable(np.array([-7, 7, 9], np.int32), name="v")
    return {"y": tf.scatter_div(v, t["idx"], tf.constant([2, -2], tf.int32))}


@add("scatter_update_index_out_of_range_fails", {"idx": np.array([0, 4], np.int32)})
def _scatter_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    v = tf.Variable(VAR.astype(F32), name="v")
    return {"y": tf.scatter_update(v, t["idx"], tf.zeros([2, 3]))}


@add("scatter_update_bad_updates_shape_fails_at_build", {"idx": np.array([0, 1], np.int32)})
def _scatter_bad_shape(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    v = tf.Variable(VAR.astype(F32), name="v")
    return {"y": tf.scatter_update(v, t["idx"], tf.zeros([2, 2]))}


for _mode in ("update", "add", "sub"):

    @add(
        f"scatter_nd_{_mode}",
        {"idx": np.array([[1, 2], [3, 0]], np.int32), "up": np.array([5.0, -1.5], F32)},
    )
    def _scatter_nd(tf: Any, t: dict[str, Any], mode: str = _mode) -> dict[str, Any]:
        v = tf.Variable(VAR.astype(F32), name="v")
        return {"y": getattr(tf, f"scatter_nd_{mode}")(v, t["idx"], t["up"])}

    @add(
        f"tensor_scatter_{_mode}",
        {
            "x": values((4, 3), seed=5),
            "idx": np.array([[2], [0]], np.int32),
            "up": values((2, 3), seed=6),
        },
        grad=("y", ("x", "up")),
    )
    def _tensor_scatter(tf: Any, t: dict[str, Any], mode: str = _mode) -> dict[str, Any]:
        return {
            "y": getattr(tf, f"tensor_scatter_{mode}")(t["x"], t["idx"], t["up"]),
            "nd": getattr(tf, f"tensor_scatter_nd_{mode}")(t["x"], t["idx"], t["up"]),
        }


@add("scatter_nd_update_slices", {"idx": np.array([[3], [1]], np.int64)})
def _scatter_nd_slices(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    v = tf.Variable(VAR.astype(F64), name="v")
    return {"y": tf.scatter_nd_update(v, t["idx"], tf.constant(values((2, 3), seed=7)))}


@add(
    "tensor_scatter_update_out_of_range_fails",
    {"x": values((4, 3), seed=5), "idx": np.array([[7]], np.int32)},
)
def _tensor_scatter_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.tensor_scatter_update(t["x"], t["idx"], tf.zeros([1, 3], tf.float64))}


# ---- partition and stitch ---------------------------------------------------------------------
@add(
    "dynamic_partition",
    {"x": values((5, 2), seed=8), "p": np.array([1, 0, 2, 1, 1], np.int32)},
    grad=("y", ("x",)),
)
def _partition(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    parts = tf.dynamic_partition(t["x"], t["p"], 3)
    # One output for the gradient check: every part, weighted differently.
    y = tf.concat([parts[0] * 2.0, parts[1], parts[2] * 3.0], 0)
    return {"parts": parts, "y": y}


@add(
    "dynamic_partition_bad_partition_fails",
    {"x": values((3,), seed=8), "p": np.array([0, 3, 1], np.int32)},
)
def _partition_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"parts": tf.dynamic_partition(t["x"], t["p"], 2)}


@add(
    "dynamic_stitch",
    {"a": values((2, 2), seed=9), "b": values((3, 2), seed=10)},
    grad=("y", ("a", "b")),
)
def _stitch(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.dynamic_stitch([[0, 4], [2, 1, 4]], [t["a"], t["b"]])}


@add("dynamic_stitch_gap_is_zero", {"a": values((2,), seed=9)})
def _stitch_gap(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.dynamic_stitch([[0, 3]], [t["a"]])}


# ---- ordering ---------------------------------------------------------------------------------
TIES = np.array([[3.0, 1.0, 3.0, 2.0, 3.0], [0.5, 5.0, 5.0, -1.0, 0.0]], F32)


@add("top_k_ties_lower_index_first", {"x": TIES}, grad=("v", ("x",)))
def _top_k(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    values_, indices = tf.nn.top_k(t["x"], 3)
    return {"v": values_, "i": indices, "math": tf.math.top_k(t["x"], k=2)}


@add("top_k_3d_int", {"x": np.array([[[4, 9, 1], [2, 2, 7]]], np.int32)})
def _top_k_int(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"top": tf.nn.top_k(t["x"], 2, sorted=True)}


@add("top_k_k_too_large_fails", {"x": TIES}, unknown_shapes=True)
def _top_k_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"top": tf.nn.top_k(t["x"], 9)}


@add("top_k_k_too_large_fails_at_build", {"x": TIES})
def _top_k_bad_static(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"top": tf.nn.top_k(t["x"], 9)}


@add(
    "in_top_k",
    {
        "p": np.array([[0.1, 0.5, 0.5, 0.2], [np.inf, 1.0, 0.0, 0.0], [1, 2, 3, 4]], F32),
        "t": np.array([2, 1, 5], np.int32),
    },
)
def _in_top_k(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "k1": tf.nn.in_top_k(t["p"], t["t"], 1),
        "k2": tf.math.in_top_k(t["p"], t["t"], 2),
        "k0": tf.nn.in_top_k(t["p"], t["t"], 0),
    }


@add(
    "sort_and_argsort",
    {"x": np.array([[3.0, -1.0, 2.0, 2.0], [0.0, 9.0, -4.0, 1.0]], F32)},
    grad=("asc", ("x",)),
)
def _sort(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "asc": tf.sort(t["x"]),
        "desc": tf.sort(t["x"], direction="DESCENDING"),
        "axis0": tf.sort(t["x"], axis=0),
        "arg": tf.argsort(t["x"]),
        "arg_desc": tf.argsort(t["x"], direction="DESCENDING", stable=True),
        "arg0": tf.argsort(t["x"], axis=0),
    }


@add(
    "searchsorted",
    {
        "seq": np.array([[1.0, 2.0, 2.0, 5.0], [0.0, 1.0, 2.0, 3.0]], F32),
        "v": np.array([[2.0, 6.0, 0.0], [1.5, 3.0, -1.0]], F32),
    },
)
def _searchsorted(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "left": tf.searchsorted(t["seq"], t["v"]),
        "right": tf.searchsorted(t["seq"], t["v"], side="right", out_type=tf.int64),
    }


# ---- counting ---------------------------------------------------------------------------------
# TF 1.15's op is Bincount; TF 2.x's compat.v1 makes DenseBincount: names differ.
@add(
    "bincount",
    {"a": np.array([1, 1, 3, 0, 7], np.int32), "w": np.array([0.5, 0.5, 2, 1, 3], F32)},
    names=False,
)
def _bincount(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "plain": tf.bincount(t["a"]),
        "min": tf.math.bincount(t["a"], minlength=10),
        "max": tf.bincount(t["a"], maxlength=4, dtype=tf.float64),
        "weights": tf.bincount(t["a"], weights=t["w"]),
    }


@add("bincount_negative_fails", {"a": np.array([1, -1], np.int32)})
def _bincount_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.bincount(t["a"], minlength=3)}


@add("unique_with_counts", {"x": np.array([4, 1, 4, 4, 2, 1], np.int64)})
def _unique(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"u": tf.unique_with_counts(t["x"]), "u64": tf.unique_with_counts(t["x"], tf.int64)}


@add("setdiff1d", {"x": np.array([1, 2, 3, 2, 4, 1], np.int32), "y": np.array([2, 5], np.int32)})
def _setdiff(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"d": tf.setdiff1d(t["x"], t["y"]), "d64": tf.setdiff1d(t["x"], t["y"], tf.int64)}


@add("histogram_fixed_width", {"v": np.array([-1.0, 0.0, 0.5, 0.99, 1.0, 3.0, 0.25], F32)})
def _histogram(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "h": tf.histogram_fixed_width(t["v"], [0.0, 1.0], nbins=4),
        "h64": tf.histogram_fixed_width(t["v"], [0.0, 2.0], nbins=3, dtype=tf.int64),
        "bins": tf.histogram_fixed_width_bins(t["v"], [0.0, 1.0], nbins=4),
    }


@add("histogram_bad_range_fails", {"v": np.array([0.5], F32)})
def _histogram_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"h": tf.histogram_fixed_width(t["v"], [1.0, 0.0], nbins=4)}


# ---- reordering ---------------------------------------------------------------------------------
@add(
    "reverse_sequence",
    {"x": values((3, 4, 2), seed=11), "lens": np.array([2, 4, 0], np.int64)},
    grad=("y", ("x",)),
)
def _reverse_sequence(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "y": tf.reverse_sequence(t["x"], t["lens"], seq_axis=1, batch_axis=0),
        "old_args": tf.reverse_sequence(
            tf.transpose(t["x"], [1, 0, 2]), t["lens"], seq_dim=0, batch_dim=1
        ),
    }


@add(
    "reverse_sequence_length_too_long_fails",
    {"x": values((2, 3), seed=11), "lens": np.array([1, 4], np.int32)},
)
def _reverse_sequence_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.reverse_sequence(t["x"], t["lens"], 1)}


@add("roll", {"x": values((3, 4), seed=12)}, grad=("y", ("x",)))
def _roll(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.roll(t["x"], [1, -3], [0, 1]), "manip": tf.manip.roll(t["x"], 2, 1)}


# ---- special functions --------------------------------------------------------------------------
_X = values((12,), -3, 3, seed=13)
_POS = values((12,), 0.2, 6, seed=14)
_UNIT = values((12,), 0.02, 0.98, seed=15)

for _name, _fn, _arg in (
    ("erf", "erf", _X),
    ("erfc", "erfc", _X),
    ("lgamma", "lgamma", _X),
    ("digamma", "digamma", _X),
    ("bessel_i0e", "math.bessel_i0e", _X * 10),
    ("bessel_i1e", "math.bessel_i1e", _X * 10),
    ("bessel_i0", "math.bessel_i0", _X),
    ("bessel_i1", "math.bessel_i1", _X),
    ("sinh", "sinh", _X),
    ("cosh", "cosh", _X),
    ("asinh", "asinh", _X),
    ("acosh", "acosh", _POS + 1),
    ("atanh", "atanh", _UNIT * 2 - 1),
    ("log_sigmoid", "log_sigmoid", _X * 10),
    ("softplus", "math.softplus", _X),
    ("softsign", "math.softsign", _X),
):
    for _dtype in (F32, F64):
        # TF 1.15 builds bessel_i0/i1 as exp(|x|) * bessel_i0e/i1e and names the BesselI0e op
        # after its scope ("bessel_i0e"); TF 2.x has BesselI0 ops and "bessel_i0e/BesselI0e".
        @add(
            f"{_name}_{np.dtype(_dtype).name}",
            {"x": _arg.astype(_dtype)},
            grad=("y", ("x",)),
            rtol=1e-5 if _dtype == F64 else 2e-5,
            atol=1e-12 if _dtype == F64 else 1e-6,
            names=_name not in ("bessel_i0", "bessel_i1", "bessel_i0e", "bessel_i1e"),
        )
        def _unary(tf: Any, t: dict[str, Any], fn: str = _fn) -> dict[str, Any]:
            target: Any = tf
            for part in fn.split("."):
                target = getattr(target, part)
            return {"y": target(t["x"])}


@add("rint", {"x": np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.7, -0.2], F32)})
def _rint(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.rint(t["x"])}


@add(
    "special_function_edges",
    {"x": np.array([0.0, -1.0, -2.0, np.inf, -np.inf, np.nan, 1e-30, 200.0])},
    names=False,
)
def _edges(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    x = t["x"]
    # TF 2.x's float64 erf gives NaN at +-inf (1.15's std::erf gives +-1, as tfcluster does).
    finite = tf.gather(x, [0, 1, 2, 5, 6, 7])
    return {
        "erf": tf.erf(finite),
        "erfc": tf.erfc(x),
        "lgamma": tf.lgamma(x),
        "digamma": tf.digamma(x),
        "i0e": tf.math.bessel_i0e(x),
        "i1e": tf.math.bessel_i1e(x),
    }


for _name, _fn in (("igamma", "igamma"), ("igammac", "igammac")):

    @add(
        _name,
        {"a": _POS[:6].reshape(2, 3), "x": values((2, 3), 0, 8, seed=16)},
        grad=("y", ("a", "x")),
        rtol=1e-6,
        atol=1e-9,
    )
    def _igamma(tf: Any, t: dict[str, Any], fn: str = _fn) -> dict[str, Any]:
        return {
            "y": getattr(tf, fn)(t["a"], t["x"]),
            "f32": getattr(tf.math, fn)(tf.cast(t["a"], tf.float32), tf.cast(t["x"], tf.float32)),
        }


@add(
    "igamma_edges",
    {
        "a": np.array([0.5, 1.0, -1.0, 2.0, 0.0, 3.0]),
        "x": np.array([0.0, np.inf, 1.0, -1.0, 1.0, 1e-300]),
    },
)
def _igamma_edges(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"p": tf.igamma(t["a"], t["x"]), "q": tf.igammac(t["a"], t["x"])}


@add(
    "igamma_broadcast",
    {"a": np.array([[0.5], [4.0]]), "x": np.array([0.3, 2.0, 9.0])},
    grad=("y", ("a", "x")),
    rtol=1e-6,
    atol=1e-9,
)
def _igamma_broadcast(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.igamma(t["a"], t["x"])}


@add("betainc", {"a": _POS[:6], "b": _POS[6:], "x": _UNIT[:6]}, grad=("y", ("x",)), rtol=1e-6)
def _betainc(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "y": tf.betainc(t["a"], t["b"], t["x"]),
        "scalar_a": tf.math.betainc(tf.constant(2.5, tf.float64), t["b"], t["x"]),
        "f32": tf.betainc(
            tf.cast(t["a"], tf.float32), tf.cast(t["b"], tf.float32), tf.cast(t["x"], tf.float32)
        ),
    }


@add(
    "betainc_edges",
    {
        "a": np.array([1.0, 2.0, -1.0, 2.0, 0.5]),
        "b": np.array([1.0, 3.0, 1.0, 2.0, 0.5]),
        "x": np.array([0.0, 1.0, 0.5, 1.5, 0.5]),
    },
)
def _betainc_edges(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.betainc(t["a"], t["b"], t["x"])}


@add(
    "zeta_polygamma",
    {
        "x": values((6,), 1.5, 6, seed=17),
        "q": values((6,), 0.3, 5, seed=18),
        "n": np.array([0.0, 1.0, 2.0, 3.0, 1.0, 4.0]),
    },
    grad=("y", ("q",)),
    rtol=1e-6,
    names=False,
)
def _zeta(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "y": tf.zeta(t["x"], t["q"]),
        "poly": tf.polygamma(t["n"], t["q"]),
        "poly_grad": tf.gradients(tf.reduce_sum(tf.polygamma(t["n"], t["q"])), t["q"])[0],
    }


@add(
    "zeta_edges",
    {"x": np.array([1.0, 0.5, 2.0, 3.0, 2.5]), "q": np.array([1.0, 1.0, -2.0, -1.5, -1.5])},
)
def _zeta_edges(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "y": tf.zeta(t["x"], t["q"]),
        "poly": tf.polygamma(tf.constant([0.5, -1.0, 1.0, 2.0, 0.0], tf.float64), t["q"]),
    }


@add("lbeta_polyval", {"x": values((3, 4), 0.2, 3, seed=19)}, grad=("lbeta", ("x",)))
def _lbeta(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    x = t["x"]
    coeffs = [
        tf.constant(1.5, tf.float64),
        tf.constant(-2.0, tf.float64),
        tf.constant(0.5, tf.float64),
    ]
    return {
        "lbeta": tf.lbeta(x),
        "polyval": tf.math.polyval(coeffs, x),
        "empty_poly": tf.math.polyval([], x),
    }


for _name, _fn in (
    ("atan2", "atan2"),
    ("xlogy", "math.xlogy"),
    ("xdivy", "math.xdivy"),
    ("multiply_no_nan", "math.multiply_no_nan"),
    ("nextafter", "math.nextafter"),
):

    @add(
        _name,
        {"x": np.array([[0.0, 1.5, -2.0], [3.0, 0.0, 0.25]]), "y": np.array([0.5, -1.0, 0.0])},
        # TF 1.15's Atan2 gradient does not sum over broadcast dimensions (tf.gradients raises
        # ValueError; 2.x sums): checked under 1.15 by cases_gradient_values.py.
        grad=("z", ("x", "y")) if _name not in ("nextafter", "atan2") else None,
        # TF 2.x's compat.v1 xdivy opens a name scope (xdivy/Xdivy); TF 1.15's is the op
        # itself (Xdivy), as tfcluster's: checked under 1.15 by public_sweep5_cases.py.
        names=_name != "xdivy",
    )
    def _binary(tf: Any, t: dict[str, Any], fn: str = _fn) -> dict[str, Any]:
        target: Any = tf
        for part in fn.split("."):
            target = getattr(target, part)
        y = t["y"] if fn == "math.multiply_no_nan" else tf.abs(t["y"]) + 0.5
        return {"z": target(t["x"], y)}


@add("reciprocal_no_nan", {"x": np.array([0.0, 2.0, -0.5], F32)})
def _reciprocal_no_nan(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.math.reciprocal_no_nan(t["x"])}


# TF 1.15 marks EuclideanNorm not differentiable (2.x has a gradient): the gradient here is
# reduce_std's; cases_gradient_values.py checks 1.15's None for the norm.
@add("reductions_std_variance_euclidean", {"x": values((3, 4), seed=20)}, grad=("std", ("x",)))
def _reductions(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    x = t["x"]
    return {
        "eucl": tf.math.reduce_euclidean_norm(x, axis=1),
        "eucl_all": tf.math.reduce_euclidean_norm(x),
        "eucl_keep": tf.math.reduce_euclidean_norm(x, axis=0, keepdims=True),
        "eucl_int": tf.math.reduce_euclidean_norm(tf.constant([[3, 4], [1, 1]]), axis=1),
        "std": tf.math.reduce_std(x, axis=0),
        "var": tf.math.reduce_variance(x, keepdims=True),
    }


@add("cumulative_logsumexp", {"x": values((3, 4), -3, 3, seed=21)}, grad=("y", ("x",)))
def _cumlse(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    x = t["x"]
    return {
        "y": tf.math.cumulative_logsumexp(x, axis=1),
        "rev": tf.math.cumulative_logsumexp(x, axis=0, reverse=True),
        "excl": tf.math.cumulative_logsumexp(tf.cast(x, tf.float32), axis=1, exclusive=True),
    }


@add(
    "cumsum_cumprod_exclusive_reverse", {"x": values((2, 4), 0.5, 2, seed=22)}, grad=("cp", ("x",))
)
def _cumsum(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    x = t["x"]
    return {
        "cs": tf.cumsum(x, axis=1, exclusive=True, reverse=True),
        "cp": tf.math.cumprod(x, axis=1, exclusive=True),
        "cp_rev": tf.cumprod(x, reverse=True),
    }


@add("argmax_argmin_output_type", {"x": np.array([[1.0, 5.0, 5.0], [7.0, -1.0, 7.0]], F32)})
def _argmax(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    x = t["x"]
    return {
        "max32": tf.argmax(x, axis=1, output_type=tf.int32),
        "max64": tf.math.argmax(x),
        "min32": tf.argmin(x, 0, output_type=tf.int32),
    }


# ---- the same ops on inputs of unknown shape (the run-time shape paths) -------------------
@add(
    "segments_with_unknown_shapes",
    {"x": DATA, "ids": IDS, "uids": UIDS},
    grad=("y", ("x",)),
    unknown_shapes=True,
)
def _segments_unknown(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    x = t["x"]
    y = (tf.segment_mean(x, t["ids"]) * 2.0)[:1] + tf.unsorted_segment_max(x, t["uids"], 4)[:1]
    return {
        "y": y,
        "prod": tf.math.unsorted_segment_prod(x, t["uids"], 4),
        "sqrt_n": tf.sparse_segment_sqrt_n(x, tf.constant([0, 2]), tf.constant([0, 0])),
    }


@add(
    "top_k_and_scatter_with_unknown_shapes",
    {"x": TIES, "idx": np.array([[1, 2]], np.int32)},
    grad=("v", ("x",)),
    unknown_shapes=True,
)
def _top_k_unknown(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    v, i = tf.nn.top_k(t["x"], 2)
    return {"v": v, "i": i, "ts": tf.tensor_scatter_update(t["x"], t["idx"], [9.0])}


# TF 2.x builds linspace from slices and range (and allows num = 0); TF 1.15 has one LinSpace
# op that requires num > 0 (tests/unit/test_mathops_behaviour.py checks that).
@add("lin_space", {}, names=False)
def _lin_space(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "f32": tf.linspace(0.0, 1.0, 5),
        "f64": tf.lin_space(tf.constant(-2.0, tf.float64), 3.0, 4),
        "one": tf.linspace(2.0, 9.0, 1),
    }


@add(
    "gather_nd_batch_dims",
    {
        "p": values((2, 3, 4), seed=23),
        "i": np.array([[[1, 2], [0, 0]], [[2, 3], [1, 1]]], np.int32),
        "j": np.array([[2], [0]], np.int64),
    },
    grad=("y", ("p",)),
    names=False,
    notes="TF builds batch_dims from meshgrid/tile; tfcluster from range and a broadcast add",
)
def _gather_nd_batch(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "y": tf.gather_nd(t["p"], t["i"], batch_dims=1),
        "rows": tf.gather_nd(t["p"], t["j"], batch_dims=1),
        "manip": tf.manip.gather_nd(t["p"], t["i"], batch_dims=1),
    }


@add(
    "complex_parts",
    {"re": values((2, 3), seed=24).astype(F32), "im": values((3,), seed=25).astype(F32)},
    grad=("y", ("re", "im")),
)
def _complex(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    z = tf.complex(t["re"], t["im"])
    y = tf.real(z) * 2.0 + tf.imag(z) * 3.0 + tf.angle(z)
    return {
        "z_re": tf.math.real(z),
        "z_im": tf.math.imag(z),
        "angle": tf.math.angle(z),
        "y": y,
        "real_of_real": tf.real(t["re"]),
        "imag_of_real": tf.imag(t["re"]),
    }
