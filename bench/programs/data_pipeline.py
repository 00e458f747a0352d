"""Issue 16: tf.data input pipelines on one task (the local Session).

The program writes its TFRecord files with its own `tf` (the same seeded content on both
sides): Examples of an 'image' (random bytes) and a 'label', about 1 KB or 100 KB each, in
4 files. Every pipeline repeats, so the timing never reaches an end; each timed call is one
`Session.run` of a batch's labels (the whole element is computed by the pipeline anyway).

Rows (records/s, and MB/s of records read, median over samples):
  tfrecord 1KB read+shuffle+batch+parse_example     TFRecordDataset(4 files).shuffle(1000)
                                                    .batch(128).map(parse_example)
  tfrecord 100KB read+shuffle+batch+parse_example   the same with 100 KB records, batch 32,
                                                    shuffle(100)
  map num_parallel_calls=2 (parse_single_example)   TFRecordDataset(1 KB).map(parse_single_
                                                    example, decode_raw, cast, /255,
                                                    num_parallel_calls=2).batch(128)
  map num_parallel_calls=2 (parse + random noise)  the same map plus uniform noise on
                                                    each image (a random op in the function)
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _common as c

FILES = 4
SMALL_BYTES, SMALL_PER_FILE, SMALL_BATCH = 1000, 5000, 128
BIG_BYTES, BIG_PER_FILE, BIG_BATCH = 100_000, 100, 32
ROW_SMALL = "tfrecord 1KB read+shuffle+batch+parse_example"
ROW_BIG = "tfrecord 100KB read+shuffle+batch+parse_example"
ROW_MAP = "map num_parallel_calls=2 (parse_single_example)"
ROW_MAP_RANDOM = "map num_parallel_calls=2 (parse + random noise)"
FEATURES = [
    "data.TFRecordDataset",
    "data.Dataset",
    "python_io.TFRecordWriter",
    "parse_example",
    "parse_single_example",
    "decode_raw",
]


def write_files(
    tf: Any, directory: str, name: str, size: int, per_file: int
) -> tuple[list[str], int]:
    """The files and the size in bytes of one serialized record."""
    rng = np.random.default_rng(size)
    paths = []
    record_size = 0
    for k in range(FILES):
        path = os.path.join(directory, f"{name}-{k}.tfrecord")
        with tf.python_io.TFRecordWriter(path) as w:
            for i in range(per_file):
                image = rng.integers(0, 256, size, dtype=np.uint8).tobytes()
                feature = {
                    "image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[image])),
                    "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 10])),
                }
                record = tf.train.Example(
                    features=tf.train.Features(feature=feature)
                ).SerializeToString()
                record_size = len(record)
                w.write(record)
        paths.append(path)
    return paths, record_size


def features(tf: Any) -> dict[str, Any]:
    return {
        "image": tf.FixedLenFeature([], tf.string),
        "label": tf.FixedLenFeature([], tf.int64),
    }


def batched_parse(tf: Any, paths: list[str], batch: int, buffer: int) -> Any:
    ds = tf.data.TFRecordDataset(paths).shuffle(buffer, seed=1).batch(batch)
    ds = ds.map(lambda s: tf.parse_example(s, features(tf))).repeat()
    return tf.data.make_one_shot_iterator(ds).get_next()["label"]


def per_element_map(tf: Any, paths: list[str], noise: bool) -> Any:
    def parse(serialized: Any) -> Any:
        f = tf.parse_single_example(serialized, features(tf))
        image = tf.cast(tf.decode_raw(f["image"], tf.uint8), tf.float32) / 255.0
        image = tf.reshape(image, [25, 40])
        if noise:
            image = image + tf.random_uniform([25, 40], maxval=0.01, seed=3)
        return image, tf.cast(f["label"], tf.int32)

    ds = tf.data.TFRecordDataset(paths).map(parse, num_parallel_calls=2)
    ds = ds.batch(SMALL_BATCH).repeat()
    return tf.data.make_one_shot_iterator(ds).get_next()


def check(tf: Any, sess: Any, name: str, fetch: Any) -> None:
    """A pipeline gives what it should before it is timed."""
    if name in (ROW_SMALL, ROW_BIG):
        labels = sess.run(fetch)
        n = SMALL_BATCH if name == ROW_SMALL else BIG_BATCH
        assert labels.shape == (n,) and set(labels.tolist()) <= set(range(10)), labels
        return
    images, labels = sess.run(fetch)
    assert images.shape == (SMALL_BATCH, 25, 40) and images.dtype == np.float32
    assert images.min() >= 0.0 and images.max() <= 1.01
    assert labels.tolist()[:12] == [i % 10 for i in range(12)]


def main() -> None:
    args = c.base_parser(__doc__ or "").parse_args()
    tf = c.import_tf(args.impl)
    c.require(tf, args.impl, FEATURES, "issue 16")
    cap = c.seconds_cap(args)
    directory = tempfile.mkdtemp(prefix="bench-data-")
    try:
        c.progress("writing TFRecord files")
        small, small_size = write_files(tf, directory, "small", SMALL_BYTES, SMALL_PER_FILE)
        big, big_size = write_files(tf, directory, "big", BIG_BYTES, BIG_PER_FILE)
        builders = {
            ROW_SMALL: lambda: batched_parse(tf, small, SMALL_BATCH, 1000),
            ROW_BIG: lambda: batched_parse(tf, big, BIG_BATCH, 100),
            ROW_MAP: lambda: per_element_map(tf, small, noise=False),
            ROW_MAP_RANDOM: lambda: per_element_map(tf, small, noise=True),
        }
        times: dict[str, list[float]] = {}
        profiles: dict[str, str] = {}
        profiled = {n.strip().rsplit(" (", 1)[0] for n in args.profile.split(",") if n.strip()}
        for name, build in builders.items():
            # One pipeline at a time, in its own session: the background threads of the
            # others (TF's and tfcluster's) must not compete with it.
            graph = tf.Graph()
            with graph.as_default():
                fetch = build()
            sess = tf.Session(graph=graph)
            check(tf, sess, name, fetch)
            c.progress(f"timing {name}")
            fn = lambda f=fetch, s=sess: s.run(f)  # noqa: E731
            got = c.sample_interleaved(
                {name: fn},
                warmup=5,
                samples=12 if args.quick else 30,
                max_seconds=cap,
                batch_target_s=0.05,
            )
            times[name] = got[name]
            if name in profiled:
                profiles[name] = c.profile_calls(fn, 30)
            sess.close()
        per_batch = {ROW_SMALL: SMALL_BATCH, ROW_BIG: BIG_BATCH}
        sizes = {ROW_SMALL: small_size, ROW_BIG: big_size}
        rows: list[c.Row] = []
        for name, xs in times.items():
            n = per_batch.get(name, SMALL_BATCH)
            rate = [n / x for x in xs]
            size = sizes.get(name, small_size)
            detail = f"batch {n}, {size} B records"
            rows.append(c.rate_row(f"{name} (records/s)", "records/s", rate, detail))
            if name in sizes:
                mbs = [r * size / 1e6 for r in rate]
                rows.append(c.rate_row(f"{name} (MB/s)", "MB/s", mbs, detail))
            c.progress(f"  {name}: {c.median(rate):.0f} records/s")
        for row in rows:
            row.profile = profiles.get(row.name.rsplit(" (", 1)[0], "")
        c.emit(args.impl, rows)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
