package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"

	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"

	webappv1 "github.com/webapp-operator/webapp-operator/api/v1alpha1"
)

// loadSample returns the WebApp of the CSV's alm-examples in bundleDir: the example OperatorHub shows
// users is the one the test proves.
func loadSample(bundleDir string) (*webappv1.WebApp, error) {
	paths, err := filepath.Glob(filepath.Join(bundleDir, "manifests", "*.clusterserviceversion.yaml"))
	if err != nil || len(paths) != 1 {
		return nil, fmt.Errorf("want one CSV in %s/manifests, found %d (%v)", bundleDir, len(paths), err)
	}
	data, err := os.ReadFile(paths[0])
	if err != nil {
		return nil, err
	}
	var csv operatorsv1alpha1.ClusterServiceVersion
	if err := yaml.Unmarshal(data, &csv); err != nil {
		return nil, fmt.Errorf("%s: %w", paths[0], err)
	}
	var examples []webappv1.WebApp
	if err := json.Unmarshal([]byte(csv.Annotations["alm-examples"]), &examples); err != nil {
		return nil, fmt.Errorf("%s: alm-examples: %w", paths[0], err)
	}
	for i := range examples {
		if examples[i].Kind == "WebApp" {
			return &examples[i], nil
		}
	}
	return nil, fmt.Errorf("%s: alm-examples has no WebApp", paths[0])
}
