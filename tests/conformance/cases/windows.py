"""Tumbling, sliding and session windows on a watermarked event time: late rows, rows on window
boundaries, output modes, no-data batches. Each case is written once with placeholders:
{W} the window function, {S}/{E} its start/end columns (sluice: tumble/hop/session and
window_start/window_end; Spark: window/session_window and window.start/window.end)."""
from harness import Case
from cases.util import evs

TUMBLE = ("tumble(ts, INTERVAL '10 seconds')", "window(ts, '10 seconds')", "window")
HOP = ("hop(ts, INTERVAL '5 seconds', INTERVAL '10 seconds')", "window(ts, '10 seconds', '5 seconds')", "window")
SESSION = ("session(ts, INTERVAL '5 seconds')", "session_window(ts, '5 seconds')", "session_window")


def win(case_id, template, files, kind=TUMBLE, mode="append", delay="10 seconds", **kw):
    sluice_w, spark_w, struct = kind
    sql = template.format(W=sluice_w, S="window_start", E="window_end")
    spark_sql = template.format(W=spark_w, S=f"{struct}.start AS window_start", E=f"{struct}.end AS window_end")
    return Case(case_id, sql, files, mode=mode, spark_sql=spark_sql, watermark=("ts", delay), **kw)


COUNT = "SELECT {S}, {E}, k, count(*) AS n, sum(v) AS total FROM src GROUP BY {W}, k"
COUNT_NOKEY = "SELECT {S}, {E}, count(*) AS n FROM src GROUP BY {W}"
BASIC = [evs(("a", 1, 1), ("a", 5, 2), ("b", 7, 3)), evs(("a", 12, 4), ("b", 25, 5)), evs(("a", 40, 6))]
LATE = [evs(("a", 1, 1), ("a", 25, 2)), evs(("a", 9, 3), ("a", 15, 4)), evs(("a", 40, 5)), evs(("a", 28, 6))]
BOUNDARY = [evs(("a", 0, 1), ("a", 10, 2), ("a", 9.999999, 3)), evs(("a", 20, 4), ("a", 19.999, 5)), evs(("a", 50, 6))]
SESSIONS = [evs(("a", 1, 1), ("a", 3, 2), ("b", 2, 3)), evs(("a", 20, 4), ("b", 6, 5)), evs(("a", 40, 6))]
GAP_EXACT = [evs(("a", 0, 1), ("a", 5, 2)), evs(("a", 10, 3), ("a", 16, 4)), evs(("a", 60, 5))]

CASES = [
    win("tumble-append", COUNT, BASIC, smoke=True),
    win("tumble-append-late-rows-dropped", COUNT, LATE, smoke=True),
    win("tumble-append-boundary-rows", COUNT, BOUNDARY),
    win("tumble-update", COUNT, BASIC, mode="update"),
    win("tumble-update-late-rows", COUNT, LATE, mode="update"),
    win("tumble-complete", COUNT, BASIC, mode="complete"),
    win("tumble-complete-late-rows-kept", COUNT, LATE, mode="complete"),
    win("tumble-no-key", COUNT_NOKEY, BASIC),
    win("tumble-zero-delay", COUNT, BASIC, delay="0 seconds"),
    win("tumble-where-filter", "SELECT {S}, {E}, count(*) AS n FROM src WHERE v % 2 = 1 GROUP BY {W}", BASIC),
    win("tumble-having", "SELECT {S}, {E}, k, count(*) AS n FROM src GROUP BY {W}, k HAVING count(*) >= 2", BASIC),
    win("tumble-avg-min-max", "SELECT {S}, k, avg(v) AS a, min(v) AS lo, max(v) AS hi FROM src GROUP BY {W}, k",
        BASIC),
    win("tumble-empty-file-between", COUNT, [BASIC[0], [], BASIC[1], BASIC[2]]),
    win("tumble-only-late-file", COUNT, [evs(("a", 30, 1)), evs(("a", 2, 2)), evs(("a", 45, 3))]),
    win("tumble-minutes", "SELECT {S}, {E}, count(*) AS n FROM src GROUP BY {W}",
        [evs(("a", 30, 1), ("a", 90, 2)), evs(("a", 200, 3)), evs(("a", 400, 4))],
        kind=("tumble(ts, INTERVAL '1 minute')", "window(ts, '1 minute')", "window"), delay="1 minute"),
    win("hop-append", COUNT, BASIC, kind=HOP),
    win("hop-append-late-rows", COUNT, LATE, kind=HOP),
    win("hop-update", COUNT, BASIC, kind=HOP, mode="update"),
    win("hop-boundary-rows", COUNT_NOKEY, BOUNDARY, kind=HOP),
    win("session-append", COUNT, SESSIONS, kind=SESSION, smoke=True),
    win("session-gap-exactly-apart-merge", COUNT, GAP_EXACT, kind=SESSION, smoke=True),
    win("session-late-rows", COUNT, [evs(("a", 20, 1)), evs(("a", 1, 2), ("a", 22, 3)), evs(("a", 60, 4))],
        kind=SESSION),
    win("session-merge-across-batches", COUNT, [evs(("a", 1, 1)), evs(("a", 4, 2)), evs(("a", 8, 3)),
                                                 evs(("a", 30, 4))], kind=SESSION),
    win("session-update-refused", COUNT, SESSIONS, kind=SESSION, mode="update",
        error="Update output mode not supported for session window"),
    win("session-complete", COUNT, SESSIONS, kind=SESSION, mode="complete"),
    win("session-first-last", "SELECT k, {S}, {E}, first(v) AS f, last(v) AS l FROM src GROUP BY k, {W}",
        SESSIONS, kind=SESSION),
    # Spark's own spelling, the same text on both engines.
    Case("tumble-spark-spelling", "SELECT window.start AS ws, window.end AS we, k, count(*) AS n FROM src "
         "GROUP BY window(ts, '10 seconds'), k", BASIC, watermark=("ts", "10 seconds"), smoke=True),
    Case("hop-spark-spelling", "SELECT window.start AS ws, count(*) AS n FROM src "
         "GROUP BY window(ts, '10 seconds', '5 seconds')", BASIC, watermark=("ts", "10 seconds"), mode="update"),
    Case("session-spark-spelling", "SELECT k, session_window.start AS ws, session_window.end AS we, count(*) AS n "
         "FROM src GROUP BY k, session_window(ts, '5 seconds')", SESSIONS, watermark=("ts", "10 seconds")),
    # The window as a struct column (Spark) vs window_start / window_end columns (sluice).
    Case("window-struct-column", "SELECT window_start, window_end, count(*) AS n FROM src "
         "GROUP BY tumble(ts, INTERVAL '10 seconds')", [evs(("a", 1, 1)), evs(("a", 40, 2))],
         watermark=("ts", "10 seconds"),
         spark_sql="SELECT window, count(*) AS n FROM src GROUP BY window(ts, '10 seconds')"),
    Case("window-field-column-names", "SELECT window.start, window.end, count(*) AS n FROM src "
         "GROUP BY window(ts, '10 seconds')", BASIC, watermark=("ts", "10 seconds"), runs=("one",)),
    Case("window-time-refused", "SELECT window_time(window) AS wt, count(*) AS n FROM src "
         "GROUP BY window(ts, '10 seconds')", BASIC, watermark=("ts", "10 seconds"), runs=("one",),
         error="window_time(window) are not available"),
]
