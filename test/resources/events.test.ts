// events.k8s.io/v1 Events as kube-apiserver serves them: the same objects as core/v1 events (one storage, two
// shapes, kube's pkg/apis/events/v1/conversion.go), with the strict validation kube applies to events.k8s.io/v1
// writes (pkg/apis/core/validation/events.go, whose field paths are core's).
import * as k8s from '@kubernetes/client-node';
import { useApiServer } from '../../harness/jest.js';
import { eventually } from '../support/eventually.js';
import { describeResourceWalks, type ResourceWalk } from '../support/resource-walk.js';
import { kubectl } from '../support/kubectl.js';

const env = useApiServer({ storage: (process.env['KAH_TEST_STORAGE'] as 'etcd3' | 'memory' | undefined) ?? 'memory' });
const namespace = 'events-walk';

const event = (extra: Record<string, unknown> = {}) => ({
  eventTime: '2026-01-02T03:04:05.123456Z',
  reportingController: 'example.com/walker',
  reportingInstance: 'walker-1',
  action: 'Walk',
  reason: 'Walking',
  type: 'Normal',
  note: 'one step',
  regarding: { kind: 'Pod', name: 'p', namespace },
  ...extra,
});

const walks: ResourceWalk[] = [
  {
    group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', namespaced: true,
    object: () => event(),
    // kube defaults nothing in an Event: the fields come back in the events.k8s.io/v1 shape they were sent in
    defaulted: [
      { path: 'note', value: 'one step' },
      { path: 'regarding.name', value: 'p' },
      { path: 'reportingController', value: 'example.com/walker' },
    ],
    invalid: [
      {
        name: 'no eventTime',
        object: { reason: 'R', type: 'Normal', regarding: { kind: 'Pod', name: 'p', namespace } },
        message: 'Event.events.k8s.io "walk-event-invalid" is invalid: eventTime: Required value',
      },
      { name: 'a type other than Normal or Warning', object: event({ type: 'Info' }), causes: [{ reason: 'FieldValueInvalid', field: 'type', message: 'Invalid value: "": has invalid value: Info' }] },
      { name: 'a deprecated field set', object: event({ deprecatedCount: 3 }), causes: [{ reason: 'FieldValueInvalid', field: 'count', message: 'Invalid value: "": needs to be unset' }] },
      { name: 'no reportingController', object: event({ reportingController: undefined }), causes: [{ reason: 'FieldValueRequired', field: 'reportingController', message: 'Required value' }] },
      {
        name: 'a cluster-scoped regarding object outside default and kube-system',
        object: event({ regarding: { kind: 'Node', name: 'n1' } }),
        causes: [{ reason: 'FieldValueInvalid', field: 'involvedObject.namespace', message: 'Invalid value: "": does not match event.namespace' }],
      },
    ],
  },
];

describeResourceWalks(env, namespace, walks);

