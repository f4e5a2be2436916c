#include "cli/completion_scripts.hpp"

#include <fmt/format.h>

#include <set>

#include "cli/command_docs.hpp"
#include "cli/completion_values.hpp"

namespace gpukill::cli {
namespace {

// What an option's value completes to, by its placeholder: the shell's own directories
// or files, what `gpukill __complete` lists, or a fixed set of words (written once here,
// for both shells). A placeholder not listed is a free value (a size, a pattern): nothing
// is offered.
enum class ValueSource { none, directories, files, gpus, pids, words };

struct ValueCompletion {
    const char* placeholder;
    ValueSource source;
    const char* words = "";  // for ValueSource::words, separated by spaces
};

constexpr ValueCompletion kValueCompletions[] = {
    {"GPU", ValueSource::gpus},
    {"PID", ValueSource::pids},
    {"DIR", ValueSource::directories},
    {"FILE", ValueSource::files},
    {"PATH", ValueSource::files},
    {"FORMAT", ValueSource::words, "table json"},
    {"VENDOR", ValueSource::words, "nvidia amd intel all"},
    {"SIGNAL", ValueSource::words, "SIGTERM SIGINT SIGKILL SIGHUP SIGQUIT SIGUSR1 SIGUSR2"},
    {"ACTION", ValueSource::words, "warn terminate kill"},
};

ValueCompletion value_completion(const std::string& placeholder) {
    for (const ValueCompletion& completion : kValueCompletions) {
        if (placeholder == completion.placeholder) return completion;
    }
    return {"", ValueSource::none};
}

// compgen's arguments; empty for a free value.
std::string bash_action(const ValueCompletion& value) {
    switch (value.source) {
        case ValueSource::none:
            return "";
        case ValueSource::directories:
            return "-d";
        case ValueSource::files:
            return "-f";
        case ValueSource::gpus:
            return "-W \"$(_gpukill_values gpus)\"";
        case ValueSource::pids:
            return "-W \"$(_gpukill_values pids)\"";
        case ValueSource::words:
            return fmt::format("-W '{}'", value.words);
    }
    return "";
}

// An _arguments action; a space for a free value (a message, no candidates).
std::string zsh_action(const ValueCompletion& value) {
    switch (value.source) {
        case ValueSource::none:
            return " ";
        case ValueSource::directories:
            return "_directories";
        case ValueSource::files:
            return "_files";
        case ValueSource::gpus:
            return "_gpukill_gpus";
        case ValueSource::pids:
            return "_gpukill_pids";
        case ValueSource::words:
            return fmt::format("({})", value.words);
    }
    return " ";
}

std::vector<std::string> names_of(const OptionDoc& option) {
    std::vector<std::string> names;
    if (!option.short_name.empty()) names.push_back(option.short_name);
    names.push_back(option.long_name);
    names.insert(names.end(), option.aliases.begin(), option.aliases.end());
    return names;
}

std::string joined_names(const std::vector<OptionDoc>& options) {
    std::set<std::string> names;
    for (const OptionDoc& option : options) {
        for (const std::string& name : names_of(option)) names.insert(name);
    }
    names.insert("--help");
    return fmt::format("{}", fmt::join(names, " "));
}

// zsh's _arguments reads [ ] : and quotes in a description as syntax.
std::string zsh_description(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '[') {
            out += '(';
        } else if (c == ']') {
            out += ')';
        } else if (c == ':' || c == '\'' || c == '\\' || c == '`' || c == '$') {
            out += ' ';
        } else {
            out += c;
        }
    }
    return out;
}

}  // namespace

CompletionInput completion_input(const CommandLine& command_line) {
    CompletionInput input;
    for (Command command : kAllCommands) input.options[command] = command_line.options_for(command);
    input.top_level = command_line.common_options();
    for (OptionDoc& form : command_line.compatible_forms()) input.top_level.push_back(form);
    return input;
}

