"""Set-up of the Spark conformance suite: the sluice binaries and ONE SparkSession (one JVM) for the
whole pytest session: local[2], 2 shuffle partitions, UTC everywhere."""
import os
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# Python's datetime values from Spark's collect() are naive local times: make local = UTC before
# anything imports pyspark.
os.environ["TZ"] = "UTC"
time.tzset()



@pytest.fixture(scope="session")
def sluice_bin_dir() -> Path:
    """Directory of the built executables ($SLUICE_BIN_DIR, set by ctest; else <repo>/build/bin)."""
    d = Path(os.environ.get("SLUICE_BIN_DIR", REPO / "build" / "bin"))
    if not (d / "sql_batches").exists():
        pytest.fail(f"sql_batches not found in {d}; build first (make build) or set SLUICE_BIN_DIR")
    return d


@pytest.fixture(scope="session")
def spark():
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("sluice-conformance")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.streaming.stopTimeout", "10s")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
