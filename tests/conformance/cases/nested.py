"""Arrays, structs, generators (explode) and the JSON functions against PySpark."""
from harness import Case

from cases.expressions import ANSI_OFF

SCHEMA_N = "id BIGINT, s STRING, j STRING"
ROWS_N = [[
    {"id": 1, "s": "a,b,,c", "j": '{"a": 1, "b": "x", "arr": [10, 20], "o": {"c": true}}'},
    {"id": 2, "s": "hello world", "j": '{"a": "no", "b": 2.5}'},
    {"id": 3, "s": None, "j": "not json"},
    {"id": 4, "s": "", "j": None},
    {"id": 5, "s": "b", "j": '{"b": {"c": [1, 2]}, "a": 7}'},
]]


def ncase(case_id, select, where=None, **kw):
    sql = f"SELECT id, {select} FROM src" + (f" WHERE {where}" if where else "")
    return Case(case_id, sql, ROWS_N, schema=SCHEMA_N, **kw)


CASES = [
    # structs
    ncase("nested-struct", "struct(id, s) AS st, named_struct('n', id + 1, 'u', upper(s)) AS ns", smoke=True),
    ncase("nested-field-access", "(named_struct('n', id, 'u', upper(s))).u AS u, "
          "(named_struct('n', id, 'u', s))['n'] AS n"),
    # arrays
    ncase("nested-array", "array(id, 2, NULL) AS a, array(s, 'z') AS b, size(array(id, id)) AS c", smoke=True),
    ncase("nested-split", "split(s, ',') AS a, split(s, ',', 2) AS b, split(s, '[, ]') AS c, size(split(s, ',')) AS n"),
    ncase("nested-element-at", "element_at(split(s, ','), 1) AS a, element_at(split(s, ','), -1) AS b, "
          "(split(s, ','))[0] AS c, cardinality(split(s, ',')) AS n"),
    ncase("nested-element-at-out-of-range-legacy", "element_at(split(s, ','), 3) AS a, (split(s, ','))[5] AS b, "
          "size(split(s, ',')) AS n", conf=ANSI_OFF),
    ncase("nested-element-at-out-of-range-ansi", "element_at(split(s, ','), 9) AS a", where="s IS NOT NULL",
          error="INVALID_ARRAY_INDEX_IN_ELEMENT_AT"),
    ncase("nested-array-contains", "array_contains(split(s, ','), 'b') AS a, array_contains(array(1, NULL), id) AS b, "
          "array_contains(array(1, 2), 2) AS c"),
    # generators
    Case("nested-explode", "SELECT id, explode(split(s, ',')) AS w FROM src", ROWS_N, schema=SCHEMA_N, smoke=True),
    Case("nested-explode-outer", "SELECT id, explode_outer(split(s, ' ')) AS w FROM src", ROWS_N, schema=SCHEMA_N),
    Case("nested-posexplode", "SELECT posexplode(split(s, ',')), id FROM src", ROWS_N, schema=SCHEMA_N),
    Case("nested-posexplode-aliases", "SELECT id, posexplode(split(s, ',')) AS (p, w) FROM src", ROWS_N,
         schema=SCHEMA_N),
    Case("nested-alias-list-not-a-generator", "SELECT upper(s) AS (u) FROM src", ROWS_N, schema=SCHEMA_N,
         error="syntax error"),
    Case("nested-explode-alias-list-one", "SELECT id, explode(split(s, ',')) AS (w) FROM src", ROWS_N,
         schema=SCHEMA_N),
    Case("nested-lateral-view", "SELECT id, w FROM src LATERAL VIEW explode(split(s, ',')) t AS w", ROWS_N,
         schema=SCHEMA_N),
    Case("nested-explode-array", "SELECT id, explode(array(id, id * 10)) FROM src WHERE id < 3", ROWS_N,
         schema=SCHEMA_N),
    # JSON
    ncase("json-from-json", "(from_json(j, 'a INT, b STRING')).a AS a, (from_json(j, 'a INT, b STRING')).b AS b, "
          "from_json(j, 'a BIGINT, b DOUBLE, missing STRING') AS st", smoke=True),
    ncase("json-to-json", "to_json(named_struct('id', id, 's', s)) AS a, to_json(struct(id, split(s, ','))) AS b, "
          "to_json(array(id, 2)) AS c"),
    ncase("json-get-json-object", "get_json_object(j, '$.a') AS a, get_json_object(j, '$.arr[1]') AS b, "
          "get_json_object(j, '$.o') AS c, get_json_object(j, '$.b.c[0]') AS d, get_json_object(j, '$.missing') AS e",
          smoke=True),
    ncase("json-get-json-object-wildcard", "get_json_object(j, '$.arr[*]') AS a", where="id = 1"),
]

# Nested column types declared in CREATE TABLE (Spark's DDL spelling), read from JSON files.
SCHEMA_NESTED = "id BIGINT, tags ARRAY<STRING>, addr STRUCT<city: STRING, zip: INT>, pts ARRAY<STRUCT<x: BIGINT>>"
ROWS_NESTED = [
    [{"id": 1, "tags": ["a", "b"], "addr": {"city": "Oslo", "zip": 150}, "pts": [{"x": 1}, {"x": 2}]},
     {"id": 2, "tags": [], "addr": None, "pts": None}],
    [{"id": 3, "tags": None, "addr": {"city": None, "zip": 7}, "pts": [{"x": None}]}],
]
CASES += [
    Case("nested-declared-array-struct-columns", "SELECT id, tags, addr, pts FROM src", ROWS_NESTED,
         schema=SCHEMA_NESTED),
    Case("nested-declared-columns-used", "SELECT id, size(tags) AS n, addr.city AS city, addr.zip + 1 AS z, "
         "element_at(tags, 1) AS first_tag FROM src", ROWS_NESTED, schema=SCHEMA_NESTED, conf=ANSI_OFF),
    Case("nested-declared-explode", "SELECT id, explode(tags) AS tag FROM src", ROWS_NESTED, schema=SCHEMA_NESTED),
]
