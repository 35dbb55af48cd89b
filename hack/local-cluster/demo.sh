#!/usr/bin/env bash
# The `make demo` quickstart, after `make cluster-up deploy-local`: create a WebApp that serves the demo
# app, wait for Ready, show it, and call its Service over HTTP from inside the node's network namespace
# (by ClusterIP, and by DNS name from a pod-side client: the demo app's own /lookup).
set -euo pipefail
LOG_PREFIX=demo
. "$(dirname "$0")/../lib.sh"
eval "$("$REPO/hack/local-cluster.sh" env)"
DEMO_IMG=${DEMO_IMG:-localhost/demoapp}

log "creating WebApp 'demo' (image $DEMO_IMG:v1, 2 replicas)"
kubectl apply --server-side -f - <<YAML
apiVersion: apps.webapp-operator.io/v1beta1
kind: WebApp
metadata:
  name: demo
  namespace: default
spec:
  replicas: 2
  container:
    image: $DEMO_IMG:v1
    probes:
      readiness: {httpGet: {path: /healthz}}
      liveness: {httpGet: {path: /healthz}}
YAML
log "waiting for Ready (about 10 s)"
kubectl wait webapp/demo --for=condition=Ready --timeout=120s
kubectl get webapp demo
kubectl get deploy,svc,pods -l app.kubernetes.io/instance=demo -o wide
ip=$(kubectl get svc demo -o jsonpath='{.spec.clusterIP}')
log "GET http://$ip/ (the Service, from the node's network namespace $LOCAL_CLUSTER_NETNS)"
# Ready is about the pods; kube-proxy programs a new Service a moment later, and after a suite that
# deleted the CRD (test-olm's cleanup) the garbage collector may still be removing the pods of an
# earlier demo that the new Deployment briefly counted. So the first answer is waited for, bounded.
wait_for "the Service answering" 60 innet curl -sf --max-time 5 "http://$ip/"
innet curl -sf --max-time 5 "http://$ip/"
log "GET http://$ip/lookup?host=demo.default.svc.cluster.local (CoreDNS, resolved inside a pod)"
innet curl -sf --max-time 5 "http://$ip/lookup?host=demo.default.svc.cluster.local"
log "done. Try: eval \"\$(hack/local-cluster.sh env)\"; kubectl scale webapp demo --replicas 3; make cluster-down"
