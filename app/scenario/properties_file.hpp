#pragma once
// A Java properties file (java.util.Properties.load, as Kafka's tools read
// server.properties or producer.properties) as the text of a flat YAML
// mapping of strings to strings, each key on the line it had, so that the
// reader's errors give the properties file's line numbers.
#include <string>
#include <string_view>

namespace ksim::config {

std::string properties_as_yaml(std::string_view text);

}  // namespace ksim::config
