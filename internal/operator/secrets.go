package operator

import (
	"context"
	"crypto/rand"
	"fmt"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/webapp-operator/webapp-operator/internal/controller"
)

// ConfigKeySecret is the name of the Secret, in the operator's namespace, that holds the key of the
// configuration revisions of pods that read a Secret (resources.ConfigRevision).
const ConfigKeySecret = "webapp-operator-config-key"

// configKeyField is the key's field in that Secret: 32 random bytes.
const configKeyField = "key"

// secretRollouts decides, once at start-up, how the operator treats the Secrets the pods read
// (controller.ConfigOptions). Off unless asked for. Asked for, it checks that the operator may get,
// list and watch Secrets where it watches, and reads the key (creating it the first time): without
// that, an informer of Secrets would fail to list forever, keep the caches from syncing and fail the
// probes; instead the WebApps that read a Secret report ConfigWatchForbidden and the rest goes on. A
// permission granted later is used after a restart.
func secretRollouts(cfg *rest.Config, opts Options) (controller.ConfigOptions, error) {
	if !opts.SecretRollouts {
		return controller.ConfigOptions{}, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := client.New(cfg, client.Options{Scheme: Scheme})
	if err != nil {
		return controller.ConfigOptions{}, err
	}
	forbidden := func(what string) (controller.ConfigOptions, error) {
		return controller.ConfigOptions{Secrets: controller.SecretRolloutsForbidden, Forbidden: what}, nil
	}
	namespaces := opts.Namespaces
	if len(namespaces) == 0 {
		namespaces = []string{metav1.NamespaceAll}
	}
	for _, ns := range namespaces {
		for _, verb := range []string{"get", "list", "watch"} {
			review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
				ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: verb, Resource: "secrets"}}}
			if err := c.Create(ctx, review); err != nil {
				return controller.ConfigOptions{}, fmt.Errorf("asking whether the operator may %s Secrets: %w", verb, err)
			}
			if !review.Status.Allowed {
				where := "in namespace " + ns
				if ns == metav1.NamespaceAll {
					where = "cluster-wide"
				}
				return forbidden(fmt.Sprintf("%s on secrets %s is not granted", verb, where))
			}
		}
	}
	if opts.ConfigKeySecret.Namespace == "" {
		return controller.ConfigOptions{}, fmt.Errorf("secret rollouts need the operator's namespace, for its key")
	}
	key, err := configKey(ctx, c, opts.ConfigKeySecret)
	if apierrors.IsForbidden(err) {
		return forbidden(err.Error())
	}
	if err != nil {
		return controller.ConfigOptions{}, err
	}
	return controller.ConfigOptions{Secrets: controller.SecretRolloutsOn, Key: key}, nil
}

// configKey reads the key from the Secret name, and creates that Secret with a random key if there is
// none. One key per installation, shared by every replica: a replica with another key would publish
// other revisions and roll the pods that read a Secret. If the Secret is lost, the next operator to
// start makes a new key, and those pods roll once with its next pass (docs/security.md).
func configKey(ctx context.Context, c client.Client, name types.NamespacedName) ([]byte, error) {
	s := &corev1.Secret{}
	err := c.Get(ctx, name, s)
	if apierrors.IsNotFound(err) {
		key := make([]byte, 32)
		_, _ = rand.Read(key) // never fails (crypto/rand)
		s = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: name.Namespace, Name: name.Name},
			Data: map[string][]byte{configKeyField: key}}
		if err = c.Create(ctx, s); apierrors.IsAlreadyExists(err) {
			err = c.Get(ctx, name, s) // another replica made it first
		}
	}
	if err != nil {
		return nil, fmt.Errorf("reading the key of Secret revisions, Secret %s: %w", name, err)
	}
	if len(s.Data[configKeyField]) < 32 {
		return nil, fmt.Errorf("the Secret %s holds no key of 32 bytes in %q", name, configKeyField)
	}
	return s.Data[configKeyField], nil
}
