"""The differential harness: runs one case on sluice (tests/tools/sql_batches, which runs the SQL
pipeline with foreachBatch and writes each batch as Arrow IPC) and on PySpark with identical
micro-batches, and describes how the two outcomes differ.

Identical micro-batches: one input file per batch, modification times in batch order, and
maxFilesPerTrigger 1 on both engines. Two run modes:
  one      one availableNow run over every file;
  restart  a new run on the same checkpoint after each file is added (the trigger of the case).

An outcome is either an error (the query was refused or failed) or the batches the query handed to
its sink: batch id -> (columns as (name, Spark type), rows as a multiset of normalised values).
A difference is a short, stable text (see `difference`); a case that declares a known difference
stores that text, so the case fails if the difference disappears or changes.
"""
from __future__ import annotations

import collections
import concurrent.futures
import datetime as dt
import decimal
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Union

RUNS = ("one", "restart")
_BASE_MTIME = 1_700_000_000  # input file i gets this + 10 * i seconds


@dataclass
class Case:
    """One conformance case. `sql` reads the table `src` and is run by both engines unless
    `spark_sql` gives Spark's spelling (e.g. window.start instead of window_start)."""

    id: str
    sql: str
    batches: list  # one entry per input file: a list of dict rows (JSON lines), or the raw file text
    schema: Optional[str] = "k STRING, v BIGINT, ts TIMESTAMP"  # None: the source declares none
    mode: str = "append"
    spark_sql: Optional[str] = None
    watermark: Optional[tuple] = None  # (column, delay): event_time/watermark options, withWatermark
    fmt: str = "json"
    options: dict = field(default_factory=dict)  # source options, Spark's camelCase names
    conf: dict = field(default_factory=dict)  # session configuration for both engines
    runs: tuple = RUNS
    trigger: str = "available-now"  # or "once"
    dedup: Optional[tuple] = None  # dropDuplicates(columns) applied to the SQL result ((): all columns)
    dedup_within: bool = False  # dropDuplicatesWithinWatermark instead
    # dropDuplicates(columns) on Spark's side only: Spark's spelling of a dedupe sluice reads from the SQL
    # (QUALIFY ROW_NUMBER() ... = 1, which Spark's streaming SQL refuses); dedup_within picks the variant.
    spark_dedup: Optional[tuple] = None
    diff: Optional[str] = None  # id of a row of docs/spark-compatibility.md
    expect: Union[None, str, dict] = None  # the difference text (or run -> text) of a `diff` case
    error: Optional[str] = None  # both engines must fail, and sluice's message must contain this
    smoke: bool = False  # part of the subset `make test` runs
    ordered: bool = False  # ORDER BY: each batch's rows must also come in the same order
    # A static table `dim` (JSON files; sluice: WITH (static = true), Spark: spark.read) for
    # stream-static joins: its schema, and input file index -> the rows of a new dim file added
    # just before that input file.
    dim_schema: Optional[str] = None
    dim_files: dict = field(default_factory=dict)
    # A second stream `src2` (stream-stream joins): its schema, one list of rows per input file
    # (file i of src2 arrives with file i of src; [] writes an empty file) and its watermark.
    src2_schema: Optional[str] = None
    src2_batches: list = field(default_factory=list)
    src2_watermark: Optional[tuple] = None

    def expected_difference(self, run: str) -> str:
        if isinstance(self.expect, dict):
            return self.expect.get(run, "")
        return self.expect or ""


@dataclass
class Outcome:
    error: Optional[str] = None
    batches: dict = field(default_factory=dict)  # batch id -> (columns, Counter of row tuples)
    order: dict = field(default_factory=dict)  # batch id -> the row tuples in the order delivered


# ---- value normalisation -------------------------------------------------------------------

