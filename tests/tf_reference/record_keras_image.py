"""Records TensorFlow 1.15's tf.keras.preprocessing.image (keras_preprocessing 1.1.2) on the
cases of keras_image_cases.py into data/keras_image.json, after writing the small image tree
the directory cases read (data/keras_image_files/).

    cd tests/tf_reference && PYTHONPATH=<dir with scipy 1.7.3 and Pillow 9.5.0 for Python 3.7> \
        /tmp/tf115/bin/python record_keras_image.py

keras_preprocessing needs scipy and Pillow, which TF 1.15's wheel does not install.
"""

import os
import tempfile

import tensorflow as real_tf
from keras_image_cases import CASES, FILES_DIR, make_image_files
from recorder import Recorder

if not real_tf.__version__.startswith("1."):
    raise SystemExit("record_keras_image.py needs TensorFlow 1.15")
image = real_tf.keras.preprocessing.image

make_image_files(FILES_DIR)
rec = Recorder("keras_image")
for name in sorted(CASES):
    with tempfile.TemporaryDirectory() as workdir:
        values = CASES[name](image, workdir)
    rec.add(name, **{"values": values})
rec.save()
print(os.listdir(FILES_DIR))
