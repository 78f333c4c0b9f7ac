"""The Selectel project quota file (``preflight --quotas FILE`` on a Selectel state): the
documented format, and strict validation naming the file, the JSON path and the closest key."""

from __future__ import annotations

from pathlib import Path

import pytest

from ngupgrade.adapters.files.project_quota_file import (
    parse_project_quotas,
    read_project_quota_file,
)
from ngupgrade.core.errors import BadInput
from ngupgrade.core.model import QuotaLimit
from tests.conftest import EXAMPLES

PROJECT = "9d7c2a1e5b0f4c3d8e6a7b1c2d3e4f50"


def _doc(**quotas: object) -> dict:
    return {"project_id": PROJECT, "quotas": quotas or {
        "compute_cores": [{"region": "ru-7", "zone": "ru-7a", "value": 60, "used": 40}]}}


def test_example_file_has_the_project_and_four_quotas_of_ru_7a() -> None:
    found = read_project_quota_file(str(EXAMPLES / "selectel" / "quotas.yaml"))
    assert found.single_cloud_id() == PROJECT
    assert dict(found.clouds[PROJECT]) == {
        "compute_cores.ru-7a": QuotaLimit("compute_cores.ru-7a", 60, 40),
        "compute_ram.ru-7a": QuotaLimit("compute_ram.ru-7a", 131072, 98304),
        "volume_gigabytes_fast.ru-7a": QuotaLimit("volume_gigabytes_fast.ru-7a", 1000, 800),
        "volume_gigabytes_universal.ru-7a":
            QuotaLimit("volume_gigabytes_universal.ru-7a", 500, 100),
    }
    assert [q.quota_id for q in found.list_quota_limits(PROJECT, "compute_ram")] == [
        "compute_ram.ru-7a"]


@pytest.mark.parametrize(
    ("doc", "path", "message"),
    [({"project": PROJECT, "quotas": {}}, "$.project",
      "unknown key 'project' (did you mean 'project_id'?)"),
     (_doc(compute_core=[]), "$.quotas.compute_core",
      "unknown key 'compute_core' (did you mean 'compute_cores'?)"),
     (_doc(volume_gigabytes_ssd=[]), "$.quotas.volume_gigabytes_ssd",
      "unknown key 'volume_gigabytes_ssd' (did you mean"),
     (_doc(compute_cores=[{"zone": "ru-7a", "valu": 1, "used": 0}]),
      "$.quotas.compute_cores[0].valu", "unknown key 'valu' (did you mean 'value'?)"),
     (_doc(compute_cores=[{"zone": "ru-7a", "value": 10, "used": -1}]),
      "$.quotas.compute_cores[0].used", "used must be a whole number >= 0, found -1"),
     (_doc(compute_cores=[{"zone": "ru-7a", "value": 1.5, "used": 0}]),
      "$.quotas.compute_cores[0].value", "value must be a whole number >= 0, found 1.5"),
     (_doc(compute_cores=[{"value": 10, "used": 0}]), "$.quotas.compute_cores[0].zone",
      "zone must be a non-empty string"),
     (_doc(compute_cores=[{"zone": "ru-7a", "value": 1, "used": 0},
                          {"zone": "ru-7a", "value": 2, "used": 0}]),
      "$.quotas.compute_cores[1].zone", "zone ru-7a appears twice"),
     ({"quotas": {"compute_cores": []}}, "$.project_id", "project_id must be a non-empty"),
     ({"project_id": PROJECT}, "$.quotas", "quotas must be an object"),
     ([], "$", "expected an object with project_id and quotas, found a list")],
)
def test_bad_files_name_the_path_and_the_closest_key(doc: object, path: str,
                                                      message: str) -> None:
    with pytest.raises(BadInput) as info:
        parse_project_quotas(doc, "q.yaml")
    assert info.value.path == path
    assert message in str(info.value)
    assert str(info.value).startswith(f"q.yaml: {path}: ")
    assert info.value.exit_code == 3


def test_unreadable_and_malformed_files_are_bad_input(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match=r"no such file \(the quota file\)"):
        read_project_quota_file(str(tmp_path / "missing.yaml"))
    broken = tmp_path / "broken.yaml"
    broken.write_text("project_id: [\n")
    with pytest.raises(BadInput, match="neither JSON"):
        read_project_quota_file(str(broken))
