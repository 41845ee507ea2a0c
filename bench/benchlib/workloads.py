"""The workloads: what each one measures and the query text every engine runs.

The SELECT text is shared by all engines where their SQL dialects agree; only the table
declarations (and Spark's window() / Flink's TUMBLE() for P2) differ. Engine modules build their
pipelines from these definitions, and the report prints them.
"""
from __future__ import annotations

import dataclasses

# Column types of the bid table in each engine's DDL.
BID_COLUMNS = ("auction", "bidder", "price", "channel", "url", "date_time", "extra")
TYPES = {
    "sluice": dict(auction="BIGINT", bidder="BIGINT", price="BIGINT", channel="TEXT", url="TEXT",
                   date_time="TIMESTAMP", extra="TEXT"),
    "spark": dict(auction="BIGINT", bidder="BIGINT", price="BIGINT", channel="STRING",
                  url="STRING", date_time="TIMESTAMP", extra="STRING"),
    "flink": dict(auction="BIGINT", bidder="BIGINT", price="BIGINT", channel="STRING",
                  url="STRING", date_time="TIMESTAMP(3)", extra="STRING"),
    "duckdb": dict(auction="BIGINT", bidder="BIGINT", price="BIGINT", channel="VARCHAR",
                   url="VARCHAR", date_time="TIMESTAMP", extra="VARCHAR"),
}


def bid_schema(engine: str) -> str:
    return ", ".join(f"{c} {TYPES[engine][c]}" for c in BID_COLUMNS)


@dataclasses.dataclass(frozen=True)
class Query:
    id: str                      # stable key in the JSON, e.g. "P1_q1"
    title: str
    select: str                  # sluice's SELECT (also Spark's and DuckDB's unless overridden)
    flink_sink: str | None       # Flink sink columns (Flink needs them declared); None: no Flink
    spark_select: str | None = None
    flink_select: str | None = None
    duckdb_select: str | None = None

    def text(self, engine: str) -> str:
        return {"spark": self.spark_select, "flink": self.flink_select,
                "duckdb": self.duckdb_select}.get(engine) or self.select


P1 = [
    Query("P1_q0", "Nexmark q0: pass-through, JSON lines -> Parquet",
          "SELECT * FROM bids",
          flink_sink=bid_schema("flink")),
    Query("P1_q1", "Nexmark q1: currency conversion, JSON lines -> Parquet",
          "SELECT auction, bidder, CAST(price AS DOUBLE) * 0.908 AS price, date_time, extra "
          "FROM bids",
          flink_sink="auction BIGINT, bidder BIGINT, price DOUBLE, date_time TIMESTAMP(3), "
                     "extra STRING"),
    Query("P1_q2", "Nexmark q2: selection (auction % 123 = 0), JSON lines -> Parquet",
          "SELECT auction, price FROM bids WHERE auction % 123 = 0",
          flink_sink="auction BIGINT, price BIGINT"),
]

WINDOW = "10 seconds"
WATERMARK = "10 seconds"
P2 = Query(
    "P2_window",
    f"Tumbling-window ({WINDOW}) count of bids per auction, watermark {WATERMARK}, append mode",
    "SELECT auction, window_start, window_end, count(*) AS bids "
    "FROM bids GROUP BY auction, tumble(date_time, INTERVAL '10 seconds')",
    flink_sink="auction BIGINT, window_start TIMESTAMP(3), window_end TIMESTAMP(3), bids BIGINT",
    spark_select="SELECT auction, window.start AS window_start, window.end AS window_end, "
                 "count(*) AS bids FROM bids GROUP BY auction, window(date_time, '10 seconds')",
    flink_select="SELECT auction, window_start, window_end, COUNT(*) AS bids "
                 "FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(date_time), INTERVAL '10' SECOND)) "
                 "GROUP BY auction, window_start, window_end",
    duckdb_select="SELECT auction, time_bucket(INTERVAL '10 seconds', date_time) AS window_start, "
                  "time_bucket(INTERVAL '10 seconds', date_time) + INTERVAL '10 seconds' "
                  "AS window_end, count(*) AS bids FROM bids GROUP BY ALL",
)

