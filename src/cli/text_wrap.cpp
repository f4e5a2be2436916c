#include "cli/text_wrap.hpp"

#include <algorithm>

namespace gpukill::cli {
namespace {

bool is_continuation_byte(char c) {
    return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// The byte offset after the first `columns` code points of `text`.
std::size_t offset_of_column(std::string_view text, std::size_t columns) {
    std::size_t offset = 0;
    for (std::size_t seen = 0; offset < text.size(); ++offset) {
        if (!is_continuation_byte(text[offset])) {
            if (seen == columns) break;
            ++seen;
        }
    }
    return offset;
}

// The shortest width that still leaves room to read: narrower terminals get lines cut
// at this width instead of one word per line.
constexpr std::size_t kNarrowest = 20;

}  // namespace

std::size_t display_width(std::string_view text) {
    return static_cast<std::size_t>(
        std::count_if(text.begin(), text.end(), [](char c) { return !is_continuation_byte(c); }));
}

std::size_t widest_line(std::string_view text) {
    std::size_t widest = 0;
    while (!text.empty()) {
        const std::size_t end = std::min(text.find('\n'), text.size());
        widest = std::max(widest, display_width(text.substr(0, end)));
        text.remove_prefix(std::min(end + 1, text.size()));
    }
    return widest;
}

std::vector<std::string> wrap_words(std::string_view text, std::size_t width) {
    width = std::max<std::size_t>(width, 1);
    std::vector<std::string> lines;
    std::string line;
    std::size_t position = 0;
    while (position < text.size()) {
        while (position < text.size() && text[position] == ' ') ++position;
        if (position >= text.size()) break;
        std::size_t end = text.find(' ', position);
        if (end == std::string_view::npos) end = text.size();
        std::string_view word = text.substr(position, end - position);
        position = end;
        const std::size_t needed = display_width(line) + (line.empty() ? 0 : 1);
        if (!line.empty() && needed + display_width(word) > width) {
            lines.push_back(std::move(line));
            line.clear();
        }
        while (display_width(word) > width) {  // a path or URL longer than the line
            if (!line.empty()) {
                lines.push_back(std::move(line));
                line.clear();
            }
            const std::size_t cut = offset_of_column(word, width);
            lines.emplace_back(word.substr(0, cut));
            word.remove_prefix(cut);
        }
        if (word.empty()) continue;
        if (!line.empty()) line += ' ';
        line += word;
    }
    if (!line.empty() || lines.empty()) lines.push_back(std::move(line));
    return lines;
}

std::string cut_to_width(std::string_view text, std::size_t width) {
    if (display_width(text) <= width) return std::string(text);
    if (width == 0) return {};
    std::string cut(text.substr(0, offset_of_column(text, width - 1)));
    while (!cut.empty() && cut.back() == ' ') cut.pop_back();
    return cut + "…";
}

std::string fit_to_width(std::string_view text, OutputWidth width) {
    if (!width) return std::string(text);
    const std::size_t limit = std::max(*width, kNarrowest);
    std::string out;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        const bool has_newline = end != std::string_view::npos;
        if (!has_newline) end = text.size();
        std::string_view line = text.substr(start, end - start);
        start = has_newline ? end + 1 : end;
        if (display_width(line) <= limit) {
            out += line;
        } else {
            const std::size_t indent =
                std::min(line.find_first_not_of(' '), limit / 2);  // npos: all spaces
            const std::string first_pad(indent, ' ');
            const std::string next_pad(std::min(indent + 2, limit / 2), ' ');
            std::vector<std::string> wrapped =
                wrap_words(line.substr(std::min(indent, line.size())), limit - next_pad.size());
            for (std::size_t i = 0; i < wrapped.size(); ++i) {
                if (i > 0) out += '\n';
                out += (i == 0 ? first_pad : next_pad) + wrapped[i];
            }
        }
        if (has_newline) out += '\n';
    }
    return out;
}

}  // namespace gpukill::cli
