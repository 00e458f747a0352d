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


# ---- block RNN cells ---------------------------------------------------------------------------
def _lstm_inputs(batch, input_size, cell, seed, steps=None):
    rng = np.random.RandomState(seed)
    shape_x = [batch, input_size] if steps is None else [steps, batch, input_size]
    return {
        "x": rng.uniform(-1, 1, shape_x).astype(np.float32),
        "cs_prev": rng.uniform(-2, 2, [batch, cell]).astype(np.float32),
        "h_prev": rng.uniform(-1, 1, [batch, cell]).astype(np.float32),
        "w": rng.uniform(-0.8, 0.8, [input_size + cell, 4 * cell]).astype(np.float32),
        "wci": rng.uniform(-0.5, 0.5, [cell]).astype(np.float32),
        "wcf": rng.uniform(-0.5, 0.5, [cell]).astype(np.float32),
        "wco": rng.uniform(-0.5, 0.5, [cell]).astype(np.float32),
        "b": rng.uniform(-0.5, 0.5, [4 * cell]).astype(np.float32),
    }


_LSTM_ARGS = ("x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco", "b")


def _with_grads(tf, outputs, inputs, weights):
    """Outputs, static shapes/dtypes, and the gradients of sum(outputs * weights)."""
    loss = tf.add_n([tf.reduce_sum(o * w) for o, w in zip(outputs, weights)])
    grads = tf.gradients(loss, inputs)
    values = _run(tf, list(outputs) + [g for g in grads if g is not None])
    return {
        "values": [np.asarray(v) for v in values[: len(outputs)]],
        "grads": [np.asarray(v) for v in values[len(outputs):]],
        "missing_grads": [g is None for g in grads],
        "static": [_static(t) for t in outputs],
    }


def _lstm_cell_case(tf, seed, **attrs):
    arrays = _lstm_inputs(3, 4, 5, seed)
    consts = {k: tf.constant(v) for k, v in arrays.items()}
    outs = tf.raw_ops.LSTMBlockCell(**consts, **attrs)
    rng = np.random.RandomState(seed + 100)
    weights = [rng.uniform(-1, 1, [3, 5]).astype(np.float32) for _ in range(7)]
    # TF's gradient flows from cs and h only.
    return _with_grads(tf, list(outs), [consts[k] for k in _LSTM_ARGS],
                       [np.zeros_like(weights[0])] + weights[1:2] + [np.zeros_like(weights[0])] * 4
                       + weights[6:])


def lstm_block_cell_defaults(tf):
    return _lstm_cell_case(tf, 1)


def lstm_block_cell_peephole_clip(tf):
    return _lstm_cell_case(tf, 2, forget_bias=0.5, cell_clip=0.7, use_peephole=True)


def lstm_block_cell_no_clip(tf):
    return _lstm_cell_case(tf, 3, forget_bias=0.0, cell_clip=-1.0)


def lstm_block_cell_grad_op(tf):
    arrays = _lstm_inputs(2, 3, 4, 5)
    outs = tf.raw_ops.LSTMBlockCell(use_peephole=True, cell_clip=1.0, **arrays)
    rng = np.random.RandomState(9)
    cs_grad = rng.uniform(-1, 1, [2, 4]).astype(np.float32)
    h_grad = rng.uniform(-1, 1, [2, 4]).astype(np.float32)
    res = {}
    for peephole in (True, False):
        grads = tf.raw_ops.LSTMBlockCellGrad(
            i=outs[0], cs=outs[1], f=outs[2], o=outs[3], ci=outs[4], co=outs[5],
            cs_grad=cs_grad, h_grad=h_grad, use_peephole=peephole, **arrays)
        res["peephole" if peephole else "plain"] = _described(tf, list(grads))
    return res


def lstm_block_cell_errors(tf):
    arrays = _lstm_inputs(2, 3, 4, 5)
    bad_w = dict(arrays, w=np.zeros([6, 16], np.float32))
    bad_b = dict(arrays, b=np.zeros([12], np.float32))
    bad_h = dict(arrays, h_prev=np.zeros([3, 4], np.float32))
    return {
        "w_rows": _error(lambda: _run(tf, tf.raw_ops.LSTMBlockCell(**bad_w))),
        "b_size": _error(lambda: _run(tf, tf.raw_ops.LSTMBlockCell(**bad_b))),
        "h_batch": _error(lambda: _run(tf, tf.raw_ops.LSTMBlockCell(**bad_h))),
        "x_rank": _error(lambda: tf.raw_ops.LSTMBlockCell(
            **dict(arrays, x=np.zeros([2, 3, 1], np.float32)))),
        "int_type": _error(lambda: tf.raw_ops.LSTMBlockCell(
            **{k: v.astype(np.int32) for k, v in arrays.items()})),
        "mixed_type": _error(lambda: tf.raw_ops.LSTMBlockCell(
            **dict(arrays, b=arrays["b"].astype(np.float64)))),
    }


def _block_lstm_case(tf, op, seq_len, seed, **attrs):
    arrays = _lstm_inputs(3, 4, 5, seed, steps=6)
    consts = {k: tf.constant(v) for k, v in arrays.items()}
    outs = op(seq_len_max=np.int64(seq_len), **consts, **attrs)
    rng = np.random.RandomState(seed + 100)
    weights = [rng.uniform(-1, 1, [6, 3, 5]).astype(np.float32) for _ in range(7)]
    res = _with_grads(tf, list(outs), [consts[k] for k in _LSTM_ARGS], weights)
    # TF 1.15 leaves the steps from seq_len_max on uninitialised (tfcluster: zeros).
    res["values"] = [v[:seq_len] for v in res["values"]]
    return res


