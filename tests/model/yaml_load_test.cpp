#include "model/yaml_load.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gpukill {
namespace {

// Returns the error's "line:column: message", or "" when the text loads.
std::string refusal(const std::string& text) {
    try {
        load_yaml_documents(text);
    } catch (const YAML::Exception& e) {
        return std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) + ": " +
               e.msg;
    }
    return "";
}

// Each of these made yaml-cpp 0.7.0's LoadAll allocate without end.
TEST(YamlLoad, TextsThatLoopedForeverAreRefusedAtTheirMark) {
    EXPECT_EQ(refusal("\"a\", b\n").substr(0, 19), "1:4: unexpected ','");
    EXPECT_EQ(refusal("'a', b").substr(0, 19), "1:4: unexpected ','");
    EXPECT_EQ(refusal("[1, 2], 3").substr(0, 19), "1:7: unexpected ','");
    EXPECT_EQ(refusal(",").substr(0, 19), "1:1: unexpected ','");
    EXPECT_EQ(refusal("|\n x\n, y").substr(0, 19), "3:1: unexpected ','");
    EXPECT_EQ(refusal("&a x\n? k").substr(0, 19), "2:1: unexpected '?'");
}

TEST(YamlLoad, OrdinaryYamlLoadsAsLoadAllWouldLoadIt) {
    EXPECT_EQ(refusal("names: [a, \"b, c\"]\nusers: {x: 1}\n"), "");
    EXPECT_EQ(refusal("a, b, c\n"), "");  // a plain scalar holds its commas
    EXPECT_EQ(refusal("base: &b {x: 1}\nother:\n  <<: *b\n"), "");
    EXPECT_EQ(refusal("? complex\n: value\n"), "");
    EXPECT_EQ(refusal(""), "");
    const auto documents = load_yaml_documents("a: 1\n---\nb: [2, 3]\n");
    ASSERT_EQ(documents.size(), 2u);
    EXPECT_EQ(documents[1]["b"][1].as<int>(), 3);
    EXPECT_TRUE(load_yaml_documents("").empty());
}

TEST(YamlLoad, SyntaxErrorsStillCarryTheirMark) {
    EXPECT_NE(refusal("k: \"a\", b\n").find("end of map not found"), std::string::npos);
    std::string many;
    for (int i = 0; i < 1002; ++i) many += "--- " + std::to_string(i) + "\n";
    EXPECT_NE(refusal(many).find("more than 1000 YAML documents"), std::string::npos);
}

// yaml-cpp's own message for this is "bad file".
TEST(YamlLoad, DeepNestingSaysSo) {
    const std::string deep = "a: " + std::string(3000, '[') + std::string(3000, ']');
    EXPECT_NE(refusal(deep).find("nested too deeply"), std::string::npos) << refusal(deep);
}

// Error lines name what the file holds, and a file can hold anything.
TEST(YamlLoad, ErrorLinesStayOneLineWhateverTheFileHolds) {
    YAML::Mark mark;
    mark.line = 0;
    mark.column = 1;
    EXPECT_EQ(yaml_error("p.yaml", mark, "bad \x1b[31m\nkey\xc2\x9b").error().what,
              "p.yaml:1:2: bad ?[31m?key?");
    EXPECT_EQ(yaml_error("p.yaml", YAML::Mark::null_mark(), "empty").error().what, "p.yaml: empty");
}

}  // namespace
}  // namespace gpukill
