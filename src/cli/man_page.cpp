#include "cli/man_page.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "cli/help_text.hpp"

namespace gpukill::cli {
namespace {

// .TH TITLE SECTION DATE SOURCE MANUAL: man(7) wants the date (mandoc -Tlint warns
// without one).
std::string heading(const std::string& name, const PageStamp& stamp) {
    std::string upper;
    for (char c : name) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return fmt::format(".TH {} 1 {} \"gpukill {}\" \"User Commands\"\n", upper, stamp.date,
                       stamp.version);
}

std::string options_section(const std::vector<OptionDoc>& options) {
    std::string out = ".SH OPTIONS\n";
    std::string group;
    for (const OptionDoc& option : options) {
        // The fleet's options have their own page, gpukill-fleet(1).
        if (option.group == kFleetOptionsGroup) continue;
        if (option.group != group) {
            group = option.group;
            out += ".SS " + roff_escaped(group) + "\n";
        }
        out += ".TP\n.B " + roff_escaped(option_label(option)) + "\n";
        out += roff_escaped(option.description) + "\n";
    }
    return out;
}

}  // namespace

std::string roff_escaped(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '\\') {
            out += "\\e";
        } else if (c == '-') {
            out += "\\-";
        } else {
            out += c;
        }
    }
    if (!out.empty() && (out.front() == '.' || out.front() == '\'')) out.insert(0, "\\&");
    return out;
}

std::string top_level_man_page(const std::vector<OptionDoc>& common,
                               const std::vector<OptionDoc>& compatible, const PageStamp& stamp) {
    std::string out = heading("gpukill", stamp);
    out += ".SH NAME\ngpukill \\- find what holds a GPU and give it back safely\n";
    out +=
        ".SH SYNOPSIS\n.B gpukill\n.I COMMAND\n[\\fIOPTIONS\\fR]\n.br\n.B gpukill\n.I PID\\&...\n";
    out +=
        ".SH DESCRIPTION\ngpukill lists GPUs and every process holding them (also those the "
        "driver does not list), stops runaway processes with proof that their memory came "
        "back, resets a GPU when nothing else helps, enforces policies, audits every action "
        "and finds miners.\n";
    out += ".SH COMMANDS\n";
    for (Command command : kAllCommands) {
        out += fmt::format(".TP\n.B {}\n{} (see \\fBgpukill\\-{}\\fR(1))\n", command_name(command),
                           roff_escaped(command_doc(command).summary), command_name(command));
    }
    out += options_section(common);
    out += ".SS gpu\\-kill's spellings\n";
    for (const OptionDoc& option : compatible) {
        out += ".TP\n.B " + roff_escaped(option_label(option)) + "\n" +
               roff_escaped(option.description) + "\n";
    }
    out +=
        ".SH EXIT STATUS\n0 success, 1 the operation failed, 3 invalid arguments, 4 permission "
        "denied, 5 unsupported on this host; each command's page lists its own.\n";
    out += ".SH SEE ALSO\n";
    for (Command command : kAllCommands) {
        out += fmt::format("\\fBgpukill\\-{}\\fR(1),\n", command_name(command));
    }
    out += "\\fBgpukill\\-fleet\\fR(1)\n";
    return out;
}

