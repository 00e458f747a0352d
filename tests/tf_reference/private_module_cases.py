"""Modules of TensorFlow's private tree that TF1 programs import by path
(`from tensorflow.python.ops.nn import relu, sigmoid, dynamic_rnn`, in course notebooks of
TF 1.x): what they hold is tf.nn's own functions. Each case is `fn(tf) -> dict of plain
values`, run on TF 1.15 by record_private_modules.py and on tfcluster by
tests/unit/test_private_modules.py (`tensorflow.python...` there is `tfcluster.python...`).
Python 3.7 code."""

from __future__ import annotations

import importlib
import os
import shutil
import tempfile

# Names tf.nn and tensorflow.python.ops.nn share in TF 1.15 (its softmax_cross_entropy_
# with_logits_v2, max_pool_with_argmax and dilation2d are v2 forms there, other objects).
_NN_NAMES = [
    "avg_pool",
    "bias_add",
    "bidirectional_dynamic_rnn",
    "conv2d",
    "conv2d_transpose",
    "dropout",
    "dynamic_rnn",
    "elu",
    "embedding_lookup",
    "l2_loss",
    "l2_normalize",
    "leaky_relu",
    "log_softmax",
    "max_pool",
    "moments",
    "nce_loss",
    "raw_rnn",
    "relu",
    "relu6",
    "sampled_softmax_loss",
    "selu",
    "sigmoid",
    "sigmoid_cross_entropy_with_logits",
    "softmax",
    "softmax_cross_entropy_with_logits",
    "softplus",
    "sparse_softmax_cross_entropy_with_logits",
    "static_rnn",
    "tanh",
    "top_k",
    "xw_plus_b",
]


def _private(tf, path):
    root = "tensorflow" if tf.__name__.startswith("tensorflow") else "tfcluster"
    return importlib.import_module(root + "." + path)


def nn_module_functions_are_tf_nns(tf):
    """Each name of tensorflow.python.ops.nn is the very object tf.nn has."""
    nn = _private(tf, "python.ops.nn")
    return {name: getattr(nn, name) is getattr(tf.nn, name) for name in _NN_NAMES}


def nn_module_functions_run(tf):
    """relu, sigmoid, tanh and softmax taken from the module compute as tf.nn's."""
    nn = _private(tf, "python.ops.nn")
    with tf.Graph().as_default():
        x = tf.constant([[-1.0, 0.5, 2.0]])
        outs = {name: getattr(nn, name)(x) for name in ("relu", "sigmoid", "tanh", "softmax")}
        with tf.Session() as sess:
            got = sess.run(outs)
        return {name: value.tolist() for name, value in got.items()}


def _same(module, face, names):
    return {name: getattr(module, name) is getattr(face, name) for name in names}


def graph_io_and_importer_write_and_read_a_graph(tf):
    """graph_io.write_graph and importer.import_graph_def are tf.io's and tf's very functions:
    a graph written as a binary file by one is imported and run by the other."""
    graph_io = _private(tf, "python.framework.graph_io")
    importer = _private(tf, "python.framework.importer")
    folder = tempfile.mkdtemp()
    try:
        with tf.Graph().as_default() as graph:
            x = tf.placeholder(tf.float32, [2], name="x")
            tf.multiply(x, 3.0, name="y")
            path = graph_io.write_graph(graph.as_graph_def(), folder, "model.pb", as_text=False)
        with tf.Graph().as_default() as imported:
            graph_def = tf.GraphDef()
            with open(path, "rb") as f:
                graph_def.ParseFromString(f.read())
            importer.import_graph_def(graph_def, name="")
            with tf.Session() as sess:
                y = sess.run("y:0", {"x:0": [1.0, 2.0]})
        return {
            "file": os.path.basename(path),
            "ops": [op.type for op in imported.get_operations()],
            "y": y.tolist(),
            "write_graph_is_tfs": graph_io.write_graph is tf.io.write_graph,
            "import_graph_def_is_tfs": importer.import_graph_def is tf.import_graph_def,
        }
    finally:
        shutil.rmtree(folder)


