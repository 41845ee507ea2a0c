"""Paths, settings and small helpers shared by the engine runners."""
from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pyarrow.dataset as pads

BENCH_DIR = Path(__file__).resolve().parent.parent
REPO_DIR = BENCH_DIR.parent


@dataclasses.dataclass
class Context:
    """Where things are and how many times to repeat; one per bench/run invocation."""
    work_dir: Path                       # scratch: pipelines, checkpoints, outputs, logs
    reps: int = 3
    files_per_trigger: int = 10          # maxFilesPerTrigger for sluice and Spark (P1, P2)
    timeout_s: float = 1800
    sluice_bin: Path = REPO_DIR / "build" / "bin" / "sluice"
    python: Path = REPO_DIR / ".venv" / "bin" / "python"
    flink_python: Path = BENCH_DIR / ".venv-flink" / "bin" / "python"

    def fresh_dir(self, *parts: str) -> Path:
        path = self.work_dir.joinpath(*parts)
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir(parents=True)
        return path

    def job_script(self, name: str) -> Path:
        return BENCH_DIR / "benchlib" / name


def write_spec(path: Path, spec: dict) -> Path:
    path.write_text(json.dumps(spec, indent=1))
    return path


def parquet_rows(path: Path | str) -> int | None:
    """Rows in a Parquet file or directory (hidden and _-prefixed entries ignored, as Spark)."""
    try:
        return pads.dataset(str(path), format="parquet").count_rows()
    except (OSError, ValueError):
        return None


def failed(error: str, **extra) -> dict:
    return {"status": "failed", "error": error, **extra}


def not_applicable(reason: str) -> dict:
    return {"status": "not_applicable", "reason": reason}
