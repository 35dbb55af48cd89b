# The scale benchmark (hack/bench: how the operator scales, on a loopback cluster with kwok;
# docs/performance.md). Included by the Makefile.

# Comma-separated values; every combination of N, concurrency and QPS is one run (burst = 2 x QPS).
BENCH_N ?= 100,1000
BENCH_CONCURRENCY ?= 8
BENCH_QPS ?= 100
# > 0: rerun the largest N with this many unrelated Deployments and as many Services in the cluster.
BENCH_UNRELATED ?= 0
BENCH_STEADY ?= 2m
# The optional children of the WebApps, one run each (hack/bench/features.go): base, all, or some of
# pdb, hpa, networkpolicy, ingress, httproute joined by +; e.g. base,pdb,hpa,networkpolicy,ingress,httproute.
BENCH_FEATURES ?= base
BENCH_REPLICAS ?= 1
BENCH_ARGS ?=

##@ Benchmark (hack/make/bench.mk)

.PHONY: bench
bench: ## Scale benchmark: builds the control plane, kwok and the manager if needed, runs BENCH_N, prints tables.
	@WITH_SCHED=1 hack/install-envtest-bins.sh $(ENVTEST_DIR) >/dev/null
	@hack/install-kwok.sh >/dev/null
	go build -o bin/manager cmd/main.go
	go build -o bin/bench ./hack/bench
	bin/bench -n $(BENCH_N) -concurrency $(BENCH_CONCURRENCY) -qps $(BENCH_QPS) -unrelated $(BENCH_UNRELATED) \
		-features $(BENCH_FEATURES) -replicas $(BENCH_REPLICAS) -gateway-crds "$$(hack/install-crds.sh gateway-api)" \
		-steady $(BENCH_STEADY) -assets $(ENVTEST_DIR)/k8s/$(ENVTEST_K8S_VERSION)-$$(go env GOOS)-$$(go env GOARCH) \
		-kwok $(CACHE_DIR)/kwok/$(KWOK_VERSION)/kwok -k8s-version $(K8S_VERSION) -etcd-version $(ETCD_VERSION) \
		-kwok-version $(KWOK_VERSION) -commit "$$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" $(BENCH_ARGS)

.PHONY: bench-smoke
bench-smoke: ## The benchmark at N=100 with a 20 s steady state, to keep the harness working (about 1.5 min).
	$(MAKE) bench BENCH_N=100 BENCH_CONCURRENCY=8 BENCH_QPS=100 BENCH_UNRELATED=0 BENCH_STEADY=20s

.PHONY: bench-features
bench-features: ## The extra cost per WebApp of each optional child: N=200, 2 replicas, one run per child (about 20 min).
	$(MAKE) bench BENCH_N=200 BENCH_CONCURRENCY=8 BENCH_QPS=100 BENCH_UNRELATED=0 BENCH_STEADY=20s BENCH_REPLICAS=2 \
		BENCH_FEATURES=base,pdb,hpa,networkpolicy,ingress,httproute,all BENCH_ARGS="-ceiling=false -floor=false"