def random_seed_module_seeds_the_graph(tf):
    """random_seed.set_random_seed sets the graph's seed; get_seed derives an op's seeds."""
    random_seed = _private(tf, "python.framework.random_seed")
    with tf.Graph().as_default():
        before = random_seed.get_seed(None)
        random_seed.set_random_seed(5)
        seeds = [random_seed.get_seed(None), random_seed.get_seed(7)]
        draw = tf.random_uniform([3])
        with tf.Session() as sess:
            values = sess.run(draw).tolist()
    return {
        "default": random_seed.DEFAULT_GRAPH_SEED,
        "maxint": random_seed._MAXINT32,
        "before": list(before),
        "seeds": [list(s) for s in seeds],
        "values": values,
        "is_v1_function": random_seed.set_random_seed is tf.set_random_seed,
    }


def platform_test_holds_tf_test(tf):
    """platform.test is tf.test: a program's tests subclass test.TestCase and call test.main."""
    test = _private(tf, "python.platform.test")
    return {
        "TestCase": test.TestCase is tf.test.TestCase,
        "main": test.main is tf.test.main,
        "cuda": test.is_built_with_cuda(),
        "gpu": test.gpu_device_name(),
        "temp_dir_is_a_folder": os.path.isdir(test.get_temp_dir()),
    }


def training_session_and_record_modules_hold_tfs_objects(tf):
    """The optimizer, server, session, gradients, TFRecord and summary-iterator modules hold
    tf's very objects; records written through one path read back through the other, and an
    events file through summary_iterator."""
    faces = {
        "python.training.adam": (tf.train, ["AdamOptimizer"]),
        "python.training.gradient_descent": (tf.train, ["GradientDescentOptimizer"]),
        "python.training.momentum": (tf.train, ["MomentumOptimizer"]),
        "python.training.rmsprop": (tf.train, ["RMSPropOptimizer"]),
        "python.training.adagrad": (tf.train, ["AdagradOptimizer"]),
        "python.training.adadelta": (tf.train, ["AdadeltaOptimizer"]),
        "python.training.ftrl": (tf.train, ["FtrlOptimizer"]),
        "python.training.server_lib": (tf.train, ["ClusterSpec", "Server"]),
        "python.client.session": (tf, ["Session", "InteractiveSession"]),
        "python.ops.gradients": (tf, ["gradients", "hessians", "AggregationMethod"]),
        "python.ops.gradients_impl": (tf, ["gradients", "hessians"]),
        "python.lib.io.tf_record": (tf.python_io, ["TFRecordWriter", "TFRecordOptions"]),
        "python.summary.summary_iterator": (tf.train, ["summary_iterator"]),
    }
    out = {path: _same(_private(tf, path), face, names) for path, (face, names) in faces.items()}
    tf_record = _private(tf, "python.lib.io.tf_record")
    iterator = _private(tf, "python.summary.summary_iterator")
    folder = tempfile.mkdtemp()
    try:
        path = os.path.join(folder, "data.tfrecord")
        with tf_record.TFRecordWriter(path) as writer:
            for i in range(3):
                writer.write(b"record " + str(i).encode())
        out["records"] = [r.decode() for r in tf_record.tf_record_iterator(path)]
        with tf.Graph().as_default():
            writer = tf.summary.FileWriter(folder)
            for step in range(2):
                value = tf.Summary.Value(tag="loss", simple_value=1.5 * step)
                writer.add_summary(tf.Summary(value=[value]), step)
            writer.close()
        events = [name for name in os.listdir(folder) if name.startswith("events.out.tfevents")]
        out["events"] = [
            [e.step, [[v.tag, v.simple_value] for v in e.summary.value], bool(e.file_version)]
            for e in iterator.summary_iterator(os.path.join(folder, events[0]))
        ]
    finally:
        shutil.rmtree(folder)
    return out


def rnn_cell_module_holds_rnn_cell_impls_cells(tf):
    """rnn_cell, the pre-1.0 path programs still import (`from tensorflow.python.ops import
    rnn, rnn_cell`), holds rnn_cell_impl's public names: tf.nn.rnn_cell's very classes."""
    cells = _private(tf, "python.ops.rnn_cell")
    out = _same(
        cells,
        tf.nn.rnn_cell,
        ["BasicLSTMCell", "BasicRNNCell", "DropoutWrapper", "GRUCell", "LSTMCell", "MultiRNNCell"],
    )
    out["regexp"] = cells.ASSERT_LIKE_RNNCELL_ERROR_REGEXP
    out["no_private_names"] = not hasattr(cells, "_WEIGHTS_VARIABLE_NAME")
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2, 3, 4])
        cell = cells.BasicLSTMCell(5)
        outputs, _ = _private(tf, "python.ops.rnn").dynamic_rnn(cell, x, dtype=tf.float32)
        out["variables"] = [v.name for v in tf.global_variables()]
        out["output_shape"] = outputs.shape.as_list()
    return out


