#pragma once
// CSV as RFC 4180 has it, for sweep results: a field is quoted only when it
// holds a comma, a double quote or a line break, so the text of a row is a
// function of its fields alone. Lines end in "\n" (not the RFC's CRLF) so
// the files diff and grep well on Unix; the reader takes either.
#include <istream>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ksim::app::csv {

using Row = std::vector<std::string>;

class CsvError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The field as it appears in a file: quoted, with quotes doubled, only when needed.
std::string field(std::string_view text);

// Writes the fields separated by commas and ends the line.
void write_row(std::ostream& out, const Row& row);

// Reads every row of a file. Throws CsvError (naming the line) on an unterminated quote
// or text after a closing quote.
std::vector<Row> read(std::istream& in);

}  // namespace ksim::app::csv
