"""Records TF 1.15's answers for the programs of collectives_cases.py (collective ops across
worker tasks, MultiWorkerMirroredStrategy): tests/integration/test_collectives_across_tasks.py
runs the same programs on a cluster of tfcluster task processes. Each case gets a fresh
cluster of in-process TF servers on loopback whose collective group leader is worker 0 (TF's
collective executor needs it named). Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_collectives.py
"""

import socket

import tensorflow as tf
from collectives_cases import CASES, N_TASKS, Cluster
from recorder import Recorder

if not tf.__version__.startswith("1."):
    raise SystemExit("record_collectives.py records TensorFlow 1.15")


def _port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def _cluster():
    addresses = {"worker": [f"127.0.0.1:{_port()}" for _ in range(N_TASKS)]}
    config = tf.ConfigProto()
    config.experimental.collective_group_leader = "/job:worker/replica:0/task:0"
    servers = [
        tf.distribute.Server(
            tf.train.ClusterSpec(addresses), job_name="worker", task_index=i, config=config
        )
        for i in range(N_TASKS)
    ]
    _cluster.keep.extend(servers)  # TF 1.15 servers cannot stop: they live with the process
    return Cluster([s.target for s in servers], addresses)


_cluster.keep = []

rec = Recorder("collectives")
for name, program in sorted(CASES.items()):
    tf.reset_default_graph()
    print(name, flush=True)
    rec.add(name, **program(tf, _cluster()))
rec.save()
