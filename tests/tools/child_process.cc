#include "child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace univk::testing {
namespace {

[[noreturn]] void exec_child(const std::vector<std::string>& argv, int output_fd, const std::string& stdout_path,
                             uint64_t address_space_bytes) {
  if (address_space_bytes != 0) {
    const rlimit limit{address_space_bytes, address_space_bytes};
    if (::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(127);
  }
  const char* asan = std::getenv("ASAN_OPTIONS");
  const std::string options = std::string(asan != nullptr ? asan : "") + ":detect_leaks=0";
  ::setenv("ASAN_OPTIONS", options.c_str(), 1);
  const int out = stdout_path.empty() ? output_fd : ::open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (out < 0 || ::dup2(out, STDOUT_FILENO) < 0 || ::dup2(output_fd, STDERR_FILENO) < 0) ::_exit(127);
  const int null_in = ::open("/dev/null", O_RDONLY);
  if (null_in >= 0) ::dup2(null_in, STDIN_FILENO);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  ::execv(args[0], args.data());
  ::_exit(127);
}

}  // namespace

ChildResult run_child(const std::vector<std::string>& argv, std::chrono::seconds limit, const std::string& stdout_path,
                      uint64_t address_space_bytes) {
  ChildResult result;
  int fds[2];
  if (argv.empty() || ::pipe2(fds, O_CLOEXEC) != 0) return result;
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return result;
  }
  if (pid == 0) exec_child(argv, fds[1], stdout_path, address_space_bytes);
  ::close(fds[1]);

  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + limit;
  bool open = true;
  while (open) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      result.timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;  // the deadline check above ends the loop
    char buf[4096];
    const ssize_t n = ::read(fds[0], buf, sizeof(buf));
    if (n > 0) {
      result.output.append(buf, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      open = false;
    }
  }
  // The pipe closes when the child exits (or closes stderr); wait for the exit within the limit.
  int status = 0;
  rusage usage{};
  while (!result.timed_out) {
    const pid_t done = ::wait4(pid, &status, WNOHANG, &usage);
    if (done == pid) break;
    if (Clock::now() >= deadline) {
      result.timed_out = true;
      break;
    }
    ::usleep(10000);
  }
  if (result.timed_out) {
    ::kill(pid, SIGKILL);
    ::wait4(pid, &status, 0, &usage);
  }
  ::close(fds[0]);
  result.max_rss_kib = usage.ru_maxrss;
  if (!result.timed_out && WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  return result;
}

}  // namespace univk::testing
