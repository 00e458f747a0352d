"""The TFCluster operator: turns a ``TFCluster`` resource into task servers on Kubernetes.

``main`` holds the kopf handlers (indexes of the watched objects, events that ask for a
sync); ``coalesce`` gathers those requests into one sync per TFCluster at a time;
``reconcile`` is the sync (plan, dry run, apply, prune, status); the pure ``builders`` turn
a validated ``spec`` into manifests, ``drift`` says which fields the operator set someone
changed, ``status`` derives the resource's status from its ``children`` (``run_status`` a
run's, from its Indexed Jobs; ``kueue`` the Workload's side of Kueue's contract); ``kube`` is
the one layer that talks to the API server and ``events`` posts de-duplicated events.
``security`` adds what spec.tls and spec.networkPolicy want to a sync: ``tls_secrets`` (the
operator as the cluster's CA, with ``certificates``), ``builders.tls`` (pod template,
cert-manager Certificates) and ``builders.network_policy``.
"""

GROUP = "tfcluster.dev"
VERSION = "v1alpha1"
PLURAL = "tfclusters"
KIND = "TFCluster"
API_VERSION = f"{GROUP}/{VERSION}"

__all__ = ["API_VERSION", "GROUP", "KIND", "PLURAL", "VERSION"]
