"""Prints the failed tests of a Robot run, one line each with its message, as the last thing a
failed `make robot` says: CI keeps only the tail of the log, and Robot prints each failure's
message next to the test, pages earlier. Usage: failed.py OUTPUT_XML."""
import sys

from robot.api import ExecutionResult, ResultVisitor


class Failed(ResultVisitor):
    def __init__(self):
        self.lines = []

    def visit_test(self, test):
        if test.status == "FAIL":
            message = " ".join(test.message.split())
            self.lines.append(f"FAILED {test.longname}: {message[:400]}")


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: failed.py OUTPUT_XML")
    try:
        result = ExecutionResult(argv[1])
    except Exception as e:  # no output.xml: Robot itself did not get that far
        print(f"no Robot result to summarise ({argv[1]}: {e})")
        return
    failed = Failed()
    result.visit(failed)
    print(f"== {len(failed.lines)} failed test(s) in {argv[1]}")
    for line in failed.lines:
        print(line)


if __name__ == "__main__":
    main(sys.argv)
