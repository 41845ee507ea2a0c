"""Time functions and zones: the session time zone is UTC on both engines."""
from harness import Case

SCHEMA = "id BIGINT, ts TIMESTAMP, s STRING"
ROWS = [
    [
        {"id": 1, "ts": "2024-02-29 13:14:15.123456", "s": "2024-02-29 13:14:15"},
        {"id": 2, "ts": "1969-12-31 23:59:59.5", "s": "1999-12-31 23:59:59"},
        {"id": 3, "ts": None, "s": None},
    ],
    [
        {"id": 4, "ts": "2024-12-31T23:59:59Z", "s": "2024-01-01"},
        {"id": 5, "ts": "2023-06-15T08:30:00+02:00", "s": "bad"},
    ],
]


def tcase(case_id, select, **kw):
    return Case(case_id, f"SELECT id, {select} FROM src", kw.pop("batches", ROWS), schema=SCHEMA, **kw)


CASES = [
    tcase("time-read-json-timestamps", "ts"),
    tcase("time-year-month-day", "year(ts) AS y, month(ts) AS m, dayofmonth(ts) AS d, day(ts) AS d2"),
    tcase("time-hour-minute-second", "hour(ts) AS h, minute(ts) AS mi, second(ts) AS s"),
    tcase("time-dayofweek", "dayofweek(ts) AS w"),
    tcase("time-extract-int-fields", "EXTRACT(YEAR FROM ts) AS y, EXTRACT(MONTH FROM ts) AS m, "
          "EXTRACT(DAY FROM ts) AS d, EXTRACT(HOUR FROM ts) AS h, EXTRACT(MINUTE FROM ts) AS mi"),
    tcase("time-extract-second", "EXTRACT(SECOND FROM ts) AS s", smoke=True),
    tcase("time-date-part", "date_part('year', ts) AS y, date_part('hour', ts) AS h"),
    tcase("time-date-trunc", "date_trunc('hour', ts) AS h, date_trunc('day', ts) AS d, date_trunc('month', ts) AS m",
          smoke=True),
    tcase("time-date-trunc-year-minute", "date_trunc('year', ts) AS y, date_trunc('minute', ts) AS mi"),
    tcase("time-to-timestamp-default", "to_timestamp(s) AS a", conf={"spark.sql.ansi.enabled": "false"}),
    tcase("time-to-timestamp-pattern", "to_timestamp(s, 'yyyy-MM-dd HH:mm:ss') AS a",
          conf={"spark.sql.ansi.enabled": "false"}),
    tcase("time-to-timestamp-bad-ansi", "to_timestamp(s, 'yyyy-MM-dd HH:mm:ss') AS a", error="CANNOT_PARSE_TIMESTAMP"),
    Case("time-compare-literal", "SELECT id FROM src WHERE ts >= TIMESTAMP '2024-01-01 00:00:00'", ROWS,
         schema=SCHEMA),
    tcase("time-cast-to-string", "CAST(ts AS STRING) AS a"),
    tcase("time-cast-to-bigint", "CAST(ts AS BIGINT) AS a", smoke=True),
    tcase("time-cast-to-double", "CAST(ts AS DOUBLE) AS a"),
    tcase("time-cast-to-date", "CAST(ts AS DATE) AS a"),
    tcase("time-nanos-truncated", "ts", batches=[[{"id": 1, "ts": "2024-01-01 00:00:00.123456789"}]], smoke=True),
    tcase("time-offset-zone-normalised", "ts, hour(ts) AS h",
          batches=[[{"id": 1, "ts": "2024-01-01T05:00:00-03:00"}, {"id": 2, "ts": "2024-01-01T05:00:00+05:30"}]]),
    tcase("time-before-epoch", "ts, year(ts) AS y, second(ts) AS s",
          batches=[[{"id": 1, "ts": "1900-03-01 00:00:01"}, {"id": 2, "ts": "1969-12-31 23:59:59"}]]),
    tcase("time-leap-day", "dayofmonth(ts) AS d, month(ts) AS m, dayofweek(ts) AS w",
          batches=[[{"id": 1, "ts": "2000-02-29 00:00:00"}, {"id": 2, "ts": "2100-03-01 00:00:00"}]]),
    # current_timestamp()/current_date() are the batch time on both engines (Spark's now() is not, D28): the values differ
    # between runs, their relations do not (one value per batch, the date of that instant, after ts).
    tcase("time-current-timestamp-per-batch",
          "CURRENT_TIMESTAMP = current_timestamp() AS same_kw, "
          "current_date() = to_date(current_timestamp()) AS same_day, CURRENT_DATE = current_date() AS same_date, "
          "current_timestamp() > TIMESTAMP '2024-01-01 00:00:00' AS after_2024, "
          "current_timestamp() IS NULL AS is_null"),
]
