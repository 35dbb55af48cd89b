# webapp-operator Makefile (Operator SDK go/v4 layout).
# Everything here works offline: tools are built from the pinned module in hack/tools through the Go
# module proxy, and the envtest control plane is built from source (hack/install-envtest-bins.sh).

# VERSION is the operator and bundle version (semver, no leading v).
VERSION ?= 0.1.0

# Bundle channels: stable is the only channel and the default.
CHANNELS ?= stable
DEFAULT_CHANNEL ?= stable
BUNDLE_CHANNELS := --channels=$(CHANNELS)
BUNDLE_DEFAULT_CHANNEL := --default-channel=$(DEFAULT_CHANNEL)
BUNDLE_METADATA_OPTS ?= $(BUNDLE_CHANNELS) $(BUNDLE_DEFAULT_CHANNEL)

IMAGE_TAG_BASE ?= ghcr.io/webapp-operator/webapp-operator
BUNDLE_IMG ?= $(IMAGE_TAG_BASE)-bundle:v$(VERSION)
BUNDLE_GEN_FLAGS ?= -q --overwrite=false --version $(VERSION) $(BUNDLE_METADATA_OPTS)
IMG ?= $(IMAGE_TAG_BASE):v$(VERSION)

# Kubernetes version of the envtest control plane (built from source, cached outside the clone so
# that every clone on the machine shares it).
ENVTEST_K8S_VERSION ?= 1.37.2
ENVTEST_ETCD_VERSION ?= v3.7.3
CACHE_DIR ?= $(HOME)/.cache/webapp-operator
ENVTEST_DIR ?= $(CACHE_DIR)/envtest

CONTAINER_TOOL ?= docker
SHELL = /usr/bin/env bash -o pipefail
.SHELLFLAGS = -ec

GOBIN ?= $(shell go env GOPATH)/bin

.PHONY: all
all: build

##@ General

.PHONY: help
help: ## Display this help.
	@awk 'BEGIN {FS = ":.*##"; printf "\nUsage:\n  make \033[36m<target>\033[0m\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-18s\033[0m %s\n", $$1, $$2 } /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) } ' $(MAKEFILE_LIST)

##@ Development

.PHONY: manifests
manifests: controller-gen ## Generate the CRD, RBAC role and other manifests from the kubebuilder markers.
	$(CONTROLLER_GEN) rbac:roleName=manager-role crd paths="./..." output:crd:artifacts:config=config/crd/bases

.PHONY: generate
generate: controller-gen ## Generate DeepCopy methods.
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./..."

.PHONY: fmt
fmt: ## Run go fmt.
	go fmt ./...

.PHONY: vet
vet: ## Run go vet.
	go vet ./...

.PHONY: verify-generated
verify-generated: manifests generate ## Fail when generated files differ from what is committed.
	@git diff --exit-code -- api config || { echo "generated files are stale: run 'make manifests generate' and commit"; exit 1; }

.PHONY: envtest-assets
envtest-assets: setup-envtest ## Build the envtest control plane from source (cached) and print its path.
	@K8S_VERSION=v$(ENVTEST_K8S_VERSION) ETCD_VERSION=$(ENVTEST_ETCD_VERSION) hack/install-envtest-bins.sh $(ENVTEST_DIR) >/dev/null
	@$(ENVTEST) use $(ENVTEST_K8S_VERSION) --bin-dir $(ENVTEST_DIR) -i -p path

.PHONY: test
test: manifests generate fmt vet envtest-assets ## Run unit and integration (envtest) tests.
	KUBEBUILDER_ASSETS="$$($(MAKE) -s envtest-assets)" go test $$(go list ./... | grep -v /test/e2e) -coverprofile cover.out

.PHONY: fuzz
fuzz: ## Fuzz the renderer for FUZZTIME (default 30s).
	go test ./internal/render -run '^$$' -fuzz FuzzDeployment -fuzztime $${FUZZTIME:-30s}

.PHONY: lint
lint: golangci-lint ## Run golangci-lint.
	$(GOLANGCI_LINT) run

.PHONY: lint-fix
lint-fix: golangci-lint ## Run golangci-lint and fix what it can.
	$(GOLANGCI_LINT) run --fix

##@ Build

.PHONY: build
build: manifests generate fmt vet ## Build the manager binary.
	go build -o bin/manager cmd/main.go

.PHONY: run
run: manifests generate fmt vet ## Run the operator from your host against the cluster in ~/.kube/config.
	go run ./cmd/main.go

