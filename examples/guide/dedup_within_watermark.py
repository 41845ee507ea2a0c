"""Guide: "Streaming Deduplication" - dropDuplicatesWithinWatermark: a guid repeated within the
watermark delay is a duplicate even when its event time differs."""
import json
import os
import sys

from pyspark.sql import SparkSession

work = os.path.abspath(sys.argv[1])
inbox = os.path.join(work, "events")
os.makedirs(inbox, exist_ok=True)
with open(os.path.join(inbox, "part-0.json"), "w") as f:
    for guid, ts in [("a", "12:00"), ("b", "12:01"), ("a", "12:30"), ("c", "12:02")]:
        f.write(json.dumps({"guid": guid, "eventTime": f"2024-01-01T{ts}:00Z"}) + "\n")

spark = SparkSession.builder.appName("dedup-within-watermark").getOrCreate()
streamingDf = spark.readStream.schema("guid STRING, eventTime TIMESTAMP").json(inbox)

# Deduplicate the same rows using guid column with watermark based on eventTime column
deduped = streamingDf \
    .withWatermark("eventTime", "10 hours") \
    .dropDuplicatesWithinWatermark(["guid"])

deduped.writeStream.format("memory").queryName("deduped").option("checkpointLocation", os.path.join(work, "ck")) \
    .trigger(availableNow=True).start().awaitTermination()
print(sorted((r.guid, r.eventTime.strftime("%H:%M")) for r in spark.table("deduped").collect()))
