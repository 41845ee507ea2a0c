"""The function table (math, conditional, strings, regular expressions, dates, try_cast) against
PySpark: stateless queries over the rows of expressions.py and time_functions.py."""
from harness import Case

from cases.expressions import ANSI_OFF, expr, one_row

SCHEMA_T = "id BIGINT, ts TIMESTAMP, d DATE, s STRING"
ROWS_T = [
    [
        {"id": 1, "ts": "2024-02-29 13:14:15.123456", "d": "2024-01-31", "s": "2024-02-29 13:14:15"},
        {"id": 2, "ts": "1969-12-31 23:59:59.5", "d": "1969-12-31", "s": "05/06/2023 10:11"},
        {"id": 3, "ts": None, "d": None, "s": None},
    ],
]
WORDS = [[
    {"id": 1, "s": "a,b,,c", "n": 2},
    {"id": 2, "s": "héllo wörld", "n": -1},
    {"id": 3, "s": None, "n": 3},
    {"id": 4, "s": "", "n": None},
    {"id": 5, "s": "Mixed CASE text", "n": 0},
]]
SCHEMA_W = "id BIGINT, s STRING, n INT"


def tcase(case_id, select, where_sql=None, **kw):
    sql = f"SELECT id, {select} FROM src" + (f" WHERE {where_sql}" if where_sql else "")
    return Case(case_id, sql, ROWS_T, schema=SCHEMA_T, **kw)


def wcase(case_id, select, where=None, **kw):
    sql = f"SELECT id, {select} FROM src" + (f" WHERE {where}" if where else "")
    return Case(case_id, sql, WORDS, schema=SCHEMA_W, **kw)


