"""Records TensorFlow 1.15's answers to the programs of image_graph_sweep_cases.py (behaviours
of public TF1 programs: pix2pix, seq2seq signal prediction, Transformer, RL estimators):
data/image_graph_sweep.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_image_graph_sweep.py
"""

from __future__ import annotations

from case_tools import record_tf115
from image_graph_sweep_cases import CASES

record_tf115("image_graph_sweep", CASES)
