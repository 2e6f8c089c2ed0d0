#!/usr/bin/env python3
"""Validate A2A 1.0, A2A 0.3 and ACP JSON documents with the official SDKs.

Usage: validate.py [--prior-failures N] KIND=PATH...

PATH is a file, or `-` for standard input (at most once). KIND is one of:

  card-1.0    one AgentCard, A2A 1.0 ProtoJSON
  card-0.3    one AgentCard, A2A 0.3 JSON, exactly the ten keys (plus
              securitySchemes and security for an agent that requires a token)
  card-file-0.3  one AgentCard, A2A 0.3 JSON, of an agent whose card comes from a
              card file: the ten keys plus only the schema's optional keys
  tasks-1.0   a JSON array of A2A 1.0 Tasks
  tasks-0.3   a JSON array of A2A 0.3 Tasks
  stream-1.0  JSON Lines, each an A2A 1.0 StreamResponse
  stream-0.3  JSON Lines, each an A2A 0.3 Task, Message, TaskStatusUpdateEvent
              or TaskArtifactUpdateEvent
  runs-acp    a JSON array of ACP Runs

One line is printed per document: `ok KIND PATH` or `FAIL KIND PATH: reason`,
where PATH gets `#I` for item I (0-based) of an array and `#N` for line N
(1-based) of a JSON Lines file. The last line is `N passed, N failed`; the exit
status is 1 if anything failed, 2 on a usage error, 0 otherwise.

What is checked, beyond "the SDK parses it":

* A2A 1.0 (a2a-sdk, protobuf): `json_format.ParseDict` without
  ignore_unknown_fields, then `validate_proto_required_fields`. The protobuf
  parser is lenient where the canonical ProtoJSON form is not, so this script
  also rejects proto field names (`context_id` for `contextId`), enums given
  as numbers, `null` field values, and a Part that sets none of text / raw /
  url / data.
* A2A 0.3 (a2a-sdk's pydantic models in a2a.compat.v0_3.types): the model,
  also in pydantic's strict JSON mode (no coercion of "true" to true), keys
  that the model does not know or that are Python names instead of the
  camelCase wire names (the SDK drops or accepts those silently), a `kind` on
  every object whose model has one (the SDK fills in a missing one; the JSON
  Schema requires it), and the SDK's own 0.3 -> 1.0 conversion, which is what
  a current client does with a 0.3 response.
* ACP (acp-sdk's pydantic models): the Run model, also in strict JSON mode,
  unknown keys, and the OpenAPI rules the SDK leaves out: required keys, the
  agent name pattern and length, canonical UUIDs, RFC 3339 date-times, a role
  and at least one part on every message, content_type on every part, never
  both content and content_url, and decodable content for
  application/json and base64 parts.
"""

import base64
import binascii
import json
import re
import sys
import uuid

import pydantic
from google.protobuf import json_format

from a2a import types as a2a_v1
from a2a.compat.v0_3 import conversions as v03_to_v1
from a2a.compat.v0_3 import types as a2a_v03
from a2a.utils.errors import InvalidParamsError
from a2a.utils.proto_utils import validate_proto_required_fields
from acp_sdk import models as acp


class Invalid(Exception):
    """A document broke a rule; the message says which, on one line."""


# ---------------------------------------------------------------- reading


def _reject_duplicate_keys(pairs):
    """json object hook: a repeated key is an error, not "last one wins"."""
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError(f"duplicate key {key!r}")
        obj[key] = value
    return obj


def _reject_constant(name):
    raise ValueError(f"{name} is not JSON")


def parse_json(text):
    """Parse strict JSON: no duplicate keys, no NaN / Infinity."""
    try:
        return json.loads(
            text,
            object_pairs_hook=_reject_duplicate_keys,
            parse_constant=_reject_constant,
        )
    except json.JSONDecodeError as e:
        raise Invalid(f"invalid JSON at line {e.lineno} column {e.colno}: {e.msg}")
    except ValueError as e:
        raise Invalid(f"invalid JSON: {e}")


