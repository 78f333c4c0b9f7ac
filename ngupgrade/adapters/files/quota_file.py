"""Offline quota source: a file of quota limits exported earlier (``--quotas FILE``).

Two forms are accepted (README.md), in JSON or YAML:

* the proto-JSON of ``ListQuotaLimitsResponse`` as the REST API and the SDK's JSON printer write
  it, one object or a list of them (several services, pages or clouds)::

      {"resource": {"id": "b1g...", "type": "resource-manager.cloud"},
       "quotaLimits": [{"quotaId": "compute.instanceCores.count", "limit": 10, "usage": 8}]}

  with snake_case keys (``quota_limits``, ``quota_id``) as well. ``limit``/``usage`` are
  ``DoubleValue`` wrappers: a number, a numeric string, or absent (unknown, never unlimited).
* the short form ``{"<cloud_id>": {"<quota_id>": {"limit": L, "usage": U}}}``;
* also a bare list of ``QuotaLimit`` objects (``[{"quota_id", "limit", "usage"}]``), or one
  such object as ``yc quota-manager quota-limit get`` prints it; neither names a cloud.

``yc quota-manager quota-limit list ... --format json|yaml`` prints the response with
snake_case keys (yandex-cloud/docs ``en/_includes/quota-manager/get-quota-service-cli-output.md``).
Several documents in one file (JSON values one after another, YAML documents between ``---``)
are each read as a quota file and merged (:func:`parse_quota_text`).

A response without ``resource.id`` belongs to no named cloud; it is accepted only when it is
the only cloud of the file, and then answers for whichever cloud is asked.

Every fault is a ``BadInput`` (exit 3) naming the file and the JSON path; so is a key that none
of these messages has (``used:`` for ``usage:``), with the closest known key as the hint.
"""

from __future__ import annotations

import difflib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, NoReturn

from ngupgrade.adapters.documents import check_size, load_yaml_documents, read_bounded
from ngupgrade.core.bounds import INT_LIMIT_MESSAGE, too_deep, too_deep_message
from ngupgrade.core.errors import BadInput, NotYaml
from ngupgrade.core.inputs import document_kind, wrong_input
from ngupgrade.core.model import QuotaLimit
from ngupgrade.core.text import (
    LONE_SURROGATE_MESSAGE,
    encoding_fault,
    encoding_fix,
    encoding_message,
    lone_surrogate_path,
)

CLOUD_RESOURCE_TYPE = "resource-manager.cloud"

# The fields of the Quota Manager's messages (quota_limit_service.proto), in both spellings
# proto-JSON allows. Any other key is a typo (`used:` for `usage:`) that would otherwise turn
# every quota "unknown" and pass the gate: bad input.
RESPONSE_KEYS = ("resource", "quotaLimits", "quota_limits", "nextPageToken", "next_page_token")
RESOURCE_KEYS = ("id", "type")
QUOTA_LIMIT_KEYS = ("quotaId", "quota_id", "limit", "usage")
SHORT_ENTRY_KEYS = ("limit", "usage")


@dataclass(frozen=True)
class QuotaFile:
    """Quota limits read from a file: cloud id (None when unnamed) -> quota id -> limit.

    Implements the ``QuotaSource`` protocol of :mod:`ngupgrade.app.quota_check`.
    """

    source: str
    clouds: Mapping[str | None, Mapping[str, QuotaLimit]]
    offline: ClassVar[bool] = True
    """Reads of a file are no API calls: the preflight report does not count them."""

    @property
    def cloud_ids(self) -> tuple[str, ...]:
        """The named clouds the file holds, in file order."""
        return tuple(c for c in self.clouds if c is not None)

    def single_cloud_id(self) -> str | None:
        """The one named cloud of the file, or None when it holds none or several."""
        ids = self.cloud_ids
        return ids[0] if len(ids) == 1 and len(self.clouds) == 1 else None

    def _limits_of(self, cloud_id: str) -> Mapping[str, QuotaLimit]:
        if cloud_id in self.clouds:
            return self.clouds[cloud_id]
        if list(self.clouds) == [None]:
            return self.clouds[None]
        held = ", ".join(self.cloud_ids) or "none"
        raise BadInput(f"no quotas for cloud {cloud_id} (the file holds: {held})",
                       source=self.source,
                       hint=f"export the quotas of cloud {cloud_id} into the file, or check "
                            f"--cloud-id: it names the cloud of every group (the file's: "
                            f"{held})")

    def list_quota_limits(self, cloud_id: str, service: str) -> list[QuotaLimit]:
        """The quotas of ``service`` in ``cloud_id`` (ids starting with ``service + '.'``).

        Raises:
            BadInput: the file holds no quotas for that cloud.
        """
        prefix = f"{service}."
        return [q for qid, q in self._limits_of(cloud_id).items() if qid.startswith(prefix)]


