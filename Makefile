# webapp-operator Makefile (Operator SDK go/v4 layout).
#
# The product's targets come first, under the names every kubebuilder / Operator SDK project uses. The
# rest lives in hack/make/, one file per concern: tools.mk (pinned tools and the envtest control plane),
# cluster.mk (the local cluster, `make demo`, the end-to-end suite), olm.mk (OLM on the local cluster),
# bench.mk (the scale benchmark), monitoring.mk (promtool and the alerts' unit tests) and docs.mk
# (docs/api.md, generated from the API's Go types). Every version comes from hack/versions.env.
# Everything works offline: tools are built from pinned modules through the Go module proxy, and the
# Kubernetes control plane is built from source.

include hack/versions.env

# VERSION is the operator and bundle version (semver, no leading v).
VERSION ?= 0.3.0

# Bundle channels: stable is the only channel and the default.
CHANNELS ?= stable
DEFAULT_CHANNEL ?= stable
BUNDLE_CHANNELS := --channels=$(CHANNELS)
BUNDLE_DEFAULT_CHANNEL := --default-channel=$(DEFAULT_CHANNEL)
BUNDLE_METADATA_OPTS ?= $(BUNDLE_CHANNELS) $(BUNDLE_DEFAULT_CHANNEL)

IMAGE_TAG_BASE ?= ghcr.io/webapp-operator/webapp-operator
BUNDLE_IMG ?= $(IMAGE_TAG_BASE)-bundle:v$(VERSION)
# --overwrite=false keeps bundle.Dockerfile and bundle/metadata as committed: they carry labels that
# operator-sdk does not write (com.redhat.openshift.versions), so edit them there.
BUNDLE_GEN_FLAGS ?= -q --overwrite=false --version $(VERSION) $(BUNDLE_METADATA_OPTS)
IMG ?= $(IMAGE_TAG_BASE):v$(VERSION)
# The platforms of the manager image (one index); the CSV's operatorframework.io/arch labels must list
# the same architectures (`make image-check` fails otherwise).
PLATFORMS ?= linux/amd64 linux/arm64
MANAGER_BINARIES := $(foreach p,$(PLATFORMS),bin/manager-$(subst /,-,$(p)))
# The image of webapp-operator's own scorecard test (test/scorecard), named in the bundle's scorecard config.
SCORECARD_IMG ?= $(IMAGE_TAG_BASE)-scorecard:v$(VERSION)

CONTAINER_TOOL ?= docker
comma := ,
space := $(subst ,, )
SHELL = /usr/bin/env bash -o pipefail
.SHELLFLAGS = -ec

# The Go modules of the repository (go.work): the operator, its development tools and its test suites.
GO_PACKAGES := ./... ./hack/... ./test/...
# What `make test` runs: everything but the suites that need the local cluster (make test-e2e, test-olm)
# and the fault suite, which takes minutes of outages (make test-faults).
# A hash of the files outside the test modules that tests build or read (test/framework/cachekey.go):
# go test's cache keys their results on it, since it does not look at files outside a test's module.
SOURCE_TREE_ID = find api cmd internal config bundle docs go.mod go.sum -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16
TEST_PACKAGES = $$(go list $(GO_PACKAGES) | grep -v -e /test/e2e -e /test/olm -e /test/faults)

.PHONY: all
all: build

##@ General

.PHONY: help
help: ## Display this help.
	@awk 'BEGIN {FS = ":.*##"; printf "\nUsage:\n  make \033[36m<target>\033[0m\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-18s\033[0m %s\n", $$1, $$2 } /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) } ' $(MAKEFILE_LIST)

##@ Development

.PHONY: manifests
manifests: controller-gen $(API_DOCS) ## Generate the CRD, RBAC role and other manifests from the kubebuilder markers, and docs/api.md and docs/api-v1alpha1.md.
	@# the operator's packages alone: its markers are all there (controller-gen does not read go.work,
	@# and would load hack/ and test/ as roots of their own)
	GOWORK=off $(CONTROLLER_GEN) rbac:roleName=manager-role crd paths="./api/...;./internal/..." output:crd:artifacts:config=config/crd/bases

