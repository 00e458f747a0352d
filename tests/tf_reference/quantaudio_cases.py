"""Programs for the audio feature ops (AudioSpectrogram, Mfcc, AudioSummary), the block RNN
cells (LSTMBlockCell, BlockLSTM(V2), GRUBlockCell and their gradient ops) and the quantized
ops, through tf.raw_ops: each case builds a graph with `tf` (TensorFlow 1.15 when recorded by
record_quantaudio.py, tfcluster in tests/unit/test_quantaudio_ops.py) and returns what it
computes, its shapes and dtypes, or the class of the error it raises. Python 3.7 code."""

import importlib
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
    return {
        "shape": t.shape.as_list() if t.shape.ndims is not None else None,
        "dtype": t.dtype.name,
    }


def _described(tf, outputs, feed=None):
    """Values, static shapes and dtypes of a list of tensors."""
    values = _run(tf, list(outputs), feed)
    return {
        "values": [np.asarray(v) for v in values],
        "static": [_static(t) for t in outputs],
    }


def _wave(samples, channels):
    t = np.arange(samples, dtype=np.float64)
    cols = [
        np.sin(t * (0.05 + 0.11 * c)) * 0.5 + 0.1 * np.cos(t * 0.73 * (c + 1))
        for c in range(channels)
    ]
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
        input=_wave(777, 1), window_size=129, stride=64, magnitude_squared=True
    )
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
        "rank_graph": _error(
            lambda: tf.raw_ops.AudioSpectrogram(
                input=np.zeros([5], np.float32), window_size=4, stride=2
            )
        ),
        "rank_run": _error(lambda: _run(tf, s, {x: np.zeros([5], np.float32)})),
        "window_one": _error(lambda: _run(tf, one)),
    }


def mfcc_defaults(tf):
    s = tf.raw_ops.AudioSpectrogram(
        input=_wave(4000, 1), window_size=480, stride=160, magnitude_squared=True
    )
    m = tf.raw_ops.Mfcc(spectrogram=s, sample_rate=16000)
    return _described(tf, [m])


def mfcc_speech_commands_settings(tf):
    # The tutorial's settings: 30 ms windows, 10 ms stride, 40 coefficients.
    s = tf.raw_ops.AudioSpectrogram(
        input=_wave(16000, 1), window_size=480, stride=160, magnitude_squared=True
    )
    m = tf.raw_ops.Mfcc(
        spectrogram=s,
        sample_rate=16000,
        dct_coefficient_count=40,
        upper_frequency_limit=7600.0,
        lower_frequency_limit=60.0,
    )
    return _described(tf, [m])


def mfcc_small_filterbank(tf):
    rng = np.random.RandomState(3)
    spec = (rng.rand(2, 3, 33) ** 2).astype(np.float32)
    spec[0, 0, :] = 0.0  # every energy under the floor
    m = tf.raw_ops.Mfcc(
        spectrogram=spec,
        sample_rate=8000,
        filterbank_channel_count=8,
        dct_coefficient_count=5,
        upper_frequency_limit=3500.0,
        lower_frequency_limit=100.0,
    )
    return _described(tf, [m])


def mfcc_upper_limit_over_nyquist(tf):
    spec = np.ones([1, 2, 17], np.float32)
    m = tf.raw_ops.Mfcc(
        spectrogram=spec, sample_rate=4000, filterbank_channel_count=6, dct_coefficient_count=4
    )
    return _described(tf, [m])


def mfcc_errors(tf):
    spec = np.ones([1, 2, 17], np.float32)
    return {
        "rank_graph": _error(
            lambda: tf.raw_ops.Mfcc(spectrogram=np.ones([2, 17], np.float32), sample_rate=16000)
        ),
        "rate_rank": _error(lambda: tf.raw_ops.Mfcc(spectrogram=spec, sample_rate=[16000])),
        "too_many_coefficients": _error(
            lambda: _run(
                tf,
                tf.raw_ops.Mfcc(
                    spectrogram=spec,
                    sample_rate=16000,
                    filterbank_channel_count=4,
                    dct_coefficient_count=5,
                ),
            )
        ),
        "bad_rate": _error(lambda: _run(tf, tf.raw_ops.Mfcc(spectrogram=spec, sample_rate=0))),
        "float_rate": _error(lambda: tf.raw_ops.Mfcc(spectrogram=spec, sample_rate=1.5)),
    }


def _wav_frames(blob):
    with wave.open(io.BytesIO(blob), "rb") as w:
        return [
            w.getnchannels(),
            w.getframerate(),
            np.frombuffer(w.readframes(w.getnframes()), "<i2"),
        ]


def _audio_summary_fields(tf, serialized):
    summary = tf.Summary.FromString(serialized)
    out = []
    for v in summary.value:
        out.append(
            {
                "tag": v.tag,
                "sample_rate": v.audio.sample_rate,
                "num_channels": v.audio.num_channels,
                "length_frames": v.audio.length_frames,
                "content_type": v.audio.content_type,
                "wav": _wav_frames(v.audio.encoded_audio_string),
            }
        )
    return out


