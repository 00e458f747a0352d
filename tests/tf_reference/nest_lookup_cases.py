"""tf.nest cases written once for TF 1.15 and tfcluster: each returns repr() of its result or
the error it raises (class and message), so the test compares both exactly."""

import collections

Point = collections.namedtuple("Point", ["x", "y"])


def _outcome(fn):
    try:
        return {"value": repr(fn())}
    except Exception as e:  # the class and message are what is compared
        return {"error": type(e).__name__, "message": str(e)}


def nest_cases(tf):
    nest = tf.nest
    nested = {"b": [1, (2, 3)], "a": Point(4, {"z": 5, "y": 6}), "c": None}
    return {
        "flatten_dict_namedtuple": lambda: nest.flatten(nested),
        "flatten_scalar": lambda: nest.flatten(7),
        "flatten_string": lambda: nest.flatten("abc"),
        "flatten_none": lambda: nest.flatten(None),
        "flatten_empty": lambda: nest.flatten([(), [], {}]),
        "is_nested": lambda: [nest.is_nested(v) for v in ([], (), {}, "s", 1, Point(1, 2), None)],
        "pack_roundtrip": lambda: nest.pack_sequence_as(nested, list(range(7))),
        "pack_scalar": lambda: nest.pack_sequence_as(1, [9]),
        "pack_scalar_too_many": lambda: nest.pack_sequence_as(1, [9, 8]),
        "pack_too_few": lambda: nest.pack_sequence_as([1, (2, 3)], [9, 8]),
        "pack_too_many": lambda: nest.pack_sequence_as([1, (2, 3)], [9, 8, 7, 6]),
        "pack_flat_not_sequence": lambda: nest.pack_sequence_as([1], 5),
        "map_add": lambda: nest.map_structure(lambda a, b: a + b, [1, (2, 3)], [10, (20, 30)]),
        "map_dict": lambda: nest.map_structure(lambda v: v * 2, {"b": 1, "a": Point(2, 3)}),
        "map_no_structure": lambda: nest.map_structure(lambda: 1),
        "map_bad_kwarg": lambda: nest.map_structure(lambda v: v, [1], bad=True),
        "map_types_differ": lambda: nest.map_structure(lambda a, b: a, [1, 2], (1, 2)),
        "map_types_unchecked": lambda: nest.map_structure(
            lambda a, b: a + b, [1, 2], (3, 4), check_types=False
        ),
        "same_ok": lambda: nest.assert_same_structure([1, (2, {"k": 3})], [4, (5, {"k": 6})]),
        "same_len_differs": lambda: nest.assert_same_structure([1, 2], [1, 2, 3]),
        "same_seq_vs_scalar": lambda: nest.assert_same_structure([1, [2]], [1, 2]),
        "same_type_differs": lambda: nest.assert_same_structure([1, 2], (1, 2)),
        "same_type_unchecked": lambda: nest.assert_same_structure(
            [1, 2], (1, 2), check_types=False
        ),
        "same_namedtuple_vs_tuple": lambda: nest.assert_same_structure(Point(1, 2), (1, 2)),
        "same_keys_differ": lambda: nest.assert_same_structure({"a": 1}, {"b": 1}),
        "same_expand_composites": lambda: nest.assert_same_structure(
            [1], [2], expand_composites=True
        ),
    }


def run_nest_cases(tf):
    return {name: _outcome(fn) for name, fn in nest_cases(tf).items()}


AUDIO = [[0.0, 0.5], [-1.0, 1.0], [0.25, -0.3], [2.0, -2.0]]


def lookup_audio_cases(tf, np):
    """Values of tf.lookup.StaticVocabularyTable, tf.manip and tf.audio on fixed inputs."""
    out = {}
    with tf.Graph().as_default():
        init = tf.lookup.KeyValueTensorInitializer(
            ["emerson", "lake", "palmer"], tf.constant([0, 1, 2], tf.int64)
        )
        table = tf.lookup.StaticVocabularyTable(init, num_oov_buckets=5)
        ids = table.lookup(tf.constant(["lake", "zappa", "palmer", "bach", "emerson", ""]))
        int_init = tf.lookup.KeyValueTensorInitializer(
            tf.constant([10, 20], tf.int64), tf.constant([0, 1], tf.int64)
        )
        int_table = tf.lookup.StaticVocabularyTable(int_init, num_oov_buckets=3)
        int_ids = int_table.lookup(tf.constant([20, 7, 10, 123456789], tf.int64))
        x = tf.constant(np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1))
        s2b = tf.manip.space_to_batch_nd(x, [2, 2], [[0, 0], [0, 0]])
        b2s = tf.manip.batch_to_space_nd(s2b, [2, 2], [[0, 0], [0, 0]])
        wav = tf.audio.encode_wav(tf.constant(AUDIO, tf.float32), 16000)
        back = tf.audio.decode_wav(wav)
        more = tf.audio.decode_wav(wav, desired_channels=3, desired_samples=6)
        fewer = tf.audio.decode_wav(wav, desired_channels=1, desired_samples=2)
        mono = tf.audio.decode_wav(
            tf.audio.encode_wav(tf.constant(AUDIO, tf.float32)[:, :1], 8000), desired_channels=2
        )
        with tf.Session() as sess:
            sess.run(tf.tables_initializer())
            values = sess.run(
                {
                    "ids": ids,
                    "size": table.size(),
                    "int_ids": int_ids,
                    "s2b": s2b,
                    "b2s": b2s,
                    "wav": wav,
                    "back": back.audio,
                    "rate": back.sample_rate,
                    "more": more.audio,
                    "fewer": fewer.audio,
                    "mono": mono.audio,
                }
            )
            try:
                sess.run(tf.audio.decode_wav(b"hello").audio)
            except Exception as e:
                values["bad_wav_error"] = type(e).__name__
        out["values"] = values
        out["names"] = {
            "ids": ids.name,
            "wav": wav.name,
            "audio": back.audio.name,
            "rate": back.sample_rate.name,
            "more_shape": str(more.audio.shape),
            "back_shape": str(back.audio.shape),
        }
    return out


def config_cases(tf):
    """tf.config's soft device placement as a session made without a config sees it, and the
    CPU device lists (run last: it changes process-wide settings)."""

    def run_on_missing_gpu():
        with tf.Graph().as_default():
            with tf.device("/device:GPU:0"):
                total = tf.constant(1.0) + 1
            with tf.Session() as sess:
                return _outcome(lambda: float(sess.run(total)))

    cpu = tf.config.experimental.list_physical_devices("CPU")
    out = {
        "soft_default": tf.config.get_soft_device_placement(),
        "hard_run": run_on_missing_gpu(),
        "physical_cpu": repr(cpu),
        "visible_cpu": repr(tf.config.experimental.get_visible_devices("CPU")),
        "logical_cpu": repr(tf.config.experimental.list_logical_devices("CPU")),
        "growth_cpu": _outcome(lambda: tf.config.experimental.get_memory_growth(cpu[0])),
        "set_growth_cpu": _outcome(lambda: tf.config.experimental.set_memory_growth(cpu[0], True)),
    }
    tf.config.set_soft_device_placement(True)
    out["soft_set"] = tf.config.get_soft_device_placement()
    out["soft_run"] = run_on_missing_gpu()
    return out
