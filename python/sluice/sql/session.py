"""PySpark's SparkSession: SparkSession.builder.appName(...).config(...).getOrCreate()."""
import atexit
import difflib
import sys
import threading

import pyarrow as pa

from sluice._native import native
from sluice.errors import IllegalArgumentException, PySparkTypeError, not_supported
from sluice.sql.streaming import StreamingQueryManager

# Settings that only configure Spark's JVM, cluster or Iceberg runtime jars: accepted without a
# word (sluice has nothing to configure there).
_IGNORED_PREFIXES = ("spark.jars", "spark.driver.", "spark.executor.", "spark.master", "spark.app.",
                     "spark.ui.", "spark.sql.extensions", "spark.serializer", "spark.submit.")
# Spark keys sluice reads (docs/configuration.md): a near miss of one of these is an error.
_KNOWN_KEYS = ("spark.sql.shuffle.partitions", "spark.sql.streaming.stateStore.providerClass",
               "spark.sql.streaming.minBatchesToRetain", "spark.sql.streaming.numRecentProgressUpdates",
               "spark.sql.streaming.noDataProgressEventInterval", "spark.sql.streaming.checkpointLocation",
               "spark.sql.streaming.multipleWatermarkPolicy", "spark.sql.defaultCatalog",
               "spark.sql.warehouse.dir", "spark.sql.ansi.enabled", "spark.sql.session.timeZone")


def _catalog_setting(key, value):
    """Spark's Iceberg catalog keys, in sluice's terms: `.type = jdbc` is sluice's `sql`
    catalog; the catalog class itself (`spark.sql.catalog.<name> = ...SparkCatalog`) names the
    catalog and is otherwise not needed."""
    parts = key.split(".")
    if len(parts) == 5 and parts[4] == "type" and value == "jdbc":
        return "sql"
    return value


def _check_key(key):
    if key.startswith(_IGNORED_PREFIXES) or key.startswith(("spark.sql.catalog.", "sluice.")):
        return
    if key in _KNOWN_KEYS or not key.startswith("spark."):
        return
    near = difflib.get_close_matches(key, _KNOWN_KEYS, n=1, cutoff=0.85)
    if near:
        raise IllegalArgumentException(f"unknown configuration key '{key}'. Did you mean '{near[0]}'?")
    print(f"sluice: configuration key '{key}' has no effect in sluice", file=sys.stderr)


class RuntimeConfig:
    """spark.conf: the session's settings (`spark.X` and `sluice.X` name one setting)."""

    def __init__(self, session):
        self._session = session

    def set(self, key, value):
        if not isinstance(key, str):
            raise PySparkTypeError("configuration keys are strings")
        _check_key(key)
        text = "true" if value is True else "false" if value is False else str(value)
        if key.startswith("spark.sql.catalog."):
            text = _catalog_setting(key, text)
        self._session._native.set_conf(key, text)

    def get(self, key, default=None):
        value = self._session._native.conf(key, "")
        return value if value != "" else default

    def unset(self, key):
        self._session._native.set_conf(key, "")


class _Builder:
    def __init__(self):
        self._options = {}

    def appName(self, name):
        return self.config("spark.app.name", name)

    def master(self, master):
        return self.config("spark.master", master)

    def remote(self, url):
        raise not_supported("Spark Connect (SparkSession.builder.remote)")

    def enableHiveSupport(self):
        return self

    def config(self, key=None, value=None, conf=None, map=None):
        if key is not None:
            self._options[key] = value
        for pairs in (conf.getAll() if conf is not None else [], (map or {}).items()):
            for k, v in pairs:
                self._options[k] = v
        return self

    def getOrCreate(self):
        with SparkSession._lock:
            session = SparkSession._active
            if session is None:
                session = SparkSession()
            for k, v in self._options.items():
                session.conf.set(k, v)
            return session

    create = getOrCreate


class _ClassProperty:
    def __init__(self, fn):
        self._fn = fn

    def __get__(self, obj, owner):
        return self._fn(owner)


