# The local cluster (hack/local-cluster.sh: a real single-node cluster in a network namespace), the
# `make demo` quickstart and the end-to-end suite. Included by the Makefile.

LOCAL_CLUSTER := hack/local-cluster.sh
LOCAL_KUBECONFIG ?= $(shell pwd)/.cache/local-cluster/kubeconfig
LOCAL_KUBECTL ?= $(ENVTEST_DIR)/k8s/$(ENVTEST_K8S_VERSION)-linux-amd64/kubectl
LOCAL_ENV = KUBECONFIG=$(LOCAL_KUBECONFIG) LOCAL_CLUSTER_AUDIT_LOG=$(shell pwd)/.cache/local-cluster/logs/audit.log
DEMO_IMG ?= localhost/demoapp
# Two tags of the demo app that answer differently, for rolling updates in the demo and e2e tests.
DEMO_TAGS ?= v1 v2
# One more tag: the demo app with the user configuration of the basic sample's image
# (nginx-unprivileged), the numeric user 101, for the e2e spec that runs that sample: the local
# cluster cannot pull the public image. test/e2e/sample_test.go names it.
DEMO_SAMPLE_TAG := uid101
# Flags of the ginkgo CLI for the end-to-end suite, e.g. E2E_ARGS=--focus=Zero.downtime
E2E_ARGS ?=
# How many ginkgo processes run the end-to-end suite's containers side by side; the containers marked
# Serial run after the others, alone. On 2 cores, 3 processes were no faster than 2
# (docs/development.md, "CI").
E2E_PROCS ?= 2
# How many times test-e2e-repeat runs the suite.
E2E_REPEAT ?= 3

##@ Local cluster (hack/make/cluster.mk)

.PHONY: cluster-up
cluster-up: ## Start the local cluster (builds and caches its binaries on first use).
	$(LOCAL_CLUSTER) up

.PHONY: cluster-down
cluster-down: ## Stop the local cluster and undo every host change it made.
	$(LOCAL_CLUSTER) down

.PHONY: gateway-install
gateway-install: ## Install the e2e suite's gateway on the local cluster: Traefik (Ingress and Gateway API) and the Gateway API CRDs, built from source.
	$(LOCAL_ENV) KUBECTL=$(LOCAL_KUBECTL) hack/local-cluster/gateway.sh install

.PHONY: gateway-uninstall
gateway-uninstall: ## Remove the gateway and the Gateway API CRDs from the local cluster.
	$(LOCAL_ENV) KUBECTL=$(LOCAL_KUBECTL) hack/local-cluster/gateway.sh uninstall

.PHONY: demo-images
demo-images: ## Build the demo app images bin/demoapp-<tag>.tar ($(DEMO_IMG):<tag> for each of DEMO_TAGS and DEMO_SAMPLE_TAG) without a daemon.
	@for t in $(DEMO_TAGS); do \
		CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -buildvcs=false -ldflags "-s -w -X main.version=$$t" -o bin/demoapp-$$t ./test/demoapp && \
		go run ./hack/mkimage binary -binary bin/demoapp-$$t -name demoapp -tag $(DEMO_IMG):$$t -out bin/demoapp-$$t.tar || exit 1; \
	done
	@# mkimage binary runs everything as 65532, so this one is a root file system of its own, packed
	@# for the host's platform (the node's), with the user that nginx-unprivileged's config declares.
	@root=bin/demoapp-$(DEMO_SAMPLE_TAG)-root && rm -rf $$root && mkdir -p $$root/etc $$root/tmp && chmod 1777 $$root/tmp && \
		printf 'root:x:0:0:root:/root:/sbin/nologin\nnginx:x:101:101:nginx:/nonexistent:/sbin/nologin\n' >$$root/etc/passwd && \
		printf 'root:x:0:\nnginx:x:101:\n' >$$root/etc/group && \
		CGO_ENABLED=0 GOOS=linux go build -trimpath -buildvcs=false -ldflags "-s -w -X main.version=$(DEMO_SAMPLE_TAG)" -o $$root/demoapp ./test/demoapp && \
		go run ./hack/mkimage rootfs -dir $$root -entrypoint '["/demoapp"]' -user 101 -env PATH=/usr/local/bin:/usr/bin:/bin \
			-tag $(DEMO_IMG):$(DEMO_SAMPLE_TAG) -out bin/demoapp-$(DEMO_SAMPLE_TAG).tar

.PHONY: deploy-local
deploy-local: image-tarball demo-images ## Build the manager and demo images, load them into the local cluster and `make deploy` the operator.
	$(LOCAL_CLUSTER) load-image bin/manager-image.tar $(foreach t,$(DEMO_TAGS) $(DEMO_SAMPLE_TAG),bin/demoapp-$(t).tar)
	DEPLOY_CONFIG=$(DEPLOY_CONFIG) KUBECTL=$(LOCAL_KUBECTL) hack/local-cluster/deploy.sh bin/manager-image.tar

.PHONY: demo
demo: ## Quickstart on a real cluster: operator deployed, a WebApp serving the demo app, Ready and answering HTTP.
	@# in this order, also under make -j
	$(MAKE) cluster-up
	$(MAKE) deploy-local
	hack/local-cluster/demo.sh

.PHONY: test-e2e
# The suite rolls pods on Secret changes (test/e2e/disruption_test.go, restricted_test.go): it deploys
# the operator with Secret rollouts on. make demo deploys the default.
test-e2e test-e2e-repeat: DEPLOY_CONFIG = config/default-secret-rollouts
test-e2e: gateway-install prometheus deploy-local ginkgo ## Run the end-to-end suite (test/e2e) against the local cluster (`make cluster-up` first), in E2E_PROCS (2) processes.
	$(LOCAL_ENV) KUBECTL=$(LOCAL_KUBECTL) DEMO_IMG=$(DEMO_IMG) PROMETHEUS=$(PROMETHEUS) \
		$(GINKGO) -v --procs=$(E2E_PROCS) --timeout=30m $(E2E_ARGS) ./test/e2e

.PHONY: observability-screenshots
observability-screenshots: deploy-local prometheus ## Refresh docs/images/prometheus-*.png: the e2e monitoring spec, with Debian's headless Chromium.
	@command -v chromium >/dev/null || apt-get install -y --no-install-recommends chromium
	$(LOCAL_ENV) KUBECTL=$(LOCAL_KUBECTL) DEMO_IMG=$(DEMO_IMG) PROMETHEUS=$(PROMETHEUS) E2E_SCREENSHOTS=$(shell pwd)/docs/images \
		go test ./test/e2e -count=1 -timeout 15m -ginkgo.focus "Monitoring with a real Prometheus"

.PHONY: test-e2e-repeat
test-e2e-repeat: gateway-install prometheus deploy-local ginkgo ## Run the end-to-end suite E2E_REPEAT (3) times in a row, as test-e2e does; stop at the first failure.
	$(LOCAL_ENV) KUBECTL=$(LOCAL_KUBECTL) DEMO_IMG=$(DEMO_IMG) PROMETHEUS=$(PROMETHEUS) \
		$(GINKGO) --procs=$(E2E_PROCS) --repeat=$$(($(E2E_REPEAT) - 1)) --timeout=$(E2E_REPEAT)h $(E2E_ARGS) ./test/e2e
