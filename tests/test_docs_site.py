"""Issue 20, docs: "the docs built as a site with a standard tool (search, navigation, the
language reference)". mkdocs builds docs/ in strict mode (a broken link or a page left out is
an error); rule text fenced ```rulecraft is coloured by rulecraft's own lexer."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent


def test_the_docs_build_as_a_site_with_search_and_the_rule_language_coloured(tmp_path):
    pytest.importorskip("mkdocs", reason="needs mkdocs (pip install '.[docs]')")
    site = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(site)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    locations = {doc["location"].split("#")[0] for doc in index["docs"]}
    assert {"language/", "tutorial/", "ringing_steel/", "bt/"} <= locations
    tutorial = (site / "tutorial" / "index.html").read_text(encoding="utf-8")
    assert '<span class="kd">replace</span>' in tutorial  # a declaration, by the lexer
    language = (site / "language" / "index.html").read_text(encoding="utf-8")
    assert '<span class="kd">enum</span>' in language  # the reference's rule blocks too
    assert 'href="../language/"' in tutorial  # navigation
