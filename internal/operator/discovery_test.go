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
	const gv = "gateway.networking.k8s.io/v1"
	notFound := apierrors.NewNotFound(schema.GroupResource{}, gv)
	tests := []struct {
		name    string
		lists   map[string]*metav1.APIResourceList // by group-version; absent: not found
		failing error
		want    map[string]bool
		wantErr bool
	}{
		{name: "no Gateway API: the route is unserved", want: map[string]bool{"HTTPRoute": true}},
		{name: "the group without HTTPRoute (only Gateways): unserved",
			lists: map[string]*metav1.APIResourceList{gv: {APIResources: []metav1.APIResource{{Kind: "Gateway"}}}},
			want:  map[string]bool{"HTTPRoute": true}},
		{name: "HTTPRoute served",
			lists: map[string]*metav1.APIResourceList{gv: {APIResources: []metav1.APIResource{{Kind: "HTTPRoute"}}}},
			want:  map[string]bool{"HTTPRoute": false}},
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
			if !reflect.DeepEqual(asked, []string{gv}) {
				t.Errorf("asked discovery about %v, want only %s", asked, gv)
			}
		})
	}
}