.PHONY: generate
generate: controller-gen ## Generate DeepCopy methods.
	GOWORK=off $(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./api/..."

.PHONY: fmt
fmt: ## Run gofmt on every module (go fmt does not read go.work).
	gofmt -l -w api cmd internal hack test

.PHONY: vet
vet: ## Run go vet on every module.
	go vet $(GO_PACKAGES)

# go test's 10-minute limit per package ran out for api/v1alpha1 (83 s alone) on two cores that CI
# shares with the end-to-end cluster: a package that hangs still fails, later.
TEST_TIMEOUT ?= 30m

.PHONY: test
test: manifests generate fmt vet envtest-assets gateway-api-crds prometheus-operator-crds scorecard-test kustomize ## Run unit, bundle and integration (envtest) tests.
	KUBEBUILDER_ASSETS="$$($(MAKE) -s envtest-assets)" SCORECARD_TEST=$(SCORECARD_TEST) KUSTOMIZE=$(KUSTOMIZE) \
		GATEWAY_API_CRDS="$$($(MAKE) -s gateway-api-crds)" PROMETHEUS_OPERATOR_CRDS="$$($(MAKE) -s prometheus-operator-crds)" \
		SOURCE_TREE_ID="$$($(SOURCE_TREE_ID))" go test $(TEST_PACKAGES) -timeout $(TEST_TIMEOUT) -coverprofile cover.out
	@# its own module, outside go.work (docs/observability.md says why)
	cd test/promql && SOURCE_TREE_ID="$$(cd ../.. && $(SOURCE_TREE_ID))" GOWORK=off go test ./...

# 20 runs of the envtest suites in a row must pass: the proof that they do not flake.
TEST_REPEAT ?= 20
ENVTEST_SUITES := api/v1alpha1 internal/operator internal/controller internal/migration internal/webhook
.PHONY: test-repeat
test-repeat: manifests envtest-assets gateway-api-crds prometheus-operator-crds kustomize ## Run the envtest suites TEST_REPEAT (20) times in a row; stop at the first failure.
	for p in $(ENVTEST_SUITES); do go test -c -o bin/$$(basename $$p).test ./$$p; done
	@assets="$$($(MAKE) -s envtest-assets)"; crds="$$($(MAKE) -s gateway-api-crds)"; \
		monitoring="$$($(MAKE) -s prometheus-operator-crds)"; log=$$(mktemp); for i in $$(seq 1 $(TEST_REPEAT)); do \
		start=$$(date +%s); \
		for p in $(ENVTEST_SUITES); do \
			(cd $$p && KUBEBUILDER_ASSETS="$$assets" GATEWAY_API_CRDS="$$crds" PROMETHEUS_OPERATOR_CRDS="$$monitoring" KUSTOMIZE=$(KUSTOMIZE) $(CURDIR)/bin/$$(basename $$p).test >"$$log" 2>&1) || \
				{ cat "$$log"; echo "run $$i of $(TEST_REPEAT) FAILED in $$p"; exit 1; }; \
		done; \
		echo "run $$i of $(TEST_REPEAT): ok ($$(($$(date +%s) - start)) s)"; \
	done; rm -f "$$log"

.PHONY: test-faults
test-faults: envtest-assets ## Fault suite: the API server and etcd frozen, the network cut, while WebApps change (a few minutes).
	KUBEBUILDER_ASSETS="$$($(MAKE) -s envtest-assets)" go test ./test/faults -count=1 -v -timeout 20m -ginkgo.v

.PHONY: fuzz
fuzz: ## Fuzz the renderer for FUZZTIME (default 30s).
	go test ./internal/resources -run '^$$' -fuzz FuzzDeployment -fuzztime $${FUZZTIME:-30s}

.PHONY: lint
lint: golangci-lint ## Run golangci-lint on every module.
	$(GOLANGCI_LINT) run ./...
	cd hack && $(GOLANGCI_LINT) run ./...
	cd test && $(GOLANGCI_LINT) run ./...
	cd test/promql && GOWORK=off $(GOLANGCI_LINT) run ./...

.PHONY: lint-fix
lint-fix: golangci-lint ## Run golangci-lint and fix what it can.
	$(GOLANGCI_LINT) run --fix ./...
	cd hack && $(GOLANGCI_LINT) run --fix ./...
	cd test && $(GOLANGCI_LINT) run --fix ./...
	cd test/promql && GOWORK=off $(GOLANGCI_LINT) run --fix ./...

.PHONY: verify-generated
verify-generated: manifests generate api-docs kustomize ## Fail when generated files differ from what is committed.
	@git diff --exit-code -- api config $(API_DOCS) || { echo "generated files are stale: run 'make manifests generate api-docs' and commit"; exit 1; }
	KUSTOMIZE=$(KUSTOMIZE) hack/verify-deploy-configs.sh

.PHONY: verify-versions
verify-versions: ## Fail when a version is written outside hack/versions.env, or a tool's go.mod disagrees with it.
	hack/verify-versions.sh

##@ Build

.PHONY: build
build: manifests generate fmt vet ## Build the manager binary.
	go build -o bin/manager cmd/main.go

.PHONY: run
run: manifests generate fmt vet ## Run the operator from your host against the cluster in ~/.kube/config.
	go run ./cmd/main.go

.PHONY: run-local
run-local: manifests setup-envtest ## Quickstart without root: a local control plane (built from source), the operator and a sample WebApp.
	@WITH_KCM=1 hack/install-envtest-bins.sh $(ENVTEST_DIR) >/dev/null
	KUBEBUILDER_ASSETS="$$($(ENVTEST) use $(ENVTEST_K8S_VERSION) --bin-dir $(ENVTEST_DIR) -i -p path)" go run ./hack/localdev $(LOCALDEV_ARGS)

.PHONY: docker-build
docker-build: ## Build the manager image with a container engine.
	$(CONTAINER_TOOL) build -t ${IMG} .

.PHONY: docker-push
docker-push: ## Push the manager image.
	$(CONTAINER_TOOL) push ${IMG}

.PHONY: manager-binaries
manager-binaries: ## Cross-compile the static manager for each of PLATFORMS: bin/manager-<os>-<arch>.
	@for p in $(PLATFORMS); do \
		CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} go build -trimpath -buildvcs=false \
			-ldflags "-s -w -X main.version=v$(VERSION)" -o bin/manager-$${p%/*}-$${p#*/} ./cmd || exit 1; \
	done

