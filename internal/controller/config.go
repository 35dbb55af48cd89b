package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
	"github.com/webapp-operator/webapp-operator/internal/resources"
	"github.com/webapp-operator/webapp-operator/internal/status"
)

// The configuration the pods read is fingerprinted into their template, so that a change of it rolls
// them. The operator caches ConfigMaps and Secrets metadata-only and keeps a digest per object, never
// its data (docs/design.md, "The cache"). Secrets are read only when the operator is told to
// (ConfigOptions.Secrets); docs/security.md says why that is off by default.

// Reading ConfigMaps: get for the one object whose data changed, list and watch for the metadata-only
// cache. Never written.
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch

// SecretRollouts is what the operator does with the Secrets the pods read.
type SecretRollouts int

const (
	// SecretRolloutsOff: Secrets are neither watched nor read; a change of one rolls nothing, and a
	// WebApp that reads one says so in its Ready message.
	SecretRolloutsOff SecretRollouts = iota
	// SecretRolloutsOn: Secrets are watched and fingerprinted like ConfigMaps, under ConfigOptions.Key.
	SecretRolloutsOn
	// SecretRolloutsForbidden: asked for, but the operator may not list and watch Secrets; a WebApp
	// that reads one reports ConfigWatchForbidden, and the others go on.
	SecretRolloutsForbidden
)

// ConfigOptions say how the operator fingerprints the Secrets the pods read.
type ConfigOptions struct {
	Secrets SecretRollouts
	// Key keys the revision of pods that read a Secret (resources.ConfigRevision): one per
	// installation, kept in a Secret only the operator reads (operator.configKey).
	Key []byte
	// Forbidden says, with SecretRolloutsForbidden, what the operator was refused.
	Forbidden string
}

// ConfigMetadata returns an empty metadata-only ConfigMap, and Secret when secrets, the form in which
// the operator caches and watches them (and the only one: a typed read through the manager's client
// would start a cache of whole objects).
func ConfigMetadata(secrets bool) []*metav1.PartialObjectMetadata {
	kinds := []string{resources.KindConfigMap}
	if secrets {
		kinds = append(kinds, resources.KindSecret)
	}
	out := make([]*metav1.PartialObjectMetadata, 0, len(kinds))
	for _, kind := range kinds {
		m := &metav1.PartialObjectMetadata{}
		m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind(kind))
		out = append(out, m)
	}
	return out
}

// configRefIndex indexes WebApps by the ConfigMaps and Secrets their pods read (ConfigKey.String()).
const configRefIndex = "webapp.configRefs"

// indexConfigRefs is the index function of configRefIndex on the WebApp informers (WebApps): a
// WebApp's keys are its namespace and each reference's ConfigKey.String(), joined by a slash.
func indexConfigRefs(obj any) ([]string, error) {
	app, ok := obj.(*v1beta1.WebApp)
	if !ok {
		return nil, nil // undecodable: reported by its own pass, and it reads nothing until it decodes
	}
	refs := resources.ConfigRefs(app)
	keys := make([]string, len(refs))
	for i, r := range refs {
		keys[i] = app.Namespace + "/" + r.String()
	}
	return keys, nil
}

// configToWebApps maps a ConfigMap or a Secret (kind) to the WebApps of its namespace that reference it.
func (r *WebAppReconciler) configToWebApps(kind string) func(context.Context, client.Object) []reconcile.Request {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		key := resources.ConfigKey{Kind: kind, Name: obj.GetName()}
		apps, err := r.WebApps.byConfigRef(obj.GetNamespace(), key.String())
		if err != nil {
			logf.FromContext(ctx).Error(err, "listing the WebApps that reference an object", "object", key.String(),
				"namespace", obj.GetNamespace())
			return nil
		}
		if len(apps) == 0 {
			// no WebApp reads it (any more): its digest would only take memory
			r.digests.forget(configObject{namespace: obj.GetNamespace(), ConfigKey: key})
		}
		out := make([]reconcile.Request, len(apps))
		for i, app := range apps {
			out[i] = reconcile.Request{NamespacedName: app}
		}
		return out
	}
}

