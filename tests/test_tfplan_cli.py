"""``plan --plan`` and ``preflight --plan`` end to end on plans built from the example state.

Numbers by hand from terraform/examples/generate_state.py and quotas.yaml:
workers: fixed, standard-v3, 4 cores, 16 GiB, network-ssd 64 GiB, NAT; batch: auto 1..7,
2 cores, 4 GiB, network-hdd 96 GiB, policy 2/1; gpu: 1 node, no policy (3/0 assumed).
quotas.yaml headroom: instances 24-11=13, cores 96-54=42, memory 384-192=192 GiB, disks 64-23=41,
ssd 1024-400=624 GiB, hdd 2048-800=1248 GiB, vpc.externalAddresses 8-6=2.
"""

from __future__ import annotations

import json
from pathlib import Path

from ngupgrade.core.model import GIB
from tests._tfplan import BATCH, CLOUD, GPU, WORKERS, Edit, edit, plans, state, write
from tests.conftest import EXAMPLES

QUOTAS = str(EXAMPLES / "quotas.yaml")
ROLL_PLAN = str(EXAMPLES / "plan-roll.json")
REPLACE_PLAN = str(EXAMPLES / "plan-replace.json")


def demand(doc: dict) -> dict[str, int]:
    return {q["quota_id"]: q["demand"] for c in doc["clouds"] for q in c["quotas"]}


def status(doc: dict) -> dict[str, str]:
    return {q["quota_id"]: q["status"] for c in doc["clouds"] for q in c["quotas"]}


def changes(doc: dict) -> dict[str, str]:
    return {c["address"]: c["change"] for c in doc["changes"]}


def quota_file(tmp_path: Path, **headroom: int) -> str:
    """The example cloud's quotas with some headrooms replaced (usage 0, limit = headroom)."""
    import yaml

    doc = yaml.safe_load(Path(QUOTAS).read_text())
    for qid, room in headroom.items():
        doc[CLOUD][qid.replace("_", ".")] = {"limit": room, "usage": 0}
    path = tmp_path / "quotas.json"
    path.write_text(json.dumps(doc))
    return str(path)


def test_two_groups_roll_in_one_apply_counted_together(run_cli, tmp_path: Path) -> None:
    # --together: both surges at once (the default counts one group of the cluster at a time)
    res = run_cli("preflight", "--plan", ROLL_PLAN, "--quotas", QUOTAS, "--together",
                  "-o", "json")
    assert res.exit_code == 0, res.stderr
    doc = res.json()
    assert changes(doc) == {GPU: "none", WORKERS: "roll", BATCH: "roll"}
    # workers 1/0 fixed 3: 1 extra; batch 2/1 auto 1..7, min assumed: 7 + 2 - 1 = 8 extra.
    got = demand(doc)
    assert got["compute.instances.count"] == 1 + 8
    assert got["compute.instanceCores.count"] == 4 + 8 * 2
    assert got["compute.instanceMemory.size"] == (16 + 8 * 4) * GIB
    assert got["compute.ssdDisks.size"] == 64 * GIB
    assert got["compute.hddDisks.size"] == 8 * 96 * GIB
    assert got["managed-kubernetes.nodes.count"] == 1 + 2
    assert got["vpc.externalAddresses.count"] == 1
    assert [g["address"] for g in doc["groups"]] == [WORKERS, BATCH]
    assert {g["address"]: g["terraform"]["attributes"] for g in doc["groups"]} == {
        WORKERS: ["version"], BATCH: ["version"]}
    codes = [f["code"] for f in doc["plan"]["findings"]]
    assert codes == ["rolls-together"]
    assert doc["ok"] is True and doc["plan"]["ok"] is True


