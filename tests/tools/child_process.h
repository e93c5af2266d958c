// Runs a tool as a child process with a time limit, for tests that must not hang when the bug
// they guard against returns (a tool blocked on a FIFO is killed, and the test fails).
// The child runs with LeakSanitizer off (see univk_run_test.cc for why).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace univk::testing {

struct ChildResult {
  int exit_code = -1;      // -1 when killed by a signal or not started
  bool timed_out = false;  // killed at the limit
  std::string output;      // stderr, and stdout unless it went to `stdout_path`
  long max_rss_kib = 0;    // the child's peak resident memory
};

// Runs `argv` (argv[0] is the executable's path). stdout goes to the file `stdout_path` when it
// is not empty (e.g. "/dev/full"), else into `output`. A non-zero `address_space_bytes` limits
// the child's address space (RLIMIT_AS), so large allocations fail as under a memory limit.
ChildResult run_child(const std::vector<std::string>& argv, std::chrono::seconds limit,
                      const std::string& stdout_path = "", uint64_t address_space_bytes = 0);

}  // namespace univk::testing
