# Everything runs from a local virtualenv that `make setup` creates from python3 alone.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
STATE  := terraform/examples/terraform.tfstate

.PHONY: setup demo test lint bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

## demo: the main job on the built-in default (example Terraform state)
demo: $(STAMP)
	$(BIN)/python -m ngupgrade.demo --state $(STATE)

## test: the whole suite (a few minutes at most on 2 cores)
test: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check ngupgrade tests bench terraform
	$(BIN)/mypy
	PYTHONPATH=. $(BIN)/lint-imports

## bench: speed and call-count measurements, each against a baseline in the same run
bench: $(STAMP)
	@for b in bench/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis *.egg-info
