import sys

from .run import command

sys.exit(command())
