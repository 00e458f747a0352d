"""`tensorflow.python`: TensorFlow's private module tree, as far as TF1 programs import it
directly (`from tensorflow.python.framework import ops` then `ops.reset_default_graph()`,
`from tensorflow.python.platform import gfile`, ...). Each module here is the tfcluster
module that does that job; names a program takes from a module tfcluster lacks fail on import.
"""
