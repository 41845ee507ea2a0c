"""Exceptions in PySpark's shape (pyspark.errors): each carries sluice's message."""


class PySparkException(Exception):
    """Base of sluice's errors, under PySpark's name."""

    def getMessage(self):
        return str(self)

    def getErrorClass(self):
        return None

    def getCondition(self):
        return None


class AnalysisException(PySparkException):
    """A query that cannot be planned: unknown column, type mismatch, bad option or path."""


class IllegalArgumentException(PySparkException):
    """An argument sluice refuses (a trigger, a value of the wrong kind)."""


class StreamingQueryException(PySparkException):
    """The error that stopped a streaming query (a failed batch, a foreachBatch exception)."""


class PySparkNotImplementedError(PySparkException, NotImplementedError):
    """A PySpark API sluice does not have yet (docs/python.md lists them)."""


class PySparkValueError(PySparkException, ValueError):
    pass


class PySparkTypeError(PySparkException, TypeError):
    pass


def not_supported(what):
    return PySparkNotImplementedError(f"{what} is not supported by sluice yet (see docs/python.md)")
