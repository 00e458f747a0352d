"""tf.summary.image, audio, tensor_summary and text, written once against the TF1 API and run
twice: by record_summaries.py under TensorFlow 1.15 and by
tests/unit/test_summaries_reference.py under tfcluster. Each case returns what TensorBoard
would read: tags, the images' sizes and decoded pixels, the audio clips' rates, channels and
decoded samples, the tensors' dtypes, shapes and plugin metadata, op names and error classes.

Kept runnable on Python 3.7 (TensorFlow 1.15's interpreter) with numpy and Pillow.
"""

from __future__ import annotations

import io
import wave

import numpy as np

try:
    from tf_reference.case_tools import error, registrar, run_error
except ImportError:  # the recorder runs from this folder
    from case_tools import error, registrar, run_error

CASES = {}


case = registrar(CASES)


def _decode(tf, serialized):
    from PIL import Image

    summ = tf.summary.Summary.FromString(serialized)
    out = []
    for v in summ.value:
        kind = v.WhichOneof("value")
        item = {"tag": v.tag, "kind": kind}
        if kind == "image":
            pixels = np.array(Image.open(io.BytesIO(v.image.encoded_image_string)))
            item.update(
                height=v.image.height,
                width=v.image.width,
                colorspace=v.image.colorspace,
                pixels=pixels,
            )
        elif kind == "audio":
            with wave.open(io.BytesIO(v.audio.encoded_audio_string)) as w:
                samples = np.frombuffer(w.readframes(w.getnframes()), np.int16)
                params = [w.getnchannels(), w.getsampwidth(), w.getframerate()]
            item.update(
                sample_rate=v.audio.sample_rate,
                channels=v.audio.num_channels,
                frames=v.audio.length_frames,
                content_type=v.audio.content_type,
                wav=params,
                samples=samples.reshape(-1, params[0]),
            )
        elif kind == "tensor":
            t = v.tensor
            item.update(
                dtype=t.dtype,
                shape=[d.size for d in t.tensor_shape.dim],
                plugin=v.metadata.plugin_data.plugin_name,
                display_name=v.metadata.display_name,
                description=v.metadata.summary_description,
                content=t.tensor_content,
                strings=list(t.string_val),
            )
        out.append(item)
    return out


@case
def images(tf):
    rng = np.random.RandomState(0)
    with tf.Graph().as_default():
        summaries = [
            tf.summary.image("imgs", tf.constant(rng.rand(4, 5, 6, 3).astype(np.float32))),
            tf.summary.image(
                "neg",
                tf.constant((rng.rand(2, 3, 4, 1) - 0.7).astype(np.float32)),
                max_outputs=1,
                family="fam",
            ),
            tf.summary.image(
                "bad", tf.constant(np.array([[[[np.nan], [1.0]], [[0.5], [np.inf]]]], np.float32))
            ),
            tf.summary.image(
                "u8", tf.constant(rng.randint(0, 255, (1, 3, 3, 4)).astype(np.uint8)), max_outputs=5
            ),
            tf.summary.image(
                "rgb_bad",
                tf.constant(np.array([[[[0.2, np.nan, 0.1], [1.0, 2.0, 3.0]]]], np.float64)),
            ),
            tf.summary.image("flat", tf.zeros([1, 2, 2, 3])),
        ]
        with tf.Session() as sess:
            decoded = [_decode(tf, sess.run(s)) for s in summaries]
        return {
            "decoded": decoded,
            "ops": [[s.op.name, s.op.type] for s in summaries],
            "collected": len(tf.get_collection(tf.GraphKeys.SUMMARIES)),
            "rank3": run_error(tf, tf.summary.image("rank3", tf.zeros([2, 2, 3]))),
            "two_channels": run_error(
                tf,
                tf.summary.image("ch2", tf.placeholder_with_default(tf.zeros([1, 2, 2, 2]), None)),
            ),
        }


@case
def audio(tf):
    with tf.Graph().as_default():
        stereo = np.sin(np.linspace(0, 20, 2 * 100 * 2)).reshape(2, 100, 2).astype(np.float32) * 1.2
        summaries = [
            tf.summary.audio("snd", tf.constant(stereo), 8000),
            tf.summary.audio(
                "mono",
                tf.constant(np.linspace(-1, 1, 50).reshape(1, 50).astype(np.float32)),
                16000,
                max_outputs=1,
            ),
            tf.summary.audio(
                "rate_tensor", tf.zeros([3, 10, 1]), tf.constant(22050.0), max_outputs=2
            ),
        ]
        with tf.Session() as sess:
            decoded = [_decode(tf, sess.run(s)) for s in summaries]
        return {
            "decoded": decoded,
            "ops": [[s.op.name, s.op.type] for s in summaries],
            "not_float": {
                "error": error(lambda: tf.summary.audio("i", tf.zeros([1, 2], tf.int32), 10))[
                    "error"
                ]
            },
        }


@case
def tensor_and_text(tf):
    with tf.Graph().as_default():
        summaries = [
            tf.summary.tensor_summary("tens", tf.constant([[1, 2], [3, 4]])),
            tf.summary.tensor_summary(
                "floats",
                tf.constant([1.5, -2.0]),
                summary_description="desc",
                display_name="shown",
                family="fam",
            ),
            tf.summary.text("txt", tf.constant(["a", "b"])),
            tf.summary.text("scalar_txt", tf.constant("hello")),
        ]
        with tf.Session() as sess:
            decoded = [_decode(tf, sess.run(s)) for s in summaries]
            merged = _decode(tf, sess.run(tf.summary.merge(summaries)))
        return {
            "decoded": decoded,
            "merged_tags": [m["tag"] for m in merged],
            "ops": [[s.op.name, s.op.type, len(s.op.inputs)] for s in summaries],
            "text_not_string": {
                "error": error(lambda: tf.summary.text("bad", tf.constant(1)))["error"]
            },
        }