def _old_op(tf, op_type, inputs, attrs, outputs=1):
    """An op TF removed from later GraphDef versions, as an old graph file (version 14)
    brings it into the default graph: TF 1.15 still runs it. inputs: (dtype name, value)."""
    graph_def = tf.GraphDef()
    graph_def.versions.producer = 14
    names = []
    for i, (dtype, value) in enumerate(inputs):
        node = graph_def.node.add(name=f"in{i}", op="Const")
        node.attr["dtype"].type = getattr(tf, dtype).as_datatype_enum
        node.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(value, dtype=getattr(tf, dtype)))
        names.append(node.name)
    node = graph_def.node.add(name="old", op=op_type, input=names)
    for key, value in attrs.items():
        if isinstance(value, bool):
            node.attr[key].b = value
        elif isinstance(value, int):
            node.attr[key].i = value
        elif isinstance(value, float):
            node.attr[key].f = value
        else:
            node.attr[key].type = getattr(tf, value).as_datatype_enum
    return tf.import_graph_def(graph_def, return_elements=[f"old:{i}" for i in range(outputs)])


def _old_audio_summary(tf, tag, clips, rate, max_outputs):
    with tf.Graph().as_default():
        (out,) = _old_op(
            tf,
            "AudioSummary",
            [("string", tag), ("float32", clips)],
            {"sample_rate": rate, "max_outputs": max_outputs},
        )
        with tf.Session() as sess:
            return sess.run(out)


def audio_summary_v1(tf):
    clips = np.clip(_wave(40, 2).reshape(2, 20, 2) * 2.5, -1.5, 1.5)
    return {
        "three": _audio_summary_fields(tf, _old_audio_summary(tf, "sound", clips, 8000.0, 3)),
        "one": _audio_summary_fields(tf, _old_audio_summary(tf, "one", clips[:, :, 0], 22050.0, 1)),
        "errors": {
            "removed_op": _error(
                lambda: tf.raw_ops.AudioSummary(
                    tag="x", tensor=np.zeros([1, 3], np.float32), sample_rate=8000.0
                )
            ),
            "rank": _error(
                lambda: _old_audio_summary(tf, "x", np.zeros([3], np.float32), 8000.0, 3)
            ),
            "rate": _error(
                lambda: _old_audio_summary(tf, "x", np.zeros([1, 3], np.float32), -1.0, 3)
            ),
        },
    }


def speech_commands_front_end(tf):
    """The speech_commands tutorial's feature graph through `tensorflow.python.ops.gen_audio_ops`
    (a 16-bit WAV decoded to one second, clamped, spectrogram, MFCC), with its op names."""
    gen_audio_ops = importlib.import_module(tf.__name__ + ".python.ops.gen_audio_ops")
    wav = _run(tf, tf.audio.encode_wav(_wave(12000, 1) * 0.9, 16000))
    decoded = gen_audio_ops.decode_wav(wav, desired_channels=1, desired_samples=16000)
    clamped = tf.clip_by_value(decoded.audio * 1.5, -1.0, 1.0)
    spectrogram = gen_audio_ops.audio_spectrogram(
        clamped, window_size=480, stride=160, magnitude_squared=True
    )
    mfcc = gen_audio_ops.mfcc(spectrogram, decoded.sample_rate, dct_coefficient_count=40)
    named = gen_audio_ops.mfcc(spectrogram, 16000, name="features")
    res = _described(tf, [spectrogram, mfcc, named])
    res["names"] = [t.name for t in (spectrogram, mfcc, named)]
    return res


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
        "grads": [np.asarray(v) for v in values[len(outputs) :]],
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
    return _with_grads(
        tf,
        list(outs),
        [consts[k] for k in _LSTM_ARGS],
        [np.zeros_like(weights[0])] + weights[1:2] + [np.zeros_like(weights[0])] * 4 + weights[6:],
    )


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
            i=outs[0],
            cs=outs[1],
            f=outs[2],
            o=outs[3],
            ci=outs[4],
            co=outs[5],
            cs_grad=cs_grad,
            h_grad=h_grad,
            use_peephole=peephole,
            **arrays,
        )
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
        "x_rank": _error(
            lambda: tf.raw_ops.LSTMBlockCell(**dict(arrays, x=np.zeros([2, 3, 1], np.float32)))
        ),
        "int_type": _error(
            lambda: tf.raw_ops.LSTMBlockCell(**{k: v.astype(np.int32) for k, v in arrays.items()})
        ),
        "mixed_type": _error(
            lambda: tf.raw_ops.LSTMBlockCell(**dict(arrays, b=arrays["b"].astype(np.float64)))
        ),
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
    return _block_lstm_case(
        tf, tf.raw_ops.BlockLSTM, 4, 12, use_peephole=True, forget_bias=0.3, cell_clip=0.9
    )


def block_lstm_v2(tf):
    return _block_lstm_case(tf, tf.raw_ops.BlockLSTMV2, 5, 13)


def block_lstm_v2_peephole_clip(tf):
    return _block_lstm_case(tf, tf.raw_ops.BlockLSTMV2, 6, 14, use_peephole=True, cell_clip=1.1)


