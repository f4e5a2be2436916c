#include "net/http_message.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace gpukill::net {
namespace {

// A chunk-size line is a hex number and optional extensions: 1 KiB is ample.
constexpr std::size_t kMaxChunkLine = 1024;
// Empty lines a client may send before a request line (RFC 9112, section 2.2).
constexpr std::size_t kMaxLeadingEmptyLines = 4;

char lower(char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

bool is_tchar(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool is_token(std::string_view text) {
    return !text.empty() && std::all_of(text.begin(), text.end(), is_tchar);
}

// A control byte other than HTAB (NUL, CR, LF, ESC, DEL...).
bool is_control(char c) {
    const auto byte = static_cast<unsigned char>(c);
    return (byte < 0x20 && c != '\t') || byte == 0x7f;
}

std::string_view trim_whitespace(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    return text;
}

// "HTTP/1.1" -> 1, "HTTP/1.0" -> 0; -1 for another HTTP version, -2 for anything else.
int http_minor_version(std::string_view text) {
    if (text == "HTTP/1.1") return 1;
    if (text == "HTTP/1.0") return 0;
    if (text.starts_with("HTTP/") && text.size() == 8 && is_digit(text[5]) && text[6] == '.' &&
        is_digit(text[7])) {
        return -1;
    }
    return -2;
}

// The comma-separated items of every `name` field, trimmed, empty ones dropped.
std::vector<std::string> list_items(const HttpFields& fields, std::string_view name) {
    std::vector<std::string> items;
    for (const HttpField& field : fields.all()) {
        if (!equal_ignoring_case(field.name, name)) continue;
        std::string_view rest = field.value;
        while (!rest.empty()) {
            const std::size_t comma = rest.find(',');
            const std::string_view item = trim_whitespace(rest.substr(0, comma));
            if (!item.empty()) items.emplace_back(item);
            if (comma == std::string_view::npos) break;
            rest.remove_prefix(comma + 1);
        }
    }
    return items;
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::string percent_decode(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '+') {
            out.push_back(' ');
        } else if (c == '%' && i + 2 < text.size() && hex_value(text[i + 1]) >= 0 &&
                   hex_value(text[i + 2]) >= 0) {
            out.push_back(static_cast<char>(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2])));
            i += 2;
        } else {
            out.push_back(c);
        }
    }
    return out;
}

}  // namespace

bool equal_ignoring_case(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                              [](char x, char y) { return lower(x) == lower(y); });
}

bool header_lists(std::string_view value, std::string_view token) {
    while (!value.empty()) {
        const std::size_t comma = value.find(',');
        if (equal_ignoring_case(trim_whitespace(value.substr(0, comma)), token)) return true;
        if (comma == std::string_view::npos) break;
        value.remove_prefix(comma + 1);
    }
    return false;
}

void HttpFields::add(std::string name, std::string value) {
    fields_.push_back(HttpField{std::move(name), std::move(value)});
}

const std::string* HttpFields::find(std::string_view name) const {
    for (const HttpField& field : fields_) {
        if (equal_ignoring_case(field.name, name)) return &field.value;
    }
    return nullptr;
}

std::string HttpFields::value(std::string_view name) const {
    const std::string* found = find(name);
    return found != nullptr ? *found : std::string();
}

std::size_t HttpFields::count(std::string_view name) const {
    return static_cast<std::size_t>(
        std::count_if(fields_.begin(), fields_.end(),
                      [&](const HttpField& f) { return equal_ignoring_case(f.name, name); }));
}

bool HttpHead::keep_alive() const {
    const std::string connection = fields.value("Connection");
    if (header_lists(connection, "close")) return false;
    return minor_version >= 1 || header_lists(connection, "keep-alive");
}

HttpMessageReader::HttpMessageReader(HttpMessageKind kind, HttpLimits limits)
    : kind_(kind), limits_(limits) {}

HttpReadState HttpMessageReader::fail(int status, std::string reason) {
    state_ = HttpReadState::failed;
    failure_ = HttpReadFailure{status, std::move(reason)};
    buffer_.clear();
    buffer_.shrink_to_fit();
    pos_ = 0;
    return state_;
}

void HttpMessageReader::compact() {
    if (pos_ == 0) return;
    if (pos_ >= buffer_.size()) {
        buffer_.clear();
        pos_ = 0;
    } else if (pos_ >= 4096 || pos_ * 2 >= buffer_.size()) {
        buffer_.erase(0, pos_);
        pos_ = 0;
    }
}

