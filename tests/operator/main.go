// Command test-operator is a small operator built as kubebuilder v4 scaffolds one, for
// kubectl-informer's tests of `top deploy/NAME`: a controller-runtime manager with the secure
// metrics server (HTTPS, a self-signed certificate, every request checked by TokenReview and then
// SubjectAccessReview for `get` on the non-resource URL /metrics), health probes and leader
// election on a Lease, and one controller, `configmap`, that a benchmark can overload.
//
// The controller watches the ConfigMaps labelled informer.test/watch=true in one namespace and
// writes on each two annotations, so that its reaction can be seen from outside:
//
//	informer.test/observed                   a digest of the data it saw (it skips a ConfigMap
//	                                         whose digest already matches: its own write is no work)
//	informer.test/observed-resource-version  the resourceVersion it reconciled
//
// --reconcile-delay (a sleep in every reconcile) and --max-concurrent-reconciles make its
// workqueue back up on demand.
//
// A second controller, `children` (--controllers=children, or configmap,children), gives each
// parent (a watched ConfigMap labelled informer.test/parent=true) one child Secret that it owns,
// named PARENT-child-XXXXX, labelled informer.test/child-of=PARENT, and records the child's name
// in the parent's annotation informer.test/child: two writes for one decision. Until the record
// is written it remembers, in memory, the child it made (the child's own event may reconcile the
// parent again before the record's event is in the cache). A child is made
// once: a parent that records one gets no other (as a volume's data, it cannot be made again).
// The child is of another kind than its parent, as in most operators, so that each is read
// through its own watch (and, in the API server, its own watch cache). Before it
// creates a child it looks for one the parent already owns (a create whose answer it never saw,
// because it crashed in between, is adopted after its restart). With --bug-intermediate-state it
// does not look, and a crash between the two writes leaves the parent with two children: the
// bug Sieve calls an intermediate state, planted on purpose for kubectl-informer's crash tests.
//
// A parent is taken down in phases, its annotation informer.test/phase: Terminating, then Gone.
// From Terminating on the controller deletes the parent's children (those its cache lists, and
// the one the parent records) and creates none; it records
// each phase it has acted on in informer.test/observed-phase. With --bug-unobserved-state it
// cleans up only when it sees Terminating itself: a client that is told of Gone without having
// seen Terminating (a relist, a slow or coalesced watch) leaves the child behind, the bug Sieve
// calls an unobserved state.
//
// A parent that is gone takes its children with it: when the controller's cache has no parent
// for a child's owner, it reads the parent from the API server, and deletes the children only
// when the server has none either; and before it makes a child it reads the parent from the
// server too (a lagging cache may show as new a parent whose child is recorded, or that is being
// taken down). With --bug-stale-state it trusts its cache: after a restart
// against an API server whose watch cache lags (Sieve's stale state), the cache has no parent
// that was created within the lag, and the controller deletes a child that cannot be made again.
//
// In a cluster each replica is a pod; in the tests each is a process on the host that stands for
// one pod of a Deployment on a kwok node (tests/operator/run.sh), so it is told its pod's name.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

const (
	// ControllerName is the name label of the controller's workqueue and reconcile metrics.
	ControllerName = "configmap"
	// WatchLabel selects the ConfigMaps the controller reconciles (value "true").
	WatchLabel = "informer.test/watch"
	// ObservedAnnotation holds a digest of the data the controller last reconciled.
	ObservedAnnotation = "informer.test/observed"
	// ObservedRVAnnotation holds the resourceVersion the controller last reconciled.
	ObservedRVAnnotation = "informer.test/observed-resource-version"
	// ChildrenControllerName is the name of the controller that gives parents a child.
	ChildrenControllerName = "children"
	// ParentLabel marks a parent ConfigMap (value "true").
	ParentLabel = "informer.test/parent"
	// ChildOfLabel is on each child: its parent's name.
	ChildOfLabel = "informer.test/child-of"
	// ChildAnnotation is on each parent: its child's name, once recorded.
	ChildAnnotation = "informer.test/child"
	// PhaseAnnotation takes a parent down: Terminating, then Gone.
	PhaseAnnotation = "informer.test/phase"
	// ObservedPhaseAnnotation is the last phase the children controller acted on.
	ObservedPhaseAnnotation = "informer.test/observed-phase"
)

type options struct {
	metricsAddr, probeAddr           string
	leaderElect                      bool
	leaderElectionID, namespace, pod string
	reconcileDelay                   time.Duration
	maxConcurrentReconciles          int
	controllers                      string
	bugIntermediateState             bool
	bugUnobservedState               bool
	bugStaleState                    bool
}

