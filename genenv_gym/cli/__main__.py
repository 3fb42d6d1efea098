"""``python -m genenv_gym.cli`` runs the ``genenv`` command (for ``torchrun -m genenv_gym.cli train``)."""

import sys

from genenv_gym.cli.main import main

sys.exit(main())
