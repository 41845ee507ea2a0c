"""PySpark's data types (pyspark.sql.types) and their Arrow / DDL forms.

A StructType given to ``schema(...)`` travels to the engine as a DDL string; a DataFrame's
schema comes back from the engine's Arrow schema.
"""
import pyarrow as pa


class DataType:
    _name = None  # the DDL / simpleString name

    def simpleString(self):
        return self._name

    def typeName(self):
        return getattr(self, "_type_name", self._name)

    def __repr__(self):
        return f"{type(self).__name__}()"

    def __eq__(self, other):
        return type(self) is type(other) and self.__dict__ == other.__dict__

    def __hash__(self):
        return hash(repr(self))


class _Atomic(DataType):
    pass


class StringType(_Atomic):
    _name = "string"


class BinaryType(_Atomic):
    _name = "binary"


class BooleanType(_Atomic):
    _name = "boolean"


class ByteType(_Atomic):
    _type_name = "byte"
    _name = "tinyint"


class ShortType(_Atomic):
    _type_name = "short"
    _name = "smallint"


class IntegerType(_Atomic):
    _type_name = "integer"
    _name = "int"


class LongType(_Atomic):
    _type_name = "long"
    _name = "bigint"


class FloatType(_Atomic):
    _name = "float"


class DoubleType(_Atomic):
    _name = "double"


class DateType(_Atomic):
    _name = "date"


class TimestampType(_Atomic):
    _name = "timestamp"


class TimestampNTZType(_Atomic):
    _name = "timestamp_ntz"


class NullType(_Atomic):
    _name = "void"


class DecimalType(DataType):
    def __init__(self, precision=10, scale=0):
        self.precision = precision
        self.scale = scale

    def simpleString(self):
        return f"decimal({self.precision},{self.scale})"

    typeName = simpleString

    def __repr__(self):
        return f"DecimalType({self.precision}, {self.scale})"


class ArrayType(DataType):
    _name = "array"

    def __init__(self, elementType, containsNull=True):
        self.elementType = elementType
        self.containsNull = containsNull

    def simpleString(self):
        return f"array<{self.elementType.simpleString()}>"

    def __repr__(self):
        return f"ArrayType({self.elementType!r}, {self.containsNull})"


class MapType(DataType):
    _name = "map"

    def __init__(self, keyType, valueType, valueContainsNull=True):
        self.keyType = keyType
        self.valueType = valueType
        self.valueContainsNull = valueContainsNull

    def simpleString(self):
        return f"map<{self.keyType.simpleString()},{self.valueType.simpleString()}>"

    def __repr__(self):
        return f"MapType({self.keyType!r}, {self.valueType!r}, {self.valueContainsNull})"


def _tree(data_type, prefix, lines):
    """The lines printSchema writes below a field of `data_type`, as PySpark writes them."""
    if isinstance(data_type, StructType):
        for f in data_type.fields:
            lines.append(f"{prefix}-- {f.name}: {f.dataType.typeName()} (nullable = {str(f.nullable).lower()})")
            _tree(f.dataType, prefix + "    |", lines)
    elif isinstance(data_type, ArrayType):
        lines.append(f"{prefix}-- element: {data_type.elementType.typeName()} "
                     f"(containsNull = {str(data_type.containsNull).lower()})")
        _tree(data_type.elementType, prefix + "    |", lines)
    elif isinstance(data_type, MapType):
        lines.append(f"{prefix}-- key: {data_type.keyType.typeName()}")
        _tree(data_type.keyType, prefix + "    |", lines)
        lines.append(f"{prefix}-- value: {data_type.valueType.typeName()} "
                     f"(valueContainsNull = {str(data_type.valueContainsNull).lower()})")
        _tree(data_type.valueType, prefix + "    |", lines)


class StructField:
    def __init__(self, name, dataType, nullable=True, metadata=None):
        self.name = name
        self.dataType = dataType
        self.nullable = nullable
        self.metadata = metadata or {}

    def simpleString(self):
        return f"{self.name}:{self.dataType.simpleString()}"

    def __repr__(self):
        return f"StructField('{self.name}', {self.dataType!r}, {self.nullable})"

    def __eq__(self, other):
        return isinstance(other, StructField) and (self.name, self.dataType, self.nullable) == (
            other.name, other.dataType, other.nullable)


