"""The quota check every gate shares (``preflight``, ``preflight --plan``, ``advise`` and the
upgrade's pre-change gate; docs/quota-preflight.md): where the limits come from
(:func:`read_quotas`: the Yandex quota file or a Selectel project's), which cloud the groups
are in (:func:`quota_cloud`), the file or the live API (:func:`check_quotas`, which opens and
closes the gateway), and :func:`run_preflight`, which gathers and judges.

The order of work keeps API calls few and concurrent (bench/):

0. every group is checked locally first (deploy policy valid, resources placeable on quota ids):
   a bad group fails before any API call;
1. ``ClusterService.Get`` once per cluster whose folder the state does not name, and
   ``FolderService.Get`` once per folder (folders from the state at once, the others as their
   cluster answers) -> cloud id; skipped with ``--cloud-id`` or offline;
2. ``QuotaLimitService.List`` once per service per cloud, never per group, all at once.

The live node counts of autoscaled groups (``ListNodes``) and the live deploy policy of groups
whose state leaves it unset (``NodeGroupService.Get``) run alongside. So the
wall time is at most three round trips (cluster, folder, list), two when the state names
the folders.

The sources are small protocols, so the cloud gateway (``ngupgrade.adapters.cloud``), the offline
:class:`~ngupgrade.adapters.files.quota_file.QuotaFile` and test fakes all plug in.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime
from threading import Lock
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ngupgrade.core import simulate
from ngupgrade.core.drain.blockers import drain_blockers, why_blocked
from ngupgrade.core.errors import UsageError
from ngupgrade.core.k8s import PodDisruptionBudget
from ngupgrade.core.model import AutoScale, NodeGroup, QuotaLimit
from ngupgrade.core.plan_warnings import PlanWarning
from ngupgrade.core.platform import platform_of
from ngupgrade.core.policy import ResolvedPolicy, resolve
from ngupgrade.core.quota import limits
from ngupgrade.core.quota.catalog import service_of
from ngupgrade.core.quota.demand import GroupDemand, check_groups, concurrency, group_demand
from ngupgrade.core.quota.preflight import Preflight, evaluate

if TYPE_CHECKING:
    from ngupgrade.app.settings import Settings

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

DEFAULT_MAX_WORKERS = 32
"""Concurrent calls in one round; rounds are small (clusters, folders, clouds x services)."""


class QuotaSource(Protocol):
    """Anything that lists a cloud's quota limits of one service (gateway, quota file, fake)."""

    def list_quota_limits(self, cloud_id: str, service: str) -> list[QuotaLimit]: ...


class CloudDirectory(Protocol):
    """Finds a cluster's folder and a folder's cloud.

    ``ClusterService.Get`` and ``FolderService.Get`` (Yandex Cloud API).
    """

    def get_cluster(self, cluster_id: str) -> Any: ...  # anything with ``.folder_id``

    def get_folder_cloud_id(self, folder_id: str) -> str: ...


class NodeLister(Protocol):
    """Lists the nodes of a node group (``NodeGroupService.ListNodes``); only the count is used."""

    def list_nodes(self, node_group_id: str) -> Sequence[Any]: ...


class GroupReader(Protocol):
    """Reads a live node group (``NodeGroupService.Get``); only ``.policy`` is used."""

    def get_node_group(self, node_group_id: str) -> Any: ...


@dataclass(frozen=True)
class PreflightRequest:
    """What was asked: ``cloud_id`` overrides the folder lookup for every group (a Selectel
    group's quotas are its project's: ``cloud_id`` is then the project id);
    ``max_expansion``/``max_unavailable`` override every group's policy (Selectel keeps it in
    the control panel, so these flags are how a Selectel plan gets its real values)."""

    cloud_id: str | None = None
    sequential: bool = False
    together: bool = False
    """Count every group's surge at once (``--together``: the sum, whatever the platform's
    rule, :func:`ngupgrade.core.quota.demand.concurrency`)."""
    strict: bool = False
    at_current_size: bool = False
    max_expansion: int | None = None
    max_unavailable: int | None = None
    start: datetime | None = None
    """When the upgrade is to start (UTC), for the auto-upgrade window check; None: no check."""
    runs: Mapping[str, limits.RunSlot] = field(default_factory=dict)
    """Group address -> when that group's own upgrade runs (UTC start, plan's upper estimate in
    minutes), for the same check: a group that runs after others (``upgrade``, one after
    another or in the advised schedule's stages) starts after their estimated minutes. A
    group not in it runs from ``start`` for the worst case at ``minutes_per_cycle``."""
    minutes_per_cycle: float = simulate.DEFAULT_MINUTES_PER_CYCLE
    """Minutes one cycle takes, for the upgrade's length in that check (``upgrade
    --cycle-minutes``)."""
    policies: Mapping[str, ResolvedPolicy] = field(default_factory=dict)
    """Group address -> the policy that group's upgrade runs with, already decided with its
    source (the upgrade gate: the override, the advised stage's, the live one): its demand is
    counted under it, named as it was chosen."""
    quotas_file: str | None = None
    """Offline quota limits (``--quotas FILE``); None: the live API (:func:`check_quotas`)."""