std::string bash_completion(const CompletionInput& input) {
    // Every option that takes a value, by what its value completes to.
    std::map<std::string, std::set<std::string>> by_kind;
    auto note_values = [&](const std::vector<OptionDoc>& options) {
        for (const OptionDoc& option : options) {
            if (option.value.empty()) continue;
            for (const std::string& name : names_of(option)) {
                by_kind[bash_action(value_completion(option.value))].insert(name);
            }
        }
    };
    note_values(input.top_level);
    for (const auto& [command, options] : input.options) note_values(options);

    std::string out =
        "# bash completion for gpukill. Generated from gpukill's option table by\n"
        "# gpukill-docgen; do not edit.\n\n";
    out += fmt::format("_gpukill_values() {{\n    command gpukill {} \"$1\" 2>/dev/null\n}}\n\n",
                       kCompletionValuesCommand);
    // Candidates go through mapfile, not COMPREPLY=($(...)): no word splitting or globbing
    // of what compgen prints (shellcheck SC2207).
    out += "_gpukill_reply() {\n    mapfile -t COMPREPLY < <(compgen \"$@\" -- \"$cur\")\n}\n\n";
    out += "_gpukill() {\n";
    out += "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n";
    out += "    local command='' subcommand='' word i\n";
    out += "    for ((i = 1; i < COMP_CWORD; i++)); do\n";
    out += "        word=${COMP_WORDS[i]}\n";
    // The first command word names the command; after `guard`, its own words (check is
    // both a command and guard's subcommand: one pattern each, none shadowed).
    out += "        if [[ -z $command ]]; then\n";
    out += fmt::format("            case $word in {}|help) command=$word ;; esac\n",
                       fmt::join(command_words(), "|"));
    out += "        elif [[ $command == guard && -z $subcommand ]]; then\n";
    out += "            case $word in init|check|test|run) subcommand=$word ;; esac\n";
    out += "        fi\n";
    out += "    done\n";
    out += "    case $prev in\n";
    for (const auto& [kind, names] : by_kind) {
        out += fmt::format("        {})\n", fmt::join(names, "|"));
        if (kind.empty()) {
            out += "            COMPREPLY=()\n            return ;;\n";
        } else {
            out += fmt::format("            _gpukill_reply {}\n            return ;;\n", kind);
        }
    }
    out += "    esac\n";
    out += "    local options\n    case $command in\n";
    for (const auto& [command, options] : input.options) {
        out += fmt::format("        {}) options=\"{}\" ;;\n", command_name(command),
                           joined_names(options));
    }
    out += fmt::format("        *) options=\"{} --version\" ;;\n", joined_names(input.top_level));
    out += "    esac\n";
    out += "    if [[ $cur == -* ]]; then\n";
    out += "        _gpukill_reply -W \"$options\"\n        return\n    fi\n";
    out += "    case $command in\n";
    out += fmt::format("        '') _gpukill_reply -W \"{} help\" ;;\n",
                       fmt::join(command_words(), " "));
    out +=
        fmt::format("        help) _gpukill_reply -W \"{}\" ;;\n", fmt::join(command_words(), " "));
    out += "        kill) _gpukill_reply -W \"$(_gpukill_values pids)\" ;;\n";
    out += "        reset) _gpukill_reply -W \"$(_gpukill_values gpus)\" ;;\n";
    out += "        guard)\n";
    out += "            case $subcommand in\n";
    out += "                '') _gpukill_reply -W \"init check test run\" ;;\n";
    out += "                check) _gpukill_reply -f ;;\n";
    out += "            esac ;;\n";
    out += "    esac\n}\n\ncomplete -F _gpukill gpukill\n";
    return out;
}

std::string zsh_completion(const CompletionInput& input) {
    std::string out =
        "#compdef gpukill\n"
        "# zsh completion for gpukill. Generated from gpukill's option table by\n"
        "# gpukill-docgen; do not edit.\n\n";
    out += fmt::format(
        "_gpukill_gpus() {{\n    local -a values\n    values=(${{(f)\"$(gpukill {} gpus "
        "2>/dev/null)\"}})\n    compadd -a values\n}}\n\n",
        kCompletionValuesCommand);
    out += fmt::format(
        "_gpukill_pids() {{\n    local -a values\n    values=(${{(f)\"$(gpukill {} pids "
        "2>/dev/null)\"}})\n    compadd -a values\n}}\n\n",
        kCompletionValuesCommand);
    auto specs = [](const std::vector<OptionDoc>& options) {
        std::string text;
        for (const OptionDoc& option : options) {
            for (const std::string& name : names_of(option)) {
                text +=
                    fmt::format(" \\\n        '{}[{}]", name, zsh_description(option.description));
                if (!option.value.empty()) {
                    text += fmt::format(":{}:{}", option.value,
                                        zsh_action(value_completion(option.value)));
                }
                text += "'";
            }
        }
        return text;
    };
    out += "_gpukill() {\n    local -a commands\n    commands=(\n";
    for (Command command : kAllCommands) {
        out += fmt::format("        '{}:{}'\n", command_name(command),
                           zsh_description(command_doc(command).summary));
    }
    out += "        'help:the options, examples and exit codes of a command'\n    )\n";
    out += "    if (( CURRENT == 2 )) && [[ $words[2] != -* ]]; then\n";
    out += "        _describe -t commands 'gpukill command' commands\n        return\n    fi\n";
    out += "    local command=$words[2]\n    shift words\n    (( CURRENT-- ))\n";
    out += "    case $command in\n";
    for (const auto& [command, options] : input.options) {
        std::string positional;
        if (command == Command::kill) positional = " \\\n        '*:PID:_gpukill_pids'";
        if (command == Command::reset) positional = " \\\n        '*:GPU:_gpukill_gpus'";
        if (command == Command::guard) {
            positional = " \\\n        '1:subcommand:(init check test run)' '*:file:_files'";
        }
        out += fmt::format("        {})\n            _arguments -s{}{} ;;\n", command_name(command),
                           specs(options), positional);
    }
    out += "        help) _describe -t commands 'gpukill command' commands ;;\n";
    out += fmt::format("        *) _arguments -s{} ;;\n", specs(input.top_level));
    out += "    esac\n}\n\n_gpukill \"$@\"\n";
    return out;
}

}  // namespace gpukill::cli
