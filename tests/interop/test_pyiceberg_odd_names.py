"""Iceberg tables and namespaces whose names need escaping in a URI, written by sluice and read
by PyIceberg 0.12, pyarrow and sluice.

PyIceberg (and Hadoop) take a location's characters literally and cut it at '#' or '?', while
a URI parser percent-decodes it; so the sql catalog gives such names directories made of
[A-Za-z0-9._-] only (docs/iceberg.md, "Catalogs"), and the catalog keeps the real names. Each
table gets its own rows (ids k*100 ...), so a mix-up between two tables shows as wrong rows.
Also: string partition values that Iceberg's directory names URL-encode ("a/b" -> "a%2Fb"), a
second batch appended to every table, and tables PyIceberg created under such names that sluice
reads and appends to.
"""
import json
import os
import re
import sqlite3
import subprocess
from pathlib import Path
from urllib.parse import urlparse

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType

ODD = ["pct%", "a%20b", "sp ace", "quo'te", 'dq"uote', "hash#x", "q?x", "plus+", "amp&x", "eq=x", "co:lon",
       "café", "日本", "emoji😀", "us_ok"]
# (namespace, table): odd tables in a plain namespace, then plain tables in odd namespaces.
NAMES = [("db", n) for n in ODD] + [(ns, "t") for ns in ["ns sp", "ns%41", "ñs", "ns#?", "ns'q"]]
PARTITIONED = ("parts ns", "by s")
VALUES = ["a/b", "café", "x y", "50%", "q?#", "plain"]
UNRESERVED = re.compile(r"[A-Za-z0-9._\-/]*")


def quote(s: str) -> str:
    return s.replace("'", "''")


def write_input(root: Path, batch: int) -> None:
    d = root / "in"
    d.mkdir(parents=True, exist_ok=True)
    rows = [{"id": batch * 10 + i, "s": VALUES[(batch * 3 + i) % len(VALUES)]} for i in range(3)]
    tmp = d / f".b{batch}.json.tmp"
    tmp.write_text("".join(json.dumps(r) + "\n" for r in rows))
    os.rename(tmp, d / f"b{batch}.json")


def expected(k: int, batches: int) -> list:
    return sorted((k * 100 + b * 10 + i, VALUES[(b * 3 + i) % len(VALUES)]) for b in range(batches) for i in range(3))


def catalog_sets(root: Path) -> str:
    return (f"SET sluice.sql.catalog.lake.type = 'sql';\n"
            f"SET sluice.sql.catalog.lake.uri = 'sqlite:///{root / 'catalog.db'}';\n"
            f"SET sluice.sql.catalog.lake.warehouse = '{root / 'wh'}';\n")


def table_option(ns: str, name: str) -> str:
    return f"table = '{quote(ns)}.{quote(name)}'"


def source(root: Path) -> str:
    return f"CREATE TABLE src (id BIGINT, s TEXT) WITH (connector = 'files', format = 'json', path = '{root / 'in'}');"


def sink_and_insert(k: int, ns: str, name: str) -> list:
    """Table out<k> = ns.name, fed the source's rows with ids shifted by k*100."""
    return [f"CREATE TABLE out{k} () WITH (connector = 'iceberg', catalog = 'lake', {table_option(ns, name)});",
            f"INSERT INTO out{k} SELECT id + {k * 100} AS id, s FROM src;"]


def pipeline(root: Path) -> Path:
    lines = [catalog_sets(root), source(root)]
    for k, (ns, name) in enumerate(NAMES):
        lines += sink_and_insert(k, ns, name)
    k = len(NAMES)
    lines.append(f"CREATE TABLE out{k} () PARTITIONED BY (s) WITH (connector = 'iceberg', catalog = 'lake', "
                 f"{table_option(*PARTITIONED)});")
    lines.append(f"INSERT INTO out{k} SELECT id + {k * 100} AS id, s FROM src;")
    path = root / "odd.sql"
    path.write_text("\n".join(lines) + "\n")
    return path


