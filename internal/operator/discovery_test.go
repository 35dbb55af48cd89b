package operator

import (
	"errors"
	"reflect"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/webapp-operator/webapp-operator/internal/resources"
)

func TestUnservedChildren(t *testing.T) {
	const gv, monitoring = "gateway.networking.k8s.io/v1", "monitoring.coreos.com/v1"
	notFound := apierrors.NewNotFound(schema.GroupResource{}, gv)
	tests := []struct {
		name    string
		lists   map[string]*metav1.APIResourceList // by group-version; absent: not found
		failing error
		want    map[string]bool
		wantErr bool
	}{
		{name: "neither the Gateway API nor the Prometheus Operator: the route and the monitor are unserved",
			want: map[string]bool{"HTTPRoute": true, "ServiceMonitor": true}},
		{name: "the groups without their kinds (only Gateways, only PodMonitors): unserved",
			lists: map[string]*metav1.APIResourceList{gv: {APIResources: []metav1.APIResource{{Kind: "Gateway"}}},
				monitoring: {APIResources: []metav1.APIResource{{Kind: "PodMonitor"}}}},
			want: map[string]bool{"HTTPRoute": true, "ServiceMonitor": true}},
		{name: "HTTPRoute served, ServiceMonitor not",
			lists: map[string]*metav1.APIResourceList{gv: {APIResources: []metav1.APIResource{{Kind: "HTTPRoute"}}}},
			want:  map[string]bool{"HTTPRoute": false, "ServiceMonitor": true}},
		{name: "ServiceMonitor served, HTTPRoute not",
			lists: map[string]*metav1.APIResourceList{monitoring: {APIResources: []metav1.APIResource{{Kind: "ServiceMonitor"}}}},
			want:  map[string]bool{"HTTPRoute": true, "ServiceMonitor": false}},
		{name: "discovery failing: an error, not a guess", failing: errors.New("connection refused"), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []string
			got, err := unserved(resources.All, Scheme, func(groupVersion string) (*metav1.APIResourceList, error) {
				asked = append(asked, groupVersion)
				if tt.failing != nil {
					return nil, tt.failing
				}
				if l, ok := tt.lists[groupVersion]; ok {
					return l, nil
				}
				return nil, notFound
			})
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want an error: %v", err, tt.wantErr)
			}
			if !tt.wantErr && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("unserved = %v, want %v", got, tt.want)
			}
			// the built-in kinds are served by every cluster: asking would cost a request per kind
			want := []string{gv, monitoring}
			if tt.wantErr {
				want = want[:1] // the first failure stops the look-up
			}
			if !reflect.DeepEqual(asked, want) {
				t.Errorf("asked discovery about %v, want only %v", asked, want)
			}
		})
	}
}
