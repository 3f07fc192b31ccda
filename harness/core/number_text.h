// A number as printf's format makes it ("%.3g", "%.1f%%"), as a std::string: the one place the
// reports and the CLI turn a double into text with a fixed format.
#pragma once

#include <string>

namespace iofab {

// format takes exactly one double. Formats are literals of this project, never input.
std::string number_text(const char* format, double v);

}  // namespace iofab
