"""Kubernetes objects as ``kubectl get -o json`` prints them, for tests, examples and benches.

Each function returns one plain dict with the fields a real API server fills in (uid,
resourceVersion, creationTimestamp, defaulted spec fields, status), so the dump reader and the
live reader are exercised on realistic JSON, not on the handful of keys they read. Quantities
are given as the API writes them (strings: ``"250m"``, ``"512Mi"``). UIDs are derived from the
object's kind, namespace and name, so generated files are stable from run to run.

Used by ``terraform/examples/generate_cluster.py`` (the example dump), ``bench/`` and the
fake Kubernetes API (:mod:`ngupgrade.testing.kube_api`).
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

Obj = dict[str, Any]
Requests = Mapping[str, str]

CREATED = "2025-01-20T09:00:00Z"
GROUP_LABEL = "yandex.cloud/node-group-id"
UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"
"""The taint a cordoned node carries beside ``spec.unschedulable: true``."""
_NS = uuid.UUID("6ba7b811-9dad-11d1-80b4-00c04fd430c8")  # uuid.NAMESPACE_URL


def uid(kind: str, namespace: str, name: str) -> str:
    """A stable UID for an object (uuid5 of its identity)."""
    return str(uuid.uuid5(_NS, f"{kind}/{namespace}/{name}"))


def pod_hash(name: str) -> str:
    """A ``pod-template-hash``-like suffix (10 characters of [a-z0-9])."""
    return hashlib.sha1(name.encode()).hexdigest()[:10]


def _meta(kind: str, name: str, namespace: str | None, *, labels: Mapping[str, str] | None = None,
          annotations: Mapping[str, str] | None = None, owner: tuple[str, str, str] | None = None,
          generation: int | None = None) -> Obj:
    meta: Obj = {}
    if annotations:
        meta["annotations"] = dict(annotations)
    meta["creationTimestamp"] = CREATED
    if generation is not None:
        meta["generation"] = generation
    if labels:
        meta["labels"] = dict(labels)
    meta["name"] = name
    if namespace is not None:
        meta["namespace"] = namespace
    if owner is not None:
        api_version, owner_kind, owner_name = owner
        meta["ownerReferences"] = [{
            "apiVersion": api_version, "blockOwnerDeletion": True, "controller": True,
            "kind": owner_kind, "name": owner_name,
            "uid": uid(owner_kind, namespace or "", owner_name)}]
    meta["resourceVersion"] = str(int(hashlib.sha1(f"{kind}{namespace}{name}".encode())
                                      .hexdigest()[:6], 16))
    meta["uid"] = uid(kind, namespace or "", name)
    return meta


def _object(api_version: str, kind: str, name: str, namespace: str | None, spec: Obj,
            status: Obj, **meta: Any) -> Obj:
    """The envelope every object shares: ``apiVersion``, ``kind``, ``metadata`` (``meta`` goes
    to :func:`_meta`), ``spec``, ``status``, in the order kubectl prints them."""
    return {"apiVersion": api_version, "kind": kind,
            "metadata": _meta(kind, name, namespace, **meta), "spec": spec, "status": status}


# ---- nodes ---------------------------------------------------------------------------------

def node(name: str, *, group_id: str | None = None, cpu: str = "3920m",
         memory: str = "13948518Ki", pods: str = "110", ephemeral: str = "59763732382",
         extra: Mapping[str, str] | None = None, labels: Mapping[str, str] | None = None,
         taints: Sequence[Mapping[str, str]] = (), unschedulable: bool = False,
         ready: bool = True, zone: str = "ru-central1-a", cores: int = 4,
         memory_capacity: str = "16393292Ki", platform: str = "standard-v3") -> Obj:
    """A Yandex Managed Kubernetes node: labels as Yandex sets them (node-group id, zone,
    preemptible), ``allocatable`` below ``capacity`` by the reservation."""
    all_labels = {
        "beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/instance-type": platform,
        "beta.kubernetes.io/os": "linux", "failure-domain.beta.kubernetes.io/zone": zone,
        "kubernetes.io/arch": "amd64", "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux", "node.kubernetes.io/instance-type": platform,
        "node.kubernetes.io/kube-proxy-ds-ready": "true",
        "topology.kubernetes.io/zone": zone, "yandex.cloud/pci-topology": "k8s",
        "yandex.cloud/preemptible": "false",
    }
    if group_id:
        all_labels[GROUP_LABEL] = group_id
    all_labels.update(labels or {})
    capacity = {"cpu": str(cores), "ephemeral-storage": "67353844Ki",
                "hugepages-1Gi": "0", "hugepages-2Mi": "0", "memory": memory_capacity,
                "pods": pods, **(extra or {})}
    allocatable = {"cpu": cpu, "ephemeral-storage": ephemeral, "hugepages-1Gi": "0",
                   "hugepages-2Mi": "0", "memory": memory, "pods": pods, **(extra or {})}
    spec: Obj = {"podCIDR": "10.112.0.0/24", "podCIDRs": ["10.112.0.0/24"],
                 "providerID": f"yandex://fhm{pod_hash(name)}"}
    spec_taints = [dict(t) for t in taints]
    if unschedulable and not any(t.get("key") == UNSCHEDULABLE_TAINT for t in spec_taints):
        # `kubectl cordon` sets spec.unschedulable; the node lifecycle controller then adds
        # this taint (pkg/controller/nodelifecycle, doNoScheduleTaintingPass), with timeAdded
        spec_taints.append({"effect": "NoSchedule", "key": UNSCHEDULABLE_TAINT,
                            "timeAdded": CREATED})
    if spec_taints:
        spec["taints"] = spec_taints
    if unschedulable:
        spec["unschedulable"] = True
    beat = "2025-01-21T10:00:00Z"

    def cond(kind: str, status: str, reason: str, message: str) -> Obj:
        return {"lastHeartbeatTime": beat, "lastTransitionTime": CREATED, "message": message,
                "reason": reason, "status": status, "type": kind}

    return _object(
        "v1", "Node", name, None, spec, {
            "addresses": [{"address": "10.1.0.10", "type": "InternalIP"},
                          {"address": name, "type": "Hostname"}],
            "allocatable": allocatable, "capacity": capacity,
            "conditions": [
                cond("MemoryPressure", "False", "KubeletHasSufficientMemory",
                     "kubelet has sufficient memory available"),
                cond("DiskPressure", "False", "KubeletHasNoDiskPressure",
                     "kubelet has no disk pressure"),
                cond("PIDPressure", "False", "KubeletHasSufficientPID",
                     "kubelet has sufficient PID available"),
                cond("Ready", "True" if ready else "False",
                     "KubeletReady" if ready else "KubeletNotReady",
                     "kubelet is posting ready status" if ready else "container runtime down"),
            ],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {"architecture": "amd64", "bootID": uid("boot", "", name),
                         "containerRuntimeVersion": "containerd://1.6.28",
                         "kernelVersion": "5.4.0-187-generic", "kubeProxyVersion": "v1.29.1",
                         "kubeletVersion": "v1.29.1", "machineID": pod_hash(name) * 3,
                         "operatingSystem": "linux", "osImage": "Ubuntu 20.04.6 LTS",
                         "systemUUID": uid("sys", "", name)},
        }, labels=all_labels, annotations={
            "csi.volume.kubernetes.io/nodeid": f'{{"disk-csi-driver.mks.ycloud.io":"{name}"}}',
            "node.alpha.kubernetes.io/ttl": "0",
            "volumes.kubernetes.io/controller-managed-attach-detach": "true"})


# ---- pods ----------------------------------------------------------------------------------

def container(name: str, requests: Requests | None = None, *, limits: Requests | None = None,
              image: str = "registry.example/app:1.0", restart_policy: str | None = None,
              port: int | None = 8080, mounts: Sequence[str] = ()) -> Obj:
    """A container spec as the API returns it (defaulted fields included)."""
    resources: Obj = {}
    if limits:
        resources["limits"] = dict(limits)
    if requests:
        resources["requests"] = dict(requests)
    out: Obj = {"image": image, "imagePullPolicy": "IfNotPresent", "name": name,
                "resources": resources, "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File",
                "volumeMounts": [
                    *({"mountPath": f"/data/{m}", "name": m} for m in mounts),
                    {"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
                     "name": "kube-api-access", "readOnly": True}]}
    if port is not None:
        out["ports"] = [{"containerPort": port, "name": "http", "protocol": "TCP"}]
        out["readinessProbe"] = {"failureThreshold": 3, "httpGet": {
            "path": "/healthz", "port": port, "scheme": "HTTP"}, "periodSeconds": 10,
            "successThreshold": 1, "timeoutSeconds": 1}
    if restart_policy:
        out["restartPolicy"] = restart_policy
    return out


def pod_spec(containers: Sequence[Obj], *, node_name: str | None = None,
             init_containers: Sequence[Obj] = (), volumes: Sequence[Obj] = (),
             tolerations: Sequence[Obj] | None = None, node_selector: Mapping[str, str] = {},
             affinity: Obj | None = None, grace: int = 30, priority: int | None = 0,
             extra: Mapping[str, Any] | None = None) -> Obj:
    """A pod spec with the API's defaults (dnsPolicy, schedulerName, the token volume...)."""
    spec: Obj = {}
    if affinity:
        spec["affinity"] = affinity
    spec["containers"] = list(containers)
    spec["dnsPolicy"] = "ClusterFirst"
    spec["enableServiceLinks"] = True
    if init_containers:
        spec["initContainers"] = list(init_containers)
    if node_name:
        spec["nodeName"] = node_name
    if node_selector:
        spec["nodeSelector"] = dict(node_selector)
    spec["preemptionPolicy"] = "PreemptLowerPriority"
    if priority is not None:
        spec["priority"] = priority
    spec.update({"restartPolicy": "Always", "schedulerName": "default-scheduler",
                 "securityContext": {}, "serviceAccount": "default",
                 "serviceAccountName": "default", "terminationGracePeriodSeconds": grace})
    spec["tolerations"] = list(tolerations) if tolerations is not None else [
        {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists",
         "tolerationSeconds": 300},
        {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists",
         "tolerationSeconds": 300}]
    spec["volumes"] = [*volumes, {"name": "kube-api-access", "projected": {
        "defaultMode": 420, "sources": [
            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
            {"configMap": {"items": [{"key": "ca.crt", "path": "ca.crt"}],
                           "name": "kube-root-ca.crt"}}]}}]
    spec.update(extra or {})
    return spec


