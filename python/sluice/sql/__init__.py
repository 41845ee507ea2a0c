"""PySpark's ``pyspark.sql`` on sluice: change the import lines, keep the streaming code."""
from sluice.errors import AnalysisException, StreamingQueryException
from sluice.sql.column import Column
from sluice.sql.dataframe import DataFrame, GroupedData
from sluice.sql.readwriter import DataFrameReader, DataFrameWriter, DataStreamReader, DataStreamWriter
from sluice.sql.session import RuntimeConfig, SparkSession
from sluice.sql.streaming import StreamingQuery, StreamingQueryListener, StreamingQueryManager
from sluice.sql.types import Row
from sluice.sql import functions, types  # noqa: F401  (sluice.sql.functions as F)

__all__ = [
    "AnalysisException", "Column", "DataFrame", "DataFrameReader", "DataFrameWriter", "DataStreamReader",
    "DataStreamWriter", "GroupedData", "Row", "RuntimeConfig", "SparkSession", "StreamingQuery",
    "StreamingQueryException", "StreamingQueryListener", "StreamingQueryManager", "functions", "types",
]
