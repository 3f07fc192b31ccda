// The style every HTML page iofab writes shares (a run's or a comparison's report, a suite's history), so
// the pages look alike and one edit changes them all.
#pragma once

namespace iofab {

inline constexpr const char* kPageStyle = R"(
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0 auto; max-width: 1180px;
       padding: 0 20px 40px; color: #1b1b1b; background: #fafafa; }
h1 { font-size: 26px; margin: 24px 0 4px; }
h2 { font-size: 20px; margin: 32px 0 8px; border-bottom: 2px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 16px; margin: 20px 0 6px; }
p.lead, p.explain, p.note { color: #444; margin: 4px 0 10px; }
nav a { margin-right: 14px; }
table { border-collapse: collapse; margin: 8px 0 16px; background: #fff; font-size: 13px; }
th, td { border: 1px solid #d4d4d4; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #eef1f5; }
td.pass { background: #e3f4e6; color: #14532d; }
td.fail { background: #fde2e1; color: #7f1d1d; font-weight: bold; }
td.absent { color: #888; }
td.differs { background: #fff6d6; }
figure { margin: 10px 0 18px; background: #fff; border: 1px solid #e2e2e2; display: inline-block; }
figure svg { display: block; max-width: 100%; height: auto; }
ul.regressions li { color: #7f1d1d; }
ul.notes { color: #555; font-size: 13px; }
details { margin: 6px 0; }
summary { cursor: pointer; font-weight: bold; padding: 4px 0; }
footer { margin-top: 40px; color: #777; font-size: 12px; }
section.warning { background: #fde2e1; border: 1px solid #f5a8a3; padding: 4px 16px; margin-top: 16px; }
)";

}  // namespace iofab
