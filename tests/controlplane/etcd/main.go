// Command etcd builds the upstream etcd server from its Go module so that the
// integration tests run kube-apiserver against a real etcd.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
