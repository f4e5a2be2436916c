// An HTTP/1.1 request or response as a hostile peer sends it: what the agent's and the
// MCP server's listener reads before authenticating (net::HttpMessageReader, requests),
// and what the fleet's agent client reads (responses). Fed whole and in pieces (a byte
// at a time, seven at a time), pipelined messages read one after the other; the limits
// must hold whatever comes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "net/http_message.hpp"

namespace {

using gpukill::net::HttpLimits;
using gpukill::net::HttpMessageKind;
using gpukill::net::HttpMessageReader;
using gpukill::net::HttpReadState;

constexpr HttpLimits kLimits{.max_head_bytes = 512, .max_headers = 8, .max_body_bytes = 256};

void read_all(std::string_view text, HttpMessageKind kind, std::size_t step) {
    HttpMessageReader reader(kind, kLimits);
    std::size_t messages = 0;
    const auto settle = [&] {
        for (;;) {
            if (reader.state() == HttpReadState::head_done) reader.continue_body();
            if (reader.body().size() > kLimits.max_body_bytes) __builtin_trap();
            if (reader.state() != HttpReadState::done || ++messages > 8) return;
            const std::string rest = reader.leftover();
            reader = HttpMessageReader(kind, kLimits);
            reader.feed(rest);
        }
    };
    for (std::size_t at = 0; at < text.size(); at += step) {
        reader.feed(text.substr(at, step));
        settle();
    }
    reader.end_of_input();
    settle();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    for (HttpMessageKind kind : {HttpMessageKind::request, HttpMessageKind::response}) {
        for (std::size_t step : {std::max<std::size_t>(size, 1), std::size_t{1}, std::size_t{7}}) {
            read_all(text, kind, step);
        }
    }
    (void)gpukill::net::parse_query(text);
    return 0;
}