std::string command_man_page(const CommandDoc& doc, const std::vector<OptionDoc>& options,
                             const PageStamp& stamp) {
    const std::string name = command_name(doc.command);
    std::string out = heading("gpukill-" + name, stamp);
    out += fmt::format(".SH NAME\ngpukill\\-{} \\- {}\n", name, roff_escaped(doc.summary));
    out += ".SH SYNOPSIS\n";
    for (std::size_t i = 0; i < doc.usage.size(); ++i) {
        out += (i == 0 ? "" : ".br\n") + std::string(".B gpukill\n") + roff_escaped(doc.usage[i]) +
               "\n";
    }
    out += ".SH DESCRIPTION\n";
    for (std::size_t i = 0; i < doc.paragraphs.size(); ++i) {
        out += (i == 0 ? "" : ".PP\n") + roff_escaped(doc.paragraphs[i]) + "\n";
    }
    out += options_section(options);
    out += ".SH EXAMPLES\n";
    for (const Example& example : doc.examples) {
        out += ".TP\n.B " + roff_escaped(example.command) + "\n" + roff_escaped(example.meaning) +
               "\n";
    }
    out += ".SH EXIT STATUS\n";
    for (const ExitCodeDoc& code : doc.exit_codes) {
        out += fmt::format(".TP\n.B {}\n{}\n", code.code, roff_escaped(code.meaning));
    }
    const bool on_a_fleet =
        std::any_of(options.begin(), options.end(),
                    [](const OptionDoc& option) { return option.group == kFleetOptionsGroup; });
    if (on_a_fleet) {
        out += fmt::format(
            ".PP\nOn many hosts: \\fBgpukill {} \\-\\-hosts\\fR \\fINODESET\\fR "
            "(see \\fBgpukill\\-fleet\\fR(1)).\n",
            name);
    }
    out += ".SH SEE ALSO\n\\fBgpukill\\fR(1)";
    if (on_a_fleet) out += ", \\fBgpukill\\-fleet\\fR(1)";
    out += "; " + roff_escaped(doc.see_also) + "\n";
    return out;
}

std::string fleet_man_page(const std::vector<OptionDoc>& options,
                           const std::vector<Command>& commands, const PageStamp& stamp) {
    std::string names;
    for (std::size_t i = 0; i < commands.size(); ++i) {
        names += (i == 0                     ? ""
                  : i + 1 == commands.size() ? " and "
                                             : ", ") +
                 std::string(command_name(commands[i]));
    }
    std::string out = heading("gpukill-fleet", stamp);
    out += ".SH NAME\ngpukill\\-fleet \\- run a gpukill command on many hosts\n";
    out +=
        ".SH SYNOPSIS\n.B gpukill\n.I COMMAND\n\\fB\\-\\-hosts\\fR \\fINODESET\\fR "
        "[\\fIOPTIONS\\fR]\n.br\n.B gpukill\n.I COMMAND\n\\fB\\-\\-hosts\\-file\\fR "
        "\\fIFILE\\fR [\\fIOPTIONS\\fR]\n.br\n.B gpukill\n.I COMMAND\n"
        "\\fB\\-\\-remote\\fR \\fIHOST\\fR [\\fIOPTIONS\\fR]\n";
    out += ".SH DESCRIPTION\n" +
           roff_escaped("With any of these options, " + names +
                        " run on every host named, through OpenSSH (each host runs its own "
                        "gpukill with --json) or through each host's agent (--transport agent). "
                        "Each host's answer is shown in a section that reads as the command's "
                        "text on that host; --json gives one document with every host's. "
                        "kill and reset act in two phases: every host plans first, and acts only "
                        "on the plan it showed.") +
           "\n";
    std::vector<OptionDoc> fleet;
    for (const OptionDoc& option : options) {
        if (option.group == kFleetOptionsGroup) fleet.push_back(option);
    }
    out += ".SH OPTIONS\n";
    for (const OptionDoc& option : fleet) {
        out += ".TP\n.B " + roff_escaped(option_label(option)) + "\n" +
               roff_escaped(option.description) + "\n";
    }
    out += ".SH EXAMPLES\n";
    out += ".TP\n.B " + roff_escaped("gpukill --hosts node[01-32] list") + "\n" +
           roff_escaped("every node's GPUs, one section each") + "\n";
    out += ".TP\n.B " + roff_escaped("gpukill --hosts-file gpu_nodes.json check --json") + "\n" +
           roff_escaped("a Prometheus file_sd inventory; one JSON document") + "\n";
    out += ".SH EXIT STATUS\n" +
           roff_escaped(
               "The highest of the hosts' exit codes; 1 when a host could not be reached "
               "or failed, 3 for invalid arguments.") +
           "\n";
    out += ".SH SEE ALSO\n\\fBgpukill\\fR(1); docs/FLEET.md\n";
    return out;
}

}  // namespace gpukill::cli
