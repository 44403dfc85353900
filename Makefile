# Training Systems: `make demo` and `make test` do everything on a fresh machine.
PY      := .venv/bin/python
STAMP   := .venv/.installed
A       ?= minigrad
SUB     ?= examples/complete.zip
OUT     ?= out
# pytest workers for `make test`: three per core, at most 8, and at most one per 2 GiB of
# available memory (6 workers peaked at 13 GiB in use). Much of the suite's time waits on
# purpose (deadlines of stuck ranks, hung children and kernels, rendezvous timeouts, container
# starts), so the cores idle at fewer: on 2 cores a fresh clone's suite took 16 min 44 s with 4
# workers and 13 min 25 s with 6 (the CPU busy 1.2 cores of 2 on average)
JOBS    ?= $(shell n=$$(( $$(nproc 2>/dev/null || echo 2) * 3 )); \
	m=$$(awk '/MemAvailable/ {print int($$2 / 2097152)}' /proc/meminfo 2>/dev/null || echo 8); \
	[ $$n -gt 8 ] && n=8; [ $$n -gt $$m ] && n=$$m; [ $$n -lt 2 ] && n=2; echo $$n)
DEMO_JOBS ?= 4
ONLY    ?=          # goldens/selftest: limit to these assignments (default: all)

.PHONY: setup setup-instructor demo test test-fast check progress submit grade goldens selftest bench lint clean docker-cpu docker-gpu docker-serve starter release nbgrader

# setup: the project with its dev tools (.[dev]): enough for check, demo, grade, goldens, lint.
# setup-instructor adds the instructor extra (docker, dask, nbgrader) that `make test`, the
# bench, the nbgrader course and the docker images need. .ci/setup.sh installs with uv (pip as
# the fallback; SETUP_INSTALLER=pip forces pip) and compiles no bytecode; a second run is
# instant (the stamp files).
ISTAMP  := .venv/.installed-instructor
BSTAMP  := .venv/.bytecode

setup: $(STAMP) $(BSTAMP)

$(STAMP): pyproject.toml .ci/setup.sh
	@SETUP_BYTECODE=0 bash .ci/setup.sh dev
	@bash .ci/system-packages.sh
	@touch $(STAMP)

# the .pyc files the sandboxed children read (they run -B): again whenever the script changes,
# so a venv set up before a fix to it gets them too
$(BSTAMP): $(STAMP) .ci/warm_bytecode.py
	@bash .ci/setup.sh --bytecode
	@touch $(BSTAMP)

setup-instructor: $(ISTAMP) $(BSTAMP)

# the instructor extra, then the bytecode: the children's on two cores (about 10 s), the
# instructor processes' and the suite's on another (5 s, then 7 s). The suite's: each `make test`
# worker collects every test file, and where PYTHONDONTWRITEBYTECODE is set (CI, containers)
# each one rewrote and compiled them all, and what they import, from source (6.3 CPU s where a
# collection that reads the bytecode takes 4.7); a collection with writing allowed leaves it
SUITE_BYTECODE = echo "setup: writing the test suite's bytecode..."; \
	env -u PYTHONDONTWRITEBYTECODE -u PYTHONPYCACHEPREFIX $(PY) -m pytest -q \
	--collect-only -p no:cacheprovider tests/selftest tests/repro/gpu >/dev/null 2>&1 || true
$(ISTAMP): $(STAMP) .ci/warm_bytecode.py
	@SETUP_BYTECODE=0 bash .ci/setup.sh dev,instructor
	@bash .ci/setup.sh --bytecode & { bash .ci/setup.sh --bytecode --instructor; \
	$(SUITE_BYTECODE); }; wait
	@touch $(BSTAMP) $(ISTAMP)

# grades the four bundled example zips in parallel (DEMO_JOBS at once: all four, since much of
# their wall time is ddp's rendezvous timeouts, which leave the cores idle; two assignments of
# each at once); a summary table at the end, each example's full report in out/demo/<example>/
demo: setup
	$(PY) -m autograder demo --jobs $(DEMO_JOBS)

# the workers take the tests grouped by the zygote they fork from (tests/selftest/conftest.py,
# zygote_group: one group per assignment and kernels), so each worker starts each zygote once
test: setup-instructor
	$(PY) docker/build.py cpu --if-podman
	$(PY) -m pytest -n $(JOBS) --dist loadgroup --no-loadscope-reorder -q --durations=15 tests/selftest tests/repro/gpu

# The fast tier (pytest -m fast; tests/selftest/conftest.py's FAST table): engine, sandbox core,
# the minigrad course's solution, starter and mutants. `make test` stays what CI runs.
test-fast: setup-instructor
	$(PY) -m pytest -n $(JOBS) -q -m fast tests/selftest

