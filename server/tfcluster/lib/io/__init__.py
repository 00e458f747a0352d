"""Files and the Python side of reading data: tf.gfile on the local file system (gfile.py),
TFRecord files (tfrecord.py), their compression (compression.py), tf.train.Example parsing
(example_parser.py) and CSV (csv_parser.py). Kernels (parsing, readers, datasets) call these;
faces re-export them."""
