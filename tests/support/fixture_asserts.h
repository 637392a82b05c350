#pragma once
// For programs outside a test run (svc_samples, the benchmarks) that call the test fixtures: the
// fixtures' REQUIREs report through `context`, and a failed one ends the program.

#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>

namespace svc::testing {

inline void ReportFixtureAsserts(doctest::Context& context) {
  context.setAsDefaultForAssertsOutOfTestCases();
  context.setAssertHandler([](const doctest::AssertData& d) {
    std::fprintf(stderr, "%s failed (%s:%d)\n", d.m_expr, d.m_file, d.m_line);
    std::exit(1);
  });
}

}  // namespace svc::testing