class SparkSession:
    """The entry point; create it with SparkSession.builder....getOrCreate() (one per process,
    as in PySpark). Stopping it, or the end of the program, stops its queries."""

    _lock = threading.RLock()
    _active = None

    builder = _ClassProperty(lambda cls: _Builder())

    def __init__(self):
        self._native = native.Session.make()
        self._temp_views = {}  # lower-case name -> DataFrame (createOrReplaceTempView)
        self.conf = RuntimeConfig(self)
        self.streams = StreamingQueryManager(self)
        SparkSession._active = self

    @classmethod
    def getActiveSession(cls):
        return cls._active

    active = getActiveSession

    @property
    def readStream(self):
        from sluice.sql.readwriter import DataStreamReader
        return DataStreamReader(self)

    @property
    def read(self):
        from sluice.sql.readwriter import DataFrameReader
        return DataFrameReader(self)

    @property
    def version(self):
        import sluice
        return sluice.__version__

    def table(self, tableName):
        """The rows of memory sink `tableName` (writeStream.format("memory").queryName(...)), else
        the Iceberg table of that name."""
        from sluice.errors import AnalysisException
        from sluice.sql.dataframe import DataFrame
        if tableName.lower() in self._temp_views:
            return self._temp_views[tableName.lower()]
        try:
            rows = self._native.memory_table(tableName)
        except AnalysisException:
            return self.read.table(tableName)
        return DataFrame(self._native.create_dataframe(rows), self)

    def sql(self, sqlQuery, args=None, **kwargs):
        """One SELECT in sluice's SQL (docs/sql.md) over the temporary views of this session; the
        result is a streaming DataFrame when it reads a streaming view."""
        from sluice.sql.dataframe import DataFrame
        if args or kwargs:
            raise not_supported("spark.sql with parameters")
        views = {name: df._df for name, df in self._temp_views.items()}
        return DataFrame(self._native.sql(sqlQuery, views), self)

    def createDataFrame(self, data, schema=None):
        """A batch DataFrame from a pyarrow Table (shared, not copied), a pandas DataFrame, or a
        list of rows (tuples, dicts or Rows) with a schema."""
        from sluice.sql.dataframe import DataFrame
        from sluice.sql.types import StructType
        if hasattr(data, "__arrow_c_stream__"):
            table = data
        elif type(data).__module__.startswith("pandas"):
            table = pa.Table.from_pandas(data, preserve_index=False)
        else:
            rows = list(data)
            if isinstance(schema, str):
                raise not_supported("createDataFrame with a DDL schema string (give a StructType)")
            if isinstance(schema, StructType):
                arrow_schema = pa.schema([(f.name, _arrow_type(f.dataType), f.nullable) for f in schema.fields])
                names = schema.names
            elif isinstance(schema, (list, tuple)):
                arrow_schema, names = None, list(schema)
            else:
                arrow_schema, names = None, None
            dicts = [r.asDict() if hasattr(r, "asDict") else r if isinstance(r, dict) else dict(zip(names, r))
                     for r in rows]
            table = pa.Table.from_pylist(dicts, schema=arrow_schema)
        return DataFrame(self._native.create_dataframe(table), self)

    def stop(self):
        """Stops every active query, then forgets the session."""
        for q in self.streams.active:
            q.stop()
        with SparkSession._lock:
            if SparkSession._active is self:
                SparkSession._active = None

    close = stop

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def _arrow_type(data_type):
    from sluice.sql import types as T
    simple = {T.StringType: pa.string(), T.BinaryType: pa.binary(), T.BooleanType: pa.bool_(),
              T.ByteType: pa.int8(), T.ShortType: pa.int16(), T.IntegerType: pa.int32(), T.LongType: pa.int64(),
              T.FloatType: pa.float32(), T.DoubleType: pa.float64(), T.DateType: pa.date32(),
              T.TimestampType: pa.timestamp("us", tz="UTC"), T.TimestampNTZType: pa.timestamp("us"),
              T.NullType: pa.null()}
    if isinstance(data_type, T.DecimalType):
        return pa.decimal128(data_type.precision, data_type.scale)
    if type(data_type) in simple:
        return simple[type(data_type)]
    raise not_supported(f"createDataFrame with {data_type!r}")


@atexit.register
def _stop_queries_at_exit():
    # Queries must end before the interpreter goes away: a foreachBatch call needs it.
    session = SparkSession._active
    if session is not None:
        try:
            session.stop()
        except Exception:  # noqa: BLE001 - the program is ending; the query's error was reported
            pass
