package testenv

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
)

// WebApp is the smallest WebApp the suites start from: an image and two replicas.
func WebApp(ns, name string) *webappv1.WebApp {
	return &webappv1.WebApp{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       webappv1.WebAppSpec{Image: "example.com/shop:1.0", Replicas: ptr.To[int32](2)},
	}
}

// FullWebApp is WebApp(ns, name) with every optional field of the pod set, each to something other than
// its default: the admission suite admits it, the controller suite renders it.
func FullWebApp(ns, name string) *webappv1.WebApp {
	app := WebApp(ns, name)
	s := &app.Spec
	s.Command = []string{"/srv"}
	s.Args = []string{"--listen=:8080"}
	s.Ports = []webappv1.ContainerPort{{Name: "metrics", ContainerPort: 9090, ServicePort: ptr.To[int32](9090)}, {Name: "admin", ContainerPort: 9091}}
	s.Volumes = []webappv1.Volume{
		{Name: "config", MountPath: "/etc/shop", ConfigMap: &webappv1.ConfigMapVolume{Name: "shop",
			Items: []webappv1.KeyToPath{{Key: "app.yaml", Path: "app.yaml", Mode: ptr.To[int32](0o440)}}}},
		{Name: "tls", MountPath: "/tls", Secret: &webappv1.SecretVolume{Name: "shop-tls", DefaultMode: ptr.To[int32](0o400)}},
		{Name: "cache", MountPath: "/cache", EmptyDir: &webappv1.EmptyDirVolume{Medium: "Memory", SizeLimit: ptr.To(webappv1.MustParseQuantity("64Mi"))}},
		{Name: "data", MountPath: "/data", SubPath: "shop", ReadOnly: true,
			PersistentVolumeClaim: &webappv1.PersistentVolumeClaimVolume{ClaimName: "shop-data"}},
	}
	s.ServiceAccountName = "shop"
	s.AutomountServiceAccountToken = ptr.To(true)
	s.ImagePullSecrets = []webappv1.ImagePullSecret{{Name: "registry"}}
	s.Probes = &webappv1.Probes{
		Readiness: &webappv1.Probe{HTTPGet: &webappv1.HTTPGetAction{Path: "/ready"}, PeriodSeconds: ptr.To[int32](2)},
		Liveness:  &webappv1.Probe{TCPSocket: &webappv1.TCPSocketAction{Port: ptr.To(intstr.FromString("admin"))}, FailureThreshold: ptr.To[int32](10)},
		Startup:   &webappv1.Probe{Exec: &webappv1.ExecAction{Command: []string{"/check"}}, PeriodSeconds: ptr.To[int32](1)},
	}
	s.Lifecycle = &webappv1.Lifecycle{PreStop: &webappv1.Handler{SleepSeconds: ptr.To[int64](5)}, TerminationGracePeriodSeconds: ptr.To[int64](45)}
	s.MinReadySeconds = ptr.To[int32](3)
	s.Strategy = &webappv1.RolloutStrategy{MaxSurge: ptr.To(intstr.FromInt32(1)), MaxUnavailable: ptr.To(intstr.FromString("0%"))}
	s.RevisionHistoryLimit = ptr.To[int32](4)
	s.Scheduling = &webappv1.Scheduling{
		NodeSelector: map[string]webappv1.LabelValue{"kubernetes.io/os": "linux"},
		Tolerations:  []webappv1.Toleration{{Key: "dedicated", Value: "web", Effect: "NoSchedule"}},
		NodeAffinity: &webappv1.NodeAffinity{Preferred: []webappv1.PreferredNodeSelectorTerm{{Weight: 10,
			Term: webappv1.NodeSelectorTerm{MatchExpressions: []webappv1.NodeSelectorRequirement{{Key: "spot", Operator: "DoesNotExist"}}}}}},
		TopologySpreadConstraints: []webappv1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone"}},
		PriorityClassName:         "system-cluster-critical",
	}
	s.Security = &webappv1.Security{RunAsUser: ptr.To[int64](1000), RunAsGroup: ptr.To[int64](1000), FSGroup: ptr.To[int64](2000),
		ReadOnlyRootFilesystem: ptr.To(true)}
	s.Sidecars = []webappv1.Container{{Name: "proxy", Image: "example.com/proxy:1", Args: []string{"-v"},
		Env:          []webappv1.EnvVar{{Name: "UPSTREAM", Value: "localhost:8080"}},
		Resources:    webappv1.ResourceRequirements{Limits: webappv1.ResourceList{"memory": webappv1.MustParseQuantity("64Mi")}},
		VolumeMounts: []webappv1.VolumeMount{{Name: "cache", MountPath: "/cache", ReadOnly: true}}}}
	s.InitContainers = []webappv1.Container{{Name: "migrate", Image: "example.com/migrate:1", Command: []string{"/migrate"}}}
	return app
}

// Corpus reads the WebApps of internal/resources' TestRenderCorpus: v1alpha1 objects as the API
// server admits them (the samples, the suites' and generated ones), one JSON object per line.
func Corpus() ([]*webappv1.WebApp, error) {
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join(root, "internal", "resources", "testdata", "corpus", "webapps.jsonl"))
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	var out []*webappv1.WebApp
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		app := &webappv1.WebApp{}
		if err := json.Unmarshal(sc.Bytes(), app); err != nil {
			return nil, err
		}
		out = append(out, app)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) < 100 {
		return nil, fmt.Errorf("only %d WebApps in the corpus", len(out))
	}
	return out, nil
}
