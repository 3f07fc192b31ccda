"""What the hosts and lab tests (tests/hosts, tests/lab) share: ctest's skip code, reading a report that may
not be written yet, waiting for a condition without a fixed sleep, and handing a report to the schema
check. Each fixture puts this folder on sys.path and imports it."""

import json
import os
import shutil
import time

SKIP = 77  # ctest's SKIP_RETURN_CODE for these tests


class Skip(Exception):
    pass


def read_report(path):
    """The report at path, or None while it is missing or half written."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def wait_for(predicate, seconds, step=0.05):
    """True as soon as predicate() is; after `seconds`, predicate()'s last answer."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(step)
    return predicate()


def collect(report_path, name):
    """Copies a report to IOFAB_TEST_REPORTS_DIR as `name`, where ReportSchema.EveryReportTheTestsWrote
    validates it."""
    d = os.environ.get("IOFAB_TEST_REPORTS_DIR")
    if d and os.path.exists(report_path):
        shutil.copy(report_path, os.path.join(d, name))
