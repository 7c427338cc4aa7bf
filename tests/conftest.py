"""What every test shares: rulecraft's disk cache in a folder of the session's own, never the
user's (runtime/cache.py), removed when the session ends."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

# Set before rulecraft is imported by any test module: the parser reads it when first built.
_CACHE = tempfile.mkdtemp(prefix="rulecraft-test-cache-")
os.environ["RULECRAFT_CACHE"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)
