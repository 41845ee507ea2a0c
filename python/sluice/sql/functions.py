"""PySpark's pyspark.sql.functions, for the functions sluice has (docs/python.md lists them).

Arguments follow PySpark: a Column or a column name where PySpark takes "col", a Python
value where it takes a literal. Most functions are the SQL function of the same name
(native.call), so they mean exactly what they mean in a sluice SQL pipeline; tests/python/
test_functions.py checks that every SQL function is wrapped here or is not in PySpark.
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


def trim(col, trim=None):
    if trim is not None:
        raise not_supported("trim(col, trim)")
    return Column(native.unary("trim", _to_col(col)._c))

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





# ---- The SQL functions under PySpark's names and signatures --------------------------------
# Argument conventions (PySpark's): "ColumnOrName" -> _to_col (a str is a column name); a
# literal parameter (format, pattern, path, ...) -> _lit (a Column is taken as is); a
# "ColumnOrName or number" parameter -> _col_or_value.

def _call(name, *args):
    return Column(native.call(name, [a._c for a in args]))


def _col_or_value(value):
    """A Column or a column name stays a column; any other value is a literal."""
    return _to_col(value) if isinstance(value, (Column, str)) else _lit(value)


def _cols(cols):
    """*cols that may also be given as one list (array, struct)."""
    if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
        cols = cols[0]
    return [_to_col(c) for c in cols]


def _refuse_if(given, what):
    if given:
        raise not_supported(what)


def _one_arg(name):
    def fn(col):
        return _call(name, _to_col(col))
    fn.__name__ = name
    fn.__doc__ = f"PySpark's {name}(col): SQL's {name}()."
    return fn


def _one_str_arg(name):
    def fn(str):  # noqa: A002 - PySpark's parameter name
        return _call(name, _to_col(str))
    fn.__name__ = name
    fn.__doc__ = f"PySpark's {name}(str): SQL's {name}()."
    return fn


for _name in ("abs", "sqrt", "exp", "ln", "log10", "sign", "signum", "initcap", "reverse", "md5", "base64",
              "unbase64", "timestamp_seconds", "timestamp_millis", "size", "cardinality", "map_keys", "map_values",
              "explode", "explode_outer", "posexplode", "posexplode_outer", "day",
              "count_if", "bool_and", "every", "bool_or", "stddev", "std", "stddev_samp", "stddev_pop",
              "variance", "var_samp", "var_pop", "collect_list", "array_agg", "collect_set"):
    globals()[_name] = _one_arg(_name)
for _name in ("char_length", "character_length"):
    globals()[_name] = _one_str_arg(_name)
del _name


def _scaled(name):
    def fn(col, scale=None):
        if scale is None:
            return _call(name, _to_col(col))
        return _call(name, _to_col(col), _lit(scale))
    fn.__name__ = name
    fn.__doc__ = f"PySpark's {name}(col, scale=None)."
    return fn


round = _scaled("round")  # noqa: A001
bround = _scaled("bround")


def _no_scale(name):
    def fn(col, scale=None):
        _refuse_if(scale is not None, f"{name}(col, scale)")
        return _call(name, _to_col(col))
    fn.__name__ = name
    return fn


floor = _no_scale("floor")
ceil = _no_scale("ceil")
ceiling = _no_scale("ceiling")


def pow(col1, col2):  # noqa: A001
    return _call("pow", _col_or_value(col1), _col_or_value(col2))


power = pow


def pmod(dividend, divisor):
    return _call("pmod", _col_or_value(dividend), _col_or_value(divisor))


def log(arg1, arg2=None):
    """log(col): the natural logarithm; log(base, col): the logarithm in `base`."""
    if arg2 is None:
        return _call("ln", _to_col(arg1))
    return _call("log", _col_or_value(arg1), _to_col(arg2))


def greatest(*cols):
    return _call("greatest", *_cols(cols))


def least(*cols):
    return _call("least", *_cols(cols))


def nullif(col1, col2):
    return _call("nullif", _to_col(col1), _to_col(col2))


def nvl(col1, col2):
    return _call("nvl", _to_col(col1), _to_col(col2))


def ifnull(col1, col2):
    return _call("ifnull", _to_col(col1), _to_col(col2))


def nvl2(col1, col2, col3):
    return _call("nvl2", _to_col(col1), _to_col(col2), _to_col(col3))


# Strings.

def concat_ws(sep, *cols):
    return _call("concat_ws", _lit(sep), *_cols(cols))


def format_string(format, *cols):  # noqa: A002
    return _call("format_string", _lit(format), *_cols(cols))


def printf(format, *cols):  # noqa: A002
    return _call("printf", _to_col(format), *_cols(cols))


def _trim(name):
    def fn(col, trim=None):
        _refuse_if(trim is not None, f"{name}(col, trim)")
        return _call(name, _to_col(col))
    fn.__name__ = name
    return fn


ltrim = _trim("ltrim")
rtrim = _trim("rtrim")


def instr(str, substr, start=None, occurrence=None):  # noqa: A002
    _refuse_if(start is not None or occurrence is not None, "instr(..., start, occurrence)")
    return _call("instr", _to_col(str), _lit(substr))


def locate(substr, str, pos=1):  # noqa: A002
    return _call("locate", _lit(substr), _to_col(str), _lit(pos))


def position(substr, str, start=None):  # noqa: A002
    args = [_to_col(substr), _to_col(str)] + ([] if start is None else [_to_col(start)])
    return _call("locate", *args)


def lpad(col, len, pad):  # noqa: A002
    return _call("lpad", _to_col(col), _lit(len), _lit(pad))


def rpad(col, len, pad):  # noqa: A002
    return _call("rpad", _to_col(col), _lit(len), _lit(pad))


def repeat(col, n):
    return _call("repeat", _to_col(col), _col_or_value(n))


def left(str, len):  # noqa: A002
    return _call("left", _to_col(str), _to_col(len))


def right(str, len):  # noqa: A002
    return _call("right", _to_col(str), _to_col(len))


def replace(src, search, replace=None):
    args = [_to_col(src), _to_col(search)] + ([] if replace is None else [_to_col(replace)])
    return _call("replace", *args)


def split(str, pattern, limit=-1):  # noqa: A002
    return _call("split", _to_col(str), _lit(pattern), _col_or_value(limit))


def split_part(src, delimiter, partNum):
    return _call("split_part", _to_col(src), _to_col(delimiter), _to_col(partNum))


def regexp_replace(string, pattern, replacement, position=None):
    _refuse_if(position is not None, "regexp_replace(..., position)")
    return _call("regexp_replace", _to_col(string), _lit(pattern), _lit(replacement))


def regexp_extract(str, pattern, idx):  # noqa: A002
    return _call("regexp_extract", _to_col(str), _lit(pattern), _lit(idx))


def _regexp(name):
    def fn(str, regexp):  # noqa: A002
        return _call(name, _to_col(str), _to_col(regexp))
    fn.__name__ = name
    return fn


regexp_like = _regexp("regexp_like")
rlike = _regexp("rlike")
regexp = _regexp("regexp")


def sha2(col, numBits):
    return _call("sha2", _to_col(col), _lit(numBits))


def substr(str, pos, len=None):  # noqa: A002
    args = [_to_col(str), _to_col(pos)] + ([] if len is None else [_to_col(len)])
    return _call("substr", *args)


# Dates and times.

def last_day(date):
    return _call("last_day", _to_col(date))


def to_date(col, format=None):  # noqa: A002
    if format is None:
        return _call("to_date", _to_col(col))
    return _call("to_date", _to_col(col), _lit(format))


def date_format(date, format):  # noqa: A002
    return _call("date_format", _to_col(date), _lit(format))


def date_add(start, days):
    return _call("date_add", _to_col(start), _col_or_value(days))


def date_sub(start, days):
    return _call("date_sub", _to_col(start), _col_or_value(days))


def add_months(start, months):
    return _call("add_months", _to_col(start), _col_or_value(months))


def datediff(end, start):
    return _call("datediff", _to_col(end), _to_col(start))


def current_date():
    """The date of the micro-batch's timestamp (one value per batch, the same on a redo)."""
    return _call("current_date")


