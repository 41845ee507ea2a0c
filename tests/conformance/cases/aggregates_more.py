"""The aggregates that keep values or sketches (max_by/min_by, collect_list/collect_set,
approx_count_distinct, percentile_approx, sum/avg DISTINCT) in complete and update mode: the
"restart" run restarts after every file, so each state is restored from the checkpoint; and
LIKE / ILIKE with ESCAPE, make_date, trunc and format_string."""
from harness import Case
from cases.aggregations import FILES
from cases.expressions import ANSI_OFF, expr
from cases.functions import tcase
from cases.windows import BASIC, HOP, LATE, win


def agg(case_id, sql, mode="complete", files=FILES, **kw):
    return Case(case_id, sql, files, mode=mode, **kw)


# 360 rows over three files (one per key): v takes 180 distinct values, each twice, 60 per key —
# below Spark's linear-counting thresholds, where sluice's estimates equal Spark's.
MANY = [[{"k": "abc"[i % 3], "v": (i * 7919) % 180 + 1000 * (i % 2), "ts": None} for i in range(f, 360, 3)]
        for f in range(3)]

# 1500 then 3000 distinct values: where Spark corrects the raw HyperLogLog estimate (D13).
THOUSANDS = [[{"k": "a", "v": i * 7919, "ts": None} for i in range(f, 3000, 2)] for f in range(2)]
# 1..200 shuffled: with accuracy 10 Spark's quantile summary compresses (D14).
HUNDREDS = [[{"k": "a", "v": (i * 37) % 200 + 1, "ts": None} for i in range(f, 200, 2)] for f in range(2)]
# Values whose hash-set order is not ascending in Spark (D15).
SPREAD = [[{"k": "a", "v": v, "ts": None} for v in (1000, 7, 65, 300)], [{"k": "a", "v": v, "ts": None} for v in (2, 99)]]

