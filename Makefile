# gangconf: the two commands anyone needs are `make conformance` and `make test`.
# Both set up what they need on first use: a virtualenv in .venv with the project installed,
# and the control-plane binaries (built from Go modules, cached under ~/.cache/gangconf).

PYTHON      ?= $(shell command -v python3.11 || command -v python3)
VENV        := .venv
PY          := $(VENV)/bin/python
K8S_VERSION ?= v1.37.2
PROFILE     ?= gang-beta
PYTEST_ARGS ?=
DOCTOR_ARGS ?=
REPORTS     := reports

.PHONY: setup build conformance test fault unit mutation clean stop-all help doctor upgrade
.DEFAULT_GOAL := help

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

$(VENV)/.installed: pyproject.toml
	@test -n "$(PYTHON)" || { echo "gangconf: no python3 on PATH: install Python >= 3.11"; exit 2; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	@touch $@

setup: $(VENV)/.installed ## create .venv and install gangconf with its dependencies

build: setup ## build (or reuse) the control plane, etcd and kwok for K8S_VERSION
	$(PY) -m fixtures.binaries build --version $(K8S_VERSION)

conformance: build ## the conformance run on a local v1.37.2 cluster; results in reports/
	$(PY) -m pytest suites --profile=$(PROFILE) --k8s-version=$(K8S_VERSION) \
		--junitxml=$(REPORTS)/junit.xml --alluredir=$(REPORTS)/allure-results --clean-alluredir $(PYTEST_ARGS)

test: build ## the project's tests, the suites against kube-scheduler and the reference scheduler, then the mutation check
	$(PY) -m pytest tests suites --ignore=tests/test_mutation.py --k8s-version=$(K8S_VERSION) \
		--junitxml=$(REPORTS)/junit-test.xml $(PYTEST_ARGS)
	$(PY) -m pytest suites --scheduler=reference --k8s-version=$(K8S_VERSION) \
		--junitxml=$(REPORTS)/junit-reference.xml $(PYTEST_ARGS)
	$(MAKE) --no-print-directory mutation

mutation: build ## the mutation check (slow, minutes): every deliberately broken reference scheduler must fail a check
	$(PY) -m pytest tests/test_mutation.py -rxX --junitxml=$(REPORTS)/junit-mutation.xml

fault: build ## the fault profile's checks (the Permit barrier and its 5-minute timeout) on both schedulers
	$(PY) -m pytest suites/test_permit.py --profile=gang-fault --k8s-version=$(K8S_VERSION) \
		--junitxml=$(REPORTS)/junit-fault.xml $(PYTEST_ARGS)
	$(PY) -m pytest suites/test_permit.py --profile=gang-fault --scheduler=reference --k8s-version=$(K8S_VERSION) \
		--junitxml=$(REPORTS)/junit-fault-reference.xml $(PYTEST_ARGS)

upgrade: setup ## the upgrade checks, v1.36.3 to v1.37.2 on live etcd (builds v1.36.3 on first use)
	$(PY) -m pytest suites/test_upgrade.py --profile=upgrade --junitxml=$(REPORTS)/junit-upgrade.xml $(PYTEST_ARGS)

unit: setup ## only the tests that need no cluster
	$(PY) -m pytest tests/test_profiles.py tests/test_observe.py tests/test_builders.py tests/test_faults.py tests/test_mutants.py tests/reference $(PYTEST_ARGS)

doctor: setup ## checklist of a cluster's gang-scheduling readiness: DOCTOR_ARGS="--kubeconfig PATH [--context NAME]" (default: a local PROFILE cluster)
	$(PY) -m fixtures.doctor --profile=$(PROFILE) --k8s-version=$(K8S_VERSION) $(DOCTOR_ARGS)

stop-all: setup ## stop local clusters kept by --keep-on-failure or left by a killed run
	$(PY) -m fixtures.providers.local stop-all

clean: ## remove reports and the virtualenv (the binary cache stays; it is ~/.cache/gangconf)
	rm -rf $(REPORTS)/runs $(REPORTS)/*.xml $(REPORTS)/conformance*.json $(REPORTS)/summary*.md \
		$(REPORTS)/allure-results $(VENV)
