"""Issue 16: queue-based input, the TF1 "reading data" pipeline of TensorFlow's r1.x MNIST
reader example (fully_connected_reader.py's inputs()): TFRecord files of Examples (a 784-byte
image and a label), string_input_producer -> TFRecordReader.read -> parse_single_example ->
decode_raw -> scale -> tf.train.shuffle_batch(batch 128, 2 threads, capacity 1000 + 3 * 128,
min_after_dequeue 1000), its QueueRunners started under a Coordinator; the main thread
fetches batches as a training loop would.

Row:
  queue shuffle_batch records/s   records the main thread receives per second, median over
                                  1 s windows after warm-up
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _common as c

ROW = "queue shuffle_batch records/s"
FILES, PER_FILE, PIXELS, BATCH = 8, 1250, 784, 128
NUM_THREADS = 2  # as the example: two threads run the enqueue op
FEATURES = [
    "train.string_input_producer",
    "train.shuffle_batch",
    "train.start_queue_runners",
    "TFRecordReader",
    "parse_single_example",
    "decode_raw",
]


def images() -> np.ndarray:
    return np.random.default_rng(0).integers(0, 256, (FILES * PER_FILE, PIXELS), dtype=np.uint8)


def write_files(tf: Any, folder: str, pixels: np.ndarray) -> list[str]:
    names = []
    for f in range(FILES):
        name = os.path.join(folder, f"train-{f:02d}.tfrecords")
        with tf.python_io.TFRecordWriter(name) as w:
            for i in range(f * PER_FILE, (f + 1) * PER_FILE):
                feature = {
                    "image_raw": tf.train.Feature(
                        bytes_list=tf.train.BytesList(value=[pixels[i].tobytes()])
                    ),
                    "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 10])),
                    "index": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
                }
                w.write(
                    tf.train.Example(
                        features=tf.train.Features(feature=feature)
                    ).SerializeToString()
                )
        names.append(name)
    return names


def build(tf: Any, files: list[str]) -> tuple[Any, Any, Any]:
    """The inputs() of the MNIST reader example, with the record index kept for the check."""
    filename_queue = tf.train.string_input_producer(files)
    reader = tf.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    features = tf.parse_single_example(
        serialized,
        features={
            "image_raw": tf.FixedLenFeature([], tf.string),
            "label": tf.FixedLenFeature([], tf.int64),
            "index": tf.FixedLenFeature([], tf.int64),
        },
    )
    image = tf.decode_raw(features["image_raw"], tf.uint8)
    image.set_shape([PIXELS])
    image = tf.cast(image, tf.float32) * (1.0 / 255) - 0.5
    label = tf.cast(features["label"], tf.int32)
    return tf.train.shuffle_batch(
        [image, label, features["index"]],
        batch_size=BATCH,
        num_threads=NUM_THREADS,
        capacity=1000 + 3 * BATCH,
        min_after_dequeue=1000,
    )


def check(batch: list[np.ndarray], pixels: np.ndarray) -> None:
    images_, labels, index = batch
    want = pixels[index].astype(np.float32) * (1.0 / 255) - 0.5
    np.testing.assert_allclose(images_, want, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(labels, (index % 10).astype(np.int32))
    assert images_.shape == (BATCH, PIXELS) and images_.dtype == np.float32


def window_rates(stamps: list[float], width: float) -> list[float]:
    """Records/s in each whole window of `width` seconds between the first and last batch."""
    start, end = stamps[0], stamps[-1]
    edges = np.arange(start, end - width + 1e-9, width)
    counts = np.histogram(stamps[1:], bins=[*edges, edges[-1] + width])[0] if len(edges) else []
    return [float(n) * BATCH / width for n in counts]


def main() -> None:
    args = c.base_parser(__doc__ or "").parse_args()
    tf = c.import_tf(args.impl)
    c.require(tf, args.impl, FEATURES, "issue 16")
    seconds = c.seconds_cap(args)
    folder = tempfile.mkdtemp(prefix="queue_input_")
    try:
        pixels = images()
        c.progress(f"writing {FILES} files of {PER_FILE} Examples")
        files = write_files(tf, folder, pixels)
        batch = build(tf, files)
        sess = tf.Session()
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        try:
            for _ in range(5):
                check(sess.run(batch), pixels)
            c.progress("warm-up")
            end = time.perf_counter() + (1.0 if args.quick else 3.0)
            while time.perf_counter() < end:
                sess.run(batch)
            c.progress(f"timing for {seconds:.0f} s")
            stamps = [time.perf_counter()]
            end = stamps[0] + seconds
            while stamps[-1] < end:
                sess.run(batch)
                stamps.append(time.perf_counter())
            if args.profile and ROW in args.profile:
                c.progress(f"profiling {ROW!r}")
                profile = c.profile_calls(lambda: sess.run(batch), 200)
            else:
                profile = ""
        finally:
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)
            sess.close()
        rates = window_rates(stamps, 1.0)
        overall = (len(stamps) - 1) * BATCH / (stamps[-1] - stamps[0])
        row = c.rate_row(
            ROW,
            "records/s",
            rates,
            detail=f"{overall:.0f} records/s over {len(stamps) - 1} batches",
        )
        row.profile = profile
        c.progress(f"  {ROW}: median {row.median:.0f} over {row.samples} windows ({row.detail})")
        c.emit(args.impl, [row])
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
