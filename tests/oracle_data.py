"""Where the shared reference data lives: ``../shared/oracle`` beside the checkout (as on CI), or
``$DSOLVE_ORACLE``. Tests that need it skip without it, except under CI (``$CI`` set), where a
missing oracle is an error rather than a silent pass."""
import os
from pathlib import Path

import pytest

ORACLE = Path(os.environ.get("DSOLVE_ORACLE", Path(__file__).resolve().parents[2] / "shared" / "oracle"))

if os.environ.get("CI") and not ORACLE.is_dir():
    raise RuntimeError(f"CI run without the oracle data at {ORACLE}")

needs_oracle = pytest.mark.skipif(not ORACLE.is_dir(), reason=f"oracle data not found at {ORACLE}")
