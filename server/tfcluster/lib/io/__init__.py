"""File formats and the Python side of reading data: TFRecord files (tfrecord.py), their
compression (compression.py), tf.train.Example parsing (example_parser.py) and CSV
(csv_parser.py). Kernels (parsing, readers, datasets) call these; faces re-export them."""
