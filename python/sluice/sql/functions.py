"""PySpark's pyspark.sql.functions, for the functions sluice has (docs/python.md lists them).

Arguments follow PySpark: a Column or a column name where PySpark takes "col", a Python
value where it takes a literal.
"""
from sluice._native import native
from sluice.errors import not_supported
from sluice.sql.column import Column, _lit, _to_col


def col(col):
    return Column(native.col(col))


column = col


def lit(col):
    return _lit(col)


def expr(str):
    """A Column from SQL expression text: expr("price * 2"), expr("count(*) AS n")."""
    return Column(native.expr(str))


def when(condition, value):
    return Column(native.when(condition._c, _lit(value)._c))


def coalesce(*cols):
    return Column(native.coalesce([_to_col(c)._c for c in cols]))


class PartitionTransform:
    """A partition transform for partitionBy / partitionedBy on Iceberg tables (PySpark's
    years/months/days/hours/bucket); like PySpark's, usable only there."""

    def __init__(self, term):
        self._term = term

    def __repr__(self):
        return f"PartitionTransform<{self._term}>"


def _transform_column(col, fn):
    if isinstance(col, str):
        return col
    raise not_supported(f"{fn}() of an expression (sluice partitions by a column name: {fn}(\"ts\"))")


def years(col):
    return PartitionTransform(f"years({_transform_column(col, 'years')})")


def months(col):
    return PartitionTransform(f"months({_transform_column(col, 'months')})")


def days(col):
    return PartitionTransform(f"days({_transform_column(col, 'days')})")


def hours(col):
    return PartitionTransform(f"hours({_transform_column(col, 'hours')})")


def bucket(numBuckets, col):
    if isinstance(numBuckets, bool) or not isinstance(numBuckets, int):
        raise not_supported("bucket() with a numBuckets that is not a Python int")
    return PartitionTransform(f"bucket({numBuckets}, {_transform_column(col, 'bucket')})")


def _unary(name, native_name=None):
    def fn(col):
        return Column(native.unary(native_name or name, _to_col(col)._c))
    fn.__name__ = name
    fn.__doc__ = f"PySpark's {name}()."
    return fn


upper = _unary("upper")
lower = _unary("lower")
length = _unary("length")
trim = _unary("trim")
year = _unary("year")
month = _unary("month")
dayofmonth = _unary("dayofmonth")
hour = _unary("hour")
minute = _unary("minute")
second = _unary("second")
dayofweek = _unary("dayofweek")
sum = _unary("sum")
avg = _unary("avg")
mean = _unary("mean", "avg")
min = _unary("min")
max = _unary("max")


def count(col):
    """count("*") counts rows; count(c) counts non-null values of c."""
    return Column(native.unary("count", _to_col(col)._c))


def countDistinct(col, *cols):
    if cols:
        raise not_supported("countDistinct over several columns")
    return Column(native.unary("count_distinct", _to_col(col)._c))


count_distinct = countDistinct


def first(col, ignorenulls=False):
    if ignorenulls:
        raise not_supported("first(..., ignorenulls=True)")
    return Column(native.unary("first", _to_col(col)._c))


def last(col, ignorenulls=False):
    if ignorenulls:
        raise not_supported("last(..., ignorenulls=True)")
    return Column(native.unary("last", _to_col(col)._c))


def concat(*cols):
    return Column(native.concat([_to_col(c)._c for c in cols]))


def substring(str, pos, len):
    return Column(native.substring(_to_col(str)._c, pos, len))


def to_timestamp(col, format=None):
    if format is None:
        return Column(native.unary("to_timestamp", _to_col(col)._c))
    return Column(native.to_timestamp_format(_to_col(col)._c, format))


def date_trunc(format, timestamp):
    return Column(native.date_trunc(format, _to_col(timestamp)._c))


def window(timeColumn, windowDuration, slideDuration=None, startTime=None):
    """An event-time window for groupBy: its result columns are window_start and window_end
    (PySpark returns one struct column `window`; see docs/python.md)."""
    if startTime is not None:
        raise not_supported("window(..., startTime=...)")
    time = _to_col(timeColumn)._c
    if slideDuration is None:
        return Column(native.window(time, windowDuration))
    return Column(native.sliding_window(time, windowDuration, slideDuration))


def session_window(timeColumn, gapDuration):
    if isinstance(gapDuration, Column):
        raise not_supported("session_window with a dynamic gap")
    return Column(native.session_window(_to_col(timeColumn)._c, gapDuration))


def isnull(col):
    return _to_col(col).isNull()


def isnotnull(col):
    return _to_col(col).isNotNull()


def abs(col):  # noqa: A001 - PySpark's name
    c = _to_col(col)
    return when(c < 0, -c).otherwise(c)

