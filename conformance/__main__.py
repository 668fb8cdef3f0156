"""``python -m conformance``: the ``kodex`` command line (see :mod:`conformance.cli`)."""
import sys

from conformance.cli import main

if __name__ == "__main__":
    sys.exit(main())
