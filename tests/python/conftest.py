"""Shared set-up for the Python package's tests: one SparkSession per test process (as in
PySpark) and input files written the way a producer should (temp file, then rename)."""
import json
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def spark():
    from sluice.sql import SparkSession
    session = SparkSession.builder.appName("tests").getOrCreate()
    yield session
    session.stop()


@pytest.fixture
def write_json():
    """write_json(dir, name, rows): one JSON-lines file, atomically."""
    def write(directory, name, rows):
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        tmp = directory / f".{name}.tmp"
        tmp.write_text("".join(json.dumps(r) + "\n" for r in rows))
        os.rename(tmp, directory / name)
    return write
