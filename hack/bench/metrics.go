package main

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"strconv"
	"strings"
)

// sample is one line of the Prometheus text exposition format.
type sample struct {
	Name   string
	Labels map[string]string
	Value  float64
}

// parseMetrics reads the Prometheus text format that controller-runtime's metrics endpoint serves.
// It skips comments and keeps every sample; timestamps, if any, are ignored.
func parseMetrics(r io.Reader) ([]sample, error) {
	var out []sample
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1024*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, err := parseSample(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

func parseSample(line string) (sample, error) {
	s := sample{Labels: map[string]string{}}
	rest := line
	if i := strings.IndexAny(line, "{ "); i < 0 {
		return s, fmt.Errorf("no value in %q", line)
	} else {
		s.Name, rest = line[:i], line[i:]
	}
	if strings.HasPrefix(rest, "{") {
		var err error
		if rest, err = parseLabels(rest[1:], s.Labels); err != nil {
			return s, fmt.Errorf("%w in %q", err, line)
		}
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return s, fmt.Errorf("no value in %q", line)
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return s, fmt.Errorf("bad value in %q: %w", line, err)
	}
	s.Value = v
	return s, nil
}

// parseLabels reads `k="v",k2="v2"}` into into and returns what follows the closing brace.
func parseLabels(in string, into map[string]string) (string, error) {
	for {
		in = strings.TrimLeft(in, " ,")
		if strings.HasPrefix(in, "}") {
			return in[1:], nil
		}
		eq := strings.Index(in, "=")
		if eq < 0 || len(in) < eq+2 || in[eq+1] != '"' {
			return "", fmt.Errorf("bad label")
		}
		key := strings.TrimSpace(in[:eq])
		in = in[eq+2:]
		var val strings.Builder
		closed := false
		for i := 0; i < len(in); i++ {
			c := in[i]
			if c == '\\' && i+1 < len(in) {
				i++
				switch in[i] {
				case 'n':
					val.WriteByte('\n')
				default:
					val.WriteByte(in[i])
				}
				continue
			}
			if c == '"' {
				in, closed = in[i+1:], true
				break
			}
			val.WriteByte(c)
		}
		if !closed {
			return "", fmt.Errorf("unterminated label value")
		}
		into[key] = val.String()
	}
}

// metricSet is a scrape of the operator's metrics endpoint.
type metricSet []sample

// sum adds every sample of name whose labels include match.
func (m metricSet) sum(name string, match map[string]string) float64 {
	var total float64
	for _, s := range m {
		if s.Name != name {
			continue
		}
		ok := true
		for k, v := range match {
			if s.Labels[k] != v {
				ok = false
				break
			}
		}
		if ok {
			total += s.Value
		}
	}
	return total
}

// sumBy adds the samples of name per value of label.
func (m metricSet) sumBy(name, label string) map[string]float64 {
	out := map[string]float64{}
	for _, s := range m {
		if s.Name == name {
			out[s.Labels[label]] += s.Value
		}
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
