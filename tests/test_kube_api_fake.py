"""The fake Kubernetes API itself (ngupgrade.testing.kube_api), spoken to over plain HTTP:
what a list page looks like, pagination, errors as Status bodies, the request log."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from ngupgrade.testing import kube_objects as ko
from ngupgrade.testing.kube_api import FakeKubeApi


@pytest.fixture
def api() -> Iterator[FakeKubeApi]:
    pods = [ko.pod(f"p{i}", "b" if i % 2 else "a", ko.pod_spec([ko.container("c")]))
            for i in range(5)]
    with FakeKubeApi([ko.as_list([ko.node("n1"), *pods])], token="tok") as fake:
        yield fake


def get(api: FakeKubeApi, path: str, *, token: str | None = "tok",
        method: str = "GET") -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(api.url + path, method=method)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_a_typed_list_page_as_the_api_serves_it(api: FakeKubeApi) -> None:
    status, body = get(api, "/api/v1/pods?limit=2")
    assert status == 200
    assert (body["kind"], body["apiVersion"]) == ("PodList", "v1")
    # sorted by namespace then name; items carry no kind/apiVersion in a typed list
    assert [(i["metadata"]["namespace"], i["metadata"]["name"]) for i in body["items"]] == [
        ("a", "p0"), ("a", "p2")]
    assert "kind" not in body["items"][0]
    assert body["metadata"]["remainingItemCount"] == 3
    status, rest = get(api, f"/api/v1/pods?limit=10&continue={body['metadata']['continue']}")
    assert [i["metadata"]["name"] for i in rest["items"]] == ["p4", "p1", "p3"]
    assert "continue" not in rest["metadata"]


def test_errors_are_status_bodies(api: FakeKubeApi) -> None:
    assert get(api, "/api/v1/pods", token=None)[0] == 401
    assert get(api, "/api/v1/pods", token="other")[1]["reason"] == "Unauthorized"
    assert get(api, "/api/v1/pods?continue=garbage")[0] == 400
    assert get(api, "/api/v1/namespaces/a/secrets")[0] == 404
    # no Ytsaurus seeded: the CRD is not installed
    assert get(api, "/apis/cluster.ytsaurus.tech/v1/ytsaurus")[1]["code"] == 404
    status, body = get(api, "/api/v1/pods", method="DELETE")
    assert (status, body["kind"], body["status"]) == (405, "Status", "Failure")


def test_scripted_faults_fire_the_given_number_of_times(api: FakeKubeApi) -> None:
    api.fail("/api/v1/nodes", 503, times=2)
    assert [get(api, "/api/v1/nodes")[0] for _ in range(3)] == [503, 503, 200]
    api.fail("/api/v1/nodes", 403, "nodes is forbidden", times=None)
    assert [get(api, "/api/v1/nodes")[1]["message"] for _ in range(2)] == [
        "nodes is forbidden"] * 2


def test_the_request_log(api: FakeKubeApi) -> None:
    get(api, "/api/v1/nodes?limit=7")
    get(api, "/api/v1/pods", method="POST")
    assert [(r.method, r.path, dict(r.query)) for r in api.requests] == [
        ("GET", "/api/v1/nodes", {"limit": "7"}), ("POST", "/api/v1/pods", {})]
    assert len(api.calls("/api/v1/nodes")) == 1


def test_custom_resources_keep_their_kind() -> None:
    yt = ko.ytsaurus("yt", "yt", {"httpProxies": [{"instanceCount": 1}]})
    with FakeKubeApi([yt]) as fake:
        _status, body = get(fake, "/apis/cluster.ytsaurus.tech/v1/ytsaurus", token=None)
    assert body["kind"] == "YtsaurusList"
    assert body["items"][0]["kind"] == "Ytsaurus"


def test_field_and_label_selectors_filter_before_paging() -> None:
    """``spec.nodeName=N`` (kubectl drain's list), ``spec.nodeName=`` (unscheduled),
    ``status.phase``, ``!=``, label equality and existence; an unindexed field is 400."""
    spec = ko.pod_spec([ko.container("c")])
    pods = [ko.pod("on-n1", "a", {**spec, "nodeName": "n1"}, labels={"app": "x"}),
            ko.pod("on-n2", "a", {**spec, "nodeName": "n2"}, labels={"app": "y"}),
            ko.pod("waiting", "a", spec, phase="Pending", labels={"app": "x"}),
            ko.pod("done", "b", {**spec, "nodeName": "n1"}, phase="Succeeded")]
    with FakeKubeApi(pods) as fake:
        def names(query: str) -> list[str]:
            status, body = get(fake, f"/api/v1/pods?{query}", token=None)
            assert status == 200, body
            return [i["metadata"]["name"] for i in body["items"]]

        assert names("fieldSelector=spec.nodeName%3Dn1") == ["on-n1", "done"]
        assert names("fieldSelector=spec.nodeName%3Dn1,status.phase!%3DSucceeded") == ["on-n1"]
        assert names("fieldSelector=spec.nodeName%3D,status.phase%3DPending") == ["waiting"]
        assert names("labelSelector=app%3Dx") == ["on-n1", "waiting"]
        assert names("labelSelector=!app") == ["done"]
        assert names("fieldSelector=spec.nodeName%3Dn1&limit=1") == ["on-n1"]
        status, body = get(fake, "/api/v1/pods?fieldSelector=spec.hostname%3Dx", token=None)
        assert (status, body["message"]) == (400, "field label not supported: spec.hostname")


def test_objects_change_in_place() -> None:
    with FakeKubeApi([ko.node("n1")]) as fake:
        (node,) = fake.objects("Node")
        node["spec"] = {"unschedulable": True}
        fake.put("Node", node)
        fake.put("Node", {"metadata": {"name": "n0"}})
        assert [n["metadata"]["name"] for n in get(fake, "/api/v1/nodes", token=None)[1]
                ["items"]] == ["n0", "n1"]
        assert get(fake, "/api/v1/nodes?fieldSelector=spec.unschedulable%3Dtrue",
                   token=None)[1]["items"][0]["metadata"]["name"] == "n1"
        fake.delete("Node", "", "n0")
        assert [n["metadata"]["name"] for n in fake.objects("Node")] == ["n1"]


def test_a_client_that_hangs_up_prints_no_traceback(capsys) -> None:
    """A client giving up mid-answer (a read timeout) is no fault of the fake: the server's
    error hook stays quiet for a broken pipe or a reset, and still reports anything else."""
    from ngupgrade.testing.kube_api import _QuietServer

    server = _QuietServer(("127.0.0.1", 0), object)  # type: ignore[arg-type]
    try:
        for gone in (BrokenPipeError(32, "Broken pipe"), ConnectionResetError(104, "reset")):
            try:
                raise gone
            except OSError:
                server.handle_error(None, ("127.0.0.1", 1))
        assert capsys.readouterr().err == ""
        try:
            raise ValueError("a real fault")
        except ValueError:
            server.handle_error(None, ("127.0.0.1", 1))
        assert "ValueError: a real fault" in capsys.readouterr().err
    finally:
        server.server_close()