func parseFlags() (options, zap.Options) {
	var o options
	flag.StringVar(&o.metricsAddr, "metrics-bind-address", "127.0.0.1:8443",
		"address the secure metrics server binds to (HTTPS; authentication and authorization through the API server); 0 disables it")
	flag.StringVar(&o.probeAddr, "health-probe-bind-address", "127.0.0.1:8081",
		"address the /healthz and /readyz probes bind to; 0 disables them")
	flag.BoolVar(&o.leaderElect, "leader-elect", true, "hold a Lease so that only one replica reconciles")
	flag.StringVar(&o.leaderElectionID, "leader-election-id", "test-operator.informer.test", "name of the leader-election Lease")
	flag.StringVar(&o.namespace, "namespace", os.Getenv("POD_NAMESPACE"),
		"namespace of the Lease and of the ConfigMaps reconciled (default $POD_NAMESPACE)")
	flag.StringVar(&o.pod, "pod-name", os.Getenv("POD_NAME"),
		"the pod this process stands for: the leader identity is POD_UUID (default $POD_NAME, else the hostname)")
	flag.DurationVar(&o.reconcileDelay, "reconcile-delay", 0, "sleep this long in every reconcile")
	flag.IntVar(&o.maxConcurrentReconciles, "max-concurrent-reconciles", 1, "workers of the configmap controller")
	flag.StringVar(&o.controllers, "controllers", ControllerName,
		"the controllers to run, comma-separated: configmap, children")
	flag.BoolVar(&o.bugIntermediateState, "bug-intermediate-state", false,
		"planted bug: the children controller creates a child without looking for one the parent already owns")
	flag.BoolVar(&o.bugUnobservedState, "bug-unobserved-state", false,
		"planted bug: the children controller deletes a parent's children only when it sees the phase Terminating")
	flag.BoolVar(&o.bugStaleState, "bug-stale-state", false,
		"planted bug: the children controller deletes the children of a parent its cache does not have, without asking the API server")
	zapOpts := zap.Options{Development: true}
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse()
	return o, zapOpts
}

func main() {
	o, zapOpts := parseFlags()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))
	log := ctrl.Log.WithName("setup")
	if err := run(o); err != nil {
		log.Error(err, "test-operator failed")
		os.Exit(1)
	}
}

func run(o options) error {
	if o.namespace == "" {
		return fmt.Errorf("--namespace (or $POD_NAMESPACE) is required")
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("loading the kubeconfig: %w", err)
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	lock, err := leaderLock(cfg, o)
	if err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: scheme,
		Metrics: metricsserver.Options{
			BindAddress:    o.metricsAddr,
			SecureServing:  true,
			FilterProvider: filters.WithAuthenticationAndAuthorization,
		},
		HealthProbeBindAddress: o.probeAddr,
		LeaderElection:         o.leaderElect,
		LeaderElectionID:       o.leaderElectionID,
		// With leader election on, the manager uses this lock (its identity, its Lease name and
		// namespace) instead of making one from LeaderElectionID and LeaderElectionNamespace.
		LeaderElectionNamespace:             o.namespace,
		LeaderElectionResourceLockInterface: lock,
		LeaderElectionReleaseOnCancel:       true,
		Cache: cache.Options{
			DefaultNamespaces: map[string]cache.Config{o.namespace: {}},
			ByObject: map[client.Object]cache.ByObject{
				&corev1.ConfigMap{}: {Label: labels.SelectorFromSet(labels.Set{WatchLabel: "true"})},
				&corev1.Secret{}:    {Label: labels.SelectorFromSet(labels.Set{WatchLabel: "true"})},
			},
		},
	})
	if err != nil {
		return fmt.Errorf("creating the manager: %w", err)
	}
	for _, name := range strings.Split(o.controllers, ",") {
		switch strings.TrimSpace(name) {
		case ControllerName:
			r := &reconciler{Client: mgr.GetClient(), delay: o.reconcileDelay}
			err = ctrl.NewControllerManagedBy(mgr).
				Named(ControllerName).
				For(&corev1.ConfigMap{}).
				WithOptions(controller.Options{MaxConcurrentReconciles: o.maxConcurrentReconciles}).
				Complete(r)
		case ChildrenControllerName:
			r := &children{Client: mgr.GetClient(), live: mgr.GetAPIReader(),
				created:              map[types.NamespacedName]string{},
				bugIntermediateState: o.bugIntermediateState, bugUnobservedState: o.bugUnobservedState,
				bugStaleState: o.bugStaleState}
			isParent := predicate.NewPredicateFuncs(func(o client.Object) bool {
				return o.GetLabels()[ParentLabel] == "true"
			})
			err = ctrl.NewControllerManagedBy(mgr).
				Named(ChildrenControllerName).
				For(&corev1.ConfigMap{}, builder.WithPredicates(isParent)).
				Owns(&corev1.Secret{}).
				Complete(r)
		default:
			return fmt.Errorf("--controllers: unknown controller %q: use configmap, children", name)
		}
		if err != nil {
			return fmt.Errorf("creating the %s controller: %w", name, err)
		}
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return err
	}
	ctrl.Log.WithName("setup").Info("starting manager", "pod", o.pod, "namespace", o.namespace,
		"metrics", o.metricsAddr, "probes", o.probeAddr)
	return mgr.Start(ctrl.SetupSignalHandler())
}

