"""Guide: "Quick Example" - a running word count over lines of text, with split and explode; the
guide's socket source is replaced by text files. Stop, new lines, restart: the counts go on."""
import os
import sys

from pyspark.sql import SparkSession
from pyspark.sql.functions import explode
from pyspark.sql.functions import split

work = os.path.abspath(sys.argv[1])
inbox = os.path.join(work, "lines")
os.makedirs(inbox, exist_ok=True)


def add(name, text):
    tmp = os.path.join(inbox, "." + name)
    with open(tmp, "w") as f:
        f.write(text)
    os.rename(tmp, os.path.join(inbox, name))


spark = SparkSession.builder.appName("StructuredNetworkWordCount").getOrCreate()


def run():
    # Create DataFrame representing the stream of input lines
    lines = spark.readStream.format("text").load(inbox)

    # Split the lines into words
    words = lines.select(
        explode(
            split(lines.value, " ")
        ).alias("word")
    )

    # Generate running word count
    wordCounts = words.groupBy("word").count()

    # Each run ends once the files there are counted; the counts live in the checkpoint.
    seen = {}
    query = (wordCounts.writeStream.outputMode("complete")
             .foreachBatch(lambda df, batch_id: seen.update({r.word: r["count"] for r in df.collect()}))
             .option("checkpointLocation", os.path.join(work, "ck"))
             .trigger(availableNow=True).start())
    query.awaitTermination()
    return sorted(seen.items())


add("a.txt", "apache spark\nspark streaming\n")
print("first run:", run())
add("b.txt", "sluice streaming spark\n")
print("after restart:", run())
