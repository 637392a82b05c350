#!/usr/bin/env python3
"""Every listed test file has test cases in the binary (ctest entry unit.test_files).

The unit tier runs its files in groups, one entry per folder (tests/CMakeLists.txt): a group's
entry passes as long as any of its files has cases, so this check stands in for the per-file
entry's "no test case matched" failure. A file listed but compiled without cases (renamed
cases' file, a lost include in a unity unit) fails here by name.

usage: test_files_check.py BINARY FILE...   (FILE relative to tests/)
"""
import os
import subprocess
import sys
import xml.etree.ElementTree as ET


def main():
    binary, files = sys.argv[1], sys.argv[2:]
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
    out = subprocess.run([binary, "--list-test-cases", "--reporters=xml"], env=env,
                         check=True, capture_output=True, text=True).stdout
    seen = {}
    for case in ET.fromstring(out).iter("TestCase"):
        name = case.get("filename").replace(os.sep, "/")
        seen[name] = seen.get(name, 0) + 1
    missing = [f for f in files if not any(path.endswith("tests/" + f) for path in seen)]
    for f in missing:
        print(f"tests/{f}: no test case in {binary}")
    print(f"{len(files) - len(missing)} of {len(files)} files have test cases ({sum(seen.values())} cases)")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
