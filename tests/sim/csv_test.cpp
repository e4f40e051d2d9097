// The one CSV reader: comments, blank lines, BOM and spaces; widths checked against the header with
// file:line; tables without a header.
#include <gtest/gtest.h>

#include <sstream>

#include "sim/csv.h"
#include "sim/error.h"

namespace simfa {
namespace {

TEST(Csv, SkipsCommentsBlankLinesAndTheBomAndTrimsFields) {
  std::istringstream in("\xEF\xBB\xBF# a comment\n a , b\t\n\n1, 2 \r\n# more\n3,\n");
  const CsvTable t = parse_csv(in, "t.csv");
  EXPECT_EQ(t.header, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(t.header_line, 2);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0], (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(t.rows[1], (std::vector<std::string>{"3", ""}));
  EXPECT_EQ(t.where(1), "t.csv:6");
  EXPECT_EQ(t.column("b"), 1u);
}

TEST(Csv, ARowOfAnotherWidthOrAMissingColumnNamesTheFile) {
  std::istringstream in("a,b\n1,2,3\n");
  try {
    parse_csv(in, "t.csv");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "t.csv:2: 3 fields, but the header has 2 columns");
  }
  std::istringstream ok("a,b\n1,2\n");
  const CsvTable t = parse_csv(ok, "t.csv");
  try {
    t.column("c");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "t.csv: no column 'c' (columns: a, b)");
  }
}

TEST(Csv, WithoutAHeaderEveryLineIsARow) {
  std::istringstream in("1,2\n3\n");
  const CsvTable t = parse_csv(in, "p.csv", CsvHeader::None);
  EXPECT_TRUE(t.header.empty());
  EXPECT_EQ(t.rows.size(), 2u);
  std::istringstream empty("# nothing\n");
  EXPECT_EQ(parse_csv(empty, "e.csv").header_line, 0);
}

}  // namespace
}  // namespace simfa
