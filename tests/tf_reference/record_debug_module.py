"""Records TensorFlow 1.15's answers to the programs of debug_module_cases.py (tfdbg's module
as programs import it): data/debug_module.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_debug_module.py
"""

from debug_module_cases import CASES
from recorder import Recorder
from tensorflow.python import debug as tf_debug

rec = Recorder("debug_module")
for name, program in sorted(CASES.items()):
    rec.add(name, **program(tf_debug))
rec.save()
