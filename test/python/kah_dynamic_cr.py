"""kubernetes.dynamic.DynamicClient on a custom resource: the CRD is created with ApiextensionsV1Api, the dynamic
client discovers it, then creates, gets, lists (with a label selector), patches, replaces, watches and deletes."""
import threading
import time

from kubernetes import client, watch
from kubernetes.dynamic import DynamicClient
from kubernetes.dynamic.exceptions import ResourceNotFoundError

from kah_common import Results, api_client, discovery_cache_file, ensure_namespace, namespace

r = Results()
api = api_client()
core = client.CoreV1Api(api)
ext = client.ApiextensionsV1Api(api)
ns = namespace()
ensure_namespace(core, ns)

crd = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.py.example.com"},
    "spec": {
        "group": "py.example.com",
        "scope": "Namespaced",
        "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {"spec": {"type": "object", "properties": {"size": {"type": "integer"}, "color": {"type": "string"}}}},
                    }
                },
            }
        ],
    },
}
r.step("crd.create", lambda: ext.create_custom_resource_definition(crd).metadata.name)


def established():
    deadline = time.time() + 30
    while time.time() < deadline:
        conds = ext.read_custom_resource_definition("widgets.py.example.com").status.conditions or []
        if any(c.type == "Established" and c.status == "True" for c in conds):
            return True
        time.sleep(0.2)
    return False


r.step("crd.established", established)

dyn = DynamicClient(api, cache_file=discovery_cache_file())


def widgets_resource():
    # LazyDiscoverer refreshes its cache on a miss; poll in case discovery lags the Established condition
    deadline = time.time() + 30
    while True:
        try:
            return dyn.resources.get(api_version="py.example.com/v1", kind="Widget")
        except ResourceNotFoundError:
            if time.time() > deadline:
                raise
            time.sleep(0.2)


widgets = r.step("discover", widgets_resource)
if widgets is None:
    r.emit()
    raise SystemExit(0)
r.data["discover"]["value"] = {"namespaced": widgets.namespaced, "verbs": sorted(widgets.verbs or [])}


def widget(name, size, color="red"):
    return {
        "apiVersion": "py.example.com/v1",
        "kind": "Widget",
        "metadata": {"name": name, "labels": {"color": color}},
        "spec": {"size": size, "color": color},
    }


r.step("create", lambda: widgets.create(body=widget("w1", 1), namespace=ns).to_dict()["spec"])
r.step("create2", lambda: widgets.create(body=widget("w2", 2, "blue"), namespace=ns).metadata.name)
r.step("get", lambda: widgets.get(name="w1", namespace=ns).spec.size)
r.step("list.label", lambda: [i.metadata.name for i in widgets.get(namespace=ns, label_selector="color=blue").items])
r.step(
    "patch.merge",
    lambda: widgets.patch(name="w1", namespace=ns, body={"spec": {"size": 5}}, content_type="application/merge-patch+json").spec.size,
)
# a custom resource has no strategic merge patch: kube answers 415
r.step("patch.strategic", lambda: widgets.patch(name="w1", namespace=ns, body={"spec": {"size": 6}}).spec.size)


def replace():
    current = widgets.get(name="w1", namespace=ns).to_dict()
    current["spec"]["color"] = "green"
    return widgets.replace(body=current, namespace=ns).spec.color


r.step("replace", replace)

events = []
connected = threading.Event()
done = threading.Event()
watcher = watch.Watch()


def run_watch():
    try:
        for e in widgets.watch(namespace=ns, watcher=watcher):
            events.append([e["type"], e["object"].metadata.name])
            if e["object"].metadata.name == "w1":
                connected.set()
            if e["type"] == "DELETED" and e["object"].metadata.name == "w2":
                watcher.stop()
                break
    except Exception as ex:  # noqa: BLE001
        events.append(["EXCEPTION", repr(ex)])
    finally:
        connected.set()
        done.set()


threading.Thread(target=run_watch, daemon=True).start()
r.step("watch.connected", lambda: connected.wait(30))
r.step("delete", lambda: widgets.delete(name="w2", namespace=ns).to_dict().get("status"))
r.step("watch.done", lambda: done.wait(30))
r.data["watch.events"] = events
r.step("get.afterDelete", lambda: widgets.get(name="w2", namespace=ns).metadata.name)
r.emit()
