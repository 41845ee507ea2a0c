"""Shared helpers for the PyIceberg interop tests: input files, running tests/tools/iceberg_stream,
and loading what it wrote through PyIceberg."""
import datetime as dt
import json
import os
import subprocess
from decimal import Decimal
from pathlib import Path

from pyiceberg.catalog.sql import SqlCatalog

FAULT_EXIT = 42  # io::FaultSpec's default exit code
ROWS_PER_FILE = 5
TABLE = "lake.db.events"


def row(i: int) -> dict:
    return {
        "id": i,
        "n": i - 3,
        "price": i * 1.5,
        "ratio": i / 4,
        "ok": i % 2 == 0,
        "name": None if i % 7 == 3 else f"name-{i}",
        "ts": f"2024-01-01T00:{i // 60:02d}:{i % 60:02d}Z",
        "local_ts": f"2024-01-01T10:{i // 60:02d}:{i % 60:02d}",
        "day": f"2024-01-{i % 28 + 1:02d}",
        "amount": f"{i}.25",
    }


def expected_row(i: int) -> dict:
    utc = dt.timezone.utc
    return {
        "id": i,
        "n": i - 3,
        "price": i * 1.5,
        "ratio": i / 4,
        "ok": i % 2 == 0,
        "name": None if i % 7 == 3 else f"name-{i}",
        "ts": dt.datetime(2024, 1, 1, 0, i // 60, i % 60, tzinfo=utc),
        "local_ts": dt.datetime(2024, 1, 1, 10, i // 60, i % 60),
        "day": dt.date(2024, 1, i % 28 + 1),
        "amount": Decimal(f"{i}.25"),
    }


def write_inputs(input_dir: Path, first_file: int, count: int) -> None:
    """Files part-<f>.json with ROWS_PER_FILE rows each, ids f*5 .. f*5+4 (hidden temp + rename)."""
    input_dir.mkdir(parents=True, exist_ok=True)
    for f in range(first_file, first_file + count):
        tmp = input_dir / f".part-{f}.json.tmp"
        lines = [json.dumps(row(i)) for i in range(f * ROWS_PER_FILE, (f + 1) * ROWS_PER_FILE)]
        tmp.write_text("\n".join(lines) + "\n")
        os.rename(tmp, input_dir / f"part-{f:04d}.json")


class Lake:
    """One test's warehouse + SQLite catalog (or hadoop warehouse)."""

    def __init__(self, root: Path, catalog_type: str = "sql"):
        self.root = root
        self.catalog_type = catalog_type
        self.warehouse = root / "wh"
        self.db = root / "catalog.db"

    def catalog_args(self) -> list:
        args = ["--table", TABLE, "--catalog-type", self.catalog_type, "--warehouse", str(self.warehouse)]
        if self.catalog_type == "sql":
            args += ["--uri", f"sqlite:///{self.db}"]
        return args

    def run(self, bin_dir: Path, input_dir: Path, checkpoint: Path, *extra: str, expect=(0,)) -> int:
        cmd = [str(bin_dir / "iceberg_stream"), "--input", str(input_dir), "--checkpoint", str(checkpoint),
               *self.catalog_args(), *extra]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        if proc.returncode not in expect:
            raise AssertionError(f"{cmd} exited {proc.returncode}: {proc.stderr}")
        return proc.returncode

    def sql_catalog(self) -> SqlCatalog:
        return SqlCatalog("lake", uri=f"sqlite:///{self.db}", warehouse=f"file://{self.warehouse}")

    def table_dir(self) -> Path:
        # hadoop: <wh>/<ns>/<table>; sql: PyIceberg's <wh>/<ns>.db/<table>
        return self.warehouse / ("db" if self.catalog_type == "hadoop" else "db.db") / "events"


def sorted_ids(arrow_table) -> list:
    return sorted(arrow_table.column("id").to_pylist())