def test_rolls_together_short_one_after_another_fits(run_cli, tmp_path: Path) -> None:
    """C25: 9 extra VMs together (--together) against a headroom of 8: refused; one after
    another (--sequential), or one group of the cluster at a time (the default: the cluster
    runs one node-group operation at a time), 8 fits."""
    quotas = quota_file(tmp_path, compute_instances_count=8)
    default = run_cli("preflight", "--plan", ROLL_PLAN, "--quotas", quotas, "-o", "json")
    assert default.exit_code == 0, default.stderr
    assert default.json()["mode"]["concurrency"] == "one-per-cluster"
    assert demand(default.json())["compute.instances.count"] == 8
    assert "the service runs one operation of a cluster at a time" in (
        default.json()["plan"]["findings"][0]["message"])
    res = run_cli("preflight", "--plan", ROLL_PLAN, "--quotas", quotas, "--together",
                  "-o", "json")
    assert res.exit_code == 1
    doc = res.json()
    assert demand(doc)["compute.instances.count"] == 9
    assert status(doc)["compute.instances.count"] == "short"
    assert "compute.instances.count needs 9 VMs, headroom 8 VMs" in res.stderr
    seq = run_cli("preflight", "--plan", ROLL_PLAN, "--quotas", quotas, "--sequential",
                  "-o", "json")
    assert seq.exit_code == 0
    assert demand(seq.json())["compute.instances.count"] == 8
    note = seq.json()["plan"]["findings"][0]["message"]
    assert "-parallelism=1" in note


def test_replace_of_five_nodes_delete_first_is_blocking(run_cli, tmp_path: Path) -> None:
    """C24: a ForceNew change of a 5-node surge-only group: every node deleted first."""
    plan = plans.build_plan(state(workers_size=5), {WORKERS: Edit(
        ["delete", "create"], edit(allowed_unsafe_sysctls=["net.core.somaxconn"]),
        replace_paths=[["allowed_unsafe_sysctls"]],
        action_reason="replace_because_cannot_update")})
    res = run_cli("preflight", "--plan", write(tmp_path, plan), "--quotas", QUOTAS, "-o", "json")
    assert res.exit_code == 1
    doc = res.json()
    assert doc["ok"] is False and doc["plan"]["ok"] is False
    workers = next(g for g in doc["groups"] if g["address"] == WORKERS)
    assert workers["change"] == "replace"
    assert workers["terraform"]["replace_order"] == "delete-first"
    assert workers["terraform"]["attributes"] == ["allowed_unsafe_sysctls"]
    assert workers["terraform"]["nodes_before"] == 5
    # the old 5 nodes are gone before the new 5 exist: no quota on top of today's usage
    assert workers["extra_nodes"]["worst_case"] == 0
    assert all(v == 0 for v in demand(doc).values())
    finding = workers["findings"][-1]
    assert finding["code"] == "replace-deletes-all-nodes"
    assert finding["severity"] == "blocking"
    assert "all 5 nodes are deleted before the new group exists" in finding["message"]
    assert "the deploy policy does not apply" in finding["message"]
    assert doc["suggestions"] == []
    assert "plan gate failed" in res.stderr


def test_replace_create_before_destroy_needs_a_second_group(run_cli, tmp_path: Path) -> None:
    """C24 with create_before_destroy: a whole second group of 5 at once."""
    plan = plans.build_plan(state(workers_size=5), {WORKERS: Edit(
        ["create", "delete"], edit(allowed_unsafe_sysctls=["net.core.somaxconn"]),
        replace_paths=[["allowed_unsafe_sysctls"]],
        action_reason="replace_because_cannot_update")})
    res = run_cli("preflight", "--plan", write(tmp_path, plan), "--quotas", QUOTAS, "-o", "json")
    assert res.exit_code == 1
    doc = res.json()
    workers = next(g for g in doc["groups"] if g["address"] == WORKERS)
    assert workers["terraform"]["replace_order"] == "create-first"
    assert workers["extra_nodes"]["worst_case"] == 5
    got = demand(doc)
    assert got["compute.instances.count"] == 5
    assert got["compute.instanceCores.count"] == 5 * 4
    assert got["compute.instanceMemory.size"] == 5 * 16 * GIB
    assert got["compute.ssdDisks.size"] == 5 * 64 * GIB
    assert got["managed-kubernetes.nodes.count"] == 5
    assert got["vpc.externalAddresses.count"] == 5
    assert status(doc)["vpc.externalAddresses.count"] == "short"  # 5 > 8 - 6
    assert status(doc)["compute.instances.count"] == "ok"         # 5 <= 13
    assert doc["suggestions"] == []  # no deploy policy makes a replace smaller
    assert "a second whole group (5 nodes) needs quota at once" in \
        workers["findings"][-1]["message"]


