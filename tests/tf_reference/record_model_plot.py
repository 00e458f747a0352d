"""Records TensorFlow 1.15's answers to model_plot_cases.py: data/model_plot.json. Needs pydot
in TF's venv (`/tmp/tf115/bin/pip install pydot==1.4.2`).

cd tests/tf_reference && /tmp/tf115/bin/python record_model_plot.py
"""

from __future__ import annotations

from case_tools import record_tf115
from model_plot_cases import CASES

record_tf115("model_plot", CASES)
