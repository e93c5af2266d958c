"""univk's exceptions. Every failure the C++ runtime or compiler reports is a univk.Error
subclass named after its status code (include/univk/base/status.h), so callers can catch one
kind (`except univk.NotFound`) or all (`except univk.Error`). str(error) is
"<Code>: <message>", the message naming what went wrong.

Error derives from RuntimeError, which univk raised for these failures before it had its own
classes. Wrong Python argument types and values are still TypeError and ValueError.
"""


class Error(RuntimeError):
    """A univk operation failed. `code` is the runtime status code name, or None for errors
    that come from the Python side (ExportError)."""

    code = None


class InvalidArgument(Error):
    """Bad input from the caller, or a malformed file."""

    code = "InvalidArgument"


class NotFound(Error):
    """A name, key or file that does not exist."""

    code = "NotFound"


class AlreadyExists(Error):
    """A key or registration that is already taken."""

    code = "AlreadyExists"


class Incompatible(Error):
    """A device or file lacks something that is required."""

    code = "Incompatible"


class OutOfMemory(Error):
    """A host or device allocation failed."""

    code = "OutOfMemory"


class DeviceLost(Error):
    """The Vulkan device was lost (VK_ERROR_DEVICE_LOST)."""

    code = "DeviceLost"


class Unsupported(Error):
    """Valid input that univk does not implement."""

    code = "Unsupported"


class Internal(Error):
    """A driver error or a broken invariant inside univk."""

    code = "Internal"


class Timeout(Error):
    """A wait ran out of time."""

    code = "Timeout"


_BY_CODE = {cls.code: cls for cls in (InvalidArgument, NotFound, AlreadyExists, Incompatible, OutOfMemory, DeviceLost,
                                      Unsupported, Internal, Timeout)}


def _error_class(code):
    """The class the extension raises for status code `code` (Error for a code it does not
    know, so a newer runtime code still raises a univk.Error)."""
    return _BY_CODE.get(code, Error)


__all__ = ["Error"] + sorted(_BY_CODE)
