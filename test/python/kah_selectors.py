"""Lists with label and field selectors, pagination with limit/continue, and the all-namespaces list."""
from kubernetes import client

from kah_common import Results, api_client, ensure_namespace, namespace

r = Results()
api = api_client()
core = client.CoreV1Api(api)
ns = namespace()
ensure_namespace(core, ns)

for name, tier in [("web-1", "web"), ("web-2", "web"), ("db-1", "db"), ("plain", None)]:
    labels = {"tier": tier} if tier else None
    core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name, labels=labels)))


def names(lst):
    return sorted(i.metadata.name for i in lst.items)


r.step("label.equals", lambda: names(core.list_namespaced_config_map(ns, label_selector="tier=web")))
r.step("label.in", lambda: names(core.list_namespaced_config_map(ns, label_selector="tier in (web,db)")))
r.step("label.notExists", lambda: names(core.list_namespaced_config_map(ns, label_selector="!tier")))
r.step("label.bad", lambda: names(core.list_namespaced_config_map(ns, label_selector="tier in (")))
r.step("field.name", lambda: names(core.list_namespaced_config_map(ns, field_selector="metadata.name=db-1")))
r.step("field.notName", lambda: names(core.list_namespaced_config_map(ns, field_selector="metadata.name!=db-1")))
r.step("field.unsupported", lambda: names(core.list_namespaced_config_map(ns, field_selector="data.x=1")))
r.step(
    "allNamespaces.fieldNamespace",
    lambda: names(core.list_config_map_for_all_namespaces(field_selector="metadata.namespace=" + ns, label_selector="tier")),
)


def paginate():
    pages = []
    token = None
    while True:
        page = core.list_namespaced_config_map(ns, limit=2, _continue=token)
        pages.append(sorted(i.metadata.name for i in page.items))
        token = page.metadata._continue
        if not token:
            return pages


r.step("paginate", paginate)
r.emit()
