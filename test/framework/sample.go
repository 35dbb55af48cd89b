package framework

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
)

// ReadWebApp decodes the WebApp in a YAML or JSON file, such as config/samples/apps_v1beta1_webapp.yaml.
func ReadWebApp(path string) (*v1beta1.WebApp, error) {
	KeyCacheOnSources() // the samples are in config/ and bundle/
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	app := &v1beta1.WebApp{}
	if err := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096).Decode(app); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", path, err)
	}
	return app, nil
}

// SampleFromBundle returns the WebApp of the CSV's alm-examples in bundleDir: the example OperatorHub
// shows users.
func SampleFromBundle(bundleDir string) (*v1beta1.WebApp, error) {
	paths, err := filepath.Glob(filepath.Join(bundleDir, "manifests", "*.clusterserviceversion.yaml"))
	if err != nil || len(paths) != 1 {
		return nil, fmt.Errorf("want one CSV in %s/manifests, found %d (%v)", bundleDir, len(paths), err)
	}
	KeyCacheOnSources()
	data, err := os.ReadFile(paths[0])
	if err != nil {
		return nil, err
	}
	// Only the annotation is read: the CSV's own types would pull operator-framework/api into
	// every user of this package.
	var csv struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	if err := yaml.Unmarshal(data, &csv); err != nil {
		return nil, fmt.Errorf("%s: %w", paths[0], err)
	}
	var examples []v1beta1.WebApp
	if err := json.Unmarshal([]byte(csv.Metadata.Annotations["alm-examples"]), &examples); err != nil {
		return nil, fmt.Errorf("%s: alm-examples: %w", paths[0], err)
	}
	for i := range examples {
		if examples[i].Kind == "WebApp" {
			return &examples[i], nil
		}
	}
	return nil, fmt.Errorf("%s: alm-examples has no WebApp", paths[0])
}