def test_policy_and_version_in_one_apply_roll_with_the_new_policy(run_cli, tmp_path: Path
                                                                  ) -> None:
    plan = plans.build_plan(state(), {WORKERS: Edit(["update"], edit(version="1.30",
                                                                    policy=(3, 0)))})
    path = write(tmp_path, plan)
    res = run_cli("plan", "--plan", path, "-o", "json")
    assert res.exit_code == 0, res.stderr
    workers = next(g for g in res.json()["groups"] if g["address"] == WORKERS)
    assert workers["change"] == "roll"
    assert workers["terraform"]["attributes"] == ["version"]
    # 3 nodes at 3/0 (the new policy): surge 3, peak 6, one cycle of 6 minutes
    assert workers["effective_policy"] == {"max_expansion": 3, "max_unavailable": 0}
    assert (workers["surge_nodes"], workers["peak_nodes"]) == (3, 6)
    assert workers["cycles"] == {"min": 1, "max": 1}
    assert workers["duration"]["max_minutes"] == 6
    assert [f["code"] for f in workers["findings"]] == ["policy-changes-with-roll"]
    pre = run_cli("preflight", "--plan", path, "--quotas", QUOTAS, "-o", "json")
    # 3 surge nodes with NAT need 3 public IPs; the cloud has 8 - 6 = 2 left
    assert pre.exit_code == 1
    assert demand(pre.json())["compute.instances.count"] == 3
    assert status(pre.json())["vpc.externalAddresses.count"] == "short"


def test_policy_lowered_with_the_roll_counts_the_larger_surge(run_cli, tmp_path: Path) -> None:
    """3/0 -> 1/0 with a version change: planned at 1/0, quota at the old E=3 (not documented
    which one the service uses: the worse)."""
    plan = plans.build_plan(state(workers_policy=(3, 0)), {WORKERS: Edit(
        ["update"], edit(version="1.30", policy=(1, 0)))})
    path = write(tmp_path, plan)
    planned = run_cli("plan", "--plan", path, "-o", "json").json()
    workers = next(g for g in planned["groups"] if g["address"] == WORKERS)
    assert (workers["surge_nodes"], workers["peak_nodes"], workers["cycles"]["max"]) == (1, 4, 3)
    assert workers["terraform"]["quota_policy"] == {"max_expansion": 3, "max_unavailable": 0}
    pre = run_cli("preflight", "--plan", path, "--quotas", QUOTAS, "-o", "json").json()
    assert demand(pre)["compute.instances.count"] == 3
    group = next(g for g in pre["groups"] if g["address"] == WORKERS)
    assert group["policy"]["source"] == "plan"
    # the text names the source as `plan` does (was "3/0 (plan)", beside the state's "1/0")
    text = run_cli("preflight", "--plan", path, "--quotas", QUOTAS).stdout
    (row,) = [line.split() for line in text.splitlines()
              if line.startswith(f"  {WORKERS} ") and CLOUD in line]  # node groups, not changes
    assert row[:7] == [WORKERS, CLOUD, "3/0", "(from", "the", "Terraform", "plan)"]


def test_unknown_size_after_apply_is_the_worst_case(run_cli, tmp_path: Path) -> None:
    """`size = <something known after apply>` with a version change: N taken as 200 (the
    per-group node quota): growth 197 + surge 1 = 198 VMs against a headroom of 13."""
    plan = plans.build_plan(state(), {WORKERS: Edit(
        ["update"], edit(version="1.30"),
        unknown=[("scale_policy", 0, "fixed_scale", 0, "size")])})
    path = write(tmp_path, plan)
    res = run_cli("preflight", "--plan", path, "--quotas", QUOTAS, "-o", "json")
    assert res.exit_code == 1
    doc = res.json()
    workers = next(g for g in doc["groups"] if g["address"] == WORKERS)
    assert workers["change"] == "roll"
    assert workers["terraform"]["unknown"] == ["scale_policy.fixed_scale.size"]
    assert workers["terraform"]["nodes_after"] == 200
    assert workers["extra_nodes"]["worst_case"] == 197 + 1
    assert demand(doc)["compute.instances.count"] == 198
    assert status(doc)["compute.instances.count"] == "short"
    unknown = [f for f in workers["findings"] if f["code"] == "unknown-after-apply"]
    assert "scale_policy.fixed_scale.size as 200" in unknown[0]["message"]
    text = run_cli("plan", "--plan", path)
    assert "unknown: scale_policy.fixed_scale.size" in text.stdout
    assert "nodes           200 (fixed size)" in text.stdout


