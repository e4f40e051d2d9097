// Helpers for the report tests: a strict minimal XML well-formedness check (no XML library is a
// project dependency) and running the simfa binary.
#pragma once
#include <array>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace simfa::test {

// Checks: one root element; tags nest and match; attributes are name="value" (or '') and unique
// per element; '<' never appears in text or attribute values; every '&' starts one of the five
// predefined entities or a numeric reference. Allows the XML declaration and comments.
inline bool xml_well_formed(const std::string& s, std::string* err) {
  auto fail = [&](const std::string& what, std::size_t at) {
    if (err) *err = what + " at byte " + std::to_string(at);
    return false;
  };
  auto entity_ok = [&](std::size_t i) {
    static const char* ents[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
    for (const char* e : ents)
      if (s.compare(i, std::char_traits<char>::length(e), e) == 0) return true;
    if (s.compare(i, 2, "&#") == 0) {
      std::size_t j = i + 2;
      while (j < s.size() && std::isalnum(static_cast<unsigned char>(s[j]))) ++j;
      return j < s.size() && s[j] == ';' && j > i + 2;
    }
    return false;
  };
  std::vector<std::string> stack;
  int roots = 0;
  std::size_t i = 0;
  if (s.compare(0, 5, "<?xml") == 0) {
    i = s.find("?>");
    if (i == std::string::npos) return fail("unterminated XML declaration", 0);
    i += 2;
  }
  while (i < s.size()) {
    if (s[i] != '<') {
      if (s[i] == '&' && !entity_ok(i)) return fail("bad entity", i);
      if (stack.empty() && !std::isspace(static_cast<unsigned char>(s[i]))) return fail("text outside the root", i);
      ++i;
      continue;
    }
    if (s.compare(i, 4, "<!--") == 0) {
      const auto e = s.find("-->", i);
      if (e == std::string::npos) return fail("unterminated comment", i);
      i = e + 3;
      continue;
    }
    const bool closing = i + 1 < s.size() && s[i + 1] == '/';
    std::size_t j = i + (closing ? 2 : 1);
    const std::size_t name_start = j;
    while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '-' || s[j] == ':' || s[j] == '_'))
      ++j;
    const std::string name = s.substr(name_start, j - name_start);
    if (name.empty()) return fail("tag without a name", i);
    if (closing) {
      while (j < s.size() && std::isspace(static_cast<unsigned char>(s[j]))) ++j;
      if (j >= s.size() || s[j] != '>') return fail("bad closing tag", i);
      if (stack.empty() || stack.back() != name) return fail("mismatched </" + name + ">", i);
      stack.pop_back();
      i = j + 1;
      continue;
    }
    std::vector<std::string> attrs;
    bool self_closing = false;
    while (true) {
      while (j < s.size() && std::isspace(static_cast<unsigned char>(s[j]))) ++j;
      if (j >= s.size()) return fail("unterminated tag", i);
      if (s[j] == '>') { ++j; break; }
      if (s.compare(j, 2, "/>") == 0) { self_closing = true; j += 2; break; }
      const std::size_t a0 = j;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '-' || s[j] == ':' || s[j] == '_'))
        ++j;
      const std::string an = s.substr(a0, j - a0);
      if (an.empty() || j >= s.size() || s[j] != '=') return fail("bad attribute in <" + name + ">", j);
      for (const auto& a : attrs)
        if (a == an) return fail("repeated attribute " + an, j);
      attrs.push_back(an);
      ++j;
      if (j >= s.size() || (s[j] != '"' && s[j] != '\'')) return fail("unquoted attribute " + an, j);
      const char q = s[j++];
      while (j < s.size() && s[j] != q) {
        if (s[j] == '<') return fail("'<' in attribute " + an, j);
        if (s[j] == '&' && !entity_ok(j)) return fail("bad entity in attribute " + an, j);
        ++j;
      }
      if (j >= s.size()) return fail("unterminated attribute " + an, a0);
      ++j;
    }
    if (stack.empty() && ++roots > 1) return fail("second root element", i);
    if (!self_closing) stack.push_back(name);
    i = j;
  }
  if (!stack.empty()) return fail("unclosed <" + stack.back() + ">", s.size());
  if (roots != 1) return fail("no root element", 0);
  return true;
}

struct CliOut {
  int rc;
  std::string text;  // stdout and stderr
};

inline CliOut simfa_cli(const std::string& args) {
  const std::string cmd = std::string(SIMFA_BIN) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string text;
  std::array<char, 4096> buf{};
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), p)) text.append(buf.data(), n);
  const int status = pclose(p);
  return {WEXITSTATUS(status), text};
}

inline std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("simfa_report_" + name)).string();
}

inline std::string write_temp(const std::string& name, const std::string& content) {
  const std::string p = temp_path(name);
  std::ofstream(p) << content;
  return p;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace simfa::test
