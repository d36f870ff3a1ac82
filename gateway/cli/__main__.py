"""`python -m gateway.cli`: the `skillmem` command."""

import sys

from gateway.cli.main import main

sys.exit(main())
