#pragma once
// What the commands share: reading a scenario file as ksim run does (its
// --set and --seed applied), and printing its errors and warnings.
#include <ostream>

#include "app/commands/commands.hpp"
#include "app/scenario/config_reader.hpp"
#include "app/scenario/scenario.hpp"

namespace ksim::app {

config::Document load_document(const RunArgs& args);
// One line per error ("ksim: file:line:column: key: message"), as ConfigErrors::what() has them.
void print_error(std::ostream& err, const config::ConfigError& e);
void print_warnings(std::ostream& err, const Scenario& scenario);

}  // namespace ksim::app
