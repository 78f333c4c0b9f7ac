"""One JSON vocabulary across the reports (issue 11 item 14), as scripts read them.

Statuses are the API's enum names; a value's origin is state|default|override|live (the set-
policy, preflight and advise cases are in their own modules' tests); every report names the
tool version and its inputs; quota rows carry their unit; the --strict hint fits the failure;
the help texts say what the code does.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ngupgrade import __version__
from tests.conftest import EXAMPLE_STATE, EXAMPLES, ROOT

QUOTAS = EXAMPLES / "quotas.yaml"


def test_groups_status_is_the_api_enum(run_cli) -> None:
    # Before: "running" (the provider's spelling in the state) where wait, upgrade and the
    # API say RUNNING.
    doc = run_cli("groups", "--state", str(EXAMPLE_STATE), "-o", "json").json()
    assert {g["status"] for g in doc["groups"]} == {"RUNNING"}


# ---- every report names the tool version and its inputs -------------------------------------

@pytest.mark.parametrize(("argv", "options"), [
    (["groups", "-g", "workers"], {"groups": ["workers"]}),
    (["plan", "-g", "workers", "--max-expansion", "2"],
     {"groups": ["workers"], "max_expansion": 2, "cycle_minutes": 6.0, "strict": False}),
    (["preflight", "-g", "workers", "--quotas", str(QUOTAS)],
     {"groups": ["workers"], "quotas_file": str(QUOTAS), "sequential": False}),
    (["advise", "-g", "workers", "--quotas", str(QUOTAS)],
     {"groups": ["workers"], "quotas_file": str(QUOTAS)}),
])
def test_every_report_names_the_version_and_inputs(run_cli, argv: list[str],
                                                    options: dict) -> None:
    result = run_cli(*argv, "--state", str(EXAMPLE_STATE), "-o", "json")
    assert result.exit_code == 0, result.stderr
    header = result.json()["ngupgrade"]
    assert (header["version"], header["command"]) == (__version__, argv[0])
    assert header["inputs"]["state"] == str(EXAMPLE_STATE)
    assert header["inputs"]["endpoint"] is None
    assert options.items() <= header["inputs"]["options"].items()


def test_a_failure_names_them_too(run_cli) -> None:
    result = run_cli("plan", "--state", str(EXAMPLE_STATE), "-g", "nosuch", "-o", "json")
    assert result.exit_code == 2
    doc = result.json()
    assert doc["error"]["code"] == "usage"
    assert doc["ngupgrade"]["inputs"]["options"]["groups"] == ["nosuch"]


def test_the_upgrade_stream_names_them_on_its_first_line(tmp_path: Path, monkeypatch,
                                                           capsys) -> None:
    from tests._upgrade_helpers import cli, example_cloud

    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, "-g", "workers", "--version", "1.30",
                             "-o", "json")
    assert code == 0, err
    first, *rest = [json.loads(line) for line in out.splitlines()]
    assert first["ngupgrade"]["command"] == "upgrade"
    assert first["ngupgrade"]["inputs"]["options"]["version"] == "1.30"
    assert first["ngupgrade"]["inputs"]["endpoint"] == fake.endpoint
    assert all("ngupgrade" not in line for line in rest)


# ---- quota rows carry their unit -------------------------------------------------------------

def test_quota_rows_carry_the_unit_of_their_numbers(run_cli) -> None:
    doc = run_cli("preflight", "--state", str(EXAMPLE_STATE), "--quotas", str(QUOTAS),
                  "-o", "json").json()
    units = {q["quota_id"]: q["unit"] for q in doc["clouds"][0]["quotas"]}
    assert units["compute.instanceMemory.size"] == "bytes"  # JSON sizes are bytes, not GiB
    assert units["compute.instanceCores.count"] == "cores"
    assert units["compute.instances.count"] == "VMs"
    assert units["compute.instanceA100Gpus.count"] == "GPUs"
    assert units["managed-kubernetes.nodes.count"] == "nodes"
    assert units["vpc.externalAddresses.count"] == "IPs"


# ---- the hint fits the failure -----------------------------------------------------------

def test_strict_unknown_quota_hint_says_to_export_it(run_cli, tmp_path: Path) -> None:
    # Before: "apply a suggested deploy policy, or ask for a quota increase": no increase
    # makes a quota the file does not list known.
    doc = {"b1gexamplecloud000001": {"compute.instances.count": {"limit": 24, "usage": 11}}}
    quotas = tmp_path / "quotas.json"
    quotas.write_text(json.dumps(doc))
    result = run_cli("preflight", "--state", str(EXAMPLE_STATE), "-g", "workers", "--quotas",
                     str(quotas), "--strict")
    assert result.exit_code == 1
    hint = next(line for line in result.stderr.splitlines() if line.startswith("hint: "))
    assert "quota increase" not in hint
    assert ("an unknown quota under --strict: export their limits into the quota file "
            '(docs/quota-preflight.md, "Exporting the limits"), or drop --strict') in hint
    assert "### Exporting the limits" in (ROOT / "docs" / "quota-preflight.md").read_text()


def test_a_short_quota_keeps_its_hint(run_cli, tmp_path: Path) -> None:
    doc = {"b1gexamplecloud000001": {"compute.instances.count": {"limit": 11, "usage": 11}}}
    quotas = tmp_path / "quotas.json"
    quotas.write_text(json.dumps(doc))
    result = run_cli("preflight", "--state", str(EXAMPLE_STATE), "-g", "workers", "--quotas",
                     str(quotas))
    assert result.exit_code == 1
    assert "a short quota: apply the suggested deploy policies, or ask for a quota increase" \
        in result.stderr
    assert "--strict" not in result.stderr


# ---- help texts ----------------------------------------------------------------------------

EXIT_CODES = {
    "groups": {0, 2, 3}, "plan": {0, 1, 2, 3}, "preflight": {0, 1, 2, 3, 4},
    "advise": {0, 1, 2, 3, 4}, "set-policy": {0, 1, 2, 3, 4, 5, 6, 130},
    "upgrade": {0, 1, 2, 3, 4, 5, 6, 130}, "wait": {0, 1, 2, 3, 4, 5, 6, 130},
    "fake-cloud": {0, 2, 3}, "drain-check": {0, 1, 2, 3, 4},
}
"""What each command can exit with: 2 for any bad flag, 3 for any file it reads (state, key
or CA file), 4.. for the cloud commands."""


def _exit_block(help_text: str) -> str:
    return help_text.split("Exit codes:", 1)[1].split("\n\n", 1)[0]


@pytest.mark.parametrize("command", sorted(EXIT_CODES))
def test_help_lists_every_exit_code(run_cli, command: str) -> None:
    # Before: `wait --help` said nothing of 2 and 3; set-policy nothing of 3.
    block = _exit_block(run_cli(command, "--help").stdout)
    said = {int(n) for n in re.findall(r"(?<![\w.-])(\d{1,3})(?= +[A-Za-z(])", block)}
    assert said == EXIT_CODES[command], block


def test_preflight_exit_codes_are_one_entry_per_code() -> None:
    # Before: code 1's text broke after "or a group's resources" mid-line.
    import subprocess
    import sys

    text = subprocess.run([sys.executable, "-m", "ngupgrade", "preflight", "--help"],
                          capture_output=True, text=True, env={"COLUMNS": "100"}, cwd=ROOT,
                          check=True).stdout
    entries: list[list[str]] = []
    for line in _exit_block(text).splitlines()[1:]:
        if re.match(r"^ {4}\d+  ", line):
            entries.append([line])
        elif line.startswith(" " * 7) and entries:
            entries[-1].append(line)
    assert [e[0].split()[0] for e in entries] == ["0", "1", "2", "3", "4"]
    for entry in entries:
        for line in entry[:-1]:  # every line but an entry's last is filled before it breaks
            assert len(line) >= 70, line


def test_root_help_names_credentials_in_the_order_they_apply(run_cli) -> None:
    # Before: YC_TOKEN first, while YC_IAM_TOKEN wins (adapters/cloud/auth.py, docs/cloud.md).
    from ngupgrade.adapters.cloud.auth import resolve_credentials

    names = ["YC_IAM_TOKEN", "YC_TOKEN", "YC_SERVICE_ACCOUNT_KEY_FILE"]
    both = {"YC_IAM_TOKEN": "t1.iam", "YC_TOKEN": "y0_oauth"}
    assert resolve_credentials(both).kind == "iam_token"
    for text in (run_cli("--help").stdout, (ROOT / "docs" / "cloud.md").read_text()):
        where = [text.index(name) for name in names]
        assert where == sorted(where), text[:200]
