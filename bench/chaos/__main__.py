import sys

from bench.chaos.soak import main

sys.exit(main())