def rnn_cell_impl_holds_tf_nn_rnn_cells(tf):
    """rnn_cell_impl's cells are tf.nn.rnn_cell's very classes; its helpers answer as TF's."""
    impl = _private(tf, "python.ops.rnn_cell_impl")
    out = _same(
        impl,
        tf.nn.rnn_cell,
        [
            "BasicLSTMCell",
            "BasicRNNCell",
            "DeviceWrapper",
            "DropoutWrapper",
            "GRUCell",
            "LSTMCell",
            "LSTMStateTuple",
            "MultiRNNCell",
            "RNNCell",
            "ResidualWrapper",
        ],
    )
    out["LSTMCell_is_RNNCell"] = issubclass(impl.LSTMCell, impl.RNNCell)
    out["LSTMCell_is_LayerRNNCell"] = issubclass(impl.LSTMCell, impl.LayerRNNCell)
    out["regexp"] = impl.ASSERT_LIKE_RNNCELL_ERROR_REGEXP
    out["weights_name"] = impl._WEIGHTS_VARIABLE_NAME
    out["bias_name"] = impl._BIAS_VARIABLE_NAME
    out["state_tuple_fields"] = list(impl.LSTMStateTuple(1, 2)._fields)
    try:
        impl.assert_like_rnncell("cell", object())
        out["assert_like_rnncell"] = None
    except TypeError as e:
        out["assert_like_rnncell"] = type(e).__name__
    out["static_concat"] = impl._concat(4, [3, 5], static=True)
    with tf.Graph().as_default():
        zeros = impl._zero_state_tensors(impl.LSTMStateTuple(3, 2), 4, tf.float32)
        out["zero_state_shapes"] = [z.shape.as_list() for z in zeros]
        out["zero_state_names"] = [z.op.name for z in zeros]
        dynamic = impl._concat(tf.constant(2), [7])
        with tf.Session() as sess:
            out["dynamic_concat"] = sess.run(dynamic).tolist()
    return out


def rnn_module_holds_tf_nns_drivers(tf):
    """tensorflow.python.ops.rnn's drivers are tf.nn's very functions; its
    _transpose_batch_time swaps the first two dimensions, static shape included."""
    rnn = _private(tf, "python.ops.rnn")
    out = _same(
        rnn,
        tf.nn,
        ["bidirectional_dynamic_rnn", "dynamic_rnn", "raw_rnn", "static_rnn"],
    )
    out["static_bidirectional_rnn"] = rnn.static_bidirectional_rnn is tf.nn.static_bidirectional_rnn
    with tf.Graph().as_default():
        x = tf.reshape(tf.range(24.0), [2, 3, 4])
        t = rnn._transpose_batch_time(x)
        out["transposed_shape"] = t.shape.as_list()
        cell = tf.nn.rnn_cell.BasicRNNCell(3)
        outputs, state = rnn.dynamic_rnn(cell, x, dtype=tf.float32)
        out["dynamic_rnn_shapes"] = [outputs.shape.as_list(), state.shape.as_list()]
        out["variables"] = [v.name for v in tf.global_variables()]
        with tf.Session() as sess:
            out["transposed"] = sess.run(t).tolist()
    return out


def layers_core_holds_tf_layers(tf):
    """tensorflow.python.layers.core's layers are tf.layers' very classes and functions; a
    Dense made from it names its variables as tf.layers.Dense does."""
    core = _private(tf, "python.layers.core")
    out = _same(core, tf.layers, ["Dense", "Dropout", "Flatten", "dense", "dropout", "flatten"])
    out["FullyConnected"] = core.FullyConnected is tf.layers.Dense
    with tf.Graph().as_default():
        layer = core.Dense(3, use_bias=False, name="output_projection")
        y = layer(tf.ones([2, 4]))
        out["dense_variables"] = [v.name for v in tf.global_variables()]
        out["dense_output"] = y.name
        out["dense_fn_output"] = core.dense(tf.ones([1, 2]), 5).shape.as_list()
    return out