def block_lstm_grad_v2_op(tf):
    arrays = _lstm_inputs(2, 3, 4, 15, steps=5)
    outs = tf.raw_ops.BlockLSTMV2(seq_len_max=np.int64(4), use_peephole=True, **arrays)
    rng = np.random.RandomState(16)
    cs_grad = rng.uniform(-1, 1, [5, 2, 4]).astype(np.float32)
    h_grad = rng.uniform(-1, 1, [5, 2, 4]).astype(np.float32)
    names = ("i", "cs", "f", "o", "ci", "co", "h")
    grads = tf.raw_ops.BlockLSTMGradV2(
        seq_len_max=np.int64(4),
        cs_grad=cs_grad,
        h_grad=h_grad,
        use_peephole=True,
        **dict(zip(names, outs)),
        **arrays,
    )
    return _described(tf, list(grads))


def block_lstm_errors(tf):
    arrays = _lstm_inputs(2, 3, 4, 17, steps=3)
    return {
        "x_rank": _error(
            lambda: tf.raw_ops.BlockLSTM(
                seq_len_max=np.int64(3), **dict(arrays, x=np.zeros([2, 3], np.float32))
            )
        ),
        "w_cols": _error(
            lambda: _run(
                tf,
                tf.raw_ops.BlockLSTM(
                    seq_len_max=np.int64(3), **dict(arrays, w=np.zeros([7, 12], np.float32))
                ),
            )
        ),
        "seq_len_rank": _error(
            lambda: tf.raw_ops.BlockLSTM(seq_len_max=np.array([3], np.int64), **arrays)
        ),
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
        "w_c": _error(
            lambda: _run(
                tf, tf.raw_ops.GRUBlockCell(**dict(arrays, w_c=np.zeros([7, 5], np.float32)))
            )
        ),
        "b_ru": _error(
            lambda: _run(
                tf, tf.raw_ops.GRUBlockCell(**dict(arrays, b_ru=np.zeros([4], np.float32)))
            )
        ),
        "half": _error(
            lambda: tf.raw_ops.GRUBlockCell(**{k: v.astype(np.float16) for k, v in arrays.items()})
        ),
    }


# ---- quantized ops -----------------------------------------------------------------------------
def _plain(v):
    """A quantized array's integers (TF fetches them as one-field structured arrays)."""
    v = np.asarray(v)
    return v[v.dtype.names[0]] if v.dtype.names else v


def _quantized(tf, outputs, feed=None):
    res = _described(tf, list(outputs), feed)
    res["values"] = [_plain(v) for v in res["values"]]
    return res


def _q(tf, values, dtype):
    dtype = getattr(tf, dtype)
    return tf.constant(np.asarray(values), dtype=dtype)


def _u8(shape, seed):
    return np.random.RandomState(seed).randint(0, 256, shape).astype(np.uint8)


def _i32(shape, seed, bound=1 << 20):
    return np.random.RandomState(seed).randint(-bound, bound, shape).astype(np.int32)


def _binary_case(tf, op, x_shape, y_shape, seed, ranges):
    x = _q(tf, _u8(x_shape, seed), "quint8")
    y = _q(tf, _u8(y_shape, seed + 1), "quint8")
    return _quantized(
        tf, op(x=x, y=y, min_x=ranges[0], max_x=ranges[1], min_y=ranges[2], max_y=ranges[3])
    )


_BINARY_SHAPES = {
    "same": ([2, 3], [2, 3]),
    "x_scalar": ([], [4, 3]),
    "y_scalar": ([5], [1]),
    "row_vector": ([3, 4], [4]),
    "vector_first": ([4], [2, 4]),
}


def _binary_cases(tf, op):
    out = {}
    for i, (key, (xs, ys)) in enumerate(sorted(_BINARY_SHAPES.items())):
        out[key] = _binary_case(tf, op, xs, ys, 30 + i, (-1.5, 2.25, 0.0, 6.0))
    out["negative_ranges"] = _binary_case(tf, op, [6], [6], 40, (-8.0, -1.0, -0.5, 0.25))
    x = _q(tf, _u8([2, 3, 4], 41), "quint8")
    y = _q(tf, _u8([2, 1, 4], 42), "quint8")
    out["errors"] = {
        "three_dim_broadcast": _error(
            lambda: _run(tf, op(x=x, y=y, min_x=0.0, max_x=1.0, min_y=0.0, max_y=1.0))
        ),
        "empty_range": _error(
            lambda: _run(tf, op(x=x, y=x, min_x=1.0, max_x=1.0, min_y=0.0, max_y=1.0))
        ),
        "incompatible": _error(
            lambda: op(
                x=x, y=_q(tf, _u8([3], 43), "quint8"), min_x=0.0, max_x=1.0, min_y=0.0, max_y=1.0
            )
        ),
        "range_rank": _error(lambda: op(x=x, y=x, min_x=[0.0], max_x=1.0, min_y=0.0, max_y=1.0)),
        "qint8": _error(
            lambda: _run(
                tf,
                op(
                    x=_q(tf, [1, 2], "qint8"),
                    y=_q(tf, [1, 2], "qint8"),
                    min_x=0.0,
                    max_x=1.0,
                    min_y=0.0,
                    max_y=1.0,
                ),
            )
        ),
    }
    return out


def quantized_add(tf):
    return _binary_cases(tf, tf.raw_ops.QuantizedAdd)


