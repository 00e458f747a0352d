"""tf.raw_ops' faces against TF 1.15's recorded op signatures (framework/tf115_op_defs.json)
and tfcluster's op table: which ops exist, their keyword parameters and defaults, what counts
as implemented, and what the others raise."""

from __future__ import annotations

import inspect

import pytest
import tfcluster as tf
from tfcluster.api import _unimplemented, raw_ops
from tfcluster.framework import op_def_registry, op_signatures
from tfcluster.runtime import kernel_table

TF_RAW_OPS = sorted(_unimplemented.tf_names()["raw_ops"])
IMPLEMENTED = sorted(raw_ops.implemented_ops())


def test_signatures_cover_exactly_tf_1_15s_raw_ops() -> None:
    assert op_signatures.op_types() == TF_RAW_OPS
    assert len(TF_RAW_OPS) == 1201


def _removed_from_tf_1_15(op: str) -> bool:
    """Deprecated at TF 1.15's GraphDef version: its raw op only raises NotImplementedError
    (in TF too), kernel or not (TF has none for BatchFFT)."""
    sig = op_signatures.lookup(op)
    version = sig.deprecation_version if sig is not None else None
    return bool(version) and op_signatures.tf_graph_def_version() >= version


def test_every_defined_op_with_a_cpu_kernel_is_a_raw_op() -> None:
    # Ops TF 1.15's CPU build has no kernel for on any device count too: they build, and
    # running one fails as in TF (tests/unit/test_no_kernel_raw_ops.py).
    defined = {
        op
        for op in op_def_registry.registered_ops()
        if op in TF_RAW_OPS
        and (
            kernel_table.has_kernel(op, "CPU")
            or _removed_from_tf_1_15(op)
            or op_signatures.tf_has_no_kernel(op)
        )
    }
    # Ops taking functions count too (tests/unit/test_raw_function_ops.py and
    # test_function_loops.py check them against TF 1.15).
    assert set(IMPLEMENTED) == defined
    assert {"If", "While", "MapDataset", "PartitionedCall"} <= set(IMPLEMENTED)
    assert len(IMPLEMENTED) >= 600


@pytest.mark.parametrize("op_type", TF_RAW_OPS)
def test_parameters_are_the_inputs_and_attrs_tf_does_not_infer(op_type: str) -> None:
    sig = op_signatures.lookup(op_type)
    assert sig is not None
    targets = [sig.target(p) for p in sig.params]
    wanted = [a.name for a in sig.inputs] + [
        a.name for a in sig.attrs if a.name not in sig.inferred_attrs()
    ]
    assert sorted(targets) == sorted(wanted)
    # Inputs first, in the OpDef's order; then the attrs without defaults, then with defaults.
    n = len(sig.inputs)
    assert targets[:n] == [a.name for a in sig.inputs]
    defaults = [sig.attr(t).has_default for t in targets[n:]]
    assert defaults == sorted(defaults)


@pytest.mark.parametrize("op_type", IMPLEMENTED)
def test_implemented_raw_op_signature_is_tfs(op_type: str) -> None:
    fn = getattr(tf.raw_ops, op_type)
    sig = op_signatures.lookup(op_type)
    assert sig is not None
    params = inspect.signature(fn).parameters
    assert list(params) == [*sig.params, "name"]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params.values())
    for p in sig.params:
        attr = next((a for a in sig.attrs if a.name == sig.target(p)), None)
        if attr is not None and attr.has_default:
            assert params[p].default is not inspect.Parameter.empty
        else:
            assert params[p].default is inspect.Parameter.empty
    assert fn.__name__ == op_type
    assert fn is getattr(tf.raw_ops, op_type)  # made once


def test_defaults_are_tfs_in_tfclusters_attr_form() -> None:
    conv = inspect.signature(tf.raw_ops.Conv2D).parameters
    assert conv["data_format"].default == "NHWC"
    assert conv["dilations"].default == [1, 1, 1, 1]
    assert conv["use_cudnn_on_gpu"].default is True
    assert inspect.signature(tf.raw_ops.Unique).parameters["out_idx"].default == tf.int32
    shape = inspect.signature(tf.raw_ops.PlaceholderWithDefault).parameters["shape"]
    assert shape.default is inspect.Parameter.empty
    ph = inspect.signature(tf.raw_ops.Placeholder).parameters["shape"].default
    assert ph.ndims is None


def test_renamed_parameters_set_the_op_defs_args() -> None:
    sig = op_signatures.lookup("Split")
    assert sig is not None and sig.params == ("axis", "value", "num_split")
    assert sig.target("axis") == "split_dim"
    parts = tf.raw_ops.Split(axis=0, value=[1.0, 2.0], num_split=2)
    assert [i.name for i in parts[0].op.inputs] == ["Split/split_dim:0", "Split/value:0"]


def test_every_tf_raw_op_is_built_and_other_names_are_not_there() -> None:
    # The last ones were those TF 1.15's CPU build has no kernel for (TPU, MKL-only ops).
    assert sorted(set(TF_RAW_OPS) - set(IMPLEMENTED)) == []
    with pytest.raises(AttributeError):
        tf.raw_ops.NoSuchOp  # noqa: B018


def test_dir_lists_every_tf_raw_op() -> None:
    assert set(TF_RAW_OPS) <= set(dir(tf.raw_ops))


def test_gradient_through_a_raw_op_is_the_ops_registered_gradient() -> None:
    with tf.Graph().as_default():
        x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        y = tf.raw_ops.MatMul(a=x, b=x, transpose_b=True)
        (g,) = tf.gradients(tf.reduce_sum(y), [x])
        assert g.op.type in ("MatMul", "AddN", "AddV2", "Add")
        with tf.Session() as sess:
            got = sess.run(g)
    # d/dx sum(x x^T) = 2 * column sums broadcast: [[8, 12], [8, 12]]
    assert got.tolist() == [[8.0, 12.0], [8.0, 12.0]]
