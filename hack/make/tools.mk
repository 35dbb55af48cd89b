# Pinned tools and the envtest control plane. Included by the Makefile.
#
# Every tool is built from a pinned Go module (the lock files of hack/versions.env): hack/tools for
# controller-gen, kustomize, setup-envtest and golangci-lint; hack/tools/operator-sdk for operator-sdk,
# its scorecard-test image binary and helm, hack/tools/crd-ref-docs for crd-ref-docs (their k8s.io
# dependencies are older than ours) and hack/tools/crdify for crdify, with OLM v1's. A tool is rebuilt
# only when its module changes. The tool modules are not part of go.work: GOWORK=off. The ginkgo CLI
# is the exception: it is built in the workspace, from the test module, so that it is the version of
# the Ginkgo library the suites are built with (the CLI and the suite's processes talk to each other).

LOCALBIN ?= $(shell pwd)/bin
$(LOCALBIN):
	mkdir -p $(LOCALBIN)

# Variables first: a rule's prerequisites are expanded when make reads the rule.
OPERATOR_SDK ?= $(LOCALBIN)/operator-sdk
SCORECARD_TEST ?= $(LOCALBIN)/scorecard-test
HELM ?= $(LOCALBIN)/helm
KUSTOMIZE ?= $(LOCALBIN)/kustomize
CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen
ENVTEST ?= $(LOCALBIN)/setup-envtest
GOLANGCI_LINT ?= $(LOCALBIN)/golangci-lint
CRD_REF_DOCS ?= $(LOCALBIN)/crd-ref-docs
CRDIFY ?= $(LOCALBIN)/crdify
GINKGO ?= $(LOCALBIN)/ginkgo
TOOLS_MOD := hack/tools/go.mod
SDK_MOD := hack/tools/operator-sdk/go.mod
CRD_REF_DOCS_MOD := hack/tools/crd-ref-docs/go.mod
CRDIFY_MOD := hack/tools/crdify/go.mod
TEST_MOD := test/go.mod

# The envtest control plane: built from source (hack/install-envtest-bins.sh) and cached outside the
# clone, in setup-envtest's store layout, so that every clone on the machine shares it.
CACHE_DIR ?= $(HOME)/.cache/webapp-operator
ENVTEST_DIR ?= $(CACHE_DIR)/envtest
ENVTEST_K8S_VERSION := $(K8S_VERSION:v%=%)

##@ Tools (hack/make/tools.mk)

.PHONY: tools kustomize controller-gen setup-envtest golangci-lint operator-sdk scorecard-test helm crd-ref-docs crdify ginkgo
tools: kustomize controller-gen setup-envtest golangci-lint operator-sdk scorecard-test crd-ref-docs crdify ginkgo ## Build the pinned tools CI uses into bin/: controller-gen, kustomize, setup-envtest, golangci-lint, operator-sdk, scorecard-test, crd-ref-docs, crdify, ginkgo.
kustomize: $(KUSTOMIZE) ## Build kustomize (hack/tools).
controller-gen: $(CONTROLLER_GEN) ## Build controller-gen (hack/tools).
setup-envtest: $(ENVTEST) ## Build setup-envtest (hack/tools).
golangci-lint: $(GOLANGCI_LINT) ## Build golangci-lint (hack/tools).
operator-sdk: $(OPERATOR_SDK) ## Build operator-sdk (hack/tools/operator-sdk).
scorecard-test: $(SCORECARD_TEST) ## Build operator-sdk's scorecard-test binary (hack/tools/operator-sdk).
helm: $(HELM) ## Build helm (hack/tools/operator-sdk), for hack/olm/render-manifests.sh only.
crd-ref-docs: $(CRD_REF_DOCS) ## Build crd-ref-docs (hack/tools/crd-ref-docs), which writes docs/api.md.
crdify: $(CRDIFY) ## Build crdify (hack/tools/crdify), OLM v1's CRD upgrade-safety check.
ginkgo: $(GINKGO) ## Build the ginkgo CLI (test/go.mod), which runs the end-to-end suite's specs in parallel processes.

.PHONY: envtest-assets
envtest-assets: setup-envtest ## Build the envtest control plane (kube-apiserver, etcd, kube-controller-manager, kube-scheduler) from source (cached) and print its path.
	@WITH_SCHED=1 hack/install-envtest-bins.sh $(ENVTEST_DIR) >/dev/null
	@$(ENVTEST) use $(ENVTEST_K8S_VERSION) --bin-dir $(ENVTEST_DIR) -i -p path

.PHONY: gateway-api-crds
gateway-api-crds: ## Fetch the Gateway API CRDs (GATEWAY_API_VERSION) from the Go module proxy (cached) and print their folder.
	@hack/install-crds.sh gateway-api

