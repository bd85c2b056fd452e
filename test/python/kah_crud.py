"""CRUD of a ConfigMap (CoreV1Api) and a Deployment (AppsV1Api), with the client's typed models."""
from kubernetes import client

from kah_common import Results, api_client, ensure_namespace, namespace

r = Results()
api = api_client()
core = client.CoreV1Api(api)
apps = client.AppsV1Api(api)
ns = namespace()
ensure_namespace(core, ns)

cm = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="py-cm", labels={"app": "py"}), data={"a": "1"})
r.step("cm.create", lambda: core.create_namespaced_config_map(ns, cm).to_dict())
r.step("cm.read", lambda: core.read_namespaced_config_map("py-cm", ns).to_dict())


def replace_cm():
    current = core.read_namespaced_config_map("py-cm", ns)
    current.data["b"] = "2"
    return core.replace_namespaced_config_map("py-cm", ns, current).to_dict()


r.step("cm.replace", replace_cm)
r.step("cm.list", lambda: [i.metadata.name for i in core.list_namespaced_config_map(ns).items])
# dry_run and pretty are query parameters the client sends as given; grace_period_seconds is an int64 option
r.step("cm.delete.dryRun", lambda: core.delete_namespaced_config_map("py-cm", ns, dry_run="All").to_dict())
r.step("cm.read.afterDryRun", lambda: core.read_namespaced_config_map("py-cm", ns, pretty="true").metadata.name)
r.step("cm.delete", lambda: core.delete_namespaced_config_map("py-cm", ns, grace_period_seconds=0).to_dict())
r.step("cm.read.afterDelete", lambda: core.read_namespaced_config_map("py-cm", ns).to_dict())

deployment = client.V1Deployment(
    metadata=client.V1ObjectMeta(name="py-web", labels={"app": "py-web"}),
    spec=client.V1DeploymentSpec(
        replicas=1,
        selector=client.V1LabelSelector(match_labels={"app": "py-web"}),
        template=client.V1PodTemplateSpec(
            metadata=client.V1ObjectMeta(labels={"app": "py-web"}),
            spec=client.V1PodSpec(containers=[client.V1Container(name="web", image="nginx:1.25")]),
        ),
    ),
)
r.step("deploy.create", lambda: apps.create_namespaced_deployment(ns, deployment).to_dict())
r.step("deploy.read", lambda: apps.read_namespaced_deployment("py-web", ns).to_dict())


def replace_deploy():
    current = apps.read_namespaced_deployment("py-web", ns)
    current.spec.replicas = 3
    return apps.replace_namespaced_deployment("py-web", ns, current).to_dict()


r.step("deploy.replace", replace_deploy)
r.step("deploy.readScale", lambda: apps.read_namespaced_deployment_scale("py-web", ns).to_dict())
r.step("deploy.patchScale", lambda: apps.patch_namespaced_deployment_scale("py-web", ns, {"spec": {"replicas": 2}}).to_dict())
r.step("deploy.readStatus", lambda: apps.read_namespaced_deployment_status("py-web", ns).to_dict())
r.step("deploy.list", lambda: [d.metadata.name for d in apps.list_namespaced_deployment(ns).items])
r.step(
    "deploy.delete",
    lambda: apps.delete_namespaced_deployment("py-web", ns, propagation_policy="Background").to_dict(),
)
r.step("deploy.read.afterDelete", lambda: apps.read_namespaced_deployment("py-web", ns).to_dict())
r.emit()
