#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "core/crypto.h"

int main(int argc, char** argv) {
  if (!svc::core::InitCrypto().ok()) return 1;
  doctest::Context context(argc, argv);
  return context.run();
}
