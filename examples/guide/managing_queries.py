"""Guide: "Managing Streaming Queries" and "Triggers" - the query handle and spark.streams."""
import json
import os
import sys

from pyspark.sql import SparkSession

work = os.path.abspath(sys.argv[1])
inbox = os.path.join(work, "in")
os.makedirs(inbox, exist_ok=True)
with open(os.path.join(inbox, "part-0.json"), "w") as f:
    for i in range(10):
        f.write(json.dumps({"id": i}) + "\n")

spark = SparkSession.builder.appName("managing-queries").getOrCreate()
df = spark.readStream.schema("id BIGINT").json(inbox)

# ProcessingTime trigger with two-seconds micro-batch interval
query = df.writeStream.format("memory").queryName("ids") \
    .option("checkpointLocation", os.path.join(work, "ck")).trigger(processingTime="2 seconds").start()

print("same id after restart is the contract; id is a UUID:", len(query.id) == 36)
print("runId differs from id:", query.runId != query.id)
print("name:", query.name)
query.processAllAvailable()
print("lastProgress numInputRows:", query.lastProgress["numInputRows"])
print("recentProgress batches:", [p["batchId"] for p in query.recentProgress if p["numInputRows"] > 0])
print("active queries:", [q.name for q in spark.streams.active])
print("get(id) finds it:", spark.streams.get(query.id).name)
query.stop()
print("isActive after stop:", query.isActive, "exception:", query.exception())
print("awaitAnyTermination:", spark.streams.awaitAnyTermination(10))

# One-time trigger (deprecated in Spark: availableNow is preferred)
once = df.writeStream.format("memory").queryName("once") \
    .option("checkpointLocation", os.path.join(work, "ck-once")).trigger(once=True).start()
once.awaitTermination()
print("once:", spark.table("once").count(), "rows")
