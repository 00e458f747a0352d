"""Records TensorFlow 1.15's answers to strategy_variable_cases.py (resource variables in a
strategy's scope, the global step they increment, an Estimator's logged steps):
data/strategy_variables.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_strategy_variables.py
"""

import json
import os

import tensorflow as tf
from strategy_variable_cases import CASES


def main():
    data = {"tf_version": tf.__version__}
    for name, program in sorted(CASES.items()):
        data[name] = program(tf)
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "data", "strategy_variables.json"), "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
