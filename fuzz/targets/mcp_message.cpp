// One MCP message as a client sends it, over stdio (a line) or HTTP (a body): JSON-RPC
// classification over the bounded JSON parser (mcp::parse_message). 150,000 nested
// brackets were once a SIGSEGV here.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "mcp/jsonrpc.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const gpukill::mcp::RpcMessage message = gpukill::mcp::parse_message(text);
    if (const auto* failure = std::get_if<gpukill::mcp::RpcFailure>(&message)) {
        (void)gpukill::mcp::to_line(failure->response);
    }
    return 0;
}
