"""The ctypes declarations of libmillaudit (millaudit.h) that the module uses, and how the library
is found. Only this file knows the C layout (the structs mirror millaudit/*.h field by field;
tests/integration/test_python.py reads every option back through ma_vrun_options_of and compares
every result with the command's); a library of another API revision is refused at import.
"""
import ctypes
import os
import pathlib

from . import _config

API_VERSION = 4  # MILLAUDIT_API_VERSION these declarations describe

c_char_p, c_int, c_uint, c_size_t = ctypes.c_char_p, ctypes.c_int, ctypes.c_uint, ctypes.c_size_t
c_int64, c_uint64, c_void_p = ctypes.c_int64, ctypes.c_uint64, ctypes.c_void_p


class Error(ctypes.Structure):
    _fields_ = [("code", c_int), ("msg", ctypes.c_char * 512)]


class VrunOptions(ctypes.Structure):
    """ma_vrun_options (millaudit/verify.h)."""
    _fields_ = [("root", c_char_p), ("sectors", ctypes.POINTER(c_char_p)), ("n_sectors", c_size_t),
                ("threads", c_int), ("max_rows", c_size_t), ("full_board_draw", c_int), ("allow_bounds", c_int),
                ("audit_path", c_char_p), ("mode", c_int), ("resume_run", c_int64),
                ("stale_seconds_given", c_int), ("stale_seconds", c_int64), ("shard_index", c_uint),
                ("shard_count", c_uint), ("host", c_char_p), ("command_line", c_char_p),
                ("tool_version", c_char_p), ("git_revision", c_char_p), ("progress", c_void_p),
                ("cancel", c_void_p), ("on_sector", c_void_p), ("on_sector_ctx", c_void_p),
                ("seal_key", c_void_p), ("integrity", c_int), ("manifest_path", c_char_p),
                ("attestation_path", c_char_p), ("pub_path", c_char_p),
                ("integrity_exclude", ctypes.POINTER(c_char_p)), ("n_integrity_exclude", c_size_t),
                ("on_integrity", c_void_p), ("on_integrity_ctx", c_void_p)]


class ProbeOptions(ctypes.Structure):
    """ma_probe_run_options (millaudit/inspect.h)."""
    _fields_ = [("root", c_char_p), ("no_digest_check", c_int), ("have_variant", c_int), ("variant", c_int),
                ("position", ctypes.POINTER(c_char_p)), ("n_position", c_int), ("batch", c_void_p),
                ("on_line", c_void_p), ("ctx", c_void_p)]


class ManifestCheckOptions(ctypes.Structure):
    """ma_manifest_check_options (millaudit/manifest.h)."""
    _fields_ = [("manifest", c_char_p), ("dir", c_char_p), ("audit_path", c_char_p), ("ignore_missing", c_int),
                ("ignore_extra", c_int), ("strict", c_int), ("threads", c_uint), ("progress", c_void_p)]


class ManifestCheckSummary(ctypes.Structure):
    """ma_manifest_check_summary."""
    _fields_ = [("manifest", c_char_p), ("dir", c_char_p), ("ok", c_size_t), ("failed", c_size_t),
                ("unreadable", c_size_t), ("missing", c_size_t), ("extra", c_size_t), ("malformed", c_size_t),
                ("malformed_lines", ctypes.POINTER(c_size_t)), ("strict_refused", c_int),
                ("nothing_verified", c_int), ("verdict", c_int)]


class ByteRange(ctypes.Structure):
    _fields_ = [("first_byte", c_uint64), ("last_byte", c_uint64), ("first_chunk", c_size_t),
                ("last_chunk", c_size_t)]


class ManifestFileResult(ctypes.Structure):
    """ma_manifest_file_result."""
    _fields_ = [("path", c_char_p), ("name", c_char_p), ("status", c_int), ("error", c_char_p), ("pinned", c_int),
                ("chunk_size_differs", c_int), ("recorded_chunk_size", c_uint64), ("n_ranges", c_size_t),
                ("ranges", ByteRange * 8), ("more_ranges", c_size_t), ("size", c_uint64),
                ("recorded_size", c_uint64)]


class RunsFilter(ctypes.Structure):
    """ma_runs_filter (millaudit/store.h)."""
    _fields_ = [("kind", c_char_p), ("root", c_char_p), ("last", c_size_t)]


