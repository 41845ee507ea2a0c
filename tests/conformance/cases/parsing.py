"""JSON, CSV and text parsing: parse modes, malformed records, missing/extra fields, types."""
from harness import Case

JSCHEMA = "id BIGINT, v BIGINT, s STRING, ts TIMESTAMP"
CORRUPT_SCHEMA = JSCHEMA + ", _corrupt_record STRING"
ALL = "SELECT * FROM src"


def js(case_id, *files, schema=JSCHEMA, sql=ALL, **kw):
    return Case(case_id, sql, list(files), schema=schema, fmt="json", **kw)


def csv(case_id, *files, schema="id BIGINT, v BIGINT, s STRING", sql=ALL, **kw):
    return Case(case_id, sql, list(files), schema=schema, fmt="csv", **kw)


GOOD = '{"id":1,"v":10,"s":"a","ts":"2024-01-01 00:00:01"}\n'
BAD_FIELD = '{"id":2,"v":"four","s":"b","ts":"2024-01-01 00:00:02"}\n'
NOT_JSON = 'this is not json\n'
# A string with a byte that is not UTF-8: Spark's JSON parser rejects the record; its CSV reader
# decodes the line with U+FFFD in its place.
NOT_UTF8 = b'{"id":2,"v":20,"s":"b\xffc","ts":"2024-01-01 00:00:02"}\n'

MAP_SCHEMA = "id BIGINT, m MAP<STRING, INT>, t STRING, _corrupt_record STRING"
MAPS = ('{"id":1,"m":{"b":1,"a":null,"c":3},"t":"x"}\n{"id":2,"m":null}\n{"id":3}\n{"id":4,"m":{}}\n')
BAD_MAPS = ('{"id":5,"m":{"a":"x","b":2},"t":"kept"}\n{"id":6,"m":[1],"t":"kept"}\n{"id":7,"m":"s"}\n'
            '{"id":8,"m":{"a":1}}\n')

