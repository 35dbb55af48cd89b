/*
Copyright 2026 The webapp-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package v1beta1_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/distribution/reference"

	"github.com/webapp-operator/webapp-operator/api/v1beta1"
)

// TestImageReferencePattern holds the admission rule on images to the parser the operator checks
// them with: every reference of the corpus that the pattern admits parses, and every one it refuses
// fails to parse, but for what the pattern leaves to the operator (the length of a normalised
// name, a bare 64-digit hexadecimal identifier).
func TestImageReferencePattern(t *testing.T) {
	pattern := regexp.MustCompile(v1beta1.ImageReferencePattern)
	digest := "sha256:" + strings.Repeat("0123456789abcdef", 4)
	for _, image := range []string{
		"nginx", "nginx:1.27", "library/nginx", "ghcr.io/acme/shop:1.4.2", "localhost:5000/a/b_c",
		"example.com/x@" + digest, "example.com/x:1@" + digest, "Registry.Example.com:443/team/app:v1.2-rc.1",
		"[::1]:5000/app", "a__b/c--d", "UPPER/app", "a.b/c.d",
		"", "Nginx", "nginx:", ":tag", "nginx@sha256:abc", "ghcr.io/Acme/shop", "a b", "a/b/", "/a", "a//b",
		"nginx:-tag", "example.com:port/x", "a_/b", "a:1:2", "ghcr.io/acme/shop:" + strings.Repeat("t", 129),
	} {
		_, err := reference.ParseNormalizedNamed(image)
		if admitted, parses := pattern.MatchString(image), err == nil; admitted != parses {
			t.Errorf("%q: the pattern admits it: %v; ParseNormalizedNamed parses it: %v (%v)", image, admitted, parses, err)
		}
	}
}

// TestImageRulesUseThePattern checks that the CRD's rules on images are the pattern above.
func TestImageRulesUseThePattern(t *testing.T) {
	crd, err := os.ReadFile("../../config/crd/bases/apps.webapp-operator.io_webapps.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// container.image, and the image of sidecars and init containers (one Container schema each)
	if n := strings.Count(string(crd), "self.matches('"+v1beta1.ImageReferencePattern+"')"); n != 3 {
		t.Errorf("the CRD has the image pattern in %d rules, want 3 (container, sidecars, initContainers)", n)
	}
}