P = ctypes.POINTER
# name: (restype, argtypes)
_FUNCTIONS = {
    "ma_api_version": (c_int, []),
    "ma_version": (c_char_p, []),
    "ma_version_number": (c_int, []),
    "ma_free": (None, [c_void_p]),
    "ma_exit_code_for": (c_int, [c_int]),
    "ma_error_name": (c_char_p, [c_int]),
    "ma_result_exit_code": (c_int, [c_int]),
    "ma_result_of_verdict": (c_int, [c_int, c_uint]),
    "ma_verdict_state_name": (c_char_p, [c_int]),
    "ma_seal_key_load": (c_int, [P(c_void_p), c_char_p, P(Error)]),
    "ma_seal_key_free": (None, [c_void_p]),
    "ma_vrun_create": (c_int, [P(c_void_p), P(VrunOptions), P(Error)]),
    "ma_vrun_execute": (c_int, [c_void_p, P(Error)]),
    "ma_vrun_free": (None, [c_void_p]),
    "ma_vrun_options_of": (P(VrunOptions), [c_void_p]),
    "ma_vrun_result": (c_int, [c_void_p, c_int]),
    "ma_vrun_error_count": (c_size_t, [c_void_p]),
    "ma_vrun_error": (c_char_p, [c_void_p, c_size_t]),
    "ma_render_verify_json_buffer": (c_int, [P(c_void_p), P(c_size_t), c_void_p, P(c_char_p), c_size_t, c_int,
                                             P(Error)]),
    "ma_probe_run": (c_int, [P(c_void_p), P(ProbeOptions), P(Error)]),
    "ma_probe_failure_result": (c_int, [c_int]),
    "ma_probe_report_result": (c_int, [c_void_p]),
    "ma_probe_render_json_buffer": (c_int, [P(c_void_p), P(c_size_t), c_void_p, P(Error)]),
    "ma_probe_report_free": (None, [c_void_p]),
    "ma_manifest_check_run": (c_int, [P(c_void_p), P(ManifestCheckOptions), P(Error)]),
    "ma_manifest_check_summary_of": (P(ManifestCheckSummary), [c_void_p]),
    "ma_manifest_check_files": (c_size_t, [c_void_p]),
    "ma_manifest_check_file": (P(ManifestFileResult), [c_void_p, c_size_t]),
    "ma_manifest_check_print_files": (None, [c_void_p, c_void_p, c_void_p, c_int]),
    "ma_manifest_check_free": (None, [c_void_p]),
    "ma_audit_open_readonly": (c_int, [P(c_void_p), c_char_p, P(Error)]),
    "ma_audit_free": (None, [c_void_p]),
    "ma_store_input_result": (c_int, [c_int]),
    "ma_runs_list": (c_int, [P(c_void_p), c_void_p, P(RunsFilter), P(Error)]),
    "ma_run_list_free": (None, [c_void_p]),
    "ma_render_runs_list": (c_int, [P(c_void_p), c_void_p, c_char_p, c_int, P(Error)]),
}


def _candidates():
    """Where the library may be: $MILLAUDIT_LIBRARY, the one installed beside this module (the
    relative path cmake --install wrote into _config), then the dynamic loader's search."""
    env = os.environ.get("MILLAUDIT_LIBRARY")
    if env:
        yield env
        return
    if _config.LIBRARY:
        here = pathlib.Path(__file__).resolve().parent
        yield os.path.normpath(here / _config.LIBRARY)
    yield _config.SONAME


def load():
    errors = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            errors.append(f"{path}: no such file")
            continue
        try:
            lib = ctypes.CDLL(path)
            break
        except OSError as e:
            errors.append(str(e))
    else:
        raise ImportError("millaudit: libmillaudit not found (" + "; ".join(errors) +
                          "); set MILLAUDIT_LIBRARY to its path")
    for name, (restype, argtypes) in _FUNCTIONS.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    if lib.ma_api_version() != API_VERSION:
        raise ImportError(f"millaudit: {path} speaks API {lib.ma_api_version()}, this module API {API_VERSION}")
    return lib


# libc, for the streams some renderers write to (open_memstream: the command's very words)
_libc = ctypes.CDLL(None)
_libc.open_memstream.restype = c_void_p
_libc.open_memstream.argtypes = [P(c_void_p), P(c_size_t)]
_libc.fclose.argtypes = [c_void_p]
_libc.free.argtypes = [c_void_p]


def capture(write):
    """What write(FILE *) writes, as text (through open_memstream)."""
    buf, size = c_void_p(), c_size_t()
    f = _libc.open_memstream(ctypes.byref(buf), ctypes.byref(size))
    if not f:
        raise MemoryError("open_memstream failed")
    try:
        write(f)
    finally:
        _libc.fclose(f)
    try:
        return ctypes.string_at(buf, size.value).decode("utf-8", "surrogateescape")
    finally:
        _libc.free(buf)
