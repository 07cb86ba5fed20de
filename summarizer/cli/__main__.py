import sys

from . import command

sys.exit(command())
