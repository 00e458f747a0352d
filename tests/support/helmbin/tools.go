//go:build tools

// Package tools only records the helm command as a dependency of this module.
package tools

import _ "helm.sh/helm/v3/cmd/helm"
