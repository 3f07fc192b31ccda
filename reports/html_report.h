// The vendor comparison page (`iofab report A.json B.json -o page.html`):
// one self-contained HTML file: the checks table (checkpoint budget first),
// the systems (hosts, target, suite, tool) and every plot as inline SVG,
// then each phase's metrics and parameters. No script, no external style,
// font or image; a Content-Security-Policy forbids fetching anything, so
// the page reads the same offline, from a mail attachment or an artifact.
#pragma once

#include <string>
#include <vector>

#include "reports/side_by_side.h"

namespace iofab {

std::string render_html_report(const std::vector<SystemReport>& systems);

}  // namespace iofab
