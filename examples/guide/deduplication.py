"""Guide: "Streaming Deduplication" - by a unique id, without and with a watermark."""
import json
import os
import sys

from pyspark.sql import SparkSession

work = os.path.abspath(sys.argv[1])
inbox = os.path.join(work, "events")
os.makedirs(inbox, exist_ok=True)
with open(os.path.join(inbox, "part-0.json"), "w") as f:
    for guid, ts in [("a", "12:00"), ("b", "12:01"), ("a", "12:00"), ("c", "12:02"), ("b", "12:05")]:
        f.write(json.dumps({"guid": guid, "eventTime": f"2024-01-01T{ts}:00Z"}) + "\n")

spark = SparkSession.builder.appName("deduplication").getOrCreate()
streamingDf = spark.readStream.schema("guid STRING, eventTime TIMESTAMP").json(inbox)

# Without watermark using guid column
by_guid = streamingDf.dropDuplicates(["guid"])
# With watermark using guid and eventTime columns
by_guid_and_time = streamingDf \
    .withWatermark("eventTime", "10 seconds") \
    .dropDuplicates(["guid", "eventTime"])

for name, df in (("by_guid", by_guid), ("by_guid_and_time", by_guid_and_time)):
    df.writeStream.format("memory").queryName(name).option("checkpointLocation", os.path.join(work, name)) \
        .trigger(availableNow=True).start().awaitTermination()
    print(name, sorted((r.guid, r.eventTime.strftime("%H:%M")) for r in spark.table(name).collect()))
