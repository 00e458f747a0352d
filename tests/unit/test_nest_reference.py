"""tf.nest gives TF 1.15's values, error classes and messages (recorded by
tests/tf_reference/record_nest_lookup.py under TF 1.15)."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.nest_lookup_cases import nest_cases, run_nest_cases

OUTCOMES = run_nest_cases(tf)


@pytest.mark.parametrize("name", sorted(nest_cases(tf)))
def test_nest_matches_tf115(name: str) -> None:
    assert OUTCOMES[name] == reference.case("nest_lookup", "nest_" + name)


def test_nest_expand_composites_splits_a_sparse_tensor_and_rebuilds_it() -> None:
    with tf.Graph().as_default():
        sp = tf.SparseTensor(indices=[[0, 1]], values=[3.0], dense_shape=[2, 2])
        assert tf.nest.flatten([sp]) == [sp]
        parts = tf.nest.flatten([sp], expand_composites=True)
        assert len(parts) == 3
        back = tf.nest.pack_sequence_as([sp], parts, expand_composites=True)
        with tf.Session() as sess:
            value = sess.run(tf.sparse.to_dense(back[0]))
    np.testing.assert_array_equal(value, [[0.0, 3.0], [0.0, 0.0]])


def test_static_vocabulary_table_manip_and_audio_match_tf115() -> None:
    from tf_reference.nest_lookup_cases import lookup_audio_cases

    cases = lookup_audio_cases(tf, np)
    expected = reference.case("nest_lookup", "lookup_manip_audio")
    assert set(cases["values"]) == set(expected)
    for key, value in expected.items():
        if key in ("wav", "bad_wav_error"):
            assert cases["values"][key] == value, key
        else:
            reference.assert_close(cases["values"][key], value)
    assert cases["names"] == reference.case("nest_lookup", "lookup_manip_audio_names")


def test_static_vocabulary_table_refuses_no_buckets_and_float_values() -> None:
    with tf.Graph().as_default():
        init = tf.lookup.KeyValueTensorInitializer(["a"], tf.constant([0], tf.int64))
        with pytest.raises(ValueError, match="oov_buckets must be > 0"):
            tf.lookup.StaticVocabularyTable(init, num_oov_buckets=0)
        bad = tf.lookup.KeyValueTensorInitializer(["a"], [0.5])
        with pytest.raises(TypeError, match="Invalid value dtype"):
            tf.lookup.StaticVocabularyTable(bad, num_oov_buckets=1)
        table = tf.lookup.StaticVocabularyTable(init, num_oov_buckets=1)
        with pytest.raises(TypeError, match="Signature mismatch"):
            table.lookup(tf.constant([1], tf.int64))


def test_decode_wav_refuses_a_file_that_is_not_wav_and_session_keeps_working() -> None:
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Expected RIFF"):
            sess.run(tf.audio.decode_wav(b"hello").audio)
        wav = tf.audio.encode_wav([[0.5]], 100)
        assert sess.run(tf.audio.decode_wav(wav).sample_rate) == 100


def test_config_soft_placement_and_cpu_devices_match_tf115(monkeypatch: pytest.MonkeyPatch) -> None:
    from tf_reference.nest_lookup_cases import config_cases
    from tfcluster.client import context_config

    monkeypatch.setattr(
        context_config, "_settings", {**context_config._settings, "soft_placement": None}
    )
    monkeypatch.setattr(context_config.gpu, "local_gpus", lambda: [])  # TF's run had no GPU
    got = config_cases(tf)
    expected = reference.case("nest_lookup", "config")
    assert got["hard_run"]["error"] == expected["hard_run"]["error"]
    assert set(got) == set(expected)
    for key in expected:
        if key != "hard_run":
            assert got[key] == expected[key], key


def test_memory_growth_reaches_the_config_of_a_session_made_without_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tfcluster.client import context_config
    from tfcluster.runtime.gpu import GpuInfo

    monkeypatch.setattr(context_config, "_memory_growth", {})
    monkeypatch.setattr(context_config.gpu, "local_gpus", lambda: [GpuInfo(0, "fake", 1 << 30)])
    (gpu,) = tf.config.experimental.list_physical_devices("GPU")
    assert gpu.name == "/physical_device:GPU:0"
    assert tf.config.experimental.get_memory_growth(gpu) is None
    tf.config.experimental.set_memory_growth(gpu, True)
    assert tf.config.experimental.get_memory_growth(gpu) is True
    config = context_config.default_session_config()
    assert config is not None and config.gpu_options.allow_growth