.PHONY: image-tarball
image-tarball: manager-binaries ## Build the manager image for PLATFORMS without a daemon: bin/manager-image.tar (OCI index; reproducible digest).
	go run ./hack/mkimage manager $(addprefix -binary ,$(MANAGER_BINARIES)) -tag $(IMG) -out bin/manager-image.tar

.PHONY: image-check
image-check: ## Fail unless each image in bin/manager-image.tar runs a binary of its platform, for the CSV's architectures.
	go run ./hack/mkimage check -csv $(CSV_FILE) bin/manager-image.tar

.PHONY: build-installer
build-installer: manifests generate kustomize ## Generate dist/install.yaml with the CRDs and the deployment.
	mkdir -p dist
	cd config/manager && $(KUSTOMIZE) edit set image controller=${IMG}
	$(KUSTOMIZE) build config/default > dist/install.yaml

##@ Deployment

ifndef ignore-not-found
  ignore-not-found = false
endif

KUBECTL ?= kubectl
# What make deploy applies: config/default (Secret rollouts off), or an overlay of it such as
# config/default-secret-rollouts.
DEPLOY_CONFIG ?= config/default

.PHONY: install
install: manifests kustomize ## Install the CRDs into the cluster in ~/.kube/config.
	$(KUSTOMIZE) build config/crd | $(KUBECTL) apply --server-side -f -

.PHONY: uninstall
uninstall: manifests kustomize ## Uninstall the CRDs. Call with ignore-not-found=true to ignore missing resources.
	$(KUSTOMIZE) build config/crd | $(KUBECTL) delete --ignore-not-found=$(ignore-not-found) -f -

