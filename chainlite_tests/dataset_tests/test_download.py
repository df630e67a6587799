import hashlib
import http.server
import os
import pathlib
import socket
import threading
import time

import pytest

from chainlite.dataset import download

_BODY = b'0123456789' * 1000
_SHA = hashlib.sha256(_BODY).hexdigest()


class _Handler(http.server.BaseHTTPRequestHandler):
    """``/ok/*`` serves the body, ``/bad/*`` a corrupt one, ``/cut/*`` half of it then hangs
    up, ``/slow/*`` sleeps first; anything else is 404."""

    def do_GET(self):
        self.server.requests.append(self.path)
        kind = self.path.split('/')[1]
        if kind not in ('ok', 'bad', 'cut', 'slow'):
            self.send_error(404)
            return
        if kind == 'slow':
            time.sleep(0.3)
        body = _BODY[::-1] if kind == 'bad' else _BODY
        self.send_response(200)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body[:len(body) // 2] if kind == 'cut' else body)
        except ConnectionError:  # the client gave up on /slow/ already
            pass

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _Handler)
    httpd.daemon_threads = True
    httpd.requests = []
    httpd.url = 'http://127.0.0.1:%d' % httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    httpd.stopped = False

    def stop():
        if not httpd.stopped:
            httpd.shutdown()
            httpd.server_close()
            thread.join()
            httpd.stopped = True

    httpd.stop = stop
    yield httpd
    stop()


@pytest.fixture
def refused_url():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        port = s.getsockname()[1]
    return 'http://127.0.0.1:%d/ok/file.bin' % port


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.setattr(download, '_dataset_root', None)
    download.set_dataset_root(tmp_path / 'root')
    return tmp_path / 'root'


def _cache_files(root):
    cache = root / '_dl_cache'
    return sorted(os.listdir(cache)) if cache.exists() else []


# dataset root

@pytest.fixture
def clean_env(monkeypatch):
    monkeypatch.setattr(download, '_dataset_root', None)
    monkeypatch.delenv('CHAINLITE_DATASET_ROOT', raising=False)
    monkeypatch.delenv('CHAINER_DATASET_ROOT', raising=False)
    return monkeypatch


def test_default_root(clean_env):
    expected = os.path.join(os.path.expanduser('~'), '.chainlite', 'dataset')
    assert download.get_dataset_root() == expected


def test_root_from_environment(clean_env, tmp_path):
    clean_env.setenv('CHAINER_DATASET_ROOT', str(tmp_path / 'chainer'))
    assert download.get_dataset_root() == str(tmp_path / 'chainer')
    clean_env.setenv('CHAINLITE_DATASET_ROOT', str(tmp_path / 'lite'))
    assert download.get_dataset_root() == str(tmp_path / 'lite')


def test_set_dataset_root_wins_and_none_restores(clean_env, tmp_path):
    clean_env.setenv('CHAINLITE_DATASET_ROOT', str(tmp_path / 'env'))
    download.set_dataset_root(tmp_path / 'explicit')
    assert download.get_dataset_root() == str(tmp_path / 'explicit')
    download.set_dataset_root(None)
    assert download.get_dataset_root() == str(tmp_path / 'env')


def test_get_dataset_directory(root):
    path = download.get_dataset_directory('pfnet/chainer/x', create_directory=False)
    assert path == os.path.join(str(root), 'pfnet/chainer/x')
    assert not os.path.exists(path)
    assert download.get_dataset_directory('pfnet/chainer/x') == path
    assert os.path.isdir(path)
    download.get_dataset_directory('pfnet/chainer/x')  # exists already: fine


# cached_download

def test_download_then_cache_without_network(server, root):
    url = server.url + '/ok/file.bin'
    path = download.cached_download(url, sha256=_SHA)
    assert pathlib.Path(path).read_bytes() == _BODY
    assert os.path.dirname(path) == str(root / '_dl_cache')
    assert path.endswith('file.bin')
    server.stop()
    assert download.cached_download(url, sha256=_SHA) == path
    # keyed by the hash: another mirror list finds the same cached file
    assert download.cached_download(['http://127.0.0.1:1/ok/file.bin'], _SHA.upper()) == path
    assert server.requests == ['/ok/file.bin']


def test_without_hash_cache_is_keyed_by_url(server, root):
    first = download.cached_download(server.url + '/ok/a.bin')
    again = download.cached_download(server.url + '/ok/a.bin')
    other = download.cached_download(server.url + '/ok/b.bin')
    assert first == again != other
    assert len(server.requests) == 2


def test_mirrors_tried_in_order(server, root, refused_url):
    urls = [refused_url, server.url + '/missing/file.bin', server.url + '/ok/file.bin']
    path = download.cached_download(urls, sha256=_SHA)
    assert pathlib.Path(path).read_bytes() == _BODY
    assert server.requests == ['/missing/file.bin', '/ok/file.bin']
    assert _cache_files(root) == [os.path.basename(path)]


def test_hash_mismatch_names_url_and_hashes_and_caches_nothing(server, root):
    url = server.url + '/bad/file.bin'
    actual = hashlib.sha256(_BODY[::-1]).hexdigest()
    with pytest.raises(OSError) as info:
        download.cached_download(url, sha256=_SHA)
    message = str(info.value)
    assert url in message and _SHA in message and actual in message
    assert 'SHA-256 mismatch' in message and 'nothing was cached' in message
    assert _cache_files(root) == []


