"""SQL structure: UNION ALL of streams, WITH (CTEs), subqueries in FROM, GROUP BY ALL, and the
ROW_NUMBER() = 1 dedupe spellings (QUALIFY and the FROM-subquery form). Spark's streaming SQL
refuses ROW_NUMBER (a non-time window), so those cases hold sluice's SQL against Spark's
dropDuplicates / dropDuplicatesWithinWatermark (`spark_dedup`), the plan sluice maps them to."""
from harness import Case
from cases.util import evs

FILES = [
    evs(("a", 1, 1), ("b", 2, 2), ("a", 3, 3)),
    evs(("a", 4, 10), (None, 5, 5)),
    evs(("c", 6, None), ("b", 7, 7)),
]
# Each key's rows arrive in event-time order, so "first to arrive" is "earliest" too.
REPEATS = [evs(("a", 1, 1), ("b", 2, 2), ("a", 3, 3)), evs(("a", 4, 4), ("c", 5, 5)), evs(("b", 8, 8), ("d", 9, 9))]
ROW_NUMBER = "ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts)"

CASES = [
    # UNION (distinct) on a stream: UNION ALL then a GROUP BY every column, as Spark plans it (so append mode
    # without a watermark is refused on both engines; update mode emits each batch's distinct rows).
    Case("union-distinct-stream", "SELECT k, v % 3 AS m FROM src UNION SELECT upper(k), v % 2 FROM src",
         REPEATS + [evs(("a", 1, 6), ("e", 2, 7))], mode="update"),
    Case("intersect-streams-refused", "SELECT k FROM src INTERSECT SELECT k FROM src", FILES,
         error="INTERSECT on a stream is not supported"),
    Case("except-stream-on-the-right-refused", "SELECT k FROM src EXCEPT SELECT k FROM src", FILES,
         error="EXCEPT on a stream is not supported"),
    Case("union-all-self", "SELECT k, v FROM src WHERE v < 4 UNION ALL SELECT upper(k), v * 10 FROM src WHERE v >= 4",
         FILES, smoke=True),
    Case("union-all-names-from-first", "SELECT k AS key, v FROM src UNION ALL SELECT 'x' AS other, v + 1 AS w FROM src",
         FILES),
    Case("union-all-aggregated", "SELECT k, count(*) AS n FROM (SELECT k FROM src UNION ALL SELECT k FROM src "
         "WHERE v > 2) u GROUP BY k", FILES, mode="complete", smoke=True),
    # A table used twice is one watermark (Spark keys watermarks by the withWatermark node): the
    # second use sees no row of the first file, yet the watermark moves (the restart run shows it).
    Case("union-all-watermark-window", "SELECT window.start AS s, count(*) AS n FROM (SELECT ts FROM src UNION ALL "
         "SELECT ts FROM src WHERE v > 2) u GROUP BY window(ts, '10 seconds')",
         [evs(("a", 1, 1), ("b", 12, 2)), evs(("a", 25, 3)), evs(("a", 40, 4))], watermark=("ts", "5 seconds"),
         smoke=True),
    Case("union-all-widens-numbers", "SELECT k, CAST(v AS INT) AS v, v AS w FROM src UNION ALL "
         "SELECT k, v, CAST(v AS DOUBLE) FROM src WHERE v > 3", FILES),
    Case("union-all-type-mismatch", "SELECT k, v FROM src UNION ALL SELECT k, ts FROM src", FILES,
         error="column 2 is 'v' bigint in the first input but 'ts' timestamp"),
    Case("cte-simple", "WITH big AS (SELECT k, v FROM src WHERE v > 2) SELECT k, v * 2 AS w FROM big", FILES,
         smoke=True),
    Case("cte-chained-and-aggregated", "WITH a AS (SELECT k, v FROM src WHERE k IS NOT NULL), "
         "b AS (SELECT upper(k) AS kk, v FROM a) SELECT kk, sum(v) AS total FROM b GROUP BY kk", FILES,
         mode="update"),
    Case("subquery-in-from", "SELECT s.k, s.w FROM (SELECT k, v + 100 AS w FROM src) AS s WHERE s.w > 102", FILES),
    Case("group-by-all", "SELECT k, v % 2 AS parity, count(*) AS n, sum(v) AS total FROM src GROUP BY ALL", FILES,
         mode="complete", smoke=True),
    Case("group-by-all-only-aggregates", "SELECT count(*) AS n FROM src GROUP BY ALL", FILES, mode="complete"),
    Case("qualify-row-number-dedupe", f"SELECT k, v FROM src QUALIFY {ROW_NUMBER} = 1", REPEATS,
         spark_sql="SELECT k, v FROM src", spark_dedup=("k",), smoke=True),
    Case("row-number-subquery-dedupe", f"SELECT k, v, rn FROM (SELECT k, v, {ROW_NUMBER} AS rn FROM src "
         "WHERE v > 1) t WHERE rn = 1", REPEATS,
         spark_sql="SELECT k, v, 1 AS rn FROM src WHERE v > 1", spark_dedup=("k",)),
    Case("qualify-row-number-dedupe-within-watermark", f"SELECT k, v, ts FROM src QUALIFY {ROW_NUMBER} = 1",
         [evs(("a", 1, 1), ("a", 3, 2)), evs(("b", 20, 3), ("a", 21, 4)), evs(("a", 40, 5))],
         watermark=("ts", "5 seconds"), spark_sql="SELECT k, v, ts FROM src", spark_dedup=("k",), dedup_within=True),
    # The same SQL on both: Spark's streaming SQL refuses ROW_NUMBER (D16).
    Case("row-number-dedupe-refused-by-spark", f"SELECT k, v FROM (SELECT k, v, {ROW_NUMBER} AS rn FROM src) t "
         "WHERE rn = 1", REPEATS),
    Case("qualify-rank-refused", "SELECT k FROM src QUALIFY rank() OVER (PARTITION BY k ORDER BY ts) = 1", FILES,
         error="window function 'rank' is not supported in QUALIFY"),
]
