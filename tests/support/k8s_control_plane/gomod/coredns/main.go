// A CoreDNS with only the plugins the e2e cluster's DNS needs (kubernetes, and the
// usual errors/health/ready/cache/log), built from the pinned CoreDNS module by
// tests/support/k8s_control_plane/build.sh. Plugins register themselves when imported.
package main

import (
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/ready"
)

func main() {
	coremain.Run()
}
