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
# A scheduler fork's checkout (a v1.37.x kubernetes tree): the matrix then runs its kube-scheduler,
# built from that tree (FORK_COMPONENTS=all: every control-plane component from it), and by default
# only against it; SCHEDULERS="kube-scheduler reference" adds the reference column.
SCHEDULER_SOURCE ?=
FORK_COMPONENTS  ?= kube-scheduler
FORK_ARGS   := $(if $(SCHEDULER_SOURCE),--scheduler-source=$(abspath $(SCHEDULER_SOURCE)) --fork-components=$(FORK_COMPONENTS))
SCHEDULERS  ?= $(if $(SCHEDULER_SOURCE),kube-scheduler,kube-scheduler reference)
# Checks side by side per run (pytest-xdist workers sharing one cluster). The checks mostly wait on
# watched state (12 to 45 s windows), so 4 run reliably on two cores; -n 0 runs them one by one.
WORKERS     ?= 4
# Rows of the matrix run side by side, this many at a time (each holds a cluster: about 1 GiB).
MATRIX_JOBS ?= 4
# make coverage: the profiles whose checks run against the coverage-instrumented kube-scheduler.
COVER_PROFILES ?= beta alpha fault
COVERDIR    := $(REPORTS)/coverage/counters
# The project's own tests (tests/): most start clusters of their own in child runs, which mostly
# wait on watched state, so 4 run side by side on two cores.
TEST_WORKERS ?= 4
# make cluster: its fake nodes (GPUs are nvidia.com/gpu per node) and scheduler (kube-scheduler or reference).
NODES       ?= 4
GPUS        ?= 0
SCHEDULER   ?= kube-scheduler
# make kubectl: kubectl's arguments, and which kept cluster when several run.
ARGS        ?=
CLUSTER     ?=
# make report: Allure Report 3 from npm, pinned (fixtures/allure_report.py names the same release),
# installed into .tools/ of this checkout, never globally.
ALLURE_VERSION := 3.18.0
ALLURE_DIR  := .tools/allure-$(ALLURE_VERSION)
ALLURE      := $(ALLURE_DIR)/node_modules/.bin/allure

.PHONY: setup build conformance test fault unit mutation list-checks clean stop-all help doctor upgrade coverage cluster kubectl report bundle
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

build: setup ## build (or reuse) the control plane, etcd and kwok for K8S_VERSION (and the fork at SCHEDULER_SOURCE)
	$(PY) -m fixtures.providers.local.binaries build --version $(K8S_VERSION) $(FORK_ARGS)

conformance: build ## every profile's checks on a local v1.37.2 cluster, against both schedulers, the rows side by side (SCHEDULER_SOURCE=PATH: a fork's); reports/conformance.md
	@$(PY) -m fixtures.report set-aside --reports-dir=$(REPORTS)
	@profiles="$(PROFILES)"; \
	if [ -z "$$profiles" ]; then \
		profiles="$$($(PY) -m pytest suites --list-checks --list-format=profiles)" || exit 2; \
	fi; \
	exec $(PY) -m fixtures.matrix --profiles="$$profiles" --schedulers="$(SCHEDULERS)" --reports-dir=$(REPORTS) \
		--workers=$(WORKERS) --jobs=$(MATRIX_JOBS) $(if $(strip $(PYTEST_ARGS)),--include-partial) \
		-- --k8s-version=$(K8S_VERSION) $(FORK_ARGS) $(PYTEST_ARGS)

test: build $(ALLURE) ## the project's tests (tests/), the conformance matrix with its report and bundle, then the mutation check; fails if anything failed
	@status=0; start=$$(date +%s); \
	$(PY) -m pytest tests --ignore=tests/test_mutation.py --k8s-version=$(K8S_VERSION) -n $(TEST_WORKERS) --dist loadgroup \
		--junitxml=$(REPORTS)/junit-tests.xml $(PYTEST_ARGS) || status=1; \
	echo "gangconf: tests/ took $$(( $$(date +%s) - start )) s"; \
	$(MAKE) --no-print-directory conformance || status=1; \
	$(MAKE) --no-print-directory bundle || status=1; \
	echo "gangconf: tests/ and the conformance matrix with its report and bundle took $$(( $$(date +%s) - start )) s"; \
	$(MAKE) --no-print-directory mutation || status=1; \
	echo "gangconf: make test took $$(( $$(date +%s) - start )) s"; \
	exit $$status

coverage: build ## statement coverage of kube-scheduler's gang code by the beta, alpha and fault checks; reports/coverage.md
	$(PY) -m fixtures.providers.local.binaries build --cover --version $(K8S_VERSION) >/dev/null
	@rm -rf $(COVERDIR); status=0; start=$$(date +%s); \
	for profile in $(COVER_PROFILES); do \
		echo "gangconf: the $$profile checks against the coverage build of kube-scheduler"; \
		rc=0; \
		GANGCONF_COVERDIR=$(abspath $(COVERDIR)) $(PY) -m pytest suites --profile=gang-$$profile --only-profile=$$profile \
			--scheduler=kube-scheduler --k8s-version=$(K8S_VERSION) -n $(WORKERS) --reports-dir=$(REPORTS)/coverage \
			--junitxml=$(REPORTS)/coverage/junit-$$profile.xml $(PYTEST_ARGS) || rc=$$?; \
		[ $$rc -eq 0 ] || [ $$rc -eq 5 ] || status=1; \
	done; \
	echo "gangconf: the coverage checks took $$(( $$(date +%s) - start )) s"; \
	$(PY) -m fixtures.gocover report --coverdir=$(COVERDIR) --out=$(REPORTS)/coverage.md --version=$(K8S_VERSION) || status=1; \
	exit $$status