def _norm(v):
    if v is None:
        return None
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        if v != v:
            return "NaN"
        if v == 0:
            v = 0.0
        return "f" + format(v, ".12g")
    if isinstance(v, decimal.Decimal):
        return "d" + str(v)
    if isinstance(v, dt.datetime):
        if v.tzinfo is not None:
            v = v.astimezone(dt.timezone.utc).replace(tzinfo=None)
        return "t" + v.isoformat(sep=" ")
    if isinstance(v, dt.date):
        return "D" + v.isoformat()
    if isinstance(v, dict):  # a map (both sides give structs as tuples): its entries, by key (PySpark's
        # dicts do not keep the map's order; compare the order through map_keys)
        return tuple(sorted(((_norm(k), _norm(x)) for k, x in v.items()), key=repr))
    if isinstance(v, (list, tuple)):  # pyspark Row is a tuple
        return tuple(_norm(x) for x in v)
    if isinstance(v, bytes):
        return "b" + v.hex()
    return v


def _arrow_type_name(t) -> str:
    import pyarrow as pa

    if pa.types.is_null(t):
        return "void"
    if pa.types.is_int8(t):
        return "tinyint"
    if pa.types.is_int16(t):
        return "smallint"
    if pa.types.is_int32(t):
        return "int"
    if pa.types.is_int64(t):
        return "bigint"
    if pa.types.is_float32(t):
        return "float"
    if pa.types.is_float64(t):
        return "double"
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "string"
    if pa.types.is_boolean(t):
        return "boolean"
    if pa.types.is_timestamp(t):
        return "timestamp" if t.tz else "timestamp_ntz"
    if pa.types.is_date32(t):
        return "date"
    if pa.types.is_decimal(t):
        return f"decimal({t.precision},{t.scale})"
    if pa.types.is_binary(t):
        return "binary"
    if pa.types.is_struct(t):
        return "struct<" + ",".join(f"{f.name}:{_arrow_type_name(f.type)}" for f in t) + ">"
    if pa.types.is_list(t):
        return f"array<{_arrow_type_name(t.value_type)}>"
    if pa.types.is_map(t):
        return f"map<{_arrow_type_name(t.key_type)},{_arrow_type_name(t.item_type)}>"
    return str(t)


def _from_arrow(v, t):
    """A value of pyarrow's to_pylist() as PySpark's collect() gives it: a struct as a tuple of its
    fields' values, a map as a dict (a repeated key keeps its first place and its last value)."""
    import pyarrow as pa

    if v is None:
        return None
    if pa.types.is_struct(t):
        return tuple(_from_arrow(v[f.name], f.type) for f in t)
    if pa.types.is_map(t):
        out = {}
        for k, x in v:
            out[_from_arrow(k, t.key_type)] = _from_arrow(x, t.item_type)
        return out
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [_from_arrow(x, t.value_type) for x in v]
    return v


# ---- sluice --------------------------------------------------------------------------------

def _sluice_pipeline(case: Case, input_dir: Path, dim_dir: Optional[Path] = None) -> str:
    dim = ""
    if case.src2_schema:
        opts2 = [f"connector = 'files'", "format = 'json'", f"path = '{input_dir.parent / 'input2'}'",
                 "maxFilesPerTrigger = 1"]
        if case.src2_watermark:
            opts2 += [f"event_time = '{case.src2_watermark[0]}'", f"watermark = '{case.src2_watermark[1]}'"]
        dim += f"CREATE TABLE src2 ({case.src2_schema}) WITH ({', '.join(opts2)});\n"
    if case.dim_schema:
        dim = (f"CREATE TABLE dim ({case.dim_schema}) WITH (connector = 'files', format = 'json', "
               f"path = '{dim_dir}', static = true);\n")
    opts = [f"connector = 'files'", f"format = '{case.fmt}'", f"path = '{input_dir}'", "maxFilesPerTrigger = 1"]
    if case.watermark:
        opts += [f"event_time = '{case.watermark[0]}'", f"watermark = '{case.watermark[1]}'"]
    for k, v in case.options.items():
        opts.append(f"{k} = '{v}'")
    return f"CREATE TABLE src ({case.schema or ''}) WITH ({', '.join(opts)});\n{dim}{case.sql.strip().rstrip(';')};\n"


