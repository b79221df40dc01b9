"""Passwords are hashed with argon2-cffi's own parameters unless a test suite asks for its
cheapest profile; a hash made either way verifies either way (it records its parameters),
so a database the suite wrote still signs in under the real ones."""

from __future__ import annotations

import subprocess
import sys

from argon2 import PasswordHasher, profiles

PROBE = ("from shopfloor.domain.accounts.people import hasher; "
         "h = hasher(); print(h.time_cost, h.memory_cost, h.parallelism)")


def _parameters(env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True,
                          text=True, check=True)
    return done.stdout.strip()


def test_a_process_without_the_test_switch_hashes_with_the_real_parameters() -> None:
    real = PasswordHasher()
    assert real.memory_cost >= 65536
    assert _parameters({"PATH": "/usr/bin:/bin"}) == (
        f"{real.time_cost} {real.memory_cost} {real.parallelism}")


def test_the_suite_hashes_cheaply_and_either_hash_verifies_under_the_other() -> None:
    cheap = profiles.CHEAPEST
    assert _parameters({"PATH": "/usr/bin:/bin",
                        "SHOPFLOOR_PASSWORD_HASHING": "cheapest-for-tests"}) == (
        f"{cheap.time_cost} {cheap.memory_cost} {cheap.parallelism}")
    assert _parameters({"PATH": "/usr/bin:/bin", "SHOPFLOOR_PASSWORD_HASHING": "yes"}) == (
        f"{PasswordHasher().time_cost} {PasswordHasher().memory_cost} "
        f"{PasswordHasher().parallelism}")
    made_cheap = PasswordHasher.from_parameters(cheap).hash("a password")
    assert PasswordHasher().verify(made_cheap, "a password")
    assert PasswordHasher.from_parameters(cheap).verify(PasswordHasher().hash("x" * 8), "x" * 8)
