"""Behaviours public TF1 programs (pix2pix-tensorflow's input pipeline and generator, a seq2seq
signal predictor, a Transformer, RL estimators) showed apart on tfcluster. Each case is
`fn(tf) -> dict of plain values`, run on TF 1.15 by record_image_graph_sweep.py and on tfcluster
by tests/unit/test_image_graph_sweep_behaviours.py. Python 3.7 code."""

from __future__ import annotations

import numpy as np

CASES = {}


def _ops(graph):
    return [[op.name, op.type] for op in graph.get_operations()]


def _seed_after(tf):
    """The op seed a graph-seeded random op made next gets: the count of ops made so far."""
    probe = tf.random_uniform([], name="probe")
    return int(probe.graph.get_operation_by_name("probe/RandomUniform").get_attr("seed2"))


def _image_graphs(tf):
    p = lambda shape: tf.placeholder(tf.float32, shape, name="image")  # noqa: E731
    return {
        "random_flip_left_right": lambda: tf.image.random_flip_left_right(
            p([None, None, 3]), seed=5
        ),
        "random_flip_up_down_batch": lambda: tf.image.random_flip_up_down(
            p([None, None, None, 3]), seed=5
        ),
        "flip_left_right_unknown_rank": lambda: tf.image.flip_left_right(p(None)),
        "transpose_image": lambda: tf.image.transpose_image(p([None, 5, 3])),
        "crop_to_bounding_box_tensor_offsets": lambda: tf.image.crop_to_bounding_box(
            p([286, 286, 3]), tf.constant(3), tf.constant(4), 256, 256
        ),
        "crop_to_bounding_box": lambda: tf.image.crop_to_bounding_box(
            p([None, None, 3]), 1, 2, 3, 4
        ),
        "pad_to_bounding_box": lambda: tf.image.pad_to_bounding_box(
            p([None, None, 3]), 1, 2, 30, 40
        ),
        "pad_to_bounding_box_tensor_offset": lambda: tf.image.pad_to_bounding_box(
            p([5, 6, 3]), tf.constant(1), 2, 30, 40
        ),
        "central_crop": lambda: tf.image.central_crop(p([None, None, 3]), 0.5),
        "resize_image_with_crop_or_pad": lambda: tf.image.resize_image_with_crop_or_pad(
            p([None, None, 3]), 8, 9
        ),
        "resize_image_with_pad": lambda: tf.image.resize_image_with_pad(p([None, None, 3]), 8, 9),
        "per_image_standardization": lambda: tf.image.per_image_standardization(p([None, None, 3])),
        "grayscale_to_rgb": lambda: tf.image.grayscale_to_rgb(p([None, None, 1])),
        "grayscale_to_rgb_unknown_depth": lambda: tf.image.grayscale_to_rgb(p([None, None, None])),
        "rgb_to_grayscale": lambda: tf.image.rgb_to_grayscale(p([None, None, 3])),
        "rgb_to_yiq": lambda: tf.image.rgb_to_yiq(p([None, None, 3])),
        "sobel_edges": lambda: tf.image.sobel_edges(p([None, None, None, 3])),
    }


def image_ops_on_images_of_unknown_size_add_tf115_asserts(tf):
    """pix2pix decodes PNGs of unknown size, then random_flip_left_right and
    crop_to_bounding_box with tensor offsets: TF 1.15's image ops add an assert_positive on the
    image's dynamic shape (and assert_greater_equal on its rank) when the static shape is not
    fully known, and an Assert per check of a tensor argument. Those ops count towards the op
    seeds of every random op made later (the generator's initializers), so each function's
    graph, and the op seed the next random op gets, is recorded."""
    out = {}
    for name, build in sorted(_image_graphs(tf).items()):
        graph = tf.Graph()
        with graph.as_default():
            tf.set_random_seed(1)
            result = build()
            out[name] = {
                "ops": _ops(graph),
                "shape": str(result.shape),
                "seed_after": _seed_after(tf),
            }
    return {"graphs": out}


CASES["image_ops_on_images_of_unknown_size_add_tf115_asserts"] = (
    image_ops_on_images_of_unknown_size_add_tf115_asserts
)