def pod(name: str, namespace: str, spec: Obj, *, labels: Mapping[str, str] | None = None,
        owner: tuple[str, str, str] | None = None, phase: str = "Running",
        ready: bool = True, annotations: Mapping[str, str] | None = None,
        deleting: bool = False) -> Obj:
    """A pod with its status (phase, conditions, one container status per container)."""
    ready_text = "True" if ready else "False"
    conditions = [{"lastProbeTime": None, "lastTransitionTime": CREATED, "status": s, "type": t}
                  for t, s in (("Initialized", "True"), ("Ready", ready_text),
                               ("ContainersReady", ready_text), ("PodScheduled", "True"))]
    status: Obj = {"phase": phase, "qosClass": "Burstable"}
    if phase != "Pending" or spec.get("nodeName"):
        status.update({
            "conditions": conditions, "hostIP": "10.1.0.10", "podIP": "10.112.0.17",
            "podIPs": [{"ip": "10.112.0.17"}], "startTime": CREATED,
            "containerStatuses": [{
                "containerID": f"containerd://{pod_hash(name + c['name']) * 6}",
                "image": c["image"], "imageID": c["image"] + "@sha256:" + "0" * 64,
                "lastState": {}, "name": c["name"], "ready": ready, "restartCount": 0,
                "started": True, "state": {"running": {"startedAt": CREATED}}}
                for c in spec.get("containers", ())]})
    else:
        status["conditions"] = [{"lastProbeTime": None, "lastTransitionTime": CREATED,
                                 "message": "0/3 nodes are available: 3 Insufficient cpu.",
                                 "reason": "Unschedulable", "status": "False",
                                 "type": "PodScheduled"}]
    obj = _object("v1", "Pod", name, namespace, spec, status, labels=labels, owner=owner,
                  annotations=annotations)
    if deleting:
        obj["metadata"].update(deletionGracePeriodSeconds=30,
                               deletionTimestamp="2025-01-21T10:05:00Z")
    return obj


