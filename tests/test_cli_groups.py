"""`ngupgrade groups` as a user runs it: every state source, selection, output, exit codes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EXAMPLE_SHOW_JSON, EXAMPLE_STATE, FIXTURE_BIN, ROOT
from tests.state_docs import FIXED_SCALE, state_doc

ADDRESSES = [
    "yandex_kubernetes_node_group.gpu",
    "yandex_kubernetes_node_group.workers",
    'module.pools["prod"].yandex_kubernetes_node_group.this["batch"]',
]


def test_json_from_a_file(run_cli) -> None:
    result = run_cli("groups", "--state", str(EXAMPLE_STATE), "--output", "json")
    assert result.exit_code == 0, result.stderr
    doc = result.json()
    assert [g["address"] for g in doc["groups"]] == ADDRESSES
    workers = doc["groups"][1]
    assert workers["policy"] == {"max_expansion": 1, "max_unavailable": 0, "source": "state",
                                 "assumed": False}
    assert workers["scale"] == {"type": "fixed", "size": 3}
    assert workers["node"] == {
        "platform_id": "standard-v3", "cores": 4, "core_fraction": 100,
        "memory_bytes": 17179869184, "gpus": 0,
        "boot_disk": {"type": "network-ssd", "size_bytes": 68719476736},
        "nat": True, "preemptible": False,
    }
    # no deploy_policy in HCL: the provider stores the API's default 3/0
    assert doc["groups"][0]["policy"] == {"max_expansion": 3, "max_unavailable": 0,
                                          "source": "state", "assumed": False}
    assert doc["groups"][2]["scale"] == {"type": "auto", "min": 1, "max": 7, "initial": 1}


def test_global_options_work_before_the_command(run_cli) -> None:
    result = run_cli("--output", "json", "--state", str(EXAMPLE_SHOW_JSON), "groups")
    assert [g["address"] for g in result.json()["groups"]] == ADDRESSES


def test_state_from_environment(run_cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NGUPGRADE_STATE", str(EXAMPLE_STATE))
    monkeypatch.setenv("NGUPGRADE_OUTPUT", "json")
    assert len(run_cli("groups").json()["groups"]) == 3
    # a typed flag beats the environment, wherever it stands
    assert "address" in run_cli("--output", "table", "groups").stdout


def test_table_lists_every_group(run_cli) -> None:
    result = run_cli("groups", "--state", str(EXAMPLE_STATE))
    assert result.exit_code == 0
    for address in ADDRESSES:
        assert address in result.stdout
    assert "auto 1..7" in result.stdout


def test_a_state_without_deploy_policy_shows_the_assumed_default(run_cli) -> None:
    # provider v0.35.0 had no deploy_policy: its states hold none (tests/real/real-states)
    old = ROOT / "tests" / "real" / "real-states" / "real-08-otus-v035-oldstate-state.json"
    result = run_cli("groups", "--state", str(old))
    assert result.exit_code == 0, result.stderr
    assert "unset (3/0 assumed)" in result.stdout


@pytest.mark.parametrize("selector", [
    'module.pools["prod"].yandex_kubernetes_node_group.this["batch"]', "batch",
    "cat2ng0auto00000efgh"])
def test_selection_by_address_name_or_id(run_cli, selector: str) -> None:
    result = run_cli("groups", "--state", str(EXAMPLE_STATE), "-o", "json", "--group", selector)
    assert [g["id"] for g in result.json()["groups"]] == ["cat2ng0auto00000efgh"]


def test_selection_keeps_the_order_asked(run_cli) -> None:
    result = run_cli("groups", "--state", str(EXAMPLE_STATE), "-o", "json",
                     "-g", "workers", "-g", "gpu", "-g", "workers")
    assert [g["name"] for g in result.json()["groups"]] == ["workers", "gpu"]


def test_unknown_group_is_a_usage_error_listing_groups(run_cli) -> None:
    result = run_cli("groups", "--state", str(EXAMPLE_STATE), "--group", "nope")
    assert result.exit_code == 2
    assert "error: no node group matches 'nope'" in result.stderr
    assert "workers" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(("content", "needle"), [
    (b"{\"version\": 4, \"resources\": [", "not valid JSON"),
    (b'{"version": 3, "modules": []}', "unsupported state version 3"),
    (b"", "empty input"),
])
def test_bad_state_exits_3_with_one_line(run_cli, tmp_path: Path, content: bytes,
                                         needle: str) -> None:
    path = tmp_path / "bad.tfstate"
    path.write_bytes(content)
    result = run_cli("groups", "--state", str(path))
    assert result.exit_code == 3
    assert needle in result.stderr
    assert str(path) in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_wrong_flag_is_exit_2(run_cli) -> None:
    result = run_cli("groups", "--no-such-flag")
    assert result.exit_code == 2
    assert "No such option" in result.stderr


def test_stdin(run_cli) -> None:
    result = run_cli("groups", "--state", "-", "-o", "json", stdin=EXAMPLE_STATE.read_bytes())
    assert len(result.json()["groups"]) == 3


def test_tf_dir_with_stand_in_terraform(run_cli, stand_in_terraform: Path, tmp_path: Path
                                        ) -> None:
    (tmp_path / ".terraform").mkdir()
    (tmp_path / "fake-state.json").write_bytes(EXAMPLE_STATE.read_bytes())
    result = run_cli("groups", "--state", f"tf:{tmp_path}", "-o", "json")
    assert result.exit_code == 0, result.stderr
    assert len(result.json()["groups"]) == 3
    (tmp_path / ".terraform").rmdir()
    failed = run_cli("groups", "--state", f"tf:{tmp_path}")
    assert failed.exit_code == 3
    assert "run `terraform init`" in failed.stderr


def test_real_process_pipe_and_exit_code(tmp_path: Path) -> None:
    """The installed console script, fed through a pipe as `terraform state pull | ...`."""
    env = dict(os.environ, PATH=f"{FIXTURE_BIN}:{os.environ['PATH']}")
    env.pop("NGUPGRADE_STATE", None)
    done = subprocess.run(
        [sys.executable, "-m", "ngupgrade", "groups", "--state", "-", "--output", "json"],
        input=EXAMPLE_STATE.read_bytes(), capture_output=True, cwd=ROOT, env=env, check=False)
    assert done.returncode == 0, done.stderr
    assert b'"cat1ng0fixed0000abcd"' in done.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "ngupgrade", "groups", "--state", str(tmp_path / "x")],
        capture_output=True, cwd=ROOT, env=env, check=False)
    assert bad.returncode == 3
    assert bad.stderr.decode().count("\n") <= 2  # error line and hint; no traceback


@pytest.mark.parametrize("key", ["a.b[c]", "[bold]x[/bold]", "x[/]", "[red]"])
def test_table_shows_keys_with_brackets_verbatim(run_cli, tmp_path, key: str) -> None:
    # Before: rich read "[c]" as markup and printed ng["a.b"]; "x[/]" crashed (exit 70).
    import json

    doc = json.loads(state_doc(FIXED_SCALE))
    doc["resources"][0]["instances"][0]["index_key"] = key
    doc["resources"][0]["instances"][0]["attributes"]["name"] = key
    state = tmp_path / "keys.tfstate"
    state.write_text(json.dumps(doc))
    result = run_cli("groups", "--state", str(state))
    assert result.exit_code == 0, result.stderr
    assert f"yandex_kubernetes_node_group.bad[{json.dumps(key)}]" in result.stdout
    assert f"  {key}  " in result.stdout


def test_a_name_with_control_characters_is_printed_escaped(run_cli, tmp_path) -> None:
    # Before: a hand-edited name's ESC, newline and right-to-left override reached the
    # terminal raw: the row broke in two and the rest of the line turned red.
    import json

    doc = json.loads(state_doc(FIXED_SCALE))
    doc["resources"][0]["instances"][0]["attributes"]["name"] = "w\u00f6rk\u202e\n\x1b[31mred"
    state = tmp_path / "odd.tfstate"
    state.write_text(json.dumps(doc))
    table = run_cli("groups", "--state", str(state))
    assert table.exit_code == 0, table.stderr
    assert "  w\u00f6rk\\u202e\\u000a\\u001b[31mred  " in table.stdout
    assert "\x1b" not in table.stdout and "\u202e" not in table.stdout
    assert len(table.stdout.splitlines()) == 3  # header, rule, one row
    named = run_cli("groups", "--state", str(state), "-o", "json").json()["groups"][0]["name"]
    assert named == "w\u00f6rk\\u202e\\u000a\\u001b[31mred"


def test_group_selected_by_the_address_terraform_prints(run_cli, tmp_path) -> None:
    import json

    doc = json.loads(state_doc(FIXED_SCALE))
    doc["resources"][0]["instances"][0]["index_key"] = "${env}"
    state = tmp_path / "tmpl.tfstate"
    state.write_text(json.dumps(doc))
    result = run_cli("groups", "--state", str(state), "-o", "json",
                     "-g", 'yandex_kubernetes_node_group.bad["$${env}"]')
    assert result.exit_code == 0, result.stderr
    assert [g["address"] for g in result.json()["groups"]] == [
        'yandex_kubernetes_node_group.bad["$${env}"]']


# ---- the table never cuts what -g takes (issue 11 item 12) ------------------------------------

def _run_on_a_terminal(argv: list[str], columns: int) -> str:
    """Run ngupgrade with stdout a pseudo-terminal `columns` wide; what the terminal got."""
    import fcntl
    import struct
    import termios

    leader, follower = os.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    proc = subprocess.Popen([sys.executable, "-m", "ngupgrade", *argv], stdout=follower,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, cwd=ROOT,
                            env={**env, "TERM": "dumb"})
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert proc.wait(timeout=60) == 0, proc.stderr.read() if proc.stderr else ""
    return b"".join(chunks).decode().replace("\r\n", "\n")


def test_a_narrow_terminal_never_cuts_ids_addresses_or_names() -> None:
    # Before: on an 80-column terminal, "yandex_k…" and "cat3ng0g…".
    out = _run_on_a_terminal(["groups", "--state", str(EXAMPLE_STATE)], columns=80)
    assert "…" not in out
    for whole in [*ADDRESSES, "cat3ng0gpu000000ijkl", "cat1ng0fixed0000abcd",
                  "cat2ng0auto00000efgh", "workers", "batch"]:
        assert whole in out, whole


def test_a_pipe_never_cuts_a_long_address(run_cli, tmp_path: Path) -> None:
    # Before: a pipe printed 250 columns, so a deep module address lost its end.
    import json

    key = "platform-" + "x" * 120
    doc = json.loads(state_doc(FIXED_SCALE))
    doc["resources"][0]["module"] = f'module.k8s["{key}"].module.pools["{key}"]'
    doc["resources"][0]["instances"][0]["index_key"] = key
    path = tmp_path / "deep.tfstate"
    path.write_text(json.dumps(doc))
    address = (f'module.k8s["{key}"].module.pools["{key}"].yandex_kubernetes_node_group'
               f'.bad["{key}"]')
    result = run_cli("groups", "--state", str(path))
    assert result.exit_code == 0, result.stderr
    assert address in result.stdout and "…" not in result.stdout