def layers_base_holds_tf_layers_layer(tf):
    """tensorflow.python.layers.base's Layer and InputSpec are tf.layers'."""
    base = _private(tf, "python.layers.base")
    out = _same(base, tf.layers, ["InputSpec", "Layer"])
    out["keras_style_scope"] = callable(base.keras_style_scope)
    return out


def _unknown_name_error(module):
    try:
        module.no_such_name_here  # noqa: B018
    except AttributeError as e:
        return str(e)
    return None


def unknown_names_raise_attribute_error(tf):
    """A name no TF module has raises AttributeError naming the module."""
    paths = [
        "python.framework.constant_op",
        "python.framework.function",
        "python.layers.base",
        "python.layers.core",
        "python.ops.gen_math_ops",
        "python.ops.lookup_ops",
        "python.ops.nn_impl",
        "python.eager.context",
        "python.util.deprecation",
        "python.ops.rnn",
        "python.ops.rnn_cell_impl",
        "python.summary.summary",
    ]
    return {path: _unknown_name_error(_private(tf, path)) for path in paths}


def constant_op_module_builds_tf_constants(tf):
    """constant_op.constant_v1 is tf.constant; constant (TF 1.15's v2 form) and is_constant
    answer as TF's."""
    import inspect

    constant_op = _private(tf, "python.framework.constant_op")
    out = {"constant_v1": constant_op.constant_v1 is tf.constant}
    out["constant_params"] = list(inspect.signature(constant_op.constant).parameters)
    with tf.Graph().as_default():
        c = constant_op.constant([1, 2], dtype=tf.float32, shape=[2, 1])
        s = c + 1.0
        out["name"] = c.name
        out["shape"] = c.shape.as_list()
        out["is_constant"] = [constant_op.is_constant(c), constant_op.is_constant(s.op)]
        with tf.Session() as sess:
            out["value"] = sess.run(c).tolist()
    return out


def summary_module_holds_tf_summarys(tf):
    """tensorflow.python.summary.summary's functions and classes are tf.summary's."""
    summary = _private(tf, "python.summary.summary")
    names = [
        "Event",
        "FileWriter",
        "FileWriterCache",
        "SessionLog",
        "Summary",
        "SummaryDescription",
        "TaggedRunMetadata",
        "audio",
        "get_summary_description",
        "histogram",
        "image",
        "merge",
        "merge_all",
        "scalar",
        "tensor_summary",
        "text",
    ]
    out = _same(summary, tf.summary, names)
    with tf.Graph().as_default():
        op = summary.scalar("loss", tf.constant(1.5))
        out["scalar"] = [op.name, op.op.type]
        out["merged"] = summary.merge_all().op.type
    return out


def gen_op_modules_build_tf_ops(tf):
    """gen_math_ops, gen_array_ops and gen_nn_ops: the generated wrappers' signatures, and the
    ops they build (names, values)."""
    import inspect

    gen_math = _private(tf, "python.ops.gen_math_ops")
    gen_array = _private(tf, "python.ops.gen_array_ops")
    gen_nn = _private(tf, "python.ops.gen_nn_ops")
    out = {}
    for label, fn in [
        ("mat_mul", gen_math.mat_mul),
        ("_sum", gen_math._sum),
        ("cast", gen_math.cast),
        ("reshape", gen_array.reshape),
        ("concat_v2", gen_array.concat_v2),
        ("relu", gen_nn.relu),
        ("conv2d", gen_nn.conv2d),
        ("fused_batch_norm_v3", gen_nn.fused_batch_norm_v3),
    ]:
        out[label + "_params"] = [
            [p.name, None if p.default is inspect.Parameter.empty else repr(p.default)]
            for p in inspect.signature(fn).parameters.values()
        ]
    with tf.Graph().as_default():
        got = {
            "mat_mul": gen_math.mat_mul([[1.0, 2.0]], [[3.0], [4.0]]),
            "_sum": gen_math._sum([[1, 2], [3, 4]], 1, keep_dims=True),
            "_max": gen_math._max([[1, 5], [3, 4]], 0),
            "cast": gen_math.cast([1.7, -2.2], tf.int32),
            "reshape": gen_array.reshape([1, 2, 3, 4], [2, 2]),
            "concat_v2": gen_array.concat_v2([[1], [2]], 0, name="joined"),
            "relu": gen_nn.relu([-1.0, 2.0]),
            "bias_add": gen_nn.bias_add([[1.0, 2.0]], [0.5, -0.5]),
        }
        bn = gen_nn.fused_batch_norm_v3(
            tf.ones([1, 2, 2, 1]), [1.0], [0.0], [], [], is_training=True
        )
        out["fused_batch_norm_outputs"] = [type(bn).__name__, list(bn._fields), bn.y.name]
        out["names"] = {key: t.name for key, t in got.items()}
        out["mat_mul_is_raw_op"] = gen_math.MatMul is tf.raw_ops.MatMul
        with tf.Session() as sess:
            values = sess.run(got)
        out["values"] = {key: v.tolist() for key, v in values.items()}
    return out


