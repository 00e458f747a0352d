"""tensorflow.python.eager: the modules of it TF1 programs import in graph mode."""
