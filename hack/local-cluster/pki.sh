#!/usr/bin/env bash
# Generates the throwaway PKI of hack/local-cluster.sh with openssl (idempotent: kept once made).
# usage: pki.sh DIR NODE_NAME NODE_IP
set -euo pipefail
D=$1; NODE=$2; NODEIP=$3
mkdir -p "$D"; cd "$D"
# name CN O SANs ext
gen() {
  local name=$1 cn=$2 o=$3 sans=$4 usage=$5
  local subj="/CN=$cn"; [ -n "$o" ] && subj="/O=$o/CN=$cn"
  openssl genrsa -out "$name.key" 2048 2>/dev/null
  openssl req -new -key "$name.key" -subj "$subj" -out "$name.csr" 2>/dev/null
  {
    echo "basicConstraints=CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    echo "extendedKeyUsage=$usage"
    [ -n "$sans" ] && echo "subjectAltName=$sans"
  } > "$name.ext"
  openssl x509 -req -in "$name.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -out "$name.crt" -days 3650 -extfile "$name.ext" 2>/dev/null
  rm -f "$name.csr" "$name.ext"
}
# the local registry's TLS listener (added later than the rest: made for clusters that predate it too)
registry_cert() { [ -f registry.crt ] || gen registry registry "" "IP:$NODEIP" serverAuth; chmod 600 registry.key; }
if [ -f front-proxy-client.crt ]; then registry_cert; exit 0; fi
openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 3650 -subj "/CN=local-cluster-ca" 2>/dev/null
openssl genrsa -out sa.key 2048 2>/dev/null
openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
gen apiserver kube-apiserver "" "DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,DNS:localhost,IP:127.0.0.1,IP:$NODEIP,IP:10.96.0.1" serverAuth
gen apiserver-kubelet-client kube-apiserver-kubelet-client system:masters "" clientAuth
gen admin kubernetes-admin system:masters "" clientAuth
gen kubelet "system:node:$NODE" system:nodes "" clientAuth
gen kubelet-serving "$NODE" "" "DNS:$NODE,DNS:localhost,IP:127.0.0.1,IP:$NODEIP" serverAuth
gen controller-manager system:kube-controller-manager "" "" clientAuth
gen scheduler system:kube-scheduler "" "" clientAuth
gen kube-proxy system:kube-proxy system:node-proxier "" clientAuth
gen etcd-server etcd "" "DNS:localhost,IP:127.0.0.1" serverAuth,clientAuth
# aggregation layer (needed by aggregated API servers such as OLM's packageserver)
openssl req -x509 -newkey rsa:2048 -nodes -keyout front-proxy-ca.key -out front-proxy-ca.crt -days 3650 -subj "/CN=front-proxy-ca" 2>/dev/null
openssl genrsa -out front-proxy-client.key 2048 2>/dev/null
openssl req -new -key front-proxy-client.key -subj "/CN=front-proxy-client" -out fp.csr 2>/dev/null
printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n' > fp.ext
openssl x509 -req -in fp.csr -CA front-proxy-ca.crt -CAkey front-proxy-ca.key -CAcreateserial -out front-proxy-client.crt -days 3650 -extfile fp.ext 2>/dev/null
rm -f fp.csr fp.ext
chmod 600 *.key
registry_cert
