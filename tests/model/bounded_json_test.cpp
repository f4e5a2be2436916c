// The one parser of outside JSON: bounded in size and nesting before nlohmann builds a
// tree that it would copy, compare and print recursively.
#include <gtest/gtest.h>

#include <string>

#include "model/bounded_json.hpp"

namespace gpukill {
namespace {

std::string nested(std::size_t depth, char open = '[', char close = ']') {
    return std::string(depth, open) + std::string(depth, close);
}

TEST(BoundedJson, ParsesWhatFitsTheBounds) {
    auto doc = parse_json_bounded(R"({"a": [1, {"b": "x"}]})", {.max_bytes = 100});
    ASSERT_TRUE(doc) << doc.error().what;
    EXPECT_EQ((*doc)["a"][1]["b"], "x");
    auto ordered = parse_ordered_json_bounded(R"({"z": 1, "a": 2})", {.max_bytes = 100});
    ASSERT_TRUE(ordered);
    EXPECT_EQ(ordered->begin().key(), "z");
    EXPECT_TRUE(parse_json_bounded(nested(kMaxJsonDepth), {.max_bytes = 1000}));
}

// 150,000 nested brackets were a SIGSEGV of the MCP server and of the fleet controller.
TEST(BoundedJson, RefusesDeepNestingWithoutBuildingIt) {
    const std::string deep = nested(150000);
    auto doc = parse_json_bounded(deep, {.max_bytes = 1 << 20});
    ASSERT_FALSE(doc);
    EXPECT_EQ(doc.error().kind, JsonRefusal::Kind::too_deep);
    EXPECT_EQ(doc.error().byte, kMaxJsonDepth);  // the first bracket past the limit
    EXPECT_FALSE(parse_json_bounded(nested(kMaxJsonDepth + 1, '{', '}'), {.max_bytes = 1000}));
    // Unclosed: refused the same way, not read to the end.
    EXPECT_EQ(parse_json_bounded(std::string(150000, '['), {.max_bytes = 1 << 20}).error().kind,
              JsonRefusal::Kind::too_deep);
    auto deep_ordered = parse_ordered_json_bounded(deep, {.max_bytes = 1 << 20});
    ASSERT_FALSE(deep_ordered);
}

TEST(BoundedJson, BracketsInsideStringsDoNotCount) {
    const std::string text = "[\"" + std::string(1000, '[') + "\\\"[\"]";
    auto doc = parse_json_bounded(text, {.max_bytes = 2000});
    ASSERT_TRUE(doc) << doc.error().what;
    EXPECT_EQ(json_nesting_depth(text, 100), 1u);
}

TEST(BoundedJson, RefusesOversizedAndInvalidTextWithWhere) {
    auto big = parse_json_bounded("[1, 2, 3]", {.max_bytes = 4});
    ASSERT_FALSE(big);
    EXPECT_EQ(big.error().kind, JsonRefusal::Kind::too_large);
    auto bad = parse_json_bounded("{\"a\": tru}", {.max_bytes = 100});
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().kind, JsonRefusal::Kind::invalid);
    EXPECT_EQ(bad.error().what.rfind("not valid JSON: ", 0), 0u) << bad.error().what;
    EXPECT_EQ(bad.error().what.find("[json.exception"), std::string::npos);
    EXPECT_FALSE(parse_json_bounded("", {.max_bytes = 100}));
}

}  // namespace
}  // namespace gpukill