def quantized_mul(tf):
    return _binary_cases(tf, tf.raw_ops.QuantizedMul)


def quantized_bias_add(tf):
    out = {}
    x = _q(tf, _u8([2, 3, 4], 50), "quint8")
    b = _q(tf, _u8([4], 51), "quint8")
    out["quint8"] = _quantized(
        tf,
        tf.raw_ops.QuantizedBiasAdd(
            input=x,
            bias=b,
            min_input=-2.0,
            max_input=3.5,
            min_bias=-0.5,
            max_bias=0.75,
            out_type=tf.qint32,
        ),
    )
    xs = np.random.RandomState(52).randint(-128, 128, [3, 5]).astype(np.int8)
    bs = np.random.RandomState(53).randint(-128, 128, [5]).astype(np.int8)
    out["qint8"] = _quantized(
        tf,
        tf.raw_ops.QuantizedBiasAdd(
            input=_q(tf, xs, "qint8"),
            bias=_q(tf, bs, "qint8"),
            min_input=-1.0,
            max_input=1.0,
            min_bias=-4.0,
            max_bias=4.0,
            out_type=tf.qint32,
        ),
    )
    out["errors"] = {
        "rank": _error(
            lambda: tf.raw_ops.QuantizedBiasAdd(
                input=_q(tf, _u8([4], 54), "quint8"),
                bias=b,
                min_input=0.0,
                max_input=1.0,
                min_bias=0.0,
                max_bias=1.0,
                out_type=tf.qint32,
            )
        ),
        "bias_size": _error(
            lambda: tf.raw_ops.QuantizedBiasAdd(
                input=x,
                bias=_q(tf, _u8([3], 55), "quint8"),
                min_input=0.0,
                max_input=1.0,
                min_bias=0.0,
                max_bias=1.0,
                out_type=tf.qint32,
            )
        ),
    }
    return out


def quantized_matmul(tf):
    a = _u8([3, 5], 60)
    b = _u8([5, 4], 61)
    out = {}
    for ta in (False, True):
        for tb in (False, True):
            av = a.T.copy() if ta else a
            bv = b.T.copy() if tb else b
            key = "a{}_b{}".format("T" if ta else "", "T" if tb else "")
            out[key] = _quantized(
                tf,
                tf.raw_ops.QuantizedMatMul(
                    a=_q(tf, av, "quint8"),
                    b=_q(tf, bv, "quint8"),
                    min_a=-1.25,
                    max_a=3.0,
                    min_b=-0.3,
                    max_b=0.6,
                    transpose_a=ta,
                    transpose_b=tb,
                ),
            )
    out["positive_ranges"] = _quantized(
        tf,
        tf.raw_ops.QuantizedMatMul(
            a=_q(tf, a, "quint8"), b=_q(tf, b, "quint8"), min_a=0.0, max_a=1.0, min_b=2.0, max_b=5.0
        ),
    )
    out["errors"] = {
        "inner": _error(
            lambda: tf.raw_ops.QuantizedMatMul(
                a=_q(tf, a, "quint8"),
                b=_q(tf, a, "quint8"),
                min_a=0.0,
                max_a=1.0,
                min_b=0.0,
                max_b=1.0,
            )
        ),
        "range": _error(
            lambda: _run(
                tf,
                tf.raw_ops.QuantizedMatMul(
                    a=_q(tf, a, "quint8"),
                    b=_q(tf, b, "quint8"),
                    min_a=1.0,
                    max_a=0.0,
                    min_b=0.0,
                    max_b=1.0,
                ),
            )
        ),
    }
    return out


def quantized_conv2d(tf):
    x = _q(tf, _u8([2, 6, 5, 3], 70), "quint8")
    out = {}
    settings = {
        "valid_1": ([3, 3, 3, 4], [1, 1, 1, 1], "VALID"),
        "same_1": ([3, 3, 3, 2], [1, 1, 1, 1], "SAME"),
        "same_2": ([3, 3, 3, 2], [1, 2, 2, 1], "SAME"),
        "same_2_even_filter": ([2, 4, 3, 2], [1, 2, 2, 1], "SAME"),
        "valid_3": ([2, 2, 3, 5], [1, 3, 3, 1], "VALID"),
        "valid_5_overhang": ([1, 1, 3, 2], [1, 5, 5, 1], "VALID"),
        "same_3_small_filter": ([1, 1, 3, 2], [1, 3, 3, 1], "SAME"),
    }
    for i, (key, (fshape, strides, padding)) in enumerate(sorted(settings.items())):
        w = _q(tf, _u8(fshape, 71 + i), "quint8")
        out[key] = _quantized(
            tf,
            tf.nn.quantized_conv2d(
                x,
                w,
                min_input=-1.0,
                max_input=2.0,
                min_filter=-0.5,
                max_filter=0.25,
                strides=strides,
                padding=padding,
            ),
        )
    w = _q(tf, _u8([3, 3, 3, 4], 79), "quint8")
    conv = tf.nn.quantized_conv2d(x, w, -1.0, 1.0, -1.0, 1.0, [1, 1, 1, 1], "SAME")
    out["names"] = [t.name for t in conv]
    out["errors"] = {
        "depth": _error(
            lambda: tf.nn.quantized_conv2d(
                x, _q(tf, _u8([3, 3, 2, 4], 80), "quint8"), 0.0, 1.0, 0.0, 1.0, [1, 1, 1, 1], "SAME"
            )
        ),
        "unequal_strides": _error(
            lambda: _run(tf, tf.nn.quantized_conv2d(x, w, 0.0, 1.0, 0.0, 1.0, [1, 1, 2, 1], "SAME"))
        ),
        "dilations": _error(
            lambda: _run(
                tf,
                tf.nn.quantized_conv2d(
                    x, w, 0.0, 1.0, 0.0, 1.0, [1, 1, 1, 1], "SAME", dilations=[1, 2, 2, 1]
                ),
            )
        ),
        "rank": _error(
            lambda: tf.nn.quantized_conv2d(
                _q(tf, _u8([6, 5, 3], 81), "quint8"), w, 0.0, 1.0, 0.0, 1.0, [1, 1, 1, 1], "SAME"
            )
        ),
    }
    return out


