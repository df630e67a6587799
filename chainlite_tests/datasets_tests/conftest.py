"""Fixtures for the downloading data set loaders: a local HTTP server and a fresh dataset root."""
from __future__ import annotations

import hashlib
import http.server
import socket
import threading

import pytest

from chainlite.dataset import download


class _Handler(http.server.BaseHTTPRequestHandler):
    """Serves ``server.files`` (path -> bytes); answers 404 for anything else."""

    def do_GET(self):
        self.server.requests.append(self.path)
        body = self.server.files.get(self.path)
        if body is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class FileServer:
    """A threaded HTTP server on 127.0.0.1 serving in-memory files."""

    def __init__(self):
        self._httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.files = {}
        self._httpd.requests = []
        self.url = 'http://127.0.0.1:%d' % self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.01,),
                                        daemon=True)
        self._thread.start()
        self.running = True

    @property
    def files(self):
        return self._httpd.files

    @property
    def requests(self):
        return self._httpd.requests

    def publish(self, directory, files):
        """Serves ``files`` (name -> bytes) under ``/directory/``; returns name -> SHA-256."""
        for name, body in files.items():
            self.files['/%s/%s' % (directory, name)] = body
        return {name: hashlib.sha256(body).hexdigest() for name, body in files.items()}

    def stop(self):
        if self.running:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._thread.join()
            self.running = False


@pytest.fixture
def file_server():
    server = FileServer()
    yield server
    server.stop()


@pytest.fixture
def refused_url():
    """A base URL on a local port where nothing listens (connection refused)."""
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        port = s.getsockname()[1]
    return 'http://127.0.0.1:%d/' % port


@pytest.fixture
def dataset_root(tmp_path, monkeypatch):
    """Points the dataset root at a fresh temporary directory for one test."""
    monkeypatch.setattr(download, '_dataset_root', None)
    download.set_dataset_root(tmp_path / 'datasets')
    return tmp_path / 'datasets'
