"""What a RunConfig holds, attribute by attribute, as TF 1.15's: its vars() in order (the
Estimator logs `Using config: <vars>` at construction, the line every Estimator program
prints first), the session config a local config leaves None and a cluster task's default
(device filters, meta_optimizer_iterations ONE), and the default the Estimator then takes.
Each case is `fn(tf) -> plain values`, run on TF 1.15 by record_run_config_vars.py and on
tfcluster by tests/unit/test_run_config_vars.py. Python 3.7 code."""

from __future__ import annotations

import json
import os
import shutil
import tempfile

_CLUSTER = {"chief": ["h0:1"], "ps": ["h1:1"], "worker": ["h2:1", "h3:1"]}
_MASTER_CLUSTER = {"master": ["h0:1"], "ps": ["h1:1"], "worker": ["h2:1"]}


def _config(tf, tf_config, **kwargs):
    os.environ["TF_CONFIG"] = json.dumps(tf_config)
    try:
        return tf.estimator.RunConfig(**kwargs)
    finally:
        del os.environ["TF_CONFIG"]


def _session(config):
    return None if config is None else str(config)


def _described(config):
    return {
        "vars": list(vars(config)),
        "session_config": _session(config.session_config),
        "cluster_spec": config.cluster_spec.as_dict(),
    }


def local_config(tf):
    """RunConfig() without TF_CONFIG, and its replace(session_config=None)."""
    config = tf.estimator.RunConfig(tf_random_seed=1)
    out = _described(config)
    out["replaced"] = _session(config.replace(session_config=None).session_config)
    return out


def cluster_tasks(tf):
    """A config per task of a chief/ps/worker cluster and of one with a master job."""
    out = {}
    for cluster, tasks in ((_CLUSTER, ["chief", "ps", "worker"]), (_MASTER_CLUSTER, ["master"])):
        for task in tasks:
            index = 1 if task == "worker" else 0
            out[task] = _described(
                _config(tf, {"cluster": cluster, "task": {"type": task, "index": index}})
            )
    out["evaluator"] = {
        "vars": list(
            vars(_config(tf, {"cluster": _CLUSTER, "task": {"type": "evaluator", "index": 0}}))
        )
    }
    return out


def estimator_config(tf):
    """An Estimator's own config (the model_dir and default session config set) and the
    config part of the line it logs, up to the cluster spec (whose text is an address)."""
    model_dir = tempfile.mkdtemp()
    try:

        def model_fn(features, labels, mode):
            raise AssertionError("not called")

        est = tf.estimator.Estimator(model_fn, model_dir=model_dir)
        line = str(vars(est.config)).replace(model_dir, "MODEL_DIR")
        out = _described(est.config)
        out["logged_head"] = line.split(", '_cluster_spec'")[0]
        out["logged_tail"] = line.split("'_task_type'")[1]
        return out
    finally:
        shutil.rmtree(model_dir, ignore_errors=True)


def estimator_default_config_logged(tf):
    """The lines an Estimator without a config logs as it is made (up to the config's text)."""
    import logging

    messages = []

    class Lines(logging.Handler):
        def emit(self, record):
            messages.append(f"{record.levelname}:{record.getMessage()[:20]}")

    model_dir = tempfile.mkdtemp()
    handler = Lines(logging.INFO)
    logger = logging.getLogger("tensorflow")
    level = logger.level
    logger.setLevel(logging.INFO)
    logger.addHandler(handler)
    try:

        def model_fn(features, labels, mode):
            raise AssertionError("not called")

        tf.estimator.Estimator(model_fn, model_dir=model_dir)
        tf.estimator.Estimator(model_fn)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        shutil.rmtree(model_dir, ignore_errors=True)
    return {"lines": messages}


CASES = {
    "estimator_default_config_logged": estimator_default_config_logged,
    "cluster_tasks": cluster_tasks,
    "estimator_config": estimator_config,
    "local_config": local_config,
}
