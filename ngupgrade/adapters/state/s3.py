"""Read a Terraform S3-backend state from Yandex Object Storage with boto3, read-only.

Key layout (``hashicorp/terraform`` internal/backend/remote-state/s3):
the default workspace lives at ``KEY``; another workspace at
``<workspace_key_prefix>/<workspace>/<KEY>`` with the prefix ``env:`` by default.
Credentials come from the usual ``AWS_*`` variables or a profile, as Terraform's backend
takes them. No lock is taken and nothing is written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ngupgrade.core.errors import BadInput, UsageError

if TYPE_CHECKING:
    from ngupgrade.adapters.state.request import StateRequest


def object_key(key: str, workspace: str, workspace_key_prefix: str = "env:") -> str:
    """The object key of ``key`` in ``workspace`` (Terraform's S3 backend ``path()``)."""
    if workspace in ("", "default"):
        return key
    return f"{workspace_key_prefix.rstrip('/')}/{workspace}/{key}"


def split_url(url: str) -> tuple[str, str]:
    """``s3://bucket/some/key`` -> ``("bucket", "some/key")``.

    Raises:
        UsageError: no bucket or no key.
    """
    rest = url[len("s3://"):]
    bucket, _, key = rest.partition("/")
    if not bucket or not key:
        raise UsageError(f"bad S3 state address {url!r}", hint="use s3://BUCKET/KEY")
    return bucket, key


def read_s3_state(request: StateRequest, url: str) -> tuple[bytes, str]:
    """Fetch the state object; return ``(bytes, label)``.

    Raises:
        BadInput: no such bucket/key/workspace, access denied, no credentials, or the
            endpoint could not be reached; the message names the object.
    """
    import boto3  # heavy: imported only for s3:// states
    import botocore.config
    import botocore.exceptions

    bucket, key = split_url(url)
    full_key = object_key(key, request.workspace, request.workspace_key_prefix)
    label = f"s3://{bucket}/{full_key}"
    # Yandex Object Storage, like other S3-compatible stores, may reject the CRC checksums
    # boto3 >= 1.36 sends by default: only send them when an operation requires it.
    config = botocore.config.Config(
        request_checksum_calculation="when_required",
        response_checksum_validation="when_required",
        retries={"max_attempts": 5, "mode": "standard"},
        connect_timeout=10, read_timeout=60,
    )
    try:
        client = boto3.session.Session().client(
            "s3", endpoint_url=request.s3_endpoint, region_name=request.s3_region,
            config=config,
        )
    except ValueError as err:  # botocore: "Invalid endpoint: ..." (no scheme, bad host)
        raise UsageError(f"bad --s3-endpoint {request.s3_endpoint!r}: {err}",
                         hint="give a URL such as https://storage.yandexcloud.net") from err
    try:
        body = client.get_object(Bucket=bucket, Key=full_key)["Body"].read()
    except botocore.exceptions.NoCredentialsError as err:
        raise BadInput("no credentials for Object Storage", source=label,
                       hint="export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (a static "
                            "access key of the service account) or AWS_PROFILE") from err
    except botocore.exceptions.ClientError as err:
        code = err.response.get("Error", {}).get("Code", "")
        if code in ("NoSuchKey", "404", "NotFound"):
            hint = (f"is the workspace right (--workspace {request.workspace})?"
                    if request.workspace not in ("", "default")
                    else "check the key, or pass --workspace for a non-default workspace")
            raise BadInput("no such state object", source=label, hint=hint) from err
        if code == "NoSuchBucket":
            raise BadInput("no such bucket", source=label) from err
        if code in ("AccessDenied", "403", "InvalidAccessKeyId", "SignatureDoesNotMatch"):
            raise BadInput(f"access denied ({code})", source=label,
                           hint="the key needs storage.viewer on the bucket") from err
        raise BadInput(f"Object Storage error {code}: {err}", source=label) from err
    except botocore.exceptions.EndpointConnectionError as err:
        raise BadInput(f"cannot reach {request.s3_endpoint}", source=label,
                       hint="check --s3-endpoint and the network") from err
    except botocore.exceptions.BotoCoreError as err:
        raise BadInput(f"Object Storage read failed: {err}", source=label) from err
    return body, label
