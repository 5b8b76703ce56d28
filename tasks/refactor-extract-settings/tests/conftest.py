"""Makes the workspace (the working folder) importable, after the standard library and the
installed packages, so that nothing in it can shadow them."""
import os
import sys

sys.path.append(os.getcwd())
