// Package specs holds what the envtest suites' Ginkgo specs share. It is apart from package testenv,
// which tools import too (hack/bench, test/framework): Ginkgo registers its flags on import.
package specs

import (
	"context"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// RunManager starts mgr in the background, as the envtest suites start the operator's manager: the
// spec fails if Start returns an error. The returned stop cancels the manager and waits up to
// timeout for Start to return.
func RunManager(ctx context.Context, mgr manager.Manager, timeout time.Duration) (stop func()) {
	ginkgo.GinkgoHelper()
	mgrCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer ginkgo.GinkgoRecover()
		defer close(done)
		gomega.Expect(mgr.Start(mgrCtx)).To(gomega.Succeed())
	}()
	return func() {
		ginkgo.GinkgoHelper()
		cancel()
		gomega.Eventually(done, timeout).Should(gomega.BeClosed())
	}
}
