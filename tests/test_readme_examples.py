"""The README's examples agree with each other and do what it says (issue 11 item 15).

terraform/examples/quotas.yaml (what `preflight --quotas` reads) and scenario.yaml (the fake
cloud behind `make demo`) describe one cloud: the same quota ids and usage, the scenario's
limits those of the quota file after the increase its preflight asks for.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import yaml

from tests.conftest import EXAMPLES, ROOT

CLOUD = "b1gexamplecloud000001"
README = (ROOT / "README.md").read_text()


def _quota_file() -> dict[str, dict[str, int]]:
    return yaml.safe_load((EXAMPLES / "quotas.yaml").read_text())[CLOUD]


def _scenario_quotas() -> dict[str, dict[str, int]]:
    return yaml.safe_load((EXAMPLES / "scenario.yaml").read_text())["clouds"][CLOUD]["quotas"]


def _readme_command(prefix: str) -> list[str]:
    """The README's example line starting with ``ngupgrade PREFIX`` (one line, no PORT)."""
    line = next(x for x in README.splitlines() if x.startswith(f"ngupgrade {prefix}"))
    return [str(ROOT / w) if w.startswith("terraform/") else w for w in shlex.split(line)[1:]]


def test_one_cloud_two_files() -> None:
    # Before: cores 96 vs 128, A100 1 vs 2, and usage that differed too (11 vs 6 VMs).
    file, scenario = _quota_file(), _scenario_quotas()
    assert set(file) == set(scenario)
    assert {q: v["usage"] for q, v in file.items()} == {q: v["usage"] for q, v in
                                                        scenario.items()}
    raised = {q: (file[q]["limit"], scenario[q]["limit"]) for q in file
              if file[q]["limit"] != scenario[q]["limit"]}
    assert raised == {"compute.instanceCores.count": (96, 128),
                      "compute.instanceA100Gpus.count": (1, 2),
                      "vpc.externalAddresses.count": (8, 10)}
    # and the README says so, number for number
    assert "cores 96 -> 128, A100 GPUs 1 -> 2 and public IPs 8 -> 10" in README


def test_the_readme_preflight_fails_as_it_says(run_cli) -> None:
    argv = _readme_command("preflight")
    result = run_cli(*argv, "-o", "json")
    assert result.exit_code == 1
    short = sorted(q["quota_id"] for q in result.json()["clouds"][0]["quotas"]
                   if q["status"] == "short")
    # 1 + 1 A100 of 1: gpu's surge alone. The three groups share one cluster, which runs one
    # node-group operation at a time: per quota the largest surge counts (cores: gpu's 28 of
    # the 42 free), not the sum (54 + 48 of 96, short, with --together)
    assert short == ["compute.instanceA100Gpus.count"]
    together = run_cli(*argv, "--together", "-o", "json")
    assert sorted(q["quota_id"] for q in together.json()["clouds"][0]["quotas"]
                  if q["status"] == "short") == [
        "compute.instanceA100Gpus.count", "compute.instanceCores.count"]
    line = README.splitlines().index(next(x for x in README.splitlines()
                                          if x.startswith("ngupgrade preflight")))
    assert re.search(r"exit 1 on purpose", README.splitlines()[line + 1])
    assert run_cli(*argv, "-g", "workers").exit_code == 0  # "With -g workers it passes"


def test_after_the_increase_the_same_preflight_passes(run_cli, tmp_path: Path) -> None:
    quotas = tmp_path / "after.json"
    quotas.write_text(json.dumps({CLOUD: _scenario_quotas()}))
    argv = _readme_command("preflight")
    argv[argv.index("--quotas") + 1] = str(quotas)
    assert run_cli(*argv).exit_code == 0