def test_resize_checks_the_growth(run_cli, tmp_path: Path) -> None:
    plan = plans.build_plan(state(), {WORKERS: Edit(["update"], edit(size=5))})
    res = run_cli("preflight", "--plan", write(tmp_path, plan), "--quotas", QUOTAS, "-o", "json")
    assert res.exit_code == 0
    doc = res.json()
    assert changes(doc)[WORKERS] == "resize"
    got = demand(doc)
    assert got["compute.instances.count"] == 2
    assert got["compute.instanceCores.count"] == 8
    assert got["compute.instanceMemory.size"] == 32 * GIB
    assert got["vpc.externalAddresses.count"] == 2  # 2 <= 8 - 6: equality passes


def test_in_place_change_needs_no_node(run_cli, tmp_path: Path) -> None:
    plan = plans.build_plan(state(), {WORKERS: Edit(["update"], edit(
        node_labels={"tier": "web"}, policy=(2, 0)))})
    res = run_cli("preflight", "--plan", write(tmp_path, plan), "--quotas", QUOTAS)
    assert res.exit_code == 0, res.stderr
    assert "Quota preflight: PASS: no change in this plan needs nodes" in res.stdout
    doc = run_cli("plan", "--plan", write(tmp_path, plan), "-o", "json").json()
    workers = next(g for g in doc["groups"] if g["address"] == WORKERS)
    assert workers["change"] == "in-place"
    assert workers["terraform"]["attributes"] == ["deploy_policy.max_expansion", "node_labels"]
    assert workers["timeline"] == []


def test_create_is_quota_checked(run_cli, tmp_path: Path) -> None:
    doc = state()
    group = json.loads(json.dumps(next(r for r in doc["resources"]
                                       if r.get("name") == "workers")))
    group["name"] = "web"
    attrs = group["instances"][0]["attributes"]
    attrs.update(name="web", id="cat9newweb000000zzzz")
    attrs["scale_policy"][0]["fixed_scale"][0]["size"] = 2
    doc["resources"].append(group)
    plan = plans.build_plan(doc, {"yandex_kubernetes_node_group.web": Edit(["create"])})
    res = run_cli("preflight", "--plan", write(tmp_path, plan), "--quotas", QUOTAS, "-o", "json")
    assert res.exit_code == 0, res.stderr
    out = res.json()
    assert changes(out)["yandex_kubernetes_node_group.web"] == "create"
    got = demand(out)
    assert got["compute.instances.count"] == 2
    assert got["compute.ssdDisks.size"] == 2 * 64 * GIB
    assert got["vpc.externalAddresses.count"] == 2


def test_delete_and_taints(run_cli, tmp_path: Path) -> None:
    deleted = plans.build_plan(state(), {WORKERS: Edit(["delete"])})
    res = run_cli("preflight", "--plan", write(tmp_path, deleted), "--quotas", QUOTAS,
                  "-o", "json")
    assert res.exit_code == 0
    entry = next(c for c in res.json()["changes"] if c["address"] == WORKERS)
    assert entry["change"] == "delete"
    assert entry["findings"][0]["code"] == "group-deleted"
    tainted = plans.build_plan(state(workers_size=5), {WORKERS: Edit(
        ["update"], edit(node_taints=["dedicated=web:NoSchedule"]))})
    res = run_cli("plan", "--plan", write(tmp_path, tainted, "t.json"), "-o", "json")
    assert res.exit_code == 1
    workers = next(g for g in res.json()["groups"] if g["address"] == WORKERS)
    assert workers["change"] == "replace"
    assert workers["terraform"]["actions"] == ["update"]
    assert workers["findings"][0]["code"] == "taints-recreate-group"
    assert "all 5 nodes deleted first" in workers["findings"][0]["message"]


