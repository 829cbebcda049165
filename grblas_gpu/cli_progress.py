"""Progress bars of the command lines (tqdm), drawn only where someone watches.

    with bar(total=None, desc=None, unit="it", quiet=False, delay=0.0) as b:
        b.update()                        # one step done
        b.postfix(failed=2)               # figures beside the bar (refresh=True: now)
        b.write("a line")                 # a line on stdout, above the bar

A bar is drawn on stderr when stderr is a terminal, ``quiet`` is false and tqdm is
installed (the ``progress`` extra); otherwise ``bar`` returns a silent stand-in whose
``write`` prints the line, so a command's output is the same piped, quiet or without tqdm.
``delay``: seconds before the bar first shows (short runs show none). The bar is removed
when it closes, leaving the command's own output.
"""
import sys

__all__ = ["bar", "shown"]


def _tqdm():
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm


def shown(quiet=False):
    """Whether ``bar(quiet=quiet)`` draws: stderr is a terminal and tqdm is installed."""
    if quiet:
        return False
    isatty = getattr(sys.stderr, "isatty", None)
    try:
        return bool(isatty and isatty()) and _tqdm() is not None
    except ValueError:  # a closed stream
        return False


def bar(total=None, desc=None, unit="it", quiet=False, delay=0.0):
    """A progress bar on stderr, or a silent stand-in (see the module docstring)."""
    if not shown(quiet):
        return _Silent()
    kwargs = dict(total=total, desc=desc, unit=unit, file=sys.stderr, leave=False,
                  dynamic_ncols=True)
    try:
        return _Bar(_tqdm()(delay=delay, **kwargs))
    except KeyError:  # TqdmKeyError: a tqdm before 4.60 has no delay
        return _Bar(_tqdm()(**kwargs))


class _Silent:
    def update(self, n=1):
        pass

    def postfix(self, refresh=False, **figures):
        pass

    def describe(self, text):
        pass

    def write(self, line):
        print(line, flush=True)

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class _Bar(_Silent):
    def __init__(self, tqdm_bar):
        self._bar = tqdm_bar

    def update(self, n=1):
        self._bar.update(n)

    def postfix(self, refresh=False, **figures):
        self._bar.set_postfix({k: _fmt(v) for k, v in figures.items()}, refresh=refresh)

    def describe(self, text):
        self._bar.set_description_str(text, refresh=False)

    def write(self, line):
        self._bar.write(line, file=sys.stdout)  # clears the bar, prints, redraws it
        sys.stdout.flush()

    def close(self):
        self._bar.close()


def _fmt(v):
    if isinstance(v, float):
        return f"{v:.3g}"
    return v
