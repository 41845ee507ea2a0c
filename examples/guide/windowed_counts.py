"""Guide: "Window Operations on Event Time" - word counts in 10-minute windows sliding every 5."""
import json
import os
import sys

from pyspark.sql import SparkSession
from pyspark.sql.functions import window

work = os.path.abspath(sys.argv[1])
os.makedirs(os.path.join(work, "words"), exist_ok=True)
with open(os.path.join(work, "words", "part-0.json"), "w") as f:
    for ts, word in [("12:02", "cat"), ("12:03", "dog"), ("12:07", "dog"), ("12:08", "owl"), ("12:14", "cat")]:
        f.write(json.dumps({"timestamp": f"2024-01-01T{ts}:00Z", "word": word}) + "\n")

spark = SparkSession.builder.appName("windowed-counts").getOrCreate()
words = spark.readStream.schema("timestamp TIMESTAMP, word STRING").json(os.path.join(work, "words"))

# Group the data by window and word and compute the count of each group
windowedCounts = words.groupBy(
    window(words.timestamp, "10 minutes", "5 minutes"),
    words.word
).count()

query = (windowedCounts.selectExpr("window.start AS start", "window.end AS end", "word", "count")
         .writeStream.outputMode("complete").format("memory").queryName("windowed")
         .option("checkpointLocation", os.path.join(work, "ck")).trigger(availableNow=True).start())
query.awaitTermination()
for r in sorted(spark.table("windowed").collect(), key=lambda r: (r.start, r.word)):
    print(r.start.strftime("%H:%M"), r.end.strftime("%H:%M"), r.word, r["count"])
