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
# The upgrades are probed through the gateway too (test/olm): gateway-install, with the Gateway API's
# CRDs, comes before the suite, whose OLM installs start the operator, which looks for that API only
# when it starts. CI runs test-olm before test-e2e, which installs the gateway as well.
test-olm: gateway-install olm-install ## OLM end to end: run bundle and Subscription upgrades 0.2.0->0.3.0 (probed through the Service and the gateway; storage migrated to v1beta1), namespace-scoped installs kept at 0.2.0, scorecard, AllNamespaces (`make cluster-up` first).
	@# an operator deployed with `make deploy` (test-e2e) would fight the one OLM installs; the overlay
	@# with Secret rollouts is the superset of what either deploy applies
	$(MAKE) -s undeploy DEPLOY_CONFIG=config/default-secret-rollouts ignore-not-found=true KUBECONFIG=$(LOCAL_KUBECONFIG) KUBECTL=$(LOCAL_KUBECTL) >/dev/null 2>&1 || true
	$(OLM_SH) test

##@ OLM v1 on the local cluster (hack/olmv1.sh; docs/olm.md)

OLMV1_SH := KUBECONFIG=$(LOCAL_KUBECONFIG) KUBECTL=$(LOCAL_KUBECTL) hack/olmv1.sh

.PHONY: olmv1-install
olmv1-install: ## Install OLM v1 (operator-controller, catalogd; built from source, cached) on the local cluster and wait until it is healthy.
	$(OLMV1_SH) images
	$(OLMV1_SH) install

.PHONY: olmv1-uninstall
olmv1-uninstall: ## Remove OLM v1 from the local cluster.
	$(OLMV1_SH) uninstall

.PHONY: test-olmv1
test-olmv1: olm-images olmv1-install ## OLM v1 end to end: ClusterCatalog, ClusterExtension 0.2.0, upgrade to 0.3.0 (needs a webhook certificate provider), watchNamespace refused, uninstall (`make cluster-up` first).
	$(MAKE) -s undeploy DEPLOY_CONFIG=config/default-secret-rollouts ignore-not-found=true KUBECONFIG=$(LOCAL_KUBECONFIG) KUBECTL=$(LOCAL_KUBECTL) >/dev/null 2>&1 || true
	$(OLMV1_SH) test
