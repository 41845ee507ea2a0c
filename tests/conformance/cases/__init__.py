"""Every conformance case, from the cases_*.py tables of this package."""
from cases import (aggregations, dedup, expressions, functions, joins, parsing, spark_suites, time_functions,  # noqa: F401
                   windows, nested)
from cases import relations  # noqa: F401
from cases import aggregates_more  # noqa: F401
from cases import stream_joins  # noqa: F401

from cases.known_differences import KNOWN

ALL_CASES = [c for m in (expressions, functions, time_functions, parsing, aggregations, windows, dedup, joins,
                                    spark_suites, relations, aggregates_more, stream_joins, nested)
             for c in m.CASES]
for _case in ALL_CASES:
    if _case.id in KNOWN:
        _case.diff, _case.expect = KNOWN[_case.id]
