"""Records what TF 1.15 does in signature_behaviour_cases.py (methods and parameters added to
match TF's public signatures) into data/signature_behaviours.json, each case in a fresh
graph with numpy's and TF's seeds fixed:
`cd tests/tf_reference && /tmp/tf115/bin/python record_signature_behaviours.py`."""

import numpy as np
import tensorflow.compat.v1 as tf
from recorder import Recorder
from signature_behaviour_cases import CASES

tf.disable_v2_behavior()


def main():
    rec = Recorder("signature_behaviours")
    for name, program in CASES.items():
        with tf.Graph().as_default():
            np.random.seed(0)
            tf.set_random_seed(0)
            rec.add(name, result=program(tf))
    rec.save()


if __name__ == "__main__":
    main()
