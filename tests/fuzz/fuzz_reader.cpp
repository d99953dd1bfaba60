// A fuzz target for the scenario reader: any input must either read or give a
// ConfigError (ksim's exit 2); an abort, another exception or a sanitizer
// report is a crash. Built by scripts/fuzz-reader (CMake option KSIM_FUZZ):
// with clang as a libFuzzer target (-fsanitize=fuzzer,address,undefined),
// else with a deterministic mutation driver of its own (main below).
//
// An input is a scenario; one starting with "#properties\n" is a properties
// file given as a producer's config_file; lines "#set KEY=VALUE" at its top
// are applied as --set.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <string_view>

#include "app/report/report_expectations.hpp"
#include "app/scenario/properties_file.hpp"
#include "app/scenario/scenario.hpp"
#include "app/scenario/text_file.hpp"

namespace {

void read_one(std::string_view input) {
  using namespace ksim;
  try {
    config::check_text(input, "fuzz.yaml");
    std::string text(input);
    const bool properties = text.rfind("#properties\n", 0) == 0;
    if (properties) {
      const std::string yaml = config::properties_as_yaml(input.substr(12));
      config::Document props = config::Document::from_string(yaml, "fuzz.properties");
      config::MapReader root = props.root();
      for (const std::string& key : root.keys()) root.get<std::string>(key, "");
      return;
    }
    config::Document document = config::Document::from_string(text, "fuzz.yaml");
    std::size_t pos = 0;
    while (pos < text.size() && text.compare(pos, 5, "#set ") == 0) {
      const std::size_t end = std::min(text.find('\n', pos), text.size());
      document.apply_override(text.substr(pos + 5, end - pos - 5));
      pos = end + 1;
    }
    const app::Scenario scenario = app::read_scenario(document, app::expectation_catalogue());
    app::check_something_to_simulate(document, scenario);
  } catch (const config::ConfigError&) {
    // bad input, well reported: ksim exits 2
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  read_one(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}

#ifndef KSIM_LIBFUZZER
#include "tests/fuzz/mutation_driver.hpp"

int main(int argc, char** argv) { return ksim::fuzz::drive(argc, argv, read_one); }
#endif
