"""PySpark's readers and writers: spark.read / spark.readStream, df.write / df.writeStream."""
import re
import traceback

from sluice._native import native
from sluice.errors import IllegalArgumentException, PySparkTypeError, PySparkValueError, not_supported
from sluice.sql.types import StructType


def _option_text(value):
    """Option values as Spark spells them: True -> "true", 10 -> "10"."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _schema_ddl(schema):
    if isinstance(schema, StructType):
        return schema.toDDL()
    if isinstance(schema, str):
        return schema
    raise PySparkTypeError(f"schema should be a StructType or a DDL string, got {type(schema).__name__}")


def _partition_by_text(cols):
    """partitionBy("dt", "country") or partitionBy(["dt", "country"]) -> the writers' option "dt,country".

    Iceberg tables also take transforms: F.days("ts"), F.bucket(16, "id") or their text
    ("days(ts)", "bucket(16, id)", "truncate(4, name)"); file sinks refuse them by name."""
    from sluice.sql.functions import PartitionTransform
    if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
        cols = cols[0]
    if not cols:
        raise PySparkValueError("partitionBy needs at least one column name")
    terms = []
    for c in cols:
        if isinstance(c, PartitionTransform):
            terms.append(c._term)
            continue
        if not isinstance(c, str):
            raise PySparkTypeError(f"partitionBy takes column names (str) or partition transforms "
                                   f"(F.days, F.bucket, ...), got {type(c).__name__}")
        if "," in c and "(" not in c:
            raise PySparkValueError(f"partitionBy: column name '{c}' contains a comma, which sluice cannot partition by")
        terms.append(c)
    return ",".join(terms)


class _Options:
    def __init__(self):
        self._format = None
        self._options = {}

    def format(self, source):
        self._format = source
        return self

    def option(self, key, value):
        self._options[key] = _option_text(value)
        return self

    def options(self, **options):
        for k, v in options.items():
            self.option(k, v)
        return self

    def _set(self, **options):
        """Shortcut keyword arguments (json(path, multiLine=True)); None means "not given"."""
        for k, v in options.items():
            if v is not None:
                self.option(k, v)


class _Reader(_Options):
    def __init__(self, session):
        super().__init__()
        self._session = session
        self._ddl = None

    def schema(self, schema):
        self._ddl = _schema_ddl(schema)
        return self

    def _shortcut(self, fmt, path, schema, options):
        self.format(fmt)
        if schema is not None:
            self.schema(schema)
        self._set(**options)
        return self.load(path)

    def json(self, path, schema=None, **options):
        return self._shortcut("json", path, schema, options)

    def csv(self, path, schema=None, **options):
        return self._shortcut("csv", path, schema, options)

    def parquet(self, path, **options):
        return self._shortcut("parquet", path, None, options)

    def text(self, path, **options):
        return self._shortcut("text", path, None, options)


class DataStreamReader(_Reader):
    """spark.readStream: a streaming DataFrame over a source."""

    def load(self, path=None, format=None, schema=None, **options):
        from sluice.sql.dataframe import DataFrame
        if format is not None:
            self.format(format)
        if schema is not None:
            self.schema(schema)
        self._set(**options)
        native_df = self._session._native.read_stream(self._format, self._ddl, self._options, path)
        return DataFrame(native_df, self._session)

    def table(self, tableName):
        raise not_supported(f"readStream.table('{tableName}'): sluice has no streaming Iceberg source; "
                            f"read the table in batch with spark.read.table('{tableName}')")


class DataFrameReader(_Reader):
    """spark.read: a batch DataFrame (files, or an Iceberg table with table())."""

    def load(self, path=None, format=None, schema=None, **options):
        from sluice.sql.dataframe import DataFrame
        if format is not None:
            self.format(format)
        if schema is not None:
            self.schema(schema)
        self._set(**options)
        if isinstance(path, (list, tuple)):
            raise not_supported("reading several paths at once")
        native_df = self._session._native.read(self._format, self._ddl, self._options, path)
        return DataFrame(native_df, self._session)

    def table(self, tableName):
        from sluice.sql.dataframe import DataFrame
        native_df = self._session._native.read(self._format, self._ddl, self._options, tableName, table=True)
        return DataFrame(native_df, self._session)


_DURATION = re.compile(r"^\s*(?:interval\s+)?(\d+(?:\.\d+)?)\s*([a-z]+)\s*$", re.IGNORECASE)
_UNIT_MS = {"ms": 1, "millisecond": 1, "milliseconds": 1, "s": 1000, "sec": 1000, "second": 1000, "seconds": 1000,
            "min": 60000, "minute": 60000, "minutes": 60000, "h": 3600000, "hour": 3600000, "hours": 3600000,
            "day": 86400000, "days": 86400000}


def _duration_ms(text):
    m = _DURATION.match(text) if isinstance(text, str) else None
    if not m or m.group(2).lower() not in _UNIT_MS:
        raise IllegalArgumentException(f"processingTime: cannot parse '{text}' as a duration (e.g. '10 seconds')")
    return int(float(m.group(1)) * _UNIT_MS[m.group(2).lower()])


class DataStreamWriter(_Options):
    """df.writeStream: where and when a streaming query writes; start() or toTable() runs it."""

    def __init__(self, df):
        super().__init__()
        self._df = df
        self._output_mode = None
        self._trigger = None
        self._interval_ms = 0
        self._query_name = None
        self._foreach_batch = None

    def outputMode(self, outputMode):
        self._output_mode = outputMode
        return self

    def queryName(self, queryName):
        self._query_name = queryName
        return self

    def partitionBy(self, *cols):
        """File sinks: Hive-style directories (dt=2024-05-01/part-...); see docs/file-sink.md.
        Iceberg: the table's partition spec, with transforms (F.days("ts"), F.bucket(16, "id")); docs/iceberg.md."""
        self._options["partitionBy"] = _partition_by_text(cols)
        return self

    def trigger(self, *, processingTime=None, once=None, continuous=None, availableNow=None):
        given = [k for k, v in (("processingTime", processingTime), ("once", once), ("continuous", continuous),
                                ("availableNow", availableNow)) if v is not None]
        if len(given) != 1:
            raise PySparkValueError("trigger takes exactly one of processingTime, once, continuous, availableNow")
        if continuous is not None:
            raise not_supported("trigger(continuous=...)")
        if processingTime is not None:
            self._trigger, self._interval_ms = "processingTime", _duration_ms(processingTime)
        elif once:
            self._trigger = "once"
        elif availableNow:
            self._trigger = "availableNow"
        else:
            raise PySparkValueError(f"trigger: {given[0]} must be True")
        return self

    def foreachBatch(self, func):
        session = self._df.sparkSession

        def call(rows, batch_id):
            # Runs on the query's thread with the GIL held; an error fails the query with the
            # traceback as its message.
            try:
                from sluice.sql.dataframe import DataFrame
                func(DataFrame(session._native.create_dataframe(rows), session), batch_id)
                return None
            except BaseException:
                return "foreachBatch function raised an exception:\n" + traceback.format_exc()

        self._foreach_batch = call
        return self

    def foreach(self, f):
        """f(row) for every output row, or a ForeachWriter-shaped object: open(partition_id,
        epoch_id) -> bool, process(row), close(error). Runs on foreachBatch with one partition
        (id 0) per batch, the batch id as epoch id; a redone batch calls it again."""
        if hasattr(f, "process"):
            process, open_, close = f.process, getattr(f, "open", None), getattr(f, "close", None)
        elif callable(f):
            process, open_, close = f, None, None
        else:
            raise PySparkTypeError("foreach takes a function or an object with a process(row) method")

        def each_row(batch_df, batch_id):
            rows = batch_df.collect()
            if open_ is not None and not open_(0, batch_id):
                if close is not None:
                    close(None)
                return
            try:
                for row in rows:
                    process(row)
            except BaseException as error:
                if close is not None:
                    close(error)
                raise
            if close is not None:
                close(None)

        return self.foreachBatch(each_row)

    def _start(self, path, table, format, outputMode, partitionBy, queryName, options):
        from sluice.sql.streaming import StreamingQuery
        if format is not None:
            self.format(format)
        if outputMode is not None:
            self.outputMode(outputMode)
        if partitionBy is not None:
            self.partitionBy(partitionBy)
        if queryName is not None:
            self.queryName(queryName)
        self._set(**options)
        session = self._df.sparkSession
        q = native.start_stream(self._df._df, self._format, self._output_mode, self._options, self._trigger,
                                self._interval_ms, self._query_name, self._foreach_batch, path, table)
        return session.streams._started(StreamingQuery(q, session, self._df._df.explain()))

    def start(self, path=None, format=None, outputMode=None, partitionBy=None, queryName=None, **options):
        return self._start(path, None, format, outputMode, partitionBy, queryName, options)

    def toTable(self, tableName, format=None, outputMode=None, partitionBy=None, queryName=None, **options):
        if format not in (None, "iceberg"):
            raise not_supported(f"toTable with format '{format}' (tables are Iceberg tables)")
        return self._start(None, tableName, None, outputMode, partitionBy, queryName, options)


