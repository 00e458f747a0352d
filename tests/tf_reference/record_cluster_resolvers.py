"""Records tf.distribute.cluster_resolver on TensorFlow 1.15 itself (2.x's resolvers differ:
Slurm parses node lists, TF_CONFIG's task_id override): run with TF 1.15's Python,
`cd tests/tf_reference && /tmp/tf115/bin/python record_cluster_resolvers.py`.
Cases live in cluster_resolver_cases.py, which the test runs on tfcluster too."""

from __future__ import annotations

import os

import tensorflow as tf
from cluster_resolver_cases import CASES, SLURM_HOSTS, VARIABLES, fake_scontrol_dir
from recorder import Recorder

cr = tf.distribute.cluster_resolver
rec = Recorder("cluster_resolvers")
os.environ["PATH"] = fake_scontrol_dir(SLURM_HOSTS) + os.pathsep + os.environ["PATH"]
for name, (env, case) in sorted(CASES.items()):
    for variable in VARIABLES:
        os.environ.pop(variable, None)
    os.environ.update(env)
    rec.add(name, values=case(cr, tf.train.ClusterSpec))
rec.save()
