"""Shared by the Python client scripts: load the harness's kubeconfig, run named steps, print one JSON result.

Each script is run as `python3 <script> <kubeconfig> <namespace>`; it prints a single JSON object on its last
stdout line, which the jest test asserts on. A step that raises is recorded with the API error (status, reason,
the Status body) so that a failing assertion shows what the server answered.
"""
import atexit
import json
import time
import os
import sys
import tempfile
import traceback

from kubernetes import client, config
from kubernetes.client.rest import ApiException


def api_client():
    kubeconfig = sys.argv[1]
    return config.new_client_from_config(config_file=kubeconfig)


def namespace():
    return sys.argv[2]


class Results:
    def __init__(self):
        self.data = {}

    def step(self, name, fn):
        """Runs fn(); records its value (or the error it raised) under name and returns the value (or None)."""
        try:
            value = fn()
            self.data[name] = {"ok": True, "value": value}
            return value
        except ApiException as e:
            body = None
            try:
                body = json.loads(e.body) if e.body else None
            except ValueError:
                body = e.body
            self.data[name] = {"ok": False, "status": e.status, "reason": e.reason, "body": body}
        except Exception as e:  # noqa: BLE001 - every failure is reported to the jest side
            self.data[name] = {"ok": False, "error": repr(e), "trace": traceback.format_exc()}
        return None

    def emit(self):
        print(json.dumps(self.data, default=str))


ROOT_CA_CONFIGMAP = "kube-root-ca.crt"


def ensure_namespace(core, name):
    try:
        core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=name)))
    except ApiException as e:
        if e.status != 409:
            raise
    # kube's root-ca-cert-publisher puts kube-root-ca.crt into every new namespace shortly after it is created, as in
    # a cluster; wait for it so that what the scripts list and watch does not depend on that timing
    deadline = time.monotonic() + 20
    while True:
        try:
            core.read_namespaced_config_map(ROOT_CA_CONFIGMAP, name)
            return
        except ApiException as e:
            if e.status != 404 or time.monotonic() > deadline:
                raise
        time.sleep(0.05)


def discovery_cache_file():
    """A fresh file for the dynamic client's discovery cache, removed when the script ends."""
    fd, path = tempfile.mkstemp(prefix="kah-py-discovery-", suffix=".json")
    os.close(fd)
    os.unlink(path)  # the client writes it; an empty file is not a valid cache
    atexit.register(lambda: os.path.exists(path) and os.unlink(path))
    return path
