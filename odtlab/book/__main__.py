import sys

from odtlab.book.build import main

sys.exit(main())
