"""Guide: "Types of time windows" - session windows with a 5-minute gap per user."""
import json
import os
import sys

from pyspark.sql import SparkSession
from pyspark.sql.functions import session_window

work = os.path.abspath(sys.argv[1])
os.makedirs(os.path.join(work, "events"), exist_ok=True)
with open(os.path.join(work, "events", "part-0.json"), "w") as f:
    for ts, user in [("12:00", "u1"), ("12:03", "u1"), ("12:20", "u1"), ("12:01", "u2"), ("13:00", "u3")]:
        f.write(json.dumps({"timestamp": f"2024-01-01T{ts}:00Z", "userId": user}) + "\n")

spark = SparkSession.builder.appName("session-window").getOrCreate()
events = spark.readStream.schema("timestamp TIMESTAMP, userId STRING").json(os.path.join(work, "events"))

# Group the data by session window and userId, and compute the count of each group
sessionizedCounts = events \
    .withWatermark("timestamp", "10 minutes") \
    .groupBy(
        session_window(events.timestamp, "5 minutes"),
        events.userId) \
    .count()

query = (sessionizedCounts.selectExpr("session_window.start AS start", "session_window.end AS end", "userId", "count")
         .writeStream.outputMode("append").format("memory").queryName("sessions")
         .option("checkpointLocation", os.path.join(work, "ck")).trigger(availableNow=True).start())
query.awaitTermination()
for r in sorted(spark.table("sessions").collect(), key=lambda r: (r.userId, r.start)):
    print(r.userId, r.start.strftime("%H:%M"), r.end.strftime("%H:%M"), r["count"])
