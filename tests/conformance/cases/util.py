"""Small builders for case data: event rows with timestamps given as seconds from the epoch."""
import datetime as dt

_EPOCH = dt.datetime(1970, 1, 1)


def t(seconds: float) -> str:
    """'1970-01-01 00:00:25' for t(25); fractions keep microseconds."""
    v = _EPOCH + dt.timedelta(seconds=seconds)
    return v.isoformat(sep=" ")


def ev(k, seconds, v=None) -> dict:
    """An event row {k, v, ts} of the default schema 'k STRING, v BIGINT, ts TIMESTAMP'."""
    return {"k": k, "v": v, "ts": t(seconds)}


def evs(*pairs) -> list:
    """One file's rows from (k, seconds) or (k, seconds, v) tuples."""
    return [ev(*p) for p in pairs]


def nums(*values, col="v") -> list:
    """One file of rows {col: value}."""
    return [{col: x} for x in values]
