"""Guide: "Handling Late Data and Watermarking" - windowed counts in append mode: a window is
emitted once the watermark (max event time - 10 minutes) passes its end; later data for it is
dropped."""
import json
import os
import sys

from pyspark.sql import SparkSession
from pyspark.sql.functions import window

work = os.path.abspath(sys.argv[1])
inbox = os.path.join(work, "words")
os.makedirs(inbox, exist_ok=True)


def add(name, events):
    with open(os.path.join(inbox, name), "w") as f:
        for ts, word in events:
            f.write(json.dumps({"timestamp": f"2024-01-01T{ts}:00Z", "word": word}) + "\n")


spark = SparkSession.builder.appName("watermark").getOrCreate()
words = spark.readStream.schema("timestamp TIMESTAMP, word STRING").json(inbox)

# Group the data by window and word and compute the count of each group
windowedCounts = words \
    .withWatermark("timestamp", "10 minutes") \
    .groupBy(
        window(words.timestamp, "10 minutes", "5 minutes"),
        words.word) \
    .count()

emitted = []
query = (windowedCounts.writeStream.outputMode("append")
         .foreachBatch(lambda df, batch_id: emitted.extend(
             (batch_id, r.word, r["count"]) for r in df.selectExpr("window.start AS start", "word", "count").collect()
             if r.start.strftime("%H:%M") == "12:00"))
         .option("checkpointLocation", os.path.join(work, "ck")).start())
add("a.json", [("12:02", "cat"), ("12:07", "dog"), ("12:08", "cat")])
query.processAllAvailable()
print("after 12:08:", sorted(emitted))
add("b.json", [("12:25", "owl")])  # watermark moves to 12:15: windows ending by 12:15 close
query.processAllAvailable()
query.processAllAvailable()
add("c.json", [("12:04", "cat")])  # too late: behind the watermark, dropped
query.processAllAvailable()
query.stop()
print("window 12:00-12:10:", sorted((w, c) for _, w, c in emitted))
