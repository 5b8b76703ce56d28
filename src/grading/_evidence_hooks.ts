/**
 * The grader's test-runner hooks, as Python sources written into the grader's image: pytest,
 * unittest and doctest each append one line per run to the file {@linkcode TESTS_REPORT_ENV}
 * names, in the protocol `_evidence.ts` reads (`verdict-tests passed=N failed=N errors=N
 * skipped=N runner=NAME`). {@linkcode HOOKS_IMPORT}, run by the grader's `.pth` at every
 * interpreter start, adds the pytest plugin to `PYTEST_PLUGINS` in the process's environment
 * (pytest honours it with `PYTEST_DISABLE_PLUGIN_AUTOLOAD` set; an image whose Python does not
 * read the `.pth` runs pytest without it, rather than failing to import it); unittest's `TestResult.stopTestRun` and
 * doctest's `DocTestRunner.summarize` are patched when first imported (for `python -m doctest`,
 * the module run as `__main__` is the patched one's `_test`). Only the outermost runner of a
 * process tree reports: a run inside another (a doctest run by a test, pytest testing a plugin,
 * xdist workers) is part of that runner's result.
 *
 * @module
 */

/** The variable naming the report file, for the hooks and for any other runner. */
export const TESTS_REPORT_ENV = "VERDICT_TESTS_REPORT";

/** The pytest plugin's module name (in `PYTEST_PLUGINS`). */
export const PYTEST_PLUGIN = "verdict_pytest";

/** The `.pth` line that installs the hooks (unittest's, doctest's, pytest's plugin) at start. */
export const HOOKS_IMPORT = "import verdict_evidence; verdict_evidence.install()";

const EVIDENCE_SOURCE =
  `"""Verdict's grader: test runners report what they ran (see _evidence_hooks.ts)."""
import os
import sys

REPORT = os.environ.get("${TESTS_REPORT_ENV}", "")
INNER = "VERDICT_TESTS_INNER"
_outer = not os.environ.get(INNER)
_depth = [0]


def begin():
    _depth[0] += 1
    os.environ[INNER] = "1"
    return _outer and _depth[0] == 1


def end(reporting, runner, passed, failed, errors, skipped):
    _depth[0] -= 1
    if not (reporting and REPORT):
        return
    line = "verdict-tests passed=%d failed=%d errors=%d skipped=%d runner=%s\\n" % (
        max(passed, 0), failed, errors, skipped, runner)
    try:
        with open(REPORT, "a") as report:
            report.write(line)
    except OSError as error:
        sys.stderr.write("verdict: could not report the tests' results: %s\\n" % error)


def _patch_unittest(module):
    start, stop = module.TestResult.startTestRun, module.TestResult.stopTestRun

    def startTestRun(self):
        self._verdict_reporting = begin()
        return start(self)

    def stopTestRun(self):
        outcome = stop(self)
        if hasattr(self, "_verdict_reporting"):
            failed = len(self.failures) + len(self.unexpectedSuccesses)
            errors, skipped = len(self.errors), len(self.skipped)
            end(self._verdict_reporting, "unittest",
                self.testsRun - failed - errors - skipped, failed, errors, skipped)
            del self._verdict_reporting
        return outcome

    module.TestResult.startTestRun, module.TestResult.stopTestRun = startTestRun, stopTestRun


def _patch_doctest(module):
    summarize = module.DocTestRunner.summarize

    def patched(self, verbose=None):
        reporting = begin()
        results = summarize(self, verbose)
        end(reporting, "doctest", results.attempted - results.failed, results.failed, 0,
            getattr(results, "skipped", 0))
        return results

    module.DocTestRunner.summarize = patched


_PATCHES = {"unittest.result": _patch_unittest, "doctest": _patch_doctest}
_MAIN_RUN = []


def _runs_as_main(name):
    argv = list(getattr(sys, "orig_argv", []))
    return any(argv[i] == "-m" and argv[i + 1] == name for i in range(len(argv) - 1))


class _Patcher:
    """Patches a runner's module right after it is first imported."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        patch = _PATCHES.get(name)
        if patch is None:
            return None
        from importlib.machinery import PathFinder
        spec = PathFinder.find_spec(name, path)
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        run = loader.exec_module

        def exec_module(module):
            run(module)
            patch(module)

        loader.exec_module = exec_module
        if name == "doctest" and not _MAIN_RUN and _runs_as_main(name):
            # python -m doctest: runpy runs the code get_code gives as __main__.
            _MAIN_RUN.append(name)
            loader.get_code = lambda fullname: compile(
                "import sys, doctest\\nsys.exit(doctest._test())\\n", spec.origin, "exec")
        return spec


def install():
    if not REPORT:
        return
    if _Patcher not in sys.meta_path:
        sys.meta_path.insert(0, _Patcher)
    plugins = [name for name in os.environ.get("PYTEST_PLUGINS", "").split(",") if name]
    if "${PYTEST_PLUGIN}" not in plugins:
        os.environ["PYTEST_PLUGINS"] = ",".join(plugins + ["${PYTEST_PLUGIN}"])
`;

const PYTEST_SOURCE = `"""Verdict's grader: pytest reports what it ran (see _evidence_hooks.ts)."""
from verdict_evidence import begin, end

_session = {}


def pytest_sessionstart(session):
    if not _session:
        _session.update(reporting=begin(), outcomes={}, errors=0)


def pytest_collectreport(report):
    if _session and report.failed:
        _session["errors"] += 1


def pytest_runtest_logreport(report):
    if not _session:
        return
    outcomes = _session["outcomes"]
    if report.failed:
        outcome = "failed" if report.when == "call" else "errors"
    elif report.skipped:
        outcome = "skipped"
    elif report.when == "call":
        outcome = "passed"
    else:
        return
    if outcomes.get(report.nodeid) not in ("failed", "errors"):
        outcomes[report.nodeid] = outcome


def pytest_sessionfinish(session):
    if not _session:
        return
    state = dict(_session)
    _session.clear()
    counts = list(state["outcomes"].values())
    end(state["reporting"], "pytest", counts.count("passed"), counts.count("failed"),
        counts.count("errors") + state["errors"], counts.count("skipped"))
`;

/** The hooks' modules, name to source, for the grader's Python folder. */
export const EVIDENCE_MODULES: Readonly<Record<string, string>> = {
  verdict_evidence: EVIDENCE_SOURCE,
  [PYTEST_PLUGIN]: PYTEST_SOURCE,
};