def image_asserts_fail_the_step_on_a_bad_image(tf):
    """The asserts those image ops add reject, when the step runs, an image with a zero-sized
    dimension or a crop that does not fit, with InvalidArgumentError."""
    tf.reset_default_graph()
    image = tf.placeholder(tf.float32, [None, None, 3])
    offset = tf.placeholder(tf.int32, [])
    flipped = tf.image.random_flip_left_right(image, seed=3)
    cropped = tf.image.crop_to_bounding_box(tf.zeros([6, 6, 3]), offset, offset, 4, 4)
    gray = tf.image.grayscale_to_rgb(tf.placeholder_with_default(tf.zeros([2, 2, 2]), None))
    out = {}
    with tf.Session() as sess:
        for name, fetch, feed in (
            ("flip_empty", flipped, {image: np.zeros((0, 4, 3), np.float32)}),
            ("flip_ok", flipped, {image: np.ones((2, 4, 3), np.float32)}),
            ("crop_too_far", cropped, {offset: 3}),
            ("crop_ok", cropped, {offset: 2}),
            ("gray_two_channels", gray, {}),
        ):
            try:
                value = sess.run(fetch, feed)
                out[name] = {"shape": list(value.shape), "sum": float(value.sum())}
            except tf.errors.OpError as e:
                out[name] = {"error": type(e).__name__}
    return out


CASES["image_asserts_fail_the_step_on_a_bad_image"] = image_asserts_fail_the_step_on_a_bad_image


def tensordot_builds_tf115_transpose_reshape_matmul(tf):
    """tf.tensordot (and so rgb_to_grayscale, rgb_to_yiq) as TF 1.15 builds it for operands of
    fully known, partly known and unknown shape and for tensor axes: Transpose, Reshape,
    MatMul, with Gather/Prod/ConcatV2 of the dynamic shape; the values and static shapes."""
    rng = np.random.RandomState(0)
    a = rng.randn(2, 3, 4).astype(np.float32)
    b = rng.randn(4, 5).astype(np.float32)
    c = rng.randn(3, 4, 6).astype(np.float32)
    cases = {
        "static": (lambda: tf.constant(a), lambda: tf.constant(b), [[2], [0]]),
        "dynamic_dims": (
            lambda: tf.placeholder(tf.float32, [None, None, 4]),
            lambda: tf.constant(b),
            [[2], [0]],
        ),
        "dynamic_int_axes": (
            lambda: tf.placeholder(tf.float32, [None, 3, 4]),
            lambda: tf.constant(c),
            2,
        ),
        "unknown_rank": (lambda: tf.placeholder(tf.float32), lambda: tf.constant(b), [[2], [0]]),
        "unknown_rank_int_axes": (lambda: tf.placeholder(tf.float32), lambda: tf.constant(c), 2),
        "negative_axes": (
            lambda: tf.placeholder(tf.float32, [None, 3, 4]),
            lambda: tf.constant(b),
            [[-1], [0]],
        ),
        "zero_axes": (lambda: tf.constant(a), lambda: tf.constant(b), 0),
    }
    out = {}
    for name, (make_a, make_b, axes) in sorted(cases.items()):
        graph = tf.Graph()
        with graph.as_default():
            x = make_a()
            y = make_b()
            product = tf.tensordot(x, y, axes)
            feed = {x: a} if x.op.type == "Placeholder" else {}
            with tf.Session() as sess:
                value = sess.run(product, feed)
            out[name] = {
                "ops": _ops(graph),
                "name": product.name,
                "shape": str(product.shape),
                "value": value.tolist(),
            }
    return out


CASES["tensordot_builds_tf115_transpose_reshape_matmul"] = (
    tensordot_builds_tf115_transpose_reshape_matmul
)


