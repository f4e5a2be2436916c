#include "detect/config_argument_signals.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "detect/cmdline_signals.hpp"
#include "model/quoted_text.hpp"

namespace gpukill::detect {
namespace {

bool names_config_file(std::string_view option) {
    return std::any_of(std::begin(kConfigFileOptions), std::end(kConfigFileOptions),
                       [&](const char* known) { return option == known; });
}

bool separates_words(char c) {
    switch (c) {
        case ' ':
        case '\t':
        case '\r':
        case '\n':
        case '"':
        case '\'':
        case ',':
        case '{':
        case '}':
        case '[':
        case ']':
            return true;
        default:
            return false;
    }
}

// A key as configuration formats write them: letters, digits, '-', '_', '.'.
bool key_like(std::string_view word) {
    return !word.empty() && word.find_first_not_of(
                                "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                "0123456789-_.") == std::string_view::npos;
}

std::string as_option(std::string_view key) {
    return key.starts_with('-') ? std::string(key) : "--" + std::string(key);
}

}  // namespace

std::vector<std::string> config_file_arguments(const std::vector<std::string>& cmdline) {
    std::vector<std::string> files;
    auto add = [&](std::string_view path) {
        if (path.empty() || files.size() >= kMaxConfigFiles) return;
        if (std::find(files.begin(), files.end(), path) == files.end()) files.emplace_back(path);
    };
    for (std::size_t i = 1; i < cmdline.size(); ++i) {
        const std::string_view token = cmdline[i];
        const auto eq = token.find('=');
        if (token.starts_with('-') && eq != std::string_view::npos &&
            names_config_file(token.substr(0, eq))) {
            add(token.substr(eq + 1));
        } else if (names_config_file(token) && i + 1 < cmdline.size()) {
            add(cmdline[++i]);
        }
    }
    return files;
}

std::vector<std::string> config_words(std::string_view text) {
    std::vector<std::string_view> raw;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= text.size(); ++i) {
        if (i < text.size() && !separates_words(text[i])) continue;
        if (i > start) raw.push_back(text.substr(start, i - start));
        start = i + 1;
    }
    std::vector<std::string> words;
    for (std::size_t i = 0; i < raw.size(); ++i) {
        const std::string_view word = raw[i];
        if (word == ":" || word == "=") continue;
        // JSON's `"key": value` and `"key":value` leave the ':' at the start of the next word.
        const std::string_view next = i + 1 < raw.size() ? raw[i + 1] : std::string_view();
        if (key_like(word) && (next.starts_with(':') || next.starts_with('=')) &&
            !next.starts_with("://")) {
            words.push_back(as_option(word));
            if (next.size() > 1) words.emplace_back(next.substr(1));
            ++i;
            continue;
        }
        if (word.size() > 1 && word.back() == ':' && key_like(word.substr(0, word.size() - 1))) {
            words.push_back(as_option(word.substr(0, word.size() - 1)));  // YAML "url:"
            continue;
        }
        const auto eq = word.find('=');
        if (eq != std::string_view::npos && eq > 0 && key_like(word.substr(0, eq))) {
            words.push_back(as_option(word.substr(0, eq)));
            if (eq + 1 < word.size()) words.emplace_back(word.substr(eq + 1));
            continue;
        }
        words.emplace_back(word);
    }
    return words;
}

std::vector<Evidence> judge_config_file(const ArgumentFile& file, const RogueConfig& config) {
    std::vector<Evidence> evidence = judge_words(config_words(file.text), kMaxConfigWords, config);
    const std::string where =
        fmt::format("in the configuration file {}{}: ", quote_escaped(file.path),
                    file.cut ? " (its start)" : "");
    for (Evidence& item : evidence) item.detail = where + item.detail;
    return evidence;
}

}  // namespace gpukill::detect