def _read_sluice_batches(out_dir: Path) -> Outcome:
    import pyarrow.ipc as ipc

    out = Outcome()
    for f in out_dir.glob("batch-*.arrow"):
        table = ipc.open_file(f).read_all()
        cols = tuple((fl.name, _arrow_type_name(fl.type)) for fl in table.schema)
        types = {fl.name: fl.type for fl in table.schema}
        ordered = [tuple(_norm(_from_arrow(r[c], types[c])) for c in table.column_names) for r in table.to_pylist()]
        out.batches[int(f.stem.split("-")[1])] = (cols, collections.Counter(ordered))
        out.order[int(f.stem.split("-")[1])] = ordered
    return out


def _run_sluice_once(bin_dir: Path, case: Case, sql_file: Path, ckpt: Path, out: Path, trigger: str) -> Optional[str]:
    cmd = [str(bin_dir / "sql_batches"), "--sql", str(sql_file), "--checkpoint", str(ckpt), "--out", str(out),
           "--output-mode", case.mode, "--trigger", trigger]
    for k, v in case.conf.items():
        cmd += ["--conf", f"{k}={v}"]
    if case.dedup is not None:
        cmd += ["--drop-duplicates-within-watermark" if case.dedup_within else "--drop-duplicates",
                ",".join(case.dedup)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        return (p.stderr.strip() or f"exit status {p.returncode}").removeprefix("sql_batches: ")
    return None


def run_sluice(bin_dir: Path, case: Case, run: str, work: Path) -> Outcome:
    input_dir, ckpt, out = work / "input", work / "checkpoint", work / "out"
    input_dir.mkdir(parents=True)
    sql_file = work / "case.sql"
    sql_file.write_text(_sluice_pipeline(case, input_dir, work / "dim"))
    files = _input_files(case, work / "staged")
    if run == "one":
        for i, f in enumerate(files):
            _add_dim_file(case, i, work / "dim")
            _add_src2_file(case, i, work)
            _add_file(f, input_dir)
        err = _run_sluice_once(bin_dir, case, sql_file, ckpt, out, "available-now")
    else:
        err = None
        for i, f in enumerate(files):
            _add_dim_file(case, i, work / "dim")
            _add_src2_file(case, i, work)
            _add_file(f, input_dir)
            err = _run_sluice_once(bin_dir, case, sql_file, ckpt, out, case.trigger)
            if err:
                break
    if err:
        return Outcome(error=err)
    return _read_sluice_batches(out) if out.exists() else Outcome()


# ---- Spark ---------------------------------------------------------------------------------

def _spark_run_once(spark, case: Case, input_dir: Path, ckpt: Path, collected: dict, trigger: str) -> None:
    reader = spark.readStream.format(case.fmt).option("maxFilesPerTrigger", 1)
    if case.schema is not None:  # None: no schema (spark.sql.streaming.schemaInference cases)
        reader = reader.schema(case.schema)
    for k, v in case.options.items():
        reader = reader.option(k, v)
    df = reader.load(str(input_dir))
    if case.watermark:
        df = df.withWatermark(*case.watermark)
    df.createOrReplaceTempView("src")
    if case.src2_schema:
        df2 = (spark.readStream.schema(case.src2_schema).format("json").option("maxFilesPerTrigger", 1)
               .load(str(input_dir.parent / "input2")))
        if case.src2_watermark:
            df2 = df2.withWatermark(*case.src2_watermark)
        df2.createOrReplaceTempView("src2")
    if case.dim_schema:
        spark.read.schema(case.dim_schema).json(str(input_dir.parent / "dim")).createOrReplaceTempView("dim")
    query = spark.sql(case.spark_sql or case.sql)
    dedup = case.dedup if case.dedup is not None else case.spark_dedup
    if dedup is not None:
        cols = list(dedup) or None
        query = query.dropDuplicatesWithinWatermark(cols) if case.dedup_within else query.dropDuplicates(cols)

    def each_batch(batch_df, batch_id):
        cols = tuple((f.name, f.dataType.simpleString()) for f in batch_df.schema.fields)
        ordered = [tuple(_norm(x) for x in r) for r in batch_df.collect()]
        collected[batch_id] = (cols, collections.Counter(ordered), ordered)

    writer = (query.writeStream.foreachBatch(each_batch).outputMode(case.mode)
              .option("checkpointLocation", str(ckpt)))
    writer = writer.trigger(once=True) if trigger == "once" else writer.trigger(availableNow=True)
    q = writer.start()
    try:
        q.awaitTermination()
    finally:
        q.stop()


def run_spark(spark, case: Case, run: str, work: Path) -> Outcome:
    input_dir, ckpt = work / "input", work / "checkpoint"
    input_dir.mkdir(parents=True)
    files = _input_files(case, work / "staged")
    collected: dict = {}
    saved = {k: spark.conf.get(k, None) for k in case.conf}
    for k, v in case.conf.items():
        spark.conf.set(k, v)
    try:
        if run == "one":
            for i, f in enumerate(files):
                _add_dim_file(case, i, work / "dim")
                _add_src2_file(case, i, work)
                _add_file(f, input_dir)
            _spark_run_once(spark, case, input_dir, ckpt, collected, "available-now")
        else:
            for i, f in enumerate(files):
                _add_dim_file(case, i, work / "dim")
                _add_src2_file(case, i, work)
                _add_file(f, input_dir)
                _spark_run_once(spark, case, input_dir, ckpt, collected, case.trigger)
    except Exception as e:  # AnalysisException, StreamingQueryException, ...
        return Outcome(error=_first_line(str(e)))
    finally:
        for k, v in saved.items():
            if v is None:
                spark.conf.unset(k)
            else:
                spark.conf.set(k, v)
    return Outcome(batches={b: v[:2] for b, v in collected.items()}, order={b: v[2] for b, v in collected.items()})


# ---- shared --------------------------------------------------------------------------------

def _input_files(case: Case, staged: Path) -> list:
    import json

    staged.mkdir(parents=True, exist_ok=True)
    files = []
    for i, batch in enumerate(case.batches):
        f = staged / f"part-{i:03d}.{case.fmt}"
        if isinstance(batch, bytes):  # raw bytes (e.g. not valid UTF-8)
            f.write_bytes(batch)
        elif isinstance(batch, str):
            f.write_text(batch)
        else:
            f.write_text("".join(json.dumps(row) + "\n" for row in batch))
        os.utime(f, (_BASE_MTIME + 10 * i, _BASE_MTIME + 10 * i))
        files.append(f)
    return files


def _add_file(f: Path, input_dir: Path) -> None:
    # copy2 keeps the modification time; the source ignores the hidden temp name until the rename.
    tmp = input_dir / ("." + f.name + ".tmp")
    shutil.copy2(f, tmp)
    os.rename(tmp, input_dir / f.name)


def _add_dim_file(case: Case, i: int, dim_dir: Path) -> None:
    """The dim table's directory exists from the start; file i's dimension rows arrive before it."""
    import json

    if not case.dim_schema:
        return
    dim_dir.mkdir(parents=True, exist_ok=True)
    if i in case.dim_files:
        tmp = dim_dir / f".dim-{i:03d}.json.tmp"
        tmp.write_text("".join(json.dumps(row) + "\n" for row in case.dim_files[i]))
        os.rename(tmp, dim_dir / f"dim-{i:03d}.json")


def _add_src2_file(case: Case, i: int, work: Path) -> None:
    """File i of the second stream (written even when empty, so both sources cut the same batches),
    with the same modification time as file i of src."""
    import json

    if not case.src2_schema:
        return
    staged, input2 = work / "staged2", work / "input2"
    staged.mkdir(parents=True, exist_ok=True)
    input2.mkdir(parents=True, exist_ok=True)
    rows = case.src2_batches[i] if i < len(case.src2_batches) else []
    f = staged / f"part-{i:03d}.json"
    f.write_text("".join(json.dumps(row) + "\n" for row in rows))
    os.utime(f, (_BASE_MTIME + 10 * i, _BASE_MTIME + 10 * i))
    _add_file(f, input2)


def _first_line(msg: str) -> str:
    return msg.strip().splitlines()[0][:400] if msg.strip() else "error"


def _cache_file(case: Case, run: str) -> Optional[Path]:
    """Development aid: with $SLUICE_CONFORMANCE_SPARK_CACHE set, Spark's outcome of a case is kept
    there, keyed by everything that defines the case (never set by make test/conformance)."""
    root = os.environ.get("SLUICE_CONFORMANCE_SPARK_CACHE")
    if not root:
        return None
    import hashlib

    key = repr((case.sql, case.spark_sql, case.batches, case.schema, case.mode, case.watermark, case.fmt,
                sorted(case.options.items()), sorted(case.conf.items()), case.trigger, case.dedup,
                case.dedup_within, case.dim_schema, sorted(case.dim_files.items()), case.src2_schema,
                case.src2_batches, case.src2_watermark, run))
    return Path(root) / (case.id + "-" + run + "-" + hashlib.sha1(key.encode()).hexdigest()[:16] + ".pickle")


def run_both(get_spark, bin_dir: Path, case: Case, run: str, work: Path) -> tuple:
    """(sluice outcome, Spark outcome); sluice runs in a thread while Spark runs. `get_spark()`
    gives the SparkSession (only called when Spark has to run)."""
    import pickle

    cache = _cache_file(case, run)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        sluice_future = pool.submit(run_sluice, bin_dir, case, run, work / "sluice")
        if cache and cache.exists():
            spark_outcome = pickle.loads(cache.read_bytes())
        else:
            spark_outcome = run_spark(get_spark(), case, run, work / "spark")
            if cache:
                cache.parent.mkdir(parents=True, exist_ok=True)
                cache.write_bytes(pickle.dumps(spark_outcome))
        return sluice_future.result(), spark_outcome


def _rows_text(rows: collections.Counter) -> str:
    return "[" + ", ".join(sorted(repr(r) for r in rows.elements())) + "]"


def difference(sluice: Outcome, spark: Outcome, ordered: bool = False) -> str:
    """'' when both engines agree; else one line per difference, joined by '; ':
    'refused by sluice' / 'refused by spark', 'batch ids: sluice [...] spark [...]',
    'columns: sluice (...) spark (...)' (names and Spark types, first batch both have),
    'batch N: sluice-only [...] spark-only [...]'; with `ordered`, also 'batch N: order: sluice
    [...] spark [...]' when the same rows come in another order."""
    if sluice.error and spark.error:
        return ""
    if sluice.error:
        return "refused by sluice"
    if spark.error:
        return "refused by spark"
    lines = []
    ids_sl, ids_sp = sorted(sluice.batches), sorted(spark.batches)
    if ids_sl != ids_sp:
        lines.append(f"batch ids: sluice {ids_sl} spark {ids_sp}")
    common = [b for b in ids_sl if b in spark.batches]
    for b in common:
        cols_sl, cols_sp = sluice.batches[b][0], spark.batches[b][0]
        if [(n.lower(), t) for n, t in cols_sl] != [(n.lower(), t) for n, t in cols_sp]:
            lines.append(f"columns: sluice {cols_sl} spark {cols_sp}")
            break
    for b in common:
        rows_sl, rows_sp = sluice.batches[b][1], spark.batches[b][1]
        if rows_sl != rows_sp:
            lines.append(f"batch {b}: sluice-only {_rows_text(rows_sl - rows_sp)} "
                         f"spark-only {_rows_text(rows_sp - rows_sl)}")
        elif ordered and sluice.order.get(b) != spark.order.get(b):
            lines.append(f"batch {b}: order: sluice {sluice.order.get(b)} spark {spark.order.get(b)}")
    return "; ".join(lines)


def describe(outcome: Outcome) -> str:
    if outcome.error:
        return f"error: {outcome.error}"
    parts = []
    for b in sorted(outcome.batches):
        cols, rows = outcome.batches[b]
        parts.append(f"  batch {b} {cols}: {_rows_text(rows)}")
    return "\n".join(parts) or "  (no batches)"