def current_timestamp():
    """The micro-batch's timestamp, recorded in its offsets log entry (the same on a redo)."""
    return _call("current_timestamp")


def now():
    return _call("now")


def unix_timestamp(timestamp=None, format="yyyy-MM-dd HH:mm:ss"):  # noqa: A002
    _refuse_if(timestamp is None, "unix_timestamp() without a column (the current time)")
    return _call("unix_timestamp", _to_col(timestamp), _lit(format))


def from_unixtime(timestamp, format="yyyy-MM-dd HH:mm:ss"):  # noqa: A002
    return _call("from_unixtime", _to_col(timestamp), _lit(format))


def make_date(year, month, day):
    return _call("make_date", _to_col(year), _to_col(month), _to_col(day))


def make_timestamp(years=None, months=None, days=None, hours=None, mins=None, secs=None, timezone=None, date=None,
                   time=None):
    _refuse_if(timezone is not None or date is not None or time is not None,
               "make_timestamp(..., timezone/date/time)")
    parts = (years, months, days, hours, mins, secs)
    _refuse_if(any(p is None for p in parts), "make_timestamp without all six of years .. secs")
    return _call("make_timestamp", *[_to_col(p) for p in parts])


def to_utc_timestamp(timestamp, tz):
    return _call("to_utc_timestamp", _to_col(timestamp), _lit(tz))