def defun_functions_compute_and_differentiate(tf):
    """function.Defun: typed and overloaded functions' results and gradients, a
    python_grad_func standing as the call's gradient, func_name naming the call, and Defun's
    checks of the decorated function."""
    function = _private(tf, "python.framework.function")

    @function.Defun(tf.float32, tf.float32)
    def SumAndProduct(x, y):
        return x + y, x * y

    @function.Defun(tf.float32, func_name="SquareIt", python_grad_func=lambda op, dy: [dy * 100.0])
    def Square(x):
        return x * x

    @function.Defun()
    def Twice(a):
        return a * 2

    out = {"kinds": [type(SumAndProduct).__name__, type(Twice).__name__]}
    errors = {}
    for label, make in [
        ("not_callable", lambda: function.Defun(tf.float32)(3)),
        ("defaults", lambda: function.Defun(tf.float32)(lambda x=1: x)),
        ("too_many_types", lambda: function.Defun(tf.float32, tf.float32)(lambda x: x)),
    ]:
        try:
            make()
            errors[label] = None
        except ValueError as e:
            errors[label] = str(e).split(" <")[0]
    out["errors"] = errors
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0])
        a, b = SumAndProduct(x, tf.constant([3.0, 4.0]))
        s = Square(x)
        o = Twice(tf.constant([1, 2]))
        of = Twice(tf.constant([1.5]))
        named = SumAndProduct(x, x, name="explicit")
        out["square_name"] = s.name
        out["explicit_name"] = named[0].name
        out["dtypes"] = [o.dtype.name, of.dtype.name]

        def Tripled(v):
            return v * 3.0

        shaped = function.Defun(tf.float32, shape_func=lambda op: [[2]])(Tripled)
        try:
            function.Defun(tf.float32)(lambda v: v)(x)
            out["lambda"] = None
        except ValueError as e:
            out["lambda"] = str(e).split("_")[0]
        out["shapes"] = [
            str(a.shape),
            str(s.shape),
            str(o.shape),
            str(shaped(x).shape),
        ]
        fetch = {
            "sum": a,
            "product": b,
            "square": s,
            "square_grad": tf.gradients(s, x)[0],
            "product_grad": tf.gradients(b, x)[0],
            "twice_int": o,
            "twice_float": of,
        }
        with tf.Session() as sess:
            got = sess.run(fetch)
        out["values"] = {k: v.tolist() for k, v in got.items()}
    return out


def freeze_graph_freezes_a_checkpointed_graph(tf):
    """freeze_graph.freeze_graph of a text graph and a checkpoint: the frozen GraphDef's nodes
    (variables as Const), written to output_graph and computing as the trained graph."""
    import shutil
    import tempfile

    freeze_graph = _private(tf, "python.tools.freeze_graph")
    d = tempfile.mkdtemp()
    try:
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [None, 2], name="x")
            w = tf.Variable([[1.0], [2.0]], name="w")
            b = tf.Variable([0.5], name="b")
            tf.add(tf.matmul(x, w), b, name="y")
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                ckpt = tf.train.Saver().save(sess, d + "/model.ckpt")
                tf.train.write_graph(sess.graph_def, d, "graph.pbtxt", as_text=True)
        out = {}
        with tf.Graph().as_default():
            gd = freeze_graph.freeze_graph(
                d + "/graph.pbtxt",
                "",
                False,
                ckpt,
                "y",
                "save/restore_all",
                "save/Const:0",
                d + "/frozen.pb",
                True,
                "",
            )
        out["nodes"] = sorted([n.name, n.op] for n in gd.node)
        out["type"] = type(gd).__name__
        errors = {}
        for label, args in [
            ("no_checkpoint", (d + "/graph.pbtxt", "", False, d + "/none", "y")),
            ("no_outputs", (d + "/graph.pbtxt", "", False, ckpt, "")),
            ("no_graph", (d + "/none.pb", "", True, ckpt, "y")),
        ]:
            try:
                with tf.Graph().as_default():
                    freeze_graph.freeze_graph(*args, "", "", "", True, "")
                errors[label] = None
            except (OSError, ValueError) as e:
                errors[label] = [type(e).__name__, str(e).replace(d, "<dir>")]
        out["errors"] = errors
        with tf.Graph().as_default():
            frozen = tf.GraphDef()
            with open(d + "/frozen.pb", "rb") as f:
                frozen.ParseFromString(f.read())
            tf.import_graph_def(frozen, name="")
            with tf.Session() as sess:
                out["value"] = sess.run("y:0", {"x:0": [[1.0, 1.0], [2.0, -1.0]]}).tolist()
        return out
    finally:
        shutil.rmtree(d)