P3 = Query("P3_small_batch",
           "Fixed cost of a small batch: 100-row files, one per batch, processingTime trigger, "
           "pass-through to Parquet, local checkpoint",
           "SELECT * FROM bids", flink_sink=None)

P6 = Query("P6_scaling",
           "Long run: many one-row files, one per batch, back to back, pass-through to Parquet; "
           "cost per batch of the first and the last thousand batches",
           "SELECT * FROM bids", flink_sink=None)

P4 = Query("P4_restart",
           "Restart after kill -9 with keyed state: count(*) GROUP BY bidder, update mode",
           "SELECT bidder, count(*) AS bids FROM bids GROUP BY bidder", flink_sink=None)

# P5: joins over Nexmark's persons and auctions (the same generated stream as P1/P2).
PERSON_COLUMNS = dict(id="BIGINT", name="TEXT", email_address="TEXT", credit_card="TEXT",
                      city="TEXT", state="TEXT", date_time="TIMESTAMP", extra="TEXT")
AUCTION_COLUMNS = dict(id="BIGINT", item_name="TEXT", description="TEXT", initial_bid="BIGINT",
                       reserve="BIGINT", date_time="TIMESTAMP", expires="TIMESTAMP",
                       seller="BIGINT", category="BIGINT", extra="TEXT")


def table_schema(columns: dict, engine: str) -> str:
    names = {"sluice": {}, "spark": {"TEXT": "STRING"},
             # Flink: millisecond timestamps (a rowtime attribute is TIMESTAMP(3))
             "flink": {"TEXT": "STRING", "TIMESTAMP": "TIMESTAMP(3)"}}[engine]
    return ", ".join(f"{c} {names.get(t, t)}" for c, t in columns.items())


@dataclasses.dataclass(frozen=True)
class JoinQuery:
    id: str
    title: str
    select: str          # the same text on sluice, Spark and Flink
    persons_static: bool  # q3: persons are a static (dimension) table; q8: both are streams
    flink_sink: str       # Flink's sink columns (Flink needs them declared)
    flink_form: str       # how Flink runs it, and how that differs from sluice's and Spark's form

    def text(self, engine: str) -> str:
        return self.select


JOIN_WATERMARK = "10 seconds"
P5 = [
    JoinQuery("P5_q3",
              "Nexmark q3: local item suggestion, auctions (stream) joined with persons (static)",
              "SELECT p.name, p.city, p.state, a.id FROM auctions a JOIN persons p ON a.seller = p.id "
              "WHERE a.category = 10 AND p.state IN ('or', 'id', 'ca')",
              persons_static=True,
              flink_sink="name STRING, city STRING, state STRING, id BIGINT",
              flink_form="regular join (Nexmark's own Flink q3): both tables are bounded "
                         "filesystem sources without a watermark; Flink has no static table in "
                         "a streaming job, so it keeps both sides in join state"),
    JoinQuery("P5_q8",
              "Nexmark q8: new persons who open an auction within 10 s of registering "
              "(stream-stream, watermark 10 s on both)",
              "SELECT p.id, p.name, a.id AS auction, a.date_time FROM persons p JOIN auctions a "
              "ON p.id = a.seller AND a.date_time BETWEEN p.date_time "
              "AND p.date_time + INTERVAL '10' SECOND",
              persons_static=False,
              flink_sink="id BIGINT, name STRING, auction BIGINT, date_time TIMESTAMP(3)",
              flink_form="interval join: the same SELECT over two filesystem sources, each with "
                         "WATERMARK FOR date_time AS date_time - INTERVAL '10' SECOND (Nexmark's "
                         "own Flink q8 is a tumbling-window join instead)"),
]
