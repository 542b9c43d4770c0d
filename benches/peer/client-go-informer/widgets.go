package main

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// widgetsInformer is the informer on the widgets of one namespace and the function that starts it.
type widgetsInformer struct {
	informer cache.SharedIndexInformer
	start    func(stop <-chan struct{})
}

// newUnstructuredWidgetsClient returns what newUnstructuredWidgetsInformer needs: a dynamic client.
func newUnstructuredWidgetsClient(cfg *rest.Config) (dynamic.Interface, error) {
	return dynamic.NewForConfig(cfg)
}

// newUnstructuredWidgetsInformer is a generic controller's informer: dynamicinformer's factory on
// the GroupVersionResource, objects kept as *unstructured.Unstructured.
func newUnstructuredWidgetsInformer(client dynamic.Interface, namespace string) widgetsInformer {
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(client, 0, namespace, nil)
	informer := factory.ForResource(widgetGroupVersion.WithResource("widgets")).Informer()
	return widgetsInformer{informer, factory.Start}
}

// newTypedWidgetsClient returns a REST client for bench.informer.test/v1 that decodes into Widget
// and WidgetList, configured as a generated clientset's group client is (setConfigDefaults).
func newTypedWidgetsClient(cfg *rest.Config) (*rest.RESTClient, error) {
	scheme := runtime.NewScheme()
	if err := addWidgetTypes(scheme); err != nil {
		return nil, err
	}
	config := rest.CopyConfig(cfg)
	gv := widgetGroupVersion
	config.GroupVersion = &gv
	config.APIPath = "/apis"
	config.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	config.ContentType = "application/json"
	if config.UserAgent == "" {
		config.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	return rest.RESTClientFor(config)
}

// newTypedWidgetsInformer is an operator's informer on its own typed objects, built as client-go's
// generated informers are (informers/core/v1/configmap.go, NewTypedConfigMapInformerWithOptions):
// a cache.ListWatch whose functions call the typed client (here the REST client directly, as
// gentype.Client's List and Watch do), wrapped by cache.ToListWatcherWithWatchListSemantics with
// the client, and the namespace indexer the factories add.
func newTypedWidgetsInformer(client *rest.RESTClient, namespace string) widgetsInformer {
	list := func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		result := &WidgetList{}
		err := client.Get().
			Namespace(namespace).
			Resource("widgets").
			VersionedParams(&opts, metav1.ParameterCodec).
			Timeout(timeoutOf(opts)).
			Do(ctx).
			Into(result)
		return result, err
	}
	watchFunc := func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
		opts.Watch = true
		return client.Get().
			Namespace(namespace).
			Resource("widgets").
			VersionedParams(&opts, metav1.ParameterCodec).
			Timeout(timeoutOf(opts)).
			Watch(ctx)
	}
	lw := cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListFunc: func(opts metav1.ListOptions) (runtime.Object, error) {
			return list(context.Background(), opts)
		},
		WatchFunc: func(opts metav1.ListOptions) (watch.Interface, error) {
			return watchFunc(context.Background(), opts)
		},
		ListWithContextFunc:  list,
		WatchFuncWithContext: watchFunc,
	}, client)
	informer := cache.NewSharedIndexInformer(lw, &Widget{}, 0,
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	return widgetsInformer{informer, func(stop <-chan struct{}) { go informer.Run(stop) }}
}

func timeoutOf(opts metav1.ListOptions) time.Duration {
	if opts.TimeoutSeconds == nil {
		return 0
	}
	return time.Duration(*opts.TimeoutSeconds) * time.Second
}