class DataFrameWriter(_Options):
    """df.write: a one-off batch write of files."""

    def __init__(self, df):
        super().__init__()
        self._df = df
        self._mode = "error"
        self._format = "parquet"

    def mode(self, saveMode):
        self._mode = {"errorifexists": "error", "default": "error"}.get(saveMode or "error", saveMode)
        return self

    def partitionBy(self, *cols):
        self._options["partitionBy"] = _partition_by_text(cols)
        return self

    def save(self, path=None, format=None, mode=None, partitionBy=None, **options):
        if format is not None:
            self.format(format)
        if mode is not None:
            self.mode(mode)
        if partitionBy is not None:
            self.partitionBy(partitionBy)
        self._set(**options)
        if path is None:
            raise PySparkValueError("save: a path is required")
        self._df._df.write_files(self._format, self._mode, self._options, path)

    def parquet(self, path, mode=None, **options):
        self.save(path, "parquet", mode, **options)

    def json(self, path, mode=None, **options):
        self.save(path, "json", mode, **options)

    def csv(self, path, mode=None, **options):
        self.save(path, "csv", mode, **options)

    def text(self, path, **options):
        self.save(path, "text", **options)

    def saveAsTable(self, name, format=None, mode=None, partitionBy=None, **options):
        """Writes an Iceberg table ("catalog.ns.table"): one snapshot; mode error (default),
        append, overwrite or ignore; partitionBy gives a new table's partition spec."""
        if format is not None:
            self.format(format)
        if self._format not in ("parquet", "iceberg"):  # parquet: the writer's default, not a choice
            raise PySparkValueError(f"saveAsTable writes Iceberg tables; format '{self._format}' is not supported")
        if mode is not None:
            self.mode(mode)
        if partitionBy is not None:
            self.partitionBy(partitionBy)
        self._set(**options)
        self._df._df.write_files("iceberg", self._mode, self._options, name)

    def insertInto(self, tableName, overwrite=None):
        """Appends to (or with overwrite=True replaces the rows of) an existing Iceberg table."""
        self._mode = "overwrite" if overwrite else "append"
        self._df._df.write_files("iceberg", self._mode, self._options, tableName)


class DataFrameWriterV2(_Options):
    """df.writeTo("catalog.ns.table"): PySpark's DataFrameWriterV2 for Iceberg tables."""

    def __init__(self, df, table):
        super().__init__()
        self._df = df
        self._table = table
        self._partition_by = None

    def using(self, provider):
        if provider.lower() != "iceberg":
            raise PySparkValueError(f"writeTo(...).using('{provider}'): sluice writes Iceberg tables only")
        return self

    def partitionedBy(self, col, *cols):
        self._partition_by = _partition_by_text((col,) + cols)
        return self

    def _write(self, mode):
        options = dict(self._options)
        if self._partition_by is not None:
            options["partitionBy"] = self._partition_by
        self._df._df.write_files("iceberg", mode, options, self._table)

    def create(self):
        self._write("error")

    def append(self):
        self._write("append")

    def createOrReplace(self):
        self._write("overwrite")

    replace = createOrReplace
