#include "cli/man_page.hpp"

#include <fmt/format.h>

#include <cctype>

#include "cli/help_text.hpp"

namespace gpukill::cli {
namespace {

std::string heading(const std::string& name, const std::string& version) {
    std::string upper;
    for (char c : name) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return fmt::format(".TH {} 1 \"\" \"gpukill {}\" \"User Commands\"\n", upper, version);
}

std::string options_section(const std::vector<OptionDoc>& options) {
    std::string out = ".SH OPTIONS\n";
    std::string group;
    for (const OptionDoc& option : options) {
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
                               const std::vector<OptionDoc>& compatible,
                               const std::string& version) {
    std::string out = heading("gpukill", version);
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
    bool first = true;
    for (Command command : kAllCommands) {
        out += fmt::format("{}\\fBgpukill\\-{}\\fR(1)", first ? "" : ",\n", command_name(command));
        first = false;
    }
    out += "\n";
    return out;
}

std::string command_man_page(const CommandDoc& doc, const std::vector<OptionDoc>& options,
                             const std::string& version) {
    const std::string name = command_name(doc.command);
    std::string out = heading("gpukill-" + name, version);
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
    out += ".SH SEE ALSO\n\\fBgpukill\\fR(1); " + roff_escaped(doc.see_also) + "\n";
    return out;
}

}  // namespace gpukill::cli
