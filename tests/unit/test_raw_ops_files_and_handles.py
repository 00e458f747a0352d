"""Raw ops whose inputs name files or process-local handles (not replayable as recorded
values): each runs through tf.raw_ops with TF 1.15's keyword names, and what it writes or
hands out is read back by its counterpart. The same programs give the same results on
TF 1.15 (run by hand with tf.raw_ops there)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import tfcluster as tf

raw = tf.raw_ops


def _run(fetches: object, feeds: dict | None = None) -> object:
    with tf.Session() as sess:
        return sess.run(fetches, feeds)


def test_write_read_and_match_files(tmp_path: Path) -> None:
    path = str(tmp_path / "a.txt")
    with tf.Graph().as_default():
        w = raw.WriteFile(filename=path, contents="hello")
        with tf.control_dependencies([w]):
            r = raw.ReadFile(filename=path)
            m = raw.MatchingFiles(pattern=str(tmp_path / "*.txt"))
        got, matched = _run([r, m])
    assert got == b"hello"
    assert [p.decode() for p in matched] == [path]


def test_save_restore_and_merge_checkpoints(tmp_path: Path) -> None:
    prefix = str(tmp_path / "part")
    final = str(tmp_path / "ckpt")
    with tf.Graph().as_default():
        save = raw.SaveV2(
            prefix=prefix,
            tensor_names=["a", "b"],
            shape_and_slices=["", ""],
            tensors=[np.arange(3, dtype=np.float32), np.int64(7)],
        )
        with tf.control_dependencies([save]):
            merge = raw.MergeV2Checkpoints(checkpoint_prefixes=[prefix], destination_prefix=final)
        _run(merge)
    with tf.Graph().as_default():
        a, b = raw.RestoreV2(
            prefix=final,
            tensor_names=["a", "b"],
            shape_and_slices=["", ""],
            dtypes=[tf.float32, tf.int64],
        )
        got_a, got_b = _run([a, b])
    assert got_a.tolist() == [0.0, 1.0, 2.0] and int(got_b) == 7


def test_table_from_text_file(tmp_path: Path) -> None:
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("apple\nbanana\ncherry\n")
    with tf.Graph().as_default():
        table = raw.HashTableV2(key_dtype=tf.string, value_dtype=tf.int64)
        init = raw.InitializeTableFromTextFileV2(
            table_handle=table, filename=str(vocab), key_index=-2, value_index=-1
        )
        with tf.control_dependencies([init]):
            found = raw.LookupTableFindV2(
                table_handle=table, keys=["cherry", "kiwi"], default_value=np.int64(-1)
            )
        assert _run(found).tolist() == [2, -1]


def test_dataset_to_tfrecord_reads_back(tmp_path: Path) -> None:
    path = str(tmp_path / "out.tfrecord")
    with tf.Graph().as_default():
        ds = raw.TensorSliceDataset(
            components=[np.array([b"x", b"yz"], dtype=object)], output_shapes=[[]]
        )
        write = raw.DatasetToTFRecord(input_dataset=ds, filename=path, compression_type="")
        _run(write)
    assert list(tf.io.tf_record_iterator(path)) == [b"x", b"yz"]


def test_placeholder_is_fed() -> None:
    with tf.Graph().as_default():
        p = raw.Placeholder(dtype=tf.float32, shape=[2])
        assert p.shape.as_list() == [2] and p.op.type == "Placeholder"
        assert _run(p * 2.0, {p: [1.0, 2.0]}).tolist() == [2.0, 4.0]


def test_image_summary_and_variable_quality_jpeg_decode_back() -> None:
    image = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3) * 10
    with tf.Graph().as_default():
        s = raw.ImageSummary(tag="img", tensor=image[None].astype(np.float32) / 255.0, max_images=1)
        jpg = raw.EncodeJpegVariableQuality(images=image, quality=100)
        decoded = tf.image.decode_jpeg(jpg)
        summary, pixels = _run([s, decoded])
    assert b"img/image" in summary
    assert pixels.shape == (2, 3, 3)
    assert np.abs(pixels.astype(int) - image.astype(int)).max() <= 8


def test_random_box_and_sampler_shapes() -> None:
    with tf.Graph().as_default():
        box = raw.SampleDistortedBoundingBox(
            image_size=[10, 12, 3], bounding_boxes=[[[0.1, 0.1, 0.9, 0.9]]], seed=1, seed2=2
        )
        sampled = raw.ThreadUnsafeUnigramCandidateSampler(
            true_classes=np.array([[1], [2]], np.int64),
            num_true=1,
            num_sampled=3,
            unique=True,
            range_max=10,
            seed=1,
            seed2=2,
        )
        begin, size, bboxes, cand = _run(
            [box.begin, box.size, box.bboxes, sampled.sampled_candidates]
        )
    assert begin.shape == (3,) and size.shape == (3,) and bboxes.shape == (1, 1, 4)
    assert np.all(begin + np.where(size < 0, 0, size) <= [10, 12, 3])
    assert len(set(cand.tolist())) == 3 and all(0 <= c < 10 for c in cand)


def test_iterator_string_handle_round_trip() -> None:
    types, shapes = [tf.int64], [[]]
    with tf.Graph().as_default():
        ds = raw.TensorSliceDataset(components=[np.array([4, 5], np.int64)], output_shapes=shapes)
        it = raw.IteratorV2(shared_name="", container="", output_types=types, output_shapes=shapes)
        make = raw.MakeIterator(dataset=ds, iterator=it)
        handle = raw.IteratorToStringHandle(resource_handle=it)
        again = raw.IteratorFromStringHandleV2(
            string_handle=handle, output_types=types, output_shapes=shapes
        )
        with tf.control_dependencies([make]):
            (x,) = raw.IteratorGetNext(iterator=again, output_types=types, output_shapes=shapes)
        assert int(_run(x)) == 4


def test_tensor_array_grad_handle() -> None:
    with tf.Graph().as_default():
        ta = raw.TensorArrayV3(size=2, dtype=tf.float32)
        flow = raw.TensorArrayWriteV3(handle=ta.handle, index=0, value=[1.0], flow_in=ta.flow)
        grad = raw.TensorArrayGradV3(handle=ta.handle, flow_in=flow, source="gradients")
        gflow = raw.TensorArrayWriteV3(
            handle=grad.grad_handle, index=1, value=[3.0], flow_in=grad.flow_out
        )
        read = raw.TensorArrayReadV3(
            handle=grad.grad_handle, index=1, flow_in=gflow, dtype=tf.float32
        )
        assert _run(read).tolist() == [3.0]


def test_reader_state_round_trip() -> None:
    with tf.Graph().as_default():
        q = raw.FIFOQueueV2(component_types=[tf.string], capacity=4)
        fill = raw.QueueEnqueueManyV2(handle=q, components=[["w1", "w2", "w3"]])
        reader = raw.IdentityReaderV2()
        with tf.control_dependencies([fill]):
            first = raw.ReaderReadV2(reader_handle=reader, queue_handle=q)
        with tf.control_dependencies(list(first)):
            state = raw.ReaderSerializeStateV2(reader_handle=reader)
        with tf.control_dependencies([state]):
            second = raw.ReaderReadV2(reader_handle=reader, queue_handle=q)
        with tf.control_dependencies(list(second)):
            restore = raw.ReaderRestoreStateV2(reader_handle=reader, state=state)
        with tf.control_dependencies([restore]):
            produced = raw.ReaderNumRecordsProducedV2(reader_handle=reader)
        got = _run({"first": first.key, "second": second.key, "produced": produced})
    assert got["first"] == b"w1" and got["second"] == b"w2"
    assert int(got["produced"]) == 1
