"""What every test shares: rulecraft's disk cache in a folder of the session's own, never the
user's (runtime/cache.py)."""

from __future__ import annotations

import os
import tempfile

# Set before rulecraft is imported by any test module: the parser reads it when first built.
os.environ["RULECRAFT_CACHE"] = tempfile.mkdtemp(prefix="rulecraft-test-cache-")
