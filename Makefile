# Training Systems: `make demo` and `make test` do everything on a fresh machine.
PY      := .venv/bin/python
STAMP   := .venv/.installed
A       ?= minigrad
SUB     ?= examples/complete.zip
OUT     ?= out
JOBS    ?= 2
ONLY    ?=          # goldens/selftest: limit to these assignments (default: all)

.PHONY: setup demo test check grade goldens selftest bench lint clean starter release

setup: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(PY) || python3 -m venv .venv
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@command -v bwrap >/dev/null 2>&1 || (command -v apt-get >/dev/null 2>&1 && \
		(apt-get install -y -qq bubblewrap >/dev/null 2>&1 || \
		 (apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq bubblewrap >/dev/null 2>&1)) || \
		echo "note: bubblewrap could not be installed; the grader will say which isolation layers are missing")
	@touch $(STAMP)

demo: setup
	$(PY) -m autograder demo

test: setup
	$(PY) -m pytest -n $(JOBS) -q tests/selftest

check: setup
	$(PY) -m autograder check $(A) $(if $(IMPL),--impl $(IMPL))

grade: setup
	$(PY) -m autograder grade $(SUB) $(if $(ASSIGNMENT),--assignment $(ASSIGNMENT)) --out $(OUT)

goldens: setup
	$(PY) -m autograder goldens $(ONLY)

starter: setup
	$(PY) -m autograder starter $(ONLY)

selftest: setup
	$(PY) -m autograder selftest $(ONLY)

release: setup
	$(PY) -m autograder release $(OUT)/release

bench: setup
	@for f in bench/bench_*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

lint: setup
	$(PY) -m ruff check autograder tests solutions starter bench assignments

clean:
	rm -rf out .venv *.egg-info
