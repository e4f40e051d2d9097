// `simfa report results.sqlite -o report.html`: one self-contained HTML page (inline SVG and CSS)
// about the results database of `simfa sweep` (report/html_report.h; docs/studies.md).
#include <algorithm>
#include <memory>

#include "cli/commands.h"
#include "cli/common.h"
#include "report/html_report.h"
#include "report/results_db.h"
#include "sim/files.h"

namespace simfa::cli {

void add_report_command(CLI::App& app) {
  struct Opts {
    std::string db, output;
    report::HtmlReportOptions page;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("report", "an HTML page (tables, SVG charts) of a results database of simfa sweep");
  cmd->add_option("db", o->db, "the SQLite database simfa sweep --db wrote")->required();
  cmd->add_option("-o,--output", o->output, "HTML file to write (- for standard output)")
      ->required()
      ->check(output_file());
  cmd->add_option("--study", o->page.studies, "only this study (repeatable; default: every study)")
      ->allow_extra_args(false);
  cmd->add_option("--title", o->page.title, "the page's title (default: simfa report: FILE)");
  cmd->callback([o] {
    const report::ResultsDb db = report::read_results_db(o->db);
    write_output_file(o->output, report::html_report(db, o->page));
    std::vector<std::string> studies;
    for (const auto& s : o->page.studies.empty() ? db.study_names() : o->page.studies)
      if (std::find(studies.begin(), studies.end(), s) == studies.end()) studies.push_back(s);
    std::size_t points = 0;
    for (const auto& row : db.points)
      points += std::count(studies.begin(), studies.end(), db.cell(row, "study").text);
    report_stream({o->output}) << "wrote " << (o->output == kStdout ? std::string("standard output") : o->output)
                               << ": " << studies.size() << (studies.size() == 1 ? " study, " : " studies, ") << points
                               << (points == 1 ? " point\n" : " points\n");
  });
}

}  // namespace simfa::cli