def lookup_ops_builds_vocabulary_tables(tf):
    """lookup_ops: tf.lookup's classes, and the word-to-id / id-to-word tables of a vocabulary
    file and tensor (names of their ops, lookups of known and unknown entries)."""
    import os
    import shutil
    import tempfile

    lookup_ops = _private(tf, "python.ops.lookup_ops")
    out = {
        "StaticHashTableV1": lookup_ops.StaticHashTableV1 is tf.lookup.StaticHashTable,
        "StaticVocabularyTableV1": (
            lookup_ops.StaticVocabularyTableV1 is tf.lookup.StaticVocabularyTable
        ),
        "KeyValueTensorInitializer": (
            lookup_ops.KeyValueTensorInitializer is tf.lookup.KeyValueTensorInitializer
        ),
        "TextFileInitializer": lookup_ops.TextFileInitializer is tf.lookup.TextFileInitializer,
        "TextFileIndex": lookup_ops.TextFileIndex is tf.lookup.TextFileIndex,
        "tables_initializer": lookup_ops.tables_initializer is tf.tables_initializer,
        "initialize_all_tables": lookup_ops.initialize_all_tables is tf.initialize_all_tables,
        "HashTable_is_a_StaticHashTable": [
            lookup_ops.HashTable is tf.lookup.StaticHashTable,
            issubclass(lookup_ops.HashTable, tf.lookup.StaticHashTable),
        ],
    }
    d = tempfile.mkdtemp()
    try:
        vocab = os.path.join(d, "vocab.txt")
        with open(vocab, "w") as f:
            f.write("<unk>\n<s>\n</s>\nhello\nworld\n")
        with tf.Graph().as_default():
            src = lookup_ops.index_table_from_file(vocab, default_value=0)
            rev = lookup_ops.index_to_string_table_from_file(vocab, default_value="<unk>")
            rev_t = lookup_ops.index_to_string_table_from_tensor(["a", "b"], name="rev_t")
            ids_t = lookup_ops.index_table_from_tensor(["x", "y"], num_oov_buckets=2)
            older = lookup_ops.HashTable(
                lookup_ops.KeyValueTensorInitializer(["p", "q"], [7, 8]), -1
            )
            raw_table = lookup_ops.hash_table_v2(tf.string, tf.int64, shared_name="raw")
            raw_init = lookup_ops.initialize_table_v2(
                raw_table, tf.constant(["m"]), tf.constant([5], tf.int64)
            )
            with tf.control_dependencies([raw_init]):
                raw_found = lookup_ops.lookup_table_find_v2(
                    raw_table, tf.constant(["m", "n"]), tf.constant(-2, tf.int64)
                )
            init = lookup_ops.TextFileStringTableInitializer(vocab)
            out["string_init"] = [init.key_dtype.name, init.value_dtype.name]
            fetch = {
                "ids": src.lookup(tf.constant(["hello", "nope", "</s>"])),
                "words": rev.lookup(tf.constant([3, 4, 9], tf.int64)),
                "tensor_words": rev_t.lookup(tf.constant([1, 5], tf.int64)),
                "tensor_ids": ids_t.lookup(tf.constant(["y", "x"])),
                "size": rev.size(),
                "older": older.lookup(tf.constant(["q", "z"])),
                "raw_found": raw_found,
            }
            out["names"] = {key: t.name for key, t in fetch.items()}
            out["table_ops"] = sorted(
                op.name for op in tf.get_default_graph().get_operations() if "Table" in op.type
            )
            with tf.Session() as sess:
                sess.run(lookup_ops.tables_initializer())
                got = sess.run(fetch)
        out["values"] = {key: v.tolist() if hasattr(v, "tolist") else v for key, v in got.items()}
        out["values"]["words"] = [w.decode() for w in out["values"]["words"]]
        out["values"]["tensor_words"] = [w.decode() for w in out["values"]["tensor_words"]]
        return out
    finally:
        shutil.rmtree(d)


