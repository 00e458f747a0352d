"""Programs for the audio feature ops (AudioSpectrogram, Mfcc, AudioSummary), the block RNN
cells (LSTMBlockCell, BlockLSTM(V2), GRUBlockCell and their gradient ops) and the quantized
ops, through tf.raw_ops: each case builds a graph with `tf` (TensorFlow 1.15 when recorded by
record_quantaudio.py, tfcluster in tests/unit/test_quantaudio_ops.py) and returns what it
computes, its shapes and dtypes, or the class of the error it raises. Python 3.7 code."""

import io
import wave

import numpy as np


def _error(fn):
    try:
        fn()
    except Exception as e:  # the class name is what is compared
        return type(e).__name__
    return "no error"


def _run(tf, fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def _static(t):
    return {"shape": t.shape.as_list() if t.shape.ndims is not None else None,
            "dtype": t.dtype.name}


def _described(tf, outputs, feed=None):
    """Values, static shapes and dtypes of a list of tensors."""
    values = _run(tf, list(outputs), feed)
    return {
        "values": [np.asarray(v) for v in values],
        "static": [_static(t) for t in outputs],
    }


def _wave(samples, channels):
    t = np.arange(samples, dtype=np.float64)
    cols = [np.sin(t * (0.05 + 0.11 * c)) * 0.5 + 0.1 * np.cos(t * 0.73 * (c + 1))
            for c in range(channels)]
    return np.stack(cols, axis=1).astype(np.float32)


# ---- audio ------------------------------------------------------------------------------------
def spectrogram_magnitude(tf):
    s = tf.raw_ops.AudioSpectrogram(input=_wave(1000, 1), window_size=200, stride=75)
    return _described(tf, [s])


def spectrogram_channels_share_one_stream(tf):
    # TF's kernel streams the channels one after another: the second channel's first
    # window reaches back into the first channel.
    s = tf.raw_ops.AudioSpectrogram(input=_wave(950, 2), window_size=150, stride=100)
    return _described(tf, [s])


def spectrogram_channels_count_mismatch(tf):
    s = tf.raw_ops.AudioSpectrogram(input=_wave(1000, 2), window_size=200, stride=75)
    return {"error": _error(lambda: _run(tf, s)), "static": [_static(s)]}


def spectrogram_squared_odd_window(tf):
    s = tf.raw_ops.AudioSpectrogram(
        input=_wave(777, 1), window_size=129, stride=64, magnitude_squared=True)
    return _described(tf, [s])


def spectrogram_too_short(tf):
    s = tf.raw_ops.AudioSpectrogram(input=_wave(50, 1), window_size=64, stride=16)
    return _described(tf, [s])


def spectrogram_unknown_length(tf):
    x = tf.placeholder(tf.float32, [None, 3])
    s = tf.raw_ops.AudioSpectrogram(input=x, window_size=20, stride=20)
    return _described(tf, [s], {x: _wave(100, 3)})


def spectrogram_errors(tf):
    x = tf.placeholder(tf.float32)
    s = tf.raw_ops.AudioSpectrogram(input=x, window_size=30, stride=10)
    one = tf.raw_ops.AudioSpectrogram(input=_wave(40, 1), window_size=1, stride=10)
    return {
        "rank_graph": _error(lambda: tf.raw_ops.AudioSpectrogram(
            input=np.zeros([5], np.float32), window_size=4, stride=2)),
        "rank_run": _error(lambda: _run(tf, s, {x: np.zeros([5], np.float32)})),
        "window_one": _error(lambda: _run(tf, one)),
    }


def mfcc_defaults(tf):
    s = tf.raw_ops.AudioSpectrogram(
        input=_wave(4000, 1), window_size=480, stride=160, magnitude_squared=True)
    m = tf.raw_ops.Mfcc(spectrogram=s, sample_rate=16000)
    return _described(tf, [m])


def mfcc_speech_commands_settings(tf):
    # The tutorial's settings: 30 ms windows, 10 ms stride, 40 coefficients.
    s = tf.raw_ops.AudioSpectrogram(
        input=_wave(16000, 1), window_size=480, stride=160, magnitude_squared=True)
    m = tf.raw_ops.Mfcc(spectrogram=s, sample_rate=16000, dct_coefficient_count=40,
                        upper_frequency_limit=7600.0, lower_frequency_limit=60.0)
    return _described(tf, [m])


def mfcc_small_filterbank(tf):
    rng = np.random.RandomState(3)
    spec = (rng.rand(2, 3, 33) ** 2).astype(np.float32)
    spec[0, 0, :] = 0.0  # every energy under the floor
    m = tf.raw_ops.Mfcc(spectrogram=spec, sample_rate=8000, filterbank_channel_count=8,
                        dct_coefficient_count=5, upper_frequency_limit=3500.0,
                        lower_frequency_limit=100.0)
    return _described(tf, [m])


def mfcc_upper_limit_over_nyquist(tf):
    spec = np.ones([1, 2, 17], np.float32)
    m = tf.raw_ops.Mfcc(spectrogram=spec, sample_rate=4000, filterbank_channel_count=6,
                        dct_coefficient_count=4)
    return _described(tf, [m])


def mfcc_errors(tf):
    spec = np.ones([1, 2, 17], np.float32)
    return {
        "rank_graph": _error(lambda: tf.raw_ops.Mfcc(
            spectrogram=np.ones([2, 17], np.float32), sample_rate=16000)),
        "rate_rank": _error(lambda: tf.raw_ops.Mfcc(spectrogram=spec, sample_rate=[16000])),
        "too_many_coefficients": _error(lambda: _run(tf, tf.raw_ops.Mfcc(
            spectrogram=spec, sample_rate=16000, filterbank_channel_count=4,
            dct_coefficient_count=5))),
        "bad_rate": _error(lambda: _run(tf, tf.raw_ops.Mfcc(spectrogram=spec, sample_rate=0))),
        "float_rate": _error(lambda: tf.raw_ops.Mfcc(spectrogram=spec, sample_rate=1.5)),
    }


def _wav_frames(blob):
    with wave.open(io.BytesIO(blob), "rb") as w:
        return [w.getnchannels(), w.getframerate(),
                np.frombuffer(w.readframes(w.getnframes()), "<i2")]


def _audio_summary_fields(tf, serialized):
    summary = tf.Summary.FromString(serialized)
    out = []
    for v in summary.value:
        out.append({
            "tag": v.tag,
            "sample_rate": v.audio.sample_rate,
            "num_channels": v.audio.num_channels,
            "length_frames": v.audio.length_frames,
            "content_type": v.audio.content_type,
            "wav": _wav_frames(v.audio.encoded_audio_string),
        })
    return out


def _old_audio_summary(tf, tag, clips, rate, max_outputs):
    """AudioSummary (removed from GraphDef version 15) from a GraphDef of version 14, as an
    old graph file brings it: TF 1.15 still runs it."""
    graph_def = tf.GraphDef()
    graph_def.versions.producer = 14
    node = graph_def.node.add(name="clips", op="Const")
    node.attr["dtype"].type = tf.float32.as_datatype_enum
    node.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(clips))
    node = graph_def.node.add(name="tag", op="Const")
    node.attr["dtype"].type = tf.string.as_datatype_enum
    node.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(tag))
    node = graph_def.node.add(name="summary", op="AudioSummary", input=["tag", "clips"])
    node.attr["sample_rate"].f = rate
    node.attr["max_outputs"].i = max_outputs
    with tf.Graph().as_default():
        (out,) = tf.import_graph_def(graph_def, return_elements=["summary:0"], name="")
        with tf.Session() as sess:
            return sess.run(out)


