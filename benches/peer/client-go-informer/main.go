// Command client-go-informer is the peer of kubectl-informer's memory benchmark
// (benches/scale.rs): a plain client-go shared informer on ConfigMaps or Pods in one namespace,
// its LIST and WATCH in JSON (client-go's default: rest.Config.ContentType "") or in protobuf (as
// kube-controller-manager configures it, --kube-api-content-type). It prints
// its resident memory before the informer starts and once it has synced (after a GC and
// returning freed memory to the OS, which favours client-go), as one JSON line.
package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

func rssKiB() int {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if strings.HasPrefix(s.Text(), "VmRSS:") {
			fields := strings.Fields(s.Text())
			n, _ := strconv.Atoi(fields[1])
			return n
		}
	}
	return -1
}

func settle() {
	runtime.GC()
	debug.FreeOSMemory()
}

func main() {
	if len(os.Args) != 4 || (os.Args[1] != "configmaps" && os.Args[1] != "pods") ||
		(os.Args[3] != "json" && os.Args[3] != "protobuf") {
		fmt.Fprintln(os.Stderr, "usage: client-go-informer configmaps|pods NAMESPACE json|protobuf (KUBECONFIG names the cluster)")
		os.Exit(2)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBECONFIG"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(2)
	}
	cfg.QPS, cfg.Burst = 100, 200
	if os.Args[3] == "protobuf" {
		cfg.ContentType = "application/vnd.kubernetes.protobuf"
		cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	}
	clients := kubernetes.NewForConfigOrDie(cfg)
	settle()
	before := rssKiB()
	factory := informers.NewSharedInformerFactoryWithOptions(clients, 0, informers.WithNamespace(os.Args[2]))
	informer := factory.Core().V1().ConfigMaps().Informer()
	if os.Args[1] == "pods" {
		informer = factory.Core().V1().Pods().Informer()
	}
	stop := make(chan struct{})
	start := time.Now()
	factory.Start(stop)
	// Polled every millisecond: cache.WaitForCacheSync polls every 100 ms, which would add up to
	// 0.1 s to the figure.
	for !informer.HasSynced() {
		if time.Since(start) > 10*time.Minute {
			fmt.Fprintln(os.Stderr, "error: the informer did not sync within 10 minutes")
			os.Exit(2)
		}
		time.Sleep(time.Millisecond)
	}
	syncSeconds := time.Since(start).Seconds()
	time.Sleep(2 * time.Second)
	settle()
	after := rssKiB()
	fmt.Printf("{\"objects\":%d,\"rssBeforeKiB\":%d,\"rssAfterKiB\":%d,\"syncSeconds\":%.3f}\n",
		len(informer.GetStore().ListKeys()), before, after, syncSeconds)
	close(stop)
}