def sobel_edges_is_one_depthwise_convolution(tf):
    """tf.image.sobel_edges tiles the two filters per channel and runs one
    DepthwiseConv2dNative over the reflect-padded image: its graph and values (float32 and
    float64)."""
    x = np.random.RandomState(0).rand(2, 7, 9, 3)
    out = {}
    for dtype in ("float32", "float64"):
        graph = tf.Graph()
        with graph.as_default():
            image = tf.placeholder(dtype, [None, None, None, 3])
            edges = tf.image.sobel_edges(image)
            with tf.Session() as sess:
                value = sess.run(edges, {image: x.astype(dtype)})
            out[dtype] = {"ops": _ops(graph), "shape": str(edges.shape), "value": value.tolist()}
    return out


CASES["sobel_edges_is_one_depthwise_convolution"] = sobel_edges_is_one_depthwise_convolution


def resize_area_adds_cells_in_tf_order(tf):
    """pix2pix scales its 256x256 halves to 286x286 with ResizeMethod.AREA: TF 1.15's kernel
    sums each output's cells in float32, along a row first (the first cell times its share, the
    inner cells, the last cell times its share), then the rows times their shares, then scales;
    bit for bit, up and down, float32 and uint8 images, with and without align_corners."""
    rng = np.random.RandomState(3)
    images = {
        "float32": rng.rand(1, 13, 11, 3).astype(np.float32) * 2 - 1,
        "uint8": (rng.rand(1, 12, 9, 2) * 255).astype(np.uint8),
    }
    out = {}
    with tf.Graph().as_default(), tf.Session() as sess:
        for dtype, image in sorted(images.items()):
            for size in ((17, 15), (5, 4), (12, 9), (3, 20)):
                for align in (False, True):
                    resized = tf.image.resize_area(tf.constant(image), size, align_corners=align)
                    mode = "align" if align else "plain"
                    name = f"{dtype}_{size[0]}x{size[1]}_{mode}"
                    out[name] = sess.run(resized).tolist()
    return out


CASES["resize_area_adds_cells_in_tf_order"] = resize_area_adds_cells_in_tf_order