.PHONY: deploy
deploy: manifests kustomize ## Deploy the operator to the cluster in ~/.kube/config (DEPLOY_CONFIG=config/default-secret-rollouts: with Secret rollouts on).
	cd config/manager && $(KUSTOMIZE) edit set image controller=${IMG}
	$(KUSTOMIZE) build $(DEPLOY_CONFIG) | $(KUBECTL) apply --server-side -f -

.PHONY: undeploy
undeploy: kustomize ## Undeploy the operator (the same DEPLOY_CONFIG). Call with ignore-not-found=true to ignore missing resources.
	$(KUSTOMIZE) build $(DEPLOY_CONFIG) | $(KUBECTL) delete --ignore-not-found=$(ignore-not-found) -f -

##@ Bundle (OLM)

# createdAt of the CSV. operator-sdk stamps the current time on every run; pinning it keeps
# `make bundle` deterministic (running it twice, or in CI, changes nothing). Bump it on release.
CREATED_AT ?= 2026-12-02T00:00:00Z
BUNDLE_DIR ?= bundle
CSV_FILE := $(BUNDLE_DIR)/manifests/webapp-operator.clusterserviceversion.yaml
# Upgrade graph (docs/olm.md): REPLACES is the version this one replaces on the stable channel, and
# every version since SKIP_RANGE_FROM may upgrade straight to this one (olm.skipRange).
REPLACES ?= 0.2.0
SKIP_RANGE_FROM ?= 0.1.0
UPGRADE_EDITS :=
REPLACES_LINE := $(if $(REPLACES),\n  replaces: webapp-operator.v$(REPLACES))
ifneq ($(SKIP_RANGE_FROM),)
UPGRADE_EDITS += -e "0,/^  annotations:/s|^  annotations:|  annotations:\n    olm.skipRange: '>=$(SKIP_RANGE_FROM) <$(VERSION)'|"
endif

.PHONY: bundle
bundle: manifests kustomize operator-sdk ## Generate bundle/ (manifests, metadata, scorecard config) and bundle.Dockerfile, then validate.
	$(OPERATOR_SDK) generate kustomize manifests -q --interactive=false
	cd config/manager && $(KUSTOMIZE) edit set image controller=$(IMG)
	$(KUSTOMIZE) build config/manifests | $(OPERATOR_SDK) generate bundle $(BUNDLE_GEN_FLAGS)
	@# operator-sdk drops spec.relatedImages unless it resolves digests (network), so add it back here.
	sed -i -e 's|^    createdAt: .*|    createdAt: "$(CREATED_AT)"|' -e 's|controller:latest|$(IMG)|g' \
		-e '/^  relatedImages:/,/^    name: manager/d' \
		-e 's|^  version: \(.*\)|  relatedImages:\n  - image: $(IMG)\n    name: manager$(REPLACES_LINE)\n  version: \1|' $(UPGRADE_EDITS) $(CSV_FILE)
	@# The conversion webhook's definition is kept in the base CSV: operator-sdk derives one only from a
	@# webhook Service in its input, and would then ship that Service too, beside the one OLM makes.
	@# webhookdefinitions is the last key of both CSVs (spec's keys are sorted, and spec comes last).
	! grep -q '^  webhookdefinitions:' $(CSV_FILE)
	sed -n '/^  webhookdefinitions:/,$$p' config/manifests/bases/webapp-operator.clusterserviceversion.yaml >>$(CSV_FILE)
	sed -i -e 's|scorecard-webapp:latest|$(SCORECARD_IMG)|' -e 's|scorecard-test:OPERATOR_SDK_VERSION|scorecard-test:$(OPERATOR_SDK_VERSION)|' \
		$(BUNDLE_DIR)/tests/scorecard/config.yaml
	$(MAKE) bundle-validate

.PHONY: bundle-validate
bundle-validate: operator-sdk ## Validate bundle/ with operator-sdk, including the operatorframework suite (OperatorHub rules).
	$(OPERATOR_SDK) bundle validate ./$(BUNDLE_DIR)
	$(OPERATOR_SDK) bundle validate ./$(BUNDLE_DIR) --select-optional suite=operatorframework

