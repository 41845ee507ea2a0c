"""The seed exercise as a PySpark program: JSON event files stream into the Iceberg table
local.db.events with trigger(availableNow=True); the query stops, more files arrive, and the
same query restarts on the same checkpoint: every event lands in the table exactly once.

Written for PySpark; it runs on sluice with the import lines changed
(pyspark.sql -> sluice.sql), which is what tests/python/test_exercise.py does:

    python examples/exercise.py WORK_DIR     # after swapping the imports, or on PySpark with Iceberg

WORK_DIR receives in/ (the input), checkpoint/ and warehouse/ (a hadoop Iceberg catalog).
"""
import json
import os
import sys

from pyspark.sql import SparkSession
import pyspark.sql.functions as F
from pyspark.sql.types import DoubleType, LongType, StringType, StructField, StructType

work = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "exercise-out")
inbox = os.path.join(work, "in")
os.makedirs(inbox, exist_ok=True)

spark = (SparkSession.builder.appName("exercise")
         .config("spark.sql.catalog.local", "org.apache.iceberg.spark.SparkCatalog")
         .config("spark.sql.catalog.local.type", "hadoop")
         .config("spark.sql.catalog.local.warehouse", os.path.join(work, "warehouse"))
         .getOrCreate())

schema = StructType([StructField("id", LongType()), StructField("name", StringType()),
                     StructField("price", DoubleType())])


def add_files(first, count, rows_per_file=100):
    """Writes files events-<first>.json ... (a hidden temp file, then a rename: the stream never
    sees half a file)."""
    for f in range(first, first + count):
        tmp = os.path.join(inbox, f".events-{f}.json.tmp")
        with open(tmp, "w") as out:
            for i in range(f * rows_per_file, (f + 1) * rows_per_file):
                out.write(json.dumps({"id": i, "name": f"user{i % 7}", "price": round(i * 0.25, 2)}) + "\n")
        os.rename(tmp, os.path.join(inbox, f"events-{f}.json"))


def run_once():
    """One run of the query over everything available now, on the same checkpoint every time."""
    events = (spark.readStream.format("json").schema(schema)
              .option("maxFilesPerTrigger", 2)
              .load(inbox)
              .where(F.col("price") >= 0)
              .select("id", "name", "price"))
    query = (events.writeStream
             .option("checkpointLocation", os.path.join(work, "checkpoint"))
             .trigger(availableNow=True)
             .toTable("local.db.events"))
    query.awaitTermination()
    return query


add_files(0, 3)
first = run_once()
print(f"run 1: {sum(p['numInputRows'] for p in first.recentProgress)} rows in {len(first.recentProgress)} batches")

add_files(3, 3)  # the query is stopped; three more files arrive
second = run_once()
print(f"run 2: {sum(p['numInputRows'] for p in second.recentProgress)} rows in {len(second.recentProgress)} batches")
assert first.id == second.id, "the restart must be the same query (same checkpoint)"

print(f"table local.db.events: {spark.read.table('local.db.events').count()} rows")
spark.stop()
