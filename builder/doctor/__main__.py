import sys

from builder.doctor.main import main

sys.exit(main())