$(ALLURE):
	@if command -v npm >/dev/null 2>&1; then \
		echo "gangconf: installing Allure Report $(ALLURE_VERSION) from npm into $(ALLURE_DIR)/"; \
		npm install --prefix $(ALLURE_DIR) --no-save --no-audit --no-fund --loglevel=error allure@$(ALLURE_VERSION) >/dev/null \
			|| echo "gangconf: npm could not install allure@$(ALLURE_VERSION): make report writes conformance.html only"; \
	fi

report: setup $(ALLURE) ## reports/html/: the Allure Report (needs Node.js) and conformance.html of the merged report
	@$(PY) -m fixtures.report html --reports-dir=$(REPORTS) --allure=$(ALLURE)

bundle: report ## reports/gangconf-results-<server version>-<date>.tar.gz: the report, results, JUnit, logs, environment, SHA256SUMS; verified
	@$(PY) -m fixtures.report bundle --reports-dir=$(REPORTS)

mutation: build ## the mutation check (slow, minutes): every deliberately broken reference scheduler must fail a check
	$(PY) -m pytest tests/test_mutation.py -rfE --junitxml=$(REPORTS)/junit-mutation.xml

fault: build ## the fault profile's checks (the Permit barrier and its 5-minute timeout) on both schedulers
	$(PY) -m pytest suites/test_permit.py --profile=gang-fault --k8s-version=$(K8S_VERSION) $(FORK_ARGS) \
		--junitxml=$(REPORTS)/junit-fault.xml $(PYTEST_ARGS)
	$(PY) -m pytest suites/test_permit.py --profile=gang-fault --scheduler=reference --k8s-version=$(K8S_VERSION) \
		--junitxml=$(REPORTS)/junit-fault-reference.xml $(PYTEST_ARGS)

upgrade: setup ## the upgrade checks, v1.36.3 to v1.37.2 on live etcd (builds v1.36.3 on first use)
	$(PY) -m pytest suites/test_upgrade.py --profile=upgrade --junitxml=$(REPORTS)/junit-upgrade.xml $(FORK_ARGS) $(PYTEST_ARGS)

unit: setup ## only the tests that need no cluster
	$(PY) -m pytest tests/test_profiles.py tests/test_observe.py tests/test_allornothing.py tests/test_schedconfig.py \
		tests/test_builders.py tests/test_faults.py tests/test_refusals.py \
		tests/test_mutants.py tests/test_report.py tests/test_deviations.py tests/test_results.py tests/test_runs.py tests/test_catalogue.py \
		tests/test_upstream_map.py tests/test_forks.py tests/test_timeline_svg.py tests/test_html_report.py \
		tests/test_bundle.py tests/test_progress.py tests/test_wheel.py tests/test_retry.py tests/test_pools.py \
		tests/test_kube.py tests/test_providers.py tests/test_layers.py tests/test_hookspecs.py tests/reference $(PYTEST_ARGS)

list-checks: setup ## every behaviour of the catalogue with the tests that check it (nothing is started)
	@$(PY) -m pytest suites --list-checks -q $(PYTEST_ARGS)

doctor: setup ## checklist of a cluster's gang-scheduling readiness: DOCTOR_ARGS="--kubeconfig PATH [--context NAME]" (default: a local PROFILE cluster)
	$(PY) -m fixtures.doctor --profile=$(PROFILE) --k8s-version=$(K8S_VERSION) $(DOCTOR_ARGS)

cluster: setup ## start a local PROFILE cluster to poke at and leave it running (NODES=4 GPUS=0; SCHEDULER=reference adds the reference scheduler); prints how to use it
	@$(PY) -m fixtures.providers.local up --profile=$(PROFILE) --k8s-version=$(K8S_VERSION) --scheduler=$(SCHEDULER) \
		--nodes=$(NODES) --gpus=$(GPUS) --reports-dir=$(REPORTS)

kubectl: setup ## kubectl against the running local cluster: ARGS="get pods,podgroups -A" (CLUSTER=NAME when several run)
	@$(PY) -m fixtures.providers.local kubectl $(if $(CLUSTER),--name=$(CLUSTER)) -- $(ARGS)

stop-all: setup ## stop every local cluster left running: make cluster's, those kept by --keep or --keep-on-failure, a killed run's
	$(PY) -m fixtures.providers.local stop-all

clean: ## remove reports (earlier ones too) and the virtualenv (the binary cache stays; it is ~/.cache/gangconf)
	rm -rf $(REPORTS)/runs $(REPORTS)/results $(REPORTS)/earlier $(REPORTS)/*.xml $(REPORTS)/conformance.json \
		$(REPORTS)/conformance.md $(REPORTS)/allure-results $(REPORTS)/coverage $(REPORTS)/coverage.* $(REPORTS)/html \
		$(REPORTS)/screenshots $(REPORTS)/gangconf-results-*.tar.gz $(VENV)
