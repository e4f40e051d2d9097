// Variants of a concept (slice hashes, replacement policies, DRAM and warp schedulers, memory
// models, ...), Ramulator 2's style: a variant is one file that defines a `Variant` (its name as
// the configuration writes it, one line of documentation, and its factory or value); the kind's
// `VariantList` names every variant once, in one function in one file. The configuration key's
// choices and documentation (`variant_param`, hence `simfa config show` and docs/configuration.md)
// and the error for an unknown name come from that list, so no `if` chain or ternary with a
// default branch maps a name to an implementation.
//
// Why an explicit list rather than objects that register themselves from static initialisers:
// the libraries are static archives, and a linker drops an archive member that nothing
// references, so a self-registering variant silently vanishes from a program that never names it
// (and the order of static initialisation across files is unspecified). The list refers to each
// variant by name, so the linker keeps it; a `Variant` is a constant-initialised aggregate
// (`constinit`: two string views and a function pointer or an enum), so nothing runs before
// main, and the list itself is a function-local static built on first use. See
// docs/architecture.md ("Variants").
#pragma once
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "sim/config.h"
#include "sim/error.h"

namespace simfa {

template <class Make>
struct Variant {
  std::string_view name;  // as the configuration writes it: "xor", "frfcfs"
  std::string_view doc;   // one line, no final period
  Make make;              // the factory (a function pointer) or the value the name stands for
};

template <class Make>
class VariantList {
 public:
  // `where` is what names a variant (a key "mem.l2.hash", a flag "--ablate") and `what` the kind
  // ("slice hash"), for messages. Names must be unique and non-empty: InternalError otherwise (a
  // programming error, found by any test that runs).
  VariantList(std::string where, std::string what, std::initializer_list<const Variant<Make>*> variants)
      : where_(std::move(where)), what_(std::move(what)), variants_(variants) {
    for (std::size_t i = 0; i < variants_.size(); ++i) {
      if (variants_[i]->name.empty()) throw InternalError(fmt::format("{}: a {} without a name", where_, what_));
      for (std::size_t j = 0; j < i; ++j)
        if (variants_[j]->name == variants_[i]->name)
          throw InternalError(fmt::format("{}: two {} variants named '{}'", where_, what_, variants_[i]->name));
    }
  }

  // The variant called `name`; otherwise UserError "WHERE: unknown WHAT 'NAME' (expected one of: ...)".
  const Variant<Make>& get(std::string_view name) const {
    for (const auto* v : variants_)
      if (v->name == name) return *v;
    throw UserError(fmt::format("{}: unknown {} '{}' (expected one of: {})", where_, what_, name, names_text()));
  }
  const std::vector<const Variant<Make>*>& all() const { return variants_; }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto* v : variants_) out.emplace_back(v->name);
    return out;
  }
  // "a, b, c"
  std::string names_text() const {
    std::string s;
    for (const auto* v : variants_) s += fmt::format("{}{}", s.empty() ? "" : ", ", v->name);
    return s;
  }
  // "a = doc of a; b = doc of b"
  std::string docs_text() const {
    std::string s;
    for (const auto* v : variants_) s += fmt::format("{}{} = {}", s.empty() ? "" : "; ", v->name, v->doc);
    return s;
  }

 private:
  std::string where_, what_;
  std::vector<const Variant<Make>*> variants_;
};

// The Enum descriptor of a key whose value names a variant: its choices are the list's names and
// its documentation is `doc` followed by each variant's line ("doc: a = ...; b = ...").
template <class Make>
ParamDesc variant_param(std::string key, std::string default_name, std::string doc, std::string source,
                        const VariantList<Make>& list) {
  ParamDesc d;
  d.key = std::move(key);
  d.type = ParamType::Enum;
  d.default_text = std::move(default_name);
  d.doc = fmt::format("{}: {}", doc, list.docs_text());
  d.source = std::move(source);
  d.min = 0;
  d.max = 0;
  d.choices = list.names();
  return d;
}

}  // namespace simfa
