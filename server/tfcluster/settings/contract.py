"""The contract between the operator and a task server: the environment variables the
operator sets in every task container and the ports it declares, by name.

The operator (operator/tfcluster_operator/task_contract.py) spells the same names on its
side, without importing this package; tests/operator/test_task_contract.py checks that the
two agree. `tfcluster run` and `tfcluster cluster` give local tasks the same variables.
"""

from __future__ import annotations

# The command a task container runs (pyproject's [project.scripts]: tfcluster.cli.server_main).
SERVER_COMMAND = "tfcluster-server"

# {"cluster": {job: [address, ...]}, "task": {"type": job, "index": i}}, as Kubeflow's TFJob.
TF_CONFIG_ENV = "TF_CONFIG"
# The pod's index in its StatefulSet; TF_CONFIG refers to it (the kubelet expands it).
TASK_INDEX_ENV = "TFCLUSTER_TASK_INDEX"
# The port of the task's Prometheus /metrics endpoint ('0': any free one; 'off': none).
METRICS_PORT_ENV = "TFCLUSTER_METRICS_PORT"
# The port of the task's direct streams (rpc/direct): peers connect to the port the task
# reports, so behind a Service it must be the declared one.
DIRECT_PORT_ENV = "TFCLUSTER_DIRECT_PORT"
# The task container's CPU budget in millicores (its CPU limit, else its request), passed
# through the downward API (resourceFieldRef, divisor 1m): the server sizes its thread pools
# to it. A request is not a cgroup quota, so without this the task would see the node's cores.
CPU_BUDGET_ENV = "TFCLUSTER_CPU_MILLICORES"

# Mutual TLS (rpc/tls.py): PEM files of this process's certificate, its key and the CA whose
# certificates it accepts. A task server serves only peers with a certificate from that CA;
# any process (a task, a client) shows its certificate to the tasks it calls. The operator
# sets them when spec.tls is on, pointing into the mounted Secret; a user's program (a
# client pod) sets them to the files of the <name>-client-tls Secret.
TLS_CERT_ENV = "TFCLUSTER_TLS_CERT"
TLS_KEY_ENV = "TFCLUSTER_TLS_KEY"
TLS_CA_ENV = "TFCLUSTER_TLS_CA"
# The address the task's /metrics endpoint binds ('' : every interface).
METRICS_ADDRESS_ENV = "TFCLUSTER_METRICS_ADDRESS"

# Every variable the operator reserves for itself in a task container.
OPERATOR_ENV = frozenset(
    {
        TF_CONFIG_ENV,
        TASK_INDEX_ENV,
        METRICS_PORT_ENV,
        DIRECT_PORT_ENV,
        CPU_BUDGET_ENV,
        TLS_CERT_ENV,
        TLS_KEY_ENV,
        TLS_CA_ENV,
    }
)

# A task's gRPC port in the operator's clusters (and seed 000's examples).
DEFAULT_GRPC_PORT = 2222
# `tfcluster-server`'s metrics port when neither flag nor variable names one; the operator
# declares the same.
DEFAULT_METRICS_PORT = 9090
# The direct-streams port the operator declares (a server left to itself takes any free one).
DEFAULT_DIRECT_PORT = 2223

# The file whose content the kubelet reports as a container's last message
# (terminationMessagePath): the server writes its fatal error there, when the file exists,
# and the operator shows it in the TFCluster's status when the task keeps crashing.
TERMINATION_MESSAGE_PATH = "/dev/termination-log"
# The kubelet keeps at most this many bytes of it.
TERMINATION_MESSAGE_LIMIT = 4096
