"""What the operator promises a task server: the command its containers run, the environment
variables it sets in them and the ports it declares by default.

The task server names the same contract on its side (server/tfcluster/settings/contract.py);
this package does not import it (the operator runs without the runtime's dependencies), and
tests/operator/test_task_contract.py checks that the two agree.
"""

from __future__ import annotations

# The task server's console script (pyproject's [project.scripts]).
SERVER_COMMAND = "tfcluster-server"

# The cluster and this pod's task, as Kubeflow's TFJob gives them (builders/tf_config.py).
TF_CONFIG_ENV = "TF_CONFIG"
# The pod's index in its StatefulSet, from the pod-index label; TF_CONFIG refers to it.
TASK_INDEX_ENV = "TFCLUSTER_TASK_INDEX"
# The port of the task's Prometheus /metrics endpoint (spec.metricsPort).
METRICS_PORT_ENV = "TFCLUSTER_METRICS_PORT"
# The port of the task's direct streams (spec.directPort): peers connect to the port the
# task reports, so it must be the one the Services expose.
DIRECT_PORT_ENV = "TFCLUSTER_DIRECT_PORT"
# The container's CPU limit (else its request) in millicores, through the downward API: the
# server sizes its thread pools to it (set only where the job gives one of them).
CPU_BUDGET_ENV = "TFCLUSTER_CPU_MILLICORES"

# Mutual TLS: the task's certificate, its key and the cluster's CA (PEM files in the mounted
# Secret), set when spec.tls is on.
TLS_CERT_ENV = "TFCLUSTER_TLS_CERT"
TLS_KEY_ENV = "TFCLUSTER_TLS_KEY"
TLS_CA_ENV = "TFCLUSTER_TLS_CA"

# Set by the operator in task containers: a user value would break the task.
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

DEFAULT_GRPC_PORT = 2222
DEFAULT_METRICS_PORT = 9090
# Fixed so Services and NetworkPolicies can name it; a task server left to itself would pick
# any free port.
DEFAULT_DIRECT_PORT = 2223

# The file whose content the kubelet reports as a container's last message: the task server
# writes its fatal error there, and the crash-loop condition quotes it.
TERMINATION_MESSAGE_PATH = "/dev/termination-log"
# The kubelet keeps at most this many bytes of it.
TERMINATION_MESSAGE_LIMIT = 4096
