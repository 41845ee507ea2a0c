"""Deprecated PySpark location of the exception classes (pyspark.sql.utils)."""
from sluice.errors import (AnalysisException, IllegalArgumentException,  # noqa: F401
                           StreamingQueryException)