class _Calls:
    """Counts API calls by method, thread-safely (reported in ``Preflight.api_calls``)."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self._lock = Lock()

    def wrap(self, name: str, fn: Callable[[K], V]) -> Callable[[K], V]:
        def call(arg: K) -> V:
            with self._lock:
                self.counts[name] += 1
            return fn(arg)
        return call


def run_preflight(
    groups: Sequence[NodeGroup],
    quotas: QuotaSource,
    request: PreflightRequest = PreflightRequest(),
    *,
    directory: CloudDirectory | None = None,
    nodes: NodeLister | None = None,
    live_groups: GroupReader | None = None,
    max_workers: int = DEFAULT_MAX_WORKERS,
    build_demand: Callable[..., GroupDemand] = group_demand,
    peers: Sequence[NodeGroup] = (),
) -> Preflight:
    """Run the quota preflight for ``groups`` (already selected) and return the verdict.

    ``directory`` resolves clouds when ``request.cloud_id`` is None (live mode); ``nodes``
    gives live node counts of autoscaled groups (else the autoscaler ``min`` is assumed and
    flagged); ``live_groups`` gives the live deploy policy of groups whose state leaves it
    unset (else the platform's default is assumed and flagged). ``build_demand`` turns a group
    into its demand, with :func:`ngupgrade.core.quota.demand.group_demand`'s arguments (a
    Terraform plan brings its own: :func:`ngupgrade.core.quota.tfplan.change_demand`). ``peers``
    are every group of the state: a cluster's groups not checked now count in its
    ``clusterNodes`` limit at their size (:mod:`ngupgrade.core.quota.limits`). Makes no
    mutating call.

    Raises:
        UsageError: no groups, or no way to tell a group's cloud.
        PolicyInvalid, QuotaMappingUnknown: a group fails the local checks (before any call).
        CloudApiError, BadInput: from the sources, unchanged.
    """
    if not groups:
        raise UsageError("no node groups to check", hint="the state holds no node group, or "
                         "--group selected none")
    _check_platforms(groups, request)
    overrides = request.max_expansion is not None or request.max_unavailable is not None
    per_node = check_groups(groups, max_expansion=request.max_expansion,
                                  max_unavailable=request.max_unavailable)
    if request.cloud_id is None and directory is None:
        raise UsageError("cannot tell which cloud the node groups are in",
                         hint="pass --cloud-id, or a quota file that holds one cloud")
    calls = _Calls()
    with ThreadPoolExecutor(max_workers=max(1, max_workers),
                            thread_name_prefix="ngupgrade-preflight") as pool:
        # Critical path first: [cluster -> folder] -> folder -> cloud -> quota lists.
        lookups = None
        if request.cloud_id is None:
            assert directory is not None
            lookups = _CloudLookups(groups, directory, pool, calls)
        # Off the critical path, queued behind it: live sizes of autoscaled groups.
        size_futures: dict[str, Future[Sequence[Any]]] = {}
        if nodes is not None:
            list_nodes = calls.wrap("NodeGroupService.ListNodes", nodes.list_nodes)
            size_futures = {
                i: pool.submit(list_nodes, i)
                for i in dict.fromkeys(g.id for g in groups
                                       if isinstance(g.scale, AutoScale) and g.id)}
        policy_futures: dict[str, Future[Any]] = {}
        if live_groups is not None:
            get_group = calls.wrap("NodeGroupService.Get", live_groups.get_node_group)
            policy_futures = {
                i: pool.submit(get_group, i)
                for i in dict.fromkeys(g.id for g in groups if g.policy is None and g.id)}
        if lookups is None:
            cloud_of = {str(g.address): str(request.cloud_id) for g in groups}
        else:
            cloud_of = lookups.clouds()
        services: dict[str, set[str]] = {}
        for address, cloud in cloud_of.items():
            services.setdefault(cloud, set()).update(
                service_of(q) for q in per_node[address])
        list_limits = (_list_of(quotas) if getattr(quotas, "offline", False)
                       else calls.wrap("QuotaLimitService.List", _list_of(quotas)))
        wanted = [(cloud, service) for cloud, names in services.items()
                  for service in sorted(names)]
        list_futures = {key: pool.submit(list_limits, key) for key in wanted}

        sizes = {i: len(f.result()) for i, f in size_futures.items()}
        live_policy = {i: f.result().policy for i, f in policy_futures.items()}
        demands = [
            build_demand(g, cloud_of[str(g.address)], sizes.get(g.id),
                         per_node[str(g.address)], live_policy.get(g.id),
                         **_decided(g, request, overrides))
            for g in groups
        ]
        listed = {key: f.result() for key, f in list_futures.items()}

    by_cloud = limits_by_cloud(listed)
    result = evaluate(demands, by_cloud, sequential=request.sequential,
                      strict=request.strict, at_current_size=request.at_current_size,
                      together=concurrency(groups, request.sequential, request.together))
    result = limits.extend(result, by_cloud, peers=peers, start=request.start,
                           minutes_per_cycle=request.minutes_per_cycle, runs=request.runs)
    return replace(result, api_calls=dict(calls.counts), listed=by_cloud)


def _check_platforms(groups: Sequence[NodeGroup], request: PreflightRequest) -> None:
    """One platform per run (their quota files differ); Selectel groups of the one project
    the quotas are for.

    Raises:
        UsageError: groups of both platforms, or a Selectel group of another project.
    """
    names = {g.platform for g in groups}
    if len(names) > 1:
        raise UsageError("the selected node groups are on both Yandex and Selectel; their "
                         "quotas are checked apart", hint="select one platform's groups with -g")
    if names == {"selectel"} and request.cloud_id is not None:
        others = [f"{g.address} (project {g.placement.project_id})" for g in groups
                  if g.placement is not None and g.placement.project_id != request.cloud_id]
        if others:
            raise UsageError(f"the quotas are for project {request.cloud_id}; not for "
                             f"{', '.join(others)}",
                             hint="give the quota file of that project, or select its groups "
                                  "with -g")


def _decided(group: NodeGroup, request: PreflightRequest, overrides: bool
             ) -> dict[str, ResolvedPolicy]:
    """The ``policy`` argument of a group's demand: the one decided for it
    (``request.policies``), else the group's policy with the command-line overrides on top
    (validated in check_groups; an override is never reported as assumed), else none (the
    demand resolves the state's or the live one)."""
    decided = request.policies.get(str(group.address))
    if decided is not None:
        return {"policy": decided}
    if not overrides:
        return {}
    resolved = resolve(group.policy, max_expansion=request.max_expansion,
                       max_unavailable=request.max_unavailable, platform=platform_of(group))
    return {"policy": ResolvedPolicy(resolved.policy, resolved.source)}


Check = Callable[..., Preflight]
"""A quota check: ``(quotas, request, *, directory=, nodes=, live_groups=) -> Preflight``
(:func:`run_preflight` over some groups, or a Terraform plan's changes)."""


def read_quotas(quotas_file: str, groups: Sequence[NodeGroup]) -> QuotaSource:
    """The one choice of the quota reader: a Selectel project's quota file
    (:func:`~ngupgrade.adapters.files.project_quota_file.read_project_quota_file`) when every
    group is on Selectel, else the Yandex Quota Manager file
    (:func:`~ngupgrade.adapters.files.quota_file.read_quota_file`).

    Raises:
        BadInput: the file cannot be read or understood (exit 3).
    """
    if groups and all(g.platform == "selectel" for g in groups):
        from ngupgrade.adapters.files.project_quota_file import read_project_quota_file

        return read_project_quota_file(quotas_file)
    from ngupgrade.adapters.files.quota_file import read_quota_file

    return read_quota_file(quotas_file)


def quota_cloud(cloud_id: str | None, source: Any, quotas_file: str) -> str:
    """Which cloud (or Selectel project) an offline check is for: ``--cloud-id``, else the one
    cloud the quota file holds.

    Raises:
        UsageError: the file holds several clouds, or none named, and no ``--cloud-id``.
    """
    if cloud_id is not None:
        return cloud_id
    single: str | None = source.single_cloud_id()
    if single is None:
        held = ", ".join(source.cloud_ids) or "no named cloud"
        raise UsageError(f"which cloud? the quota file {quotas_file} holds {held}",
                         hint="pass --cloud-id ID")
    return single


def check_quotas(settings: Settings, groups: Sequence[NodeGroup], request: PreflightRequest,
                 check: Check, *, api: Any = None) -> Preflight:
    """Run ``check`` on the quota source the request names: offline from
    ``request.quotas_file`` (:func:`read_quotas`, the cloud from :func:`quota_cloud`; ``api``,
    when given, still counts the live sizes of autoscaled groups), else live through ``api``
    (an open gateway: the run's own) or one opened and closed here. ``groups`` are the groups
    checked (their platform picks the reader).

    Raises:
        as ``check`` and :func:`read_quotas`, :func:`quota_cloud`; CloudApiError (exit 4).
    """
    if request.quotas_file is not None:
        source = read_quotas(request.quotas_file, groups)
        request = replace(request, cloud_id=quota_cloud(request.cloud_id, source,
                                                        request.quotas_file))
        return check(source, request, **({"nodes": api} if api is not None else {}))
    if api is not None:
        return check(api, request, directory=api, nodes=api, live_groups=api)
    from ngupgrade.app.cloud import open_cloud  # the SDK only on the live path

    with open_cloud(settings) as gateway:
        return check(gateway, request, directory=gateway, nodes=gateway, live_groups=gateway)


class _CloudLookups:
    """Group address -> cloud id: one ClusterService.Get per cluster the state does not place,
    one FolderService.Get per folder. Folders known from the state are asked at construction,
    the others as soon as their cluster answers."""

    def __init__(self, groups: Sequence[NodeGroup], directory: CloudDirectory,
                 pool: ThreadPoolExecutor, calls: _Calls) -> None:
        self.groups = groups
        self.pool = pool
        self.get_folder = calls.wrap("FolderService.Get", directory.get_folder_cloud_id)
        get_cluster = calls.wrap("ClusterService.Get", directory.get_cluster)
        self.cluster_futures = {
            c: pool.submit(get_cluster, c)
            for c in dict.fromkeys(g.cluster_id for g in groups if not g.folder_id)}
        self.folder_futures = {
            f: pool.submit(self.get_folder, f)
            for f in dict.fromkeys(g.folder_id for g in groups if g.folder_id)}

    def clouds(self) -> dict[str, str]:
        """Wait for the lookups; raises what a call raised (CloudApiError)."""
        cluster_folder: dict[str, str] = {}
        for cluster_id, future in self.cluster_futures.items():
            folder = future.result().folder_id
            cluster_folder[cluster_id] = folder
            if folder not in self.folder_futures:
                self.folder_futures[folder] = self.pool.submit(self.get_folder, folder)
        folder_cloud = {f: future.result() for f, future in self.folder_futures.items()}
        return {str(g.address): folder_cloud[g.folder_id or cluster_folder[g.cluster_id]]
                for g in self.groups}


def _list_of(quotas: QuotaSource) -> Callable[[tuple[str, str]], list[QuotaLimit]]:
    def call(key: tuple[str, str]) -> list[QuotaLimit]:
        cloud_id, service = key
        return quotas.list_quota_limits(cloud_id, service)
    return call


def limits_by_cloud(listed: Mapping[tuple[str, str], Iterable[QuotaLimit]]
                    ) -> dict[str, dict[str, QuotaLimit]]:
    """Merge per-(cloud, service) lists into cloud id -> quota id -> limit."""
    out: dict[str, dict[str, QuotaLimit]] = {}
    for (cloud, _service), found in listed.items():
        bucket = out.setdefault(cloud, {})
        for q in found:
            bucket[q.quota_id] = q
    return out


def blocked_drain_reaction(platforms: Iterable[str]) -> str:
    """What a drain its pods cannot leave leads to, per platform (DrainRules,
    core/drain/findings.py): Yandex stops the node after 7 minutes of draining (docs
    node-drain: "7 минут") with the pod on it, unprotected; Selectel retries, then stops the
    upgrade with the cluster in ERROR (the Selectel strategy page, "Если PDB не дает вытеснить
    поды")."""
    yandex = ("on Yandex the node is stopped after 7 minutes of draining with its pods on it "
              "(they go down without the budget's protection)")
    selectel = "on Selectel the upgrade stops (cluster ERROR) until the budget allows one"
    chosen = set(platforms)
    if chosen == {"selectel"}:
        return selectel
    if "selectel" in chosen:
        return f"{yandex}; {selectel}"
    return yandex


def with_drain_blockers(result: Preflight, pdbs: Sequence[PodDisruptionBudget]) -> Preflight:
    """Add the PodDisruptionBudgets that block a drain (aws/containers-roadmap#1282) to a verdict.

    Each blocker is a ``pdb-blocks-drain`` warning saying what the platform of the checked
    groups does then (:func:`blocked_drain_reaction`); under ``strict`` it fails the check.
    """
    blockers = tuple(drain_blockers(list(pdbs)))
    reaction = blocked_drain_reaction({g.group.platform for g in result.groups})
    warnings = tuple(result.warnings) + tuple(
        PlanWarning("pdb-blocks-drain",
                    f"PodDisruptionBudget {p.ref} allows 0 disruptions ({why_blocked(p)}): "
                    f"{reaction}")
        for p in blockers)
    return replace(result, drain_blockers=blockers, warnings=warnings)
