#pragma once
// A deterministic mutation fuzzer for builds without libFuzzer (gcc): seeded
// mutations of the corpus files (byte flips, inserted and deleted bytes,
// truncations, splices of two files, lines duplicated or swapped, YAML values
// replaced by awkward ones, keys swapped between lines), each input given to
// `target`. A crash (abort, uncaught exception, sanitizer report) ends the
// process; the input is written to fuzz-crash.bin first.
//
//   fuzz_reader SECONDS CORPUS_DIR [SEED]
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace ksim::fuzz {

// SplitMix64: the driver's own stream, so a seed gives the same inputs.
struct Random {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }
};

inline const std::vector<std::string>& awkward_values() {
  static const std::vector<std::string> values{
      "", "-1", "0", "1", "18446744073709551616", "99999999999999999999999", "-9223372036854775809", "1e309",
      "nan", "inf", "0.0000001ns", "1.5", "5", "250ms", "16KiB", "10Gbps", "50%", "max", "[]", "{}", "[1, [2]]",
      "{a: {b: c}}", "~", "null", "true", "'", "\"", "*a", "&a x", "!!binary AA==", "? x", "- x", "|\n  x",
      std::string(300, 'a'), std::string(251, 'p'), "../../x", "/dev/zero", "{{name}}", "\t", "é", "\xff",
      "rack:", "coordinator:", "all", "broker-0", "[broker-0, broker-0]", "{distribution: pareto, scale: 0, shape: 0}",
      "{distribution: uniform, min: 5s, max: 1s}", "{min: 1, max: 0}"};
  return values;
}

inline std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

inline std::string join_lines(const std::vector<std::string>& lines) {
  std::string text;
  for (std::size_t i = 0; i < lines.size(); ++i) text += (i ? "\n" : "") + lines[i];
  return text;
}

inline std::string mutate(std::string text, const std::vector<std::string>& corpus, Random& r) {
  const int rounds = 1 + static_cast<int>(r.below(4));
  for (int round = 0; round < rounds; ++round) {
    switch (r.below(10)) {
      case 0:  // flip a byte
        if (!text.empty()) text[r.below(text.size())] ^= static_cast<char>(1u << r.below(8));
        break;
      case 1:  // insert a byte
        text.insert(text.begin() + static_cast<std::ptrdiff_t>(r.below(text.size() + 1)), static_cast<char>(r.below(256)));
        break;
      case 2: {  // delete a range
        const std::size_t at = r.below(text.size() + 1);
        text.erase(at, r.below(16));
        break;
      }
      case 3:  // truncate
        text.resize(r.below(text.size() + 1));
        break;
      case 4: {  // splice with another file
        const std::string& other = corpus[r.below(corpus.size())];
        text = text.substr(0, r.below(text.size() + 1)) + other.substr(r.below(other.size() + 1));
        break;
      }
      case 5: case 6: {  // replace a value after "key:" with an awkward one
        auto lines = split_lines(text);
        auto& line = lines[r.below(lines.size())];
        const std::size_t colon = line.find(": ");
        const std::string& value = awkward_values()[r.below(awkward_values().size())];
        if (colon != std::string::npos) line = line.substr(0, colon + 2) + value;
        else line += value;
        text = join_lines(lines);
        break;
      }
      case 7: {  // duplicate or swap lines
        auto lines = split_lines(text);
        const std::size_t a = r.below(lines.size()), b = r.below(lines.size());
        if (r.below(2)) std::swap(lines[a], lines[b]);
        else lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(a), lines[b]);
        text = join_lines(lines);
        break;
      }
      case 8: {  // swap the keys of two lines
        auto lines = split_lines(text);
        auto& a = lines[r.below(lines.size())];
        auto& b = lines[r.below(lines.size())];
        const std::size_t ca = a.find(':'), cb = b.find(':');
        if (ca != std::string::npos && cb != std::string::npos) {
          const std::string ka = a.substr(0, ca), kb = b.substr(0, cb);
          a = kb + a.substr(ca);
          b = ka + b.substr(cb);
        }
        text = join_lines(lines);
        break;
      }
      default: {  // a --set line on top
        const std::string& value = awkward_values()[r.below(awkward_values().size())];
        const char* keys[] = {"duration", "faults.0.at", "brokers.count", "topics.0.partitions", "seed",
                              "producers.0.config[linger.ms]", "profile", "network.racks", "a.b.c", "faults"};
        text = "#set " + std::string(keys[r.below(std::size(keys))]) + "=" + value + "\n" + text;
        break;
      }
    }
  }
  return text;
}

// The input being read, for the crash handler.
inline std::string& current_input() {
  static std::string input;
  return input;
}

// Writes the input that crashed to fuzz-crash.bin (async-signal-safe calls only), then dies of the signal.
inline void save_crash(int signal) {
  const std::string& input = current_input();
  const int fd = ::open("fuzz-crash.bin", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    [[maybe_unused]] const auto written = ::write(fd, input.data(), input.size());
    ::close(fd);
  }
  constexpr char kMessage[] = "fuzz: crash (or a hang: SIGALRM); the input is in fuzz-crash.bin\n";
  [[maybe_unused]] const auto said = ::write(2, kMessage, sizeof kMessage - 1);
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

template <class Target>
int drive(int argc, char** argv, Target target) {
  if (argc < 3) {
    std::cerr << "usage: " << argv[0] << " SECONDS CORPUS_DIR [SEED]\n";
    return 2;
  }
  const double seconds = std::atof(argv[1]);
  Random random{argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1};
  std::vector<std::string> corpus;
  for (const auto& entry : std::filesystem::directory_iterator(argv[2])) {
    std::ifstream in(entry.path(), std::ios::binary);
    corpus.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  if (corpus.empty()) {
    std::cerr << "no corpus files in " << argv[2] << "\n";
    return 2;
  }
  std::string& current = current_input();
  // SIGALRM: an input read for longer than kTimeoutSeconds is a hang, kept as a crash.
  constexpr unsigned kTimeoutSeconds = 10;
  // On a stack of its own, so that a stack overflow is caught too.
  static std::vector<char> signal_stack(1 << 16);
  stack_t alternate{};
  alternate.ss_sp = signal_stack.data();
  alternate.ss_size = signal_stack.size();
  ::sigaltstack(&alternate, nullptr);
  for (const int signal : {SIGABRT, SIGSEGV, SIGFPE, SIGBUS, SIGILL, SIGALRM}) {
    struct sigaction action {};
    action.sa_handler = save_crash;
    action.sa_flags = SA_ONSTACK;
    ::sigaction(signal, &action, nullptr);
  }
  const auto run_one = [&] {
    ::alarm(kTimeoutSeconds);
    target(current);
    ::alarm(0);
  };
  // The wall clock bounds the driver's run, nothing else: inputs depend only on the seed.
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t runs = 0;
  for (const std::string& file : corpus) {
    current = file;
    run_one();
    ++runs;
  }
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) {
    current = mutate(corpus[random.below(corpus.size())], corpus, random);
    run_one();
    ++runs;
  }
  std::cout << "fuzz: " << runs << " inputs, 0 crashes, " << corpus.size() << " corpus files\n";
  return 0;
}

}  // namespace ksim::fuzz
