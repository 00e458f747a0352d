"""The graph optimizer's kernel fusions (runtime/kernel_fusion.py): Conv2D -> BiasAdd -> Relu
runs as one _FusedConv2D and MaxPoolGrad -> ReluGrad as one _FusedMaxPoolGradReluGrad, with
results identical bit for bit to the unfused kernels' (the optimizer off: opt_level L0), and
only where the inner results have no other use; a convolution's filter and input gradients
run as one _FusedConv2DBackprop (the filter gradient bit for bit, the input gradient to
float32 rounding, as accurate against float64)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.ops import op_util
from tfcluster.runtime.graph_ir import node_from_operation
from tfcluster.runtime.kernel_fusion import (
    FUSED_CONV,
    FUSED_CONV_BACKPROP,
    FUSED_POOL_GRAD,
    KEEP_INPUT_TILES,
    fuse_kernels,
)

UNFUSED = tf.ConfigProto(
    graph_options=tf.GraphOptions(
        optimizer_options=tf.OptimizerOptions(opt_level=tf.OptimizerOptions.L0)
    )
)


def _fused_ops(graph: Any, fetches: list[Any]) -> dict[str, str]:
    """Node name -> fused op type, for the step that fetches `fetches`."""
    nodes = {op.name: node_from_operation(op) for op in graph.get_operations()}
    names = [t.name for t in fetches]
    return {k: v.op for k, v in fuse_kernels(nodes, list(nodes), [], names, []).items()}


def _conv_net(x_val: np.ndarray, channels: int, ksize: int) -> tuple[Any, list[Any]]:
    """relu(conv + bias) -> 2x2 max pool -> relu(conv + bias) -> 2x2 max pool -> sum of
    squares, with the gradients of everything."""
    rng = np.random.default_rng(3)
    x = tf.constant(x_val)
    f1 = tf.Variable(rng.standard_normal((ksize, ksize, x_val.shape[-1], channels), np.float32))
    b1 = tf.Variable(rng.standard_normal(channels).astype(np.float32) * 0.1)
    f2 = tf.Variable(rng.standard_normal((ksize, ksize, channels, channels), np.float32) * 0.2)
    b2 = tf.Variable(rng.standard_normal(channels).astype(np.float32) * 0.1)
    h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, f1, [1, 1, 1, 1], "SAME"), b1))
    h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(h, f2, [1, 1, 1, 1], "SAME"), b2))
    y = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    loss = tf.reduce_sum(y * y)
    return loss, [y, *tf.gradients(loss, [x, f1, b1, f2, b2])]


@pytest.mark.parametrize(
    "in_channels,channels,ksize",
    [(1, 8, 5), (3, 16, 3), (2, 12, 5)],
    ids=["one-channel-and-winograd", "im2col-and-winograd-3x3", "im2col-and-winograd-5x5"],
)
def test_fused_conv_net_gives_the_unfused_values_bit_for_bit(
    in_channels: int, channels: int, ksize: int
) -> None:
    x_val = np.random.default_rng(1).standard_normal((8, 16, 16, in_channels)).astype(np.float32)
    graph = tf.Graph()
    with graph.as_default():
        _, fetches = _conv_net(x_val, channels, ksize)
        init = tf.global_variables_initializer()
    fused = _fused_ops(graph, fetches)
    # Each pool is marked too (the same op, keeping its first maxima for its gradient).
    assert sorted(fused.values()) == sorted(
        [FUSED_CONV, FUSED_POOL_GRAD, FUSED_CONV_BACKPROP, "Identity", "MaxPool"] * 2
    )
    results = []
    for config in (None, UNFUSED):
        with tf.Session(graph=graph, config=config) as sess:
            sess.run(init)
            results.append(sess.run(fetches))
    (y, dx, df1, db1, df2, db2), (want_y, *want_grads) = results
    # The forward pass, the second layer's filter and bias gradients: bit for bit.
    for got, want in zip((y, df2, db2), (want_y, want_grads[3], want_grads[4])):
        np.testing.assert_array_equal(got, want)
    # Below the second layer's input gradient (by Winograd's transposed tiles where they
    # apply): the same to float32 rounding.
    for got, want in zip((dx, df1, db1), want_grads[:3]):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5 * float(np.abs(want).max()))


def test_pool_gradient_with_infinities_nans_and_ties_matches_the_unfused_kernels() -> None:
    # ReLU zeros tie in many windows; the pooled gradient holds NaN and infinities (inf * 0
    # is NaN where the ReLU is off), overlapping windows take the unfused path.
    rng = np.random.default_rng(5)
    x_val = np.maximum(rng.standard_normal((3, 8, 8, 4)).astype(np.float32) - 0.5, 0)
    x_val[0, :2, :2, 0] = [[-1.0, np.nan], [2.0, 0.0]]
    graph = tf.Graph()
    with graph.as_default():
        x = tf.constant(x_val)
        h = tf.nn.relu(x)
        grads = []
        for k, s, padding in ((2, 2, "VALID"), (3, 2, "SAME")):
            y = tf.nn.max_pool(h, [1, k, k, 1], [1, s, s, 1], padding)
            g_val = rng.standard_normal(y.shape.as_list()).astype(np.float32)
            g_val[0, 0, 0, :3] = [np.inf, -np.inf, np.nan]
            g_val[1, 1, 1, 1] = np.inf
            grads.append(tf.gradients(y, x, grad_ys=tf.constant(g_val))[0])
    fused = sorted(_fused_ops(graph, grads).values())
    assert fused == ["MaxPool", "MaxPool", FUSED_POOL_GRAD, FUSED_POOL_GRAD]  # pools: marked
    with tf.Session(graph=graph) as sess:
        got = sess.run(grads)
    with tf.Session(graph=graph, config=UNFUSED) as sess:
        want = sess.run(grads)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a.view(np.int32), b.view(np.int32))


@pytest.mark.parametrize(
    "shape,ksize,out_channels",
    [
        ((3, 9, 9, 1), 5, 48),  # one channel; 48 channels: rows of 2016 and a rest
        ((2, 7, 7, 5), 3, 3),  # im2col, 3 channels
        ((4, 10, 10, 16), 3, 40),  # Winograd tiles
        ((2, 6, 6, 8), 1, 24),  # pointwise
    ],
    ids=["one-channel", "im2col", "winograd", "pointwise"],
)
def test_fused_bias_and_relu_keep_nans_infinities_and_signed_zeros_bit_for_bit(
    shape: tuple[int, ...], ksize: int, out_channels: int
) -> None:
    # The fused epilogue adds the bias along long rows of the flattened output and takes the
    # ReLU against a row of zeros: the same numbers as BiasAdd then Relu, NaN, infinities
    # and -0.0 (a -0.0 bias on a zero sum) included, wherever a block's rows end.
    rng = np.random.default_rng(7)
    x_val = rng.standard_normal(shape).astype(np.float32)
    x_val[0, 1, 1, 0] = np.nan
    x_val[-1, 0, :, :] = 0.0
    f_val = rng.standard_normal((ksize, ksize, shape[-1], out_channels)).astype(np.float32)
    b_val = rng.standard_normal(out_channels).astype(np.float32)
    b_val[::3] = -0.0
    b_val[1] = np.inf
    graph = tf.Graph()
    with graph.as_default():
        conv = tf.nn.conv2d(tf.constant(x_val), tf.constant(f_val), [1, 1, 1, 1], "SAME")
        out = tf.nn.relu(tf.nn.bias_add(conv, tf.constant(b_val)))
    assert list(_fused_ops(graph, [out]).values()) == [FUSED_CONV]
    with tf.Session(graph=graph) as sess:
        got = sess.run(out)
    with tf.Session(graph=graph, config=UNFUSED) as sess:
        want = sess.run(out)
    assert np.isnan(got).any() and np.isinf(got).any()
    np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))


def _conv_bias_relu(data_format: str = "NHWC") -> tuple[Any, Any, Any]:
    x = tf.constant(np.ones((2, 6, 6, 3), np.float32))
    f = tf.constant(np.ones((3, 3, 3, 4), np.float32))
    b = tf.constant(np.arange(4, dtype=np.float32))
    conv = tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME")
    biased = tf.nn.bias_add(conv, b)
    return conv, biased, tf.nn.relu(biased)


def test_a_chain_fuses_only_when_its_inner_results_have_no_other_use() -> None:
    with tf.Graph().as_default() as graph:
        conv, biased, relu = _conv_bias_relu()
        assert _fused_ops(graph, [relu]) == {relu.op.name: FUSED_CONV}
        # The conv's or the bias's value fetched, read twice, or waited on: no fusion.
        assert _fused_ops(graph, [relu, conv]) == {}
        assert _fused_ops(graph, [relu, biased]) == {}
        twice = biased * 2.0
        assert _fused_ops(graph, [relu, twice]) == {}
    with tf.Graph().as_default() as graph:
        conv, biased, relu = _conv_bias_relu()
        with tf.control_dependencies([biased.op]):
            after = tf.identity(relu)
        assert _fused_ops(graph, [after]) == {}
    with tf.Graph().as_default() as graph:
        x = tf.constant(np.ones((2, 3, 6, 6), np.float32))
        f = tf.constant(np.ones((3, 3, 3, 4), np.float32))
        conv = tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME", data_format="NCHW")
        relu = tf.nn.relu(tf.nn.bias_add(conv, tf.constant(np.ones(4, np.float32)), "NCHW"))
        assert _fused_ops(graph, [relu]) == {}
    with tf.Graph().as_default() as graph:
        x = tf.constant(np.ones((2, 4, 4, 3), np.float32))
        other = tf.constant(np.ones((2, 4, 4, 3), np.float32))
        y = tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        (dx,) = tf.gradients(y, x)
        # ReluGrad of features other than the pool's input: not the relu -> pool gradient.
        unrelated = op_util.make_op("ReluGrad", [dx, other], {"T": tf.float32}).outputs[0]
        assert _fused_ops(graph, [unrelated]) == {y.op.name: "MaxPool"}  # only marked


def test_fused_step_keeps_the_last_nodes_name_and_fetches() -> None:
    with tf.Graph().as_default():
        _, _, relu = _conv_bias_relu()
        with tf.Session() as sess:
            by_tensor = sess.run(relu)
            by_name = sess.run("Relu:0")
    want = np.maximum(np.full((2, 6, 6, 4), 27.0, np.float32), 0)
    want[:, [0, -1]] = want[:, [0, -1]] * 2 / 3
    want[:, :, [0, -1]] = want[:, :, [0, -1]] * 2 / 3
    want += np.arange(4, dtype=np.float32)
    np.testing.assert_allclose(by_tensor, want, rtol=1e-6)
    np.testing.assert_array_equal(by_tensor, by_name)


def _conv_grads(x_val: np.ndarray, strides: list[int]) -> tuple[Any, Any, Any, Any]:
    """(x, f, d sum(y^2)/dx, d sum(y^2)/df) for y = conv2d(x, f)."""
    x = tf.constant(x_val)
    f = tf.constant(np.random.default_rng(5).standard_normal((3, 3, 8, 8)).astype(np.float32))
    y = tf.nn.conv2d(x, f, strides, "SAME")
    dx, df = tf.gradients(tf.reduce_sum(y * y), [x, f])
    return x, f, dx, df


def test_a_convolutions_two_gradients_fuse_and_keep_their_names() -> None:
    x_val = np.random.default_rng(6).standard_normal((4, 12, 12, 8)).astype(np.float32)
    with tf.Graph().as_default() as graph:
        _, _, dx, df = _conv_grads(x_val, [1, 1, 1, 1])
        forward = graph.get_operation_by_name("Conv2D")
        assert _fused_ops(graph, [dx, df]) == {
            df.op.name: FUSED_CONV_BACKPROP,
            dx.op.name: "Identity",
            forward.name: "Conv2D",  # the same op, marked to keep its input tiles
        }
        with tf.Session() as sess:
            fused = sess.run([dx, df, dx.name, df.name])
        with tf.Session(config=UNFUSED) as sess:
            want_dx, want_df = sess.run([dx, df])
    np.testing.assert_array_equal(fused[1], want_df)
    np.testing.assert_array_equal(fused[3], want_df)
    np.testing.assert_array_equal(fused[0], fused[2])
    np.testing.assert_allclose(fused[0], want_dx, rtol=1e-4, atol=1e-5 * np.abs(want_dx).max())


def test_gradients_of_other_out_backprops_or_windows_do_not_fuse() -> None:
    with tf.Graph().as_default() as graph:
        x = tf.constant(np.ones((2, 6, 6, 8), np.float32))
        f = tf.constant(np.ones((3, 3, 8, 8), np.float32))
        g1 = tf.constant(np.ones((2, 6, 6, 8), np.float32))
        g2 = tf.constant(np.full((2, 6, 6, 8), 2.0, np.float32))
        by_filter = tf.nn.conv2d_backprop_filter(x, [3, 3, 8, 8], g1, [1, 1, 1, 1], "SAME")
        by_input = tf.nn.conv2d_backprop_input([2, 6, 6, 8], f, g2, [1, 1, 1, 1], "SAME")
        assert _fused_ops(graph, [by_filter, by_input]) == {}
        other_window = tf.nn.conv2d_backprop_input([2, 6, 6, 8], f, g1, [1, 1, 1, 1], "VALID")
        assert _fused_ops(graph, [by_filter, other_window]) == {}


def test_strided_or_dilated_convolution_gradients_stay_two_kernels() -> None:
    # Winograd's shared transform (the one gain of the fused node) needs stride 1 and no
    # dilation; fused otherwise, the input gradient would wait for the filter gradient.
    x_val = np.random.default_rng(10).standard_normal((2, 12, 12, 8)).astype(np.float32)
    with tf.Graph().as_default() as graph:
        _, _, dx, df = _conv_grads(x_val, [1, 2, 2, 1])
        assert _fused_ops(graph, [dx, df]) == {}
    with tf.Graph().as_default() as graph:
        x = tf.constant(x_val)
        f = tf.constant(np.ones((3, 3, 8, 8), np.float32))
        y = tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME", dilations=[1, 2, 2, 1])
        dx, df = tf.gradients(tf.reduce_sum(y * y), [x, f])
        assert _fused_ops(graph, [dx, df]) == {}


def test_second_order_conv_gradients_do_not_fuse_into_a_cycle() -> None:
    # The filter gradient of what the input gradient feeds reads the same out_backprop:
    # fused with that input gradient, one node would wait for itself.
    x_val = np.random.default_rng(7).standard_normal((2, 8, 8, 8)).astype(np.float32)
    with tf.Graph().as_default():
        x, f, dx, df = _conv_grads(x_val, [1, 1, 1, 1])
        second = tf.gradients(tf.reduce_sum(dx * dx) + tf.reduce_sum(df * df), [x, f])
        with tf.Session() as sess:
            got = sess.run(second)
        with tf.Session(config=UNFUSED) as sess:
            want = sess.run(second)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5 * np.abs(w).max())


def _marked(graph: Any, fetches: list[Any]) -> list[str]:
    """The nodes of the step that fetches `fetches` marked to keep their input tiles."""
    nodes = {op.name: node_from_operation(op) for op in graph.get_operations()}
    fused = fuse_kernels(nodes, list(nodes), [], [t.name for t in fetches], [])
    return sorted(name for name, node in fused.items() if node.attrs.get(KEEP_INPUT_TILES))


def test_the_forward_of_a_fused_backprops_input_is_marked_to_keep_its_input_tiles() -> None:
    x_val = np.random.default_rng(8).standard_normal((8, 16, 16, 2)).astype(np.float32)
    with tf.Graph().as_default() as graph:
        _, fetches = _conv_net(x_val, 12, 5)
    # Each layer's fused forward (named as its Relu: the gradients include the input's),
    # not the Conv2D it took in.
    assert _marked(graph, fetches) == ["Relu", "Relu_1"]
    with tf.Graph().as_default() as forward_only:
        y = tf.nn.relu(tf.nn.conv2d(tf.constant(x_val), tf.ones([5, 5, 2, 4]), [1] * 4, "SAME"))
    assert _marked(forward_only, [y]) == []  # no backprop to keep them for


def test_a_convolution_of_another_input_or_window_is_not_marked() -> None:
    x_val = np.random.default_rng(9).standard_normal((4, 12, 12, 8)).astype(np.float32)
    with tf.Graph().as_default() as graph:
        x, f, dx, df = _conv_grads(x_val, [1, 1, 1, 1])
        tf.nn.conv2d(x, f, [1, 1, 1, 1], "VALID", name="other_window")
        tf.nn.conv2d(x * 2.0, f, [1, 1, 1, 1], "SAME", name="other_input")
    assert _marked(graph, [dx, df]) == ["Conv2D"]
