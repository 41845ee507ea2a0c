"""Guide: "Basic Operations - Selection, Projection, Aggregation" (device signals)."""
import json
import os
import sys

from pyspark.sql import SparkSession
import pyspark.sql.functions as F

work = os.path.abspath(sys.argv[1])
os.makedirs(os.path.join(work, "devices"), exist_ok=True)
with open(os.path.join(work, "devices", "part-0.json"), "w") as f:
    for device, kind, signal in [("d1", "phone", 5.0), ("d2", "phone", 15.0), ("d3", "router", 25.0),
                                 ("d4", "router", 35.0), ("d5", "tv", 8.0)]:
        f.write(json.dumps({"device": device, "deviceType": kind, "signal": signal, "time": "2024-01-01T00:00:00Z"}) + "\n")

spark = SparkSession.builder.appName("basic-operations").getOrCreate()
df = spark.readStream.schema("device STRING, deviceType STRING, signal DOUBLE, time TIMESTAMP").json(
    os.path.join(work, "devices"))

# Select the devices which have signal more than 10
strong = df.select("device").where("signal > 10")
# Running count of the number of updates for each device type
per_type = df.groupBy("deviceType").count()
# Running average signal for each device type
avg_signal = df.groupBy("deviceType").agg(F.avg("signal").alias("avg_signal"))

queries = [strong.writeStream.format("memory").queryName("strong").outputMode("append")
           .option("checkpointLocation", os.path.join(work, "ck-strong")).trigger(availableNow=True).start(),
           per_type.writeStream.format("memory").queryName("per_type").outputMode("complete")
           .option("checkpointLocation", os.path.join(work, "ck-type")).trigger(availableNow=True).start(),
           avg_signal.writeStream.format("memory").queryName("avg_signal").outputMode("complete")
           .option("checkpointLocation", os.path.join(work, "ck-avg")).trigger(availableNow=True).start()]
for q in queries:
    q.awaitTermination()

print("strong:", sorted(r.device for r in spark.table("strong").collect()))
print("per type:", sorted((r.deviceType, r["count"]) for r in spark.table("per_type").collect()))
print("avg signal:", sorted((r.deviceType, r.avg_signal) for r in spark.table("avg_signal").collect()))
