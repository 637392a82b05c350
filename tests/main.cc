#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>

#include "core/crypto.h"

int main(int argc, char** argv) {
  if (!svc::core::InitCrypto().ok()) return 1;
  // DEVELOPMENT MODE for every svc the tests start (and their admin and replay commands): the
  // master and service keys live in each test's own data directory, created on first start.
  // Production refuses this (docs/operations.md#keys); the tests that show the refusal unset it
  // for their child process.
  ::setenv("SVC_DEV_KEYS_IN_DATA_DIR", "1", /*overwrite=*/0);
  doctest::Context context(argc, argv);
  return context.run();
}
