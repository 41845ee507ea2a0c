"""The Structured Streaming programming guide's examples (examples/guide/*.py), written as
PySpark programs, run on sluice with only their import lines changed; what each prints is
checked (the expected results are worked out by hand from each example's input)."""
import subprocess
import sys

import pytest

from conftest import REPO
from test_exercise import swap_imports

EXPECTED = {
    'basic_operations': "strong: ['d2', 'd3', 'd4']\nper type: [('phone', 2), ('router', 2), ('tv', 1)]\navg signal: [('phone', 10.0), ('router', 30.0), ('tv', 8.0)]\n",
    'csv_with_schema': "isStreaming: True\nroot\n |-- name: string (nullable = true)\n |-- age: integer (nullable = true)\nadults: [('ada', 36), ('cy', 52)]\n",
    'dedup_within_watermark': "[('a', '12:00'), ('b', '12:01'), ('c', '12:02')]\n",
    'deduplication': "by_guid [('a', '12:00'), ('b', '12:01'), ('c', '12:02')]\nby_guid_and_time [('a', '12:00'), ('b', '12:01'), ('b', '12:05'), ('c', '12:02')]\n",
    'file_sink': "rows: 10 distinct ids: 10\nnames: ['USER0', 'USER1', 'USER2']\n",
    'foreach_batch_two_sinks': 'location1: 30 rows, ids 0 .. 29\nlocation2: 30 rows, same ids: True\n',
    'managing_queries': "same id after restart is the contract; id is a UUID: True\nrunId differs from id: True\nname: ids\nlastProgress numInputRows: 10\nrecentProgress batches: [0]\nactive queries: ['ids']\nget(id) finds it: ids\nisActive after stop: False exception: None\nawaitAnyTermination: True\nonce: 10 rows\n",
    'session_window': 'u1 12:00 12:08 2\nu1 12:20 12:25 1\nu2 12:01 12:06 1\n',
    'watermark': "after 12:08: []\nwindow 12:00-12:10: [('cat', 2), ('dog', 1)]\n",
    'word_count': "first run: [('apache', 1), ('spark', 2), ('streaming', 1)]\nafter restart: [('apache', 1), ('sluice', 1), ('spark', 3), ('streaming', 2)]\n",
    'windowed_counts': '11:55 12:05 cat 1\n11:55 12:05 dog 1\n12:00 12:10 cat 1\n12:00 12:10 dog 2\n12:00 12:10 owl 1\n12:05 12:15 cat 1\n12:05 12:15 dog 1\n12:05 12:15 owl 1\n12:10 12:20 cat 1\n',
}


def test_every_example_is_checked():
    assert sorted(p.stem for p in (REPO / "examples" / "guide").glob("*.py")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_guide_example(name, tmp_path):
    script, changed = swap_imports((REPO / "examples" / "guide" / f"{name}.py").read_text())
    assert changed and all(line.startswith(("from pyspark", "import pyspark")) for line in changed)
    (tmp_path / f"{name}.py").write_text(script)
    run = subprocess.run([sys.executable, str(tmp_path / f"{name}.py"), str(tmp_path / "work")],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout == EXPECTED[name]