// configRevision returns the fingerprint of the configuration app's pods read (resources.ConfigRevision),
// "" when they read none or app does not roll on config changes, or a ConfigMissing problem that
// names every required reference to an object that does not exist. Secrets count only when the
// operator watches them (ConfigOptions). live is app's Deployment, nil when there is none.
func (r *WebAppReconciler) configRevision(ctx context.Context, app *v1beta1.WebApp, live *appsv1.Deployment) (string, error) {
	refs := resources.ConfigRefs(app)
	roll := resources.RollsOnConfigChange(app)
	readsSecret := slices.ContainsFunc(refs, isSecret)
	if readsSecret && r.Config.Secrets != SecretRolloutsOn {
		if r.Config.Secrets == SecretRolloutsForbidden && roll {
			return "", status.NewProblem(status.ReasonConfigWatchForbidden, "the pods read a Secret, and the operator "+
				"was started to roll them on Secret changes but may not get, list and watch Secrets (%s); the operator "+
				"applies nothing (running pods keep running) until it is granted that and restarted, or is "+
				"restarted with Secret rollouts off", r.Config.Forbidden)
		}
		refs = slices.DeleteFunc(refs, isSecret)
	}
	digests := make(map[resources.ConfigKey]string, len(refs))
	var missing []string
	for _, ref := range refs {
		digest, found, err := r.configDigest(ctx, app.Namespace, ref.ConfigKey, roll)
		switch {
		case err != nil:
			return "", err
		case found:
			digests[ref.ConfigKey] = digest
		case !ref.Optional:
			missing = append(missing, ref.Missing())
		}
	}
	if len(missing) > 0 {
		return "", status.NewProblem(status.ReasonConfigMissing, "%s; the operator applies nothing until it does (running pods keep running), "+
			"and goes on once it exists", strings.Join(missing, "; "))
	}
	if !roll {
		return "", nil
	}
	rev := resources.ConfigRevision(refs, digests, r.Config.Key)
	if !readsSecret || r.Config.Key == nil {
		return rev, nil
	}
	// The unkeyed revision an earlier version published stays while it is still that of the data:
	// the keyed one would roll the pods for nothing. The next change of the data brings the keyed one.
	if legacy := resources.ConfigRevision(refs, digests, nil); live != nil &&
		live.Spec.Template.Annotations[v1beta1.ConfigRevisionAnnotation] == legacy {
		return legacy, nil
	}
	return rev, nil
}

// secretRolloutsOff reports whether app's pods would roll on a change of a Secret they read, but the
// operator does not watch Secrets.
func (r *WebAppReconciler) secretRolloutsOff(app *v1beta1.WebApp) bool {
	return r.Config.Secrets == SecretRolloutsOff && resources.RollsOnConfigChange(app) &&
		slices.ContainsFunc(resources.ConfigRefs(app), isSecret)
}

func isSecret(r resources.ConfigRef) bool { return r.Kind == resources.KindSecret }

// configDigest reports whether the object exists and, when withDigest, the digest of its data: the
// one computed for its UID and resourceVersion if there is one, else that of the object read now.
func (r *WebAppReconciler) configDigest(ctx context.Context, namespace string, ref resources.ConfigKey,
	withDigest bool) (string, bool, error) {
	key := types.NamespacedName{Namespace: namespace, Name: ref.Name}
	id := configObject{namespace: namespace, ConfigKey: ref}
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind(ref.Kind))
	if err := r.Get(ctx, key, m); err != nil {
		if apierrors.IsNotFound(err) {
			r.digests.forget(id)
			return "", false, nil
		}
		return "", false, fmt.Errorf("reading %s %s: %w", ref.Kind, ref.Name, err)
	}
	if !withDigest {
		return "", true, nil
	}
	if d, ok := r.digests.get(id, m.UID, m.ResourceVersion); ok {
		return d, true, nil
	}
	var read client.Object
	var digest func() string
	switch ref.Kind {
	case resources.KindConfigMap:
		cm := &corev1.ConfigMap{}
		read, digest = cm, func() string { return resources.ConfigDigest(cm.Data, cm.BinaryData) }
	case resources.KindSecret:
		s := &corev1.Secret{}
		read, digest = s, func() string { return resources.ConfigDigest(nil, s.Data) }
	default:
		return "", false, fmt.Errorf("no digest of a %s", ref.Kind)
	}
	if err := r.APIReader.Get(ctx, key, read); err != nil {
		if apierrors.IsNotFound(err) {
			// deleted since the cache saw it: its delete event brings another pass
			r.digests.forget(id)
			return "", false, nil
		}
		return "", false, fmt.Errorf("reading %s %s: %w", ref.Kind, ref.Name, err)
	}
	// The version read may be newer than the cache's: keep the digest for it; the cache catches up.
	d := digest()
	r.digests.put(id, digestAt{uid: read.GetUID(), resourceVersion: read.GetResourceVersion(), digest: d})
	return d, true, nil
}

// configObject names a ConfigMap or a Secret of the cluster.
type configObject struct {
	namespace string
	resources.ConfigKey
}

// digestAt is the digest of an object's data at one UID and resourceVersion.
type digestAt struct {
	uid             types.UID
	resourceVersion string
	digest          string
}

// configDigests remembers the digest of each referenced object's data: a few dozen bytes per object,
// no data. An entry goes when a pass finds the object gone, or when an event of the object finds no
// WebApp that reads it.
type configDigests struct {
	mu sync.Mutex
	m  map[configObject]digestAt
}

func (c *configDigests) get(id configObject, uid types.UID, resourceVersion string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.m[id]
	if !ok || d.uid != uid || d.resourceVersion != resourceVersion {
		return "", false
	}
	return d.digest, true
}

func (c *configDigests) put(id configObject, d digestAt) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[configObject]digestAt{}
	}
	c.m[id] = d
}

func (c *configDigests) forget(id configObject) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, id)
}
