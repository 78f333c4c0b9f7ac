"""The live reader through the real ``kubernetes`` client against a Kubernetes API served on
loopback (ngupgrade.testing.kube_api): same snapshot as the dump reader on the same objects,
pagination, call counts, exec-plugin credentials, and client errors as exit 4 with a hint."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from _kube_samples import objects

from ngupgrade.adapters.kube import read_dump_bytes
from ngupgrade.adapters.kube.live import LIST_CALLS, read_live
from ngupgrade.core.errors import EXIT_API, BadInput, KubeApiError
from ngupgrade.testing import kube_objects as ko
from ngupgrade.testing.kube_api import FakeKubeApi, write_exec_plugin

TOKEN = "t0ken-for-tests"
YT_PATH = "/apis/cluster.ytsaurus.tech/v1/ytsaurus"
KINDS = len(LIST_CALLS) + 1  # nine built-in lists and the Ytsaurus CRD


@pytest.fixture
def api() -> Iterator[FakeKubeApi]:
    with FakeKubeApi(objects(), token=TOKEN) as fake:
        yield fake


def kubeconfig(api: FakeKubeApi, tmp_path: Path, **kwargs: object) -> str:
    return str(api.write_kubeconfig(tmp_path / "config", **kwargs))  # type: ignore[arg-type]


def test_live_equals_dump_on_the_same_objects(api: FakeKubeApi, tmp_path: Path) -> None:
    live = read_live(kubeconfig(api, tmp_path))
    dump = read_dump_bytes(json.dumps(ko.as_list(objects())).encode(), "cluster.json")
    assert live.snapshot == dump.snapshot
    assert len(live.snapshot.pods) == 12 and len(live.snapshot.ytsaurus) == 1
    assert live.notes == ()
    # one call per kind, read-only, every one authenticated with the kubeconfig's token
    assert len(api.requests) == KINDS
    assert {r.method for r in api.requests} == {"GET"}
    assert {r.authorization for r in api.requests} == {f"Bearer {TOKEN}"}


def test_pagination_follows_continue(api: FakeKubeApi, tmp_path: Path) -> None:
    snap = read_live(kubeconfig(api, tmp_path), page_size=5).snapshot
    pod_calls = api.calls("/api/v1/pods")
    # 12 pods, limit 5: pages of 5, 5 and 2
    assert len(pod_calls) == 3
    assert [c.query.get("limit") for c in pod_calls] == ["5", "5", "5"]
    assert "continue" not in pod_calls[0].query
    assert pod_calls[1].query["continue"] != pod_calls[2].query["continue"]
    assert len(snap.pods) == 12


def test_limit_two_over_five_pods_is_three_pages(tmp_path: Path) -> None:
    pods = [ko.pod(f"p{i}", "ns", ko.pod_spec([ko.container("c", {"cpu": "1"})],
                                              node_name="n")) for i in range(5)]
    with FakeKubeApi(pods) as fake:
        snap = read_live(kubeconfig(fake, tmp_path), page_size=2).snapshot
        assert len(fake.calls("/api/v1/pods")) == 3
    assert [p.name for p in snap.pods] == ["p0", "p1", "p2", "p3", "p4"]


def _cluster(nodes: int) -> list[dict[str, object]]:
    out: list[dict[str, object]] = [ko.node(f"n{i}") for i in range(nodes)]
    out += [ko.pod(f"p{i}", "ns", ko.pod_spec([ko.container("c")], node_name=f"n{i}"))
            for i in range(nodes)]
    return out


def test_calls_grow_with_kinds_and_pages_never_with_nodes(tmp_path: Path) -> None:
    counts = []
    for nodes in (10, 100):
        with FakeKubeApi(_cluster(nodes)) as fake:
            read_live(kubeconfig(fake, tmp_path), page_size=500)
            counts.append(Counter(r.path for r in fake.requests))
    assert counts[0] == counts[1]
    assert sum(counts[1].values()) == KINDS
    with FakeKubeApi(_cluster(100)) as fake:   # pages: ceil(100 / 30) = 4 for nodes and pods
        read_live(kubeconfig(fake, tmp_path), page_size=30)
        per_path = Counter(r.path for r in fake.requests)
    assert per_path["/api/v1/nodes"] == per_path["/api/v1/pods"] == 4
    assert sum(per_path.values()) == KINDS + 2 * 3


def test_exec_plugin_credentials(api: FakeKubeApi, tmp_path: Path) -> None:
    command = write_exec_plugin(tmp_path / "yc.py", TOKEN)
    config = kubeconfig(api, tmp_path, exec_command=command)
    assert json.loads(Path(config).read_text())["users"][0]["user"]["exec"]["apiVersion"] == \
        "client.authentication.k8s.io/v1beta1"
    assert len(read_live(config).snapshot.nodes) == 3
    assert {r.authorization for r in api.requests} == {f"Bearer {TOKEN}"}


def test_default_kubeconfig_from_the_environment(api: FakeKubeApi, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KUBECONFIG", kubeconfig(api, tmp_path, context="prod"))
    assert len(read_live(None, "prod").snapshot.nodes) == 3


def test_ytsaurus_crd_missing_is_a_note(tmp_path: Path) -> None:
    with FakeKubeApi([ko.node("n")]) as fake:
        result = read_live(kubeconfig(fake, tmp_path))
        assert [r.path for r in fake.requests][-1] == YT_PATH
    assert result.notes == ("no Ytsaurus objects: the CRD ytsaurus.cluster.ytsaurus.tech is "
                            "not installed (404)",)
    assert result.snapshot.ytsaurus == ()


# ---- errors: exit 4 with the hint to check the kubeconfig/context --------------------------

def _api_error(config: str, context: str | None = None) -> KubeApiError:
    with pytest.raises(KubeApiError) as info:
        read_live(config, context)
    err = info.value
    assert err.exit_code == EXIT_API
    assert err.hint and "--context" in err.hint and "--kubeconfig" in err.hint
    return err


def test_forbidden(api: FakeKubeApi, tmp_path: Path) -> None:
    api.fail("/api/v1/pods", 403, 'pods is forbidden: User "ci" cannot list resource "pods" '
                                  'in API group "" at the cluster scope')
    err = _api_error(kubeconfig(api, tmp_path))
    assert err.status == 403
    assert err.message == (f"{api.url}/api/v1/pods: 403 Forbidden: pods is forbidden: User "
                           "\"ci\" cannot list resource \"pods\" in API group \"\" at the "
                           "cluster scope")


def test_wrong_token_is_401(api: FakeKubeApi, tmp_path: Path) -> None:
    config = kubeconfig(api, tmp_path)
    api.token = "rotated"
    err = _api_error(config)
    assert (err.status, err.message) == (401, f"{api.url}/api/v1/nodes: 401 Unauthorized: "
                                              "Unauthorized")


def test_a_failing_exec_plugin_ends_in_401(api: FakeKubeApi, tmp_path: Path) -> None:
    plugin = tmp_path / "broken.py"
    plugin.write_text("import sys\nsys.exit('yc: not logged in')\n")
    import sys
    err = _api_error(kubeconfig(api, tmp_path, exec_command=[sys.executable, str(plugin)]))
    assert err.status == 401


def test_server_down(tmp_path: Path) -> None:
    fake = FakeKubeApi().start()
    config = kubeconfig(fake, tmp_path)
    fake.stop()
    err = _api_error(config)
    assert err.status is None
    assert "cannot connect" in err.message and "Connection refused" in err.message


def test_tls_failure(api: FakeKubeApi, tmp_path: Path) -> None:
    config = kubeconfig(api, tmp_path, server=api.url.replace("http://", "https://"))
    err = _api_error(config)
    assert "TLS failed" in err.message


def test_unknown_context_is_exit_4_listing_the_contexts(api: FakeKubeApi,
                                                        tmp_path: Path) -> None:
    err = _api_error(kubeconfig(api, tmp_path, context="staging"), "prod")
    assert err.message.endswith("has no context 'prod'")
    assert err.hint is not None and err.hint.startswith("its contexts: staging;")
    assert api.requests == []


@pytest.mark.parametrize("content", [None, "", "just text\n", "[1, 2]\n", "\x00\xff"])
def test_bad_or_missing_kubeconfig(tmp_path: Path, content: str | None) -> None:
    path = tmp_path / "config"
    if content is not None:
        path.write_text(content, encoding="latin-1")
    err = _api_error(str(path))
    assert err.message.startswith(f"kubeconfig {path}")


@pytest.mark.parametrize(("content", "says"), [
    (None, "file not found"),
    ("garbage: [::\n", "not valid YAML (line 1, column 11): expected the node content, "
                        "but found ':'"),
    ("- a\n", "not a kubeconfig: its top level is a list, not a mapping"),
])
def test_kubeconfig_faults_say_what_is_wrong(tmp_path: Path, content: str | None, says: str
                                            ) -> None:
    path = tmp_path / "config"
    if content is not None:
        path.write_text(content)
    err = _api_error(str(path))
    assert err.exit_code == EXIT_API
    assert err.message == f"kubeconfig {path}: {says}"


def test_a_bad_object_from_the_api_names_the_url(api: FakeKubeApi, tmp_path: Path) -> None:
    # 13 pods sorted by namespace: zz/zz is the 13th, item 2 of the third page of 5
    api.add([ko.pod("zz", "zz", ko.pod_spec([ko.container("c", {"cpu": "lots"})]))])
    with pytest.raises(BadInput) as info:
        read_live(kubeconfig(api, tmp_path), page_size=5)
    assert str(info.value) == (f"{api.url}/api/v1/pods (page 3): $.items[2].spec."
                               "containers[0].resources.requests.cpu: not a quantity: 'lots'")


def test_the_client_is_imported_only_by_the_live_reader() -> None:
    import subprocess
    import sys
    code = ("import sys, json; from ngupgrade.adapters.kube import read_dump_bytes; "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('kubernetes', "
            "'urllib3', 'grpc')))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True,
                         cwd=Path(__file__).resolve().parent.parent, text=True).stdout
    assert json.loads(out) == []
