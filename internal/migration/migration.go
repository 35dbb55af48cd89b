// Package migration moves every object of a CRD to the CRD's storage version, then trims the CRD's
// status.storedVersions to that version alone, so that an older version can later leave the CRD
// (docs/api-design.md, "Storage migration"). It knows no Go type of the objects: the group, the
// resource and the storage version come from the CRD, and the objects are read and written back as
// they are, unstructured, in the storage version. So it needs no conversion in this process, and it
// works unchanged whichever version the CRD stores.
package migration

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

// Read the CRD: its storage version, its status.storedVersions and its generation.
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=get,resourceNames=webapps.apps.webapp-operator.io
// Trim status.storedVersions to the storage version, once every WebApp is stored in it.
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions/status,verbs=update,resourceNames=webapps.apps.webapp-operator.io
// List every WebApp in every namespace, and write each back unchanged, so that the API server
// stores it again, in the storage version.
// +kubebuilder:rbac:groups=apps.webapp-operator.io,resources=webapps,verbs=get;list;update

// FieldManager names the migration's writes. They change no field, so it owns none.
const FieldManager = "webapp-operator-storage-migration"

// DefaultBackoff times the retries of a failed pass: from 1 s, doubling, up to 5 min.
var DefaultBackoff = wait.Backoff{Duration: time.Second, Factor: 2, Jitter: 0.1, Steps: math.MaxInt32, Cap: 5 * time.Minute}

// ErrCRDChanged is returned by a pass that found the CRD's spec changed while it rewrote the
// objects: the storage version may have moved meanwhile, so the pass does not trim.
var ErrCRDChanged = errors.New("the CRD's spec changed during the migration")

// Migrator is a manager Runnable that migrates the storage of one CRD's objects. Only the leader
// runs it, once per start; it returns when the migration is done or cannot be done.
type Migrator struct {
	crds    crdclient.CustomResourceDefinitionInterface
	objects dynamic.Interface
	crd     string
	// PageSize is how many objects a list request returns.
	PageSize int64
	// Backoff times the retries of a failed pass.
	Backoff wait.Backoff
}

// New returns the Migrator of the CRD named crd. Its clients are its own and uncached: it reads
// each object once, and the manager's cache must not start an informer for it.
func New(cfg *rest.Config, crd string) (*Migrator, error) {
	crds, err := crdclient.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	objects, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &Migrator{crds: crds.CustomResourceDefinitions(), objects: objects, crd: crd, PageSize: 100,
		Backoff: DefaultBackoff}, nil
}

// NeedLeaderElection: two replicas migrating at once would only write twice; the leader does it.
func (m *Migrator) NeedLeaderElection() bool { return true }

// Start runs passes until one ends the migration, waiting Backoff between failed ones. It returns
// nil then, when ctx ends, or when a permission is missing (a log line says which): a failed
// migration must not stop the operator, and the next start tries again.
func (m *Migrator) Start(ctx context.Context) error {
	log := logf.FromContext(ctx).WithName("storage-migration").WithValues("crd", m.crd)
	ctx = logf.IntoContext(ctx, log)
	backoff := m.Backoff
	for {
		err := m.Migrate(ctx)
		switch {
		case err == nil || ctx.Err() != nil:
			return nil
		case apierrors.IsForbidden(err):
			log.Error(err, "The storage migration is not permitted: status.storedVersions stays as it is, "+
				"and the next start of the operator tries again")
			return nil
		}
		delay := backoff.Step()
		log.Error(err, "The storage migration did not finish; retrying", "in", delay.Round(time.Millisecond))
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(delay):
		}
	}
}

// Migrate is one pass. When the storage version is the only stored version it does nothing but
// read the CRD. Otherwise it rewrites every object and, if all were rewritten and the CRD's spec has
// not changed since it was read, sets status.storedVersions to the storage version. An error means
// storedVersions was left as it was.
func (m *Migrator) Migrate(ctx context.Context) error {
	log := logf.FromContext(ctx)
	crd, err := m.crds.Get(ctx, m.crd, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("reading the CRD: %w", err)
	}
	storage, err := storageVersion(crd)
	if err != nil {
		return err
	}
	if slices.Equal(crd.Status.StoredVersions, []string{storage}) {
		log.Info("Nothing to migrate: the storage version is the only stored version", "version", storage)
		return nil
	}
	log.Info("Migrating every object to the storage version", "version", storage,
		"storedVersions", crd.Status.StoredVersions)
	gvr := schema.GroupVersionResource{Group: crd.Spec.Group, Version: storage, Resource: crd.Spec.Names.Plural}
	n, err := m.rewriteAll(ctx, m.objects.Resource(gvr))
	if err != nil {
		return err
	}
	if err := m.trim(ctx, crd, storage); err != nil {
		return err
	}
	log.Info("Storage migrated", "objects", n, "storedVersions", []string{storage})
	return nil
}