# ---- controllers ---------------------------------------------------------------------------

def _template(labels: Mapping[str, str], spec: Obj) -> Obj:
    return {"metadata": {"creationTimestamp": None, "labels": dict(labels)}, "spec": spec}


def deployment(name: str, namespace: str, replicas: int, labels: Mapping[str, str],
               spec: Obj) -> Obj:
    """An apps/v1 Deployment (RollingUpdate 25%/25%) with a matching status."""
    return _object("apps/v1", "Deployment", name, namespace,
                   {"progressDeadlineSeconds": 600, "replicas": replicas,
                    "revisionHistoryLimit": 10, "selector": {"matchLabels": dict(labels)},
                    "strategy": {"rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"},
                                 "type": "RollingUpdate"},
                    "template": _template(labels, spec)},
                   {"availableReplicas": replicas, "observedGeneration": 1,
                    "readyReplicas": replicas, "replicas": replicas, "updatedReplicas": replicas},
                   labels=labels, generation=1,
                   annotations={"deployment.kubernetes.io/revision": "1"})


def replicaset(deploy: str, namespace: str, replicas: int, labels: Mapping[str, str],
               spec: Obj) -> Obj:
    """The ReplicaSet a Deployment owns (``<deploy>-<pod-template-hash>``)."""
    h = pod_hash(deploy)
    rs_labels = {**labels, "pod-template-hash": h}
    return _object("apps/v1", "ReplicaSet", f"{deploy}-{h}", namespace,
                   {"replicas": replicas, "selector": {"matchLabels": rs_labels},
                    "template": _template(rs_labels, spec)},
                   {"availableReplicas": replicas, "fullyLabeledReplicas": replicas,
                    "observedGeneration": 1, "readyReplicas": replicas, "replicas": replicas},
                   labels=rs_labels, generation=1, owner=("apps/v1", "Deployment", deploy))


