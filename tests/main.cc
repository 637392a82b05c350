#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>

#include "core/crypto.h"
#include "tests/support/svc_process.h"

int main(int argc, char** argv) {
  if (!svc::core::InitCrypto().ok()) return 1;
  // DEVELOPMENT MODE for every svc the tests start (and their admin and replay commands): the
  // master and service keys live in each test's own data directory, created on first start.
  // Production refuses this (docs/operations.md#keys); the tests that show the refusal unset it
  // for their child process.
  ::setenv("SVC_DEV_KEYS_IN_DATA_DIR", "1", /*overwrite=*/0);
  doctest::Context context(argc, argv);
  int rc = context.run();
  if (svc::testing::SvcServer::Starts() > 0) {
    std::fprintf(stderr, "[svc] %d server start(s) in this run\n", svc::testing::SvcServer::Starts());
  }
  return rc;
}
