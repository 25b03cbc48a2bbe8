"""colocc from Python: the discard protocol (discard.py, standard library
only) and a PyTorch trainer that uses it (train.py, which imports torch when
a trainer is made)."""
from .discard import PHASES, ColocError, Discard, find_library
from .train import Discarded, MicroBatchTrainer, allreduce_mean

__all__ = ["PHASES", "ColocError", "Discard", "Discarded", "MicroBatchTrainer", "allreduce_mean",
           "find_library"]
