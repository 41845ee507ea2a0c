"""PySpark's DataFrame and GroupedData over the engine's logical plans."""
import pyarrow as pa

from sluice._native import native
from sluice.errors import AnalysisException, PySparkTypeError, PySparkValueError, not_supported
from sluice.sql.column import Column, _to_col
from sluice.sql.types import Row, from_arrow_schema, from_arrow_value


def _names(cols):
    """Column names from PySpark's varargs: "a", "b" or ["a", "b"]."""
    if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
        cols = tuple(cols[0])
    out = []
    for c in cols:
        if not isinstance(c, str):
            raise PySparkTypeError(f"expected column names, got {type(c).__name__}: {c!r}")
        out.append(c)
    return out


def _columns(cols):
    if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
        cols = tuple(cols[0])
    return [_to_col(c)._c for c in cols]


class DataFrame:
    """A streaming or batch DataFrame. Transformations check the plan at once (an unknown
    column raises AnalysisException here, as in PySpark)."""

    def __init__(self, native_frame, session, projected_from=None):
        self._df = native_frame
        self.sparkSession = session
        # (input frame, native columns) when this frame is a select(): Spark resolves a filter
        # on a column the select dropped by filtering below it (df.select("a").where("b > 1")).
        self._projected_from = projected_from

    def _wrap(self, native_frame):
        return DataFrame(native_frame, self.sparkSession)

    # --- schema -----------------------------------------------------------------------------
    @property
    def isStreaming(self):
        return self._df.is_streaming

    @property
    def schema(self):
        return from_arrow_schema(pa.schema(self._df.schema()))

    @property
    def columns(self):
        return [f.name for f in pa.schema(self._df.schema())]

    @property
    def dtypes(self):
        return [(f.name, f.dataType.simpleString()) for f in self.schema.fields]

    def printSchema(self, level=None):
        print(self.schema.treeString(), end="")

    def explain(self, extended=None, mode=None):
        print(self._df.explain())

    def __getitem__(self, item):
        if isinstance(item, str):
            if item not in self.columns and item != "*":
                raise AnalysisException(f"Column '{item}' does not exist. Available columns: {self.columns}")
            return Column(native.col(item))
        if isinstance(item, Column):
            return self.filter(item)
        if isinstance(item, (list, tuple)):
            return self.select(*item)
        raise PySparkTypeError(f"unexpected item type: {type(item).__name__}")

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        if name in self.columns:
            return Column(native.col(name))
        raise AttributeError(f"'DataFrame' object has no attribute '{name}'")

    # --- transformations --------------------------------------------------------------------
    def select(self, *cols):
        native_cols = _columns(cols)
        return DataFrame(self._df.select(native_cols), self.sparkSession, (self, native_cols))

    def selectExpr(self, *expr):
        if len(expr) == 1 and isinstance(expr[0], (list, tuple)):
            expr = tuple(expr[0])
        return self._wrap(self._df.select_expr(list(expr)))

    def filter(self, condition):
        if not isinstance(condition, (str, Column)):
            raise PySparkTypeError(f"filter takes a Column or a SQL string, got {type(condition).__name__}")
        try:
            if isinstance(condition, str):
                return self._wrap(self._df.filter_expr(condition))
            return self._wrap(self._df.filter(condition._c))
        except AnalysisException as error:
            if self._projected_from is None or "does not exist" not in str(error):
                raise
            parent, native_cols = self._projected_from
            try:
                below = parent.filter(condition)
            except AnalysisException:
                raise error from None
            return DataFrame(below._df.select(native_cols), self.sparkSession, (below, native_cols))

    where = filter

    def withColumn(self, colName, col):
        if not isinstance(col, Column):
            raise PySparkTypeError("withColumn: col should be a Column")
        return self._wrap(self._df.with_column(colName, col._c))

    def withColumns(self, *colsMap):
        out = self
        for name, c in colsMap[0].items():
            out = out.withColumn(name, c)
        return out

    def withColumnRenamed(self, existing, new):
        return self._wrap(self._df.with_column_renamed(existing, new))

    def withColumnsRenamed(self, colsMap):
        out = self
        for existing, new in colsMap.items():
            out = out.withColumnRenamed(existing, new)
        return out

    def drop(self, *cols):
        names = [str(c) if isinstance(c, Column) else c for c in cols]
        return self._wrap(self._df.drop(names))

    def groupBy(self, *cols):
        return GroupedData(self, _columns(cols))

    groupby = groupBy

    def agg(self, *exprs):
        return self.groupBy().agg(*exprs)

    def withWatermark(self, eventTime, delayThreshold):
        return self._wrap(self._df.with_watermark(eventTime, delayThreshold))

    def dropDuplicates(self, subset=None):
        return self._wrap(self._df.drop_duplicates(list(subset or [])))

    drop_duplicates = dropDuplicates

    def distinct(self):
        return self.dropDuplicates()

    def dropDuplicatesWithinWatermark(self, subset=None):
        return self._wrap(self._df.drop_duplicates_within_watermark(list(subset or [])))

    def union(self, other):
        """UNION ALL, as Spark's union: columns matched by position, duplicates kept."""
        return self._wrap(self._df.union_all(other._df))

    unionAll = union

    def alias(self, alias):
        return self

    def persist(self, storageLevel=None):
        """A no-op: a batch frame's rows are already in memory, or read again by each action."""
        return self

    cache = persist

    def unpersist(self, blocking=False):
        return self

    def join(self, other, on=None, how=None):
        """PySpark's join: `on` a column name, a list of names (each output once), a Column
        condition or a list of Columns (ANDed); `how` any of PySpark's spellings. Stream-static
        and stream-stream joins follow Spark's rules (docs/joins.md)."""
        how_key = (how or "inner").lower().replace("_", "")
        if how_key == "cross" or on is None:
            raise not_supported("a join without a condition (cross join)")
        if how_key not in _JOIN_TYPES:
            raise PySparkValueError(f"join: unknown join type '{how}'; use one of inner, left, right, full, "
                                    "left_semi, left_anti (or PySpark's other spellings of them)")
        how_name = _JOIN_TYPES[how_key]
        if isinstance(on, str):
            on = [on]
        if isinstance(on, (list, tuple)) and on and all(isinstance(c, str) for c in on):
            return self._wrap(self._df.join_using(other._df, list(on), how_name))
        if isinstance(on, (list, tuple)) and on and all(isinstance(c, Column) for c in on):
            condition = on[0]
            for c in on[1:]:
                condition = condition & c
            on = condition
        if isinstance(on, Column):
            return self._wrap(self._df.join_on(other._df, on._c, how_name))
        raise PySparkTypeError("join: `on` must be a column name, a list of names, a Column or a list of Columns")

    def createOrReplaceTempView(self, name):
        """Registers this frame (streaming or batch) as `name` for spark.sql and spark.table."""
        self.sparkSession._temp_views[name.lower()] = self

    def createTempView(self, name):
        if name.lower() in self.sparkSession._temp_views:
            raise AnalysisException(f"[TEMP_TABLE_OR_VIEW_ALREADY_EXISTS] Cannot create the temporary view `{name}` "
                                    "because it already exists; use createOrReplaceTempView")
        self.createOrReplaceTempView(name)

    # --- actions (batch frames) -------------------------------------------------------------
    def toArrow(self):
        """The rows as a pyarrow.Table (shared with the engine, not copied)."""
        return pa.table(self._df.collect())

    def toPandas(self):
        return self.toArrow().to_pandas()

    def collect(self):
        table = self.toArrow()
        names = table.column_names
        types = [table.schema.field(i).type for i in range(table.num_columns)]
        return [Row._make(names, [from_arrow_value(r[n], t) for n, t in zip(names, types)]) for r in table.to_pylist()]

    def count(self):
        return self.toArrow().num_rows

    def take(self, num):
        return self.collect()[:num]

    head = take

    def first(self):
        rows = self.take(1)
        return rows[0] if rows else None

    def isEmpty(self):
        return self.count() == 0

    def show(self, n=20, truncate=True, vertical=False):
        table = self.toArrow()
        width = 20 if truncate is True else (int(truncate) if truncate else None)
        rows = [[_cell(v, width) for v in r.values()] for r in table.slice(0, n).to_pylist()]
        names = table.column_names
        widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(names)]
        line = "+" + "+".join("-" * w for w in widths) + "+"
        out = [line, "|" + "|".join(h.rjust(w) for h, w in zip(names, widths)) + "|", line]
        out += ["|" + "|".join(v.rjust(w) for v, w in zip(r, widths)) + "|" for r in rows]
        out.append(line)
        if table.num_rows > n:
            out.append(f"only showing top {n} row{'s' if n != 1 else ''}")
        print("\n".join(out) + "\n")

    # --- writers ----------------------------------------------------------------------------
    @property
    def writeStream(self):
        from sluice.sql.readwriter import DataStreamWriter
        return DataStreamWriter(self)

    @property
    def write(self):
        from sluice.sql.readwriter import DataFrameWriter
        return DataFrameWriter(self)

    def writeTo(self, table):
        from sluice.sql.readwriter import DataFrameWriterV2
        return DataFrameWriterV2(self, table)

    def __repr__(self):
        return "DataFrame[" + ", ".join(f"{n}: {t}" for n, t in self.dtypes) + "]"


