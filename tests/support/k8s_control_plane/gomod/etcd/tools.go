//go:build tools

// Package tools records the command build.sh compiles, so `go mod tidy` keeps
// its dependencies in go.sum.
package tools

import _ "go.etcd.io/etcd/server/v3"
