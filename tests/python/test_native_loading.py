"""Loading the extension must not change which OpenSSL other modules get: pyarrow's libparquet
exports a private OpenSSL, and before sluice loaded the system libcrypto itself first, the next
module to use libcrypto (hashlib, pandas) died of SIGSEGV. Each import order runs in a fresh
interpreter, the only way to see a crash at import."""
import os
import subprocess
import sys

import pytest


def run_python(code):
    return subprocess.run([sys.executable, "-c", code], env=dict(os.environ), capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize("then", [
    "import hashlib; hashlib.sha256(b'x').hexdigest()",
    "import ssl; ssl.create_default_context()",
    "import pandas; pandas.DataFrame({'a': [1]}).sum()",
])
def test_modules_using_openssl_import_after_sluice(then):
    r = run_python("import sluice.sql\n" + then + "\nprint('imported')")
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stderr[-2000:]}"
    assert r.stdout.strip() == "imported"


def test_pandas_first_then_sluice_then_to_pandas():
    r = run_python("import pandas\nfrom sluice.sql import SparkSession\n"
                   "s = SparkSession.builder.getOrCreate()\n"
                   "print(s.createDataFrame([(1, 'a')], ['id', 'k']).toPandas().to_dict('list'))")
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stderr[-2000:]}"
    assert r.stdout.strip() == "{'id': [1], 'k': ['a']}"