def read_quota_file(path: str) -> QuotaFile:
    """Read and parse ``path`` (JSON, or YAML when it is not JSON): a Yandex cloud's quotas,
    for a state's Yandex groups.

    Raises:
        BadInput: the file cannot be read, is neither JSON nor YAML, has a wrong shape, or is
            a Selectel project's quota file (:func:`quota_file_form`), said so plainly.
    """
    return parse_quota_text(read_quota_text(path), path)


QuotaFileForm = Literal["yandex", "selectel"]

FORMS: dict[QuotaFileForm, tuple[str, str, str, str]] = {
    "yandex": ("Yandex", "cloud's", "{CLOUD_ID: {QUOTA_ID: {limit, usage}}} or the Quota Manager's "
                         "ListQuotaLimitsResponse", "docs/quota-preflight.md"),
    "selectel": ("Selectel", "project's", "{project_id, quotas: {RESOURCE: [{zone, value, used}]}}",
                 "docs/selectel.md"),
}
"""Each form: the platform's name, whose quotas it holds, the shape, and the page that
describes it."""


def quota_file_form(data: Any) -> QuotaFileForm | None:
    """Which platform's quota file a decoded document is, the one place that tells them
    apart; None when neither is recognised (then the reader's own checks name the fault).

    ``selectel``: an object with ``project_id`` or ``quotas`` (docs/selectel.md).
    ``yandex``: a list (responses or bare ``QuotaLimit`` objects), one ``QuotaLimit``, a
    ``ListQuotaLimitsResponse`` object, or the short form: an object of objects whose keys
    are dotted Yandex quota ids (``compute.instanceCores.count``; Selectel's resources have
    no dot).
    """
    if isinstance(data, dict) and ("project_id" in data or "quotas" in data):
        return "selectel"
    if isinstance(data, list) or _is_quota_limit(data) or (
            isinstance(data, dict) and _looks_like_response(data)):
        return "yandex"
    if isinstance(data, dict) and data and all(
            isinstance(v, dict) and any("." in str(k) for k in v) for v in data.values()):
        return "yandex"
    return None


def refuse_other_form(data: Any, source: str, expected: QuotaFileForm) -> None:
    """Refuse a quota file of the other platform, saying which it is and what to pass.

    Raises:
        BadInput: at ``$``: "this is a Selectel quota file; the state's groups are Yandex"
            (or the reverse), the hint the shape the groups need and the page describing it;
            a Terraform state or plan or Kubernetes objects, named with the flag that takes
            them (:func:`ngupgrade.core.inputs.wrong_input`).
    """
    kind = document_kind(data)
    if kind is not None:
        raise wrong_input(kind, "--quotas", source)
    found = quota_file_form(data)
    if found is None or found == expected:
        return
    name = FORMS[found][0]
    want, whose, shape, page = FORMS[expected]
    raise BadInput(f"this is a {name} quota file; the state's groups are {want}",
                   source=source, path="$",
                   hint=f"pass --quotas with the {want} {whose} quotas: {shape} ({page}); a {name} "
                        f"quota file goes with a {name} state")


QUOTA_FILE_HINT = ("pass --quotas with the path of a quota file (how to export one: "
                   "docs/quota-preflight.md; a Selectel project's: docs/selectel.md)")