CASES = [
    # math
    expr("fn-abs", "abs(v) AS a, abs(d) AS c, abs(-2.5) AS e", smoke=True),
    expr("fn-round", "round(d) AS a, round(d, 1) AS c, round(v, -1) AS e, round(2.55, 1) AS f"),
    one_row("fn-round-decimal-text", "round(CAST(1.005 AS DOUBLE), 2) AS a, round(CAST(2.675 AS DOUBLE), 2) AS c, "
            "round(CAST(-0.5 AS DOUBLE)) AS e"),
    expr("fn-bround", "bround(d) AS a, bround(d, 1) AS c, bround(v, -1) AS e"),
    expr("fn-floor-ceil", "floor(d) AS a, ceil(d) AS c, floor(v) AS e, ceiling(d) AS f, floor(1.55) AS g"),
    expr("fn-sqrt-exp-pow", "sqrt(abs(d)) AS a, exp(v) AS c, pow(v, 2) AS e, power(2, v) AS f", where="v < 20"),
    expr("fn-logarithms", "ln(d) AS a, log10(v) AS c, log(2, v) AS e, log(v) AS f"),
    expr("fn-sign", "sign(v) AS a, signum(d) AS c"),
    expr("fn-mod-pmod", "mod(v, 3) AS a, pmod(v, 3) AS c, pmod(-7, 3) AS e, pmod(d, 2) AS f"),
    expr("fn-pmod-by-zero-ansi", "pmod(v, 0) AS a", where="v IS NOT NULL", error="DIVIDE_BY_ZERO"),
    expr("fn-greatest-least", "greatest(v, id, 2) AS a, least(v, d) AS c, greatest(s, 'b') AS e, least(v, NULL) AS f"),
    # conditional
    expr("fn-if", "if(v > 0, 'pos', 'other') AS a, if(b, v, d) AS c", smoke=True),
    expr("fn-nullif-nvl", "nullif(v, 10) AS a, nvl(v, -1) AS c, ifnull(s, 'none') AS e, nvl2(v, 'set', 'unset') AS f"),
    # strings
    wcase("fn-replace", "replace(s, ',', ';') AS a, replace(s, ',') AS c, replace(s, '', 'x') AS e", smoke=True),
    wcase("fn-regexp-replace", "regexp_replace(s, '([a-z]),', '$1;') AS a, regexp_replace(s, '[aeiou]', '') AS c"),
    wcase("fn-regexp-extract", "regexp_extract(s, '([a-z]+),([a-z]+)', 2) AS a, regexp_extract(s, '(w)(.)', 0) AS c, "
          "regexp_extract(s, '([A-Z])[a-z]+') AS e"),
    wcase("fn-regexp-like", "regexp_like(s, '^h.llo') AS a, s RLIKE ',,' AS c, s NOT RLIKE 'x' AS e, rlike(s, 'T') AS f"),
    wcase("fn-split-part", "split_part(s, ',', 2) AS a, split_part(s, ',', -1) AS c, split_part(s, ' ', 9) AS e",
          smoke=True),
    wcase("fn-split-part-column", "split_part(s, ',', n) AS a", where="n <> 0"),
    wcase("fn-split-part-zero", "split_part(s, ',', 0) AS a", error="INVALID_INDEX_OF_ZERO"),
    wcase("fn-instr-locate", "instr(s, 'l') AS a, instr(s, '') AS c, locate(',', s) AS e, locate(',', s, 3) AS f, "
          "locate(',', s, n) AS g, position('l' IN s) AS h"),
    wcase("fn-pad", "lpad(s, 8, 'xy') AS a, rpad(s, 3) AS c, lpad(s, 0) AS e, rpad(s, 8, '') AS f"),
    wcase("fn-trim-sides", "ltrim(concat('  ', s, '  ')) AS a, rtrim(concat('  ', s, '  ')) AS c"),
    wcase("fn-initcap-reverse-repeat", "initcap(s) AS a, reverse(s) AS c, repeat(s, 2) AS e, repeat(s, n) AS f"),
    wcase("fn-left-right", "left(s, 3) AS a, right(s, 4) AS c, left(s, n) AS e, right(s, n) AS f"),
    wcase("fn-concat-ws", "concat_ws('-', s, 'z', s) AS a, concat_ws(',', 'only') AS c, concat_ws(NULL, s) AS e"),
    wcase("fn-hashes", "md5(s) AS a, sha2(s, 256) AS c, sha2(s, 512) AS e, sha2(s, 1) AS f", smoke=True),
    wcase("fn-base64", "base64(s) AS a, CAST(unbase64(base64(s)) AS STRING) AS c"),
    wcase("fn-ilike", "s ILIKE '%CASE%' AS a, s NOT ILIKE 'h%' AS c"),
    wcase("fn-substring-columns", "substring(s, n, 3) AS a, substring(s, 2, n) AS c, substr(s, n) AS e"),
    # dates and times
    tcase("fn-to-date", "to_date(ts) AS a, to_date('2024-03-01') AS c, to_date(s, 'dd/MM/yyyy HH:mm') AS e",
          conf=ANSI_OFF),
    tcase("fn-date-format", "date_format(ts, 'yyyy-MM-dd HH:mm:ss') AS a, date_format(ts, 'd/M/yy h a EEE MMM') AS c, "
          "date_format(d, 'yyyyMMdd') AS e, date_format(ts, 'HH:mm:ss.SSS') AS f", smoke=True),
    tcase("fn-date-add-sub-diff", "date_add(d, 30) AS a, date_sub(d, 1) AS c, datediff(ts, d) AS e, "
          "datediff(d, '2024-01-01') AS f"),
    tcase("fn-add-months-last-day", "add_months(d, 1) AS a, add_months(d, -13) AS c, last_day(d) AS e"),
    tcase("fn-unix-timestamp", "unix_timestamp(ts) AS a, unix_timestamp(s, 'dd/MM/yyyy HH:mm') AS c, "
          "from_unixtime(id * 100000) AS e, from_unixtime(0, 'yyyy/MM/dd') AS f", conf=ANSI_OFF, smoke=True),
    tcase("fn-timestamp-from-number", "timestamp_seconds(id) AS a, timestamp_seconds(1.5) AS c, "
          "timestamp_millis(id * 1500) AS e"),
    tcase("fn-make-timestamp", "make_timestamp(2024, 2, 29, 23, 59, 59.25) AS a, make_timestamp(2024, 2, 29, 23, 59, 60) AS c"),
    tcase("fn-make-timestamp-invalid-ansi", "make_timestamp(2023, 2, 29, 0, 0, 0) AS a",
          error="DATETIME_FIELD_OUT_OF_BOUNDS"),
    tcase("fn-make-timestamp-invalid-legacy", "make_timestamp(2023, 2, 29, 0, 0, 0) AS a", conf=ANSI_OFF),
    tcase("fn-utc-shifts", "from_utc_timestamp(ts, 'Europe/Paris') AS a, to_utc_timestamp(ts, 'America/New_York') AS c"),
    tcase("fn-interval-arith", "ts + INTERVAL '1' HOUR AS a, ts - INTERVAL '1 hour 30 minutes' AS c, "
          "d + INTERVAL '2' DAY AS e, d + INTERVAL '1' MONTH AS f, ts + INTERVAL 1 DAY AS g, "
          "ts + INTERVAL '13' MONTH AS h, ts - INTERVAL '90' SECOND AS i", smoke=True),
    tcase("fn-interval-filter", "ts", where_sql="ts + INTERVAL '10' MINUTE > TIMESTAMP '2000-01-01 00:00:00'"),
    # try_cast
    wcase("fn-try-cast", "try_cast(s AS INT) AS a, try_cast('12' AS BIGINT) AS c, try_cast(3000000000 AS INT) AS e, "
          "TRY_CAST(s AS DATE) AS f", smoke=True),
]

# Aggregates whose state must survive restarts: the "restart" run restarts after every file.
from cases.aggregations import FILES as AGG_FILES  # noqa: E402


def agg(case_id, sql, mode="complete", **kw):
    return Case(case_id, sql, AGG_FILES, mode=mode, **kw)


CASES += [
    agg("fn-agg-moments", "SELECT k, stddev(v) AS s, stddev_pop(v) AS sp, variance(v) AS va, var_pop(v) AS vp, "
        "std(v) AS s2, var_samp(v) AS vs FROM src GROUP BY k", smoke=True),
    agg("fn-agg-moments-update", "SELECT k, stddev_samp(v) AS s, var_pop(v) AS vp FROM src GROUP BY k", mode="update"),
    agg("fn-agg-moments-global", "SELECT stddev(v) AS s, variance(v) AS va, stddev_pop(v) AS sp FROM src"),
    agg("fn-agg-bool-count-if", "SELECT k, count_if(v > 2) AS n, bool_and(v > 1) AS all_big, bool_or(v > 5) AS any_big, "
        "every(v IS NOT NULL) AS e FROM src GROUP BY k", smoke=True),
    agg("fn-agg-any-value", "SELECT k, any_value(v) AS x FROM src GROUP BY k"),
    agg("fn-agg-filter", "SELECT k, count(*) FILTER (WHERE v > 2) AS n, sum(v) FILTER (WHERE v < 5) AS small, "
        "max(v) FILTER (WHERE k = 'a') AS ma, avg(v) FILTER (WHERE v > 1) AS av FROM src GROUP BY k",
        smoke=True),
]