def py_func_keeps_its_function_off_the_collections(tf):
    """Kyubyong's Transformer turns ids into text with tf.py_func, then saves checkpoints: TF
    1.15 keeps the Python function on the graph's _py_funcs_used_in_graph list, not in a
    collection, so the graph has no such collection key and the exported MetaGraph has no
    collection_def for it (and nothing is warned while saving)."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.constant([1, 2, 3])
        y = tf.py_func(lambda v: v * 2, [x], tf.int32)
        tf.Variable(1.0, name="v")
        meta = tf.train.export_meta_graph()
        with tf.Session() as sess:
            value = sess.run(y)
    return {
        "collection_keys": sorted(graph.get_all_collection_keys()),
        "meta_collections": sorted(meta.collection_def.keys()),
        "funcs_on_graph": len(graph._py_funcs_used_in_graph),
        "value": value.tolist(),
    }


CASES["py_func_keeps_its_function_off_the_collections"] = (
    py_func_keeps_its_function_off_the_collections
)


def power_of_a_constant_is_folded_before_the_pow_rewrite(tf):
    """tf.pow(x, 2.0) of a tensor computed at run time reaches TF 1.15's arithmetic optimizer,
    which makes it Square(x) (and x ** 3 Mul(x, Square(x))); of a constant x it is folded
    first, by the Pow kernel itself (glibc's powf), whether fetched or read by another op, in
    the first run and every later one (a numpy array handed to tf.pow is such a constant). The
    values' md5 and how many differ from x * x are recorded."""
    import hashlib

    x = (np.random.RandomState(0).randn(128, 200) * 3).astype(np.float32)
    out = {}
    builds = {
        "fed_fetched": (True, lambda p: tf.pow(p, 2.0)),
        "fed_read": (True, lambda p: tf.pow(p, 2.0) * 1.0),
        "const_fetched": (False, lambda p: tf.pow(p, 2.0)),
        "const_read": (False, lambda p: tf.pow(p, 2.0) * 1.0),
        "fed_cube": (True, lambda p: tf.pow(p, 3.0)),
        "const_cube": (False, lambda p: tf.pow(p, 3.0)),
    }
    for name, (fed, build) in sorted(builds.items()):
        graph = tf.Graph()
        with graph.as_default():
            p = tf.placeholder(tf.float32, [128, 200]) if fed else tf.constant(x)
            result = build(p)
            for i in range(3):  # a graph of more than the optimizer's minimum of nodes
                tf.constant(float(i), name=f"pad{i}")
            feed = {p: x} if fed else None
            with tf.Session() as sess:
                runs = [sess.run(result, feed) for _ in range(2)]
        out[name] = [
            {
                "md5": hashlib.md5(v.tobytes()).hexdigest(),
                "unlike_square": int(np.sum(v != x * x)),
            }
            for v in runs
        ]
    return out


CASES["power_of_a_constant_is_folded_before_the_pow_rewrite"] = (
    power_of_a_constant_is_folded_before_the_pow_rewrite
)


def extract_glimpse_merges_the_batch_with_the_offsets(tf):
    """ExtractGlimpse's shape function: offsets must be [batch, 2]; their batch merges with
    the input's (a batch known from either side is the output's), a mismatch or a second
    dimension other than 2 is a ValueError naming the node and the input shapes."""
    graph = tf.Graph()
    out = {}
    with graph.as_default():
        for images, offsets in (
            ([None, 8, 8, 3], [1, 2]),
            ([4, 8, 8, 3], [None, 2]),
            ([None, 8, 8, 3], [None, 2]),
            ([3, 8, 8, 3], [2, 2]),
            ([3, 8, 8, 3], [3, 3]),
        ):
            key = f"{images}_{offsets}"
            try:
                glimpse = tf.image.extract_glimpse(
                    tf.placeholder(tf.float32, images), [2, 2], tf.placeholder(tf.float32, offsets)
                )
                out[key] = str(glimpse.shape)
            except ValueError as e:
                out[key] = "ValueError: " + str(e)
    return out


CASES["extract_glimpse_merges_the_batch_with_the_offsets"] = (
    extract_glimpse_merges_the_batch_with_the_offsets
)


def crop_and_resize_and_resize_shape_errors(tf):
    """CropAndResize's shape function (boxes [num_boxes, 4] merged with box_ind [num_boxes])
    and the rank / size checks of the image ops' shape functions: ValueErrors that name the
    node, its op type and the input shapes, as TF 1.15's shape inference says them."""
    p = tf.placeholder
    builds = {
        "crop_boxes_of_five": lambda: tf.image.crop_and_resize(
            p(tf.float32, [2, 8, 8, 3]), p(tf.float32, [3, 5]), p(tf.int32, [3]), [2, 2]
        ),
        "crop_box_ind_mismatch": lambda: tf.image.crop_and_resize(
            p(tf.float32, [2, 8, 8, 3]), p(tf.float32, [3, 4]), p(tf.int32, [2]), [2, 2]
        ),
        "crop_batch_from_box_ind": lambda: tf.image.crop_and_resize(
            p(tf.float32, [2, 8, 8, 3]), p(tf.float32, [None, 4]), p(tf.int32, [5]), [2, 2]
        ),
        "crop_boxes_rank_3": lambda: tf.image.crop_and_resize(
            p(tf.float32, [2, 8, 8, 3]), p(tf.float32, [3, 4, 1]), p(tf.int32, [3]), [2, 2]
        ),
        "crop_image_rank_3": lambda: tf.image.crop_and_resize(
            p(tf.float32, [2, 8, 8]), p(tf.float32, [3, 4]), p(tf.int32, [3]), [2, 2]
        ),
        "resize_bilinear_rank_3": lambda: tf.image.resize_bilinear(
            p(tf.float32, [8, 8, 3]), [2, 2]
        ),
        "resize_bilinear_size_of_three": lambda: tf.image.resize_bilinear(
            p(tf.float32, [1, 8, 8, 3]), p(tf.int32, [3])
        ),
    }
    out = {}
    with tf.Graph().as_default():
        for name, build in sorted(builds.items()):
            try:
                out[name] = str(build().shape)
            except ValueError as e:
                out[name] = "ValueError: " + str(e)
    return out


CASES["crop_and_resize_and_resize_shape_errors"] = crop_and_resize_and_resize_shape_errors
