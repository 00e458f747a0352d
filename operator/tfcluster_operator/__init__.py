"""The TFCluster operator: turns a ``TFCluster`` resource into task servers on Kubernetes.

``main`` holds the kopf handlers (indexes of the watched objects, events that ask for a
sync); ``coalesce`` gathers those requests into one sync per TFCluster at a time;
``reconcile`` is the sync (plan, dry run, apply, prune, status); the pure ``builders`` turn
a validated ``spec`` into manifests, ``drift`` says which fields the operator set someone
changed, ``status`` derives the resource's status from its ``children``; ``kube`` is the
one layer that talks to the API server and ``events`` posts de-duplicated events.
"""

GROUP = "tfcluster.dev"
VERSION = "v1alpha1"
PLURAL = "tfclusters"
KIND = "TFCluster"
API_VERSION = f"{GROUP}/{VERSION}"

__all__ = ["API_VERSION", "GROUP", "KIND", "PLURAL", "VERSION"]
