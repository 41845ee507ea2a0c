"""PySpark's Column over the engine's column expressions."""
import datetime
import decimal

from sluice._native import native
from sluice.errors import PySparkTypeError, PySparkValueError, not_supported
from sluice.sql.types import DataType


def _lit(value):
    if isinstance(value, Column):
        return value
    if value is None:
        return Column(native.lit_null("string"))
    if isinstance(value, bool):
        return Column(native.lit_bool(value))
    if isinstance(value, int):
        return Column(native.lit_int(value))
    if isinstance(value, (float, decimal.Decimal)):
        return Column(native.lit_float(float(value)))
    if isinstance(value, str):
        return Column(native.lit_str(value))
    if isinstance(value, datetime.datetime):
        return Column(native.lit_str(value.isoformat(sep=" "))).cast("timestamp")
    if isinstance(value, datetime.date):
        return Column(native.lit_str(value.isoformat())).cast("date")
    raise PySparkTypeError(f"unsupported literal type {type(value).__name__}: {value!r}")


def _to_col(value):
    """A function argument: a Column, or a column name (PySpark's convention)."""
    if isinstance(value, Column):
        return value
    if isinstance(value, str):
        return Column(native.col(value))
    raise PySparkTypeError(f"expected a Column or a column name, got {type(value).__name__}: {value!r}")


def _binary(op, reflected=False):
    def method(self, other):
        other = _lit(other)
        a, b = (other, self) if reflected else (self, other)
        return Column(native.binary(op, a._c, b._c))
    return method


class Column:
    """An expression over a DataFrame's columns; build them with sluice.sql.functions."""

    def __init__(self, native_column):
        self._c = native_column

    __add__ = _binary("+")
    __radd__ = _binary("+", True)
    __sub__ = _binary("-")
    __rsub__ = _binary("-", True)
    __mul__ = _binary("*")
    __rmul__ = _binary("*", True)
    __truediv__ = _binary("/")
    __rtruediv__ = _binary("/", True)
    __mod__ = _binary("%")
    __rmod__ = _binary("%", True)
    __eq__ = _binary("=")
    __ne__ = _binary("!=")
    __lt__ = _binary("<")
    __le__ = _binary("<=")
    __gt__ = _binary(">")
    __ge__ = _binary(">=")
    __and__ = _binary("and")
    __rand__ = _binary("and", True)
    __or__ = _binary("or")
    __ror__ = _binary("or", True)

    def __neg__(self):
        return Column(native.unary("negative", self._c))

    def __invert__(self):
        return Column(native.unary("not", self._c))

    def __bool__(self):
        raise PySparkValueError("Cannot convert column into bool: please use '&' for 'and', '|' for 'or', "
                                "'~' for 'not' when building DataFrame boolean expressions.")

    __hash__ = None

    def alias(self, *names, **kwargs):
        if len(names) != 1:
            raise PySparkValueError("alias takes exactly one name in sluice")
        return Column(self._c.alias(names[0]))

    name = alias

    def cast(self, dataType):
        type_name = dataType.simpleString() if isinstance(dataType, DataType) else str(dataType)
        return Column(self._c.cast(type_name))

    astype = cast

    def isNull(self):
        return Column(self._c.is_null())

    def isNotNull(self):
        return Column(self._c.is_not_null())

    def isin(self, *values):
        if len(values) == 1 and isinstance(values[0], (list, tuple, set)):
            values = tuple(values[0])
        return Column(self._c.isin([_lit(v)._c for v in values]))

    def eqNullSafe(self, other):
        raise not_supported("eqNullSafe (null-safe equality, SQL's '<=>'; in a join a NULL key never matches: "
                            "compare coalesced columns instead)")

    def like(self, pattern):
        return Column(self._c.like(pattern))

    def between(self, lowerBound, upperBound):
        return (self >= lowerBound) & (self <= upperBound)

    def startswith(self, prefix):
        return self.like(_escape_like(prefix) + "%")

    def endswith(self, suffix):
        return self.like("%" + _escape_like(suffix))

    def contains(self, other):
        return self.like("%" + _escape_like(other) + "%")

    def when(self, condition, value):
        return Column(self._c.when(_to_bool(condition)._c, _lit(value)._c))

    def otherwise(self, value):
        return Column(self._c.otherwise(_lit(value)._c))

    def __str__(self):
        return str(self._c)

    def __repr__(self):
        return f"Column<'{self._c}'>"


def _to_bool(condition):
    if not isinstance(condition, Column):
        raise PySparkTypeError(f"condition should be a Column, got {type(condition).__name__}")
    return condition


def _escape_like(text):
    if not isinstance(text, str):
        raise PySparkTypeError("startswith/endswith/contains take a string in sluice")
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