def test_example_replace_plan_table(run_cli) -> None:
    res = run_cli("plan", "--plan", REPLACE_PLAN)
    assert res.exit_code == 1
    assert "yandex_kubernetes_node_group.workers" in res.stdout
    assert "REPLACE  allowed_unsafe_sysctls  3" in res.stdout
    assert "[BLOCKING] replace-deletes-all-nodes" in res.stdout


def test_tf_dir_runs_show_json_with_the_stand_in(run_cli, stand_in_terraform: Path,
                                                 tmp_path: Path) -> None:
    work = tmp_path / "infra"
    (work / ".terraform").mkdir(parents=True)
    (work / "tfplan").write_bytes(Path(ROLL_PLAN).read_bytes())
    (work / "release.tfplan").write_bytes(Path(REPLACE_PLAN).read_bytes())
    res = run_cli("preflight", "--plan", f"tf:{work}", "--quotas", QUOTAS, "-o", "json")
    assert res.exit_code == 0, res.stderr
    assert changes(res.json())[WORKERS] == "roll"
    res = run_cli("plan", "--plan", f"tf:{work}/release.tfplan", "-o", "json")
    assert res.exit_code == 1
    calls = [json.loads(line) for line in stand_in_terraform.read_text().splitlines()]
    assert [c["argv"] for c in calls] == [["show", "-json", "-no-color", "tfplan"],
                                          ["show", "-json", "-no-color", "release.tfplan"]]
    assert {c["cwd"] for c in calls} == {str(work)}
    (work / "tfplan").unlink()
    missing = run_cli("plan", "--plan", f"tf:{work}")
    assert missing.exit_code == 3
    assert "no saved plan file 'tfplan'" in missing.stderr
    (work / "tfplan").write_bytes(b"{}")
    (work / ".terraform").rmdir()
    uninit = run_cli("plan", "--plan", f"tf:{work}")
    assert uninit.exit_code == 3
    assert "terraform init" in uninit.stderr


def test_stdin_and_bad_input(run_cli, tmp_path: Path) -> None:
    res = run_cli("plan", "--plan", "-", "-o", "json", stdin=Path(ROLL_PLAN).read_bytes())
    assert res.exit_code == 0
    doc = json.loads(Path(ROLL_PLAN).read_text())
    doc["resource_changes"][3]["change"]["after"]["scale_policy"] = "big"
    bad = run_cli("plan", "--plan", write(tmp_path, doc))
    assert bad.exit_code == 3
    assert "plan.json: $.resource_changes[3].change.after.scale_policy" in bad.stderr
    state_file = run_cli("plan", "--plan", str(EXAMPLES / "terraform.tfstate"))
    assert state_file.exit_code == 3
    assert "the file holds a Terraform state, not what --plan takes" in state_file.stderr
    zipped = tmp_path / "tfplan"
    zipped.write_bytes(b"PK\x03\x04rest")
    assert run_cli("plan", "--plan", str(zipped)).exit_code == 3
    both = run_cli("plan", "--plan", ROLL_PLAN, "--state", str(EXAMPLES / "terraform.tfstate"))
    assert both.exit_code == 2
    assert "Traceback" not in bad.stderr + state_file.stderr


def test_a_byte_of_another_encoding_in_a_resource_change_is_named_in_the_whole_file(
        run_cli, tmp_path: Path) -> None:
    """resource_changes are decoded one by one after the header: a Windows-1251 byte in the
    address of the workers' change is still named at its offset and line in the file."""
    data = Path(ROLL_PLAN).read_bytes()
    at = data.index(b'"address": "yandex_kubernetes_node_group.workers"',
                    data.index(b'"resource_changes"')) + len('"address": "')
    bad = tmp_path / "plan.json"
    bad.write_bytes(data[:at] + "ж".encode("cp1251") + data[at + 1:])
    res = run_cli("plan", "--plan", str(bad))
    assert res.exit_code == 3
    line = data.count(b"\n", 0, at) + 1
    assert res.stderr.splitlines()[0] == (
        f"error: {bad}: $: not UTF-8 text at byte offset {at} (line {line}): byte E6 is not "
        "UTF-8 (a file saved as Latin-1, Windows-1251 or the like?)")
    assert "terraform show -json PLANFILE > plan.json" in res.stderr


