"""tensorflow.python.ops.io_ops (read_file, write_file, the readers): tfcluster.ops.reader_ops."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.ops.reader_ops")
