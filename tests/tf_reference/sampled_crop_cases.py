"""The crops SampleDistortedBoundingBox draws for a seed, as TF 1.15's kernel draws them
(its Philox stream read as SimplePhilox: a RandFloat per attempt's aspect ratio, exact
uniform integers for the height and the offsets, four words reserved per attempt and run),
and the seeds tf.image.sample_distorted_bounding_box gives the op (as passed: no graph
seed). Several runs of each op, so the stream's position between runs counts too. Written
once for TF 1.15 (record_sampled_crop.py) and tfcluster (tests/unit/test_sampled_crop.py);
kept runnable on Python 3.7."""

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import registrar
except ImportError:
    from case_tools import registrar

CASES = {}
case = registrar(CASES, own_graph=True)


def _runs(tf, outputs, times=4):
    with tf.Session() as sess:
        return [[v.tolist() for v in sess.run(list(outputs))] for _ in range(times)]


def _raw(tf, size, boxes, covered, seed, seed2, **attrs):
    return tf.raw_ops.SampleDistortedBoundingBoxV2(
        image_size=size,
        bounding_boxes=boxes,
        min_object_covered=covered,
        seed=seed,
        seed2=seed2,
        **attrs,
    )


@case
def whole_image_small(tf):
    outs = _raw(tf, [8, 8, 3], tf.zeros([1, 0, 4]), 0.1, 1, 2, use_image_if_no_bounding_boxes=True)
    return {"runs": _runs(tf, outs)}


@case
def whole_image_seed_only(tf):
    outs = _raw(tf, [8, 8, 3], tf.zeros([1, 0, 4]), 0.1, 7, 0, use_image_if_no_bounding_boxes=True)
    return {"runs": _runs(tf, outs)}


@case
def inception_style_ranges(tf):
    outs = _raw(
        tf,
        tf.constant([299, 400, 3]),
        tf.constant([[[0.1, 0.2, 0.9, 0.7]]]),
        0.1,
        11,
        22,
        aspect_ratio_range=[0.75, 1.33],
        area_range=[0.05, 1.0],
        max_attempts=100,
    )
    return {"runs": _runs(tf, outs, 6)}


@case
def tight_coverage_few_attempts(tf):
    outs = _raw(
        tf,
        tf.constant([64, 48, 1], tf.int64),
        tf.constant([[[0.0, 0.0, 0.5, 0.5], [0.4, 0.4, 1.0, 1.0]]]),
        0.9,
        3,
        4,
        aspect_ratio_range=[0.5, 2.0],
        area_range=[0.3, 0.6],
        max_attempts=5,
    )
    return {"runs": _runs(tf, outs, 6)}


@case
def image_function_seeds(tf):
    boxes = tf.constant([[[0.0, 0.0, 1.0, 1.0]]])
    one = tf.image.sample_distorted_bounding_box([120, 90, 3], boxes, seed=5)
    two = tf.image.sample_distorted_bounding_box([120, 90, 3], boxes, seed=5, seed2=9)
    return {
        "seed": _runs(tf, one[:2], 3),
        "seed_and_seed2": _runs(tf, two[:2], 3),
        "attrs": [one[0].op.get_attr("seed"), one[0].op.get_attr("seed2")],
    }
