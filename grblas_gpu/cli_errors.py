"""How the project's command lines fail: one line on stderr and an exit code, no traceback.

``grblas-gpu``, ``python -m grblas_gpu.conformance`` and ``python -m grblas_gpu.benchmarks`` each run their body
through :func:`run_main`, the one place that catches. Exit codes (:data:`EXIT_CODES_HELP`,
the epilog of each ``--help``):

    0    success
    1    failure: the engine or the data refused (a GraphBLAS error, its status named: a
         graph the generator or an algorithm rejects, a --source outside the graph, a
         malformed .mtx file, no convergence), a file that cannot be read or written,
         a result that breaks its promise (non-finite PageRank ranks), missing matplotlib
    2    usage: the command line does not parse (an unknown command, algorithm or option,
         a missing argument, a value of the wrong form such as 'rmat:abc')
    130  interrupted (Ctrl-C)

The line reads ``PROG: error: MESSAGE`` as argparse writes it; a GraphBLASError's message
starts with its status (``GrB_INVALID_VALUE: ...``). Warnings (NumPy's "invalid value
encountered", say) are held: at the end of a run each distinct one is a line
``PROG: warning: ...``; after an error none is printed, the error line tells what matters.
``--debug`` anywhere on the command line (or GRBLAS_GPU_DEBUG=1 in the environment) prints
warnings as Python does and the traceback before the error line.
"""
import argparse
import os
import sys
import traceback
import warnings

from .errors import GraphBLASError

__all__ = ["UsageError", "Failure", "ArgumentParser", "run_main", "check_writable", "check_plot",
           "EXIT_OK", "EXIT_FAILURE", "EXIT_USAGE", "EXIT_INTERRUPTED", "EXIT_CODES_HELP",
           "DEBUG_ENV"]

EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
DEBUG_ENV = "GRBLAS_GPU_DEBUG"
EXIT_CODES_HELP = """\
exit status:
  0    success
  1    failure: the engine or the data refused (the GraphBLAS status is named), a file
       could not be read or written, a result broke its promise (non-finite values)
  2    usage: the command line does not parse (unknown command, algorithm or option,
       missing argument, a value of the wrong form)
  130  interrupted
Errors are one line on stderr; --debug (or GRBLAS_GPU_DEBUG=1) adds the traceback."""


class UsageError(Exception):
    """The command line does not parse (exit 2)."""


class Failure(Exception):
    """A failure the command line itself finds, outside the engine (exit 1)."""


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser whose errors raise UsageError instead of printing the usage and
    exiting, so that run_main reports them as one line. Sub-parsers inherit the class."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message):
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _debug_requested(argv):
    if os.environ.get(DEBUG_ENV, "") not in ("", "0"):
        return True
    argv = sys.argv[1:] if argv is None else list(argv)
    options = argv[:argv.index("--")] if "--" in argv else argv  # '--' ends the options
    return "--debug" in options


def _one_line(text):
    return " ".join(str(text).split("\n")).strip()


def _message(e):
    """(exit code, message) for an exception escaping a command."""
    if isinstance(e, UsageError):
        return EXIT_USAGE, str(e)
    if isinstance(e, (GraphBLASError, Failure)):
        return EXIT_FAILURE, str(e)
    if isinstance(e, OSError):
        if e.strerror and e.filename:
            return EXIT_FAILURE, f"{e.filename}: {e.strerror}"
        return EXIT_FAILURE, e.strerror or str(e) or type(e).__name__
    if isinstance(e, MemoryError):
        return EXIT_FAILURE, "out of host memory"
    return EXIT_FAILURE, (f"internal error: {type(e).__name__}: {e} (a bug; rerun with "
                          "--debug for the traceback)")


def run_main(prog, body, argv=None):
    """body(argv) -> exit code, with every error reported as one line ``PROG: error: ...``
    on stderr and its exit code returned (see the module docstring). SystemExit (argparse's
    --help) passes through."""
    debug = _debug_requested(argv)
    with warnings.catch_warnings(record=not debug) as caught:
        if not debug:
            warnings.simplefilter("default")  # once per place: a long run holds few
        code, reported = _run(prog, body, argv, debug)
    if caught and not reported:
        for text in dict.fromkeys(_one_line(w.message) for w in caught):
            print(f"{prog}: warning: {text}", file=sys.stderr)
    return code


def _run(prog, body, argv, debug):
    """(exit code, whether an error line was printed)."""
    try:
        return body(argv), False
    except KeyboardInterrupt:
        if debug:
            traceback.print_exc()
        print(f"{prog}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED, True
    except BrokenPipeError:
        # the reader of stdout went away (`| head`): nothing is left to tell; point stdout
        # at /dev/null so that the interpreter's final flush does not complain
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return EXIT_FAILURE, True
    except Exception as e:
        code, message = _message(e)
        if debug:
            traceback.print_exc()
        print(f"{prog}: error: {_one_line(message)}", file=sys.stderr)
        return code, True


def check_writable(path, option):
    """Raise Failure unless a file can be written at ``path`` (checked before a long run,
    so that its result is not lost at the end)."""
    full = os.path.abspath(os.fspath(path))
    folder = os.path.dirname(full)
    if os.path.isdir(full):
        raise Failure(f"{option} {path}: is a directory")
    if not os.path.isdir(folder):
        raise Failure(f"{option} {path}: no such directory {folder}")
    if not os.access(folder if not os.path.exists(full) else full, os.W_OK):
        raise Failure(f"{option} {path}: permission denied")


def check_plot(path):
    """--plot's preconditions, checked before the work: matplotlib and a writable path."""
    try:
        import matplotlib.figure  # noqa: F401
    except ImportError:
        raise Failure("--plot needs matplotlib: install grblas-gpu[plot]") from None
    check_writable(path, "--plot")
