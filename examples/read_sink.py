"""Reads a sluice/Spark file-sink directory the way Spark does: only the data files listed in
its _spark_metadata log. Prints one JSON summary line: rows, distinct ids, duplicates, and
the sorted ids' checksum, so the demo can compare two outputs without trusting sluice."""
import json
import os
import sys
from urllib.parse import unquote, urlparse

import pyarrow.parquet as pq


def committed_files(out_dir):
    log_dir = os.path.join(out_dir, "_spark_metadata")
    files = []
    for name in sorted(os.listdir(log_dir), key=lambda n: int(n.split(".")[0]) if n.split(".")[0].isdigit() else -1):
        if not name.split(".")[0].isdigit():
            continue
        with open(os.path.join(log_dir, name)) as f:
            lines = f.read().split("\n")
        assert lines[0] == "v1", f"{name}: unexpected version line {lines[0]!r}"
        for line in lines[1:]:
            if line.strip():
                entry = json.loads(line)
                if entry["action"] == "add":
                    files.append(unquote(urlparse(entry["path"]).path))
    return files


def main():
    out_dir = sys.argv[1]
    if os.path.exists(os.path.join(out_dir, "rows.jsonl")):  # the demo's hand-made sink
        with open(os.path.join(out_dir, "rows.jsonl")) as f:
            ids = [json.loads(line)["id"] for line in f if line.strip()]
        files = 1
    else:
        paths = committed_files(out_dir)
        ids = [i for p in paths for i in pq.read_table(p, columns=["id"]).column("id").to_pylist()]
        files = len(paths)
    on_disk = sum(1 for n in os.listdir(out_dir) if n.startswith("part-"))
    print(json.dumps({"rows": len(ids), "distinct_ids": len(set(ids)), "duplicates": len(ids) - len(set(ids)),
                      "committed_files": files, "part_files_on_disk": on_disk,
                      "ids_checksum": sum(sorted(ids))}))


if __name__ == "__main__":
    main()
