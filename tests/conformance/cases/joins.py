"""Stream-static joins: the stream `src` joined with the static JSON table `dim` (sluice: WITH
(static = true); Spark: spark.read). Every join type Spark allows, NULL keys, duplicate keys on
the static side, a residual condition, and the dimension growing between batches (restart runs
only: a Spark file DataFrame keeps its file listing for the life of the query, while sluice
re-lists the static side at every batch, see docs/joins.md)."""
from harness import Case

SCHEMA = "k STRING, v BIGINT"
DIM = "k STRING, name STRING"

CLICKS = [[{"k": "a", "v": 1}, {"k": "b", "v": 2}, {"k": None, "v": 3}],
          [{"k": "zz", "v": 4}, {"k": "b", "v": 5}]]
USERS = {0: [{"k": "a", "name": "alice"}, {"k": "b", "name": "bob"}, {"k": "b", "name": "bobby"},
             {"k": None, "name": "nobody"}]}


def j(case_id, sql, batches=CLICKS, dims=USERS, **kw):
    return Case(case_id, sql, batches, schema=SCHEMA, dim_schema=DIM, dim_files=dims, **kw)


CASES = [
    # A WITH name or a subquery as either side of a stream-static join (planned where it is used).
    j("join-static-cte-static-side", "WITH d AS (SELECT k, upper(name) AS uname FROM dim WHERE name <> 'bobby') "
      "SELECT src.k, v, uname FROM src JOIN d ON src.k = d.k"),
    j("join-static-cte-stream-side", "WITH s AS (SELECT k, v * 2 AS v2 FROM src WHERE v > 1) "
      "SELECT s.k, v2, name FROM s LEFT JOIN dim ON s.k = dim.k"),
    j("join-static-subquery-side", "SELECT src.k, v, n FROM src JOIN (SELECT k AS dk, length(name) AS n FROM dim) c "
      "ON src.k = c.dk"),
    # A stream EXCEPT a static table fails on both engines.
    j("except-stream-static", "SELECT k FROM src EXCEPT SELECT k FROM dim", error="EXCEPT on a stream is not supported"),
    j("join-static-inner", "SELECT src.k, v, name FROM src JOIN dim ON src.k = dim.k", smoke=True),
    j("join-static-left-outer", "SELECT src.k, v, name FROM src LEFT JOIN dim ON src.k = dim.k", smoke=True),
    j("join-static-left-semi", "SELECT * FROM src LEFT SEMI JOIN dim ON src.k = dim.k"),
    j("join-static-left-anti", "SELECT * FROM src LEFT ANTI JOIN dim ON src.k = dim.k"),
    j("join-static-using", "SELECT * FROM src JOIN dim USING (k)"),
    j("join-static-residual", "SELECT src.k, v, name FROM src LEFT JOIN dim ON src.k = dim.k AND v > 1"),
    j("join-static-on-the-left-inner", "SELECT d.k, name, v FROM dim d JOIN src s ON d.k = s.k"),
    j("join-static-right-outer-stream-on-the-right", "SELECT d.k, name, v FROM dim d RIGHT JOIN src s ON d.k = s.k"),
    j("join-static-dimension-grows", "SELECT src.k, v, name FROM src LEFT JOIN dim ON src.k = dim.k",
      batches=[[{"k": "a", "v": 1}, {"k": "b", "v": 2}], [{"k": "b", "v": 3}], [{"k": "c", "v": 4}]],
      dims={0: [{"k": "a", "name": "alice"}], 1: [{"k": "b", "name": "bob"}], 2: [{"k": "c", "name": "carol"}]},
      runs=("restart",), smoke=True),
    j("join-static-select-star-names", "SELECT * FROM src JOIN dim ON src.k = dim.k"),
    j("join-static-full-outer-refused", "SELECT * FROM src FULL JOIN dim ON src.k = dim.k", error="full_outer join"),
    j("join-static-left-outer-stream-on-the-right-refused", "SELECT * FROM dim LEFT JOIN src ON src.k = dim.k",
      error="streaming DataFrame/Dataset on the right"),
    # Spark's null-safe equality pairs src's NULL key with dim's; sluice refuses it by name (D34).
    j("join-static-null-safe-equality", "SELECT src.k, v, name FROM src JOIN dim ON src.k <=> dim.k"),
]
