// VariantList: lookup by name, the error for an unknown name, duplicate names, and the Enum
// descriptor built from a list (choices, documentation, the configuration's own error).
#include <gtest/gtest.h>

#include "sim/config.h"
#include "sim/error.h"
#include "sim/variants.h"

namespace simfa {
namespace {

using Make = int (*)();
constinit const Variant<Make> kOne{"one", "returns 1", [] { return 1; }};
constinit const Variant<Make> kTwo{"two", "returns 2", [] { return 2; }};

const VariantList<Make>& numbers() {
  static const VariantList<Make> list("test.number", "number", {&kOne, &kTwo});
  return list;
}

TEST(Variants, FindsEachVariantByName) {
  EXPECT_EQ(numbers().get("one").make(), 1);
  EXPECT_EQ(numbers().get("two").make(), 2);
  EXPECT_EQ(numbers().names(), (std::vector<std::string>{"one", "two"}));
}

TEST(Variants, UnknownNameIsAUserErrorListingTheChoices) {
  try {
    numbers().get("three");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "test.number: unknown number 'three' (expected one of: one, two)");
  }
}

TEST(Variants, TwoVariantsWithOneNameAreAnInternalError) {
  EXPECT_THROW(VariantList<Make>("test.number", "number", {&kOne, &kOne}), InternalError);
}

TEST(Variants, DescriptorTakesItsChoicesAndDocsFromTheList) {
  const ParamDesc d = variant_param("test.number", "two", "which number", "a test", numbers());
  EXPECT_EQ(d.type, ParamType::Enum);
  EXPECT_EQ(d.choices, numbers().names());
  EXPECT_EQ(d.doc, "which number: one = returns 1; two = returns 2");
  ParamRegistry reg;
  reg.add(d);
  Config cfg(reg);
  EXPECT_EQ(cfg.s("test.number"), "two");
  cfg.set("test.number", "one", "--set");
  EXPECT_EQ(numbers().get(cfg.s("test.number")).make(), 1);
  try {
    cfg.set("test.number", "three", "--set");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("expected one of: one, two"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace simfa
