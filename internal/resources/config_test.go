package resources

import (
	"reflect"
	"testing"

	"k8s.io/utils/ptr"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
)

func TestConfigRefs(t *testing.T) {
	cm := func(name string, optional bool, via string) ConfigRef {
		return ConfigRef{ConfigKey: ConfigKey{Kind: KindConfigMap, Name: name}, Optional: optional, Via: via}
	}
	secret := func(name string, optional bool, via string) ConfigRef {
		return ConfigRef{ConfigKey: ConfigKey{Kind: KindSecret, Name: name}, Optional: optional, Via: via}
	}
	keyRef := func(name string, optional *bool) *webappv1.KeySelector {
		return &webappv1.KeySelector{Name: name, Key: "k", Optional: optional}
	}
	tests := []struct {
		name string
		app  func(*webappv1.WebApp)
		want []ConfigRef
	}{{
		name: "none: literal values, pod fields, emptyDir, image pull and TLS secrets",
		app: func(a *webappv1.WebApp) {
			a.Spec.Env = []webappv1.EnvVar{{Name: "A", Value: "x"}, {Name: "POD", ValueFrom: &webappv1.EnvVarSource{
				FieldRef: &webappv1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}
			a.Spec.Volumes = []webappv1.Volume{{Name: "tmp", MountPath: "/tmp", EmptyDir: &webappv1.EmptyDirVolume{}}}
			a.Spec.ImagePullSecrets = []webappv1.ImagePullSecret{{Name: "registry"}}
			a.Spec.Ingress = &webappv1.Ingress{Hosts: []string{"a.example.com"}, TLS: &webappv1.IngressTLS{SecretName: "tls"}}
		},
		want: []ConfigRef{},
	}, {
		name: "every source, of every container, sorted by kind and name",
		app: func(a *webappv1.WebApp) {
			a.Spec.Env = []webappv1.EnvVar{
				{Name: "FOO", ValueFrom: &webappv1.EnvVarSource{ConfigMapKeyRef: keyRef("env-cm", nil)}},
				{Name: "TOKEN", ValueFrom: &webappv1.EnvVarSource{SecretKeyRef: keyRef("env-secret", nil)}}}
			a.Spec.EnvFrom = []webappv1.EnvFromSource{{ConfigMapRef: &webappv1.ObjectReference{Name: "from-cm"}},
				{SecretRef: &webappv1.ObjectReference{Name: "from-secret"}}}
			a.Spec.InitContainers = []webappv1.Container{{Name: "migrate", Env: []webappv1.EnvVar{
				{Name: "DB", ValueFrom: &webappv1.EnvVarSource{SecretKeyRef: keyRef("init-secret", nil)}}}}}
			a.Spec.Sidecars = []webappv1.Container{{Name: "proxy", Env: []webappv1.EnvVar{
				{Name: "CONF", ValueFrom: &webappv1.EnvVarSource{ConfigMapKeyRef: keyRef("sidecar-cm", nil)}}}}}
			a.Spec.Volumes = []webappv1.Volume{
				{Name: "config", MountPath: "/etc/shop", ConfigMap: &webappv1.ConfigMapVolume{Name: "vol-cm"}},
				{Name: "tls", MountPath: "/tls", Secret: &webappv1.SecretVolume{Name: "vol-secret"}}}
		},
		want: []ConfigRef{
			cm("env-cm", false, "env FOO"), cm("from-cm", false, "envFrom"), cm("sidecar-cm", false, "env CONF of sidecar proxy"),
			cm("vol-cm", false, "volume config"),
			secret("env-secret", false, "env TOKEN"), secret("from-secret", false, "envFrom"),
			secret("init-secret", false, "env DB of init container migrate"), secret("vol-secret", false, "volume tls"),
		},
	}, {
		name: "one object named twice is one reference, required if any reference is, named by that one",
		app: func(a *webappv1.WebApp) {
			a.Spec.Env = []webappv1.EnvVar{
				{Name: "A", ValueFrom: &webappv1.EnvVarSource{ConfigMapKeyRef: keyRef("shop", ptr.To(true))}},
				{Name: "B", ValueFrom: &webappv1.EnvVarSource{ConfigMapKeyRef: keyRef("shop", nil)}},
				{Name: "C", ValueFrom: &webappv1.EnvVarSource{ConfigMapKeyRef: keyRef("shop", ptr.To(false))}}}
			a.Spec.Volumes = []webappv1.Volume{{Name: "opt", MountPath: "/o",
				Secret: &webappv1.SecretVolume{Name: "maybe", Optional: ptr.To(true)}}}
			a.Spec.EnvFrom = []webappv1.EnvFromSource{{SecretRef: &webappv1.ObjectReference{Name: "maybe", Optional: ptr.To(true)}}}
		},
		want: []ConfigRef{cm("shop", false, "env B"), secret("maybe", true, "envFrom")},
	}, {
		name: "a ConfigMap and a Secret of the same name are two",
		app: func(a *webappv1.WebApp) {
			a.Spec.EnvFrom = []webappv1.EnvFromSource{{ConfigMapRef: &webappv1.ObjectReference{Name: "shop"}},
				{SecretRef: &webappv1.ObjectReference{Name: "shop"}}}
		},
		want: []ConfigRef{cm("shop", false, "envFrom"), secret("shop", false, "envFrom")},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ConfigRefs(hub(t, newApp(tt.app))); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ConfigRefs:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
	if got := cm("x", false, "env FOO").Missing(); got != `ConfigMap "x" referenced by env FOO does not exist` {
		t.Errorf("Missing() = %q", got)
	}
}

func TestConfigDigest(t *testing.T) {
	base := ConfigDigest(map[string]string{"a": "1", "b": "2"}, nil)
	same := []struct {
		name string
		got  string
	}{
		{"the same data, built in another order", ConfigDigest(map[string]string{"b": "2", "a": "1"}, nil)},
		{"empty binaryData", ConfigDigest(map[string]string{"a": "1", "b": "2"}, map[string][]byte{})},
	}
	for _, s := range same {
		if s.got != base {
			t.Errorf("%s: digest %s, want %s", s.name, s.got, base)
		}
	}
	differ := []struct {
		name string
		got  string
	}{
		{"a value changed", ConfigDigest(map[string]string{"a": "1", "b": "3"}, nil)},
		{"a key added", ConfigDigest(map[string]string{"a": "1", "b": "2", "c": ""}, nil)},
		{"a key removed", ConfigDigest(map[string]string{"a": "1"}, nil)},
		{"a key renamed", ConfigDigest(map[string]string{"a": "1", "c": "2"}, nil)},
		{"the boundary between key and value moved", ConfigDigest(map[string]string{"a": "1", "b2": ""}, nil)},
		{"the same bytes as binaryData", ConfigDigest(nil, map[string][]byte{"a": []byte("1"), "b": []byte("2")})},
		{"no data at all", ConfigDigest(nil, nil)},
	}
	for _, d := range differ {
		if d.got == base {
			t.Errorf("%s: same digest as before", d.name)
		}
	}
}

func TestConfigRevision(t *testing.T) {
	shop := ConfigKey{Kind: KindConfigMap, Name: "shop"}
	token := ConfigKey{Kind: KindSecret, Name: "token"}
	refs := []ConfigRef{{ConfigKey: shop}, {ConfigKey: token, Optional: true}}
	key := []byte("installation key")
	base := ConfigRevision(refs, map[ConfigKey]string{shop: "d1", token: "d2"}, key)
	if len(base) != 16 {
		t.Errorf("revision %q: want 16 hex digits", base)
	}
	if got := ConfigRevision(refs, map[ConfigKey]string{token: "d2", shop: "d1"}, key); got != base {
		t.Errorf("the same digests give %s, want %s", got, base)
	}
	for name, got := range map[string]string{
		"a digest changed":           ConfigRevision(refs, map[ConfigKey]string{shop: "d1", token: "d3"}, key),
		"the optional Secret absent": ConfigRevision(refs, map[ConfigKey]string{shop: "d1"}, key),
		"one reference fewer":        ConfigRevision(refs[:1], map[ConfigKey]string{shop: "d1"}, key),
		"the same digests, swapped":  ConfigRevision(refs, map[ConfigKey]string{shop: "d2", token: "d1"}, key),
	} {
		if got == base {
			t.Errorf("%s: same revision as before", name)
		}
	}
	if got := ConfigRevision(nil, nil, key); got != "" {
		t.Errorf("no references: revision %q, want none", got)
	}
}

// TestConfigRevisionOfASecretIsKeyed: the revision published for pods that read a Secret cannot be
// computed from the Secret's data alone (a guess of the data cannot be confirmed without the key),
// while one of ConfigMaps alone is the same with or without a key.
func TestConfigRevisionOfASecretIsKeyed(t *testing.T) {
	cm := ConfigRef{ConfigKey: ConfigKey{Kind: KindConfigMap, Name: "shop"}}
	secret := ConfigRef{ConfigKey: ConfigKey{Kind: KindSecret, Name: "token"}}
	digests := map[ConfigKey]string{cm.ConfigKey: "d1", secret.ConfigKey: ConfigDigest(nil, map[string][]byte{"pw": []byte("1234")})}
	refs := []ConfigRef{cm, secret}
	keyed := ConfigRevision(refs, digests, []byte("k1"))
	if keyed == ConfigRevision(refs, digests, nil) {
		t.Errorf("a Secret's revision under a key is the unkeyed one: %s", keyed)
	}
	if other := ConfigRevision(refs, digests, []byte("k2")); other == keyed {
		t.Errorf("two keys give the same revision %s", keyed)
	}
	if again := ConfigRevision(refs, digests, []byte("k1")); again != keyed {
		t.Errorf("the same key and data give %s, then %s", keyed, again)
	}
	if a, b := ConfigRevision(refs[:1], digests, []byte("k1")), ConfigRevision(refs[:1], digests, nil); a != b {
		t.Errorf("ConfigMaps alone: %s under a key, %s without", a, b)
	}
}

func TestRollsOnConfigChangeByDefault(t *testing.T) {
	for opt, want := range map[*bool]bool{nil: true, ptr.To(true): true, ptr.To(false): false} {
		if got := RollsOnConfigChange(hub(t, newApp(func(a *webappv1.WebApp) { a.Spec.RolloutOnConfigChange = opt }))); got != want {
			t.Errorf("rolloutOnConfigChange %v: %v, want %v", opt, got, want)
		}
	}
}
