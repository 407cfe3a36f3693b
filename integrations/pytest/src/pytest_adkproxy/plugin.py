"""pytest-adkproxy: one adkproxy cassette per test.

Each test's model and tool traffic goes to a cassette named after its node id
(``tests/test_weather.py::test_paris`` -> ``tests/test_weather/test_paris``).
The plugin starts one adkproxy per session (per mode, when a marker asks for
another), points the Gemini clients at it through the environment, and turns
a request that replay could not match into a failure of the test that sent
it, with adkproxy's field-level difference in the report. Under
``adkproxy replay -- pytest`` (ADKPROXY_URL set) it uses that proxy instead.
"""

import ipaddress
import json
import os
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

MODES = ("replay", "record", "off")
# What replay gives a client that has no key of its own (never sent anywhere).
PLACEHOLDER_KEY = "adkproxy-replay-placeholder-key"
KEY_VARS = ("GOOGLE_API_KEY", "GEMINI_API_KEY")


def pytest_addoption(parser):
    group = parser.getgroup("adkproxy", "adkproxy: record and replay the agent's traffic")
    group.addoption("--adkproxy-mode", choices=MODES, default=None,
                    help="replay (default: offline, from the cassettes), record (forward and write), "
                         "or off (the plugin does nothing)")
    group.addoption("--adkproxy-record", action="store_true", default=False,
                    help="the same as --adkproxy-mode record")
    group.addoption("--adkproxy-cassettes", default=None, metavar="DIR",
                    help="the cassettes folder (default: the adkproxy_cassettes ini value, "
                         "'cassettes' under the rootdir)")
    group.addoption("--adkproxy-bin", default=None, metavar="PATH",
                    help="the adkproxy program (default: $ADKPROXY_BIN, else adkproxy on PATH)")
    group.addoption("--adkproxy-upstream", default=None, metavar="URL",
                    help="record from this base URL instead of the Gemini API (a staging server, adkproxy fake)")
    group.addoption("--adkproxy-arg", action="append", default=[], metavar="ARG",
                    help="one more argument for the adkproxy the plugin starts (repeatable), e.g. --ignore=PATH")
    parser.addini("adkproxy_cassettes", "the cassettes folder, relative to the rootdir", default="cassettes")
    parser.addini("adkproxy_mode", "replay, record or off", default="replay")


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "adkproxy(cassette=None, mode=None): this test's cassette name (instead of one from its node id) "
        "or mode (record, replay, off) instead of the session's")
    config.pluginmanager.register(Session(config), "adkproxy-session")


def cassette_name(nodeid):
    """The cassette of a test: its node id without .py, :: as /."""
    path, _, rest = nodeid.partition("::")
    if path.endswith(".py"):
        path = path[:-3]
    return path + ("/" + rest.replace("::", "/") if rest else "")