class Source:
    """Reads PATH or, for `-`, standard input (which can be read only once)."""

    stdin_used = False

    @classmethod
    def read(cls, path):
        try:
            if path == "-":
                if cls.stdin_used:
                    raise Invalid("standard input was already read by an earlier argument")
                cls.stdin_used = True
                data = sys.stdin.buffer.read()
            else:
                with open(path, "rb") as f:
                    data = f.read()
        except OSError as e:
            raise Invalid(f"cannot read: {e.strerror}")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise Invalid(f"not UTF-8: {e}")


def json_documents(text):
    """The whole file is one JSON document."""
    yield "", parse_json(text)


def array_items(text):
    """The file is a JSON array; yields ("#I", item) for each item."""
    doc = parse_json(text)
    if not isinstance(doc, list):
        raise Invalid(f"expected a JSON array, got {json_type(doc)}")
    for i, item in enumerate(doc):
        yield f"#{i}", item


def json_lines(text):
    """The file is JSON Lines; yields ("#N", value) per line N (1-based).

    A line that does not parse yields its Invalid error in place of a value,
    so that the other lines are still checked. A blank line is an error
    (JSON Lines has none), except that the file may end with a newline.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for n, line in enumerate(lines, start=1):
        try:
            if not line.strip():
                raise Invalid("blank line")
            yield f"#{n}", parse_json(line)
        except Invalid as e:
            yield f"#{n}", e


# ---------------------------------------------------------------- helpers


def json_type(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def require_object(doc):
    if not isinstance(doc, dict):
        raise Invalid(f"expected a JSON object, got {json_type(doc)}")


def one_line(text):
    return " ".join(str(text).split())


def fail_if(problems):
    if problems:
        raise Invalid("; ".join(problems))


def join_path(path, key):
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def paths_of_key(value, key, path=""):
    """Every path at which an object has `key`, at any depth."""
    found = []
    if isinstance(value, dict):
        for k, v in value.items():
            if k == key:
                found.append(join_path(path, k))
            found.extend(paths_of_key(v, key, join_path(path, k)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found.extend(paths_of_key(v, key, join_path(path, i)))
    return found


RFC3339 = re.compile(
    r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$"
)
UUID_TEXT = re.compile(
    r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
)


def is_uuid(value):
    """A UUID in its canonical 8-4-4-4-12 text form.

    pydantic also takes 32 bare hex digits, `{...}` and `urn:uuid:...`;
    OpenAPI's `format: uuid` means the hyphenated form.
    """
    if not isinstance(value, str) or not UUID_TEXT.match(value):
        return False
    uuid.UUID(value)
    return True


# ---------------------------------------------------------------- A2A 1.0

# Well-known types have their own JSON forms (Struct is any object, Value any
# JSON value, Timestamp an RFC 3339 string): not walked field by field.
_WELL_KNOWN_PREFIX = "google.protobuf."
_PART_CONTENT = ("text", "raw", "url", "data")


def protojson_style_problems(value, descriptor, path=""):
    """Where a document that protobuf parsed is still not canonical ProtoJSON.

    google.protobuf's parser accepts, on purpose, more than the ProtoJSON it
    writes: the proto field name (`context_id`) as well as the JSON name
    (`contextId`), enum numbers as well as names, and `null` for any field
    (read as "unset"). Other A2A implementations, and JSON-Schema-based
    checkers such as the TCK's, see those as unknown or wrongly typed fields,
    so they are errors here. Also a Part must carry exactly one content member
    (protobuf allows an empty oneof; an A2A part without content says
    nothing).
    """
    problems = []
    if not isinstance(value, dict):
        return problems
    by_json = {f.json_name: f for f in descriptor.fields}
    by_name = {f.name: f for f in descriptor.fields}
    for key, item in value.items():
        where = join_path(path, key)
        field = by_json.get(key) or by_name.get(key)
        if field is None:  # ParseDict would have refused it already
            continue
        if key != field.json_name:
            problems.append(f"{where}: proto field name; ProtoJSON spells it {field.json_name!r}")
        message_type = field.message_type
        if item is None:
            if not (message_type and message_type.full_name == "google.protobuf.Value"):
                problems.append(f"{where}: null (omit the field instead)")
            continue
        if field.enum_type is not None:
            for v in item if field.is_repeated else [item]:
                if not isinstance(v, str):
                    problems.append(f"{where}: enum given as a number ({v!r}); use the name")
            continue
        if message_type is None or message_type.full_name.startswith(_WELL_KNOWN_PREFIX):
            continue
        if message_type.GetOptions().map_entry:
            value_type = message_type.fields_by_name["value"].message_type
            if value_type is not None and not value_type.full_name.startswith(_WELL_KNOWN_PREFIX):
                for k, v in item.items():
                    problems.extend(protojson_style_problems(v, value_type, join_path(where, k)))
        elif field.is_repeated:
            for i, v in enumerate(item):
                problems.extend(protojson_style_problems(v, message_type, join_path(where, i)))
        else:
            problems.extend(protojson_style_problems(item, message_type, where))
    if descriptor.full_name == "lf.a2a.v1.Part":
        content = [k for k in _PART_CONTENT if k in value]
        if len(content) != 1:
            problems.append(f"{path or 'part'}: a Part needs exactly one of text, raw, url, data")
    return problems


def parse_v1(doc, message_class):
    """Parse `doc` into `message_class` as the SDK does, strictly; return it."""
    require_object(doc)
    message = message_class()
    try:
        json_format.ParseDict(doc, message)
    except json_format.ParseError as e:
        # Drop the parser's list of every field of the message: long, and no help.
        reason = one_line(e).split(" Available Fields", 1)[0].rstrip(".")
        raise Invalid(f"ProtoJSON: {reason}")
    try:
        validate_proto_required_fields(message)
    except InvalidParamsError as e:
        errors = (e.data or {}).get("errors", [])
        detail = ", ".join(f"{err['field']} ({err['message']})" for err in errors)
        raise Invalid(f"REQUIRED field missing or empty: {detail or e}")
    fail_if(protojson_style_problems(doc, message_class.DESCRIPTOR))
    return message


def check_card_v1(doc):
    require_object(doc)
    kinds = paths_of_key(doc, "kind")
    if kinds:
        raise Invalid(f"A2A 1.0 has no 'kind': found at {', '.join(kinds)}")
    if "supportedInterfaces" not in doc:
        raise Invalid("missing 'supportedInterfaces'")
    parse_v1(doc, a2a_v1.AgentCard)


def check_task_v1(doc):
    parse_v1(doc, a2a_v1.Task)


def check_stream_v1(doc):
    require_object(doc)
    members = ("task", "message", "statusUpdate", "artifactUpdate")
    if len(doc) != 1:
        raise Invalid(f"a StreamResponse has exactly one of {', '.join(members)}; got {sorted(doc) or 'none'}")
    message = parse_v1(doc, a2a_v1.StreamResponse)
    if message.WhichOneof("payload") is None:
        raise Invalid(f"a StreamResponse has exactly one of {', '.join(members)}")


# ---------------------------------------------------------------- pydantic (A2A 0.3, ACP)


def pydantic_errors(error, limit=4):
    """One line from a pydantic ValidationError: `loc: message; ...`."""
    items = error.errors(include_url=False)
    parts = []
    for item in items[:limit]:
        loc = ".".join(str(x) for x in item["loc"]) or "(document)"
        parts.append(f"{loc}: {item['msg']}")
    if len(items) > limit:
        parts.append(f"(+{len(items) - limit} more)")
    return one_line("; ".join(parts))


def wire_name(model_class, name, field):
    """The JSON key of a pydantic field: its alias, or the generated one."""
    if field.alias:
        return field.alias
    generator = model_class.model_config.get("alias_generator")
    return generator(name) if callable(generator) else name


def pydantic_key_problems(value, raw, path=""):
    """Walk a validated pydantic object beside the raw JSON it came from.

    Reports keys the model does not know (pydantic drops them), Python field
    names used instead of the wire name (a2a-sdk's 0.3 models accept
    `message_id` for `messageId`), and objects that omit their `kind`
    discriminator (the models default it). Models that declare
    extra="allow" (ACP's MessagePart, free-form objects) may carry any key.
    """
    problems = []
    if isinstance(value, pydantic.RootModel):
        return pydantic_key_problems(value.root, raw, path)
    if isinstance(value, pydantic.BaseModel):
        if not isinstance(raw, dict):
            return problems
        model_class = type(value)
        fields = model_class.model_fields
        wire = {name: wire_name(model_class, name, f) for name, f in fields.items()}
        known = set(wire.values())
        if model_class.model_config.get("extra") != "allow":
            for key in raw:
                if key in known:
                    continue
                if key in wire:
                    problems.append(f"{join_path(path, key)}: Python field name; the wire name is {wire[key]!r}")
                else:
                    problems.append(f"{join_path(path, key)}: unknown key for {model_class.__name__}")
        if "kind" in fields and "kind" not in raw:
            problems.append(f"{path or 'document'}: missing 'kind' ({model_class.__name__})")
        for name, key in wire.items():
            if key in raw:
                problems.extend(pydantic_key_problems(getattr(value, name), raw[key], join_path(path, key)))
    elif isinstance(value, list) and isinstance(raw, list):
        for i, (v, r) in enumerate(zip(value, raw)):
            problems.extend(pydantic_key_problems(v, r, join_path(path, i)))
    elif isinstance(value, dict) and isinstance(raw, dict):
        for k, r in raw.items():
            if k in value:
                problems.extend(pydantic_key_problems(value[k], r, join_path(path, k)))
    return problems


def parse_pydantic(doc, model_class):
    """Validate `doc` with `model_class` as the SDK does, then strictly; return it.

    `model_validate` is what the SDKs call; pydantic's strict JSON mode then
    refuses what only passed by coercion (a string "true" for a boolean, a
    number for a date-time).
    """
    require_object(doc)
    try:
        obj = model_class.model_validate(doc)
    except pydantic.ValidationError as e:
        raise Invalid(f"{model_class.__name__}: {pydantic_errors(e)}")
    except ValueError as e:
        raise Invalid(f"{model_class.__name__}: {one_line(e)}")
    try:
        model_class.model_validate_json(json.dumps(doc), strict=True)
    except pydantic.ValidationError as e:
        raise Invalid(f"{model_class.__name__} (strict JSON types): {pydantic_errors(e)}")
    fail_if(pydantic_key_problems(obj, doc))
    return obj


# ---------------------------------------------------------------- A2A 0.3

CARD_V03_KEYS = (
    "protocolVersion", "name", "description", "url", "preferredTransport",
    "version", "capabilities", "defaultInputModes", "defaultOutputModes", "skills",
)


def convert_v03(obj, converter):
    """Run the SDK's own 0.3 -> 1.0 conversion, as a 1.x client does with a
    0.3 server's answer; it fails on, e.g., a timestamp that is not RFC 3339
    or file bytes that are not base64, which the 0.3 models let through."""
    try:
        converter(obj)
    except Exception as e:  # the converter raises whatever its parsers raise
        raise Invalid(f"the SDK cannot convert it to A2A 1.0: {type(e).__name__}: {one_line(e)}")


# Optional AgentCard keys of the 0.3 JSON Schema: a card that a scenario takes from a real card
# file keeps the file's own fields, so it may carry these beside the ten.
CARD_V03_OPTIONAL_KEYS = (
    "additionalInterfaces", "documentationUrl", "iconUrl", "provider", "security",
    "securitySchemes", "signatures", "supportsAuthenticatedExtendedCard",
)


def check_card_file_v03(doc):
    """A card from a card file: the ten keys, plus only optional keys the 0.3 schema knows."""
    require_object(doc)
    missing = [k for k in CARD_V03_KEYS if k not in doc]
    extra = [k for k in doc if k not in CARD_V03_KEYS and k not in CARD_V03_OPTIONAL_KEYS]
    if missing or extra:
        raise Invalid(f"a 0.3 card from a file: missing {missing}, unknown {extra}")
    card = parse_pydantic(doc, a2a_v03.AgentCard)
    convert_v03(card, v03_to_v1.to_core_agent_card)


# A generated card of an agent that requires a verified token adds a bearer-JWT scheme and its
# requirement (both, or neither).
CARD_V03_SECURITY_KEYS = ("securitySchemes", "security")


def check_card_v03(doc):
    require_object(doc)
    missing = [k for k in CARD_V03_KEYS if k not in doc]
    security = [k for k in CARD_V03_SECURITY_KEYS if k in doc]
    if security and len(security) != len(CARD_V03_SECURITY_KEYS):
        raise Invalid(f"a 0.3 card with a security requirement has both {' and '.join(CARD_V03_SECURITY_KEYS)}")
    extra = [k for k in doc if k not in CARD_V03_KEYS and k not in security]
    if missing or extra:
        detail = []
        if missing:
            detail.append(f"missing {', '.join(missing)}")
        if extra:
            detail.append(f"unexpected {', '.join(extra)}")
        raise Invalid(f"a 0.3 card has exactly the ten keys {', '.join(CARD_V03_KEYS)}: {'; '.join(detail)}")
    card = parse_pydantic(doc, a2a_v03.AgentCard)
    convert_v03(card, v03_to_v1.to_core_agent_card)


def describe_member(doc, key):
    """`'value'` or `no 'key'`, for messages about a member of `doc`."""
    return repr(doc[key]) if key in doc else f"no {key!r}"


def require_kind(doc, expected):
    if doc.get("kind") != expected:
        raise Invalid(f"'kind' must be {expected!r}; got {describe_member(doc, 'kind')}")


def check_task_v03(doc):
    require_object(doc)
    require_kind(doc, "task")
    task = parse_pydantic(doc, a2a_v03.Task)
    convert_v03(task, v03_to_v1.to_core_task)


STREAM_V03 = {
    "task": (a2a_v03.Task, v03_to_v1.to_core_task),
    "message": (a2a_v03.Message, v03_to_v1.to_core_message),
    "status-update": (a2a_v03.TaskStatusUpdateEvent, v03_to_v1.to_core_task_status_update_event),
    "artifact-update": (a2a_v03.TaskArtifactUpdateEvent, v03_to_v1.to_core_task_artifact_update_event),
}


def check_stream_v03(doc):
    require_object(doc)
    kind = doc.get("kind")
    if kind not in STREAM_V03:
        raise Invalid(f"'kind' must be one of {', '.join(STREAM_V03)}; got {describe_member(doc, 'kind')}")
    if kind == "status-update" and not isinstance(doc.get("final"), bool):
        got = json_type(doc["final"]) if "final" in doc else "no 'final'"
        raise Invalid(f"a status-update needs a boolean 'final'; got {got}")
    model_class, converter = STREAM_V03[kind]
    obj = parse_pydantic(doc, model_class)
    convert_v03(obj, converter)


# ---------------------------------------------------------------- ACP

AGENT_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
ROLE = re.compile(r"^(user|agent(/[a-zA-Z0-9_-]+)?)$")
RUN_REQUIRED = ("agent_name", "run_id", "status", "output", "created_at")


def date_time_problem(where, value, nullable):
    """OpenAPI `format: date-time` is RFC 3339 with a zone; pydantic also
    takes naive times, bare dates and Unix numbers."""
    if value is None:
        return None if nullable else f"{where}: null"
    if not isinstance(value, str) or not RFC3339.match(value):
        return f"{where}: not an RFC 3339 date-time with a zone ({value!r})"
    return None


def acp_message_problems(message, where):
    """OpenAPI rules for one ACP Message that acp-sdk does not enforce."""
    problems = []
    if not isinstance(message, dict):
        return problems
    for key in ("role", "parts"):
        if key not in message:
            problems.append(f"{where}: missing {key!r}")
    role = message.get("role")
    if "role" in message and not (isinstance(role, str) and ROLE.match(role)):
        problems.append(f"{where}.role: {role!r} does not match {ROLE.pattern}")
    parts = message.get("parts")
    if isinstance(parts, list) and not parts:
        problems.append(f"{where}.parts: a message needs at least one part")
    for key in ("created_at", "completed_at"):
        if key in message:
            problem = date_time_problem(f"{where}.{key}", message[key], nullable=True)
            if problem:
                problems.append(problem)
    for i, part in enumerate(parts if isinstance(parts, list) else []):
        problems.extend(acp_part_problems(part, f"{where}.parts[{i}]"))
    return problems


def acp_part_problems(part, where):
    """A part names its content_type, has content or content_url (not both),
    and content that its type and encoding say can be decoded does decode."""
    problems = []
    if not isinstance(part, dict):
        return problems
    if "content_type" not in part:
        problems.append(f"{where}: missing 'content_type'")
    if "content" in part and "content_url" in part:
        problems.append(f"{where}: has both 'content' and 'content_url'")
    content = part.get("content")
    if not isinstance(content, str):
        return problems
    if part.get("content_encoding", "plain") == "base64":
        try:
            base64.b64decode(content, validate=True)
        except (binascii.Error, ValueError):
            problems.append(f"{where}.content: not base64")
    elif part.get("content_type") == "application/json":
        try:
            parse_json(content)
        except Invalid as e:
            problems.append(f"{where}.content: content_type is application/json but {e}")
    return problems


def check_run_acp(doc):
    require_object(doc)
    problems = [f"missing {key!r}" for key in RUN_REQUIRED if key not in doc]
    fail_if(problems)
    parse_pydantic(doc, acp.Run)
    name = doc["agent_name"]
    if not (1 <= len(name) <= 63 and AGENT_NAME.match(name)):
        problems.append(f"agent_name: {name!r} is not a DNS label ({AGENT_NAME.pattern}, 1-63 chars)")
    if not is_uuid(doc["run_id"]):
        problems.append(f"run_id: {doc['run_id']!r} is not a UUID")
    session = doc.get("session_id")
    if session is not None and not is_uuid(session):
        problems.append(f"session_id: {session!r} is not a UUID or null")
    for key, nullable in (("created_at", False), ("finished_at", True)):
        if key in doc:
            problem = date_time_problem(key, doc[key], nullable)
            if problem:
                problems.append(problem)
    for i, message in enumerate(doc["output"]):
        problems.extend(acp_message_problems(message, f"output[{i}]"))
    await_request = doc.get("await_request")
    if isinstance(await_request, dict) and "message" in await_request:
        problems.extend(acp_message_problems(await_request["message"], "await_request.message"))
    fail_if(problems)


# ---------------------------------------------------------------- main

KINDS = {
    "card-1.0": (json_documents, check_card_v1),
    "card-0.3": (json_documents, check_card_v03),
    "card-file-0.3": (json_documents, check_card_file_v03),
    "tasks-1.0": (array_items, check_task_v1),
    "tasks-0.3": (array_items, check_task_v03),
    "stream-1.0": (json_lines, check_stream_v1),
    "stream-0.3": (json_lines, check_stream_v03),
    "runs-acp": (array_items, check_run_acp),
}


def usage(message):
    print(f"validate.py: {message}", file=sys.stderr)
    print(f"usage: validate.py [--prior-failures N] KIND=PATH...  (KIND: {', '.join(KINDS)})", file=sys.stderr)
    sys.exit(2)


def parse_args(argv):
    """Returns (prior_failures, [(kind, path), ...]).

    --prior-failures N adds N failures that the caller has already printed
    (run.sh: outputs it could not produce) to the final tally, so that there
    is one summary line.
    """
    prior = 0
    targets = []
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--prior-failures":
            if not args or not args[0].isdigit():
                usage("--prior-failures needs a number")
            prior = int(args.pop(0))
        elif arg in ("-h", "--help"):
            print(__doc__)
            sys.exit(0)
        else:
            kind, sep, path = arg.partition("=")
            if not sep or not path:
                usage(f"expected KIND=PATH, got {arg!r}")
            if kind not in KINDS:
                usage(f"unknown KIND {kind!r}")
            targets.append((kind, path))
    if not targets and not prior:
        usage("nothing to validate")
    return prior, targets


def check_target(kind, path):
    """Check every document of one argument; returns (passed, failed)."""
    split, check = KINDS[kind]
    passed = failed = 0
    try:
        documents = list(split(Source.read(path)))
    except Invalid as e:
        print(f"FAIL {kind} {path}: {e}")
        return 0, 1
    if not documents:
        print(f"note {kind} {path}: no documents")
    for suffix, doc in documents:
        label = f"{kind} {path}{suffix}"
        try:
            if isinstance(doc, Invalid):
                raise doc
            check(doc)
        except Invalid as e:
            print(f"FAIL {label}: {e}")
            failed += 1
        else:
            print(f"ok {label}")
            passed += 1
    return passed, failed


def main(argv):
    prior, targets = parse_args(argv)
    passed, failed = 0, prior
    for kind, path in targets:
        p, f = check_target(kind, path)
        passed += p
        failed += f
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
