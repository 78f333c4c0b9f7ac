"""Another tool's input given as ``--state`` is named by what it holds, whatever its
serialization: one JSON or YAML document, or a stream of YAML documents between ``---`` as
kubectl apply takes (zegl/kube-score ``score/testdata/all-ok.yaml``, in tests/real/kube/, is a
Pod and a NetworkPolicy in one file)."""

from __future__ import annotations

from pathlib import Path

from ngupgrade.app.load import other_input

REAL = Path(__file__).resolve().parent / "real"


def test_a_stream_of_kubernetes_documents_is_kubernetes_objects() -> None:
    path = REAL / "kube" / "kube-score-all-ok.yaml"
    err = other_input(path.read_bytes(), str(path), "--state")
    assert err is not None
    assert str(err) == (f"{path}: $: the file holds Kubernetes objects (`kubectl get -o "
                        "json|yaml`), not what --state takes")


def test_a_stream_of_quota_outputs_is_a_quota_file() -> None:
    one = (REAL / "quota" / "yandex-docs-quota-limit-list.yaml").read_bytes()
    err = other_input(one + b"---\n" + one, "q.yaml", "--state")
    assert err is not None and "the file holds quota limits" in str(err)


def test_documents_of_different_tools_are_none_of_them() -> None:
    kube = (REAL / "kube" / "kubent-poddisruptionbudget-v1beta1.yaml").read_bytes()
    quota = (REAL / "quota" / "yandex-docs-quota-limit-get.yaml").read_bytes()
    assert other_input(kube + b"---\n" + quota, "mixed.yaml", "--state") is None


def test_yaml_given_as_the_plan_names_its_flag(run_cli) -> None:
    """The plan reader reads JSON only; YAML kubectl objects or a yc quota output given as
    --plan said "not valid JSON ... a partial `terraform show -json PLANFILE`"."""
    for folder, name, flag in [("kube", "popeye-pdb-1.yaml", "--cluster"),
                               ("quota", "yandex-docs-quota-limit-list.yaml", "--quotas")]:
        path = str(REAL / folder / name)
        result = run_cli("plan", "--plan", path)
        assert result.exit_code == 3
        assert result.stderr.startswith(f"error: {path}: $: the file holds ")
        assert f"not what --plan takes\nhint: pass it with {flag} " in result.stderr
