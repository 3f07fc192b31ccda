// Text from a report is never trusted to be markup-free: each escape must turn every character
// markup reads as its own into plain text, and drop what the format cannot hold.
#include "reports/escape.h"

#include <gtest/gtest.h>

#include <string>

namespace iofab {
namespace {

TEST(XmlEscape, EntitiesForMarkupAndNoControlCharactersButTabAndNewline) {
  EXPECT_EQ(xml_escape(R"(<a href="x">'&'</a>)"), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(xml_escape(std::string("a\tb\nc\rd\x01"
                                   "e\x7f"
                                   "f",
                                   11)),
            "a\tb\ncdef");
  EXPECT_EQ(xml_escape(std::string("x\0y", 3)), "xy");
  EXPECT_EQ(xml_escape("|*_`#"), "|*_`#");  // Markdown syntax is plain text in XML
}

TEST(XmlEscape, BytesThatAreNotUtf8BecomeTheReplacementCharacter) {
  EXPECT_EQ(xml_escape("ok\xff"), "ok\xef\xbf\xbd");
}

TEST(MarkdownEscape, CellSyntaxIsBackslashedAndHtmlBecomesEntities) {
  EXPECT_EQ(markdown_escape("a|b\\c`d*e_f[g]h#i~j"), "a\\|b\\\\c\\`d\\*e\\_f\\[g\\]h\\#i\\~j");
  EXPECT_EQ(markdown_escape("<b>&</b>"), "&lt;b&gt;&amp;&lt;/b&gt;");
  EXPECT_EQ(markdown_escape(R"(say "it's")"), R"(say "it's")");  // quotes stay as they are in a cell
}

TEST(MarkdownEscape, LineBreaksAndTabsBecomeSpacesOtherControlsAreDropped) {
  EXPECT_EQ(markdown_escape(std::string("a\nb\rc\td\x02"
                                        "e\x7f"
                                        "f\0g",
                                        13)),
            "a b c defg");
  EXPECT_EQ(markdown_escape("\xc3("), "\xef\xbf\xbd(");
}

}  // namespace
}  // namespace iofab
