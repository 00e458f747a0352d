"""The shared names TF 1.15 gives its lookup tables (StaticHashTableV1 / HashTable): a table
filled from tensors gets a fresh "hash_table_<uuid4>", one filled from a text file the
file's own "hash_table_<filename>[_<vocab_size>]_<key_index>_<value_index>" (the filename
argument formatted as given, bytes and tensors too), and so a second session on the same
server reads the table the first one filled. Run on TF 1.15 by record_lookup_shared_names.py
and on tfcluster by tests/unit/test_lookup_shared_names.py; Python 3.7 code."""

import re

try:
    from tf_reference.case_tools import error, registrar
except ImportError:
    from case_tools import error, registrar

CASES = {}
case = registrar(CASES, own_graph=True)

_UUID = re.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _shared_name(table):
    return _UUID.sub("UUID", table.resource_handle.op.get_attr("shared_name").decode())


@case
def tables_filled_from_tensors_get_fresh_names(tf):
    first = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a"], [1]), -1)
    second = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a"], [1]), -1)
    names = [t.resource_handle.op.get_attr("shared_name") for t in (first, second)]
    return {"names": [_shared_name(first), _shared_name(second)], "distinct": names[0] != names[1]}


@case
def tables_filled_from_a_file_share_the_files_name(tf):
    text = tf.lookup.TextFileInitializer
    whole, line = tf.lookup.TextFileIndex.WHOLE_LINE, tf.lookup.TextFileIndex.LINE_NUMBER
    tables = {
        "whole_line_to_number": text("vocab.txt", tf.string, whole, tf.int64, line),
        "with_vocab_size": text("vocab.txt", tf.string, whole, tf.int64, line, vocab_size=3),
        "columns": text("vocab.txt", tf.string, 0, tf.string, 1, delimiter=","),
        "bytes_filename": text(b"vocab.txt", tf.string, whole, tf.int64, line),
        "tensor_filename": text(tf.constant("vocab.txt"), tf.string, whole, tf.int64, line),
    }
    out = {}
    for key, init in tables.items():
        default = -1 if init.value_dtype == tf.int64 else "?"
        out[key] = _shared_name(tf.lookup.StaticHashTable(init, default))
    return out


@case
def a_second_session_on_the_server_reads_the_filled_table(tf):
    server = tf.train.Server.create_local_server()
    table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["x", "y"], [1, 2]), -1)
    looked_up = table.lookup(tf.constant(["y", "z"]))
    with tf.Session(server.target) as first:
        first.run(tf.tables_initializer())
        filled = first.run(looked_up).tolist()
    with tf.Session(server.target) as second:
        again = second.run(looked_up).tolist()
    local = error(lambda: tf.Session().run(looked_up))
    return {"filled": filled, "second_session": again, "other_process_session": local}