describe('events.k8s.io/v1 and core/v1 events are one storage', () => {
  const eventsPath = (ns: string) => `/apis/events.k8s.io/v1/namespaces/${ns}/events`;
  const corePath = (ns: string) => `/api/v1/namespaces/${ns}/events`;

  it('reads an events.k8s.io/v1 event as core/v1 with kube\'s field mapping, and `kubectl get events` lists it', async () => {
    const ns = 'events-shared';
    await env.server.request('/api/v1/namespaces', { method: 'POST', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } });
    const created = await env.server.request(eventsPath(ns), {
      method: 'POST',
      body: { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'shared' }, ...event({ regarding: { kind: 'Pod', name: 'web-0', namespace: ns }, note: 'pulled the image' }) },
    });
    expect(created.status).toBe(201);
    const core = (await env.server.request(`${corePath(ns)}/shared`)).json<Record<string, unknown>>();
    expect(core).toMatchObject({
      apiVersion: 'v1',
      kind: 'Event',
      message: 'pulled the image',
      involvedObject: { kind: 'Pod', name: 'web-0', namespace: ns },
      reportingComponent: 'example.com/walker',
      reportingInstance: 'walker-1',
      action: 'Walk',
      reason: 'Walking',
      type: 'Normal',
    });
    for (const field of ['note', 'regarding', 'reportingController']) expect(core).not.toHaveProperty(field);

    const table = await kubectl(env.server.kubeconfigPath, ['get', 'events', '-n', ns]);
    expect([table.code, table.stderr]).toEqual([0, '']);
    expect(table.stdout).toMatch(/LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n/);
    expect(table.stdout).toMatch(/Normal\s+Walking\s+pod\/web-0\s+pulled the image\n/);
    const viaNewApi = await kubectl(env.server.kubeconfigPath, ['get', 'events.v1.events.k8s.io', 'shared', '-n', ns, '-o', 'jsonpath={.note}']);
    expect(viaNewApi.stdout).toBe('pulled the image');
  });

  it('serves a core/v1 event through events.k8s.io/v1 with the deprecated fields, and deletes it from both', async () => {
    const ns = 'events-shared';
    const body = {
      apiVersion: 'v1', kind: 'Event', metadata: { name: 'legacy' },
      involvedObject: { kind: 'Pod', name: 'web-1', namespace: ns }, reason: 'BackOff', message: 'restarting', type: 'Warning',
      source: { component: 'kubelet', host: 'node-1' }, count: 4, firstTimestamp: '2026-01-01T00:00:00Z', lastTimestamp: '2026-01-01T00:05:00Z',
    };
    expect((await env.server.request(corePath(ns), { method: 'POST', body })).status).toBe(201);
    const ev = (await env.server.request(`${eventsPath(ns)}/legacy`)).json<Record<string, unknown>>();
    expect(ev).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      note: 'restarting',
      regarding: { kind: 'Pod', name: 'web-1', namespace: ns },
      deprecatedSource: { component: 'kubelet', host: 'node-1' },
      deprecatedCount: 4,
      deprecatedFirstTimestamp: '2026-01-01T00:00:00Z',
      deprecatedLastTimestamp: '2026-01-01T00:05:00Z',
      reason: 'BackOff',
      type: 'Warning',
    });
    const list = (await env.server.request(eventsPath(ns))).json<{ kind: string; items: Array<{ metadata: { name: string } }> }>();
    expect(list.kind).toBe('EventList');
    expect(list.items.map((i) => i.metadata.name)).toContain('legacy');
    expect((await env.server.request(`${eventsPath(ns)}/legacy`, { method: 'DELETE' })).status).toBe(200);
    expect((await env.server.request(`${corePath(ns)}/legacy`)).status).toBe(404);
  });

  // kube's ValidateEventCreate/ValidateEventUpdate for the core/v1 request version (pkg/apis/core/validation/events.go):
  // only the legacy rules, so every stored Event can be read and written back through events.k8s.io/v1 (a fuzz
  // finding: a core/v1 Event without involvedObject.namespace in a non-default namespace used to be stored unvalidated).
  it('validates core/v1 writes with kube\'s legacy event rules', async () => {
    const ns = 'events-legacy';
    await env.server.request('/api/v1/namespaces', { method: 'POST', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } });
    const orphan = await env.server.request(corePath(ns), { method: 'POST', body: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'orphan' }, reason: 'R', message: 'm' } });
    expect(orphan.status).toBe(422);
    expect(orphan.json<{ message: string }>().message).toBe('Event "orphan" is invalid: involvedObject.namespace: Invalid value: "": does not match event.namespace');
    const mismatch = await env.server.request(corePath(ns), {
      method: 'POST',
      body: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'elsewhere' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'other' }, reason: 'R' },
    });
    expect(mismatch.json<{ message: string }>().message).toBe('Event "elsewhere" is invalid: involvedObject.namespace: Invalid value: "other": does not match event.namespace');
    // a new-style Event (eventTime set) names the reporting controller by its core/v1 field name
    const newStyle = await env.server.request(corePath(ns), {
      method: 'POST',
      body: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'new-style' }, eventTime: '2026-01-02T03:04:05.000000Z', involvedObject: { kind: 'Pod', name: 'p', namespace: ns }, reportingInstance: 'i', action: 'A', reason: 'R' },
    });
    // kube appends ValidateQualifiedName's errors for the empty value after the Required one
    const causes = newStyle.json<{ details: { causes: Array<{ field: string; message: string }> } }>().details.causes;
    expect(causes.map((c) => c.field)).toEqual(['reportingComponent', 'reportingComponent', 'reportingComponent']);
    expect(causes.slice(0, 2)).toEqual([
      { reason: 'FieldValueRequired', field: 'reportingComponent', message: 'Required value' },
      { reason: 'FieldValueInvalid', field: 'reportingComponent', message: 'Invalid value: "": name part must be non-empty' },
    ]);
    // in default, an Event about a cluster-scoped object needs no involvedObject.namespace (old clients)
    const inDefault = await env.server.request(corePath('default'), { method: 'POST', body: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'node-event' }, involvedObject: { kind: 'Node', name: 'n1' }, reason: 'R' } });
    expect(inDefault.status).toBe(201);
    const update = await env.server.request(`${corePath('default')}/node-event`, {
      method: 'PUT',
      body: { ...inDefault.json<Record<string, unknown>>(), involvedObject: { kind: 'Pod', name: 'p', namespace: 'elsewhere' } },
    });
    expect(update.json<{ message: string }>().message).toBe('Event "node-event" is invalid: involvedObject.namespace: Invalid value: "elsewhere": does not match event.namespace');
  });

  it('shows a core/v1 write to an events.k8s.io/v1 watch, in the events.k8s.io/v1 shape', async () => {
    const ns = 'events-shared';
    const seen: Array<[string, unknown, unknown]> = [];
    const controller = await new k8s.Watch(env.kubeConfig).watch(
      eventsPath(ns),
      { fieldSelector: 'metadata.name=watched' },
      (type, obj: Record<string, unknown>) => seen.push([type, obj['apiVersion'], obj['note']]),
      () => undefined,
    );
    try {
      const body = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'watched' }, involvedObject: { kind: 'Pod', name: 'web-2', namespace: ns }, reason: 'Seen', message: 'through the other API' };
      expect((await env.server.request(corePath(ns), { method: 'POST', body })).status).toBe(201);
      await eventually(() => expect(seen).toContainEqual(['ADDED', 'events.k8s.io/v1', 'through the other API']));
    } finally {
      controller.abort();
    }
  });

  it('treats events.k8s.io/v1 as a typed built-in kind: unknown fields are dropped with a warning and refused by apply', async () => {
    const ns = 'events-shared';
    const body = { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'typed' }, ...event({ regarding: { kind: 'Pod', name: 'web-3', namespace: ns } }), bogus: 1 };
    const created = await env.server.request(eventsPath(ns), { method: 'POST', body });
    expect(created.status).toBe(201);
    expect(created.headers['warning']).toBe('299 - "unknown field \\"bogus\\""');
    expect(created.json<Record<string, unknown>>()).not.toHaveProperty('bogus');
    const applied = await env.server.request(`${eventsPath(ns)}/typed?fieldManager=walker&force=true`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
      body: JSON.stringify({ apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'typed' }, bogus: 2 }),
    });
    expect(applied.json<{ message: string }>().message).toBe(`failed to create typed patch object (${ns}/typed; events.k8s.io/v1, Kind=Event): .bogus: field not declared in schema`);
  });
});