def run_sluice(bin_dir: Path, *args: str) -> str:
    proc = subprocess.run([str(bin_dir / "sluice"), *args], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"sluice {' '.join(args)} exited {proc.returncode}: {proc.stderr}"
    return proc.stdout


def sluice_rows(bin_dir: Path, root: Path, tables: list) -> dict:
    """(ns, name) -> sorted (id, s) rows, as `sluice batch` reads the tables."""
    result = {}
    for ns, name in tables:
        sql = root / "read.sql"
        sql.write_text(catalog_sets(root) + f"CREATE TABLE t () WITH (connector = 'iceberg', catalog = 'lake', "
                       f"{table_option(ns, name)});\nSELECT id, s FROM t;\n")
        out = run_sluice(bin_dir, "batch", str(sql), "--print", "--limit", "1000")
        rows = []
        for line in out.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 2 and cells[0].lstrip("-").isdigit():
                rows.append((int(cells[0]), cells[1]))
        result[(ns, name)] = sorted(rows)
    return result


def pyiceberg_rows(table) -> list:
    return sorted((r["id"], r["s"]) for r in table.scan().to_arrow().to_pylist())


def local_path(uri: str) -> str:
    """The file a PyIceberg/Hadoop-style reader opens for `uri`: its characters, literally."""
    parsed = urlparse(uri)
    assert parsed.scheme == "file" and not parsed.query and not parsed.fragment, uri
    return parsed.path


def pyarrow_rows(table) -> list:
    rows = []
    for task in table.scan().plan_files():
        data = pq.read_table(local_path(task.file.file_path)).to_pylist()
        rows += [(r["id"], r["s"]) for r in data]
    return sorted(rows)


@pytest.fixture(scope="module")
def lake(tmp_path_factory, sluice_bin_dir):
    """Every table written by two runs of the pipeline (two batches each)."""
    root = tmp_path_factory.mktemp("odd")
    sql = pipeline(root)
    for batch in range(2):
        write_input(root, batch)
        run_sluice(sluice_bin_dir, "run", str(sql), "--checkpoint", str(root / "ckpt"), "--trigger", "available-now")
    return root


def catalog(root: Path) -> SqlCatalog:
    return SqlCatalog("lake", uri=f"sqlite:///{root / 'catalog.db'}", warehouse=f"file://{root / 'wh'}")


ALL = NAMES + [PARTITIONED]


@pytest.mark.parametrize("k", range(len(ALL)), ids=[f"{ns}.{n}" for ns, n in ALL])
def test_pyiceberg_and_pyarrow_read_the_exact_rows(lake, k):
    ns, name = ALL[k]
    table = catalog(lake).load_table((ns, name))
    assert pyiceberg_rows(table) == expected(k, 2)
    assert pyarrow_rows(table) == expected(k, 2)
    assert len(table.metadata.snapshots) == 2


@pytest.mark.parametrize("k", range(len(ALL)), ids=[f"{ns}.{n}" for ns, n in ALL])
def test_every_recorded_location_needs_no_escaping(lake, k):
    """The table location, metadata file, manifest lists, manifests and data files (but for the
    URL-encoded partition directory names, which are taken literally too) use only characters
    every reader reads alike, and each exists under its literal path."""
    table = catalog(lake).load_table(ALL[k])
    prefix = f"file://{lake / 'wh'}/"
    uris = [table.metadata.location, table.metadata_location]
    for snapshot in table.metadata.snapshots:
        uris.append(snapshot.manifest_list)
        for manifest in snapshot.manifests(table.io):
            uris.append(manifest.manifest_path)
    for uri in uris:
        assert uri.startswith(prefix), uri
        assert UNRESERVED.fullmatch(uri[len(prefix):]), uri
    assert os.path.isdir(local_path(table.metadata.location))
    for task in table.scan().plan_files():
        path = local_path(task.file.file_path)
        assert path.startswith(local_path(table.metadata.location) + "/data/"), path
        assert os.path.isfile(path), path


def test_the_catalog_keeps_the_real_names_and_every_table_has_its_own_directory(lake):
    with sqlite3.connect(lake / "catalog.db") as db:
        rows = db.execute("SELECT table_namespace, table_name FROM iceberg_tables").fetchall()
        namespaces = {r[0] for r in db.execute("SELECT namespace FROM iceberg_namespace_properties")}
    assert sorted(rows) == sorted(ALL)
    assert namespaces == {ns for ns, _ in ALL}
    locations = {catalog(lake).load_table(t).metadata.location for t in ALL}
    assert len(locations) == len(ALL)
    # A name that was already safe keeps its directory.
    assert catalog(lake).load_table(("db", "us_ok")).metadata.location == f"file://{lake / 'wh'}/db.db/us_ok"


def test_partition_directories_are_read_literally(lake):
    table = catalog(lake).load_table(PARTITIONED)
    dirs = {Path(local_path(t.file.file_path)).parent.name for t in table.scan().plan_files()}
    assert dirs == {"s=a%2Fb", "s=caf%C3%A9", "s=x+y", "s=50%25", "s=q%3F%23", "s=plain"}
    only_slash = table.scan(row_filter="s == 'a/b'").to_arrow().to_pylist()
    assert [(r["id"], r["s"]) for r in only_slash] == [(len(NAMES) * 100 + 0, "a/b")]


def test_sluice_reads_every_table_back(lake, sluice_bin_dir):
    got = sluice_rows(sluice_bin_dir, lake, ALL)
    assert got == {t: expected(k, 2) for k, t in enumerate(ALL)}


def test_sluice_reads_and_appends_to_tables_pyiceberg_named_so(tmp_path, sluice_bin_dir):
    """PyIceberg records such names literally (its location is <warehouse>/<ns>/<name>); sluice
    must not percent-decode them ("a%41b" is not "aAb"), and its appends must stay readable."""
    cat = catalog(tmp_path)
    cat.create_namespace("db")
    schema = Schema(NestedField(1, "id", LongType(), required=False), NestedField(2, "s", StringType(), required=False))
    names = [("db", "a%41b"), ("db", "sp ace"), ("db", "pct%"), ("db", "café")]
    for k, ident in enumerate(names):
        table = cat.create_table(ident, schema=schema)
        table.append(pa.table({"id": pa.array([k, k + 1], pa.int64()), "s": ["p", "q"]}))
    # A decoy where a percent-decoding reader would look.
    (tmp_path / "wh" / "db" / "aAb").mkdir(parents=True)
    assert sluice_rows(sluice_bin_dir, tmp_path, names) == {t: [(k, "p"), (k + 1, "q")] for k, t in enumerate(names)}

    write_input(tmp_path, 0)
    lines = [catalog_sets(tmp_path), source(tmp_path)]
    for k, (ns, name) in enumerate(names):
        lines += sink_and_insert(k, ns, name)
    sql = tmp_path / "append.sql"
    sql.write_text("\n".join(lines) + "\n")
    run_sluice(sluice_bin_dir, "run", str(sql), "--checkpoint", str(tmp_path / "ckpt"), "--trigger", "available-now")
    for k, ident in enumerate(names):
        want = sorted([(k, "p"), (k + 1, "q")] + expected(k, 1))
        table = catalog(tmp_path).load_table(ident)
        assert pyiceberg_rows(table) == want, ident
        assert pyarrow_rows(table) == want, ident
        assert table.metadata.location == f"file://{tmp_path / 'wh'}/db/{ident[1]}"
        for task in table.scan().plan_files():
            assert task.file.file_path.startswith(table.metadata.location + "/data/"), task.file.file_path
    assert not any((tmp_path / "wh" / "db" / "aAb").iterdir())