def test_readme_ci_commands_run_as_documented(run_cli, monkeypatch) -> None:
    """The README's CI section, run on the example plans from the repository root."""
    from tests.conftest import ROOT

    monkeypatch.chdir(ROOT)
    readme = (ROOT / "README.md").read_text()
    section = readme.split("### CI:")[1].split("### For scripts")[0]
    commands = [line.split("#")[0].split()[1:] for line in section.splitlines()
                if line.startswith("ngupgrade ") and "examples/plan-" in line]
    got = [run_cli(*cmd).exit_code for cmd in commands]
    assert got == [0, 0, 1]


def test_example_plans_are_what_the_generator_writes() -> None:
    assert json.loads(Path(ROLL_PLAN).read_text()) == json.loads(
        json.dumps(plans.roll_plan()))
    assert json.loads(Path(REPLACE_PLAN).read_text()) == json.loads(
        json.dumps(plans.replace_plan()))


def test_bigger_nodes_in_the_roll_fail_the_gate_with_a_quota_hint(run_cli, tmp_path: Path
                                                                  ) -> None:
    """workers 3 nodes at 1/0, 4 -> 20 cores: the last wave holds 1 old + 3 new nodes,
    4 + 60 = 64 cores against 12 today: +52 > headroom 42. Nothing is replaced, so the hint
    names the quota, not a replace; even 0/1 needs 3 x 20 - 12 = 48 > 42: no policy helps."""
    def cores(attrs: dict) -> None:
        attrs["instance_template"][0]["resources"][0]["cores"] = 20
    plan = plans.build_plan(state(), {WORKERS: Edit(["update"], cores)})
    res = run_cli("preflight", "--plan", write(tmp_path, plan), "--quotas", QUOTAS)
    assert res.exit_code == 1
    assert "compute.instanceCores.count needs 52 cores, headroom 42 cores" in res.stderr
    assert "replace" not in res.stderr.split("hint:")[1]
    assert "a short quota: ask for a quota increase" in res.stderr


def test_odd_plans_are_bad_input_never_a_pass(run_cli, tmp_path: Path) -> None:
    """An errored plan, one not applyable yet changing a group, an action Terraform never
    writes, an address listed twice, an after_unknown that is not an object: exit 3, naming
    the JSON path. A plan with no change and applyable false (Terraform's "no changes") reads."""
    def roll() -> dict:
        return plans.build_plan(state(), {WORKERS: Edit(["update"], edit(version="1.30"))})

    def index(doc: dict) -> int:
        return next(i for i, rc in enumerate(doc["resource_changes"])
                    if rc["address"] == WORKERS)

    errored = {**roll(), "errored": True, "applyable": False}
    unapplyable = {**roll(), "applyable": False}
    frob = roll()
    frob["resource_changes"][index(frob)]["change"]["actions"] = ["frob"]
    dup = roll()
    dup["resource_changes"].append(dup["resource_changes"][index(dup)])
    whole = roll()
    whole["resource_changes"][index(whole)]["change"]["after_unknown"] = True
    i = index(roll())
    for doc, where in [(errored, "$.errored"), (unapplyable, "$.applyable"),
                       (frob, f"$.resource_changes[{i}].change.actions"),
                       (dup, f"$.resource_changes[{len(dup['resource_changes']) - 1}].address"),
                       (whole, f"$.resource_changes[{i}].change.after_unknown")]:
        for command in ("plan", "preflight"):
            args = [command, "--plan", write(tmp_path, doc)]
            res = run_cli(*args, *(["--quotas", QUOTAS] if command == "preflight" else []))
            assert res.exit_code == 3, (where, res.stdout, res.stderr)
            assert f"plan.json: {where}" in res.stderr
    quiet = {**plans.build_plan(state(), {}), "applyable": False}
    assert run_cli("plan", "--plan", write(tmp_path, quiet)).exit_code == 0


def test_plan_overrides_with_a_plan_are_usage_errors(run_cli) -> None:
    """The plan's deploy policy and size are what apply: an override would print one policy in
    the table and roll another in the timeline."""
    for flag in (["--max-expansion", "5"], ["--max-unavailable", "1"], ["--nodes", "2"]):
        res = run_cli("plan", "--plan", ROLL_PLAN, "-g", "workers", *flag)
        assert res.exit_code == 2, flag
        assert f"{flag[0]} with --plan" in res.stderr


