// The history page (`iofab report --history`): one self-contained HTML file,
// as the comparison page is (no script, nothing fetched): a plot per headline
// metric over the series with compare's noise band and each regression
// marked on its point, then a table of the last runs.
#pragma once

#include <string>

#include "reports/history.h"

namespace iofab {

std::string render_history_page(const History& history);

}  // namespace iofab
