"""repro: two meanings of reproducible — same seed, same result; and bitwise identical runs."""

from .determinism import deterministic_mode
from .fingerprint import fingerprint
from .float_order import atomic_add_simulation, ordered_sum
from .seeding import seed_everything
from .stats import SeedStudy, seed_study, significantly_different, welch_t_test

__all__ = [
    "SeedStudy",
    "atomic_add_simulation",
    "deterministic_mode",
    "fingerprint",
    "ordered_sum",
    "seed_everything",
    "seed_study",
    "significantly_different",
    "welch_t_test",
]
