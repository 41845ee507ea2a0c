"""Shared by every pytest suite under tests/: a Java for PySpark and the built sluice executables."""
import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: starts a JVM (PySpark) or runs many processes")
    if not os.environ.get("JAVA_HOME"):
        java = shutil.which("java")
        if java:
            # /usr/lib/jvm/<jdk>/bin/java -> /usr/lib/jvm/<jdk>
            os.environ["JAVA_HOME"] = str(Path(os.path.realpath(java)).parent.parent)


@pytest.fixture(scope="session")
def sluice_bin_dir() -> Path:
    """Directory of the built executables ($SLUICE_BIN_DIR, set by ctest; else <repo>/build/bin)."""
    d = Path(os.environ.get("SLUICE_BIN_DIR", REPO / "build" / "bin"))
    if not d.is_dir():
        pytest.fail(f"sluice binaries not found in {d}; build first or set SLUICE_BIN_DIR")
    return d
