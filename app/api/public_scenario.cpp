// ksim::Scenario (include/ksim/scenario.hpp) over the scenario reader: the
// source (a file or text) and the overrides are kept, and the scenario is
// read again after every change, so a bad value is an error at once.
#include "app/api/public_scenario.hpp"

#include "app/report/report_expectations.hpp"
#include "app/scenario/config_reader.hpp"

namespace ksim {

void Scenario::Impl::read() {
  try {
    config::Document document = from_file ? config::Document::load_file(source)
                                          : config::Document::from_string(source, file_name);
    for (const std::string& o : overrides) document.apply_override(o);
    scenario = app::read_scenario(document, app::expectation_catalogue());
  } catch (const config::ConfigError& e) {
    throw ScenarioError(e.what());
  }
}

Scenario::Scenario(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) { impl_->read(); }

Scenario Scenario::load(const std::string& path) {
  auto impl = std::make_unique<Impl>();
  impl->from_file = true;
  impl->source = path;
  impl->file_name = path;
  return Scenario(std::move(impl));
}

Scenario Scenario::parse(std::string_view yaml, std::string file_name) {
  auto impl = std::make_unique<Impl>();
  impl->source = std::string(yaml);
  impl->file_name = std::move(file_name);
  return Scenario(std::move(impl));
}

Scenario& Scenario::set(std::string_view key, std::string_view value) {
  impl_->overrides.push_back(std::string(key) + "=" + std::string(value));
  try {
    impl_->read();
  } catch (...) {
    impl_->overrides.pop_back();  // the scenario stays as it was
    throw;
  }
  return *this;
}

Scenario& Scenario::seed(std::uint64_t seed) { return set("seed", std::to_string(seed)); }

std::uint64_t Scenario::seed() const { return impl_->scenario.seed; }
const std::string& Scenario::name() const { return impl_->scenario.name; }
const std::string& Scenario::file() const { return impl_->file_name; }
std::chrono::nanoseconds Scenario::duration() const { return std::chrono::nanoseconds(impl_->scenario.duration); }

Scenario::Scenario(const Scenario& other) : impl_(std::make_unique<Impl>(*other.impl_)) {}
Scenario& Scenario::operator=(const Scenario& other) {
  if (this != &other) impl_ = std::make_unique<Impl>(*other.impl_);
  return *this;
}
Scenario::Scenario(Scenario&&) noexcept = default;
Scenario& Scenario::operator=(Scenario&&) noexcept = default;
Scenario::~Scenario() = default;

}  // namespace ksim
