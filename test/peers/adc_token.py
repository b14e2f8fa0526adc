"""Application Default Credentials as a Python program gets them: google.auth.default(), then a
refresh. Prints {"token", "credentials", "version"} as JSON on stdout. Run by adc-peers.test.ts with
gcloud's bundled google-auth and with the system's (Debian's) one.

google-auth before 1.7 has no transport for the standard library alone and Debian ships no
`requests`; then a small urllib transport is used (it honours HTTPS_PROXY, NO_PROXY and
REQUESTS_CA_BUNDLE as `requests` would).
"""
import json
import os
import ssl
import sys
import urllib.error
import urllib.request

import google.auth
import google.auth.transport

CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform"


class _Response(google.auth.transport.Response):
    def __init__(self, status, headers, data):
        self._status, self._headers, self._data = status, headers, data

    @property
    def status(self):
        return self._status

    @property
    def headers(self):
        return self._headers

    @property
    def data(self):
        return self._data


class _UrllibRequest(google.auth.transport.Request):
    def __call__(self, url, method="GET", body=None, headers=None, timeout=None, **kwargs):
        context = ssl.create_default_context(cafile=os.environ.get("REQUESTS_CA_BUNDLE"))
        opener = urllib.request.build_opener(
            urllib.request.ProxyHandler(), urllib.request.HTTPSHandler(context=context)
        )
        data = body.encode("utf-8") if isinstance(body, str) else body
        request = urllib.request.Request(url, data=data, headers=headers or {}, method=method)
        try:
            with opener.open(request, timeout=timeout or 60) as reply:
                return _Response(reply.status, dict(reply.headers), reply.read())
        except urllib.error.HTTPError as error:
            return _Response(error.code, dict(error.headers), error.read())


def _transport():
    try:
        import google.auth.transport.requests

        return google.auth.transport.requests.Request()
    except ImportError:
        return _UrllibRequest()


def main():
    request = _transport()
    credentials, _project = google.auth.default(scopes=[CLOUD_PLATFORM])
    credentials.refresh(request)
    kind = type(credentials)
    try:
        from google.auth import version

        release = version.__version__
    except ImportError:
        import importlib.metadata

        release = importlib.metadata.version("google-auth")
    json.dump(
        {"token": credentials.token, "credentials": kind.__module__ + "." + kind.__name__, "version": release},
        sys.stdout,
    )


if __name__ == "__main__":
    main()
