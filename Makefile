# The README's two commands: `make run` (the main job) and `make test` (the whole suite).
VENV ?= .venv
PY := $(VENV)/bin/python
PYTEST_ARGS ?=

.PHONY: setup run test lint typecheck protos protos-check k8s-bins e2e-deps chart bench clean

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

setup: $(VENV)/.installed

run: setup
	$(VENV)/bin/tfcluster train

lint: setup
	$(VENV)/bin/ruff check server operator tests tools bench
	$(VENV)/bin/ruff format --check server operator tests tools bench

typecheck: setup
	$(VENV)/bin/mypy

protos:
	$(PY) tools/gen_protos.py

protos-check: setup
	$(PY) tools/gen_protos.py --check

k8s-bins:
	bash tests/support/k8s_control_plane/build.sh >/dev/null
	bash tests/support/helmbin/build.sh >/dev/null || echo "[helm] not built: the helm lint/template tests will skip"

# The e2e cluster (tests/e2e) needs iptables for kube-proxy (ip, nsenter: iproute2 and
# util-linux are on the machine). Installed with apt-get when missing and run as root.
e2e-deps:
	@{ command -v iptables && command -v ipset; } >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
		&& apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iptables ipset >/dev/null; } \
		|| echo "[e2e] iptables/ipset not installed: the e2e tests will skip, saying why (or fail under TFCLUSTER_E2E_REQUIRE=1)"

test: setup lint typecheck protos-check k8s-bins e2e-deps
	TFCLUSTER_K8S_REQUIRE=1 $(PY) -m pytest -q -p no:cacheprovider $(PYTEST_ARGS)

# The operator's chart, its version stamped from operator/tfcluster_operator/version.py
# (`python tools/build_chart.py --stamp X.Y.Z` first to release another), into dist/.
chart: setup
	$(PY) tools/build_chart.py

bench: setup
	bash bench/run.sh

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
