"""The order in which Model.fit_generator / evaluate_generator take a keras.utils.Sequence's
batches, written once against the TF1 API and run twice: by record_sequence_order.py with
TensorFlow 1.15 (`tf` is tensorflow.compat.v1) and by tests/unit/test_sequence_order.py with
tfcluster. Each case seeds Python's and numpy's generators, runs a small model over
Sequences that log the indices asked of them, and returns the indices the loops consumed.

TF 1.15 takes a Sequence through a thread that runs ahead of the loop (its OrderedEnqueuer)
and fetches a few batches more than it uses; those are cut off: a training log keeps its
first epochs x steps indices, a validation log its first validation_steps per epoch (the
validation thread stops before the epoch's end callback, where the log is cut).
Cases whose name says "bar" or "shows" compare what the fit prints (its validation runs a
loop of its own in TF 1.15, with a progress bar). Kept runnable on Python 3.7 and free of
anything but numpy.
"""

import random
import re

import numpy as np

try:
    from tf_reference.case_tools import captured, registrar
except ImportError:  # the recorder runs from this folder
    from case_tools import captured, registrar

CASES = {}


# A case runs in a graph of its own, with graph seed 0.
case = registrar(CASES, own_graph=True, graph_seed=0)


def _setup(tf):
    random.seed(0)
    np.random.seed(0)

    class Logged(tf.keras.utils.Sequence):
        def __init__(self, n):
            self.n = n
            self.log = []

        def __len__(self):
            return self.n

        def __getitem__(self, i):
            self.log.append(int(i))
            return np.full((2, 3), i, "float32"), np.ones((2, 1), "float32")

    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
    model.compile(loss="mse", optimizer="sgd")
    return Logged, model


def _per_epoch(tf, seq, steps):
    """A callback cutting `seq`'s log at each epoch's end: its first `steps` indices."""
    cuts = []

    class Cut(tf.keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            cuts.append(seq.log[:steps])
            del seq.log[:]

    return Cut(), cuts


def _fit(tf, n_train, steps, epochs, n_val=None, val_steps=None, **kwargs):
    Logged, model = _setup(tf)
    train = Logged(n_train)
    val = Logged(n_val) if n_val else None
    callbacks = []
    cuts = None
    if val is not None:
        cut, cuts = _per_epoch(tf, val, val_steps)
        callbacks.append(cut)
    model.fit_generator(
        train,
        steps_per_epoch=steps,
        epochs=epochs,
        verbose=0,
        validation_data=val,
        validation_steps=val_steps,
        callbacks=callbacks,
        **kwargs,
    )
    used = train.log[: epochs * (steps or n_train)]
    return {"train": used, "validation": cuts, "numpy_draw": float(np.random.rand())}


@case
def shuffled_passes_over_a_sequence(tf):
    """Shuffled (the default): each pass a new shuffle of the same list of indices."""
    return _fit(tf, 6, None, 3)


@case
def steps_per_epoch_shorter_than_the_sequence(tf):
    """Epochs cut a pass: the next epoch goes on with the pass."""
    return _fit(tf, 7, 3, 4)


@case
def validation_sequence_from_its_start_each_epoch(tf):
    return _fit(tf, 4, None, 3, n_val=10, val_steps=2, max_queue_size=1)


@case
def no_shuffle(tf):
    return _fit(tf, 5, None, 2, shuffle=False)


@case
def workers_zero_takes_the_sequence_in_order(tf):
    """Without an enqueuer (workers=0) TF 1.15 iterates the Sequence as it stands."""
    return _fit(tf, 5, None, 2, n_val=6, val_steps=2, workers=0)


@case
def evaluate_generator_from_the_start_each_call(tf):
    Logged, model = _setup(tf)
    logs = []
    for _ in range(2):
        seq = Logged(5)
        model.evaluate_generator(seq, steps=2)
        logs.append(seq.log[:2])
    return {"evaluated": logs}


def _shown(text):
    """A fit's printed lines as the bar leaves them: each line's last carriage-return
    segment, timings and ETAs dropped."""
    lines = []
    for line in text.replace("\b", "").split("\n"):
        line = line.split("\r")[-1]
        line = re.sub(r" - \d+m?s( \d+[mu]?s/(step|sample))?", "", line)
        if line.strip() and "ETA" not in line:
            lines.append(line.rstrip())
    return lines


def _fit_shown(tf, validation, verbose, epochs=2, **kwargs):
    Logged, model = _setup(tf)
    model.compile(loss="mse", optimizer="sgd", metrics=["mae"])
    with captured() as out:
        model.fit_generator(
            Logged(2), epochs=epochs, verbose=verbose, validation_data=validation, **kwargs
        )
    return {"printed": _shown(out.stdout)}


@case
def validation_sequence_shows_its_own_bar(tf):
    Logged, _ = _setup(tf)
    return _fit_shown(tf, Logged(3), 2)


@case
def validation_sequence_bar_verbose_1(tf):
    Logged, _ = _setup(tf)
    return _fit_shown(tf, Logged(3), 1, validation_steps=2)


@case
def validation_arrays_bar_counts_samples(tf):
    arrays = (np.arange(15, dtype="float32").reshape(5, 3), np.ones((5, 1), "float32"))
    return _fit_shown(tf, arrays, 2)


@case
def validation_generator_bar(tf):
    def same_batch():
        while True:
            yield np.full((2, 3), 0.5, "float32"), np.ones((2, 1), "float32")

    return _fit_shown(tf, same_batch(), 2, validation_steps=2)


@case
def validation_bar_only_on_validation_epochs(tf):
    Logged, _ = _setup(tf)
    return _fit_shown(tf, Logged(2), 2, epochs=3, validation_freq=2)


@case
def one_epoch_fit_of_a_sequence_with_validation(tf):
    Logged, model = _setup(tf)
    model.compile(loss="mse", optimizer="sgd", metrics=["mae"])
    with captured() as out:
        model.fit(Logged(2), epochs=1, verbose=1, validation_data=Logged(2))
    return {"printed": _shown(out.stdout)}


@case
def a_python_generator_outlives_the_loops_that_read_it(tf):
    """TF 1.15's loops draw from a Python generator and leave it open: the next loop (or the
    program) goes on reading it."""
    _, model = _setup(tf)

    def same_batch():
        while True:
            yield np.full((2, 3), 0.5, "float32"), np.ones((2, 1), "float32")

    gen = same_batch()
    first = model.fit_generator(gen, steps_per_epoch=2, epochs=1, verbose=0)
    second = model.fit_generator(gen, steps_per_epoch=2, epochs=1, verbose=0)
    evaluated = model.evaluate_generator(gen, steps=2)
    predicted = model.predict_generator(gen, steps=1)
    x, _ = next(gen)
    return {
        "losses": [float(first.history["loss"][0]), float(second.history["loss"][0])],
        "evaluated": float(evaluated),
        "predicted_shape": list(predicted.shape),
        "next_batch_shape": list(x.shape),
    }
