#include "cli/help_text.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cli/text_wrap.hpp"

namespace gpukill::cli {
namespace {

constexpr std::size_t kLabelColumn = 28;  // where descriptions start

// `text` wrapped to `width`, each line indented by `indent`.
std::string paragraph(const std::string& text, std::size_t indent, std::size_t width) {
    std::string out;
    const std::size_t room = width > indent + 20 ? width - indent : 20;
    for (const std::string& line : wrap_words(text, room)) {
        out += std::string(indent, ' ') + line + "\n";
    }
    return out;
}

// A label and its description: on one line when the label leaves room, else the
// description under it.
std::string entry(const std::string& label, const std::string& description, std::size_t width,
                  std::size_t column = kLabelColumn) {
    const std::string head = "  " + label;
    const std::size_t room = width > column + 20 ? width - column : 20;
    std::vector<std::string> lines = wrap_words(description, room);
    std::string out;
    std::size_t first = 0;
    if (display_width(head) + 2 <= column) {
        out += head + std::string(column - display_width(head), ' ') + lines.front() + "\n";
        first = 1;
    } else {
        out += head + "\n";
    }
    for (std::size_t i = first; i < lines.size(); ++i) {
        out += std::string(column, ' ') + lines[i] + "\n";
    }
    return out;
}

}  // namespace

std::string option_label(const OptionDoc& option) {
    std::string label;
    if (!option.short_name.empty()) label += option.short_name + ", ";
    label += option.long_name;
    for (const std::string& alias : option.aliases) label += ", " + alias;
    if (!option.value.empty()) label += " " + option.value;
    return label;
}

std::string top_level_help(const std::vector<OptionDoc>& common,
                           const std::vector<OptionDoc>& compatible, std::size_t width) {
    std::string out = "gpukill: find what holds a GPU and give it back safely\n\n";
    out += "Usage: gpukill COMMAND [OPTIONS]\n";
    out += "       gpukill PID...    (the short form of gpukill kill --pid PID...)\n\n";
    out += "Commands:\n";
    for (Command command : kAllCommands) {
        out += entry(command_name(command), command_doc(command).summary, width, 12);
    }
    out += entry("help", "this text, or a command's: gpukill help kill", width, 12);
    out += "\nOptions every command takes:\n";
    for (const OptionDoc& option : common) {
        out += entry(option_label(option), option.description, width);
    }
    out += entry("-h, --help", "this text; after a command, that command's help", width);
    out += entry("--version", "the version and the commit it was built from", width);
    out += "\ngpu-kill's spellings (each names the command it stands for):\n";
    for (const OptionDoc& option : compatible) {
        out += entry(option_label(option), option.description, width);
    }
    out += "\n";
    out += paragraph(
        "Exit codes: 0 success, 1 the operation failed, 3 invalid arguments, 4 permission "
        "denied, 5 unsupported on this host; each command's help lists its own. Errors are "
        "one stderr line starting with \"gpukill:\".",
        0, width);
    out += "\n";
    out += paragraph(
        "A command's options, examples and exit codes: gpukill help COMMAND (or gpukill "
        "COMMAND --help, man gpukill-COMMAND).",
        0, width);
    return fit_to_width(out, width);
}

std::string command_help(const CommandDoc& doc, const std::vector<OptionDoc>& options,
                         std::size_t width) {
    const std::string name = command_name(doc.command);
    std::string out = fmt::format("gpukill {}: {}\n\n", name, doc.summary);
    for (std::size_t i = 0; i < doc.usage.size(); ++i) {
        out += fmt::format("{}gpukill {}\n", i == 0 ? "Usage: " : "       ", doc.usage[i]);
    }
    out += "\n";
    for (const char* text : doc.paragraphs) out += paragraph(text, 0, width) + "\n";

    // Options under their groups, in the order they first appear.
    std::vector<std::string> groups;
    for (const OptionDoc& option : options) {
        if (std::find(groups.begin(), groups.end(), option.group) == groups.end()) {
            groups.push_back(option.group);
        }
    }
    for (const std::string& group : groups) {
        out += (group.empty() ? std::string("Options") : group) + ":\n";
        for (const OptionDoc& option : options) {
            if (option.group == group) {
                out += entry(option_label(option), option.description, width);
            }
        }
        out += "\n";
    }
    out += "Examples:\n";
    for (const Example& example : doc.examples) {
        out += "  " + std::string(example.command) + "\n";
        out += paragraph(example.meaning, 6, width);
    }
    out += "\nExit codes:\n";
    for (const ExitCodeDoc& code : doc.exit_codes) out += entry(code.code, code.meaning, width, 8);
    out += "\n";
    out += paragraph(fmt::format("More: man gpukill-{}; {}.", name, doc.see_also), 0, width);
    return fit_to_width(out, width);  // a usage line longer than the terminal
}

}  // namespace gpukill::cli
