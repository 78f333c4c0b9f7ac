"""Decoded Kubernetes shapes -> the values of ``ngupgrade.core.k8s``.

Each function takes one decoded object and returns its core value; a value the API would never
hold (a request that is not a quantity, a negative count, a PDB percentage like "50") raises
:class:`Bad` with the path inside the object, which ``decode.py`` prefixes with the item's path
and the file name. Rules and their sources:

- Requests: ``resources.requests``; a resource with only a limit gets the limit as request,
  as the API server's defaulting does for pods (``pkg/apis/core/v1/defaults.go``,
  ``SetDefaults_Pod``), so DaemonSet templates read like the pods they will make.
- Sidecar: an init container with ``restartPolicy: Always`` (KEP-753, Kubernetes 1.29+).
- Owner: the ``ownerReferences[]`` entry with ``controller: true``; none -> a bare pod.
- Ready: the ``Ready`` condition is ``"True"``; an object without any ``status.conditions``
  (a hand-written dump) counts as ready when it is a node or a Running pod.
- Terminating: ``metadata.deletionTimestamp`` is set. Mirror: the annotation
  ``kubernetes.io/config.mirror`` (static pods).
- DaemonSet template pods get the tolerations the DaemonSet controller adds to every pod it
  makes (``pkg/controller/daemon/util/daemonset_util.go``, ``AddOrUpdateDaemonPodTolerations``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ngupgrade.adapters.kube import shapes as s
from ngupgrade.adapters.kube.quantity import QuantityError, cpu_millicores, to_int
from ngupgrade.core import k8s

MIRROR_ANNOTATION = "kubernetes.io/config.mirror"
_PERCENT = re.compile(r"[0-9]+%")
_DAEMON_TOLERATIONS = (
    k8s.Toleration("node.kubernetes.io/not-ready", "Exists", "", "NoExecute"),
    k8s.Toleration("node.kubernetes.io/unreachable", "Exists", "", "NoExecute"),
    k8s.Toleration("node.kubernetes.io/disk-pressure", "Exists", "", "NoSchedule"),
    k8s.Toleration("node.kubernetes.io/memory-pressure", "Exists", "", "NoSchedule"),
    k8s.Toleration("node.kubernetes.io/pid-pressure", "Exists", "", "NoSchedule"),
    k8s.Toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule"),
)
_EMPTY_SPEC = s.PodSpec()
_EMPTY_META = s.ObjectMeta()


class Bad(ValueError):
    """A value the API would not hold; ``path`` is relative to the object (``spec.x[0]``)."""

    def __init__(self, message: str, path: str) -> None:
        super().__init__(message)
        self.message = message
        self.path = path


# ---- small pieces ----------------------------------------------------------------------------

def resource_list(values: Mapping[str, object] | None, path: str) -> dict[str, int]:
    """A ``ResourceList`` in scheduler units (cpu millicores, the rest integers); zeros left out.

    Raises:
        Bad: a value is not a quantity or is negative (path ``<path>.<resource name>``).
    """
    if not values:
        return {}
    out: dict[str, int] = {}
    for name, raw in values.items():
        try:
            amount = cpu_millicores(raw) if name == "cpu" else to_int(raw)
        except QuantityError as err:
            raise Bad(str(err), f"{path}.{name}") from err
        if amount < 0:
            raise Bad(f"must not be negative: {raw!r}", f"{path}.{name}")
        if amount:
            out[name] = amount
    return out


def _requests(res: s.ResourceRequirements | None, path: str) -> dict[str, int]:
    if res is None:
        return {}
    requests = resource_list(res.requests, f"{path}.requests")
    if res.limits:
        limits = resource_list(res.limits, f"{path}.limits")
        for name, amount in limits.items():
            if res.requests is None or name not in res.requests:
                requests[name] = amount
    return requests


def _containers(items: list[s.Container] | None, field: str, init: bool
                ) -> tuple[k8s.Container, ...]:
    if not items:
        return ()
    return tuple(
        k8s.Container(c.name, _requests(c.resources, f"spec.{field}[{i}].resources"),
                      init and c.restart_policy == "Always")
        for i, c in enumerate(items)
    )


def requirement(req: s.Requirement) -> k8s.Requirement:
    return k8s.Requirement(req.key, req.operator, tuple(req.values or ()))


def label_selector(sel: s.LabelSelector | None) -> k8s.LabelSelector | None:
    """None stays None (a null selector); ``{}`` is the empty selector (matches everything)."""
    if sel is None:
        return None
    return k8s.LabelSelector(dict(sel.match_labels or {}),
                             tuple(requirement(r) for r in sel.match_expressions or ()))


def node_selector_terms(sel: s.NodeSelector | None) -> tuple[k8s.NodeSelectorTerm, ...]:
    """OR-ed terms; ``matchFields`` join ``matchExpressions`` (their key is ``metadata.name``).
    A term with no requirement matches no node (core/v1 NodeSelectorTerm)."""
    if sel is None or not sel.node_selector_terms:
        return ()
    return tuple(
        tuple(requirement(r) for r in (t.match_expressions or ()))
        + tuple(requirement(r) for r in (t.match_fields or ()))
        for t in sel.node_selector_terms
    )


def owner(meta: s.ObjectMeta) -> k8s.OwnerRef | None:
    for ref in meta.owner_references or ():
        if ref.controller:
            return k8s.OwnerRef(ref.kind, ref.name, ref.uid)
    return None


def _ready(conditions: list[s.Condition] | None, default: bool) -> bool:
    if conditions is None:
        return default
    return any(c.type == "Ready" and c.status == "True" for c in conditions)


def _volume(v: s.Volume, pod_name: str) -> k8s.Volume:
    if v.empty_dir is not None:
        return k8s.Volume(v.name, "emptyDir")
    if v.persistent_volume_claim is not None:
        return k8s.Volume(v.name, "persistentVolumeClaim", v.persistent_volume_claim.claim_name)
    if v.host_path is not None:
        return k8s.Volume(v.name, "hostPath")
    if v.ephemeral is not None:
        # the claim the ephemeral controller makes: <pod name>-<volume name> (KEP-1698)
        return k8s.Volume(v.name, "ephemeral", f"{pod_name}-{v.name}")
    return k8s.Volume(v.name, "other")


def _constraints(spec: s.PodSpec) -> tuple[str, ...]:
    names: list[str] = []
    aff = spec.affinity
    if aff is not None:
        if aff.pod_anti_affinity and aff.pod_anti_affinity.\
                required_during_scheduling_ignored_during_execution:
            names.append("podAntiAffinity.required")
        if aff.pod_affinity and aff.pod_affinity.\
                required_during_scheduling_ignored_during_execution:
            names.append("podAffinity.required")
    # whenUnsatisfiable is required by the API; anything but ScheduleAnyway is read as the
    # blocking DoNotSchedule, so a constraint is never silently taken for a pass.
    if any(t.when_unsatisfiable != "ScheduleAnyway"
           for t in spec.topology_spread_constraints or ()):
        names.append("topologySpreadConstraints.DoNotSchedule")
    return tuple(names)


def _tolerations(items: list[s.Toleration] | None) -> tuple[k8s.Toleration, ...]:
    return tuple(k8s.Toleration(t.key or "", t.operator or "Equal", t.value or "",
                                t.effect or "") for t in items or ())


def _namespace(meta: s.ObjectMeta) -> str:
    return meta.namespace or "default"


def _name(meta: s.ObjectMeta) -> str:
    if not meta.name:
        raise Bad("missing metadata.name", "metadata")
    return meta.name


def _count(value: int | None, path: str) -> int | None:
    if value is not None and value < 0:
        raise Bad(f"must not be negative: {value}", path)
    return value


# ---- objects ---------------------------------------------------------------------------------

def node(obj: s.Node) -> k8s.Node:
    """core/v1 Node -> :class:`k8s.Node` (allocatable from ``status.allocatable``)."""
    meta = obj.metadata
    spec, status = obj.spec, obj.status
    return k8s.Node(
        name=_name(meta),
        labels=meta.labels or {},
        allocatable=resource_list(status.allocatable if status else None,
                                  "status.allocatable"),
        taints=tuple(k8s.Taint(t.key, t.effect, t.value or "")
                     for t in (spec.taints if spec and spec.taints else ())),
        unschedulable=bool(spec and spec.unschedulable),
        ready=_ready(status.conditions if status else None, True),
    )


def _pod_value(meta: s.ObjectMeta, spec: s.PodSpec, *, namespace: str, name: str,
               phase: k8s.PodPhase, ready: bool, owner_ref: k8s.OwnerRef | None,
               tolerations: tuple[k8s.Toleration, ...], unschedulable: str = "") -> k8s.Pod:
    aff = spec.affinity
    node_aff = aff.node_affinity if aff is not None else None
    return k8s.Pod(
        namespace=namespace,
        name=name,
        labels=meta.labels or {},
        node_name=spec.node_name or None,
        phase=phase,
        ready=ready,
        terminating=meta.deletion_timestamp is not None,
        owner=owner_ref,
        containers=_containers(spec.containers, "containers", False),
        init_containers=_containers(spec.init_containers, "initContainers", True),
        overhead=resource_list(spec.overhead, "spec.overhead"),
        node_selector=spec.node_selector or {},
        required_node_affinity=node_selector_terms(
            node_aff.required_during_scheduling_ignored_during_execution
            if node_aff is not None else None),
        tolerations=tolerations,
        volumes=tuple(_volume(v, name) for v in spec.volumes or ()),
        termination_grace_seconds=(
            30 if spec.termination_grace_period_seconds is None  # API default
            else _count(spec.termination_grace_period_seconds,
                        "spec.terminationGracePeriodSeconds") or 0),
        priority=spec.priority or 0,
        constraints=_constraints(spec),
        mirror=MIRROR_ANNOTATION in (meta.annotations or ()),
        uid=meta.uid,
        unschedulable=unschedulable,
    )


def pod(obj: s.Pod) -> k8s.Pod:
    """core/v1 Pod -> :class:`k8s.Pod`. Phase defaults to Running when the status is missing."""
    meta = obj.metadata
    spec = obj.spec or _EMPTY_SPEC
    status = obj.status
    phase = (status.phase if status is not None else None) or "Running"
    return _pod_value(
        meta, spec, namespace=_namespace(meta), name=_name(meta), phase=phase,
        ready=_ready(status.conditions if status else None, phase == "Running"),
        owner_ref=owner(meta), tolerations=_tolerations(spec.tolerations),
        unschedulable=_unschedulable(status.conditions if status else None))


def _unschedulable(conditions: list[s.Condition] | None) -> str:
    """The ``PodScheduled=False`` condition's message (else its reason, else
    ``Unschedulable``): what the scheduler says about a Pending pod it could not place."""
    for c in conditions or ():
        if c.type == "PodScheduled" and c.status == "False":
            return c.message or c.reason or "Unschedulable"
    return ""


def _template_pod(obj: s.DaemonSet, namespace: str, name: str) -> k8s.Pod:
    template = obj.spec.template if obj.spec else None
    meta = (template.metadata if template else None) or _EMPTY_META
    spec = (template.spec if template else None) or _EMPTY_SPEC
    own = _tolerations(spec.tolerations)
    extra = tuple(t for t in _DAEMON_TOLERATIONS if t not in own)
    try:
        return _pod_value(meta, spec, namespace=namespace, name=name, phase="Pending",
                          ready=False, owner_ref=k8s.OwnerRef("DaemonSet", name, obj.metadata.uid),
                          tolerations=own + extra)
    except Bad as err:  # the template's paths sit under spec.template
        raise Bad(err.message, "spec.template." + err.path) from err


def workload(obj: s.Deployment | s.ReplicaSet | s.StatefulSet | s.DaemonSet
             | s.ReplicationController) -> k8s.Workload:
    """apps/v1 controllers (and core/v1 ReplicationController) -> :class:`k8s.Workload`.

    ``replicas``: ``spec.replicas``, 1 when unset (the API default), None for a DaemonSet;
    ``template`` only for a DaemonSet (its pods land on surge nodes).
    """
    meta = obj.metadata
    namespace, name = _namespace(meta), _name(meta)
    kind: k8s.WorkloadKind = obj.__struct_config__.tag  # type: ignore[assignment]
    if isinstance(obj, s.ReplicationController):
        rc = obj.spec
        selector = k8s.LabelSelector(dict(rc.selector)) if rc and rc.selector else None
        replicas = _count(rc.replicas, "spec.replicas") if rc and rc.replicas is not None else 1
        return k8s.Workload(kind, namespace, name, replicas, owner(meta), selector, None, meta.uid)
    spec = obj.spec
    selector = label_selector(spec.selector if spec else None)
    if isinstance(obj, s.DaemonSet):
        return k8s.Workload(kind, namespace, name, None, owner(meta), selector,
                            _template_pod(obj, namespace, name), meta.uid)
    replicas = 1 if spec is None or spec.replicas is None else _count(spec.replicas,
                                                                      "spec.replicas")
    return k8s.Workload(kind, namespace, name, replicas, owner(meta), selector, None, meta.uid)


def _int_or_percent(value: int | str | None, path: str) -> int | str | None:
    if value is None:
        return None
    if isinstance(value, int):
        if value < 0:
            raise Bad(f"must not be negative: {value}", path)
        return value
    if not _PERCENT.fullmatch(value):
        raise Bad(f"not an integer or a percentage like '50%': {value!r}", path)
    return value


PDB_V1BETA1_LABEL = "pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match"
"""The label of the selectors the API server writes to keep policy/v1beta1's empty selector
("no pod") and policy/v1's ("every pod") apart across versions
(kubernetes ``pkg/apis/policy/helper.go``)."""


def pdb_selector(sel: s.LabelSelector | None, api_version: str | None
                 ) -> k8s.LabelSelector | None:
    """A PDB's ``spec.selector`` with the meaning of its API version.

    policy/v1 (and no apiVersion, as hand-written files have it): ``{}`` selects every pod of
    the namespace, null none. policy/v1beta1: ``{}`` selects no pod, and the API server's
    stand-in for "every pod" (``matchExpressions: [{key: PDB_V1BETA1_LABEL, operator:
    DoesNotExist}]``) selects every pod; a requirement on that label is dropped from any other
    selector (``pkg/apis/policy/v1beta1/conversion.go``,
    ``Convert_v1beta1_PodDisruptionBudget_To_policy_PodDisruptionBudget``; the difference is
    documented at https://kubernetes.io/docs/tasks/run-application/configure-pdb/, "Arbitrary
    workloads and label selectors"). Read through policy/v1, a v1beta1 empty selector shows as
    ``Exists`` on that label, which no pod carries: it selects none with no special case.
    """
    selector = label_selector(sel)
    if api_version != "policy/v1beta1" or selector is None:
        return selector
    if not selector.match_labels and not selector.match_expressions:
        return None
    kept = tuple(r for r in selector.match_expressions if r.key != PDB_V1BETA1_LABEL)
    return k8s.LabelSelector(selector.match_labels, kept)


def pdb(obj: s.PodDisruptionBudget) -> k8s.PodDisruptionBudget:
    """policy/v1 or policy/v1beta1 PodDisruptionBudget -> :class:`k8s.PodDisruptionBudget`
    (the selector as :func:`pdb_selector` reads it for ``apiVersion``).

    Absent ``metadata.generation`` and ``status.observedGeneration`` read as 0, the Go zero
    value the eviction code compares (so they agree); a missing ``status`` leaves every status
    field None (never observed by the disruption controller).
    """
    meta = obj.metadata
    spec = obj.spec or s.PdbSpec()
    st = obj.status
    return k8s.PodDisruptionBudget(
        namespace=_namespace(meta),
        name=_name(meta),
        selector=pdb_selector(spec.selector, obj.api_version),
        min_available=_int_or_percent(spec.min_available, "spec.minAvailable"),
        max_unavailable=_int_or_percent(spec.max_unavailable, "spec.maxUnavailable"),
        unhealthy_pod_eviction_policy=spec.unhealthy_pod_eviction_policy or "IfHealthyBudget",
        generation=meta.generation or 0,
        observed_generation=None if st is None else (st.observed_generation or 0),
        disruptions_allowed=None if st is None else _count(
            st.disruptions_allowed, "status.disruptionsAllowed"),
        current_healthy=None if st is None else _count(st.current_healthy,
                                                       "status.currentHealthy"),
        desired_healthy=None if st is None else _count(st.desired_healthy,
                                                       "status.desiredHealthy"),
        expected_pods=None if st is None else _count(st.expected_pods, "status.expectedPods"),
    )


def pvc(obj: s.PersistentVolumeClaim) -> k8s.PersistentVolumeClaim:
    meta = obj.metadata
    return k8s.PersistentVolumeClaim(_namespace(meta), _name(meta),
                                     (obj.spec.volume_name or None) if obj.spec else None)


def pv(obj: s.PersistentVolume) -> k8s.PersistentVolume:
    spec = obj.spec
    affinity = spec.node_affinity.required if spec and spec.node_affinity else None
    return k8s.PersistentVolume(_name(obj.metadata), bool(spec and spec.local is not None),
                                node_selector_terms(affinity))