def statefulset(name: str, namespace: str, replicas: int, labels: Mapping[str, str],
                spec: Obj, *, claim: str | None = None, storage: str = "10Gi") -> Obj:
    """An apps/v1 StatefulSet, with a volumeClaimTemplate named ``claim`` when given."""
    body: Obj = {"persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Retain",
                                                          "whenScaled": "Retain"},
                 "podManagementPolicy": "OrderedReady", "replicas": replicas,
                 "revisionHistoryLimit": 10, "selector": {"matchLabels": dict(labels)},
                 "serviceName": name, "template": _template(labels, spec),
                 "updateStrategy": {"rollingUpdate": {"partition": 0},
                                    "type": "RollingUpdate"}}
    if claim:
        body["volumeClaimTemplates"] = [{
            "apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"creationTimestamp": None, "name": claim},
            "spec": {"accessModes": ["ReadWriteOnce"],
                     "resources": {"requests": {"storage": storage}},
                     "volumeMode": "Filesystem"}}]
    return _object("apps/v1", "StatefulSet", name, namespace, body,
                   {"availableReplicas": replicas, "collisionCount": 0,
                    "currentReplicas": replicas, "observedGeneration": 1,
                    "readyReplicas": replicas, "replicas": replicas, "updatedReplicas": replicas},
                   labels=labels, generation=1)


def daemonset(name: str, namespace: str, labels: Mapping[str, str], spec: Obj,
              nodes: int) -> Obj:
    """An apps/v1 DaemonSet scheduled on ``nodes`` nodes."""
    return _object("apps/v1", "DaemonSet", name, namespace,
                   {"revisionHistoryLimit": 10, "selector": {"matchLabels": dict(labels)},
                    "template": _template(labels, spec),
                    "updateStrategy": {"rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1},
                                       "type": "RollingUpdate"}},
                   {"currentNumberScheduled": nodes, "desiredNumberScheduled": nodes,
                    "numberAvailable": nodes, "numberMisscheduled": 0, "numberReady": nodes,
                    "observedGeneration": 1, "updatedNumberScheduled": nodes},
                   labels=labels, generation=1,
                   annotations={"deprecated.daemonset.template.generation": "1"})


