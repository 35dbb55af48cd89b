# OLM on the local cluster (hack/olm.sh; docs/olm.md). Included by the Makefile.

OLM_SH := KUBECONFIG=$(LOCAL_KUBECONFIG) KUBECTL=$(LOCAL_KUBECTL) hack/olm.sh
# catalog-build: the catalog image and the bundle versions it lists on channel stable, oldest first
CATALOG_IMG ?= $(IMAGE_TAG_BASE)-catalog:v$(VERSION)
CATALOG_VERSIONS ?= $(VERSION)

##@ OLM on the local cluster (hack/make/olm.mk)

.PHONY: olm-images
olm-images: operator-sdk scorecard-test ## Build OLM, opm, busybox, scorecard, operator and bundle images (cached) and push them to the local registry.
	$(OLM_SH) images

.PHONY: olm-install
olm-install: olm-images ## Install OLM v0 on the local cluster (hack/olm/manifests, local images) and wait until it is healthy.
	$(OLM_SH) install

.PHONY: olm-uninstall
olm-uninstall: ## Remove OLM from the local cluster.
	$(OLM_SH) uninstall

.PHONY: catalog-build
catalog-build: ## Build and push a file-based catalog CATALOG_IMG of bundles CATALOG_VERSIONS (BUNDLE_IMG_BASE:v<version>) with opm.
	BUNDLE_IMG_BASE=$(or $(BUNDLE_IMG_BASE),$(IMAGE_TAG_BASE)-bundle) $(OLM_SH) catalog-build $(CATALOG_IMG) $(CATALOG_VERSIONS)

.PHONY: test-olm
test-olm: olm-install ## OLM end to end: run bundle, Subscription, upgrades 0.1.0->0.2.0, scorecard in the cluster, the four install modes (`make cluster-up` first).
	@# an operator deployed with `make deploy` (test-e2e) would fight the one OLM installs
	$(MAKE) -s undeploy ignore-not-found=true KUBECONFIG=$(LOCAL_KUBECONFIG) KUBECTL=$(LOCAL_KUBECTL) >/dev/null 2>&1 || true
	$(OLM_SH) test
