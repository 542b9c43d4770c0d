// Command pipeline is the peer of `kubectl informer bench --from-file --speed max`: a client-go
// shared informer fed a recording (tail's JSON Lines) through a fake watch, with N event handlers
// that add the object's key to one rate-limited workqueue drained by W workers, all doing no work.
// The recording is decoded before the clock starts (as bench does); the clock stops when every
// handler has seen every event and the workqueue is empty and idle. Prints one JSON line.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

type line struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: pipeline RECORDING HANDLERS WORKERS")
		os.Exit(2)
	}
	handlers, _ := strconv.Atoi(os.Args[2])
	workers, _ := strconv.Atoi(os.Args[3])
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(2)
	}
	var events []watch.Event
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 1<<20), 1<<26)
	for scanner.Scan() {
		var l line
		if err := json.Unmarshal(scanner.Bytes(), &l); err != nil {
			fmt.Fprintln(os.Stderr, "error:", err)
			os.Exit(2)
		}
		var t watch.EventType
		switch l.Type {
		case "ADDED":
			t = watch.Added
		case "MODIFIED":
			t = watch.Modified
		case "DELETED":
			t = watch.Deleted
		default:
			continue
		}
		cm := &corev1.ConfigMap{}
		if err := json.Unmarshal(l.Object, cm); err != nil {
			fmt.Fprintln(os.Stderr, "error:", err)
			os.Exit(2)
		}
		events = append(events, watch.Event{Type: t, Object: cm})
	}

	fake := watch.NewFakeWithChanSize(len(events), false)
	lw := &cache.ListWatch{
		ListFunc: func(metav1.ListOptions) (runtime.Object, error) {
			return &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}, nil
		},
		WatchFunc: func(metav1.ListOptions) (watch.Interface, error) { return fake, nil },
	}
	informer := cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0, cache.Indexers{})
	queue := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
	var handled atomic.Int64
	enqueue := func(obj interface{}) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			queue.Add(key)
		}
		handled.Add(1)
	}
	for i := 0; i < handlers; i++ {
		informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    enqueue,
			UpdateFunc: func(_, obj interface{}) { enqueue(obj) },
			DeleteFunc: enqueue,
		})
	}
	var busy atomic.Int64
	for w := 0; w < workers; w++ {
		go func() {
			for {
				key, shutdown := queue.Get()
				if shutdown {
					return
				}
				busy.Add(1)
				queue.Forget(key)
				queue.Done(key)
				busy.Add(-1)
			}
		}()
	}
	stop := make(chan struct{})
	start := time.Now()
	go informer.Run(stop)
	for _, e := range events {
		fake.Action(e.Type, e.Object)
	}
	want := int64(len(events) * handlers)
	for handled.Load() < want || queue.Len() > 0 || busy.Load() > 0 {
		time.Sleep(100 * time.Microsecond)
	}
	seconds := time.Since(start).Seconds()
	close(stop)
	queue.ShutDown()
	fmt.Printf("{\"events\":%d,\"handlers\":%d,\"workers\":%d,\"seconds\":%.3f,\"eventsPerSecond\":%.0f}\n",
		len(events), handlers, workers, seconds, float64(len(events))/seconds)
}