def test_corrupt_mirror_falls_back_to_next(server, root):
    path = download.cached_download([server.url + '/bad/f', server.url + '/ok/f'], _SHA)
    assert pathlib.Path(path).read_bytes() == _BODY


def test_interrupted_download_leaves_no_file(server, root):
    url = server.url + '/cut/file.bin'
    with pytest.raises(OSError, match='connection closed after 5000 of 10000 bytes'):
        download.cached_download(url)  # no hash: the length check alone catches it
    assert _cache_files(root) == []
    path = download.cached_download([url, server.url + '/ok/file.bin'], _SHA)
    assert pathlib.Path(path).read_bytes() == _BODY
    assert _cache_files(root) == [os.path.basename(path)]


def test_all_mirrors_failing_lists_each(server, root, refused_url):
    urls = [refused_url, server.url + '/nope/file.bin', server.url + '/cut/file.bin']
    with pytest.raises(OSError) as info:
        download.cached_download(urls, _SHA)
    message = str(info.value)
    assert "'file.bin' from any of its 3 mirror(s)" in message
    for url in urls:
        assert url in message
    assert '404' in message
    assert _cache_files(root) == []


def test_timeout_counts_as_failed_mirror(server, root, monkeypatch):
    monkeypatch.setattr(download, '_TIMEOUT', 0.05)
    path = download.cached_download([server.url + '/slow/f', server.url + '/ok/f'], _SHA)
    assert pathlib.Path(path).read_bytes() == _BODY


def test_file_url(root, tmp_path):
    source = tmp_path / 'local.bin'
    source.write_bytes(_BODY)
    path = download.cached_download(source.as_uri(), sha256=_SHA)
    assert pathlib.Path(path).read_bytes() == _BODY


@pytest.mark.parametrize('urls, message', [
    ([], 'url_or_urls is empty'),
    ('ftp://example.com/x', "unsupported URL 'ftp://example.com/x'"),
    (['https://example.com/x', 'example.com/y'], "unsupported URL 'example.com/y'"),
])
def test_invalid_urls(root, urls, message):
    with pytest.raises(ValueError, match=message):
        download.cached_download(urls)


def test_invalid_sha256(root):
    with pytest.raises(ValueError, match="sha256 must be 64 hex digits, got 'abc'"):
        download.cached_download('https://example.com/x', sha256='abc')


# cache_or_load_file

def test_cache_or_load_file_creates_once_then_loads(tmp_path):
    target = tmp_path / 'sub' / 'data.txt'
    seen = []

    def creator(path):
        seen.append(path)
        assert not os.path.exists(path)
        assert os.path.basename(path) == 'data.txt'
        assert os.path.dirname(os.path.dirname(path)) == str(tmp_path / 'sub')
        pathlib.Path(path).write_text('content')
        return 'created'

    assert download.cache_or_load_file(target, creator, lambda p: 'loaded') == 'created'
    assert target.read_text() == 'content'
    assert download.cache_or_load_file(target, creator, lambda p: 'loaded') == 'loaded'
    assert len(seen) == 1
    assert [n for n in os.listdir(tmp_path / 'sub') if not n.endswith('.lock')] == ['data.txt']


def test_cache_or_load_file_failing_creator_leaves_nothing(tmp_path):
    def creator(path):
        pathlib.Path(path).write_text('half')
        raise RuntimeError('boom')

    with pytest.raises(RuntimeError, match='boom'):
        download.cache_or_load_file(tmp_path / 'x.npz', creator, lambda p: None)
    assert [n for n in os.listdir(tmp_path) if not n.endswith('.lock')] == []


def test_cache_or_load_file_concurrent_callers_create_once(tmp_path):
    target = tmp_path / 'shared.txt'
    created = []
    results = []

    def creator(path):
        created.append(path)
        time.sleep(0.05)  # keep the others waiting on the lock
        pathlib.Path(path).write_text('v')
        return 'created'

    def call():
        results.append(download.cache_or_load_file(
            target, creator, lambda p: 'loaded ' + pathlib.Path(p).read_text()))

    threads = [threading.Thread(target=call) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(created) == 1
    assert sorted(results) == ['created', 'loaded v', 'loaded v', 'loaded v']


def test_cache_or_load_file_needs_a_directory_as_dataset_root(tmp_path, monkeypatch):
    # Chainer refuses to create a cache file while the dataset root is a file.
    not_a_dir = tmp_path / 'root_file'
    not_a_dir.write_text('')
    monkeypatch.setattr(download, '_dataset_root', str(not_a_dir))
    created = []
    with pytest.raises(RuntimeError, match='dataset root .* is not a directory'):
        download.cache_or_load_file(tmp_path / 'data.txt', created.append, lambda p: None)
    assert created == []
    # A file that exists is still loaded: the root only matters for creating.
    (tmp_path / 'data.txt').write_text('x')
    assert download.cache_or_load_file(tmp_path / 'data.txt', created.append,
                                       lambda p: 'loaded') == 'loaded'