def quantized_pools(tf):
    x = _q(tf, _u8([2, 7, 6, 3], 90), "quint8")
    out = {}
    settings = {
        "k2_s2_valid": ([1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
        "k3_s2_same": ([1, 3, 3, 1], [1, 2, 2, 1], "SAME"),
        "k3_s1_same": ([1, 3, 2, 1], [1, 1, 1, 1], "SAME"),
        "k4_s3_same": ([1, 4, 4, 1], [1, 3, 3, 1], "SAME"),
    }
    for key, (ksize, strides, padding) in sorted(settings.items()):
        out["max_" + key] = _quantized(
            tf,
            tf.nn.quantized_max_pool(x, -1.0, 3.0, ksize=ksize, strides=strides, padding=padding),
        )
        out["avg_" + key] = _quantized(
            tf,
            tf.nn.quantized_avg_pool(x, -1.0, 3.0, ksize=ksize, strides=strides, padding=padding),
        )
    pool = tf.nn.quantized_avg_pool(x, 0.0, 1.0, [1, 2, 2, 1], [1, 1, 1, 1], "VALID")
    out["names"] = [t.name for t in pool]
    out["errors"] = {
        "batch_window": _error(
            lambda: _run(
                tf, tf.nn.quantized_max_pool(x, 0.0, 1.0, [2, 2, 2, 1], [1, 1, 1, 1], "VALID")
            )
        ),
        "qint32": _error(
            lambda: _run(
                tf,
                tf.nn.quantized_max_pool(
                    _q(tf, _i32([1, 4, 4, 1], 91), "qint32"),
                    0.0,
                    1.0,
                    [1, 2, 2, 1],
                    [1, 1, 1, 1],
                    "VALID",
                ),
            )
        ),
    }
    return out


def quantized_activations(tf):
    out = {}
    x8 = _q(tf, _u8([3, 7], 100), "quint8")
    x32 = _q(tf, _i32([3, 7], 101, bound=1 << 30), "qint32")
    for key, x, t, lo, hi in (
        ("quint8", x8, tf.quint8, -4.0, 9.0),
        ("qint32", x32, tf.qint32, -20.0, 30.0),
        ("quint8_positive", x8, tf.quint8, 1.0, 9.0),
    ):
        out["relu_" + key] = _quantized(
            tf, tf.raw_ops.QuantizedRelu(features=x, min_features=lo, max_features=hi, out_type=t)
        )
        out["relu6_" + key] = _quantized(
            tf, tf.raw_ops.QuantizedRelu6(features=x, min_features=lo, max_features=hi, out_type=t)
        )
    relu_x = tf.nn.quantized_relu_x(x8, 3.0, -4.0, 9.0)
    out["relu_x_static"] = [_static(t) for t in relu_x]
    out["relu_x_names"] = [t.name for t in relu_x]
    out["errors"] = {
        "relu_x_run": _error(lambda: _run(tf, relu_x)),
        "mixed_types": _error(
            lambda: _run(
                tf,
                tf.raw_ops.QuantizedRelu(
                    features=x8, min_features=0.0, max_features=1.0, out_type=tf.qint32
                ),
            )
        ),
    }
    return out


def quantized_reshape(tf):
    x = _q(tf, _u8([2, 6], 110), "quint8")
    shape = tf.placeholder(tf.int32, [None])
    r = tf.raw_ops.QuantizedReshape(tensor=x, shape=[3, -1], input_min=-1.0, input_max=2.0)
    fed = tf.raw_ops.QuantizedReshape(tensor=x, shape=shape, input_min=-1.0, input_max=2.0)
    res = _quantized(tf, list(r))
    res["fed_static"] = [_static(t) for t in fed]
    res["errors"] = {
        "graph": _error(
            lambda: tf.raw_ops.QuantizedReshape(
                tensor=x, shape=[5, -1], input_min=0.0, input_max=1.0
            )
        ),
        "run": _error(lambda: _run(tf, fed, {shape: [5, 2]})),
    }
    return res


def requantize_ops(tf):
    out = {}
    values = _i32([4, 5], 120, bound=1 << 30)
    values[0, :3] = [np.iinfo(np.int32).min, np.iinfo(np.int32).max, 0]
    q = _q(tf, values, "qint32")
    for key, t, lo, hi in (
        ("to_quint8", tf.quint8, -3.0, 5.0),
        ("to_qint8", tf.qint8, -4.0, 4.0),
        ("to_quint8_narrow", tf.quint8, -0.5, 0.5),
        ("to_quint8_zero", tf.quint8, 0.0, 0.0),
    ):
        out[key] = _quantized(
            tf,
            tf.raw_ops.Requantize(
                input=q,
                input_min=-10.0,
                input_max=12.0,
                requested_output_min=lo,
                requested_output_max=hi,
                out_type=t,
            ),
        )
    small = _q(tf, _i32([3, 4], 121, bound=1 << 24), "qint32")
    out["range"] = _quantized(
        tf, tf.raw_ops.RequantizationRange(input=small, input_min=-10.0, input_max=12.0)
    )
    out["range_positive"] = _quantized(
        tf,
        tf.raw_ops.RequantizationRange(
            input=_q(tf, np.abs(_i32([5], 122, bound=1 << 24)), "qint32"),
            input_min=-10.0,
            input_max=12.0,
        ),
    )
    out["down_and_shrink"] = _quantized(
        tf,
        tf.raw_ops.QuantizeDownAndShrinkRange(
            input=small, input_min=-10.0, input_max=12.0, out_type=tf.quint8
        ),
    )
    out["down_and_shrink_wide"] = _quantized(
        tf,
        tf.raw_ops.QuantizeDownAndShrinkRange(
            input=q, input_min=-1000.0, input_max=500.0, out_type=tf.quint8
        ),
    )
    out["errors"] = {
        "positive_min": _error(
            lambda: _run(
                tf,
                tf.raw_ops.Requantize(
                    input=q,
                    input_min=-1.0,
                    input_max=1.0,
                    requested_output_min=0.5,
                    requested_output_max=1.0,
                    out_type=tf.quint8,
                ),
            )
        ),
        "max_below_min": _error(
            lambda: _run(
                tf,
                tf.raw_ops.Requantize(
                    input=q,
                    input_min=-1.0,
                    input_max=1.0,
                    requested_output_min=-0.5,
                    requested_output_max=-1.0,
                    out_type=tf.quint8,
                ),
            )
        ),
        "to_qint32": _error(
            lambda: _run(
                tf,
                tf.raw_ops.Requantize(
                    input=q,
                    input_min=-1.0,
                    input_max=1.0,
                    requested_output_min=-0.5,
                    requested_output_max=1.0,
                    out_type=tf.qint32,
                ),
            )
        ),
    }
    return out


def quantized_batch_norm(tf):
    x = _q(tf, _u8([2, 3, 2, 4], 130), "quint8")
    rng = np.random.RandomState(131)
    params = {}
    for name, lo, hi in (
        ("m", -1.0, 1.0),
        ("v", 0.0, 2.0),
        ("beta", -0.5, 0.5),
        ("gamma", 0.5, 1.5),
    ):
        params[name] = _q(tf, rng.randint(0, 256, [4]).astype(np.uint8), "quint8")
        params[name + "_min"] = lo
        params[name + "_max"] = hi
    out = {}
    for scale_after in (True, False):
        out[f"scale_{scale_after}"] = _quantized(
            tf,
            tf.raw_ops.QuantizedBatchNormWithGlobalNormalization(
                t=x,
                t_min=-2.0,
                t_max=3.0,
                variance_epsilon=0.001,
                scale_after_normalization=scale_after,
                out_type=tf.qint32,
                **params,
            ),
        )
    out["errors"] = {
        "rank": _error(
            lambda: tf.raw_ops.QuantizedBatchNormWithGlobalNormalization(
                t=_q(tf, _u8([3, 4], 132), "quint8"),
                t_min=0.0,
                t_max=1.0,
                variance_epsilon=0.001,
                scale_after_normalization=True,
                out_type=tf.qint32,
                **params,
            )
        ),
    }
    return out


def _qdq_v1(tf, x, dtype="float32", **attrs):
    attrs = dict({"T": dtype}, **attrs)
    return _old_op(tf, "QuantizeAndDequantize", [(dtype, x)], attrs)[0]


def quantize_and_dequantize_v1_v3(tf):
    with tf.Graph().as_default():
        # Before any old graph is imported (importing one lowers the graph's version).
        v1_removed = _error(lambda: tf.raw_ops.QuantizeAndDequantize(input=[1.0]))
    rng = np.random.RandomState(140)
    xv = rng.uniform(-3, 5, [4, 6]).astype(np.float32)
    x64v = rng.uniform(-1, 1, [7]).astype(np.float64)
    x = tf.constant(xv)
    x64 = tf.constant(x64v)
    outs = [
        _qdq_v1(tf, xv),
        _qdq_v1(tf, xv, signed_input=False, num_bits=4),
        _qdq_v1(tf, xv, range_given=True, input_min=-1.0, input_max=2.0, num_bits=5),
        _qdq_v1(tf, x64v, "float64", num_bits=3),
        tf.raw_ops.QuantizeAndDequantizeV3(input=x, input_min=-2.0, input_max=1.5, num_bits=6),
        tf.raw_ops.QuantizeAndDequantizeV3(
            input=x, input_min=0.0, input_max=0.0, num_bits=7, range_given=False, narrow_range=True
        ),
        tf.raw_ops.QuantizeAndDequantizeV3(
            input=x64, input_min=-0.5, input_max=0.5, num_bits=4, signed_input=False
        ),
    ]
    res = _described(tf, outs)
    v1_in = outs[2].op.inputs[0]
    g = tf.gradients([tf.reduce_sum(outs[2] * 3.0), tf.reduce_sum(outs[4] * 2.0)], [v1_in, x])
    res["grads"] = _run(tf, g)
    res["errors"] = {
        "v1_removed": v1_removed,
        "v1_bits": _error(lambda: _run(tf, _qdq_v1(tf, xv, num_bits=0))),
        "v1_range": _error(
            lambda: _run(tf, _qdq_v1(tf, xv, range_given=True, input_min=1.0, input_max=0.0))
        ),
        "v3_bits": _error(
            lambda: _run(
                tf,
                tf.raw_ops.QuantizeAndDequantizeV3(
                    input=x, input_min=-1.0, input_max=1.0, num_bits=70
                ),
            )
        ),
        "v3_range": _error(
            lambda: _run(
                tf,
                tf.raw_ops.QuantizeAndDequantizeV3(
                    input=x, input_min=1.0, input_max=-1.0, num_bits=8
                ),
            )
        ),
        "v3_int": _error(
            lambda: tf.raw_ops.QuantizeAndDequantizeV3(
                input=[1, 2], input_min=1, input_max=2, num_bits=8
            )
        ),
    }
    return res


def quantized_resize_bilinear(tf):
    out = {}
    images = {
        "quint8": _q(tf, _u8([2, 4, 5, 3], 150), "quint8"),
        "qint32": _q(tf, _i32([2, 4, 5, 3], 151, bound=1 << 30), "qint32"),
        "float32": tf.constant(np.random.RandomState(152).uniform(-2, 2, [2, 4, 5, 3]), tf.float32),
    }
    settings = {
        "up": ([7, 9], False, False),
        "down": ([3, 2], False, False),
        "up_align": ([7, 9], True, False),
        "down_half_pixel": ([3, 4], False, True),
        "up_half_pixel": ([6, 11], False, True),
        "same": ([4, 5], False, False),
        "one_row": ([1, 8], True, False),
    }
    for kind, image in sorted(images.items()):
        for key, (size, align, half) in sorted(settings.items()):
            resized = tf.raw_ops.QuantizedResizeBilinear(
                images=image,
                size=size,
                min=-3.0,
                max=5.0,
                align_corners=align,
                half_pixel_centers=half,
            )
            out[kind + "_" + key] = _quantized(tf, list(resized))
    image = images["quint8"]
    out["errors"] = {
        "rank": _error(
            lambda: tf.raw_ops.QuantizedResizeBilinear(
                images=_q(tf, _u8([4, 5, 3], 153), "quint8"), size=[2, 2], min=0.0, max=1.0
            )
        ),
        "zero_size": _error(
            lambda: _run(
                tf, tf.raw_ops.QuantizedResizeBilinear(images=image, size=[0, 2], min=0.0, max=1.0)
            )
        ),
        "qint8": _error(
            lambda: _run(
                tf,
                tf.raw_ops.QuantizedResizeBilinear(
                    images=_q(tf, np.zeros([1, 2, 2, 1], np.int8), "qint8"),
                    size=[3, 3],
                    min=0.0,
                    max=1.0,
                ),
            )
        ),
        "align_and_half": _error(
            lambda: _run(
                tf,
                tf.raw_ops.QuantizedResizeBilinear(
                    images=image,
                    size=[3, 3],
                    min=0.0,
                    max=1.0,
                    align_corners=True,
                    half_pixel_centers=True,
                ),
            )
        ),
    }
    return out


def quantized_instance_norm(tf):
    out = {}
    x = _q(tf, _u8([2, 5, 4, 3], 160), "quint8")
    wide = _q(tf, _u8([1, 6, 7, 10], 161), "quint8")
    flat = _q(tf, np.full([1, 2, 2, 2], 7, np.uint8), "quint8")
    out["default"] = _quantized(
        tf, list(tf.raw_ops.QuantizedInstanceNorm(x=x, x_min=-1.0, x_max=2.0))
    )
    out["wide"] = _quantized(
        tf,
        list(tf.raw_ops.QuantizedInstanceNorm(x=wide, x_min=0.0, x_max=6.0, variance_epsilon=0.01)),
    )
    out["given_range"] = _quantized(
        tf,
        list(
            tf.raw_ops.QuantizedInstanceNorm(
                x=x,
                x_min=-1.0,
                x_max=2.0,
                output_range_given=True,
                given_y_min=-2.0,
                given_y_max=2.5,
            )
        ),
    )
    out["constant_input"] = _quantized(
        tf,
        list(tf.raw_ops.QuantizedInstanceNorm(x=flat, x_min=-1.0, x_max=2.0, min_separation=0.5)),
    )
    out["errors"] = {
        "range": _error(
            lambda: _run(tf, tf.raw_ops.QuantizedInstanceNorm(x=x, x_min=2.0, x_max=1.0))
        ),
        "given_range": _error(
            lambda: _run(
                tf,
                tf.raw_ops.QuantizedInstanceNorm(
                    x=x,
                    x_min=0.0,
                    x_max=1.0,
                    output_range_given=True,
                    given_y_min=1.0,
                    given_y_max=1.0,
                ),
            )
        ),
        "rank": _error(
            lambda: tf.raw_ops.QuantizedInstanceNorm(
                x=_q(tf, _u8([5, 4, 3], 162), "quint8"), x_min=0.0, x_max=1.0
            )
        ),
    }
    return out


def _plain_attr(tf, value):
    kind = value.WhichOneof("value")
    if kind == "tensor" and value.tensor.dtype == tf.string.as_datatype_enum:
        # TF 1.15's make_ndarray cannot read a string tensor_content: decode it here.
        content = value.tensor.tensor_content
        items = [v.decode() for v in value.tensor.string_val]
        if content:
            count = 1
            for d in value.tensor.tensor_shape.dim:
                count *= d.size
            lengths, pos = [], 0
            for _ in range(count):
                n, shift = 0, 0
                while True:
                    byte = content[pos]
                    pos += 1
                    n |= (byte & 0x7F) << shift
                    shift += 7
                    if byte < 0x80:
                        break
                lengths.append(n)
            for n in lengths:
                items.append(content[pos : pos + n].decode())
                pos += n
        return ["strings", bool(content), items]
    if kind == "tensor":
        array = tf.make_ndarray(value.tensor)
        items = [v.decode() if isinstance(v, bytes) else v for v in array.reshape(-1).tolist()]
        return ["tensor", int(value.tensor.dtype), list(array.shape), items]
    if kind == "list":
        return ["list", [int(t) for t in value.list.type], list(value.list.i)]
    if kind == "shape":
        return ["shape", [d.size for d in value.shape.dim], value.shape.unknown_rank]
    got = getattr(value, kind)
    return [kind, got.decode() if isinstance(got, bytes) else got]


def quantize_training_rewrite(tf):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w1 = tf.Variable(np.linspace(-1, 1, 12).reshape(3, 4).astype(np.float32), name="w1")
    h = tf.nn.relu(tf.matmul(x, w1))
    w2 = tf.Variable(np.linspace(0.5, -0.5, 8).reshape(4, 2).astype(np.float32), name="w2")
    six = tf.nn.relu6(tf.matmul(tf.tanh(h), w2))
    w3 = tf.constant(np.full([2, 2], 0.75, np.float32), name="w3")
    tf.matmul(tf.identity(six), w3, name="y")
    tf.train.Saver()
    before = tf.get_default_graph().as_graph_def()
    old_names = {n.name for n in before.node}
    rewritten = tf.train.do_quantize_training_on_graphdef(before, 6)
    nodes = []
    for node in rewritten.node:
        entry = [node.name, node.op, list(node.input), sorted(node.attr)]
        if node.name not in old_names or node.name.startswith("save/SaveV2"):
            entry.append({k: _plain_attr(tf, node.attr[k]) for k in sorted(node.attr)})
        nodes.append(entry)
    feed = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float32)
    with tf.Graph().as_default():
        tf.import_graph_def(rewritten, name="")
        with tf.Session() as sess:
            sess.run(["w1/Assign", "w2/Assign"])
            first = sess.run("y:0", {"x:0": feed})
            second = sess.run("y:0", {"x:0": feed * 2.0})
            ranges = sess.run(["x/Min/Variable:0", "x/Max/Variable:0", "w1/read/Max/Variable:0"])
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [2, 2], name="a")
        b = tf.placeholder(tf.float32, [2, 2], name="b")
        c = tf.placeholder(tf.float32, [2, 2], name="c")
        tf.matmul(tf.matmul(a, b), c)
        many_inputs = tf.get_default_graph().as_graph_def()
    return {
        "nodes": nodes,
        "outputs": [first, second],
        "ranges": ranges,
        "errors": {
            "num_bits": _error(lambda: tf.train.do_quantize_training_on_graphdef(before, 0)),
            "three_inputs": _error(
                lambda: tf.train.do_quantize_training_on_graphdef(many_inputs, 8)
            ),
        },
    }


def quantized_ops_have_no_gradient(tf):
    x = tf.constant([1.0, 2.0])
    q = tf.quantize(x, -1.0, 3.0, tf.quint8)
    relu = tf.raw_ops.QuantizedRelu(
        features=q.output, min_features=q.output_min, max_features=q.output_max
    )
    back = tf.dequantize(relu.activations, relu.min_activations, relu.max_activations)
    return {"error": _error(lambda: tf.gradients(back, [x]))}


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
        speech_commands_front_end,
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
        quantized_add,
        quantized_mul,
        quantized_bias_add,
        quantized_matmul,
        quantized_conv2d,
        quantized_pools,
        quantized_activations,
        quantized_reshape,
        requantize_ops,
        quantized_batch_norm,
        quantize_and_dequantize_v1_v3,
        quantized_resize_bilinear,
        quantized_instance_norm,
        quantize_training_rewrite,
        quantized_ops_have_no_gradient,
    ]
}
