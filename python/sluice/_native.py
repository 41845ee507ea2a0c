"""Loads the compiled extension and hands it the exception classes it raises."""
from sluice import errors

try:
    from sluice import _sluice as native
except ImportError as e:  # pragma: no cover - depends on how the package was installed
    raise ImportError(
        "sluice's native extension (sluice._sluice) is not importable: build it with `make build` "
        "(then <build>/python must be on sys.path; scripts/setup.sh does that for the repo's .venv) "
        "or install the package with `pip install .`") from e

native.register_errors(errors.AnalysisException, errors.StreamingQueryException, errors.IllegalArgumentException)