def block_lstm_full(tf):
    return _block_lstm_case(tf, tf.raw_ops.BlockLSTM, 6, 11)


def block_lstm_short_peephole(tf):
    return _block_lstm_case(tf, tf.raw_ops.BlockLSTM, 4, 12, use_peephole=True,
                            forget_bias=0.3, cell_clip=0.9)


def block_lstm_v2(tf):
    return _block_lstm_case(tf, tf.raw_ops.BlockLSTMV2, 5, 13)


def block_lstm_v2_peephole_clip(tf):
    return _block_lstm_case(tf, tf.raw_ops.BlockLSTMV2, 6, 14, use_peephole=True,
                            cell_clip=1.1)


def block_lstm_grad_v2_op(tf):
    arrays = _lstm_inputs(2, 3, 4, 15, steps=5)
    outs = tf.raw_ops.BlockLSTMV2(seq_len_max=np.int64(4), use_peephole=True, **arrays)
    rng = np.random.RandomState(16)
    cs_grad = rng.uniform(-1, 1, [5, 2, 4]).astype(np.float32)
    h_grad = rng.uniform(-1, 1, [5, 2, 4]).astype(np.float32)
    names = ("i", "cs", "f", "o", "ci", "co", "h")
    grads = tf.raw_ops.BlockLSTMGradV2(
        seq_len_max=np.int64(4), cs_grad=cs_grad, h_grad=h_grad, use_peephole=True,
        **dict(zip(names, outs)), **arrays)
    return _described(tf, list(grads))


def block_lstm_errors(tf):
    arrays = _lstm_inputs(2, 3, 4, 17, steps=3)
    return {
        "x_rank": _error(lambda: tf.raw_ops.BlockLSTM(
            seq_len_max=np.int64(3), **dict(arrays, x=np.zeros([2, 3], np.float32)))),
        "w_cols": _error(lambda: _run(tf, tf.raw_ops.BlockLSTM(
            seq_len_max=np.int64(3), **dict(arrays, w=np.zeros([7, 12], np.float32))))),
        "seq_len_rank": _error(lambda: tf.raw_ops.BlockLSTM(
            seq_len_max=np.array([3], np.int64), **arrays)),
    }


def _gru_inputs(batch, input_size, cell, seed):
    rng = np.random.RandomState(seed)
    return {
        "x": rng.uniform(-1, 1, [batch, input_size]).astype(np.float32),
        "h_prev": rng.uniform(-1, 1, [batch, cell]).astype(np.float32),
        "w_ru": rng.uniform(-0.8, 0.8, [input_size + cell, 2 * cell]).astype(np.float32),
        "w_c": rng.uniform(-0.8, 0.8, [input_size + cell, cell]).astype(np.float32),
        "b_ru": rng.uniform(-0.5, 0.5, [2 * cell]).astype(np.float32),
        "b_c": rng.uniform(-0.5, 0.5, [cell]).astype(np.float32),
    }


def gru_block_cell(tf):
    arrays = _gru_inputs(3, 4, 5, 21)
    consts = {k: tf.constant(v) for k, v in arrays.items()}
    outs = tf.raw_ops.GRUBlockCell(**consts)
    rng = np.random.RandomState(22)
    weights = [np.zeros([3, 5], np.float32)] * 3 + [rng.uniform(-1, 1, [3, 5]).astype(np.float32)]
    names = ("x", "h_prev", "w_ru", "w_c", "b_ru", "b_c")
    return _with_grads(tf, list(outs), [consts[k] for k in names], weights)


def gru_block_cell_grad_op(tf):
    arrays = _gru_inputs(2, 3, 4, 23)
    r, u, c, _ = tf.raw_ops.GRUBlockCell(**arrays)
    d_h = np.random.RandomState(24).uniform(-1, 1, [2, 4]).astype(np.float32)
    grads = tf.raw_ops.GRUBlockCellGrad(r=r, u=u, c=c, d_h=d_h, **arrays)
    return _described(tf, list(grads))


def gru_block_cell_errors(tf):
    arrays = _gru_inputs(2, 3, 4, 25)
    return {
        "w_c": _error(lambda: _run(tf, tf.raw_ops.GRUBlockCell(
            **dict(arrays, w_c=np.zeros([7, 5], np.float32))))),
        "b_ru": _error(lambda: _run(tf, tf.raw_ops.GRUBlockCell(
            **dict(arrays, b_ru=np.zeros([4], np.float32))))),
        "half": _error(lambda: tf.raw_ops.GRUBlockCell(
            **{k: v.astype(np.float16) for k, v in arrays.items()})),
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
        lstm_block_cell_defaults,
        lstm_block_cell_peephole_clip,
        lstm_block_cell_no_clip,
        lstm_block_cell_grad_op,
        lstm_block_cell_errors,
        block_lstm_full,
        block_lstm_short_peephole,
        block_lstm_v2,
        block_lstm_v2_peephole_clip,
        block_lstm_grad_v2_op,
        block_lstm_errors,
        gru_block_cell,
        gru_block_cell_grad_op,
        gru_block_cell_errors,
    ]
}