.PHONY: run-local
run-local: manifests setup-envtest ## Quickstart: a local control plane (built from source), the operator and a sample WebApp.
	@echo "building the local control plane if needed (cold: ~20 min on 2 cores; cached: seconds)"
	@WITH_KCM=1 K8S_VERSION=v$(ENVTEST_K8S_VERSION) ETCD_VERSION=$(ENVTEST_ETCD_VERSION) hack/install-envtest-bins.sh $(ENVTEST_DIR) >/dev/null
	KUBEBUILDER_ASSETS="$$($(ENVTEST) use $(ENVTEST_K8S_VERSION) --bin-dir $(ENVTEST_DIR) -i -p path)" go run ./hack/localdev $(LOCALDEV_ARGS)

.PHONY: docker-build
docker-build: ## Build the manager image with a container engine.
	$(CONTAINER_TOOL) build -t ${IMG} .

.PHONY: docker-push
docker-push: ## Push the manager image.
	$(CONTAINER_TOOL) push ${IMG}

.PHONY: build-installer
build-installer: manifests generate kustomize ## Generate dist/install.yaml with the CRDs and the deployment.
	mkdir -p dist
	cd config/manager && $(KUSTOMIZE) edit set image controller=${IMG}
	$(KUSTOMIZE) build config/default > dist/install.yaml

##@ Deployment

ifndef ignore-not-found
  ignore-not-found = false
endif

.PHONY: install
install: manifests kustomize ## Install the CRDs into the cluster in ~/.kube/config.
	$(KUSTOMIZE) build config/crd | $(KUBECTL) apply --server-side -f -

.PHONY: uninstall
uninstall: manifests kustomize ## Uninstall the CRDs. Call with ignore-not-found=true to ignore missing resources.
	$(KUSTOMIZE) build config/crd | $(KUBECTL) delete --ignore-not-found=$(ignore-not-found) -f -

.PHONY: deploy
deploy: manifests kustomize ## Deploy the operator to the cluster in ~/.kube/config.
	cd config/manager && $(KUSTOMIZE) edit set image controller=${IMG}
	$(KUSTOMIZE) build config/default | $(KUBECTL) apply --server-side -f -

.PHONY: undeploy
undeploy: kustomize ## Undeploy the operator. Call with ignore-not-found=true to ignore missing resources.
	$(KUSTOMIZE) build config/default | $(KUBECTL) delete --ignore-not-found=$(ignore-not-found) -f -

##@ Dependencies

LOCALBIN ?= $(shell pwd)/bin
$(LOCALBIN):
	mkdir -p $(LOCALBIN)

KUBECTL ?= kubectl
KUSTOMIZE ?= $(LOCALBIN)/kustomize
CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen
ENVTEST ?= $(LOCALBIN)/setup-envtest
GOLANGCI_LINT ?= $(LOCALBIN)/golangci-lint

# Every tool is pinned in hack/tools/go.mod and rebuilt only when that file changes.
TOOLS_MOD := hack/tools/go.mod

.PHONY: kustomize controller-gen setup-envtest golangci-lint tools
tools: kustomize controller-gen setup-envtest golangci-lint ## Build all pinned tools into bin/.
kustomize: $(KUSTOMIZE)
controller-gen: $(CONTROLLER_GEN)
setup-envtest: $(ENVTEST)
golangci-lint: $(GOLANGCI_LINT)

$(KUSTOMIZE): $(TOOLS_MOD) | $(LOCALBIN)
	$(call build-tool,$@,sigs.k8s.io/kustomize/kustomize/v5)
$(CONTROLLER_GEN): $(TOOLS_MOD) | $(LOCALBIN)
	$(call build-tool,$@,sigs.k8s.io/controller-tools/cmd/controller-gen)
$(ENVTEST): $(TOOLS_MOD) | $(LOCALBIN)
	$(call build-tool,$@,sigs.k8s.io/controller-runtime/tools/setup-envtest)
$(GOLANGCI_LINT): $(TOOLS_MOD) | $(LOCALBIN)
	$(call build-tool,$@,github.com/golangci/golangci-lint/v2/cmd/golangci-lint)

# build-tool builds package $(2) from the pinned tools module into $(1).
define build-tool
@echo "building $(notdir $(1)) from hack/tools (pinned)"
cd hack/tools && GOFLAGS=-mod=mod go build -o $(1) $(2)
endef