def _cell(value, width):
    text = "NULL" if value is None else str(value)
    if width and len(text) > width:
        text = text[:width - 3] + "..."
    return text


class GroupedData:
    """df.groupBy(...): finish with agg(...) or count()."""

    def __init__(self, df, keys):
        self._frame = df
        self._keys = keys

    def agg(self, *exprs):
        if len(exprs) == 1 and isinstance(exprs[0], dict):
            from sluice.sql import functions as F
            exprs = tuple(getattr(F, fn)(name).alias(f"{fn}({name})") for name, fn in exprs[0].items())
        if len(exprs) == 1 and isinstance(exprs[0], (list, tuple)):
            exprs = tuple(exprs[0])
        for e in exprs:
            if not isinstance(e, Column):
                raise PySparkTypeError("agg takes aggregate Columns (or one dict of column -> function)")
        return self._frame._wrap(self._frame._df.agg(self._keys, [e._c for e in exprs]))

    def count(self):
        return self._frame._wrap(self._frame._df.group_count(self._keys))

    def _simple(self, fn, cols):
        from sluice.sql import functions as F
        return self.agg(*[getattr(F, fn)(c).alias(f"{fn}({c})") for c in cols])

    def sum(self, *cols):
        return self._simple("sum", cols)

    def avg(self, *cols):
        return self._simple("avg", cols)

    mean = avg

    def min(self, *cols):
        return self._simple("min", cols)

    def max(self, *cols):
        return self._simple("max", cols)


# PySpark's join type spellings (lower case, without "_") -> the engine's.
_JOIN_TYPES = {"inner": "inner", "left": "left", "leftouter": "left", "right": "right", "rightouter": "right",
               "full": "full", "fullouter": "full", "outer": "full", "semi": "left_semi", "leftsemi": "left_semi",
               "anti": "left_anti", "leftanti": "left_anti"}
