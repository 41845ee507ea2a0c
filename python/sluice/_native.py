"""Loads the compiled extension and hands it the exception classes it raises."""
# OpenSSL first, in its own link-map group. The extension needs pyarrow's libparquet (which
# carries a private OpenSSL and exports its OPENSSL_* symbols) and, through libpq and
# librdkafka, the system libcrypto. Loaded in one dlopen group, libcrypto's own calls bind to
# the first definition in that group's search order, libparquet's copy, and the next module to
# use libcrypto (hashlib, which pandas imports) crashed in OPENSSL_LH_doall_arg. With libcrypto
# already loaded by Python's _ssl/_hashlib, its symbols resolve in its own group first.
import hashlib  # noqa: F401  (loads libcrypto)
import ssl  # noqa: F401  (loads libssl)

from sluice import errors

try:
    from sluice import _sluice as native
except ImportError as e:  # pragma: no cover - depends on how the package was installed
    raise ImportError(
        "sluice's native extension (sluice._sluice) is not importable: build it with `make build` "
        "(then <build>/python must be on sys.path; scripts/setup.sh does that for the repo's .venv) "
        "or install the package with `pip install .`") from e

native.register_errors(errors.AnalysisException, errors.StreamingQueryException, errors.IllegalArgumentException)
