"""An informer's list-then-watch: list, keep the list's resourceVersion, watch from it and see only what came after;
then a watch from a resourceVersion the storage no longer has ends with 410 Expired, which the client reports."""
import sys

from kubernetes import client, watch
from kubernetes.client.rest import ApiException

from kah_common import Results, api_client, ensure_namespace, namespace

r = Results()
api = api_client()
core = client.CoreV1Api(api)
ns = namespace()
ensure_namespace(core, ns)
core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="listed")))

listed = core.list_namespaced_config_map(ns)
rv = listed.metadata.resource_version
r.data["listed"] = {"names": [i.metadata.name for i in listed.items], "resourceVersion": rv}
core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="later-1")))
core.patch_namespaced_config_map("listed", ns, {"metadata": {"labels": {"changed": "yes"}}})
core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="later-2")))


def resume():
    seen = []
    w = watch.Watch()
    for event in w.stream(core.list_namespaced_config_map, ns, resource_version=rv, allow_watch_bookmarks=True, _request_timeout=60):
        if event["type"] == "BOOKMARK":
            continue
        seen.append([event["type"], event["object"].metadata.name])
        if event["object"].metadata.name == "later-2":
            w.stop()
            break
    return seen


r.step("resume", resume)

# A compacted resourceVersion: the jest side compacts the store (etcd) before passing expired=<rv>.
expired_rv = sys.argv[3] if len(sys.argv) > 3 else None
if expired_rv:

    def expired():
        w = watch.Watch()
        try:
            # timeout_seconds disables the client's own one retry after a 410, so the error reaches the caller
            for event in w.stream(core.list_namespaced_config_map, ns, resource_version=expired_rv, timeout_seconds=30, _request_timeout=60):
                return {"unexpected": event["type"]}
        except ApiException as e:
            return {"status": e.status, "reason": e.reason}
        return {"ended": True}

    r.step("expired", expired)
r.emit()
