"""The ``fake_cloud`` pytest fixture (ngupgrade/testing/pytest_plugin.py) as users meet it:
the marker's arguments, paths relative to the test file, the documented user test of
docs/cloud.md run as it stands, the example scenario shipped with the package."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from ngupgrade.testing import EXAMPLES, Scenario

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_STATE = ROOT / "terraform" / "examples" / "terraform.tfstate"
pytest_plugins = ["pytester"]


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    # The plugin of this checkout: the subprocess runs elsewhere, where the shared virtualenv
    # would import another checkout of ngupgrade.
    pytester._monkeypatch.setenv("PYTHONPATH", str(ROOT))
    return pytester.runpytest_subprocess(
        "-p", "no:ngupgrade_fake_cloud", "-p", "ngupgrade.testing.pytest_plugin", "-q",
        "-p", "no:cacheprovider", *args)


def test_the_fixture_with_and_without_the_marker(pytester):
    pytester.makepyfile(textwrap.dedent("""\
        import pytest
        from ngupgrade.testing import node_group

        def test_default(fake_cloud):
            g = fake_cloud.group("workers")
            assert (g.id, g.nodes, g.version, g.policy.max_expansion) == (
                "catgroup000000000001", 3, "1.29", 1)
            assert fake_cloud.now() == 0.0 and fake_cloud.scenario.step_seconds == 60

        @pytest.mark.fake_cloud(groups=[node_group("catx", name="big", size=9)],
                                scenario={"step_seconds": 5})
        def test_marked(fake_cloud):
            assert len(fake_cloud.gateway().list_nodes("catx")) == 9
            assert fake_cloud.scenario.step_seconds == 5
        """))
    _run(pytester).assert_outcomes(passed=2)


@pytest.mark.parametrize(("marker", "says"), [
    ('scenarios={"faults": [{"kind": "stall"}]}',
     "fake_cloud marker: unknown argument 'scenarios' (known: state, groups, scenario, speed); "
     "did you mean 'scenario'?"),
    ('"terraform.tfstate"',
     "fake_cloud marker: arguments are keywords only (state, groups, scenario, speed); got 1 "
     "positional: 'terraform.tfstate'"),
    ("speed=0", "fake_cloud marker: speed must be a number > 0 (virtual seconds per real "
                "second), got 0"),
    ('scenario={"faults": [{"kind": "stall", "group": "wrkers"}]}',
     "fake_cloud marker: scenario: faults[0].group: no node group 'wrkers' in the fake (it "
     "holds: workers) (did you mean 'workers'?)"),
], ids=["typo", "positional", "speed", "bad-scenario"])
def test_a_marker_it_cannot_honour_fails_the_test_naming_the_closest_argument(
        pytester, marker, says):
    """Issue 11 item 16: ``scenarios=`` used to run the test with no faults, and pass."""
    pytester.makepyfile(textwrap.dedent(f"""\
        import pytest

        @pytest.mark.fake_cloud({marker})
        def test_drill(fake_cloud):
            pass
        """))
    result = _run(pytester)
    result.assert_outcomes(errors=1)
    assert says in result.stdout.lines
    assert "During handling" not in result.stdout.str()  # one message, no chained traceback


def test_marker_paths_are_read_from_the_test_files_folder(pytester):
    """Issue 11 item 18: run from another directory, the files next to the test are found."""
    sub = pytester.mkpydir("drills")
    shutil.copy(EXAMPLE_STATE, sub / "terraform.tfstate")
    (sub / "scenario.yaml").write_text("step_seconds: 7\n")
    (sub / "test_drill.py").write_text(textwrap.dedent("""\
        import pytest

        @pytest.mark.fake_cloud(state="terraform.tfstate", scenario="scenario.yaml")
        def test_drill(fake_cloud):
            assert fake_cloud.scenario.step_seconds == 7
            assert fake_cloud.group("workers").id == "cat1ng0fixed0000abcd"
        """))
    _run(pytester, "drills").assert_outcomes(passed=1)


def test_the_user_test_in_the_docs_runs_as_written(pytester):
    """docs/cloud.md's complete user test: the SDK's own stubs, the virtual clock, a fault,
    real time with speed."""
    text = (ROOT / "docs" / "cloud.md").read_text()
    section = text.split("### In your tests (pytest)", 1)[1].split("\n### ", 1)[0]
    block = section.split("```python\n", 1)[1].split("```", 1)[0]
    pytester.makepyfile(test_user_runbook=block)
    _run(pytester).assert_outcomes(passed=3)


def test_the_docs_cli_test_runs_as_written(pytester: pytest.Pytester) -> None:
    """docs/cloud.md's test of ngupgrade's own command line on the fake: no ngupgrade.app, no
    Settings, only the kit's ``timing()`` and ``ngupgrade.cli.main``."""
    text = (ROOT / "docs" / "cloud.md").read_text()
    section = text.split("ngupgrade itself is driven through its command line", 1)[1]
    block = section.split("```python\n", 1)[1].split("```", 1)[0]
    assert "ngupgrade.app" not in block and "Settings" not in block
    pytester.makepyfile(test_user_cli=block)
    _run(pytester).assert_outcomes(passed=1)