# The report ends the output: `make check` exits 0 once it is printed, failing tests or not (a
# failing test is the report's news; make would add its own "make: *** ... Error 1" line after
# it), and 2 when the check cannot run. Scripts call the CLI: it exits 1 while a test fails.
# Without A= on the command line (or in the environment), check picks the assignment whose
# package was saved last and says which.
CHECK_CMD = $(PY) -m autograder check $(if $(filter file,$(origin A)),,$(A)) $(if $(IMPL),--impl $(IMPL)) $(if $(TASK),--task $(TASK)) $(if $(WATCH),--watch)
check: setup
	@echo "$(CHECK_CMD)"
	@$(CHECK_CMD); status=$$?; [ $$status -le 1 ] || exit $$status

# every assignment's public score in one table, with each handout's time estimate (IMPL as check)
progress: setup
	@$(PY) -m autograder check --all $(if $(IMPL),--impl $(IMPL)); status=$$?; [ $$status -le 1 ] || exit $$status

# the zip to upload for assignment A: the package in IMPL (default: starter/) checked by the
# grader's intake rules, written to out/<A>-submission.zip (the command prints where)
submit: setup
	$(PY) -m autograder submit $(A) $(if $(IMPL),--impl $(IMPL))

grade: setup
	$(PY) -m autograder grade $(SUB) $(if $(ASSIGNMENT),--assignment $(ASSIGNMENT)) --out $(OUT)

goldens: setup
	$(PY) -m autograder goldens $(ONLY)

starter: setup
	$(PY) -m autograder starter $(ONLY)

selftest: setup
	$(PY) -m autograder selftest $(ONLY)

# mutation testing of solutions/ (cosmic-ray mutants, graded by the engine); adds the verdicts to
# the sample accumulated in tests/mutation_report.md (SEED=1, 2, ... draws new mutants) and its
# README table. SAMPLE=all grades every mutant (hours); make test runs a smaller sample.
SAMPLE ?= 40
.PHONY: mutation
mutation: setup
	$(PY) -m autograder mutation $(ONLY) $(if $(filter all,$(SAMPLE)),,--sample $(SAMPLE)) $(if $(SEED),--seed $(SEED))

bench: setup-instructor   # 40-70 min on 2 shared cores: every bench/bench_*.py's rows() -> bench/results.{json,md}
	$(PY) bench/run_all.py

.PHONY: gradescope
gradescope: setup   # Gradescope autograder zip for assignment A: $(OUT)/autograder-$(A).zip
	$(PY) -m autograder gradescope $(A) --out $(OUT)/autograder-$(A).zip

release: setup
	$(PY) -m autograder release $(OUT)/release

nbgrader: setup-instructor   # an nbgrader course (lab notebooks + nbgrader_config.py) in $(OUT)/nbgrader
	$(PY) -m autograder nbgrader $(OUT)/nbgrader $(ONLY)

# The GPU check (bench/gpu_check.py): run on the GPU machine with its own python3 and torch
# (GPU_PYTHON); without CUDA every GPU part is skipped with the reason (make test runs it so).
# Writes gpu_check.json and gpu_check.log to $$OUT when the environment sets it (the GPU
# machine does), else to out/gpu-check.
GPU_PYTHON ?= python3
.PHONY: gpu-check gpu-wheels
gpu-check:
	OUT="$${OUT:-$(CURDIR)/out/gpu-check}" $(GPU_PYTHON) bench/gpu_check.py

# The pure-Python wheels the GPU machine lacks (pinned as in pyproject), into the git-ignored
# .gpu-wheels/ (about 1.2 MB, Python 3.12 x86_64): pass it as a carried path; gpu_check.py installs them there,
# offline, into a temporary folder.
GPU_WHEELS := hypothesis==6.170.17 sortedcontainers==2.4.0 pytest-timeout==2.4.0
gpu-wheels: setup
	$(PY) -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 \
	    --implementation cp --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
	    --dest .gpu-wheels $(GPU_WHEELS)

lint: setup
	$(PY) -m ruff check autograder tests solutions starter bench assignments

clean:
	rm -rf out .venv *.egg-info

docker-cpu: setup-instructor
	$(PY) docker/build.py cpu $(if $(DOCKER_BASE),--base $(DOCKER_BASE))

docker-gpu: setup-instructor
	$(PY) docker/build.py gpu $(if $(DOCKER_BASE),--base $(DOCKER_BASE))

docker-serve: setup-instructor
	$(PY) docker/build.py serve