def from_utc_timestamp(timestamp, tz):
    return _call("from_utc_timestamp", _to_col(timestamp), _lit(tz))


def trunc(date, format):  # noqa: A002
    return _call("trunc", _to_col(date), _lit(format))


def date_part(field, source):
    return _call("date_part", _lit(field), _to_col(source))


def extract(field, source):
    return _call("extract", _lit(field), _to_col(source))


# Nested values and JSON.

def array(*cols):
    return _call("array", *_cols(cols))


def struct(*cols):
    return _call("struct", *_cols(cols))


def named_struct(*cols):
    return _call("named_struct", *[_to_col(c) for c in cols])


def element_at(col, extraction):
    return _call("element_at", _to_col(col), _lit(extraction))


def array_contains(col, value):
    return _call("array_contains", _to_col(col), _lit(value))


def map_contains_key(col, value):
    return _call("map_contains_key", _to_col(col), _lit(value))


def get_json_object(col, path):
    return _call("get_json_object", _to_col(col), _lit(path))


def from_json(col, schema, options=None):
    """schema: a DDL string or a StructType (sluice's from_json takes a struct schema)."""
    _refuse_if(options, "from_json(..., options)")
    if hasattr(schema, "toDDL"):
        schema = schema.toDDL()
    return _call("from_json", _to_col(col), _lit(schema))


def to_json(col, options=None):
    _refuse_if(options, "to_json(..., options)")
    return _call("to_json", _to_col(col))


# Aggregates beyond those above.

def any_value(col, ignoreNulls=None):
    _refuse_if(ignoreNulls, "any_value(..., ignoreNulls=True)")
    return _call("any_value", _to_col(col))


def _by(name):
    def fn(col, ord, k=None):  # noqa: A002
        _refuse_if(k is not None, f"{name}(..., k)")
        return _call(name, _to_col(col), _to_col(ord))
    fn.__name__ = name
    return fn


max_by = _by("max_by")
min_by = _by("min_by")


def approx_count_distinct(col, rsd=None):
    if rsd is None:
        return _call("approx_count_distinct", _to_col(col))
    return _call("approx_count_distinct", _to_col(col), _lit(rsd))


def percentile_approx(col, percentage, accuracy=10000):
    if isinstance(percentage, (list, tuple)):
        percentage = array(*[_lit(p) for p in percentage])
    return _call("percentile_approx", _to_col(col), _lit(percentage), _lit(accuracy))


approx_percentile = percentile_approx

# SQL function names sluice accepts that pyspark.sql.functions does not have (or has as a method
# or operator): each with what to use in Python. tests/python/test_functions.py reads this.
NOT_IN_PYSPARK = {
    "if": "F.when(cond, a).otherwise(b)",
    "mod": "the % operator",
    "get_field": "Column.getField / col['name']",
    "get_item": "Column.getItem / col[i]",
    "add_interval": "F.expr(\"ts + INTERVAL 1 HOUR\")",
    "tumble": "F.window (Flink's spelling in SQL)",
    "hop": "F.window with a slide (Flink's spelling in SQL)",
    "session": "F.session_window (Flink's spelling in SQL)",
}
