#include "app/sweep/csv.hpp"

#include <iterator>

#include <fmt/format.h>

namespace ksim::app::csv {

std::string field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  quoted += '"';
  return quoted;
}

void write_row(std::ostream& out, const Row& row) {
  for (std::size_t i = 0; i < row.size(); ++i) {
    if (i > 0) out << ',';
    out << field(row[i]);
  }
  out << '\n';
}

namespace {

// A small state machine over the whole text: quoted fields may hold line breaks,
// so the file cannot be split into lines first.
class Reader {
 public:
  explicit Reader(std::string text) : text_(std::move(text)) {}

  std::vector<Row> rows() {
    std::vector<Row> rows;
    while (pos_ < text_.size()) rows.push_back(row());
    return rows;
  }

 private:
  Row row() {
    Row row;
    while (true) {
      row.push_back(at('"') ? quoted() : plain());
      if (at(',')) {
        ++pos_;
        continue;
      }
      end_of_line();
      return row;
    }
  }

  std::string plain() {
    const std::size_t end = text_.find_first_of(",\r\n", pos_);
    const std::size_t stop = end == std::string::npos ? text_.size() : end;
    std::string value = text_.substr(pos_, stop - pos_);
    if (value.find('"') != std::string::npos) throw error("a double quote inside an unquoted field");
    pos_ = stop;
    return value;
  }

  std::string quoted() {
    const std::size_t start_line = line_;
    std::string value;
    ++pos_;
    while (true) {
      if (pos_ >= text_.size()) throw CsvError(fmt::format("line {}: a quoted field is never closed", start_line));
      const char c = text_[pos_++];
      if (c == '\n') ++line_;
      if (c != '"') {
        value += c;
      } else if (at('"')) {
        value += '"';
        ++pos_;
      } else {
        return value;
      }
    }
  }

  void end_of_line() {
    if (at('\r')) ++pos_;
    if (at('\n')) {
      ++pos_;
      ++line_;
    } else if (pos_ < text_.size()) {
      throw error("text after a closing quote");
    }
  }

  bool at(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  CsvError error(std::string_view what) const { return CsvError(fmt::format("line {}: {}", line_, what)); }

  std::string text_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;
};

}  // namespace

std::vector<Row> read(std::istream& in) {
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return Reader(std::move(text)).rows();
}

}  // namespace ksim::app::csv
