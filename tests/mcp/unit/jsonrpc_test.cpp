// JSON-RPC framing: every malformed message gets its JSON-RPC error, never an exception.
#include "mcp/jsonrpc.hpp"

#include <gtest/gtest.h>

namespace gpukill::mcp {
namespace {

int error_code_of(const RpcMessage& message) {
    const auto* failure = std::get_if<RpcFailure>(&message);
    if (failure == nullptr) return 0;
    return failure->response["error"]["code"].get<int>();
}

TEST(JsonRpc, ClassifiesRequestsNotificationsAndResponses) {
    auto request = parse_message(R"({"jsonrpc":"2.0","id":7,"method":"ping"})");
    ASSERT_TRUE(std::holds_alternative<RpcRequest>(request));
    EXPECT_EQ(std::get<RpcRequest>(request).id, 7);
    EXPECT_TRUE(std::get<RpcRequest>(request).params.is_null());
    auto notification = parse_message(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    EXPECT_TRUE(std::holds_alternative<RpcNotification>(notification));
    auto response = parse_message(R"({"jsonrpc":"2.0","id":"a","result":{}})");
    EXPECT_TRUE(std::holds_alternative<RpcResponse>(response));
}

TEST(JsonRpc, MalformedMessagesGetTheirErrors) {
    EXPECT_EQ(error_code_of(parse_message("{not json")), rpc_code::parse_error);
    EXPECT_EQ(error_code_of(parse_message("")), rpc_code::parse_error);
    EXPECT_EQ(error_code_of(parse_message(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])")),
              rpc_code::invalid_request);
    EXPECT_EQ(error_code_of(parse_message("42")), rpc_code::invalid_request);
    EXPECT_EQ(error_code_of(parse_message(R"({"id":1,"method":"ping"})")),
              rpc_code::invalid_request);
    EXPECT_EQ(error_code_of(parse_message(R"({"jsonrpc":"2.0","id":1,"method":5})")),
              rpc_code::invalid_request);
    EXPECT_EQ(error_code_of(parse_message(R"({"jsonrpc":"2.0","id":{"x":1},"method":"ping"})")),
              rpc_code::invalid_request);
    EXPECT_EQ(error_code_of(parse_message(R"({"jsonrpc":"2.0","id":1,"method":"x","params":[1]})")),
              rpc_code::invalid_params);
    EXPECT_EQ(error_code_of(parse_message(std::string(100, ' '), 10)), rpc_code::invalid_request);
    // The id is kept when it could be read, so the client can match the error.
    auto kept = parse_message(R"({"jsonrpc":"1.0","id":9,"method":"ping"})");
    EXPECT_EQ(std::get<RpcFailure>(kept).response["id"], 9);
}

// 150,000 nested arrays in a ping's params (300 KB, under the 4 MiB cap) were a SIGSEGV
// of the server: refused now before a tree is built, with the JSON-RPC error to answer.
TEST(JsonRpc, DeeplyNestedMessagesAreRefusedUnbuilt) {
    const std::string deep = R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":)" +
                             std::string(150000, '[') + std::string(150000, ']') + "}}";
    const RpcMessage refused = parse_message(deep);
    EXPECT_EQ(error_code_of(refused), rpc_code::invalid_request);
    EXPECT_NE(std::get<RpcFailure>(refused).response["error"]["message"].get<std::string>().find(
                  "nested deeper than 64 levels"),
              std::string::npos);
    EXPECT_EQ(error_code_of(parse_message(std::string(150000, '['))), rpc_code::invalid_request);
}

TEST(JsonRpc, LinesHoldNoRawNewline) {
    const std::string line = to_line(result_response(1, {{"text", "a\nb"}}));
    EXPECT_EQ(line.find('\n'), std::string::npos);
    const std::string invalid = to_line(nlohmann::json{{"t", std::string("\xff\xfe")}});
    EXPECT_NE(invalid.find("\xef\xbf\xbd"), std::string::npos);
}

}  // namespace
}  // namespace gpukill::mcp