// storageVersion is the CRD's version marked storage; the migration reads and writes in it.
func storageVersion(crd *apiextensionsv1.CustomResourceDefinition) (string, error) {
	for _, v := range crd.Spec.Versions {
		switch {
		case !v.Storage:
			continue
		case !v.Served:
			return "", fmt.Errorf("the storage version %s is not served", v.Name)
		}
		return v.Name, nil
	}
	return "", errors.New("the CRD has no storage version")
}

// rewriteAll writes back every object, page by page. It goes on past an object it could not write,
// so that one bad object does not hold back the others, and returns how many it wrote and an error
// if any was not written. A missing permission ends it at once: no other object would fare better.
func (m *Migrator) rewriteAll(ctx context.Context, res dynamic.NamespaceableResourceInterface) (int, error) {
	opts := metav1.ListOptions{Limit: m.PageSize}
	written, failed := 0, 0
	var first error
	for {
		page, err := res.List(ctx, opts)
		if err != nil {
			return written, fmt.Errorf("listing the objects: %w", err)
		}
		for i := range page.Items {
			obj := &page.Items[i]
			err := rewrite(ctx, res.Namespace(obj.GetNamespace()), obj)
			switch {
			case err == nil:
				written++
				continue
			case apierrors.IsForbidden(err) || ctx.Err() != nil:
				return written, fmt.Errorf("rewriting %s: %w", key(obj), err)
			}
			if failed++; first == nil {
				first = fmt.Errorf("rewriting %s: %w", key(obj), err)
			}
		}
		if opts.Continue = page.GetContinue(); opts.Continue == "" {
			break
		}
	}
	if failed > 0 {
		return written, fmt.Errorf("%d of %d objects not rewritten, the first: %w", failed, written+failed, first)
	}
	return written, nil
}

// rewrite updates obj with its content as read. The API server encodes it in the storage version;
// if it was stored so already, the bytes are the same and nothing is written. A conflict (the object
// changed since it was read) re-reads it and tries again; an object deleted meanwhile is skipped.
func rewrite(ctx context.Context, res dynamic.ResourceInterface, obj *unstructured.Unstructured) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		_, err := res.Update(ctx, obj, metav1.UpdateOptions{FieldManager: FieldManager})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if apierrors.IsConflict(err) {
			fresh, getErr := res.Get(ctx, obj.GetName(), metav1.GetOptions{})
			if apierrors.IsNotFound(getErr) {
				return nil
			}
			if getErr != nil {
				return getErr
			}
			*obj = *fresh
		}
		return err
	})
}

// trim sets status.storedVersions to [storage]. It writes only to the CRD as read at the pass's
// start, or, after a conflict, as read again with the same spec generation: a change of the spec may
// have moved the storage version while the objects were rewritten (and back: the version alone
// would not tell), and objects written meanwhile may be stored in a version this pass did not
// migrate to. Then it returns ErrCRDChanged and the next pass starts over.
func (m *Migrator) trim(ctx context.Context, read *apiextensionsv1.CustomResourceDefinition, storage string) error {
	crd := read.DeepCopy()
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if crd == nil {
			var err error
			if crd, err = m.crds.Get(ctx, m.crd, metav1.GetOptions{}); err != nil {
				return fmt.Errorf("reading the CRD again: %w", err)
			}
		}
		if crd.Generation != read.Generation {
			return fmt.Errorf("%w: generation %d, the pass read %d", ErrCRDChanged, crd.Generation, read.Generation)
		}
		crd.Status.StoredVersions = []string{storage}
		_, err := m.crds.UpdateStatus(ctx, crd, metav1.UpdateOptions{FieldManager: FieldManager})
		crd = nil // read it again before another try
		return err
	})
}

func key(obj *unstructured.Unstructured) string {
	if obj.GetNamespace() == "" {
		return obj.GetName()
	}
	return obj.GetNamespace() + "/" + obj.GetName()
}
