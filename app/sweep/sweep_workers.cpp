#include "app/sweep/sweep_workers.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <list>

#include <fmt/format.h>

#include "app/sweep/sweep_plan.hpp"

extern char** environ;

namespace ksim::app::sweep {

namespace {

using Clock = std::chrono::steady_clock;

struct Child {
  pid_t pid = -1;
  std::size_t id = 0;
  std::array<int, 2> fds{-1, -1};  // read ends of the child's stdout and stderr
  std::array<std::string, 2> text;
  Clock::time_point start;

  bool streams_closed() const { return fds[0] < 0 && fds[1] < 0; }
};

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// Pipes are close-on-exec so that a child inherits only its own two, through dup2.
std::array<int, 2> make_pipe() {
  std::array<int, 2> ends{-1, -1};
  if (::pipe2(ends.data(), O_CLOEXEC) != 0) throw SweepError(fmt::format("cannot make a pipe: {}", std::strerror(errno)));
  return ends;
}

Child spawn(const std::string& binary, const Job& job) {
  auto out = make_pipe();
  auto err = make_pipe();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);  // runs never read stdin
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);

  std::vector<char*> argv{const_cast<char*>("ksim")};
  for (const auto& a : job.arguments) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  Child child;
  child.id = job.id;
  child.start = Clock::now();
  const int rc = ::posix_spawn(&child.pid, binary.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close_fd(out[1]);
  close_fd(err[1]);
  child.fds = {out[0], err[0]};
  if (rc != 0) {
    close_fd(child.fds[0]);
    close_fd(child.fds[1]);
    throw SweepError(fmt::format("cannot start {}: {}", binary, std::strerror(rc)));
  }
  return child;
}

// Reads what is there; a read of 0 bytes is the end of the stream.
void drain(Child& child, std::size_t stream) {
  std::array<char, 65536> buffer;
  const ssize_t n = ::read(child.fds[stream], buffer.data(), buffer.size());
  if (n > 0) {
    child.text[stream].append(buffer.data(), static_cast<std::size_t>(n));
  } else if (n == 0 || errno != EINTR) {
    close_fd(child.fds[stream]);
  }
}

Finished reap(Child& child) {
  int status = 0;
  while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  Finished f;
  f.id = child.id;
  if (WIFEXITED(status)) f.exit_status = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) f.signal = WTERMSIG(status);
  f.out = std::move(child.text[0]);
  f.err = std::move(child.text[1]);
  f.process_wall_s = std::chrono::duration<double>(Clock::now() - child.start).count();
  return f;
}

// Owns the running children: whatever way run_jobs leaves, none is left behind.
class Running {
 public:
  ~Running() { stop(); }

  std::list<Child> children;

  void stop() {
    for (auto& child : children) {
      ::kill(child.pid, SIGTERM);
      close_fd(child.fds[0]);
      close_fd(child.fds[1]);
      reap(child);
    }
    children.clear();
  }

  // Waits up to `timeout` for output and reads it.
  void poll_once(std::chrono::milliseconds timeout) {
    std::vector<pollfd> polled;
    std::vector<std::pair<Child*, std::size_t>> owners;
    for (auto& child : children) {
      for (std::size_t s = 0; s < 2; ++s) {
        if (child.fds[s] < 0) continue;
        polled.push_back({child.fds[s], POLLIN, 0});
        owners.emplace_back(&child, s);
      }
    }
    const int ready = ::poll(polled.data(), polled.size(), static_cast<int>(timeout.count()));
    if (ready <= 0) return;  // timeout or EINTR: the caller loops
    for (std::size_t i = 0; i < polled.size(); ++i) {
      if (polled[i].revents != 0) drain(*owners[i].first, owners[i].second);
    }
  }
};

}  // namespace

void run_jobs(const std::vector<Job>& jobs, const PoolOptions& options,
              const std::function<bool(Finished&&)>& on_finish) {
  Running running;
  std::size_t next = 0;
  while (next < jobs.size() || !running.children.empty()) {
    while (running.children.size() < options.parallel && next < jobs.size()) {
      running.children.push_back(spawn(options.binary, jobs[next++]));
    }
    running.poll_once(std::chrono::milliseconds(250));
    for (auto it = running.children.begin(); it != running.children.end();) {
      if (!it->streams_closed()) {
        ++it;
        continue;
      }
      Finished finished = reap(*it);
      it = running.children.erase(it);
      if (!on_finish(std::move(finished))) return;  // ~Running stops the others
    }
    if (options.on_tick) options.on_tick();
  }
}

}  // namespace ksim::app::sweep
