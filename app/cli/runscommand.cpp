// ragscope-cli runs: the run stores in a folder with their job, status and item counts.
#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/options.h"
#include "core/eval/api/job.h"
#include "core/export/json.h"
#include "core/store/runstore.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;
using nlohmann::json;

constexpr const char* kRunsIntro =
    R"(Lists the run stores in DIR (default: the current folder) with their job, status and item counts.
A run killed mid-way still shows "running"; resume it.
)";

}  // namespace

int runsCommand(const Args& args) {
  std::vector<std::string> dirs;
  bool asJson = false;
  CommandLine cli("runs");
  cli.synopsis("[DIR] [--json]");
  cli.intro(kRunsIntro);
  cli.positionals("DIR", dirs, 1);
  cli.positionalRoles({{PathRole::Input, "DIR"}});
  cli.flag("--json", asJson, "print the list as JSON");
  if (auto exit = cli.parse(args)) return *exit;
  const std::string dir = dirs.empty() ? "." : dirs.front();
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    std::cerr << "ragscope-cli: " << dir << ": not a folder\n";
    return 2;
  }
  std::vector<std::filesystem::path> stores;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.is_regular_file(ec) && store::RunStore::looksLikeRunStore(entry.path())) {
      stores.push_back(entry.path());
    }
  }
  std::sort(stores.begin(), stores.end());
  json list = json::array();
  for (const auto& path : stores) {
    store::RunStore s;
    std::string err;
    if (!s.openReadOnly(path, &err)) {
      list.push_back({{"path", path.string()}, {"error", err}});
      continue;
    }
    const auto record = s.run();
    const auto c = s.counts();
    list.push_back({{"path", path.string()},
                    {"kind", record.kind},
                    {"status", record.status},
                    {"total", c.total},
                    {"done", c.done},
                    {"errors", c.errors},
                    {"not_run", c.pending + c.cancelled},
                    {"cost_usd", c.costUsd},
                    {"updated", record.updated}});
  }
  if (asJson) {
    exporting::writeJson(std::cout, list, 2);
    return 0;
  }
  if (list.empty()) {
    std::cout << "no run stores in " << dir << "\n";
    return 0;
  }
  std::cout << std::left << std::setw(40) << "run" << std::setw(10) << "job" << std::setw(18)
            << "status" << std::right << std::setw(8) << "items" << std::setw(8) << "done"
            << std::setw(8) << "errors" << std::setw(9) << "not run"
            << "  updated\n";
  for (const auto& r : list) {
    if (r.contains("error")) {
      std::cout << std::left << std::setw(40) << r["path"].get<std::string>()
                << "unreadable: " << r["error"].get<std::string>() << "\n";
      continue;
    }
    std::cout << std::left << std::setw(40)
              << std::filesystem::path(r["path"].get<std::string>()).filename().string()
              << std::setw(10) << r["kind"].get<std::string>() << std::setw(18)
              << r["status"].get<std::string>() << std::right << std::setw(8)
              << r["total"].get<std::size_t>() << std::setw(8) << r["done"].get<std::size_t>()
              << std::setw(8) << r["errors"].get<std::size_t>() << std::setw(9)
              << r["not_run"].get<std::size_t>() << "  " << r["updated"].get<std::string>() << "\n";
  }
  return 0;
}

}  // namespace ragscope::cli
