"""Aggregations in every output mode (no event-time windows): grouped and global, NULL keys,
HAVING, result types, overflow, DISTINCT, ORDER BY / LIMIT, empty files."""
from harness import Case
from cases.util import evs

FILES = [
    evs(("a", 1, 1), ("b", 2, 2), ("a", 3, 3)),
    evs(("a", 4, 10), (None, 5, 5)),
    evs(("c", 6, None), ("b", 7, 7)),
]
BY_K = "SELECT k, count(*) AS n, sum(v) AS total FROM src GROUP BY k"
GLOBAL = "SELECT count(*) AS n, sum(v) AS total, min(v) AS lo, max(v) AS hi FROM src"
DEC_SCHEMA = "k STRING, x DECIMAL(10,2)"
DEC_FILES = [[{"k": "a", "x": "1.25"}, {"k": "a", "x": "2.50"}], [{"k": "b", "x": "0.01"}, {"k": "a", "x": None}]]


def agg(case_id, sql, mode, files=FILES, **kw):
    return Case(case_id, sql, files, mode=mode, **kw)


CASES = [
    agg("agg-by-key-complete", BY_K, "complete", smoke=True),
    agg("agg-by-key-update", BY_K, "update", smoke=True),
    agg("agg-by-key-append-refused", BY_K, "append", error="Append output mode not supported", smoke=True),
    agg("agg-global-complete", GLOBAL, "complete"),
    agg("agg-global-update", GLOBAL, "update", smoke=True),
    agg("agg-global-append-refused", GLOBAL, "append", error="Append output mode not supported"),
    agg("agg-avg-min-max", "SELECT k, avg(v) AS a, min(v) AS lo, max(v) AS hi, mean(v) AS m FROM src GROUP BY k",
        "complete"),
    agg("agg-count-column-skips-nulls", "SELECT k, count(v) AS n, count(*) AS rows FROM src GROUP BY k", "complete"),
    agg("agg-null-key-group", "SELECT k, count(*) AS n FROM src GROUP BY k", "update"),
    agg("agg-having", "SELECT k, sum(v) AS total FROM src GROUP BY k HAVING count(*) > 1", "complete"),
    agg("agg-having-unselected-aggregate", "SELECT k FROM src GROUP BY k HAVING max(v) >= 3", "complete"),
    agg("agg-group-by-expression", "SELECT upper(k) AS kk, count(*) AS n FROM src GROUP BY upper(k)", "complete"),
    agg("agg-group-by-alias", "SELECT coalesce(k, '?') AS who, count(*) AS n FROM src GROUP BY who", "update"),
    agg("agg-group-by-position", "SELECT k, count(*) AS n FROM src GROUP BY 1", "complete"),
    agg("agg-expression-over-aggregates", "SELECT k, sum(v) / count(*) AS mean, max(v) - min(v) AS spread "
        "FROM src GROUP BY k", "complete"),
    agg("agg-first-last", "SELECT k, first(v) AS f, last(v) AS l FROM src GROUP BY k", "complete",
        files=[evs(("a", 1, 1), ("a", 2, 2)), evs(("a", 3, 3))]),
    agg("agg-where-before-group", "SELECT k, count(*) AS n FROM src WHERE v > 1 GROUP BY k", "update"),
    agg("agg-sum-int-type", "SELECT k, sum(v) AS total, sum(CAST(v AS INT)) AS total32 FROM src GROUP BY k",
        "complete"),
    agg("agg-sum-double", "SELECT k, sum(CAST(v AS DOUBLE)) AS total, avg(CAST(v AS DOUBLE)) AS a "
        "FROM src GROUP BY k", "complete"),
    agg("agg-sum-bigint-overflow-ansi", "SELECT k, sum(v) AS total FROM src GROUP BY k", "complete",
        files=[evs(("a", 1, 9223372036854775807)), evs(("a", 2, 1))], error="ARITHMETIC_OVERFLOW", smoke=True),
    agg("agg-sum-bigint-overflow-legacy", "SELECT k, sum(v) AS total FROM src GROUP BY k", "complete",
        files=[evs(("a", 1, 9223372036854775807)), evs(("a", 2, 1))], conf={"spark.sql.ansi.enabled": "false"}),
    agg("agg-sum-decimal", "SELECT k, sum(x) AS total FROM src GROUP BY k", "complete",
        files=DEC_FILES, schema=DEC_SCHEMA),
    agg("agg-avg-decimal", "SELECT k, avg(x) AS a FROM src GROUP BY k", "complete",
        files=DEC_FILES, schema=DEC_SCHEMA, smoke=True),
    agg("agg-avg-decimal-update", "SELECT k, avg(x) AS a, sum(x) AS s, count(x) AS n FROM src GROUP BY k", "update",
        files=DEC_FILES + [[{"k": "a", "x": "-0.03"}, {"k": "b", "x": "0.02"}, {"k": "b", "x": "0.02"}]],
        schema=DEC_SCHEMA),
    # DECIMAL(30,5): the sum is DECIMAL(38,5), the average DECIMAL(34,9), the exact quotient rounded.
    agg("agg-avg-decimal-wide", "SELECT k, avg(x) AS a, sum(x) AS s FROM src GROUP BY k", "complete",
        files=[[{"k": "a", "x": "1.00001"}, {"k": "a", "x": "2.00002"}], [{"k": "a", "x": "0.00001"}]],
        schema="k STRING, x DECIMAL(30,5)"),
    agg("agg-avg-decimal-global-empty", "SELECT avg(x) AS a, sum(x) AS s FROM src", "complete",
        files=[[], DEC_FILES[0]], schema=DEC_SCHEMA),
    agg("agg-avg-bigint-near-overflow", "SELECT k, avg(v) AS a FROM src GROUP BY k", "complete",
        files=[evs(("a", 1, 9223372036854775807)), evs(("a", 2, 9223372036854775807))]),
    agg("agg-sum-int-near-overflow", "SELECT k, sum(CAST(v AS INT)) AS total FROM src GROUP BY k", "complete",
        files=[evs(("a", 1, 2147483647)), evs(("a", 2, 2147483647))]),
    agg("agg-sum-bigint-overflow-negative-ansi", "SELECT sum(v) AS total FROM src", "update",
        files=[evs(("a", 1, -9223372036854775807), ("a", 2, -2))], error="ARITHMETIC_OVERFLOW"),
    agg("agg-min-max-strings-timestamps", "SELECT k, min(ts) AS first_ts, max(ts) AS last_ts, "
        "min(CAST(v AS STRING)) AS lo FROM src GROUP BY k", "complete"),
    agg("agg-count-distinct", "SELECT k, count(DISTINCT v) AS n FROM src GROUP BY k", "complete"),
    agg("agg-select-distinct-update", "SELECT DISTINCT k FROM src", "update"),
    agg("agg-select-distinct-complete", "SELECT DISTINCT k FROM src", "complete"),
    agg("agg-complete-order-by", "SELECT k, count(*) AS n FROM src GROUP BY k ORDER BY n DESC, k", "complete",
        smoke=True, ordered=True),
    agg("agg-complete-limit", "SELECT k, count(*) AS n FROM src GROUP BY k ORDER BY k LIMIT 2", "complete",
        ordered=True),
    # NULL keys: ASC puts them first, DESC last (Spark's defaults), unless NULLS FIRST/LAST says.
    agg("agg-complete-order-by-nulls-default", "SELECT k, sum(v) AS total FROM src GROUP BY k ORDER BY k", "complete",
        ordered=True),
    agg("agg-complete-order-by-desc-nulls-default", "SELECT k, sum(v) AS total FROM src GROUP BY k ORDER BY k DESC",
        "complete", ordered=True),
    agg("agg-complete-order-by-nulls-explicit", "SELECT k, sum(v) AS total FROM src GROUP BY k "
        "ORDER BY total DESC NULLS FIRST, k ASC NULLS LAST", "complete", ordered=True),
    agg("agg-complete-order-by-position-and-expression", "SELECT k, count(*) AS n, max(v) AS hi FROM src GROUP BY k "
        "ORDER BY 2 DESC, coalesce(hi, 0) - n, k", "complete", ordered=True),
    agg("agg-complete-order-by-aggregate-written-again", "SELECT k, count(*) AS n FROM src GROUP BY k "
        "ORDER BY count(*), k DESC", "complete", ordered=True),
    agg("agg-complete-limit-zero", "SELECT k, count(*) AS n FROM src GROUP BY k LIMIT 0", "complete"),
    # Ties across the limit: only the count is selected, so whichever tied group is kept, the rows match.
    agg("agg-complete-limit-ties", "SELECT count(*) AS n FROM src GROUP BY k ORDER BY n LIMIT 2", "complete",
        ordered=True),
    agg("agg-complete-distinct-order-by", "SELECT DISTINCT k FROM src ORDER BY k DESC", "complete", ordered=True),
    agg("agg-global-complete-limit", "SELECT count(*) AS n FROM src LIMIT 1", "complete"),
    agg("agg-update-order-by-refused", "SELECT k, count(*) AS n FROM src GROUP BY k ORDER BY k", "update",
        error="ORDER BY"),
    agg("agg-update-limit-refused", "SELECT k, count(*) AS n FROM src GROUP BY k LIMIT 2", "update",
        error="Limits are not supported"),
    agg("agg-append-order-by-refused", "SELECT k, v FROM src ORDER BY k", "append", error="Sorting is not supported"),
    agg("append-limit", "SELECT k, v FROM src LIMIT 2", "append"),
    agg("agg-complete-without-aggregation-refused", "SELECT k, v FROM src", "complete", error="Complete output mode"),
    agg("agg-empty-file-complete", BY_K, "complete", files=[FILES[0], [], FILES[1]]),
    agg("agg-empty-file-update", BY_K, "update", files=[FILES[0], [], FILES[1]]),
    agg("agg-global-update-first-file-empty", GLOBAL, "update", files=[[], FILES[0]]),
    agg("agg-global-complete-first-file-empty", GLOBAL, "complete", files=[[], FILES[0]]),
    agg("agg-global-no-rows-filtered", "SELECT count(*) AS n, sum(v) AS total FROM src WHERE v > 100",
        "complete"),
    agg("agg-nested-aggregate-refused", "SELECT k, sum(count(*)) AS n FROM src GROUP BY k", "complete",
        error="aggregate"),
    agg("agg-ungrouped-column-refused", "SELECT k, v, count(*) AS n FROM src GROUP BY k", "complete",
        error="GROUP BY"),
    agg("agg-in-where-refused", "SELECT k FROM src WHERE count(*) > 1 GROUP BY k", "complete", error="WHERE"),
]