.PHONY: prometheus-operator-crds
prometheus-operator-crds: ## Fetch the Prometheus Operator's ServiceMonitor CRD (PROMETHEUS_OPERATOR_VERSION) from the Go module proxy (cached) and print its folder.
	@hack/install-crds.sh prometheus-operator

$(KUSTOMIZE): $(TOOLS_MOD) | $(LOCALBIN)
	$(call build-tool,$@,sigs.k8s.io/kustomize/kustomize/v5)
$(CONTROLLER_GEN): $(TOOLS_MOD) | $(LOCALBIN)
	$(call build-tool,$@,sigs.k8s.io/controller-tools/cmd/controller-gen)
$(ENVTEST): $(TOOLS_MOD) | $(LOCALBIN)
	$(call build-tool,$@,sigs.k8s.io/controller-runtime/tools/setup-envtest)
$(GOLANGCI_LINT): $(TOOLS_MOD) | $(LOCALBIN)
	$(call build-tool,$@,github.com/golangci/golangci-lint/v2/cmd/golangci-lint)

# operator-sdk must be built with CGO off and the openpgp tag (no gpgme), and with its version stamped
# in, as its release does (the commit and Kubernetes version are those of its release).
OPERATOR_SDK_PKG := github.com/operator-framework/operator-sdk
OPERATOR_SDK_LDFLAGS := -X '$(OPERATOR_SDK_PKG)/internal/version.Version=$(OPERATOR_SDK_VERSION)' \
	-X '$(OPERATOR_SDK_PKG)/internal/version.GitVersion=$(OPERATOR_SDK_VERSION)' \
	-X '$(OPERATOR_SDK_PKG)/internal/version.GitCommit=2016cae87253bef07444dd47c463bdbb27c44c48' \
	-X '$(OPERATOR_SDK_PKG)/internal/version.KubernetesVersion=v1.33.1' \
	-X '$(OPERATOR_SDK_PKG)/internal/version.ImageVersion=$(OPERATOR_SDK_VERSION)'
$(OPERATOR_SDK): $(SDK_MOD) | $(LOCALBIN)
	@echo "building operator-sdk $(OPERATOR_SDK_VERSION) from hack/tools/operator-sdk (pinned)"
	cd hack/tools/operator-sdk && GOWORK=off CGO_ENABLED=0 GOFLAGS=-mod=mod go build -tags=containers_image_openpgp \
		-ldflags "$(OPERATOR_SDK_LDFLAGS)" -o $@ $(OPERATOR_SDK_PKG)/cmd/operator-sdk
$(SCORECARD_TEST): $(SDK_MOD) | $(LOCALBIN)
	cd hack/tools/operator-sdk && GOWORK=off CGO_ENABLED=0 GOFLAGS=-mod=mod go build -tags=containers_image_openpgp \
		-ldflags "$(OPERATOR_SDK_LDFLAGS)" -o $@ $(OPERATOR_SDK_PKG)/images/scorecard-test
$(HELM): $(SDK_MOD) | $(LOCALBIN)
	cd hack/tools/operator-sdk && GOWORK=off CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags "-s -w" -o $@ helm.sh/helm/v3/cmd/helm

$(CRD_REF_DOCS): $(CRD_REF_DOCS_MOD) | $(LOCALBIN)
	@echo "building crd-ref-docs $(CRD_REF_DOCS_VERSION) from hack/tools/crd-ref-docs (pinned)"
	cd hack/tools/crd-ref-docs && GOWORK=off GOFLAGS=-mod=mod go build -o $@ github.com/elastic/crd-ref-docs

# crdify's version is a commit that the checksum database does not know: its go.sum line comes from
# operator-controller's go.sum, which the database vouches for.
$(CRDIFY): $(CRDIFY_MOD) | $(LOCALBIN)
	@echo "building crdify $(CRDIFY_VERSION) from hack/tools/crdify (pinned)"
	cd hack/tools/crdify && GOWORK=off GOFLAGS=-mod=mod go build -o $@ sigs.k8s.io/crdify

$(GINKGO): $(TEST_MOD) go.mod go.work | $(LOCALBIN)
	@echo "building ginkgo from test/go.mod (pinned)"
	cd test && go build -o $@ github.com/onsi/ginkgo/v2/ginkgo

# build-tool builds package $(2) from the pinned tools module into $(1).
define build-tool
@echo "building $(notdir $(1)) from hack/tools (pinned)"
cd hack/tools && GOWORK=off GOFLAGS=-mod=mod go build -o $(1) $(2)
endef