std::optional<std::string_view> HttpMessageReader::take_line(std::size_t max_line, bool& too_long) {
    too_long = false;
    const std::size_t newline = buffer_.find('\n', pos_);
    if (newline == std::string::npos) {
        too_long = buffer_.size() - pos_ > max_line;
        return std::nullopt;
    }
    std::string_view line(buffer_.data() + pos_, newline - pos_);
    if (newline + 1 - pos_ > max_line + 1) too_long = true;
    pos_ = newline + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return line;
}

HttpReadState HttpMessageReader::feed(std::string_view bytes) {
    if (state_ == HttpReadState::failed) return state_;
    if (!bytes.empty()) started_ = true;
    buffer_.append(bytes);
    if (state_ == HttpReadState::head) return parse_head();
    if (state_ == HttpReadState::body) return parse_body();
    return state_;
}

HttpReadState HttpMessageReader::parse_head() {
    std::size_t empty_lines = 0;
    for (;;) {
        const std::size_t budget =
            limits_.max_head_bytes - std::min(head_bytes_, limits_.max_head_bytes);
        const std::size_t before = pos_;
        bool too_long = false;
        const auto line = take_line(budget, too_long);
        const bool in_request_line = !start_line_done_ && kind_ == HttpMessageKind::request;
        if (line) head_bytes_ += pos_ - before;
        if (too_long || head_bytes_ > limits_.max_head_bytes) {
            return in_request_line ? fail(414, fmt::format("the request line is over {} bytes",
                                                           limits_.max_head_bytes))
                                   : fail(431, fmt::format("the header is over {} bytes",
                                                           limits_.max_head_bytes));
        }
        if (!line) {
            compact();
            return state_;
        }
        if (!start_line_done_) {
            if (line->empty() && kind_ == HttpMessageKind::request &&
                ++empty_lines <= kMaxLeadingEmptyLines) {
                continue;
            }
            if (!parse_start_line(*line)) return state_;
            start_line_done_ = true;
            continue;
        }
        if (line->empty()) return decide_framing();
        if (head_.fields.size() >= limits_.max_headers) {
            return fail(431, fmt::format("more than {} header fields", limits_.max_headers));
        }
        if (!parse_field_line(*line)) return state_;
    }
}

bool HttpMessageReader::parse_start_line(std::string_view line) {
    const bool request = kind_ == HttpMessageKind::request;
    if (request) {
        const std::size_t first = line.find(' ');
        const std::size_t second =
            first == std::string_view::npos ? first : line.find(' ', first + 1);
        if (second == std::string_view::npos) {
            fail(400, "malformed request line");
            return false;
        }
        const std::string_view method = line.substr(0, first);
        const std::string_view target = line.substr(first + 1, second - first - 1);
        const int minor = http_minor_version(line.substr(second + 1));
        if (minor == -1) {
            fail(505, "only HTTP/1.0 and HTTP/1.1 are served");
            return false;
        }
        const bool target_ok = !target.empty() && (target.front() == '/' || target == "*") &&
                               std::all_of(target.begin(), target.end(), [](char c) {
                                   const auto byte = static_cast<unsigned char>(c);
                                   return byte > 0x20 && byte < 0x7f;
                               });
        if (minor < 0 || !is_token(method) || !target_ok) {
            fail(400, "malformed request line");
            return false;
        }
        head_.method = std::string(method);
        head_.target = std::string(target);
        head_.minor_version = minor;
        return true;
    }
    // "HTTP/1.1 200 OK"; the reason may be empty or absent.
    const int minor = http_minor_version(line.substr(0, 8));
    const bool status_ok = line.size() >= 12 && line[8] == ' ' && is_digit(line[9]) &&
                           is_digit(line[10]) && is_digit(line[11]) &&
                           (line.size() == 12 || line[12] == ' ');
    if (minor < 0 || !status_ok) {
        fail(400, "malformed status line");
        return false;
    }
    const std::string_view reason = line.size() > 13 ? line.substr(13) : std::string_view();
    if (std::any_of(reason.begin(), reason.end(), is_control)) {
        fail(400, "control characters in the status line");
        return false;
    }
    head_.minor_version = minor;
    head_.status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
    head_.reason = std::string(reason);
    return true;
}

bool HttpMessageReader::parse_field_line(std::string_view line) {
    if (line.front() == ' ' || line.front() == '\t') {
        fail(400, "folded header lines are not accepted");
        return false;
    }
    const std::size_t colon = line.find(':');
    const std::string_view name =
        colon == std::string_view::npos ? std::string_view() : line.substr(0, colon);
    if (!is_token(name)) {
        fail(400, "malformed header field");
        return false;
    }
    const std::string_view value = trim_whitespace(line.substr(colon + 1));
    if (std::any_of(value.begin(), value.end(), is_control)) {
        fail(400, "control characters in a header field");
        return false;
    }
    head_.fields.add(std::string(name), std::string(value));
    return true;
}