def test_the_docs_pdb_blocked_drain_test_passes(pytester: pytest.Pytester) -> None:
    """docs/cloud.md's user test of the fake's Kubernetes API following an upgrade: a PDB
    that blocks, the node stopped 7 minutes after its cordon (issue 13)."""
    text = (ROOT / "docs" / "cloud.md").read_text()
    section = text.split("### The fake Kubernetes API beside it", 1)[1].split("\n### ", 1)[0]
    block = section.split("```python\n", 1)[1].split("```", 1)[0]
    pytester.makepyfile(test_user_drain=block)
    _run(pytester).assert_outcomes(passed=1)


def test_the_sdk_reaches_the_fake_only_with_an_insecure_stub(fake_cloud):
    """docs/cloud.md: SDK(endpoint=...) speaks TLS and fails; sdk.client(..., insecure=True)
    works."""
    import grpc
    import yandexcloud
    from yandex.cloud.k8s.v1.node_group_service_pb2 import GetNodeGroupRequest
    from yandex.cloud.k8s.v1.node_group_service_pb2_grpc import NodeGroupServiceStub

    request = GetNodeGroupRequest(node_group_id="catgroup000000000001")
    with pytest.raises(grpc.RpcError) as err:  # already at endpoint discovery
        yandexcloud.SDK(endpoint=fake_cloud.endpoint).client(NodeGroupServiceStub).Get(
            request, timeout=5)
    assert err.value.code() == grpc.StatusCode.UNAVAILABLE
    assert "Tls handshake failed" in err.value.details()
    plain = yandexcloud.SDK().client(NodeGroupServiceStub, endpoint=fake_cloud.endpoint,
                                     insecure=True)
    assert plain.Get(request, timeout=5).name == "workers"


def test_the_time_sleep_trap_the_docs_warn_about(fake_cloud):
    """The fixture's clock moves only through fake_cloud.sleep: real sleeping changes nothing."""
    import time

    fake_cloud.gateway().update_node_group("catgroup000000000001", version="1.30")
    time.sleep(0.05)
    assert fake_cloud.now() == 0.0 and not fake_cloud.operation("op-1").done
    fake_cloud.sleep(540)  # 3 nodes at 1/0: 9 steps of 60 s
    assert fake_cloud.operation("op-1").done


def test_the_example_scenario_ships_in_the_package():
    """Issue 11 item 18: the example is package data (pyproject) and loads from the package."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = config["tool"]["setuptools"]["package-data"]["ngupgrade"]
    package = ROOT / "ngupgrade"
    shipped = {p for g in globs for p in package.glob(g)}
    assert EXAMPLES / "scenario.yaml" in shipped
    assert EXAMPLES.is_relative_to(package)
    sc = Scenario.load(str(EXAMPLES / "scenario.yaml"))
    assert sc.versions == ["1.29", "1.30"] and sc.step_seconds == 60
    # terraform/examples/scenario.yaml is the same file (a link), not a copy that drifts
    assert (ROOT / "terraform" / "examples" / "scenario.yaml").resolve() == \
        (EXAMPLES / "scenario.yaml")