def read_quota_text(path: str) -> str:
    """The text of a quota file (this form or Selectel's project quotas), UTF-8.

    Raises:
        BadInput: the file cannot be read, or is not UTF-8 text (named at its byte offset
            and line, with how to convert it: :func:`ngupgrade.core.text.encoding_fix`).
    """
    data = read_bounded(path, "quota file", missing_hint=QUOTA_FILE_HINT,
                        directory_hint=f"pass the file itself: --quotas {path.rstrip('/')}/"
                                       "quotas.json (docs/quota-preflight.md)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        fault = encoding_fault(data)
        if fault is None:  # cannot be: encoding_fault finds every byte decode() refuses
            raise BadInput(f"not UTF-8 text: {err}", source=path) from err
        raise BadInput(encoding_message(fault), source=path,
                       hint=encoding_fix(fault, path, writer="the Quota Manager API",
                                         default="quotas.json",
                                         again="export it again (docs/quota-preflight.md)")
                       ) from err


def parse_quota_text(text: str, source: str) -> QuotaFile:
    """Parse the text of a quota file; ``source`` names it in errors. Several documents (one
    ``yc ... --format json`` output per service, one after another, or YAML ones between
    ``---`` lines) are each read as a quota file of their own, named
    ``<source> (document N)``, and merged."""
    data = decode_quota_text(text, source)
    if isinstance(data, QuotaDocuments):
        return _parse_documents(data, source)
    refuse_other_form(data, source, "yandex")
    return parse_quota_document(data, source)


class QuotaDocuments(list[Any]):
    """The documents of a file that holds more than one, in order."""


def _parse_documents(documents: QuotaDocuments, source: str) -> QuotaFile:
    clouds: dict[str | None, dict[str, QuotaLimit]] = {}
    for number, document in enumerate(documents, 1):
        name = f"{source} (document {number})"
        refuse_other_form(document, name, "yandex")
        for cloud_id, limits in parse_quota_document(document, name).clouds.items():
            bucket = clouds.setdefault(cloud_id, {})
            for quota in limits.values():
                _put(bucket, quota, "$", name)
    if None in clouds and len(clouds) > 1:
        raise BadInput("a document without resource.id next to documents of named clouds",
                       source=source, path="$", hint="give every response its resource")
    return QuotaFile(source=source, clouds=clouds)


def decode_quota_text(text: str, source: str) -> Any:
    """The document a quota file holds (this form or Selectel's project quotas): JSON, else
    YAML; ``source`` names the file in errors.

    Raises:
        BadInput: neither JSON nor YAML, nested too deeply, a number too large to be a quota
            value, or a lone surrogate (at its JSON path).
    """
    data = _decode(text, source)
    deep = too_deep(data)
    if deep is not None:
        raise BadInput(too_deep_message(), source=source, path=deep)
    where = lone_surrogate_path(data)
    if where is not None:
        raise BadInput(LONE_SURROGATE_MESSAGE, source=source, path=where)
    return data


def _decode(text: str, source: str) -> Any:
    """JSON (one value, or values one after another), else YAML (one document, or several
    between ``---`` lines); several documents come back as :class:`QuotaDocuments`."""
    try:
        return json.loads(text)
    except RecursionError as err:  # lists nested thousands deep: no real export is
        raise BadInput(too_deep_message(), source=source) from err
    except json.JSONDecodeError as json_err:
        if json_err.msg == "Extra data":
            try:
                return _json_documents(text, source)
            except BadInput as stream_err:
                # a YAML mapping whose first key is quoted ("b1g...": ...) starts as a JSON
                # string: read as YAML before blaming the JSON stream
                return _yaml(text, source, json_err, not_yaml=stream_err)
        return _yaml(text, source, json_err)
    except ValueError as err:  # an integer of over 4300 digits (int_max_str_digits)
        raise BadInput(INT_LIMIT_MESSAGE, source=source) from err


def _yaml(text: str, source: str, json_err: json.JSONDecodeError,
          not_yaml: BadInput | None = None) -> Any:
    """The YAML document(s) of a quota file that is not JSON; when it is not YAML either,
    ``not_yaml`` (the JSON stream's own error) or a message naming both failures."""
    try:
        check_size(text, source, "YAML document")
        documents = load_yaml_documents(text, source)
    except NotYaml as err:
        if not_yaml is not None:
            raise not_yaml from None
        raise BadInput(f"neither JSON ({json_err.msg} at line {json_err.lineno}) nor YAML "
                       f"({err.detail})", source=source) from err
    if len(documents) > 1:
        return QuotaDocuments(documents)
    return documents[0] if documents else None


def _json_documents(text: str, source: str) -> QuotaDocuments:
    """JSON values one after another (``for s in ...; do yc ... --format json; done >
    quotas.json``), as the standard library's ``raw_decode`` reads one at a time.

    Raises:
        BadInput: a document that is not JSON, named by its number and line.
    """
    decoder = json.JSONDecoder()
    documents = QuotaDocuments()
    at = 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at == len(text):
            return documents
        try:
            value, at = decoder.raw_decode(text, at)
        except json.JSONDecodeError as err:
            raise BadInput(f"not JSON: {err.msg} at line {err.lineno}",
                           source=f"{source} (document {len(documents) + 1})") from err
        except RecursionError as err:
            raise BadInput(too_deep_message(), source=source) from err
        except ValueError as err:  # an integer of over 4300 digits (int_max_str_digits)
            raise BadInput(INT_LIMIT_MESSAGE, source=source) from err
        documents.append(value)


def parse_quota_document(data: Any, source: str) -> QuotaFile:
    """Turn a decoded document of either form into a :class:`QuotaFile`.

    Raises:
        BadInput: naming ``source`` and the JSON path of the first fault.
    """
    clouds: dict[str | None, dict[str, QuotaLimit]] = {}
    if _is_quota_limit(data):
        # One QuotaLimit, as `yc quota-manager quota-limit get` prints it: names no cloud.
        _read_limits([data], "$", source, clouds.setdefault(None, {}), single=True)
    elif isinstance(data, list) and data and all(_is_quota_limit(x) for x in data):
        # A bare list of QuotaLimit objects (one service's quota_limits, no resource).
        _read_limits(data, "$", source, clouds.setdefault(None, {}))
    elif isinstance(data, list):
        if not data:
            raise BadInput("an empty list holds no quotas", source=source, path="$")
        for i, item in enumerate(data):
            _read_response(item, f"$[{i}]", source, clouds)
    elif isinstance(data, dict) and _looks_like_response(data):
        _read_response(data, "$", source, clouds)
    elif isinstance(data, dict):
        if not data:
            raise BadInput("an empty object holds no quotas", source=source, path="$")
        for cloud_id, quotas in data.items():
            _read_short_cloud(cloud_id, quotas, source, clouds)
    else:
        raise BadInput(f"expected an object or a list, found {kind_of(data)}",
                       source=source, path="$")
    if None in clouds and len(clouds) > 1:
        raise BadInput("a response without resource.id next to responses of named clouds",
                       source=source, path="$", hint="give every response its resource")
    for cloud_id, limits in clouds.items():
        if not limits:  # its responses' quota_limits are all empty
            _refuse_no_quotas(cloud_id, source, "$")
    return QuotaFile(source=source, clouds=clouds)


def _refuse_no_quotas(cloud_id: str | None, source: str, path: str) -> NoReturn:
    """A cloud entry with no quota: every quota the surge draws on would be unknown, and a
    preflight of unknowns checks nothing; as bad as an empty file.

    Raises:
        BadInput: always, naming the cloud.
    """
    cloud = f"cloud {cloud_id}" if cloud_id else "the response"
    raise BadInput(f"{cloud} holds no quotas", source=source, path=path,
                   hint="export the cloud's quotas again (docs/quota-preflight.md): yc "
                        "quota-manager quota-limit list --service compute --resource-type "
                        "resource-manager.cloud --resource-id CLOUD_ID --format json")


def _known_keys(entry: Mapping[Any, Any], known: tuple[str, ...], where: str,
                source: str) -> None:
    """Refuse a key the message does not have, naming it and the closest known one.

    Raises:
        BadInput: at ``where.<key>``.
    """
    for key in entry:
        if key in known:
            continue
        by_lower = {k.lower(): k for k in known}  # `ID` is `id` mistyped, not a stranger
        close = difflib.get_close_matches(str(key).lower(), by_lower, n=1, cutoff=0.5)
        raise BadInput(f"unknown key {str(key)!r} (known: {', '.join(known)})", source=source,
                       path=f"{where}.{key}",
                       hint=f"did you mean {by_lower[close[0]]!r}?" if close else None)


def _is_quota_limit(data: Any) -> bool:
    return isinstance(data, dict) and ("quotaId" in data or "quota_id" in data)


def _looks_like_response(data: Mapping[str, Any]) -> bool:
    return any(k in data for k in ("resource", "quotaLimits", "quota_limits", "nextPageToken",
                                   "next_page_token"))


def kind_of(value: Any) -> str:
    """What a decoded JSON/YAML value is, for an error message: ``null``, ``an object``,
    ``a list``, ``a string``, ``a boolean``, else its type name (``int``, ``float``)."""
    if value is None:
        return "null"
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), type(value).__name__)


