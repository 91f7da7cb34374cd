"""Imported by every Python process whose PYTHONPATH starts with this directory (`make test` puts
it there): while RPS_AWS_CALLS names a directory, the AWS calls the shipped code makes in this
process are recorded there (tests/iam/recording.py, loaded by its path: the repository need not be
importable from where the process runs)."""

import importlib.util
import os
import sys
from pathlib import Path

if os.environ.get("RPS_AWS_CALLS"):
    _path = Path(__file__).resolve().parent.parent / "recording.py"
    _spec = importlib.util.spec_from_file_location("tests.iam.recording", _path)
    assert _spec is not None
    assert _spec.loader is not None
    _recording = importlib.util.module_from_spec(_spec)
    sys.modules[_spec.name] = _recording
    _spec.loader.exec_module(_recording)
    _recording.install(os.environ["RPS_AWS_CALLS"])