def test_a_planned_policy_is_labelled_from_the_plan(run_cli, tmp_path: Path) -> None:
    plan = plans.build_plan(state(), {WORKERS: Edit(["update"], edit(version="1.30"))})
    out = run_cli("plan", "--plan", write(tmp_path, plan), "-g", "workers").stdout
    assert "max_expansion 1, max_unavailable 0 (from the Terraform plan's planned values" in out
    assert "from the state" not in out


def test_the_plans_other_groups_count_in_the_cluster_node_limit(run_cli, tmp_path: Path
                                                                 ) -> None:
    """As `preflight --state` counts the state's groups: workers (fixed 3, 1/0: +1) rolls in
    cluster catq0n7i0h9ka1b2c3d4 beside gpu (fixed 1) and batch (auto 1..7, counted at its max
    7): 11 nodes + 1 surge = 12 > 11. Before, the plan's gate counted the groups it checked
    only (3 nodes + 1) and passed."""
    quotas = quota_file(tmp_path, **{"managed-kubernetes.clusterNodes.count": 11})
    cluster = ("managed-kubernetes.clusterNodes.count", "cluster catq0n7i0h9ka1b2c3d4")

    def row(plan: str) -> tuple[int, dict]:
        res = run_cli("preflight", "--plan", plan, "--quotas", quotas, "-g", "workers",
                      "-o", "json")
        rows = {(q["quota_id"], q["scope"]): q for c in res.json()["clouds"]
                for q in c["quotas"]}
        return res.exit_code, rows[cluster]

    code, got = row(ROLL_PLAN)
    assert code == 1
    assert (got["limit"], got["usage"], got["headroom"], got["demand"], got["status"]) == (
        11, 11, 0, 1, "short")
    same = run_cli("preflight", "--state", str(EXAMPLES / "terraform.tfstate"), "--quotas",
                   quotas, "-g", "workers", "-o", "json")
    assert same.exit_code == 1
    # A plan made with -target lists only the targeted group: the others are the prior
    # state's, counted the same.
    doc = json.loads(Path(ROLL_PLAN).read_text())
    doc["resource_changes"] = [rc for rc in doc["resource_changes"]
                               if rc["address"] in (WORKERS, "yandex_kubernetes_cluster.main")]
    code, got = row(write(tmp_path, doc, "targeted.json"))
    assert code == 1
    assert (got["usage"], got["demand"], got["status"]) == (11, 1, "short")


def test_a_live_policy_of_a_roll_is_labelled_live_not_from_the_plan(
        run_cli, tmp_path: Path, monkeypatch) -> None:
    """gpu rolls (version) and neither the plan nor the state sets its deploy policy: the
    live preflight counts the live group's 2/1 (NodeGroupService.Get), and names it so.
    Before, it read "2/1 (from the Terraform plan)" and `"source": "plan"`."""
    from tests._upgrade_helpers import example_cloud

    for var in ("YC_TOKEN", "YC_IAM_TOKEN", "YC_SERVICE_ACCOUNT_KEY_FILE", "YC_ENDPOINT"):
        monkeypatch.delenv(var, raising=False)
    doc = state()
    for res in doc["resources"]:
        if res["name"] == "gpu":  # as provider v0.35.0 wrote it: no deploy_policy attribute
            del res["instances"][0]["attributes"]["deploy_policy"]
    path = write(tmp_path, plans.build_plan(doc, {GPU: Edit(["update"],
                                                            edit(version="1.30"))}))
    live = {"gpu": {"policy": {"max_expansion": 2, "max_unavailable": 1}}}
    with example_cloud(node_groups=live) as fake:
        base = ("--endpoint", fake.endpoint, "--insecure", "preflight", "--plan", path)
        res = run_cli(*base, "-o", "json")
        assert res.exit_code == 0, res.stderr
        (group,) = res.json()["groups"]
        assert group["policy"] == {"max_expansion": 2, "max_unavailable": 1, "source": "live",
                                   "assumed": False}
        text = run_cli(*base).stdout
    (row,) = [line.split() for line in text.splitlines()
              if line.startswith(f"  {GPU} ") and CLOUD in line]
    assert row[:4] == [GPU, CLOUD, "2/1", "(live)"]