def nn_impl_holds_tf_nns_functions(tf):
    """nn_impl's functions are tf.nn's (normalize tf.linalg's); _compute_sampled_logits gives
    the logits and labels of a sampled loss."""
    nn_impl = _private(tf, "python.ops.nn_impl")
    names = [
        "batch_norm_with_global_normalization",
        "batch_normalization",
        "compute_average_loss",
        "depthwise_conv2d",
        "fused_batch_norm",
        "l2_normalize",
        "log_poisson_loss",
        "moments",
        "nce_loss",
        "normalize_moments",
        "relu_layer",
        "sampled_softmax_loss",
        "scale_regularization_loss",
        "separable_conv2d",
        "sigmoid_cross_entropy_with_logits",
        "sufficient_statistics",
        "swish",
        "weighted_cross_entropy_with_logits",
        "weighted_moments",
        "zero_fraction",
    ]
    out = _same(nn_impl, tf.nn, names)
    out["normalize"] = nn_impl.normalize is tf.linalg.normalize
    with tf.Graph().as_default():
        weights = tf.reshape(tf.range(12.0), [4, 3]) / 10.0
        biases = tf.constant([0.1, 0.2, 0.3, 0.4])
        inputs = tf.constant([[1.0, 0.5, -1.0], [0.0, 2.0, 1.0]])
        labels = tf.constant([[1], [3]], tf.int64)
        sampled = (
            tf.constant([0, 2], tf.int64),
            tf.constant([[1.0], [1.0]]),
            tf.constant([0.5, 0.5]),
        )
        logits, out_labels = nn_impl._compute_sampled_logits(
            weights, biases, labels, inputs, 2, 4, sampled_values=sampled
        )
        rows = nn_impl._sum_rows(tf.constant([[1.0, 2.0], [3.0, 4.0]]))
        with tf.Session() as sess:
            got = sess.run([logits, out_labels, rows])
        out["sampled_logits"] = [v.tolist() for v in got]
    return out


def eager_context_reports_graph_mode(tf):
    """context.executing_eagerly is tf's; the modes' constants, graph_mode and shared_name
    answer as in a TF1 graph program."""
    context = _private(tf, "python.eager.context")
    out = {"executing_eagerly": context.executing_eagerly is tf.executing_eagerly}
    for name in [
        "GRAPH_MODE",
        "EAGER_MODE",
        "default_execution_mode",
        "DEVICE_PLACEMENT_EXPLICIT",
        "DEVICE_PLACEMENT_WARN",
        "DEVICE_PLACEMENT_SILENT",
        "DEVICE_PLACEMENT_SILENT_FOR_INT32",
        "SYNC",
        "ASYNC",
        "MIRRORING_NONE",
        "MIRRORING_ALL",
    ]:
        out[name] = getattr(context, name)
    with tf.Graph().as_default():
        with context.graph_mode():
            out["eager_in_graph_mode"] = [context.executing_eagerly(), context.in_eager_mode()]
        out["shared_names"] = [context.shared_name(), context.shared_name("table")]
    return out


