// Command etcd is the etcd server of the pinned release, built from its Go module (go.etcd.io/etcd/server/v3)
// for the e2e control plane. It only hands the arguments to the server's own entry point.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
