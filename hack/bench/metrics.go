package main

import (
	"io"
	"maps"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// metricSet is a scrape of the operator's metrics endpoint, by metric name.
type metricSet map[string]*dto.MetricFamily

// parseMetrics reads the Prometheus text format that controller-runtime's metrics endpoint serves.
func parseMetrics(r io.Reader) (metricSet, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(r)
}

// value is a counter's, a gauge's or an untyped sample's value.
func value(m *dto.Metric) float64 {
	if m.Counter != nil {
		return m.Counter.GetValue()
	}
	if m.Gauge != nil {
		return m.Gauge.GetValue()
	}
	return m.GetUntyped().GetValue()
}

// label is the value of m's label name, or "".
func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// sum adds every sample of name whose labels include match.
func (m metricSet) sum(name string, match map[string]string) float64 {
	var total float64
	for _, s := range m[name].GetMetric() {
		ok := true
		for k, v := range match {
			ok = ok && label(s, k) == v
		}
		if ok {
			total += value(s)
		}
	}
	return total
}

// sumBy adds the samples of name per value of label.
func (m metricSet) sumBy(name, byLabel string) map[string]float64 {
	out := map[string]float64{}
	for _, s := range m[name].GetMetric() {
		out[label(s, byLabel)] += value(s)
	}
	return out
}

// requestsByMethod is the operator's client requests per HTTP method (GET covers get, list and
// watch; the API server's verbs are not in client-go's metric).
func (m metricSet) requestsByMethod() map[string]float64 {
	return m.sumBy("rest_client_requests_total", "method")
}

// delta is after - before per key (counters only grow within one process).
func delta(before, after map[string]float64) map[string]float64 {
	out := maps.Clone(after)
	for k, v := range before {
		out[k] -= v
	}
	return out
}

// writeMethods are the HTTP methods that change something on the API server.
var writeMethods = []string{"POST", "PUT", "PATCH", "DELETE"}

// writes counts the write requests in a by-method map.
func writes(byMethod map[string]float64) float64 {
	var n float64
	for _, m := range writeMethods {
		n += byMethod[m]
	}
	return n
}
