"""watch.Watch().stream over list_namespaced_config_map (the client sends ?watch=True): a live watch sees the
current state as ADDED, then ADDED, MODIFIED and DELETED for changes made while it runs."""
import threading

from kubernetes import client, watch

from kah_common import Results, api_client, ensure_namespace, namespace

r = Results()
api = api_client()
core = client.CoreV1Api(api)
ns = namespace()
ensure_namespace(core, ns)
core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="before")))

events = []
connected = threading.Event()
done = threading.Event()
w = watch.Watch()


def run_watch():
    try:
        # _request_timeout bounds each socket read, so a server that never answers fails the script, not hangs it
        for event in w.stream(core.list_namespaced_config_map, ns, _request_timeout=60):
            obj = event["object"]
            events.append({"type": event["type"], "name": obj.metadata.name, "data": obj.data, "rv": obj.metadata.resource_version})
            if obj.metadata.name == "before":
                connected.set()
            if event["type"] == "DELETED" and obj.metadata.name == "live":
                w.stop()
                break
    except Exception as e:  # noqa: BLE001
        events.append({"type": "EXCEPTION", "error": repr(e)})
    finally:
        connected.set()
        done.set()


t = threading.Thread(target=run_watch, daemon=True)
t.start()
r.step("connected", lambda: connected.wait(30))
r.step("create", lambda: core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="live"), data={"v": "1"})).metadata.name)
r.step("patch", lambda: core.patch_namespaced_config_map("live", ns, {"data": {"v": "2"}}).data)
r.step("delete", lambda: core.delete_namespaced_config_map("live", ns).status)
r.step("finished", lambda: done.wait(30))
r.data["events"] = events
r.emit()
