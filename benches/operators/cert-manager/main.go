// cert-manager's certificate controllers, as released in its root module at the version go.mod
// pins, run in one namespace out of cluster. The release's own main is in a module of its own
// (github.com/cert-manager/cert-manager/cmd/controller) that the Go module proxy does not serve;
// this main does what that one does for these controllers: it builds the controllers' context
// from a kubeconfig, constructs each controller by the name it registered under, starts the
// shared informers and runs the controllers until SIGTERM. No controller code is changed. Left
// out: leader election, the metrics and health servers, the ACME, Vault, Venafi, ingress and
// Gateway controllers, and cluster issuers (scoped to one namespace, as cert-manager's own main
// leaves clusterissuers out when --namespace is given).
//
//	cert-manager-controllers --kubeconfig FILE --namespace NS
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"

	controllerpkg "github.com/cert-manager/cert-manager/pkg/controller"

	// Each registers its controller with controllerpkg.Register when imported.
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/approver"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/ca"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/selfsigned"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/issuing"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/keymanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/readiness"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/requestmanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/revisionmanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/trigger"
	_ "github.com/cert-manager/cert-manager/pkg/controller/issuers"
	// The issuers the issuers controller sets up (each registers itself when imported).
	_ "github.com/cert-manager/cert-manager/pkg/issuer/ca"
	_ "github.com/cert-manager/cert-manager/pkg/issuer/selfsigned"
)

// The controllers run, by the names they register under.
var controllers = []string{
	"issuers",
	"certificaterequests-approver",
	"certificaterequests-issuer-selfsigned",
	"certificaterequests-issuer-ca",
	"certificates-trigger",
	"certificates-key-manager",
	"certificates-request-manager",
	"certificates-issuing",
	"certificates-readiness",
	"certificates-revision-manager",
}

func main() {
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "the kubeconfig to connect with")
	namespace := flag.String("namespace", "", "the one namespace to reconcile")
	workers := flag.Int("workers", 5, "workers per controller (cert-manager's default)")
	flag.Parse()
	if *kubeconfig == "" || *namespace == "" {
		fmt.Fprintln(os.Stderr, "cert-manager-controllers: --kubeconfig (or KUBECONFIG) and --namespace are required")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := run(ctx, *kubeconfig, *namespace, *workers); err != nil {
		fmt.Fprintf(os.Stderr, "cert-manager-controllers: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, kubeconfig, namespace string, workers int) error {
	opts := controllerpkg.ContextOptions{Kubeconfig: kubeconfig, Namespace: namespace}
	// The CA of a namespaced Issuer is read from its own namespace; cluster issuers are not run.
	opts.IssuerOptions.ClusterResourceNamespace = namespace
	factory, err := controllerpkg.NewContextFactory(ctx, opts)
	if err != nil {
		return fmt.Errorf("building the controllers' context: %w", err)
	}
	known := controllerpkg.Known()
	var wg sync.WaitGroup
	errs := make(chan error, len(controllers))
	for _, name := range controllers {
		construct, ok := known[name]
		if !ok {
			return fmt.Errorf("no controller registered as %q in this release", name)
		}
		controller, err := construct(factory)
		if err != nil {
			return fmt.Errorf("constructing %s: %w", name, err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := controller.Run(workers, ctx); err != nil {
				errs <- fmt.Errorf("%s: %w", name, err)
			}
		}()
	}
	// The informers every controller registered with while being constructed, shared by all.
	shared, err := factory.Build()
	if err != nil {
		return fmt.Errorf("building the shared context: %w", err)
	}
	shared.KubeSharedInformerFactory.Start(ctx.Done())
	shared.SharedInformerFactory.Start(ctx.Done())
	shared.HTTP01ResourceMetadataInformersFactory.Start(ctx.Done())
	wg.Wait()
	close(errs)
	return <-errs
}