HttpReadState HttpMessageReader::decide_framing() {
    compact();
    const bool response = kind_ == HttpMessageKind::response;
    if (response && (no_body_ || (head_.status >= 100 && head_.status < 200) ||
                     head_.status == 204 || head_.status == 304)) {
        framing_ = Framing::none;
        state_ = HttpReadState::head_done;
        return state_;
    }
    const bool has_length = head_.fields.has("Content-Length");
    if (head_.fields.has("Transfer-Encoding")) {
        if (has_length) return fail(400, "both Content-Length and Transfer-Encoding");
        const std::vector<std::string> codings = list_items(head_.fields, "Transfer-Encoding");
        if (codings.size() != 1 || !equal_ignoring_case(codings.front(), "chunked")) {
            return fail(501, "only the chunked transfer coding is accepted");
        }
        framing_ = Framing::chunked;
    } else if (has_length) {
        const std::vector<std::string> lengths = list_items(head_.fields, "Content-Length");
        const bool digits =
            !lengths.empty() &&
            std::all_of(lengths.begin(), lengths.end(), [&](const std::string& l) {
                return l == lengths.front() && !l.empty() && l.size() <= 18 &&
                       std::all_of(l.begin(), l.end(), [](char c) { return c >= '0' && c <= '9'; });
            });
        if (!digits) return fail(400, "malformed Content-Length");
        content_length_ = std::stoull(lengths.front());
        framing_ = *content_length_ > 0 ? Framing::length : Framing::none;
    } else {
        // A request without either has no body (RFC 9112, 6.3); a response runs to the
        // end of the connection.
        framing_ = response ? Framing::until_close : Framing::none;
    }
    state_ = HttpReadState::head_done;
    return state_;
}

bool HttpMessageReader::body_expected() const {
    return framing_ != Framing::none;
}

HttpReadState HttpMessageReader::continue_body() {
    if (state_ != HttpReadState::head_done) return state_;
    if (framing_ == Framing::none) {
        state_ = HttpReadState::done;
        return state_;
    }
    if (framing_ == Framing::length && *content_length_ > limits_.max_body_bytes) {
        return fail(413, fmt::format("a body of {} bytes is over the limit of {}", *content_length_,
                                     limits_.max_body_bytes));
    }
    if (framing_ == Framing::length) body_.reserve(static_cast<std::size_t>(*content_length_));
    state_ = HttpReadState::body;
    return parse_body();
}