CASES = [
    js("json-well-formed", GOOD + '{"id":3,"v":null,"s":null,"ts":null}\n', GOOD),
    js("json-missing-and-extra-fields", '{"id":1,"extra":true}\n{"s":"only s"}\n'),
    js("json-field-order-and-case", '{"ts":"2024-01-01T00:00:00Z","s":"x","v":2,"id":1}\n'),
    js("json-permissive-bad-field", GOOD + BAD_FIELD, smoke=True),
    js("json-permissive-bad-field-corrupt-column", GOOD + BAD_FIELD, schema=CORRUPT_SCHEMA),
    js("json-permissive-not-json", GOOD + NOT_JSON, schema=CORRUPT_SCHEMA, smoke=True),
    js("json-permissive-not-json-no-corrupt-column", GOOD + NOT_JSON),
    js("json-dropmalformed", GOOD + NOT_JSON + BAD_FIELD, options={"mode": "DROPMALFORMED"}),
    js("json-failfast", GOOD + NOT_JSON, options={"mode": "FAILFAST"}, error="Malformed"),
    js("json-number-for-string", '{"id":1,"s":12}\n{"id":2,"s":true}\n'),
    js("json-string-for-number", '{"id":1,"v":"12"}\n'),
    js("json-float-for-bigint", '{"id":1,"v":1.5}\n'),
    js("json-bigint-overflow", '{"id":1,"v":12345678901234567890}\n'),
    js("json-bool-and-double", '{"id":1,"b":true,"d":1.25}\n{"id":2,"b":"yes","d":"x"}\n',
       schema="id BIGINT, b BOOLEAN, d DOUBLE"),
    js("json-decimal-column", '{"id":1,"x":1.25}\n{"id":2,"x":"3.5"}\n', schema="id BIGINT, x DECIMAL(5,2)"),
    js("json-date-column", '{"id":1,"day":"2024-02-29"}\n{"id":2,"day":"bad"}\n', schema="id BIGINT, day DATE"),
    js("json-timestamp-formats", '{"id":1,"ts":"2024-01-01T10:00:00"}\n{"id":2,"ts":"2024-01-01 10:00:00.5"}\n'
       '{"id":3,"ts":"2024-01-01T10:00:00.123+01:00"}\n'),
    js("json-timestamp-nanos", '{"id":1,"ts":"2024-01-01 10:00:00.123456789"}\n'),
    js("json-timestamp-bad", '{"id":1,"ts":"yesterday","s":"kept"}\n'),
    js("json-empty-file", "", GOOD),
    js("json-blank-lines", GOOD + "\n\n" + GOOD),
    js("json-unicode", '{"id":1,"s":"h\\u00e9llo \\u2603"}\n', sql="SELECT id, s, upper(s) AS u, length(s) AS n FROM src"),
    js("json-nested-object-as-string", '{"id":1,"s":{"a":1}}\n'),
    # Any value for a STRING field: its JSON text exactly as written, at any depth.
    js("json-values-as-string-text", '{"id":1,"s":1.50}\n{"id":2,"s":1e400}\n{"id":3,"s":{ "a" : [1, "\\u00e9"] }}\n'
       '{"id":4,"s":[ ]}\n{"id":5,"s":-0}\n', smoke=True),
    js("json-values-as-string-text-nested", '{"id":1,"st":{"x":12},"l":[true,"a",null,{"b":2}]}\n',
       schema="id BIGINT, st STRUCT<x: STRING>, l ARRAY<STRING>"),
    js("json-values-as-string-bad-other-field", '{"id":1,"v":"four","s":12}\n', schema=CORRUPT_SCHEMA),
    # A line holding an array of objects: a record per object; [] none; an element that is not
    # an object makes the whole line malformed.
    js("json-top-level-array", '[{"id":1,"s":"a"},{"id":2,"s":3}]\n[]\n{"id":3}\n [ {"id":4} ] \n',
       schema=CORRUPT_SCHEMA, smoke=True),
    js("json-top-level-array-bad-element", '[{"id":1},5]\n[null]\n[[{"id":2}]]\n', schema=CORRUPT_SCHEMA),
    js("json-top-level-array-dropmalformed", '[{"id":1},{"id":2}]\n[{"id":3},5]\n',
       options={"mode": "DROPMALFORMED"}),
    js("json-top-level-array-badly-typed-field", '[{"id":"x"},{"id":2}]\n', schema=CORRUPT_SCHEMA),
    # spark.sql.streaming.schemaInference: a stream declared without a schema takes the one a batch
    # read of its directory infers when the query is defined (a restart infers it again).
    js("json-stream-schema-inference", '{"b":"x","a":1}\n', '{"a":2.5,"c":true}\n', schema=None,
       conf={"spark.sql.streaming.schemaInference": "true"}, smoke=True),
    csv("csv-stream-schema-inference", "id,v\n1,x\n", "id,v\n2.5,y\n", schema=None,
        options={"header": "true", "inferSchema": "true"}, conf={"spark.sql.streaming.schemaInference": "true"}),
    js("json-stream-without-schema", GOOD, schema=None, error="Schema must be specified"),
    # What follows a line's first value is ignored.
    js("json-trailing-content", '{"id":1} {"id":9}\n{"id":2}  xyz\n{"id":3,"s":"}"} ,\n', schema=CORRUPT_SCHEMA),
    js("json-invalid-utf8", GOOD.encode() + NOT_UTF8),
    # The malformed record's text in _corrupt_record: valid UTF-8, U+FFFD for the bad byte (Spark's
    # UTF8String decodes it so when the row leaves the JVM).
    js("json-invalid-utf8-corrupt-record", GOOD.encode() + NOT_UTF8, schema=CORRUPT_SCHEMA),
    js("json-invalid-utf8-dropmalformed", GOOD.encode() + NOT_UTF8, options={"mode": "DROPMALFORMED"}),
    js("json-invalid-utf8-failfast", GOOD.encode() + NOT_UTF8, options={"mode": "FAILFAST"}, error="Malformed"),
    # A line that is the JSON value null is a malformed record (Spark's parser rejects a null root).
    js("json-null-record", "null\n" + GOOD + " null\n", schema=CORRUPT_SCHEMA),
    js("json-null-record-dropmalformed", GOOD + "null\n", options={"mode": "DROPMALFORMED"}),
    # The simdjson reader's edge cases (docs/file-source.md), and projection pushdown: a query
    # reading id and s only does not judge v, so the record with a bad v is kept (Spark prunes too).
    js("json-pruned-bad-field-dropmalformed", GOOD + BAD_FIELD, sql="SELECT id, s FROM src",
       options={"mode": "DROPMALFORMED"}),
    js("json-duplicate-key", '{"id":1,"v":1,"v":2}\n'),
    js("json-double-out-of-range", '{"id":1,"d":1e400}\n{"id":2,"d":2.5}\n', schema="id BIGINT, d DOUBLE"),
    js("json-whitespace-crlf-no-final-newline", '  {"id" : 1 ,\t"v":2}  \r\n\r\n' + GOOD.replace("\n", "\r\n") + '{"id":3}'),
    js("json-byte-order-mark", "\ufeff" + GOOD),
    # MAP columns read from JSON objects: null values, NULL for a null or missing map, {} for an
    # empty object; a non-object or a badly typed value is malformed (PERMISSIVE keeps the record's
    # other fields); a repeated key is kept twice (map_keys shows both, m['a'] gives the first).
    # Maps compare by key here (PySpark's dicts lose the order); map_keys/map_values keep it.
    js("json-map-column", MAPS + BAD_MAPS, schema=MAP_SCHEMA),
    js("json-map-through-operators", MAPS, '{"id":7,"m":{"a":1,"a":2}}\n', schema="id BIGINT, m MAP<STRING, INT>",
       sql="SELECT id, m IS NULL AS no_map, to_json(named_struct('m', m)) AS j, named_struct('m', m) AS s FROM src "
           "WHERE id > 1"),
    js("json-map-functions", MAPS, '{"id":7,"m":{"a":1,"a":2}}\n{"id":8,"m":{"z":26,"b":null}}\n',
       schema="id BIGINT, m MAP<STRING, INT>, t STRING",
       sql="SELECT id, m['a'] AS a, m[t] AS by_column, element_at(m, 'c') AS c, map_keys(m) AS k, "
           "map_values(m) AS v, size(m) AS n, cardinality(m) AS n2, map_contains_key(m, 'b') AS has_b FROM src",
       smoke=True),
    js("json-map-functions-legacy-size", MAPS, schema="id BIGINT, m MAP<STRING, INT>",
       sql="SELECT id, size(m) AS n, element_at(m, 'zz') AS missing FROM src",
       conf={"spark.sql.ansi.enabled": "false"}),
    js("json-map-dropmalformed", MAPS + BAD_MAPS, schema="id BIGINT, m MAP<STRING, INT>, t STRING",
       options={"mode": "DROPMALFORMED"}),
    js("json-map-failfast", MAPS + BAD_MAPS, schema="id BIGINT, m MAP<STRING, INT>, t STRING",
       options={"mode": "FAILFAST"}, error="Malformed"),
    js("json-map-nested-values", '{"id":1,"a":{"x":[1,null,2],"y":null,"z":[]},"s":{"p":{"x":1,"y":"s","q":9},"r":{}},'
       '"mm":{"o":{"k":1},"n":null}}\n{"id":2,"a":{"x":[1,"two"]},"s":null,"mm":{"o":[1]}}\n',
       schema="id BIGINT, a MAP<STRING, ARRAY<INT>>, s MAP<STRING, STRUCT<x: INT, y: STRING>>, "
              "mm MAP<STRING, MAP<STRING, BIGINT>>, _corrupt_record STRING"),
    js("json-map-number-for-string", '{"id":1,"m":{"a":1,"b":"s"}}\n', schema="id BIGINT, m MAP<STRING, STRING>"),
    js("json-map-struct-value-bad-field", '{"id":1,"m":{"a":{"x":"bad","y":"s"}}}\n',
       schema="id BIGINT, m MAP<STRING, STRUCT<x: INT, y: STRING>>"),
    js("json-map-int-key", MAPS, schema="id BIGINT, m MAP<INT, STRING>", error="can only contain STRING as a key type"),
    csv("csv-invalid-utf8", b"1,10,a\xffb\n2,20,\xe2\x82\n3,30,c\n",
        sql="SELECT id, s, length(s) AS n FROM src"),
    csv("csv-by-position", "1,10,a\n2,,b\n3,30,\n"),
    csv("csv-header-by-name", "s,id,v\nx,1,10\ny,2,20\n", options={"header": "true"}),
    csv("csv-sep-semicolon", "1;10;a\n", options={"sep": ";"}),
    csv("csv-quotes", '1,10,"a,b"\n2,20,"say ""hi"""\n3,30,""\n'),
    csv("csv-permissive-bad-number", "1,ten,a\n2,20,b\n", smoke=True),
    csv("csv-permissive-corrupt-column", "1,ten,a\n2,20,b\n", schema="id BIGINT, v BIGINT, s STRING, _corrupt_record STRING"),
    csv("csv-too-few-fields", "1,10\n2\n"),
    csv("csv-too-many-fields", "1,10,a,extra\n"),
    csv("csv-dropmalformed", "1,ten,a\n2,20,b\n", options={"mode": "DROPMALFORMED"}),
    csv("csv-failfast", "1,ten,a\n", options={"mode": "FAILFAST"}, error="Malformed"),
    csv("csv-timestamp-column", "1,2024-01-01 10:00:00\n2,2024-01-01T10:00:00Z\n", schema="id BIGINT, ts TIMESTAMP"),
    csv("csv-boolean-double", "1,true,1.5\n2,false,-2\n", schema="id BIGINT, b BOOLEAN, d DOUBLE"),
    csv("csv-whitespace", "1, 10 , a \n", ),
    Case("text-lines", "SELECT value, length(value) AS n FROM src", ["one\ntwo\n\nthree", "four\r\n"],
         schema="value STRING", fmt="text"),
]
