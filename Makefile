# Everything runs from a local virtualenv that make creates from python3 alone: `make demo`
# installs only what ngupgrade needs to run; `make setup`, `make test` and `make lint` add the
# development tools (pytest, hypothesis, moto's server, ruff, mypy, import-linter).
PYTHON  ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
RUNTIME := $(VENV)/.installed-runtime
STAMP   := $(VENV)/.installed
STATE   := terraform/examples/terraform.tfstate

.PHONY: setup demo test lint bench fuzz clean

setup: $(STAMP)

$(BIN)/python:
	@echo "== creating $(VENV) with $(PYTHON)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The runtime alone: the cloud SDK, grpc, boto3, the kubernetes client, click, rich, msgspec.
$(RUNTIME): pyproject.toml | $(BIN)/python
	@echo "== installing ngupgrade and its runtime dependencies into $(VENV) (the first time: a minute or so)"
	$(BIN)/python -m pip install --quiet -e .
	touch $@

# Everything: the runtime and the development tools.
$(STAMP): pyproject.toml | $(BIN)/python
	@echo "== installing ngupgrade with the development tools into $(VENV) (pytest, hypothesis, moto, ruff, mypy, import-linter)"
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@ $(RUNTIME)

## demo: the main job on the built-in default (example Terraform state); durations are the
## fake cloud's virtual time (60x real time), and the demo says so
demo: $(if $(wildcard $(STAMP)),$(STAMP),$(RUNTIME))
	@echo "== running the demo: a fake Yandex Cloud in this process, then preflight, plan, drain-check and an upgrade of workers"
	$(BIN)/python -m ngupgrade.demo --state $(STATE)

## test: the whole suite, spread over 4 workers (it waits on servers and subprocesses more than
## it computes): about 3 minutes on 2 cores
test: $(STAMP)
	$(BIN)/python -m pytest -n 4

## lint: ruff, mypy, the import contracts, no function over 100 lines (.ci/function_length.py),
## one exit-code table (tests/test_exit_codes.py)
lint: $(STAMP)
	$(BIN)/ruff check ngupgrade tests bench terraform
	$(BIN)/mypy
	PYTHONPATH=. $(BIN)/lint-imports
	$(BIN)/python .ci/function_length.py
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/test_exit_codes.py tests/test_public_sources.py

## bench: every speed and call-count measurement, each against a baseline in the same run (in
## pairs, the median), then one table of every figure, its target and its verdict; fails at the
## end when any falls short (bench/README.md). BENCH="advise plan" runs only those.
bench: $(STAMP)
	$(BIN)/python bench/run_all.py $(BENCH)

## fuzz: every reader, 2,000 hypothesis inputs each, its own table (also a part of make bench)
fuzz: $(STAMP)
	$(BIN)/python bench/fuzz_readers.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis *.egg-info
