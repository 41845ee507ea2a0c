"""sluice: Spark Structured Streaming's model on a native C++ engine.

The PySpark-shaped API is in :mod:`sluice.sql` (``from sluice.sql import SparkSession``).
"""
from pkgutil import extend_path

# In a source checkout the pure-Python modules (python/sluice) and the compiled extension
# (<build>/python/sluice) are two halves of one package: both directories are on sys.path
# (scripts/setup.sh adds them to the repo's .venv), and __path__ spans them.
__path__ = extend_path(__path__, __name__)

__version__ = "0.1.0"