def audio_summary_v1(tf):
    clips = np.clip(_wave(40, 2).reshape(2, 20, 2) * 2.5, -1.5, 1.5)
    return {
        "three": _audio_summary_fields(tf, _old_audio_summary(tf, "sound", clips, 8000.0, 3)),
        "one": _audio_summary_fields(
            tf, _old_audio_summary(tf, "one", clips[:, :, 0], 22050.0, 1)),
        "errors": {
            "removed_op": _error(lambda: tf.raw_ops.AudioSummary(
                tag="x", tensor=np.zeros([1, 3], np.float32), sample_rate=8000.0)),
            "rank": _error(lambda: _old_audio_summary(
                tf, "x", np.zeros([3], np.float32), 8000.0, 3)),
            "rate": _error(lambda: _old_audio_summary(
                tf, "x", np.zeros([1, 3], np.float32), -1.0, 3)),
        },
    }


CASES = {
    f.__name__: f
    for f in [
        spectrogram_magnitude,
        spectrogram_squared_odd_window,
        spectrogram_channels_share_one_stream,
        spectrogram_channels_count_mismatch,
        spectrogram_too_short,
        spectrogram_unknown_length,
        spectrogram_errors,
        mfcc_defaults,
        mfcc_speech_commands_settings,
        mfcc_small_filterbank,
        mfcc_upper_limit_over_nyquist,
        mfcc_errors,
        audio_summary_v1,
    ]
}