.PHONY: verify-bundle
verify-bundle: bundle crd-upgrade-safety ## Fail when the committed bundle differs from what `make bundle` generates, or OLM v1 would refuse to upgrade to its CRD.
	@git diff --exit-code -- bundle bundle.Dockerfile config || { echo "bundle/ is stale: run 'make bundle' and commit"; exit 1; }

# The CRD upgrade-safety gate (docs/development.md): OLM v1 refuses an upgrade whose CRD change crdify
# does not prove safe, so a release must pass crdify, with OLM v1's settings, from the CRD users have.
CRD_RELEASED ?= hack/crdify/release-0.2.0.yaml
CRD_FILE := $(BUNDLE_DIR)/manifests/apps.webapp-operator.io_webapps.yaml

.PHONY: crd-upgrade-safety
crd-upgrade-safety: crdify ## Check the CRD upgrade from the last release to bundle/ as OLM v1 does (crdify), and the check's fixtures.
	$(CRDIFY) --config hack/crdify/config.yaml file://$(CRD_RELEASED) file://$(CRD_FILE)
	@echo "crdify: upgrading the CRD from $(CRD_RELEASED) to $(CRD_FILE) is safe for OLM v1"
	CRDIFY=$(CRDIFY) go test ./hack/crdify -count=1 -run TestUpgradeSafety

.PHONY: scorecard-local
scorecard-local: scorecard-test ## Run the six built-in scorecard tests on bundle/ without a cluster; prints a table.
	go run ./hack/scorecard-local -bundle $(BUNDLE_DIR) -scorecard-test $(SCORECARD_TEST)

# bundle-pinned: what a release ships. The committed bundle/ names the manager by tag (IMG), which
# reads well in review; the bundle image names it by digest, so what OLM runs is exactly what was built
# and tested. The digest is computed offline from bin/manager-image.tar (reproducible, so the same on
# every build of a commit), or given as IMG_DIGEST when the image was pushed from elsewhere.
PINNED_DIR ?= bin/bundle-pinned
IMG_DIGEST ?=

.PHONY: bundle-pinned
# Without IMG_DIGEST the digest is read from bin/manager-image.tar, so image-tarball is a prerequisite:
# `make image-tarball bundle-tarball` then builds the manager image once, not twice.
bundle-pinned: $(if $(IMG_DIGEST),,image-tarball) operator-sdk ## Copy bundle/ to PINNED_DIR with the manager image referenced by digest, and validate it.
	@digest=$(or $(IMG_DIGEST),$$(go run ./hack/mkimage digest bin/manager-image.tar)) && img='$(IMG)' && \
		rm -rf $(PINNED_DIR) && cp -r $(BUNDLE_DIR) $(PINNED_DIR) && \
		sed -i "s|$$img|$${img%:*}@$$digest|g" $(PINNED_DIR)/manifests/*.clusterserviceversion.yaml && \
		! grep -n "$$img" $(PINNED_DIR)/manifests/*.clusterserviceversion.yaml && \
		echo "$(PINNED_DIR): $${img%:*}@$$digest"
	$(OPERATOR_SDK) bundle validate $(abspath $(PINNED_DIR)) --select-optional suite=operatorframework

.PHONY: bundle-tarball
bundle-tarball: bundle-pinned ## Build the bundle image (manager by digest) without a daemon: bin/bundle-image.tar (OCI index; reproducible).
	go run ./hack/mkimage bundle -dir $(PINNED_DIR) -dockerfile bundle.Dockerfile -tag $(BUNDLE_IMG) \
		-platforms $(subst $(space),$(comma),$(PLATFORMS)) -out bin/bundle-image.tar

.PHONY: bundle-build
bundle-build: ## Build the bundle image with a container engine.
	$(CONTAINER_TOOL) build -f bundle.Dockerfile -t $(BUNDLE_IMG) .

.PHONY: bundle-push
bundle-push: ## Push the bundle image.
	$(MAKE) docker-push IMG=$(BUNDLE_IMG)

include hack/make/tools.mk
include hack/make/cluster.mk
include hack/make/olm.mk
include hack/make/bench.mk
include hack/make/monitoring.mk
include hack/make/docs.mk