# The control calls' opener for an adkproxy on loopback: no proxy from the environment. urllib
# would send them (and the control token) through HTTP_PROXY when NO_PROXY does not list the
# address; Go's clients never proxy loopback, and neither does this one.
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def is_loopback(url):
    """Whether url's host is this machine's loopback (localhost, 127.0.0.0/8, ::1)."""
    host = (urllib.parse.urlsplit(url).hostname or "").rstrip(".").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Proxy:
    """One running adkproxy: started by the plugin, or the one pytest runs under."""

    def __init__(self, url, mode, token=None, process=None, log=None, report=None):
        self.url, self.mode, self.token = url.rstrip("/"), mode, token
        self.process, self.log, self.report = process, log, report

    def control(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + "/_adkproxy/" + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if self.token:
            req.add_header("Authorization", "Bearer " + self.token)
        try:
            opener = _DIRECT if is_loopback(self.url) else urllib.request.build_opener()
            with opener.open(req, timeout=30) as resp:
                return json.load(resp)
        except urllib.error.HTTPError as err:
            raise pytest.UsageError(f"adkproxy at {self.url} refused {method} /_adkproxy/{path}: "
                                    f"{err.read().decode(errors='replace').strip()}") from None

    def outcomes(self):
        return self.control("GET", "report").get("outcomes") or []

    def stop(self):
        """Ends a started proxy (it writes the cassettes) and returns its exit status."""
        if self.process is None:
            return 0
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=120)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode

    def log_tail(self, lines=30):
        try:
            with open(self.log, encoding="utf-8", errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return ""


class Session:
    def __init__(self, config):
        self.config = config
        self.proxies = {}
        self.tmp = None
        self.used = {}  # cassette name -> node id, for what replay left unused
        self.problems = []
        self.failed = set()  # node ids already reported failing

    # --- configuration -------------------------------------------------
    def session_mode(self):
        opt = self.config.getoption
        if opt("adkproxy_record"):
            return "record"
        mode = opt("adkproxy_mode") or self.config.getini("adkproxy_mode")
        if mode not in MODES:
            raise pytest.UsageError(f"adkproxy_mode = {mode!r}: use one of {', '.join(MODES)}")
        return mode

    def cassettes_dir(self):
        d = self.config.getoption("adkproxy_cassettes") or self.config.getini("adkproxy_cassettes")
        # Relative to the ini file's folder when there is one: the rootdir moves with the paths given.
        base = self.config.inipath.parent if self.config.inipath else self.config.rootpath
        return d if os.path.isabs(d) else os.path.join(str(base), d)

    def program(self):
        return self.config.getoption("adkproxy_bin") or os.environ.get("ADKPROXY_BIN") or "adkproxy"

    # --- proxies -------------------------------------------------------
    def proxy(self, mode):
        """The proxy serving mode, started on first use."""
        if mode in self.proxies:
            return self.proxies[mode]
        outer = os.environ.get("ADKPROXY_URL")
        if outer:
            p = Proxy(outer, None, os.environ.get("ADKPROXY_CONTROL_TOKEN"))
            p.mode = p.control("GET", "health").get("mode")
            if p.mode != mode and mode != self.session_mode():
                raise pytest.UsageError(
                    f"this test asks for adkproxy mode {mode!r}, but pytest runs under adkproxy {p.mode} "
                    f"({outer}), which serves one mode: run it without the wrapper to mix modes")
            self.proxies[mode] = p
            return p
        self.proxies[mode] = p = self.start(mode)
        return p

    def start(self, mode):
        if self.tmp is None:
            self.tmp = tempfile.mkdtemp(prefix="pytest-adkproxy-")
        addr = os.path.join(self.tmp, mode + ".addr")
        log = os.path.join(self.tmp, mode + ".log")
        report = os.path.join(self.tmp, mode + ".report.json")
        cmd = [self.program(), mode, "--cassettes", self.cassettes_dir(), "--listen", "127.0.0.1:0",
               "--addr-file", addr, "--report", report, "--no-forward-proxy", "--log-format", "text"]
        upstream = self.config.getoption("adkproxy_upstream")
        if mode == "record" and upstream:
            cmd += ["--upstream", upstream]
        cmd += self.config.getoption("adkproxy_arg")
        try:
            with open(log, "wb") as out:
                process = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        except FileNotFoundError:
            raise pytest.UsageError(
                f"adkproxy not found ({cmd[0]!r}): install it, or give --adkproxy-bin or ADKPROXY_BIN") from None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if os.path.exists(addr) and open(addr).read().strip():
                proxy = Proxy("http://" + open(addr).read().strip(), mode, process=process, log=log, report=report)
                return proxy
            if process.poll() is not None:
                break
            time.sleep(0.05)
        process.kill()
        process.wait()
        tail = Proxy("", mode, log=log).log_tail()
        raise pytest.UsageError(f"adkproxy {mode} did not start ({' '.join(cmd)}); it said:\n{tail}")

    # --- per test --------------------------------------------------------
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(self, item):
        mode, name = self.mode_of(item), self.cassette_of(item)
        if mode != "off":
            proxy = self.proxy(mode)
            previous = proxy.control("PUT", "cassette", {"name": name})["previous"]
            item.stash[_state] = (proxy, name, previous, len(proxy.outcomes()), self.point_clients(proxy))
            self.used[name] = item.nodeid
        yield

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        state = item.stash.get(_state, None)
        if report.when != "call" or state is None:
            return
        proxy, name, _, before, _ = state
        bad = [o for o in proxy.outcomes()[before:]
               if o.get("cassette") == name and o.get("outcome") in ("mismatched", "unmatched")]
        if not bad:
            if report.failed:
                self.failed.add(item.nodeid)
            return
        self.failed.add(item.nodeid)
        text = describe(name, bad)
        report.sections.append(("adkproxy", text))
        if report.passed:
            report.outcome = "failed"
            report.longrepr = text

    def pytest_runtest_teardown(self, item):
        state = item.stash.get(_state, None)
        if state is None:
            return
        proxy, _, previous, _, saved = state
        restore_env(saved)
        proxy.control("PUT", "cassette", {"name": previous})

    def pytest_sessionfinish(self, session):
        for mode, proxy in self.proxies.items():
            status = proxy.stop()
            if proxy.process is None:
                continue
            # A recording left unused by a test that passed: the agent now stops
            # early or skips a call. A failed test has said why already.
            unused = {}
            try:
                with open(proxy.report, encoding="utf-8") as f:
                    for o in json.load(f).get("outcomes") or []:
                        node = self.used.get(o.get("cassette"))
                        if o.get("outcome") == "unused" and node and node not in self.failed:
                            unused.setdefault(node, []).append(o)
            except (OSError, ValueError):
                pass
            for node, outs in unused.items():
                self.problems.append(f"{node}: {len(outs)} recording(s) of cassette {outs[0]['cassette']!r} "
                                     f"no request used; the first: {outs[0].get('message') or outs[0].get('path')}")
            # Replay fails only on what the tests that ran left: a -k selection leaves other cassettes unused.
            if status not in (0, 76) or (status == 76 and mode == "record"):
                self.problems.append(f"adkproxy {mode} exited {status}:\n{proxy.log_tail()}")
        if self.problems and session.exitstatus == 0:
            session.exitstatus = 1

    def pytest_terminal_summary(self, terminalreporter):
        if self.problems:
            terminalreporter.section("adkproxy")
            for p in self.problems:
                terminalreporter.line(p)

    # --- helpers ---------------------------------------------------------
    def mode_of(self, item):
        marker = item.get_closest_marker("adkproxy")
        mode = marker.kwargs.get("mode") if marker else None
        if mode is not None and mode not in MODES:
            raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.adkproxy(mode={mode!r}): use one of {', '.join(MODES)}")
        return mode or self.session_mode()

    def cassette_of(self, item):
        marker = item.get_closest_marker("adkproxy")
        if marker and (marker.kwargs.get("cassette") or marker.args):
            return marker.kwargs.get("cassette") or marker.args[0]
        return cassette_name(item.nodeid)

    def needs_no_key(self, proxy):
        """Replay, and recording from an upstream that is not Google's, take no real key (as adkproxy's own wrapper)."""
        if proxy.mode == "replay":
            return True
        upstream = self.config.getoption("adkproxy_upstream")
        host = urllib.parse.urlsplit(upstream).hostname if upstream else None
        return proxy.process is not None and host is not None and not (
            host == "googleapis.com" or host.endswith(".googleapis.com"))

    def point_clients(self, proxy):
        """Points the genai clients at proxy for one test; returns what to restore."""
        env = {"GOOGLE_GEMINI_BASE_URL": proxy.url, "GOOGLE_VERTEX_BASE_URL": proxy.url, "ADKPROXY_URL": proxy.url}
        if self.needs_no_key(proxy) and not any(os.environ.get(k) for k in KEY_VARS):
            env["GOOGLE_API_KEY"] = PLACEHOLDER_KEY
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        return saved


def restore_env(saved):
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def describe(name, outcomes):
    """adkproxy's explanation of each request replay could not answer from the recording."""
    lines = [f"adkproxy: {len(outcomes)} request(s) of this test did not match cassette {name!r}:"]
    for o in outcomes:
        where = ", ".join(f"{k} {o[k]}" for k in ("session", "invocation", "step") if k in o)
        lines.append(f"- {o['outcome']} {o.get('method', '')} {o.get('path', '')}" + (f" ({where})" if where else ""))
        for d in o.get("diffs") or []:
            lines.append("    " + format_diff(d))
        if o.get("message") and not o.get("diffs"):
            # adkproxy's own "Re-record with …" line gives way to pytest's below.
            lines.extend("    " + line for line in o["message"].splitlines() if not line.startswith("Re-record with"))
    lines.append("If the change is intended, re-record: pytest --adkproxy-record (or adkproxy record -- pytest).")
    return "\n".join(lines)


def format_diff(d):
    """One difference as adkproxy reports it: path, kind, recorded and sent values."""
    text = f"{d.get('path', '')}: {d.get('kind', 'changed')}"
    if "recorded" in d:
        text += f"; recorded {d['recorded'][:300]}"
    if "got" in d:
        text += f"; sent {d['got'][:300]}"
    if "words" in d:
        text += f"; words {d['words'][:300]}"
    return text


_state = pytest.StashKey()