HttpReadState HttpMessageReader::parse_body() {
    const auto over_limit = [&] {
        return fail(413,
                    fmt::format("the body is over the limit of {} bytes", limits_.max_body_bytes));
    };
    if (framing_ == Framing::length) {
        const std::size_t want = static_cast<std::size_t>(*content_length_) - body_.size();
        const std::size_t take = std::min(want, buffer_.size() - pos_);
        body_.append(buffer_, pos_, take);
        pos_ += take;
        compact();
        if (body_.size() == *content_length_) state_ = HttpReadState::done;
        return state_;
    }
    if (framing_ == Framing::until_close) {
        if (body_.size() + (buffer_.size() - pos_) > limits_.max_body_bytes) return over_limit();
        body_.append(buffer_, pos_, std::string::npos);
        pos_ = buffer_.size();
        compact();
        return state_;
    }
    for (;;) {
        switch (chunk_step_) {
            case ChunkStep::size: {
                bool too_long = false;
                const auto line = take_line(kMaxChunkLine, too_long);
                if (too_long) return fail(400, "a chunk-size line is too long");
                if (!line) {
                    compact();
                    return state_;
                }
                std::size_t i = 0;
                std::uint64_t size = 0;
                while (i < line->size() && hex_value((*line)[i]) >= 0) {
                    if (i >= 15) return fail(400, "a chunk size is too large");
                    size = size * 16 + static_cast<std::uint64_t>(hex_value((*line)[i]));
                    ++i;
                }
                const std::string_view rest = trim_whitespace(line->substr(i));
                if (i == 0 || (!rest.empty() && rest.front() != ';') ||
                    std::any_of(rest.begin(), rest.end(), is_control)) {
                    return fail(400, "malformed chunk-size line");
                }
                if (size == 0) {
                    chunk_step_ = ChunkStep::trailers;
                    break;
                }
                if (size > limits_.max_body_bytes - body_.size()) return over_limit();
                chunk_left_ = size;
                chunk_step_ = ChunkStep::data;
                break;
            }
            case ChunkStep::data: {
                const std::size_t take =
                    std::min(static_cast<std::size_t>(chunk_left_), buffer_.size() - pos_);
                body_.append(buffer_, pos_, take);
                pos_ += take;
                chunk_left_ -= take;
                if (chunk_left_ > 0) {
                    compact();
                    return state_;
                }
                chunk_step_ = ChunkStep::data_end;
                break;
            }
            case ChunkStep::data_end: {
                const std::size_t available = buffer_.size() - pos_;
                if (available == 0) {
                    compact();
                    return state_;
                }
                if (buffer_[pos_] == '\n') {
                    pos_ += 1;
                } else if (buffer_[pos_] == '\r') {
                    if (available < 2) {
                        compact();
                        return state_;
                    }
                    if (buffer_[pos_ + 1] != '\n') return fail(400, "malformed chunk end");
                    pos_ += 2;
                } else {
                    return fail(400, "malformed chunk end");
                }
                chunk_step_ = ChunkStep::size;
                break;
            }
            case ChunkStep::trailers: {
                const std::size_t before = pos_;
                bool too_long = false;
                const std::size_t budget =
                    limits_.max_head_bytes - std::min(trailer_bytes_, limits_.max_head_bytes);
                const auto line = take_line(budget, too_long);
                if (line) trailer_bytes_ += pos_ - before;
                if (too_long || trailer_bytes_ > limits_.max_head_bytes) {
                    return fail(431, "the trailer fields are too long");
                }
                if (!line) {
                    compact();
                    return state_;
                }
                if (line->empty()) {
                    state_ = HttpReadState::done;
                    compact();
                    return state_;
                }
                if (++trailer_lines_ > limits_.max_headers) {
                    return fail(431,
                                fmt::format("more than {} trailer fields", limits_.max_headers));
                }
                const std::size_t colon = line->find(':');
                if (colon == std::string_view::npos || !is_token(line->substr(0, colon)) ||
                    std::any_of(line->begin(), line->end(), is_control)) {
                    return fail(400, "malformed trailer field");
                }
                break;  // trailers are read and dropped
            }
        }
    }
}

HttpReadState HttpMessageReader::end_of_input() {
    if (state_ == HttpReadState::body && framing_ == Framing::until_close) {
        state_ = HttpReadState::done;
        return state_;
    }
    if (state_ == HttpReadState::done || state_ == HttpReadState::failed) return state_;
    return fail(
        400, started_ ? "the connection closed before the message ended" : "the connection closed");
}

std::string HttpMessageReader::leftover() const {
    return state_ == HttpReadState::done ? buffer_.substr(pos_) : std::string();
}

std::vector<std::pair<std::string, std::string>> parse_query(std::string_view query) {
    std::vector<std::pair<std::string, std::string>> pairs;
    while (!query.empty()) {
        const std::size_t amp = query.find('&');
        const std::string_view item = query.substr(0, amp);
        if (!item.empty()) {
            const std::size_t equals = item.find('=');
            pairs.emplace_back(percent_decode(item.substr(0, equals)),
                               equals == std::string_view::npos
                                   ? std::string()
                                   : percent_decode(item.substr(equals + 1)));
        }
        if (amp == std::string_view::npos) break;
        query.remove_prefix(amp + 1);
    }
    return pairs;
}

const char* http_reason(int status) {
    switch (status) {
        case 100:
            return "Continue";
        case 200:
            return "OK";
        case 202:
            return "Accepted";
        case 204:
            return "No Content";
        case 400:
            return "Bad Request";
        case 401:
            return "Unauthorized";
        case 403:
            return "Forbidden";
        case 404:
            return "Not Found";
        case 405:
            return "Method Not Allowed";
        case 406:
            return "Not Acceptable";
        case 408:
            return "Request Timeout";
        case 409:
            return "Conflict";
        case 413:
            return "Content Too Large";
        case 414:
            return "URI Too Long";
        case 415:
            return "Unsupported Media Type";
        case 422:
            return "Unprocessable Content";
        case 431:
            return "Request Header Fields Too Large";
        case 500:
            return "Internal Server Error";
        case 501:
            return "Not Implemented";
        case 503:
            return "Service Unavailable";
        case 505:
            return "HTTP Version Not Supported";
        default:
            return "Unknown";
    }
}

}  // namespace gpukill::net
