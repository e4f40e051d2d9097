# pytest configuration: non-interactive matplotlib, and the package from the build tree when
# PYTHONPATH was not set (running pytest by hand from the repository root).
import os
import sys

os.environ.setdefault("MPLBACKEND", "Agg")
_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for build in ("build", "build-model"):
    p = os.path.join(_root, build, "python")
    if os.path.isdir(os.path.join(p, "simfa")) and p not in sys.path:
        sys.path.append(p)
