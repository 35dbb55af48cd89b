// Command webapp-scorecard is webapp-operator's custom scorecard test (operator-sdk scorecard runs it as
// a pod, with the bundle at /bundle and SCORECARD_NAMESPACE set). Its one test, sample-becomes-ready,
// creates the WebApp of the CSV's alm-examples in that namespace and waits until the operator reports
// it Ready, so a passing scorecard means the installed operator really serves the documented example.
//
//	webapp-scorecard sample-becomes-ready [-image IMAGE] [-timeout 3m] [-bundle /bundle]
//
// The pod's log is the result: it prints exactly one scorecard v1alpha3 TestStatus as JSON and nothing
// else. On failure the result says why: no status (operator not installed or not watching the
// namespace), Stalled with the operator's reason, or the last Ready reason when the time ran out (which
// names the failing pod and the kubelet's message).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/go-logr/logr"
	scapiv1alpha3 "github.com/operator-framework/api/pkg/apis/scorecard/v1alpha3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/test/framework"
)

const testName = "sample-becomes-ready"

func main() {
	// the pod log is the result: nothing but the JSON may reach stdout or stderr
	ctrl.SetLogger(logr.Discard())
	if len(os.Args) < 2 || os.Args[1] != testName {
		emit(os.Stdout, scapiv1alpha3.TestResult{Name: strings.Join(os.Args[1:], " "), State: scapiv1alpha3.ErrorState,
			Errors: []string{"unknown test: want " + testName}})
		os.Exit(1)
	}
	fs := flag.NewFlagSet(testName, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	image := fs.String("image", "", "run the sample with this image instead of the one in alm-examples")
	timeout := fs.Duration("timeout", 3*time.Minute, "how long to wait for Ready")
	bundle := fs.String("bundle", "/bundle", "the bundle directory")
	result := scapiv1alpha3.TestResult{Name: testName}
	if err := fs.Parse(os.Args[2:]); err != nil {
		result.State, result.Errors = scapiv1alpha3.ErrorState, []string{err.Error()}
	} else {
		result = sampleBecomesReady(*bundle, os.Getenv("SCORECARD_NAMESPACE"), *image, *timeout)
	}
	emit(os.Stdout, result)
}

// emit prints the test status, the only output scorecard reads.
func emit(w io.Writer, r scapiv1alpha3.TestResult) {
	r.CreationTimestamp = metav1.Now()
	out, _ := json.MarshalIndent(scapiv1alpha3.TestStatus{Results: []scapiv1alpha3.TestResult{r}}, "", "  ")
	_, _ = fmt.Fprintln(w, string(out))
}

// sampleBecomesReady runs the test. r is named so that the deferred log capture lands in the result.
func sampleBecomesReady(bundleDir, namespace, image string, timeout time.Duration) (r scapiv1alpha3.TestResult) {
	r.Name = testName
	fail := func(state scapiv1alpha3.State, format string, args ...any) scapiv1alpha3.TestResult {
		r.State, r.Errors = state, append(r.Errors, fmt.Sprintf(format, args...))
		return r
	}
	if namespace == "" {
		return fail(scapiv1alpha3.ErrorState, "SCORECARD_NAMESPACE is not set: run me with operator-sdk scorecard")
	}
	sample, err := framework.SampleFromBundle(bundleDir)
	if err != nil {
		return fail(scapiv1alpha3.ErrorState, "reading the sample: %v", err)
	}
	c, err := newClient()
	if err != nil {
		return fail(scapiv1alpha3.ErrorState, "connecting to the API server: %v", err)
	}
	wa := sample.DeepCopy()
	wa.Name, wa.Namespace = "scorecard-"+sample.Name, namespace
	if image != "" {
		wa.Spec.Container.Image = image
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout+time.Minute)
	defer cancel()
	var log strings.Builder
	logf := func(format string, args ...any) {
		fmt.Fprintf(&log, "%s "+format+"\n", append([]any{time.Now().UTC().Format(time.TimeOnly)}, args...)...)
	}
	defer func() { r.Log = log.String() }()

	// a leftover of an interrupted run would hide this run's result
	if err := deleteAndWait(ctx, c, wa); err != nil {
		return fail(scapiv1alpha3.ErrorState, "removing a leftover WebApp %s: %v", wa.Name, err)
	}
	if err := c.Create(ctx, wa); err != nil {
		return fail(scapiv1alpha3.FailState, "creating the sample WebApp %s/%s (image %s): %v",
			namespace, wa.Name, wa.Spec.Container.Image, err)
	}
	logf("created WebApp %s/%s with image %s", namespace, wa.Name, wa.Spec.Container.Image)
	defer func() { _ = c.Delete(context.Background(), wa) }()

	pass, explanation, last := false, "", ""
	start := time.Now()
	_ = wait.PollUntilContextTimeout(ctx, 2*time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(wa), wa); err != nil {
			// the last read may be cut short by the deadline: what the WebApp said before explains more
			if explanation == "" {
				explanation = fmt.Sprintf("reading the WebApp: %v", err)
			}
			return false, nil
		}
		if line := conditionLine(wa); line != last {
			logf("%s", line)
			last = line
		}
		var done bool
		done, pass, explanation = verdict(wa)
		return done, nil
	})
	if pass {
		logf("Ready after %s", time.Since(start).Round(time.Second))
		r.State = scapiv1alpha3.PassState
		return r
	}
	r.Suggestions = append(r.Suggestions, "kubectl describe webapp "+wa.Name+" -n "+namespace+
		"; the operator's logs and events tell more")
	return fail(scapiv1alpha3.FailState, "WebApp %s/%s did not become Ready within %s: %s",
		namespace, wa.Name, timeout, explanation)
}

func newClient() (client.Client, error) {
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return nil, err
	}
	scheme := runtime.NewScheme()
	if err := v1beta1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	return client.New(cfg, client.Options{Scheme: scheme})
}

// deleteAndWait removes wa if it exists and waits until it is gone.
func deleteAndWait(ctx context.Context, c client.Client, wa *v1beta1.WebApp) error {
	if err := c.Delete(ctx, wa.DeepCopy()); err != nil {
		return client.IgnoreNotFound(err)
	}
	return wait.PollUntilContextTimeout(ctx, time.Second, time.Minute, true, func(ctx context.Context) (bool, error) {
		err := c.Get(ctx, client.ObjectKeyFromObject(wa), &v1beta1.WebApp{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
}