// leaderLock is the Lease lock controller-runtime would make, with the identity taken from the
// pod's name. controller-runtime (pkg/leaderelection.NewResourceLock, v0.25.2) has no hook for the
// identity: it takes os.Hostname() + "_" + a UUID, and in a cluster the hostname is the pod's name,
// so a real operator's Lease holderIdentity starts with its pod's name. Here the process runs on
// the host, so the same identity is built from --pod-name and handed to the manager as its
// LeaderElectionResourceLockInterface.
func leaderLock(cfg *rest.Config, o options) (resourcelock.Interface, error) {
	if !o.leaderElect {
		return nil, nil
	}
	pod := o.pod
	if pod == "" {
		var err error
		if pod, err = os.Hostname(); err != nil {
			return nil, err
		}
	}
	id := pod + "_" + string(uuid.NewUUID())
	// controller-runtime's default RenewDeadline is 10s; its lock's client times out at half that.
	return resourcelock.NewFromKubeconfig(resourcelock.LeasesResourceLock, o.namespace, o.leaderElectionID,
		resourcelock.ResourceLockConfig{Identity: id}, rest.AddUserAgent(cfg, "leader-election"), 10*time.Second)
}

type reconciler struct {
	client.Client
	delay time.Duration
}

// Reconcile annotates the ConfigMap with a digest of its data and the resourceVersion seen.
func (r *reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	if r.delay > 0 {
		select {
		case <-time.After(r.delay):
		case <-ctx.Done():
			return ctrl.Result{}, ctx.Err()
		}
	}
	var cm corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &cm); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	digest := dataDigest(cm.Data)
	if cm.Annotations[ObservedAnnotation] == digest {
		return ctrl.Result{}, nil
	}
	patch := client.MergeFrom(cm.DeepCopy())
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[ObservedAnnotation] = digest
	cm.Annotations[ObservedRVAnnotation] = cm.ResourceVersion
	// A merge patch without a resourceVersion: no conflict; a deleted object is dropped.
	return ctrl.Result{}, client.IgnoreNotFound(r.Patch(ctx, &cm, patch))
}

func dataDigest(data map[string]string) string {
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "%d:%s%d:%s", len(k), k, len(data[k]), data[k])
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

type children struct {
	client.Client
	// created is each parent's child made by this process and not yet recorded on the parent
	// (the record's event may not be in the cache when the child's own event reconciles the
	// parent again); kept in memory only, so a restart forgets it.
	created   map[types.NamespacedName]string
	createdMu sync.Mutex
	// live reads from the API server, not the cache.
	live                 client.Reader
	bugIntermediateState bool
	bugUnobservedState   bool
	bugStaleState        bool
}

