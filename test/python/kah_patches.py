"""Patches as the client sends them: CoreV1Api/AppsV1Api pick the content type from the body's shape (a dict is a
strategic merge patch, a list a JSON patch); the dynamic client sends a merge patch when asked, and server-side
apply with force=True."""
import json

from kubernetes import client
from kubernetes.dynamic import DynamicClient

from kah_common import Results, api_client, discovery_cache_file, ensure_namespace, namespace

r = Results()
api = api_client()
core = client.CoreV1Api(api)
apps = client.AppsV1Api(api)
ns = namespace()
ensure_namespace(core, ns)

core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="p"), data={"a": "1"}))
r.step("cm.strategic", lambda: core.patch_namespaced_config_map("p", ns, {"data": {"b": "2"}}).data)
r.step(
    "cm.json",
    lambda: core.patch_namespaced_config_map("p", ns, [{"op": "add", "path": "/data/c", "value": "3"}, {"op": "remove", "path": "/data/a"}]).data,
)
r.step("cm.json.testFails", lambda: core.patch_namespaced_config_map("p", ns, [{"op": "test", "path": "/data/b", "value": "nope"}]).data)


def containers(d):
    return [[c.name, c.image] for c in d.spec.template.spec.containers]


apps.create_namespaced_deployment(
    ns,
    client.V1Deployment(
        metadata=client.V1ObjectMeta(name="web"),
        spec=client.V1DeploymentSpec(
            selector=client.V1LabelSelector(match_labels={"app": "web"}),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels={"app": "web"}),
                spec=client.V1PodSpec(
                    containers=[client.V1Container(name="web", image="nginx:1"), client.V1Container(name="side", image="busybox:1")]
                ),
            ),
        ),
    ),
)
# strategic merge: containers merge by name, so "side" stays
r.step(
    "deploy.strategic",
    lambda: containers(
        apps.patch_namespaced_deployment("web", ns, {"spec": {"template": {"spec": {"containers": [{"name": "web", "image": "nginx:2"}]}}}})
    ),
)

dyn = DynamicClient(api, cache_file=discovery_cache_file())
deployments = dyn.resources.get(api_version="apps/v1", kind="Deployment")
# merge patch: a list replaces the list, so "side" goes
r.step(
    "deploy.merge",
    lambda: [
        [c["name"], c["image"]]
        for c in deployments.patch(
            name="web",
            namespace=ns,
            body={"spec": {"template": {"spec": {"containers": [{"name": "web", "image": "nginx:3"}]}}}},
            content_type="application/merge-patch+json",
        ).to_dict()["spec"]["template"]["spec"]["containers"]
    ],
)

configmaps = dyn.resources.get(api_version="v1", kind="ConfigMap")
applied = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "applied", "namespace": ns}, "data": {"k": "v"}}


def apply():
    # this client version sends apply bodies only as text; force_conflicts=True is sent as ?force=True
    out = configmaps.server_side_apply(body=json.dumps(applied), name="applied", namespace=ns, field_manager="py-apply", force_conflicts=True)
    d = out.to_dict()
    return {"data": d["data"], "managers": [m["manager"] for m in d["metadata"]["managedFields"]]}


r.step("apply", apply)
r.emit()
