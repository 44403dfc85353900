# Training Systems: `make demo` and `make test` do everything on a fresh machine.
PY      := .venv/bin/python
STAMP   := .venv/.installed
A       ?= minigrad
SUB     ?= examples/complete.zip
OUT     ?= out
JOBS    ?= 2
ONLY    ?=          # goldens/selftest: limit to these assignments (default: all)

.PHONY: setup demo test check grade goldens selftest bench lint clean docker-cpu docker-gpu docker-serve starter release nbgrader

setup: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(PY) || python3 -m venv .venv
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev,instructor]'
	@bash .ci/system-packages.sh
	@touch $(STAMP)

demo: setup
	$(PY) -m autograder demo

test: setup
	$(PY) -m pytest -n $(JOBS) -q tests/selftest tests/repro/gpu

check: setup
	$(PY) -m autograder check $(A) $(if $(IMPL),--impl $(IMPL)) $(if $(TASK),--task $(TASK))

grade: setup
	$(PY) -m autograder grade $(SUB) $(if $(ASSIGNMENT),--assignment $(ASSIGNMENT)) --out $(OUT)

goldens: setup
	$(PY) -m autograder goldens $(ONLY)

starter: setup
	$(PY) -m autograder starter $(ONLY)

selftest: setup
	$(PY) -m autograder selftest $(ONLY)

# mutation testing of solutions/ (cosmic-ray mutants, graded by the engine); writes
# tests/mutation_report.md. SAMPLE=all grades every mutant (hours); make test runs a smaller sample.
SAMPLE ?= 40
.PHONY: mutation
mutation: setup
	$(PY) -m autograder mutation $(ONLY) $(if $(filter all,$(SAMPLE)),,--sample $(SAMPLE))

bench: setup   # 40-60 min on 2 shared cores: every bench/bench_*.py's rows() -> bench/results.{json,md}, README
	$(PY) bench/run_all.py

.PHONY: gradescope
gradescope: setup   # Gradescope autograder zip for assignment A: $(OUT)/autograder-$(A).zip
	$(PY) -m autograder gradescope $(A) --out $(OUT)/autograder-$(A).zip

release: setup
	$(PY) -m autograder release $(OUT)/release

nbgrader: setup   # an nbgrader course (lab notebooks + nbgrader_config.py) in $(OUT)/nbgrader
	$(PY) -m autograder nbgrader $(OUT)/nbgrader $(ONLY)

lint: setup
	$(PY) -m ruff check autograder tests solutions starter bench assignments

clean:
	rm -rf out .venv *.egg-info

docker-cpu: setup
	$(PY) docker/build.py cpu $(if $(DOCKER_BASE),--base $(DOCKER_BASE))

docker-gpu: setup
	$(PY) docker/build.py gpu $(if $(DOCKER_BASE),--base $(DOCKER_BASE))

docker-serve: setup
	$(PY) docker/build.py serve
