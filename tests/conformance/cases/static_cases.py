"""Every batch-read case (static_reads.StaticCase), from cases/static_*.py."""
from cases import static_csv, static_json

STATIC_CASES = [c for m in (static_json, static_csv) for c in m.CASES]
