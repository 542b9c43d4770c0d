// Command client-go-informer is the peer of kubectl-informer's memory benchmark
// (benches/scale.rs): a plain client-go (v0.37.2) shared informer on the objects of one namespace,
// started once its client exists. It prints its resident memory before the informer starts and
// once it has synced (after a GC and returning freed memory to the OS, which favours client-go),
// with the object count and the time to sync, as one JSON line.
//
// Usage: client-go-informer configmaps|pods NAMESPACE json|protobuf|default
//
//	or: client-go-informer widgets NAMESPACE unstructured|typed
//
// with KUBECONFIG naming the cluster.
//
// configmaps, pods: the generated shared informer factory on core/v1, its LIST and WATCH in JSON
// (rest.Config.ContentType and AcceptContentTypes "application/json"), in protobuf (as
// kube-controller-manager configures it, --kube-api-content-type), or as client-go's defaults
// leave it (both empty). Beware: from client-go v0.34 on, the generated core/v1 clients are built
// with gentype.PrefersProtobuf, and a request whose rest.Config leaves ContentType and
// AcceptContentTypes empty asks for protobuf (rest.Request.UseProtobufAsDefault), so "default" is
// served in protobuf (seen on the wire: Content-Type application/vnd.kubernetes.protobuf;
// stream=watch). Until 2026-11-26 this peer's "json" was that default, so the "client-go, JSON"
// figures of BENCHMARKS.md before then are protobuf.
//
// widgets: the custom resource widgets.bench.informer.test/v1 (kind Widget, namespaced) of
// benches/scale.rs. Custom resources are served in JSON only (here: Accept application/json),
// so the last argument picks how client-go decodes them, not the wire format:
//   - unstructured: dynamicinformer.NewFilteredDynamicSharedInformerFactory on the namespace,
//     resync 0, ForResource(bench.informer.test/v1 widgets): objects kept as
//     *unstructured.Unstructured (map[string]interface{} trees), as a generic controller or a
//     kubectl-style tool keeps them.
//   - typed: hand-written Go types Widget and WidgetList with hand-written deep copies
//     (widget.go), registered in a scheme of their own, a rest.RESTClient for
//     bench.informer.test/v1 on it (JSON, serializer.NewCodecFactory(scheme).WithoutConversion()),
//     and cache.NewSharedIndexInformer on a cache.ListWatch calling that client (widgets.go), as
//     client-go's generated informers are built, so as a controller-gen/kubebuilder operator
//     watching its own kind with client-go would.
//
// Both widget modes (and configmaps/pods) sync from a watch-list (a WATCH with
// sendInitialEvents=true ending at the k8s.io/initial-events-end bookmark), not a LIST: the
// WatchListClient feature gate is on by default in client-go v0.37 (features/known_features.go),
// and the reflector turns it off only if its ListerWatcher implements
// IsWatchListSemanticsUnSupported() and returns true (tools/cache/reflector.go, NewReflectorWithOptions;
// util/watchlist.DoesClientNotSupportWatchListSemantics). The generated informers and
// dynamicinformer.NewFilteredDynamicInformer wrap their ListWatch with
// cache.ToListWatcherWithWatchListSemantics(lw, client), which answers true only for the fake
// clients; the typed mode does the same with its REST client (a bare *cache.ListWatch would
// also get a watch-list: it does not implement the method). If the server refuses a watch-list,
// the reflector falls back to a LIST silently. Checked on the live control plane (v1.37.2) with a
// copy of this peer whose transport logged each request: each mode made exactly one request,
// GET .../namespaces/NS/widgets?allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&
// sendInitialEvents=true&...&watch=true, answered 200 application/json, and with
// KUBE_FEATURE_WatchListClient=false a LIST (limit=500&resourceVersion=0) then a WATCH instead.
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
	"k8s.io/client-go/tools/cache"
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
	// The custom resource by its qualified name too, as kubectl-informer names it.
	if len(os.Args) > 1 && os.Args[1] == "widgets.bench.informer.test" {
		os.Args[1] = "widgets"
	}
	if len(os.Args) != 4 || !((os.Args[1] == "configmaps" || os.Args[1] == "pods") &&
		(os.Args[3] == "json" || os.Args[3] == "protobuf" || os.Args[3] == "default") ||
		os.Args[1] == "widgets" && (os.Args[3] == "unstructured" || os.Args[3] == "typed")) {
		fmt.Fprintln(os.Stderr, "usage: client-go-informer configmaps|pods NAMESPACE json|protobuf|default, or client-go-informer widgets NAMESPACE unstructured|typed (KUBECONFIG names the cluster)")
		os.Exit(2)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBECONFIG"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(2)
	}
	cfg.QPS, cfg.Burst = 100, 200
	// The client is made before the first RSS reading, the informer after it.
	var newInformer func() (cache.SharedIndexInformer, func(stop <-chan struct{}))
	switch {
	case os.Args[1] == "widgets" && os.Args[3] == "unstructured":
		client, err := newUnstructuredWidgetsClient(cfg)
		if err != nil {
			fmt.Fprintln(os.Stderr, "error:", err)
			os.Exit(2)
		}
		newInformer = func() (cache.SharedIndexInformer, func(stop <-chan struct{})) {
			w := newUnstructuredWidgetsInformer(client, os.Args[2])
			return w.informer, w.start
		}
	case os.Args[1] == "widgets":
		client, err := newTypedWidgetsClient(cfg)
		if err != nil {
			fmt.Fprintln(os.Stderr, "error:", err)
			os.Exit(2)
		}
		newInformer = func() (cache.SharedIndexInformer, func(stop <-chan struct{})) {
			w := newTypedWidgetsInformer(client, os.Args[2])
			return w.informer, w.start
		}
	default:
		switch os.Args[3] {
		case "protobuf":
			cfg.ContentType = "application/vnd.kubernetes.protobuf"
			cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
		case "json":
			cfg.ContentType = "application/json"
			cfg.AcceptContentTypes = "application/json"
		}
		clients := kubernetes.NewForConfigOrDie(cfg)
		newInformer = func() (cache.SharedIndexInformer, func(stop <-chan struct{})) {
			factory := informers.NewSharedInformerFactoryWithOptions(clients, 0, informers.WithNamespace(os.Args[2]))
			informer := factory.Core().V1().ConfigMaps().Informer()
			if os.Args[1] == "pods" {
				informer = factory.Core().V1().Pods().Informer()
			}
			return informer, factory.Start
		}
	}
	settle()
	before := rssKiB()
	informer, startInformer := newInformer()
	stop := make(chan struct{})
	start := time.Now()
	startInformer(stop)
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