def _read_response(item: Any, path: str, source: str,
                   clouds: dict[str | None, dict[str, QuotaLimit]]) -> None:
    if not isinstance(item, dict):
        raise BadInput(f"expected a ListQuotaLimitsResponse object, found {kind_of(item)}",
                       source=source, path=path)
    _known_keys(item, RESPONSE_KEYS, path, source)
    cloud_id: str | None = None
    resource = item.get("resource")
    if resource is not None:
        if not isinstance(resource, dict):
            raise BadInput(f"expected an object, found {kind_of(resource)}", source=source,
                           path=f"{path}.resource")
        _known_keys(resource, RESOURCE_KEYS, f"{path}.resource", source)
        rid = resource.get("id")
        if rid is not None and (not isinstance(rid, str) or not rid):
            raise BadInput("resource id must be a non-empty string", source=source,
                           path=f"{path}.resource.id")
        rtype = resource.get("type")
        if rtype is not None and rtype != CLOUD_RESOURCE_TYPE:
            raise BadInput(f"quotas of a {rtype!r} resource; node groups draw on the cloud's "
                           f"({CLOUD_RESOURCE_TYPE})", source=source, path=f"{path}.resource.type")
        cloud_id = rid
    key = "quotaLimits" if "quotaLimits" in item else "quota_limits"
    limits = item.get(key, [])
    if limits is None:
        limits = []
    if not isinstance(limits, list):
        raise BadInput(f"expected a list, found {kind_of(limits)}", source=source,
                       path=f"{path}.{key}")
    _read_limits(limits, f"{path}.{key}", source, clouds.setdefault(cloud_id, {}))


