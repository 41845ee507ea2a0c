"""Ctrl-C in a Python script: awaitTermination() raises KeyboardInterrupt, the queries are
stopped after their batch in flight, and the process ends without hanging or crashing."""
import json
import signal
import subprocess
import sys

SCRIPT = r'''
import sys
from sluice.sql import SparkSession
spark = SparkSession.builder.getOrCreate()
q = (spark.readStream.schema("id BIGINT").json(sys.argv[1])
     .writeStream.foreachBatch(lambda df, batch_id: None)
     .option("checkpointLocation", sys.argv[2]).trigger(processingTime="50 milliseconds").start())
q.processAllAvailable()
print("ready", flush=True)
q.awaitTermination()
'''


def test_ctrl_c_stops_the_query_and_the_script(tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.json").write_text(json.dumps({"id": 1}) + "\n")
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT, str(tmp_path / "in"), str(tmp_path / "ck")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    # An uncaught KeyboardInterrupt ends Python by SIGINT (after atexit handlers ran): not a
    # crash (SIGSEGV/SIGABRT) and not a hang.
    assert proc.returncode == -signal.SIGINT, err
    assert "KeyboardInterrupt" in err
    assert (tmp_path / "ck" / "commits" / "0").exists()
