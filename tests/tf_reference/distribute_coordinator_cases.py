"""Estimator under TF 1.15's distribute coordinator: RunConfig(train_distribute=...) with a
TF_CONFIG cluster, and a two-worker MultiWorkerMirroredStrategy train_and_evaluate.

Python 3.7 code: record_distribute_coordinator.py runs it under TF 1.15, the tests under
tfcluster. `config_case` builds a RunConfig in-process; run as a program
(`python distribute_coordinator_cases.py MODULE MODEL_DIR OUT`, TF_CONFIG set) it is one
worker of the training cluster and writes what that worker saw to OUT as JSON."""

import importlib
import json
import os
import sys

# (name, TF_CONFIG): with train_distribute set, a cluster without a master job goes to the
# coordinator (INDEPENDENT_WORKER); one with a master job, or none, does not.
CONFIG_CASES = [
    (
        "worker_only",
        {"cluster": {"worker": ["h:1", "h:2"]}, "task": {"type": "worker", "index": 1}},
    ),
    (
        "chief_worker_ps",
        {
            "cluster": {"chief": ["h:1"], "worker": ["h:2", "h:3"], "ps": ["h:4"]},
            "task": {"type": "worker", "index": 0},
        },
    ),
    (
        "master_job",
        {
            "cluster": {"master": ["h:1"], "worker": ["h:2"], "ps": ["h:3"]},
            "task": {"type": "worker", "index": 0},
        },
    ),
    ("no_cluster", {}),
]


def _describe_error(e):
    return {"error": type(e).__name__, "message": str(e)}


def config_case(tf, tf_config):
    """The RunConfig's settings with a (local) ParameterServerStrategy as train_distribute."""
    os.environ["TF_CONFIG"] = json.dumps(tf_config)
    try:
        strategy = tf.distribute.experimental.ParameterServerStrategy()
        config = tf.estimator.RunConfig(train_distribute=strategy)
    finally:
        del os.environ["TF_CONFIG"]
    session_config = config.session_config
    return {
        "mode": getattr(config, "_distribute_coordinator_mode", None),
        "task_type": config.task_type,
        "task_id": config.task_id,
        "is_chief": config.is_chief,
        "master": config.master,
        "num_ps_replicas": config.num_ps_replicas,
        "num_worker_replicas": config.num_worker_replicas,
        "global_id_in_cluster": config.global_id_in_cluster,
        "cluster": config.cluster_spec.as_dict() if config.cluster_spec else {},
        "device_filters": list(session_config.device_filters) if session_config else None,
    }


# (name, strategy, cluster, task type, task id): what an input_fn is told by a strategy the
# coordinator configured for a task.
INPUT_CONTEXT_CASES = [
    (
        "ps_chief",
        "ParameterServerStrategy",
        {"chief": ["h:1"], "worker": ["h:2", "h:3"], "ps": ["h:4"]},
        "chief",
        0,
    ),
    (
        "ps_worker",
        "ParameterServerStrategy",
        {"chief": ["h:1"], "worker": ["h:2", "h:3"], "ps": ["h:4"]},
        "worker",
        1,
    ),
    (
        "ps_no_chief",
        "ParameterServerStrategy",
        {"worker": ["h:2", "h:3"], "ps": ["h:4"]},
        "worker",
        1,
    ),
    (
        "collective_worker",
        "MultiWorkerMirroredStrategy",
        {"worker": ["h:1", "h:2", "h:3"]},
        "worker",
        2,
    ),
]


def input_context_case(tf, strategy_name, cluster, task_type, task_id):
    """The InputContext make_input_fn_iterator gives the input_fn of a strategy configured for
    a task, and whether that task initialises, checkpoints and saves summaries."""
    strategy = getattr(tf.distribute.experimental, strategy_name)()
    strategy.configure(cluster_spec=cluster, task_type=task_type, task_id=task_id)
    seen = []

    def input_fn(context):
        seen.append(
            [
                context.num_input_pipelines,
                context.input_pipeline_id,
                context.num_replicas_in_sync,
            ]
        )
        return tf.data.Dataset.from_tensors(1.0)

    with tf.Graph().as_default():
        strategy.make_input_fn_iterator(input_fn)
    extended = strategy.extended
    roles = [
        extended.experimental_should_init,
        extended.should_checkpoint,
        extended.should_save_summary,
    ]
    return {"input": seen, "init_checkpoint_summary": roles}


