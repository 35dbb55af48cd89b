# The operator's monitoring: alert rules and their unit tests (config/prometheus), the dashboard
# (config/grafana). Included by the Makefile.
#
# promtool comes from Debian's prometheus package, at the version hack/versions.env pins. The package is
# downloaded with apt and promtool alone is extracted into bin/: installing the package would also
# install (and, on a host with systemd, start) a Prometheus server. It is fetched once per version.

PROMTOOL_DIR := $(LOCALBIN)/promtool-$(PROMETHEUS_DEB_VERSION)
PROMTOOL ?= $(PROMTOOL_DIR)/promtool
# The Prometheus server of the same package, for the end-to-end suite's monitoring spec.
PROMETHEUS ?= $(PROMTOOL_DIR)/prometheus
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

##@ Monitoring (hack/make/monitoring.mk)

.PHONY: promtool prometheus
promtool: $(PROMTOOL) ## Extract promtool (and the prometheus server) from Debian's prometheus package (PROMETHEUS_DEB_VERSION) into bin/.
prometheus: $(PROMTOOL) ## The same: the server is extracted with promtool.

$(PROMTOOL): | $(LOCALBIN)
	@echo "fetching promtool and prometheus from Debian's prometheus $(PROMETHEUS_DEB_VERSION)"
	@rm -rf $(PROMTOOL_DIR) && mkdir -p $(PROMTOOL_DIR) && cd $(PROMTOOL_DIR) && \
		{ apt-get download -qq prometheus=$(PROMETHEUS_DEB_VERSION) 2>/dev/null || \
		  { $(SUDO) apt-get update -qq && apt-get download -qq prometheus=$(PROMETHEUS_DEB_VERSION); }; } && \
		dpkg-deb --fsys-tarfile prometheus_*.deb | tar -x --strip-components=3 ./usr/bin/promtool ./usr/bin/prometheus && \
		rm prometheus_*.deb && ./promtool --version >/dev/null && ./prometheus --version >/dev/null

# promtool reads plain rule files: the groups of the PrometheusRule, its spec de-indented, go to
# bin/alerts/rules.yaml, next to copies of the tests (which name their rule file relative to themselves).
ALERTS_DIR := $(LOCALBIN)/alerts

.PHONY: test-alerts
test-alerts: promtool ## Check the alert rules and run their unit tests with promtool (config/prometheus).
	@rm -rf $(ALERTS_DIR) && mkdir -p $(ALERTS_DIR) && cp config/prometheus/tests/*.yaml $(ALERTS_DIR)/
	sed -n '/^spec:/,$$p' config/prometheus/alerts.yaml | tail -n +2 | sed 's/^  //' >$(ALERTS_DIR)/rules.yaml
	$(PROMTOOL) check rules $(ALERTS_DIR)/rules.yaml
	cd $(ALERTS_DIR) && $(PROMTOOL) test rules $(notdir $(wildcard config/prometheus/tests/*.yaml))