def pdb(name: str, namespace: str, match_labels: Mapping[str, str], *,
        min_available: int | str | None = None, max_unavailable: int | str | None = None,
        healthy: int, desired: int, expected: int, allowed: int | None = None,
        generation: int = 1, observed: int = 1, policy: str | None = None) -> Obj:
    """A policy/v1 PodDisruptionBudget with the disruption controller's status
    (``disruptionsAllowed`` = healthy - desired, floored at 0, unless given)."""
    spec: Obj = {}
    if max_unavailable is not None:
        spec["maxUnavailable"] = max_unavailable
    if min_available is not None:
        spec["minAvailable"] = min_available
    spec["selector"] = {"matchLabels": dict(match_labels)}
    if policy:
        spec["unhealthyPodEvictionPolicy"] = policy
    allowed = max(0, healthy - desired) if allowed is None else allowed
    return _object("policy/v1", "PodDisruptionBudget", name, namespace, spec, {
        "conditions": [{
            "lastTransitionTime": CREATED, "message": "", "observedGeneration": observed,
            "reason": "SufficientPods" if allowed else "InsufficientPods",
            "status": "True" if allowed else "False", "type": "DisruptionAllowed"}],
        "currentHealthy": healthy, "desiredHealthy": desired, "disruptionsAllowed": allowed,
        "expectedPods": expected, "observedGeneration": observed}, generation=generation)


# ---- storage, Ytsaurus ---------------------------------------------------------------------

def pvc(name: str, namespace: str, volume: str, storage: str = "10Gi",
        storage_class: str = "yc-network-hdd") -> Obj:
    """A bound PersistentVolumeClaim."""
    return _object("v1", "PersistentVolumeClaim", name, namespace,
                   {"accessModes": ["ReadWriteOnce"],
                    "resources": {"requests": {"storage": storage}},
                    "storageClassName": storage_class, "volumeMode": "Filesystem",
                    "volumeName": volume},
                   {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": storage},
                    "phase": "Bound"},
                   annotations={"pv.kubernetes.io/bind-completed": "yes"})


def pv(name: str, *, claim: tuple[str, str] | None = None, local_path: str | None = None,
       node_name: str | None = None, zone: str = "ru-central1-a",
       storage: str = "10Gi") -> Obj:
    """A PersistentVolume: ``local`` pinned to ``node_name``, else a network disk pinned to
    its zone (as Yandex's CSI driver writes it)."""
    if local_path:
        source: Obj = {"local": {"path": local_path}}
        term = {"key": "kubernetes.io/hostname", "operator": "In", "values": [node_name]}
        storage_class = "local-storage"
    else:
        source = {"csi": {"driver": "disk-csi-driver.mks.ycloud.io", "fsType": "ext4",
                          "volumeHandle": f"fhm{pod_hash(name)}"}}
        term = {"key": "failure-domain.beta.kubernetes.io/zone", "operator": "In",
                "values": [zone]}
        storage_class = "yc-network-hdd"
    spec: Obj = {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": storage}, **source,
                 "nodeAffinity": {"required": {"nodeSelectorTerms": [
                     {"matchExpressions": [term]}]}},
                 "persistentVolumeReclaimPolicy": "Delete", "storageClassName": storage_class,
                 "volumeMode": "Filesystem"}
    if claim:
        spec["claimRef"] = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                            "name": claim[1], "namespace": claim[0],
                            "uid": uid("PersistentVolumeClaim", claim[0], claim[1])}
    return _object("v1", "PersistentVolume", name, None, spec,
                   {"phase": "Bound" if claim else "Available"})


def ytsaurus(name: str, namespace: str, components: Mapping[str, Any]) -> Obj:
    """A cluster.ytsaurus.tech/v1 ``Ytsaurus`` with the given spec components
    (``{"httpProxies": [{"instanceCount": 5, "minReadyInstanceCount": 3}]}``)."""
    spec: Obj = {"coreImage": "ghcr.io/ytsaurus/ytsaurus:stable-24.2.0",
                 "isManaged": True, "useShortNames": True, **components}
    return _object("cluster.ytsaurus.tech/v1", "Ytsaurus", name, namespace, spec,
                   {"state": "Running", "updateStatus": {"state": "None"}}, generation=1)


def as_list(items: Iterable[Obj]) -> Obj:
    """Wrap objects as kubectl's ``List`` (what ``kubectl get a,b -A -o json`` prints)."""
    return {"apiVersion": "v1", "items": list(items), "kind": "List",
            "metadata": {"resourceVersion": ""}}
