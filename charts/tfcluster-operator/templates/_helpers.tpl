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
# The watched resource; get: a read before re-creating a child someone deleted.
- apiGroups: [tfcluster.dev]
  resources: [tfclusters]
  verbs: [get, list, watch]
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
# Task pods: readiness, restarts, crashes and scheduling for the status, watched only.
- apiGroups: [""]
  resources: [pods]
  verbs: [list, watch]
# Events on TFClusters; patch: a repeated event counts up instead of piling up.
- apiGroups: [""]
  resources: [events]
  verbs: [create, patch]
# Is the namespace being deleted? (asked before re-creating a deleted child; a Role in a
# namespace grants it for that namespace alone)
- apiGroups: [""]
  resources: [namespaces]
  verbs: [get]
{{- end -}}
