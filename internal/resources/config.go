package resources

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"maps"
	"slices"
	"strings"

	"k8s.io/utils/ptr"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
)

// The pod template carries a fingerprint of the data its pods read, so that a change of that data
// rolls them (docs/design.md, The configuration fingerprint). Everything here is pure.

// Kinds of object the pods read their configuration from.
const (
	KindConfigMap = "ConfigMap"
	KindSecret    = "Secret"
)

// ConfigKey names a ConfigMap or a Secret in the WebApp's namespace.
type ConfigKey struct {
	Kind, Name string
}

func (k ConfigKey) String() string { return k.Kind + "/" + k.Name }

// ConfigRef is an object the pod template references, once, however many times the spec names it.
type ConfigRef struct {
	ConfigKey
	// Optional: every reference to it is optional, so the pods start without it.
	Optional bool
	// Via says where the spec references it: the first required reference, or the first one.
	Via string
}

// Missing is the message for a required reference to an object that does not exist.
func (r ConfigRef) Missing() string {
	return fmt.Sprintf("%s %q referenced by %s does not exist", r.Kind, r.Name, r.Via)
}

// ConfigRefs returns the ConfigMaps and Secrets that app's pods read, sorted by kind and name: the
// env (configMapKeyRef, secretKeyRef) and envFrom of the app's container, the env of its sidecars and
// init containers, and the volumes. Image pull secrets are left out (the kubelet reads them to pull,
// and a new one does not change what runs), and so is the Ingress's TLS Secret (the ingress
// controller reloads it).
func ConfigRefs(app *v1beta1.WebApp) []ConfigRef {
	refs := map[ConfigKey]*ConfigRef{}
	add := func(kind, name string, optional *bool, via string) {
		k := ConfigKey{Kind: kind, Name: name}
		opt := ptr.Deref(optional, false)
		switch r, seen := refs[k]; {
		case !seen:
			refs[k] = &ConfigRef{ConfigKey: k, Optional: opt, Via: via}
		case r.Optional && !opt:
			r.Optional, r.Via = false, via
		}
	}
	env := func(vars []v1beta1.EnvVar, of string) {
		for _, v := range vars {
			if v.ValueFrom == nil {
				continue
			}
			if s := v.ValueFrom.ConfigMapKeyRef; s != nil {
				add(KindConfigMap, s.Name, s.Optional, "env "+v.Name+of)
			}
			if s := v.ValueFrom.SecretKeyRef; s != nil {
				add(KindSecret, s.Name, s.Optional, "env "+v.Name+of)
			}
		}
	}
	env(app.Spec.Container.Env, "")
	for _, from := range app.Spec.Container.EnvFrom {
		if s := from.ConfigMapRef; s != nil {
			add(KindConfigMap, s.Name, s.Optional, "envFrom")
		}
		if s := from.SecretRef; s != nil {
			add(KindSecret, s.Name, s.Optional, "envFrom")
		}
	}
	for _, c := range app.Spec.Pod.InitContainers {
		env(c.Env, " of init container "+c.Name)
	}
	for _, c := range app.Spec.Pod.Sidecars {
		env(c.Env, " of sidecar "+c.Name)
	}
	for _, v := range app.Spec.Pod.Volumes {
		if s := v.ConfigMap; s != nil {
			add(KindConfigMap, s.Name, s.Optional, "volume "+v.Name)
		}
		if s := v.Secret; s != nil {
			add(KindSecret, s.Name, s.Optional, "volume "+v.Name)
		}
	}
	out := make([]ConfigRef, 0, len(refs))
	for _, r := range refs {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b ConfigRef) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// RollsOnConfigChange reports whether app's pod template carries the fingerprint of its configuration
// (rollout.onConfigChange, Rollout by default).
func RollsOnConfigChange(app *v1beta1.WebApp) bool {
	return app.Spec.Rollout.OnConfigChange != v1beta1.ConfigChangeIgnore
}

// ConfigDigest is the digest of one object's data: a ConfigMap's data and binaryData, or a Secret's
// data (as binary). Each key and value is written with its length, so that no two different maps
// digest alike.
func ConfigDigest(data map[string]string, binaryData map[string][]byte) string {
	h := sha256.New()
	for _, k := range slices.Sorted(maps.Keys(data)) {
		writeField(h, "s", k, []byte(data[k]))
	}
	for _, k := range slices.Sorted(maps.Keys(binaryData)) {
		writeField(h, "b", k, binaryData[k])
	}
	return hex.EncodeToString(h.Sum(nil))
}

func writeField(h hash.Hash, tag, key string, value []byte) {
	var n [8]byte
	h.Write([]byte(tag))
	binary.BigEndian.PutUint64(n[:], uint64(len(key)))
	h.Write(n[:])
	h.Write([]byte(key))
	binary.BigEndian.PutUint64(n[:], uint64(len(value)))
	h.Write(n[:])
	h.Write(value)
}

// ConfigRevision is the fingerprint of what the pods read: each referenced object (refs, as
// ConfigRefs returns them) with its digest (ConfigDigest), or as absent when digests has none for it
// (an optional reference to an object that does not exist: its appearance changes what the pods
// read too). Empty when the pods read no ConfigMap or Secret, so that their template carries no
// annotation. 16 hex digits: enough to tell revisions apart, short enough to read in status.
//
// The revision is published (in the pod template and status) to whoever may read the WebApp, who may
// not read its Secrets: so when refs name a Secret and key is not nil, it is an HMAC under key, and a
// guess of the Secret's data cannot be checked against it without the key. Without a Secret it stays
// a plain hash: whoever may read a WebApp may read the ConfigMaps of its namespace (the built-in
// view role), and a key it does not need would only roll those pods when the key changes.
func ConfigRevision(refs []ConfigRef, digests map[ConfigKey]string, key []byte) string {
	if len(refs) == 0 {
		return ""
	}
	h := sha256.New()
	if key != nil && slices.ContainsFunc(refs, func(r ConfigRef) bool { return r.Kind == KindSecret }) {
		h = hmac.New(sha256.New, key)
	}
	for _, r := range refs {
		d, ok := digests[r.ConfigKey]
		if !ok {
			d = "absent"
		}
		h.Write([]byte(r.Kind + "\x00" + r.Name + "\x00" + d + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
