"""Numbers for people: durations and sizes as every report prints them. Pure."""

from __future__ import annotations

from ngupgrade.core.model import GIB


def counted(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural unless ``n`` is 1: ``1 node``, ``3 nodes``, ``0 quotas``.
    For nouns whose plural adds ``s``; the one owner of the rule in every report."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def span_text(low: float, high: float, unit: str) -> str:
    """A range as reports write it: ``6 min`` when both ends agree, else ``6..18 min``;
    ``unit`` is counted (:func:`counted`) when it is ``cycle``: ``1 cycle``, ``1..3 cycles``.
    Ends are printed with ``:g`` (no trailing ``.0``)."""
    if unit == "cycle":
        if low == high:
            return counted(int(low), "cycle")
        return f"{low:g}..{high:g} cycles"
    return f"{low:g} {unit}" if low == high else f"{low:g}..{high:g} {unit}"


def human_seconds(seconds: float) -> str:
    """A duration in seconds, short: ``45s``, ``12m``, ``7m05s``, ``1h``, ``1h05m``.

    Under an hour the seconds show; from an hour on, minutes are the finest unit.
    """
    s = max(0, round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        m, r = divmod(s, 60)
        return f"{m}m" if r == 0 else f"{m}m{r:02d}s"
    h, r = divmod(s, 3600)
    return f"{h}h" if r < 60 else f"{h}h{r // 60:02d}m"


def format_gib(size_bytes: float) -> str:
    """Bytes as GiB (2**30), two decimals at most: ``17179869184`` -> ``"16"``,
    ``1610612736`` -> ``"1.5"``, ``2 GiB - 1 byte`` -> ``"2"``."""
    return f"{size_bytes / GIB:.2f}".rstrip("0").rstrip(".")


def quota_unit(quota_id: str) -> str:
    """The unit people read for a quota id: GiB, cores, nodes, VMs, disks, GPUs, addresses;
    MB and GB for Selectel's ``compute_ram.<zone>`` and ``volume_gigabytes_<type>.<zone>``.
    A row's name with its scope after the id (``managed-kubernetes.groupNodes.count (group
    ADDRESS)``: :attr:`ngupgrade.core.quota.verdict.QuotaVerdict.name`) reads in its id's unit
    (quota ids hold no space)."""
    name = quota_id.split(" ", 1)[0].lower()
    if name.startswith("compute_ram"):  # Selectel project quotas: MB and GB, as the API counts
        return "MB"
    if name.startswith("volume_gigabytes"):
        return "GB"
    if name.endswith(".size"):
        return "GiB"
    if "cores" in name:
        return "cores"
    if "gpus" in name:
        return "GPUs"
    if name.endswith("instances.count"):
        return "VMs"
    if name.endswith("nodes.count"):
        return "nodes"
    if name.endswith("disks.count"):
        return "disks"
    if "addresses" in name:
        return "IPs"
    return ""


def human_quota(quota_id: str, value: float | None) -> str:
    """``value`` of ``quota_id`` for people: bytes as GiB, counts with their unit; ``?`` if None."""
    if value is None:
        return "?"
    unit = quota_unit(quota_id)
    if unit == "GiB":
        text = format_gib(value)
    else:
        text = f"{value:.0f}" if float(value).is_integer() else f"{value:g}"
        if value == 1 and unit.endswith("s") and unit != "GiB":
            unit = unit[:-1]  # 1 core, 1 VM, 1 GPU, 1 disk, 1 IP
    return f"{text} {unit}".rstrip()
