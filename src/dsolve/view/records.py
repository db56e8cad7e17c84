"""Reading a game record file: one JSON object, a JSON list of records, or JSON lines (one record
a line), gzip-compressed or not. A line or object ``{"record": ...}`` (a reference file's case)
is its record, and a Crapette match (``{"rounds": [...]}``) its rounds."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

from ..errors import InputError


def _records(data: object) -> list:
    if isinstance(data, dict) and isinstance(data.get("rounds"), list):
        return data["rounds"]
    if isinstance(data, dict) and "record" in data:
        return [data["record"]]
    return data if isinstance(data, list) else [data]


def read_record(path: str, index: int = 1) -> dict:
    """The ``index``-th record (from 1) of the file at ``path``; :class:`InputError` if the
    file cannot be read, is not JSON, or holds no such record."""
    try:
        raw = Path(path).read_bytes()
        text = (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode("utf-8")
    except (OSError, EOFError, UnicodeDecodeError) as err:
        raise InputError(f"cannot read record file {path!r}: {getattr(err, 'strerror', None) or err}") from None
    try:
        found = _records(json.loads(text))
    except json.JSONDecodeError:
        found = []
        for number, line in enumerate(filter(str.strip, text.splitlines()), 1):
            try:
                found += _records(json.loads(line))
            except json.JSONDecodeError:
                raise InputError(f"{path!r} is not a record file: line {number} is not JSON") from None
    if not 1 <= index <= len(found):
        raise InputError(f"{path!r} holds {len(found)} record(s), no record {index}")
    if not isinstance(found[index - 1], dict):
        raise InputError(f"{path!r}: record {index} is not a JSON object")
    return found[index - 1]
