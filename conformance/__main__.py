"""``python -m grblas_gpu.conformance``: see conformance.cli."""
import sys

from .cli import main

sys.exit(main())
