#!/bin/sh
# Runs validate_reports.py with a Python that has the jsonschema module: Debian's (python3-jsonschema,
# which ci/setup installs) first, then the python3 on PATH. Neither: exit 77, which ctest counts as skipped.
here="$(dirname "$0")"
for py in /usr/bin/python3 python3; do
  if "$py" -c "import jsonschema" 2>/dev/null; then exec "$py" "$here/validate_reports.py" "$@"; fi
done
echo "validate_reports: no python3 with the jsonschema module (apt-get install python3-jsonschema; ci/setup installs it)"
exit 77