def deprecation_decorates_a_programs_functions(tf):
    """deprecation.deprecated warns once per function with TF's words (date or not), silence()
    and _PRINT_DEPRECATION_WARNINGS keep it quiet; deprecated_argument_lookup and
    deprecated_endpoints answer as TF's."""
    import logging

    deprecation = _private(tf, "python.util.deprecation")
    records = []

    class Keep(logging.Handler):
        def emit(self, record):
            message = record.getMessage()
            message = message.split(": ", 1)[1] if message.startswith("From ") else message
            # The cases' module is named as the recorder or the test imports it.
            records.append(message.replace(__name__, "<module>"))

    handler = Keep()
    logger = logging.getLogger("tensorflow")
    logger.addHandler(handler)
    # TF's default verbosity for the block, whatever a program before set.
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:

        @deprecation.deprecated(None, "Use new_fn instead.")
        def old_fn(x):
            return x + 1

        @deprecation.deprecated("2020-01-01", "Gone.", warn_once=False)
        def every_time(x):
            return x * 2

        @deprecation.deprecated_args(None, "Use axis.", "dim", ("keep", False))
        def with_args(x, axis=None, dim=None, keep=False):
            return x

        results = [old_fn(1), old_fn(2), every_time(3), every_time(4)]
        results += [
            with_args(1, dim=2),
            with_args(1, None, 3),
            with_args(1, keep=False),
            with_args(1, keep=True),
            with_args(1, keep=True),
        ]
        with deprecation.silence():
            results.append(every_time(5))
        deprecation._PRINT_DEPRECATION_WARNINGS = False
        results.append(every_time(6))
        deprecation._PRINT_DEPRECATION_WARNINGS = True
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    out = {"results": results, "warnings": records}
    errors = {}
    for label, make in [
        ("bad_date", lambda: deprecation.deprecated("soon", "x")),
        ("no_instructions", lambda: deprecation.deprecated(None, "")),
        ("both_values", lambda: deprecation.deprecated_argument_lookup("new", 1, "old", 2)),
        ("no_args", lambda: deprecation.deprecated_args(None, "x")),
        ("missing_arg", lambda: deprecation.deprecated_args(None, "x", "nope")(lambda a: a)),
    ]:
        try:
            make()
            errors[label] = None
        except ValueError as e:
            errors[label] = str(e)
    out["errors"] = errors
    out["lookup"] = [
        deprecation.deprecated_argument_lookup("new", None, "old", 2),
        deprecation.deprecated_argument_lookup("new", 1, "old", None),
    ]

    @deprecation.deprecated_endpoints("a.b", "c")
    def endpoint():
        return None

    out["endpoints"] = list(endpoint._tf_deprecated_api_names)
    try:
        deprecation.deprecated_endpoints("d")(endpoint)
        out["endpoints_twice"] = None
    except deprecation.DeprecatedNamesAlreadySet as e:
        out["endpoints_twice"] = str(e).split(" to ")[0]
    return out


CASES = {
    "nn_module_functions_are_tf_nns": nn_module_functions_are_tf_nns,
    "nn_module_functions_run": nn_module_functions_run,
    "rnn_cell_impl_holds_tf_nn_rnn_cells": rnn_cell_impl_holds_tf_nn_rnn_cells,
    "rnn_cell_module_holds_rnn_cell_impls_cells": rnn_cell_module_holds_rnn_cell_impls_cells,
    "graph_io_and_importer_write_and_read_a_graph": graph_io_and_importer_write_and_read_a_graph,
    "random_seed_module_seeds_the_graph": random_seed_module_seeds_the_graph,
    "platform_test_holds_tf_test": platform_test_holds_tf_test,
    "training_session_and_record_modules_hold_tfs_objects": (
        training_session_and_record_modules_hold_tfs_objects
    ),
    "rnn_module_holds_tf_nns_drivers": rnn_module_holds_tf_nns_drivers,
    "layers_core_holds_tf_layers": layers_core_holds_tf_layers,
    "layers_base_holds_tf_layers_layer": layers_base_holds_tf_layers_layer,
    "unknown_names_raise_attribute_error": unknown_names_raise_attribute_error,
    "constant_op_module_builds_tf_constants": constant_op_module_builds_tf_constants,
    "summary_module_holds_tf_summarys": summary_module_holds_tf_summarys,
    "gen_op_modules_build_tf_ops": gen_op_modules_build_tf_ops,
    "defun_functions_compute_and_differentiate": defun_functions_compute_and_differentiate,
    "freeze_graph_freezes_a_checkpointed_graph": freeze_graph_freezes_a_checkpointed_graph,
    "lookup_ops_builds_vocabulary_tables": lookup_ops_builds_vocabulary_tables,
    "nn_impl_holds_tf_nns_functions": nn_impl_holds_tf_nns_functions,
    "eager_context_reports_graph_mode": eager_context_reports_graph_mode,
    "deprecation_decorates_a_programs_functions": deprecation_decorates_a_programs_functions,
}
