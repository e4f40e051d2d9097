// The one CSV reader for the tables simfa reads (validation measurements, measured microbenchmark
// curves, plot points): plain fields separated by commas (no quoting), spaces, tabs and CR around
// a field ignored, a UTF-8 byte-order mark dropped, blank lines and lines starting with '#'
// skipped. Every problem is a UserError naming file:line.
#pragma once
#include <cstddef>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace simfa {

struct CsvTable {
  std::string file;                            // as named, for messages
  std::vector<std::string> header;             // empty when read without a header
  std::vector<std::vector<std::string>> rows;  // each as wide as the header (when there is one)
  std::vector<int> lines;                      // 1-based line of each row
  int header_line = 0;

  // Index of column `name`; UserError "FILE: no column 'NAME' (columns: ...)" otherwise.
  std::size_t column(const std::string& name) const;
  // "FILE:LINE" of row `row`, for messages.
  std::string where(std::size_t row) const;
};

enum class CsvHeader { Required, None };

// Reads a table. With CsvHeader::Required the first line is the header (a file with no line leaves
// it empty, header_line 0: the caller says what it expected) and a row of another width is
// "FILE:LINE: N fields, but the header has M columns"; with CsvHeader::None every line is a row.
CsvTable parse_csv(std::istream& in, const std::string& name, CsvHeader header = CsvHeader::Required);
// The same from a file (sim/files.h: a regular file; `what` names it in messages).
CsvTable read_csv(const std::string& path, std::string_view what, CsvHeader header = CsvHeader::Required);
// One line's fields, trimmed.
std::vector<std::string> split_csv_line(std::string_view line);

// A field for a CSV file simfa writes (RFC 4180): as is, or in double quotes (inner quotes doubled)
// when it holds a comma, a quote or a line break. (The reader above takes only unquoted fields:
// the files it reads are simfa's inputs, written by hand or by scripts.)
std::string csv_field(std::string_view text);

}  // namespace simfa