// Reconcile gives a parent one child: it adopts the child the parent already owns (unless the
// planted bug is on), else creates one; then records the child's name on the parent.
func (r *children) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var parent corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &parent); apierrors.IsNotFound(err) {
		return ctrl.Result{}, r.orphaned(ctx, req)
	} else if err != nil {
		return ctrl.Result{}, err
	}
	if parent.Labels[ParentLabel] != "true" || parent.DeletionTimestamp != nil {
		return ctrl.Result{}, nil
	}
	if phase := parent.Annotations[PhaseAnnotation]; phase != "" {
		return ctrl.Result{}, r.takeDown(ctx, &parent, phase)
	}
	if parent.Annotations[ChildAnnotation] != "" {
		return ctrl.Result{}, nil
	}
	r.createdMu.Lock()
	child := r.created[req.NamespacedName]
	r.createdMu.Unlock()
	if child == "" && !r.bugIntermediateState {
		var owned corev1.SecretList
		if err := r.List(ctx, &owned, client.InNamespace(parent.Namespace),
			client.MatchingLabels{ChildOfLabel: parent.Name}); err != nil {
			return ctrl.Result{}, err
		}
		for _, c := range owned.Items {
			if metav1.IsControlledBy(&c, &parent) {
				child = c.Name
			}
		}
	}
	if child == "" && !r.bugStaleState {
		// About to make what cannot be made again: not on the cache's word alone. After a
		// restart onto a lagging view the cache may show a parent as new that the API server
		// has recorded a child for, or is taking down.
		var live corev1.ConfigMap
		if err := r.live.Get(ctx, req.NamespacedName, &live); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
		if live.Annotations[ChildAnnotation] != "" || live.DeletionTimestamp != nil {
			return ctrl.Result{}, nil
		}
		if phase := live.Annotations[PhaseAnnotation]; phase != "" {
			return ctrl.Result{}, r.takeDown(ctx, &live, phase)
		}
	}
	if child == "" {
		isController := true
		c := corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{
				GenerateName: parent.Name + "-child-",
				Namespace:    parent.Namespace,
				// In the watched set, so that the cache (and a restart's first LIST) has it.
				Labels: map[string]string{WatchLabel: "true", ChildOfLabel: parent.Name},
				OwnerReferences: []metav1.OwnerReference{{
					APIVersion: "v1", Kind: "ConfigMap", Name: parent.Name, UID: parent.UID,
					Controller: &isController,
				}},
			},
			StringData: map[string]string{"parent": parent.Name},
		}
		if err := r.Create(ctx, &c); err != nil {
			return ctrl.Result{}, err
		}
		child = c.Name
		r.createdMu.Lock()
		r.created[req.NamespacedName] = child
		r.createdMu.Unlock()
	}
	patch := client.MergeFrom(parent.DeepCopy())
	if parent.Annotations == nil {
		parent.Annotations = map[string]string{}
	}
	parent.Annotations[ChildAnnotation] = child
	return ctrl.Result{}, client.IgnoreNotFound(r.Patch(ctx, &parent, patch))
}

// takeDown acts on a parent's phase: from Terminating on (with the planted bug, only at
// Terminating) its children are deleted; then the phase is recorded as observed.
func (r *children) takeDown(ctx context.Context, parent *corev1.ConfigMap, phase string) error {
	if parent.Annotations[ObservedPhaseAnnotation] == phase {
		return nil
	}
	if phase == "Terminating" || !r.bugUnobservedState {
		if err := r.deleteChildren(ctx, parent.Namespace, parent.Name); err != nil {
			return err
		}
		// The child recorded too: the cache's watch of children may not have brought it yet.
		if recorded := parent.Annotations[ChildAnnotation]; recorded != "" {
			c := corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: recorded, Namespace: parent.Namespace}}
			if err := r.Delete(ctx, &c); client.IgnoreNotFound(err) != nil {
				return err
			}
		}
	}
	patch := client.MergeFrom(parent.DeepCopy())
	parent.Annotations[ObservedPhaseAnnotation] = phase
	return client.IgnoreNotFound(r.Patch(ctx, parent, patch))
}

// orphaned acts on a parent the cache does not have: the children are deleted when the API
// server has no such parent either (with the planted bug, on the cache's word alone). A parent
// the server has and the cache lacks is one the cache's watch has not brought yet; its event
// reconciles it.
func (r *children) orphaned(ctx context.Context, req ctrl.Request) error {
	if !r.bugStaleState {
		var live corev1.ConfigMap
		err := r.live.Get(ctx, req.NamespacedName, &live)
		if err == nil {
			ctrl.LoggerFrom(ctx).Info("the parent is not in the cache yet; the API server has it", "rv", live.ResourceVersion)
			return nil
		}
		if !apierrors.IsNotFound(err) {
			return err
		}
	}
	return r.deleteChildren(ctx, req.Namespace, req.Name)
}

// deleteChildren deletes the children of parent `name`.
func (r *children) deleteChildren(ctx context.Context, namespace, name string) error {
	var owned corev1.SecretList
	if err := r.List(ctx, &owned, client.InNamespace(namespace),
		client.MatchingLabels{ChildOfLabel: name}); err != nil {
		return err
	}
	for i := range owned.Items {
		if err := r.Delete(ctx, &owned.Items[i]); client.IgnoreNotFound(err) != nil {
			return err
		}
	}
	return nil
}
