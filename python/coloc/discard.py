"""The discard protocol of include/coloc/discard.h from Python, with ctypes only.

A best-effort training tenant marks its units of work (a batch) and their
phase; colocc (or `colocctl discard PID`) asks it for device memory; the
tenant sees the request at its next check in phase compute, throws the work
under way away, frees its memory and acknowledges.  No request is seen
during phase optimizer or collective: it waits for the phase to end.

    coloc = Discard()                  # libcoloc must be loaded, see find_library
    with coloc.unit(step):             # phase compute
        ...forward, backward; coloc.pending() at boundaries...
        with coloc.phase("optimizer"):
            optimizer.step()

The library is found by find_library: libcoloc.so already in the process
(LD_PRELOAD=libcoloc.so, as tenants run), else the file COLOC_LIBRARY names.
The process must be a best-effort tenant (COLOC_ROLE=best-effort) with a
CUDA context current on the calling thread at the first call; otherwise the
calls raise ColocError with errno EPERM or ENODEV.
"""
import contextlib
import ctypes
import errno
import os
import threading

PHASES = {"none": 0, "compute": 1, "optimizer": 2, "collective": 3}

_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_uint64)


class ColocError(OSError):
    """A call of the protocol failed; .errno says why (include/coloc/discard.h)."""


def find_library():
    """libcoloc as a ctypes library: the one loaded in the process, else COLOC_LIBRARY."""
    here = ctypes.CDLL(None)
    if hasattr(here, "coloc_unit_begin"):
        return here
    path = os.environ.get("COLOC_LIBRARY")
    if not path:
        raise ColocError(errno.ENOENT, "libcoloc is not loaded in this process (run it with "
                         "LD_PRELOAD=libcoloc.so) and COLOC_LIBRARY does not name it")
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ColocError(errno.ENOENT, f"COLOC_LIBRARY={path}: {e}") from None
    if not hasattr(lib, "coloc_unit_begin"):
        raise ColocError(errno.ENOENT, f"COLOC_LIBRARY={path} has no discard protocol")
    return lib


class Discard:
    """The calls of include/coloc/discard.h for this process's GPU."""

    def __init__(self, lib=None):
        self._lib = lib or find_library()
        for name, args in (("coloc_unit_begin", [ctypes.c_uint64]),
                           ("coloc_unit_phase", [ctypes.c_int]),
                           ("coloc_unit_end", []),
                           ("coloc_discard_pending", [ctypes.POINTER(ctypes.c_uint64)]),
                           ("coloc_discard_ack", [ctypes.c_uint64]),
                           ("coloc_discard_callback", [_CALLBACK, ctypes.c_void_p])):
            fn = getattr(self._lib, name)
            fn.argtypes = args
            fn.restype = ctypes.c_int
        self._phase = "none"
        self._callback = None  # the ctypes thunk must live as long as libcoloc may call it
        self.requested = threading.Event()

    @staticmethod
    def _check(rc, what):
        if rc < 0:
            raise ColocError(-rc, f"{what}: {os.strerror(-rc)}")
        return rc

    def begin(self, unit):
        """Starts unit `unit` (an integer id) in phase compute."""
        self._check(self._lib.coloc_unit_begin(unit), "coloc_unit_begin")
        self._phase = "compute"

    def set_phase(self, name):
        """Moves the open unit to phase `name`: compute, optimizer or collective."""
        if name not in PHASES:
            raise ValueError(f"phase {name!r} is not one of {', '.join(PHASES)}")
        self._check(self._lib.coloc_unit_phase(PHASES[name]), "coloc_unit_phase")
        self._phase = name

    def end(self):
        """Closes the open unit."""
        self._check(self._lib.coloc_unit_end(), "coloc_unit_end")
        self._phase = "none"

    @property
    def current_phase(self):
        return self._phase

    def pending(self):
        """The bytes a deliverable request wants (0: all it can), or None when there is none.

        Deliverable: outstanding, and this process in phase compute.  Safe
        from any thread (autograd's included)."""
        nbytes = ctypes.c_uint64()  # one per call: autograd's threads call it too
        rc = self._check(self._lib.coloc_discard_pending(ctypes.byref(nbytes)),
                         "coloc_discard_pending")
        return nbytes.value if rc else None

    def ack(self, freed_bytes=0):
        """Acknowledges the requests pending() reported; False when there was none."""
        rc = self._lib.coloc_discard_ack(max(0, int(freed_bytes)))
        if rc == -errno.EALREADY:
            return False
        self._check(rc, "coloc_discard_ack")
        self.requested.clear()
        return True

    def on_request(self, fn=None):
        """Calls fn(bytes) on libcoloc's thread when a request becomes deliverable.

        The call only notes the request: fn must return at once.  Without fn,
        `requested` (a threading.Event) is set, and ack() clears it.  None
        again after a function removes it."""
        def note(_arg, nbytes):
            self.requested.set()
            if fn:
                fn(nbytes)

        thunk = _CALLBACK(note)
        self._check(self._lib.coloc_discard_callback(thunk, None), "coloc_discard_callback")
        self._callback = thunk

    def off_request(self):
        """No more calls from libcoloc's thread."""
        self._check(self._lib.coloc_discard_callback(_CALLBACK(), None), "coloc_discard_callback")
        self._callback = None

    @contextlib.contextmanager
    def unit(self, unit):
        """A unit of work: compute inside, closed however the block ends."""
        self.begin(unit)
        try:
            yield self
        finally:
            self.end()

    @contextlib.contextmanager
    def phase(self, name):
        """Phase `name` for the block, then the phase it was in before."""
        before = self._phase
        self.set_phase(name)
        try:
            yield self
        finally:
            self.set_phase(before)