def _read_limits(limits: list[Any], path: str, source: str,
                 bucket: dict[str, QuotaLimit], single: bool = False) -> None:
    for i, entry in enumerate(limits):
        where = path if single else f"{path}[{i}]"
        if not isinstance(entry, dict):
            raise BadInput(f"expected an object, found {kind_of(entry)}", source=source, path=where)
        _known_keys(entry, QUOTA_LIMIT_KEYS, where, source)
        qid = entry.get("quotaId", entry.get("quota_id"))
        if not isinstance(qid, str) or not qid:
            raise BadInput("quota id missing (quotaId / quota_id)", source=source, path=where)
        _put(bucket, QuotaLimit(qid, _number(entry.get("limit"), f"{where}.limit", source),
                                _number(entry.get("usage"), f"{where}.usage", source)),
             where, source)


def _read_short_cloud(cloud_id: Any, quotas: Any, source: str,
                      clouds: dict[str | None, dict[str, QuotaLimit]]) -> None:
    path = f"$.{cloud_id}"
    if not isinstance(cloud_id, str) or not cloud_id:
        raise BadInput("cloud id must be a non-empty string", source=source, path=path)
    if not isinstance(quotas, dict):
        raise BadInput(f"expected an object of quota id -> {{limit, usage}}, found "
                       f"{kind_of(quotas)}", source=source, path=path)
    if not quotas:
        _refuse_no_quotas(cloud_id, source, path)
    bucket = clouds.setdefault(cloud_id, {})
    for qid, entry in quotas.items():
        where = f"{path}.{qid}"
        if "." not in str(qid):
            raise BadInput(f"{qid!r} is not a quota id (service.name.unit)", source=source,
                           path=where, hint="the short form is {cloud_id: {quota_id: "
                           "{limit: L, usage: U}}}")
        if not isinstance(entry, dict):
            raise BadInput(f"expected {{limit, usage}}, found {kind_of(entry)}", source=source,
                           path=where)
        _known_keys(entry, SHORT_ENTRY_KEYS, where, source)
        _put(bucket, QuotaLimit(str(qid), _number(entry.get("limit"), f"{where}.limit", source),
                                _number(entry.get("usage"), f"{where}.usage", source)),
             where, source)


def _put(bucket: dict[str, QuotaLimit], quota: QuotaLimit, where: str, source: str) -> None:
    old = bucket.get(quota.quota_id)
    if old is not None and old != quota:
        raise BadInput(f"{quota.quota_id} appears twice with different values", source=source,
                       path=where)
    bucket[quota.quota_id] = quota


def _number(value: Any, path: str, source: str) -> float | None:
    """A DoubleValue as proto-JSON writes it: a number, a numeric string, or absent/null.

    Raises:
        BadInput: not a number, not finite (``.inf``, ``"Infinity"``, ``1e400``, NaN) or negative.
    """
    if value is None:
        return None
    if isinstance(value, dict) and set(value) == {"value"}:  # a wrapper written out as an object
        value = value["value"]
    if isinstance(value, bool):
        raise BadInput("expected a number, found a boolean", source=source, path=path)
    if isinstance(value, int | float):
        try:
            number = float(value)
        except OverflowError as err:  # an integer beyond a double: 1 followed by 400 zeros
            raise BadInput(f"expected a finite number, found an integer of "
                           f"{len(str(abs(value)))} digits", source=source, path=path) from err
    elif isinstance(value, str):
        try:
            number = float(value)
        except ValueError as err:
            raise BadInput(f"expected a number, found {value!r}", source=source,
                           path=path) from err
    else:
        raise BadInput(f"expected a number, found {kind_of(value)}", source=source, path=path)
    if not math.isfinite(number):  # .inf, "Infinity", 1e400: inf - inf is a nan headroom
        raise BadInput(f"expected a finite number, found {value!r}", source=source, path=path)
    if number < 0:
        raise BadInput(f"expected a non-negative number, found {value!r}", source=source,
                       path=path)
    return number
