"""Where TensorFlow 1.15's library log records go after `import tensorflow` (the programs of
import_logging_cases.py). Run under TF 1.15 itself:
`cd tests/tf_reference && /tmp/tf115/bin/python record_import_logging.py`."""

import import_logging_cases as cases
from recorder import Recorder

rec = Recorder("import_logging")
for name in cases.PROGRAMS:
    rec.add(name, **cases.run_program(cases.TF_IMPORT, name))
rec.save()
