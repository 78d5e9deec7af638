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
# The conformance matrix: every profile that has checks (beta, alpha, fault, upgrade; read from the
# suites with --list-checks) against every scheduler. Set PROFILES to run only some of them.
PROFILES    ?=
SCHEDULERS  ?= kube-scheduler reference
# Checks side by side per run (pytest-xdist workers sharing one cluster). The checks mostly wait on
# watched state (12 to 45 s windows), so 4 run reliably on two cores; -n 0 runs them one by one.
WORKERS     ?= 4
# The project's own tests (tests/): most start clusters of their own in child runs.
TEST_WORKERS ?= 2

.PHONY: setup build conformance test fault unit mutation list-checks clean stop-all help doctor upgrade
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

conformance: build ## every profile's checks on a local v1.37.2 cluster, against both schedulers; reports/conformance.md
	@rm -rf $(REPORTS)/results $(REPORTS)/allure-results $(REPORTS)/junit-*.xml
	@status=0; \
	profiles="$(PROFILES)"; \
	if [ -z "$$profiles" ]; then \
		profiles="$$($(PY) -m pytest suites --list-checks --list-format=profiles)" || exit 2; \
	fi; \
	for profile in $$profiles; do \
		for scheduler in $(SCHEDULERS); do \
			echo "gangconf: the $$profile checks against $$scheduler (cluster profile gang-$$profile)"; \
			start=$$(date +%s); \
			rc=0; \
			$(PY) -m pytest suites --profile=gang-$$profile --only-profile=$$profile --scheduler=$$scheduler \
				--k8s-version=$(K8S_VERSION) -n $(WORKERS) \
				--junitxml=$(REPORTS)/junit-$$profile-$$scheduler.xml --alluredir=$(REPORTS)/allure-results \
				$(PYTEST_ARGS) || rc=$$?; \
			[ $$rc -eq 0 ] || [ $$rc -eq 5 ] || status=1; \
			echo "gangconf: the $$profile checks against $$scheduler took $$(( $$(date +%s) - start )) s"; \
		done; \
	done; \
	$(PY) -m fixtures.report merge --reports-dir=$(REPORTS) || status=1; \
	exit $$status

test: build ## the project's tests (tests/), the conformance matrix, then the mutation check; fails if anything failed
	@status=0; start=$$(date +%s); \
	$(PY) -m pytest tests --ignore=tests/test_mutation.py --k8s-version=$(K8S_VERSION) -n $(TEST_WORKERS) --dist loadgroup \
		--junitxml=$(REPORTS)/junit-tests.xml $(PYTEST_ARGS) || status=1; \
	echo "gangconf: tests/ took $$(( $$(date +%s) - start )) s"; \
	$(MAKE) --no-print-directory conformance || status=1; \
	echo "gangconf: tests/ and the conformance matrix took $$(( $$(date +%s) - start )) s"; \
	$(MAKE) --no-print-directory mutation || status=1; \
	echo "gangconf: make test took $$(( $$(date +%s) - start )) s"; \
	exit $$status

mutation: build ## the mutation check (slow, minutes): every deliberately broken reference scheduler must fail a check
	$(PY) -m pytest tests/test_mutation.py -rfE --junitxml=$(REPORTS)/junit-mutation.xml

fault: build ## the fault profile's checks (the Permit barrier and its 5-minute timeout) on both schedulers
	$(PY) -m pytest suites/test_permit.py --profile=gang-fault --k8s-version=$(K8S_VERSION) \
		--junitxml=$(REPORTS)/junit-fault.xml $(PYTEST_ARGS)
	$(PY) -m pytest suites/test_permit.py --profile=gang-fault --scheduler=reference --k8s-version=$(K8S_VERSION) \
		--junitxml=$(REPORTS)/junit-fault-reference.xml $(PYTEST_ARGS)

upgrade: setup ## the upgrade checks, v1.36.3 to v1.37.2 on live etcd (builds v1.36.3 on first use)
	$(PY) -m pytest suites/test_upgrade.py --profile=upgrade --junitxml=$(REPORTS)/junit-upgrade.xml $(PYTEST_ARGS)

unit: setup ## only the tests that need no cluster
	$(PY) -m pytest tests/test_profiles.py tests/test_observe.py tests/test_builders.py tests/test_faults.py \
		tests/test_mutants.py tests/test_report.py tests/test_catalogue.py tests/reference $(PYTEST_ARGS)

list-checks: setup ## every behaviour of the catalogue with the tests that check it (nothing is started)
	@$(PY) -m pytest suites --list-checks -q $(PYTEST_ARGS)

doctor: setup ## checklist of a cluster's gang-scheduling readiness: DOCTOR_ARGS="--kubeconfig PATH [--context NAME]" (default: a local PROFILE cluster)
	$(PY) -m fixtures.doctor --profile=$(PROFILE) --k8s-version=$(K8S_VERSION) $(DOCTOR_ARGS)

stop-all: setup ## stop local clusters kept by --keep-on-failure or left by a killed run
	$(PY) -m fixtures.providers.local stop-all

clean: ## remove reports and the virtualenv (the binary cache stays; it is ~/.cache/gangconf)
	rm -rf $(REPORTS)/runs $(REPORTS)/results $(REPORTS)/*.xml $(REPORTS)/conformance.json $(REPORTS)/conformance.md \
		$(REPORTS)/allure-results $(VENV)
