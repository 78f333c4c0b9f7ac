"""Use case: load a Terraform state and select node groups, the same way in every command."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from ngupgrade.adapters.state.parse import GROUP_TYPES, ParsedState, parse_state
from ngupgrade.adapters.state.sources import StateRequest, read_state_bytes
from ngupgrade.app.settings import Settings
from ngupgrade.core import platform as plat
from ngupgrade.core.address import TfAddress
from ngupgrade.core.errors import BadInput, CheckFailed, UsageError
from ngupgrade.core.inputs import document_kind, flag_of, wrong_input
from ngupgrade.core.model import NodeGroup


def state_request(settings: Settings) -> StateRequest:
    """The state-source part of the settings."""
    return StateRequest(
        spec=settings.state, terraform_bin=settings.terraform_bin,
        workspace=settings.workspace, workspace_key_prefix=settings.workspace_key_prefix,
        s3_endpoint=settings.s3_endpoint, s3_region=settings.s3_region,
    )


def load_state(settings: Settings) -> ParsedState:
    """Read and parse the state named by ``settings.state``.

    Raises:
        UsageError: no state given and none in the current directory.
        BadInput: the state could not be read or understood.
    """
    data, label = read_state_bytes(state_request(settings))
    try:
        return parse_state(data, label, settings.platform)
    except BadInput as err:
        other = other_input(data, label, "--state")
        if other is None:
            raise
        raise other from err


def other_input(data: bytes, source: str, flag: str) -> BadInput | None:
    """The error for ``data`` when it is another tool's input given to ``flag`` (``--state``,
    ``--plan``, ``--cluster``):
    a quota file (:func:`~ngupgrade.adapters.files.quota_file.quota_file_form`), Kubernetes
    objects or a plan in YAML or JSON (:func:`ngupgrade.core.inputs.document_kind`), one
    document or a stream of YAML documents (``---``) all of one kind; None when it is none of
    these (the reader's own error stands). Read only after the reader refused ``data``, so a
    state is never decoded twice."""
    from ngupgrade.adapters.documents import check_size, load_yaml_documents
    from ngupgrade.adapters.files.quota_file import quota_file_form

    try:
        check_size(data, source, "document")  # a big state cut short is not parsed as YAML
        docs = load_yaml_documents(data, source)
    except BadInput:
        return None
    kinds = {document_kind(doc) or ("quota-file" if quota_file_form(doc) else None)
             for doc in docs}
    if len(kinds) != 1:
        return None
    kind = kinds.pop()
    if kind is not None and flag != flag_of(kind):
        return wrong_input(kind, flag, source)
    return None


def forced_platform(settings: Settings) -> plat.Platform | None:
    """The platform whose bounds check the overrides before the state is read: the one
    ``--platform`` names, else None (not known yet: only what no platform takes is refused;
    :func:`selection_platform` checks again once the groups are read)."""
    return plat.get(settings.platform) if settings.platform else None


def selection_platform(groups: Sequence[NodeGroup]) -> plat.Platform:
    """The platform whose fixed bounds check ``--max-expansion``/``--max-unavailable`` for
    the selected ``groups``: Selectel when every one is a Selectel group (no fixed bound: each
    group's is its node count, or its autoscaler max, checked by the group's policy check),
    else Yandex (0..100 for any group)."""
    if groups and all(g.platform == "selectel" for g in groups):
        return plat.SELECTEL
    return plat.YANDEX


def refuse_changes(groups: Sequence[NodeGroup], command: str, settings: Settings) -> None:
    """Stop ``set-policy``, ``upgrade`` and ``wait`` before any API call when a group (or
    ``--platform``) is on a platform ngupgrade does not change (Selectel: its strategy lives in
    the control panel; no strategy field in its API or
    ``selectel/terraform-provider-selectel``).

    Raises:
        UsageError: naming the group and where to make the change instead (exit 2).
    """
    names = {g.platform for g in groups}
    if settings.platform:
        names.add(settings.platform)
    for name in sorted(names):
        platform = plat.get(name)
        if platform.applies_changes:
            continue
        which = [str(g.address) for g in groups if g.platform == name]
        subject = ", ".join(which) if which else f"--platform {name}"
        raise UsageError(
            f"{command}: {subject} is on {platform.title}; ngupgrade only reads, plans and "
            f"checks it (nothing was sent): set the upgrade strategy, and start the upgrade, "
            f"in {platform.change_hint}",
            hint="`ngupgrade plan` and `ngupgrade preflight` work on it")


def select_groups(groups: Sequence[NodeGroup], selectors: Sequence[str]) -> list[NodeGroup]:
    """Pick groups by Terraform address, node-group name or id, in the order asked: the one
    rule of ``--group`` in every command (``set-policy`` and ``wait`` through
    :func:`ngupgrade.app.cloud.resolve_group`).

    Each selector names exactly one group (:func:`match_groups`): an address is compared in
    its canonical form, so ``ng["a"]`` and ``ng[ "a" ]`` agree only when they are the same
    address; an id is unique; a name that several groups share (two clusters' ``gpu``) names
    none of them, since acting on all of them (an upgrade of both) is never what one name
    meant. A group named twice is returned once. With no selectors every group is returned,
    in state order.

    Raises:
        UsageError: a selector is empty, matches nothing (the message lists what exists), or
            matches several groups (the message names each by address and id; exit 2).
    """
    if not selectors:
        return list(groups)
    if not groups:
        raise nothing_checked(f"--group {selectors[0]}")
    chosen: list[NodeGroup] = []
    seen: set[str] = set()
    for selector in selectors:
        if not selector.strip():
            # `-g "$GROUP"` with GROUP unset: never read as "every group without a name".
            raise UsageError("an empty --group selects nothing",
                             hint="give a Terraform address, a node-group name or id")
        matches = match_groups(groups, selector)
        if not matches:
            known = ", ".join(f"{g.address} ({g.name or g.id})" for g in groups) or "none"
            close = closest_group_word(groups, selector)
            raise UsageError(f"no node group matches {selector!r}"
                             + (f": did you mean {close}?" if close else ""),
                             hint=f"node groups in this state: {known}")
        if len(matches) > 1:
            listed = ", ".join(f"{g.address} ({g.id or 'no id yet'})" for g in matches)
            raise UsageError(f"{selector!r} matches {len(matches)} node groups: {listed}",
                             hint="name one by its Terraform address or id")
        key = str(matches[0].address)
        if key not in seen:
            seen.add(key)
            chosen.append(matches[0])
    return chosen


def nothing_checked(why: str) -> CheckFailed:
    """The failure of a state that holds no node group at all, under ``--strict`` or a
    ``--group`` (``why``): a gate that checked nothing must not pass (exit 1). A wrong file
    given as the state is named before this (:func:`other_input`)."""
    return CheckFailed(f"the state holds no node group ({', '.join(sorted(GROUP_TYPES))}): "
                       f"nothing was checked ({why})",
                       hint="is it the right state (workspace, backend key)? `terraform state "
                            "list` shows what it holds")


def refuse_empty(groups: Sequence[object], strict: bool, command: str) -> None:
    """Under ``--strict``, a state with no node group fails (:func:`nothing_checked`);
    ``groups`` are what the command made of them (groups, plans)."""
    if strict and not groups:
        raise nothing_checked(f"{command} --strict")


def match_groups(groups: Sequence[NodeGroup], selector: str) -> list[NodeGroup]:
    """Every group ``selector`` could mean: those at its canonical Terraform address, else
    those with it as id, else those with it as name (several only for a shared name, or a
    state that holds one id at two addresses). :func:`select_groups` judges the count."""
    try:
        address = str(TfAddress.parse(selector))
    except ValueError:
        address = None
    by_address = [g for g in groups if address is not None and str(g.address) == address]
    if by_address:
        return by_address
    by_id = [g for g in groups if g.id and g.id == selector]
    if by_id:
        return by_id
    by_name = [g for g in groups if g.name == selector]
    if by_name:
        return by_name
    # the resource's name in the Terraform code (`yandex_kubernetes_node_group.workers` ->
    # `workers`), which people type as often as the group's own name; a for_each resource's
    # name stands for all its instances, and select_groups refuses it as shared
    return [g for g in groups if g.address.name == selector]


def closest_group_word(groups: Sequence[NodeGroup], selector: str) -> str | None:
    """The group name, Terraform resource name, address or id closest to ``selector`` (a typo
    such as ``wrkers``), by :func:`difflib.get_close_matches`; None when nothing is close."""
    words: list[str] = []
    for g in groups:
        words += [w for w in (g.name, g.address.name, str(g.address), g.id) if w]
    close = difflib.get_close_matches(selector, list(dict.fromkeys(words)), n=1, cutoff=0.6)
    return close[0] if close else None


def load_groups(settings: Settings, selectors: Sequence[str] = ()) -> list[NodeGroup]:
    """Read the state and return the selected node groups (all when ``selectors`` is empty).

    Raises:
        UsageError, BadInput: see :func:`load_state` and :func:`select_groups`.
    """
    return select_groups(load_state(settings).groups, selectors)
