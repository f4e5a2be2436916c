// The help, the man pages and the completions come from the parser itself: every
// option the parser takes is documented somewhere, every command's help shows its
// options with their values, examples and exit codes, and nothing is wider than asked.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>

#include <set>

#include "cli/command_docs.hpp"
#include "cli/command_line.hpp"
#include "cli/completion_scripts.hpp"
#include "cli/help_text.hpp"
#include "cli/man_page.hpp"
#include "cli/text_wrap.hpp"

namespace gpukill::cli {
namespace {

TEST(HelpText, EveryParsedOptionIsDocumentedForSomeCommandOrEverywhere) {
    const CommandLine command_line;
    std::set<std::string> documented;
    const auto note = [&](const std::vector<OptionDoc>& options) {
        for (const OptionDoc& option : options) {
            documented.insert(option.long_name);
            documented.insert(option.aliases.begin(), option.aliases.end());
        }
    };
    for (Command command : kAllCommands) note(command_line.options_for(command));
    note(command_line.common_options());
    note(command_line.compatible_forms());
    for (const std::string& name : command_line.long_option_names()) {
        if (name == "--help" || name == "--version") continue;
        EXPECT_TRUE(documented.count(name) == 1) << name << " is parsed but in no help";
    }
}

TEST(HelpText, ValuesAreNamedNotCli11Types) {
    const CommandLine command_line;
    for (Command command : kAllCommands) {
        for (const OptionDoc& option : command_line.options_for(command)) {
            EXPECT_TRUE(option.value != "TEXT" && option.value != "INT" && option.value != "UINT" &&
                        option.value != "FLOAT")
                << option.long_name << " shows " << option.value;
            EXPECT_FALSE(option.description.empty()) << option.long_name;
        }
    }
}

TEST(HelpText, KillHelpShowsItsOptionsExamplesAndExitCodesAndNotListOnlyOnes) {
    const CommandLine command_line;
    const std::string help =
        command_help(command_doc(Command::kill), command_line.options_for(Command::kill), 80);
    for (const char* expected :
         {"-p, --pid PID", "--force", "--dry-run, --safe", "--any-process", "--procfs DIR",
          "Examples:", "gpukill kill --pid 4242", "Exit codes:", "survived"}) {
        EXPECT_NE(help.find(expected), std::string::npos) << expected << "\n" << help;
    }
    EXPECT_EQ(help.find("--details"), std::string::npos) << "a list-only option";
    EXPECT_EQ(help.find("--audit-hours"), std::string::npos);
    EXPECT_LE(widest_line(help), 80u) << help;
}

TEST(HelpText, TopLevelHelpListsCommandsNotEveryOption) {
    const CommandLine command_line;
    const std::string help =
        top_level_help(command_line.common_options(), command_line.compatible_forms(), 80);
    for (Command command : kAllCommands) {
        EXPECT_NE(help.find(std::string("  ") + command_name(command) + " "), std::string::npos)
            << command_name(command);
    }
    EXPECT_EQ(help.find("--min-memory"), std::string::npos) << help;
    EXPECT_NE(help.find("gpukill help COMMAND"), std::string::npos);
    EXPECT_LE(widest_line(help), 80u) << help;
}

TEST(ManPage, CarriesTheSameOptionsEscapedForRoff) {
    const CommandLine command_line;
    const PageStamp stamp{.version = "0.1.0", .date = "2026-12-07"};
    const std::string page = command_man_page(command_doc(Command::kill),
                                              command_line.options_for(Command::kill), stamp);
    // A dated title line (mandoc -Tlint warns of a .TH without one: issue 33).
    EXPECT_EQ(page.rfind(".TH GPUKILL-KILL 1 2026-12-07 \"gpukill 0.1.0\"", 0), 0u) << page;
    EXPECT_NE(page.find(".B \\-p, \\-\\-pid PID"), std::string::npos) << page;
    EXPECT_NE(page.find(".SH EXIT STATUS"), std::string::npos);
    EXPECT_EQ(roff_escaped(".start"), "\\&.start");
    EXPECT_EQ(roff_escaped("a\\b"), "a\\eb");
}

// The fleet's options have a page of their own; the commands that run on a fleet point
// to it instead of repeating them (issue 33).
TEST(ManPage, TheFleetOptionsHaveTheirOwnPage) {
    const CommandLine command_line;
    const PageStamp stamp{.version = "0.1.0", .date = "2026-12-07"};
    const std::vector<OptionDoc> options = command_line.options_for(Command::list);
    const std::string fleet = fleet_man_page(options, {Command::list, Command::kill}, stamp);
    EXPECT_EQ(fleet.rfind(".TH GPUKILL-FLEET 1 2026-12-07", 0), 0u) << fleet;
    for (const char* option : {"\\-\\-hosts NODESET", "\\-\\-transport", "\\-\\-fanout N"}) {
        EXPECT_NE(fleet.find(option), std::string::npos) << option << "\n" << fleet;
    }
    EXPECT_NE(fleet.find("list and kill run on every host"), std::string::npos) << fleet;
    const std::string list = command_man_page(command_doc(Command::list), options, stamp);
    EXPECT_EQ(list.find("\\-\\-hosts NODESET\n"), std::string::npos) << list;
    EXPECT_NE(list.find("\\fBgpukill\\-fleet\\fR(1)"), std::string::npos) << list;
}

TEST(Completion, BashScriptKnowsEveryCommandAndValueSources) {
    const CommandLine command_line;
    const std::string script = bash_completion(completion_input(command_line));
    EXPECT_NE(script.find("complete -F _gpukill gpukill"), std::string::npos);
    EXPECT_NE(script.find("__complete \"$1\""), std::string::npos);
    EXPECT_NE(script.find("list) options=\""), std::string::npos);
    EXPECT_NE(script.find("--details"), std::string::npos);
    const std::string zsh = zsh_completion(completion_input(command_line));
    EXPECT_EQ(zsh.rfind("#compdef gpukill", 0), 0u);
    EXPECT_NE(zsh.find("'--gpu[only this GPU"), std::string::npos) << zsh.substr(0, 2000);
}

}  // namespace
}  // namespace gpukill::cli
