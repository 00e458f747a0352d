{{/* The release's full name, at most 63 characters. */}}
{{- define "tfcluster-operator.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "tfcluster-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "tfcluster-operator.labels" -}}
{{ include "tfcluster-operator.selectorLabels" . }}
app.kubernetes.io/part-of: tfcluster
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "tfcluster-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "tfcluster-operator.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "tfcluster-operator.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* The operator's RBAC rules, the same as manifests/rbac.yaml's ClusterRole. */}}
{{- define "tfcluster-operator.rules" -}}
# The watched resource; get: a read before re-creating a child someone deleted; delete:
# a finished run whose ttlSecondsAfterFinished passed.
- apiGroups: [tfcluster.dev]
  resources: [tfclusters]
  verbs: [get, list, watch, delete]
- apiGroups: [tfcluster.dev]
  resources: [tfclusters/status]
  verbs: [patch]
# Owner references with blockOwnerDeletion (where OwnerReferencesPermissionEnforcement is on).
- apiGroups: [tfcluster.dev]
  resources: [tfclusters/finalizers]
  verbs: [update]
# The children: watched, server-side applied (patch; create when new), pruned.
- apiGroups: [apps]
  resources: [statefulsets]
  verbs: [list, watch, create, patch, delete]
- apiGroups: [""]
  resources: [services]
  verbs: [list, watch, create, patch, delete]
# A run's Indexed Jobs, and the PodDisruptionBudgets a job asks for.
- apiGroups: [batch]
  resources: [jobs]
  verbs: [list, watch, create, patch, delete]
- apiGroups: [policy]
  resources: [poddisruptionbudgets]
  verbs: [list, watch, create, patch, delete]
# Gang scheduling (spec.scheduling): the PodGroup of scheduler-plugins or of Volcano.
- apiGroups: [scheduling.x-k8s.io, scheduling.volcano.sh]
  resources: [podgroups]
  verbs: [list, watch, create, patch, delete]
# Kueue: the Workload a queued run is admitted by (it goes with the TFCluster, never
# before); its status: Finished, an eviction's quota given back.
- apiGroups: [kueue.x-k8s.io]
  resources: [workloads]
  verbs: [list, watch, create, patch]
- apiGroups: [kueue.x-k8s.io]
  resources: [workloads/status]
  verbs: [patch]
# Task pods: readiness, restarts, crashes and scheduling for the status, watched only.
- apiGroups: [""]
  resources: [pods]
  verbs: [list, watch]
# Events on TFClusters; patch: a repeated event counts up instead of piling up.
- apiGroups: [""]
  resources: [events]
  verbs: [create, patch]
# spec.tls: the CA, task and client Secrets it issues (watched, with their data: a sync
# keeps the certificates that are still good and renews the others; the watch selects only
# the operator's own by label, but RBAC cannot narrow a read of Secrets any further).
- apiGroups: [""]
  resources: [secrets]
  verbs: [list, watch, create, patch, delete]
# spec.tls.issuerRef: cert-manager's Certificates (watched where cert-manager is installed).
- apiGroups: [cert-manager.io]
  resources: [certificates]
  verbs: [list, watch, create, patch, delete]
# spec.networkPolicy: the cluster's NetworkPolicy.
- apiGroups: [networking.k8s.io]
  resources: [networkpolicies]
  verbs: [list, watch, create, patch, delete]
# Is the namespace being deleted? (asked before re-creating a deleted child; a Role in a
# namespace grants it for that namespace alone)
- apiGroups: [""]
  resources: [namespaces]
  verbs: [get]
{{- end -}}
