"""Pooling kernels cut a large batch in a number of cache-sized blocks that is a multiple of
four (kernels/_window.block_items' `multiple`), so two or four threads taking blocks in turn
end together; convolutions keep their blocks (a product's rows cut otherwise may round
otherwise)."""

from __future__ import annotations

import numpy as np
from tfcluster.kernels import _window


def test_a_multiple_cuts_the_batch_in_a_multiple_of_that_many_blocks() -> None:
    # 128 images of 100 KB in blocks of about 2 MB: 7 blocks of 20 images, or 8 of 18.
    nbytes = 128 * 100_000
    plain = _window.block_items(np, 128, nbytes, _window.CACHE_BLOCK)
    assert (plain, -(-128 // plain)) == (20, 7)
    even = _window.block_items(np, 128, nbytes, _window.CACHE_BLOCK, _window.BLOCKS_MULTIPLE)
    assert (even, -(-128 // even)) == (18, 8)


def test_blocks_shrink_at_most_to_half_for_a_multiple_of_four() -> None:
    for batch in range(1, 200):
        for per_image in (90_000, 300_000, 700_000, 3_000_000):
            nbytes = batch * per_image
            plain = _window.block_items(np, batch, nbytes, _window.CACHE_BLOCK)
            even = _window.block_items(np, batch, nbytes, _window.CACHE_BLOCK, 4)
            assert max(1, plain // 2) <= even <= plain
            assert -(-batch // even) % 4 == 0 or even == plain


def test_a_pool_over_many_blocks_is_the_whole_batch_pool() -> None:
    import tfcluster as tf

    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 28, 28, 32)).astype(np.float32)  # 6.4 MB: 4 blocks
    g = tf.Graph()
    with g.as_default():
        xt = tf.constant(x)
        y = tf.nn.max_pool(xt, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    with tf.Session(graph=g) as sess:
        got = sess.run(y)
    want = x.reshape(64, 14, 2, 14, 2, 32).max(axis=(2, 4))
    np.testing.assert_array_equal(got, want)