class StructType(DataType):
    _name = "struct"

    def __init__(self, fields=None):
        self.fields = list(fields or [])

    def add(self, field, data_type=None, nullable=True, metadata=None):
        if isinstance(field, StructField):
            self.fields.append(field)
        else:
            if isinstance(data_type, str):
                data_type = _type_from_name(data_type)
            self.fields.append(StructField(field, data_type, nullable, metadata))
        return self

    @property
    def names(self):
        return [f.name for f in self.fields]

    def fieldNames(self):
        return self.names

    def __iter__(self):
        return iter(self.fields)

    def __len__(self):
        return len(self.fields)

    def __getitem__(self, key):
        if isinstance(key, str):
            for f in self.fields:
                if f.name == key:
                    return f
            raise KeyError(f"No StructField named {key}")
        return self.fields[key]

    def simpleString(self):
        return "struct<" + ",".join(f.simpleString() for f in self.fields) + ">"

    def toDDL(self):
        """The engine's schema text: "id BIGINT, name STRING"."""
        for f in self.fields:
            if not isinstance(f.dataType, (_Atomic, DecimalType)):
                raise TypeError(f"field '{f.name}': nested types ({f.dataType!r}) are not supported by sluice yet")
        return ", ".join(f"{f.name} {f.dataType.simpleString().upper()}" for f in self.fields)

    def treeString(self):
        lines = ["root"]
        _tree(self, " |", lines)
        return "\n".join(lines) + "\n"

    def __repr__(self):
        return "StructType([" + ", ".join(repr(f) for f in self.fields) + "])"


_BY_NAME = {t._name: t for t in (StringType, BinaryType, BooleanType, ByteType, ShortType, IntegerType, LongType,
                                 FloatType, DoubleType, DateType, TimestampType, TimestampNTZType, NullType)}
_BY_NAME.update({"long": LongType, "integer": IntegerType, "short": ShortType, "byte": ByteType})


def _type_from_name(name):
    n = name.strip().lower()
    if n.startswith("decimal"):
        inner = n[len("decimal"):].strip("() ")
        parts = [int(p) for p in inner.split(",")] if inner else [10, 0]
        return DecimalType(*parts)
    if n not in _BY_NAME:
        raise ValueError(f"unknown type name '{name}'")
    return _BY_NAME[n]()


def from_arrow_type(t):
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return StringType()
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return BinaryType()
    if pa.types.is_boolean(t):
        return BooleanType()
    for width, cls in ((8, ByteType), (16, ShortType), (32, IntegerType), (64, LongType)):
        if pa.types.is_integer(t) and t.bit_width == width:
            return cls()
    if pa.types.is_float32(t):
        return FloatType()
    if pa.types.is_float64(t):
        return DoubleType()
    if pa.types.is_date(t):
        return DateType()
    if pa.types.is_timestamp(t):
        return TimestampType() if t.tz else TimestampNTZType()
    if pa.types.is_decimal(t):
        return DecimalType(t.precision, t.scale)
    if pa.types.is_null(t):
        return NullType()
    if pa.types.is_struct(t):
        return StructType([StructField(f.name, from_arrow_type(f.type), f.nullable) for f in t])
    if pa.types.is_map(t):
        return MapType(from_arrow_type(t.key_type), from_arrow_type(t.item_type), t.item_field.nullable)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return ArrayType(from_arrow_type(t.value_type), t.value_field.nullable)
    raise TypeError(f"Arrow type {t} has no sluice.sql.types equivalent yet")


def from_arrow_value(value, t):
    """A value of pyarrow's to_pylist() as PySpark's collect() gives it: a struct as a Row, an
    array as a list, a map as a dict."""
    if value is None:
        return None
    if pa.types.is_struct(t):
        return Row._make([f.name for f in t], [from_arrow_value(value[f.name], f.type) for f in t])
    if pa.types.is_map(t):
        return {from_arrow_value(k, t.key_type): from_arrow_value(v, t.item_type) for k, v in value}
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [from_arrow_value(v, t.value_type) for v in value]
    return value


def from_arrow_schema(schema):
    return StructType([StructField(f.name, from_arrow_type(f.type), f.nullable) for f in schema])


class Row(tuple):
    """A result row: a tuple whose values are also reachable by field name (row.id, row["id"])."""

    def __new__(cls, *args, **kwargs):
        if kwargs:
            row = tuple.__new__(cls, kwargs.values())
            row.__fields__ = list(kwargs)
            return row
        row = tuple.__new__(cls, args)
        row.__fields__ = None
        return row

    @classmethod
    def _make(cls, names, values):
        row = tuple.__new__(cls, values)
        row.__fields__ = list(names)
        return row

    def asDict(self, recursive=False):
        return dict(zip(self.__fields__ or [], self))

    def __getattr__(self, name):
        fields = self.__dict__.get("__fields__") or []
        if name in fields:
            return self[fields.index(name)]
        raise AttributeError(name)

    def __getitem__(self, key):
        if isinstance(key, str):
            return tuple.__getitem__(self, (self.__fields__ or []).index(key))
        return tuple.__getitem__(self, key)

    def __repr__(self):
        if self.__fields__:
            return "Row(" + ", ".join(f"{k}={v!r}" for k, v in zip(self.__fields__, self)) + ")"
        return "<Row(" + ", ".join(repr(v) for v in self) + ")>"
