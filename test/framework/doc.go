// Package framework holds what webapp-operator's test suites and development tools share: starting
// a loopback control plane (envtest's kube-apiserver and etcd, kube-controller-manager, an admin
// kubeconfig), child processes that die with their parent, reaching the local cluster's ClusterIPs
// from the node's network namespace, counting failed HTTP requests while something changes, reading
// sample WebApps, environment defaults and step logging.
//
// It is imported by test/e2e, test/olm and test/scorecard, and by the hack/ tools (bench, localdev).
package framework