CASES = [
    agg("fn-agg-max-min-by", "SELECT k, max_by(v, ts) AS latest, min_by(v, ts) AS earliest, "
        "max_by(k, v) AS k_of_max FROM src GROUP BY k", smoke=True),
    agg("fn-agg-max-by-update", "SELECT k, max_by(v, ts) AS latest FROM src GROUP BY k", mode="update"),
    agg("fn-agg-max-by-filter", "SELECT k, max_by(v, ts) FILTER (WHERE v < 4) AS latest_small FROM src GROUP BY k"),
    agg("fn-agg-collect-list", "SELECT k, collect_list(v) AS vs, array_agg(ts) AS tss FROM src GROUP BY k",
        smoke=True),
    # Spark's collect_set order is its hash set's; sluice's is ascending, which array_sort gives.
    agg("fn-agg-collect-set", "SELECT k, collect_set(v) AS vs, collect_set(k) AS ks FROM src GROUP BY k",
        spark_sql="SELECT k, array_sort(collect_set(v)) AS vs, array_sort(collect_set(k)) AS ks FROM src GROUP BY k"),
    agg("fn-agg-collect-update", "SELECT k, collect_list(v) AS vs FROM src GROUP BY k", mode="update"),
    agg("fn-agg-approx-count-distinct", "SELECT k, approx_count_distinct(v) AS n, approx_count_distinct(v, 0.1) AS n10, "
        "count(v) AS rows FROM src GROUP BY k", files=MANY, smoke=True),
    agg("fn-agg-approx-count-distinct-global", "SELECT approx_count_distinct(v) AS n, approx_count_distinct(k) AS ks, "
        "approx_count_distinct(CAST(v AS STRING)) AS s FROM src", files=MANY, mode="update"),
    agg("fn-agg-percentile-approx", "SELECT k, percentile_approx(v, 0.5) AS med, percentile_approx(v, 0.25, 100) AS q1, "
        "approx_percentile(v, 1.0) AS hi, percentile_approx(ts, 0.5) AS mid_ts FROM src GROUP BY k", smoke=True),
    agg("fn-agg-percentile-approx-many", "SELECT k, percentile_approx(v, 0.1) AS p10, percentile_approx(v, 0.9) AS p90 "
        "FROM src GROUP BY k", files=MANY),
    agg("fn-agg-percentile-refused", "SELECT percentile_approx(v, 2.0) AS p FROM src",
        error="between 0.0 and 1.0"),
    # An array of percentages: ARRAY<x's type>, one value per percentage in the given order (repeats
    # kept); NULL for a group without a non-null value (k = 'c'), and for an empty array.
    agg("fn-agg-percentile-approx-array", "SELECT k, percentile_approx(v, array(0.25, 0.5, 0.75)) AS qs, "
        "approx_percentile(v, array(1.0, 0, 0.5, 0.5), 100) AS ends, percentile_approx(ts, array(0.5)) AS mid_ts, "
        "percentile_approx(v, array()) AS none FROM src GROUP BY k", smoke=True),
    agg("fn-agg-percentile-approx-array-update", "SELECT k, percentile_approx(v, array(0.9, 0.1)) AS qs, "
        "percentile_approx(CAST(v AS DOUBLE), array(0.5)) AS med, percentile_approx(v, 0.5) AS med1 "
        "FROM src GROUP BY k", mode="update", files=MANY),
    # Event-time windows with a watermark: append emits each window's array once (late rows dropped),
    # update as the windows change.
    win("fn-agg-percentile-approx-array-window", "SELECT {S}, {E}, k, percentile_approx(v, array(0.5, 0.9, 0.1)) AS qs "
        "FROM src GROUP BY {W}, k", LATE),
    win("fn-agg-percentile-approx-array-hop-update", "SELECT {S}, {E}, percentile_approx(v, array(0.75, 0.25)) AS qs "
        "FROM src GROUP BY {W}", BASIC, kind=HOP, mode="update"),
    agg("fn-agg-percentile-array-refused", "SELECT percentile_approx(v, array(0.5, 1.5)) AS p FROM src",
        error="between 0.0 and 1.0, but it is 1.5"),
    agg("fn-agg-percentile-array-null-refused", "SELECT percentile_approx(v, array(0.5, NULL)) AS p FROM src",
        error="must be a numeric literal, but it is NULL"),
    agg("fn-agg-percentile-array-column-refused", "SELECT percentile_approx(v, array(0.5, v)) AS p FROM src",
        error="must be a numeric literal, but it is v"),
    agg("agg-sum-avg-distinct", "SELECT k, sum(DISTINCT v) AS s, avg(DISTINCT v) AS a, max(DISTINCT v) AS m "
        "FROM src GROUP BY k", files=FILES + [[{"k": "a", "v": 4, "ts": None}, {"k": "b", "v": 2, "ts": None}]]),
    expr("str-like-escape-clause", "s LIKE 'x!%y' ESCAPE '!' AS a, s LIKE '%!%%' ESCAPE '!' AS c, "
         "s LIKE 'a__' ESCAPE '#' AS e"),
    expr("str-ilike-escape-clause", "s ILIKE 'X#%Y' ESCAPE '#' AS a, s NOT ILIKE 'ABC' ESCAPE '#' AS c"),
    tcase("fn-make-date", "make_date(2024, 2, 29) AS a, make_date(CAST(id AS INT) + 2000, CAST(id AS INT), 28 - CAST(id AS INT)) AS c"),
    tcase("fn-make-date-invalid-ansi", "make_date(2023, 2, 29) AS a", error="DATETIME_FIELD_OUT_OF_BOUNDS"),
    tcase("fn-make-date-invalid-legacy", "make_date(2023, 2, 29) AS a, make_date(2023, 13, 1) AS c", conf=ANSI_OFF),
    tcase("fn-trunc", "trunc(d, 'YEAR') AS a, trunc(d, 'mm') AS c, trunc(ts, 'quarter') AS e, trunc(d, 'week') AS f, "
          "trunc(d, 'day') AS h"),
    expr("fn-format-string", "format_string('%d-%s', v, s) AS a, printf('%8.2f|%-5s|', d, s) AS c, "
         "format_string('%x %05d %b %s', id, v, b, d) AS e, format_string('%.1f %e %3$s', d, d * 2, id) AS f", smoke=True),
    expr("fn-format-string-bad-conversion", "format_string('%d', s) AS a", error="does not fit its conversion"),
    agg("fn-agg-approx-count-distinct-above-threshold", "SELECT approx_count_distinct(v) AS n FROM src",
        files=THOUSANDS),
    agg("fn-agg-percentile-approx-compressed", "SELECT percentile_approx(v, 0.3, 10) AS p30, "
        "percentile_approx(v, 0.7, 10) AS p70 FROM src", files=HUNDREDS),
    agg("fn-agg-collect-set-order", "SELECT k, collect_set(v) AS vs FROM src GROUP BY k", files=SPREAD),
]