def direct_call_case(tf, model_dir, call):
    """Estimator.train / evaluate called directly under INDEPENDENT_WORKER mode."""
    os.environ["TF_CONFIG"] = json.dumps(CONFIG_CASES[0][1])
    try:
        strategy = tf.distribute.experimental.ParameterServerStrategy()
        config = tf.estimator.RunConfig(train_distribute=strategy, eval_distribute=strategy)
        estimator = tf.estimator.Estimator(_model_fn(tf), model_dir=model_dir, config=config)
        if call == "train":
            estimator.train(_input_fn(tf), max_steps=2)
        else:
            estimator.evaluate(_input_fn(tf), steps=1)
    except Exception as e:  # the class and message are the case
        return _describe_error(e)
    finally:
        del os.environ["TF_CONFIG"]
    return {"error": None}


def _input_fn(tf):
    import numpy as np

    def input_fn(mode=None, input_context=None):
        x = np.arange(64, dtype=np.float32).reshape(32, 2) / 64.0
        y = (x[:, :1] * 2.0 - x[:, 1:] + 0.5).astype(np.float32)
        ds = tf.data.Dataset.from_tensor_slices((x, y))
        if input_context:
            ds = ds.shard(input_context.num_input_pipelines, input_context.input_pipeline_id)
        return ds.repeat().batch(4)

    return input_fn


def _model_fn(tf):
    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [2, 1], initializer=tf.constant_initializer([[0.1], [0.2]]))
        loss = tf.losses.mean_squared_error(labels, tf.matmul(features, w))
        if mode == tf.estimator.ModeKeys.EVAL:
            return tf.estimator.EstimatorSpec(mode, loss=loss)
        step = tf.train.get_or_create_global_step()
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, step)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    return model_fn


def _loss_recorder(tf):
    """A SessionRunHook noting each step's loss."""

    class LossRecorder(tf.train.SessionRunHook):
        def __init__(self):
            self.losses = []

        def begin(self):
            self._loss = tf.get_collection(tf.GraphKeys.LOSSES)[-1]

        def before_run(self, run_context):
            return tf.train.SessionRunArgs(self._loss)

        def after_run(self, run_context, run_values):
            self.losses.append(float(run_values.results))

    return LossRecorder()


def run_worker(module, model_dir, out):
    """This worker's part of a MultiWorkerMirroredStrategy train_and_evaluate."""
    tf = importlib.import_module(module)
    strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
    config = tf.estimator.RunConfig(
        train_distribute=strategy, save_checkpoints_steps=5, log_step_count_steps=5
    )
    estimator = tf.estimator.Estimator(_model_fn(tf), model_dir=model_dir, config=config)
    recorder = _loss_recorder(tf)
    result = tf.estimator.train_and_evaluate(
        estimator,
        tf.estimator.TrainSpec(_input_fn(tf), max_steps=10, hooks=[recorder]),
        tf.estimator.EvalSpec(_input_fn(tf), steps=2),
    )
    task = json.loads(os.environ["TF_CONFIG"])["task"]
    own = (
        model_dir if task["index"] == 0 else os.path.join(model_dir, f"tmp_worker_{task['index']}")
    )
    with open(out, "w") as f:
        json.dump(
            {
                "result": repr(result),
                "losses": recorder.losses,
                "w": estimator.get_variable_value("w").ravel().tolist(),
                "config_task": [estimator.config.task_type, estimator.config.task_id],
                "checkpoints": sorted(
                    n[: -len(".index")] for n in os.listdir(own) if n.endswith(".index")
                ),
            },
            f,
        )


def run_cluster(python, module, workdir, ports, env=None, timeout=240):
    """Runs the two workers (TF_CONFIG worker-only, on `ports`) as processes of `python`;
    returns each worker's JSON in task order."""
    import subprocess

    cluster = {"worker": [f"localhost:{p}" for p in ports]}
    model_dir = os.path.join(workdir, "model")
    procs = []
    for index in range(len(ports)):
        worker_env = dict(os.environ if env is None else env)
        worker_env["TF_CONFIG"] = json.dumps(
            {"cluster": cluster, "task": {"type": "worker", "index": index}}
        )
        out = os.path.join(workdir, f"worker{index}.json")
        procs.append(
            (
                out,
                subprocess.Popen(
                    [python, os.path.abspath(__file__), module, model_dir, out],
                    env=worker_env,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                ),
            )
        )
    results = []
    try:
        for out, p in procs:
            output, _ = p.communicate(timeout=timeout)
            if p.returncode != 0:
                raise RuntimeError("worker failed:\n" + output.decode(errors="replace")[-4000:])
            with open(out) as f:
                results.append(json.load(f))
    finally:
        for _, p in procs:
            if p.poll() is None:
                p.kill()
                p.communicate()
    return results


if __name__ == "__main__":
    run_worker(sys.argv[1], sys.argv[2], sys.argv[3])
