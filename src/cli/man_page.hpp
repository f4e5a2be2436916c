// The man pages, gpukill(1), gpukill-CMD(1) and gpukill-fleet(1), written in roff (man(7) macros)
// from the same command table and options as the help, so `man gpukill-kill` and `gpukill help
// kill` cannot disagree. Pure.
#pragma once

#include <string>
#include <vector>

#include "cli/command_docs.hpp"
#include "cli/command_line.hpp"

namespace gpukill::cli {

// What every page's .TH line names: the version, and the date of the source it was
// written from ("2026-12-07": the commit's date, so two builds write the same pages).
struct PageStamp {
    std::string version;
    std::string date;
};

// gpukill(1): the commands, the options every command takes, the exit codes.
std::string top_level_man_page(const std::vector<OptionDoc>& common,
                               const std::vector<OptionDoc>& compatible, const PageStamp& stamp);

// gpukill-CMD(1), less the fleet's options (a pointer to gpukill-fleet(1) instead).
std::string command_man_page(const CommandDoc& doc, const std::vector<OptionDoc>& options,
                             const PageStamp& stamp);

// gpukill-fleet(1): running `commands` on many hosts, with the fleet's options (those of
// `options` in the fleet's group).
std::string fleet_man_page(const std::vector<OptionDoc>& options,
                           const std::vector<Command>& commands, const PageStamp& stamp);

// Text made safe for roff: backslashes escaped, hyphens made \- (so options copy and
// paste as ASCII), a line starting with '.' or '\'' protected.
std::string roff_escaped(const std::string& text);

}  // namespace gpukill::cli
