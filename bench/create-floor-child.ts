// The create floor: an HTTPS server that does only what any apiserver must do to create an object, and nothing
// else, in a process of its own (forked with an IPC channel) so that its CPU is measured apart. What it bounds: the
// create rate a single node process reaches on this machine when it pays only for TLS with client certificates,
// HTTP/1.1, JSON, the etcd transaction that creates a key only if it is absent (kube's create), and the one watch
// kube-apiserver keeps on each resource (its watch cache decodes every event). POST /floor does that; POST
// /floor-webhook also sends one AdmissionReview to a webhook first, over a keep-alive HTTPS connection as the
// apiserver's webhook client does, and honours its answer. No admission chain, validation, defaulting, managed
// fields, metrics or audit: whatever the real server adds to these is above the floor.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import https from 'node:https';
import path from 'node:path';
import { CompareResult, CompareTarget, Etcd3, type Watcher } from 'etcd3';

export interface CreateFloorConfig {
  /** the benchmarked apiserver's --cert-dir: the floor serves its certificate and asks for client certificates of its CA */
  certDir: string;
  etcdEndpoint: string;
  /** the etcd key prefix the floor creates under and watches */
  prefix: string;
  webhook?: { url: string; caPem: string };
}

export type CreateFloorMessage = { type: 'ready'; port: number } | { type: 'failed'; message: string };

interface NewObject {
  metadata: { name: string; namespace?: string; uid?: string; creationTimestamp?: string; resourceVersion?: string };
}

interface ReviewAnswer {
  response?: { allowed?: boolean; status?: { message?: string } };
}

function readBody(req: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function answer(res: import('node:http').ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

class CreateFloor {
  private readonly etcd: Etcd3;
  private readonly webhookAgent?: https.Agent;
  /** what the watch decoded last, so that decoding cannot be optimized away */
  lastWatched = '';

  constructor(private readonly config: CreateFloorConfig) {
    this.etcd = new Etcd3({ hosts: config.etcdEndpoint });
    if (config.webhook) this.webhookAgent = new https.Agent({ keepAlive: true, ca: config.webhook.caPem });
  }

  watch(): Promise<Watcher> {
    return this.etcd
      .watch()
      .prefix(this.config.prefix)
      .create()
      .then((w) => {
        w.on('put', (kv) => {
          const o = JSON.parse(kv.value.toString('utf8')) as NewObject;
          this.lastWatched = o.metadata.name;
        });
        return w;
      });
  }

  async create(text: string, withWebhook: boolean): Promise<{ status: number; body: string }> {
    const obj = JSON.parse(text) as NewObject;
    const namespace = obj.metadata.namespace ?? 'default';
    obj.metadata.uid = randomUUID();
    obj.metadata.creationTimestamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    if (withWebhook) {
      const review = await this.review(obj, namespace);
      if (review.response?.allowed !== true) return { status: 403, body: JSON.stringify({ message: review.response?.status?.message ?? 'denied' }) };
    }
    const key = `${this.config.prefix}${namespace}/${obj.metadata.name}`;
    // The KV service's Txn as the etcd3 client exposes it, without its builder: the cheapest call there is.
    const k = Buffer.from(key);
    const txn = await this.etcd.kv.txn({
      compare: [{ key: k, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: 0 }],
      success: [{ request_put: { key: k, value: Buffer.from(JSON.stringify(obj)) } }],
      failure: [],
    });
    if (!txn.succeeded) return { status: 409, body: JSON.stringify({ message: `${obj.metadata.name} already exists` }) };
    obj.metadata.resourceVersion = txn.header.revision;
    return { status: 201, body: JSON.stringify(obj) };
  }

  private review(obj: NewObject, namespace: string): Promise<ReviewAnswer> {
    const body = JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: randomUUID(),
        kind: { group: '', version: 'v1', kind: 'ConfigMap' },
        resource: { group: '', version: 'v1', resource: 'configmaps' },
        requestKind: { group: '', version: 'v1', kind: 'ConfigMap' },
        requestResource: { group: '', version: 'v1', resource: 'configmaps' },
        name: obj.metadata.name,
        namespace,
        operation: 'CREATE',
        userInfo: { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] },
        object: obj,
        oldObject: null,
        dryRun: false,
        options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions' },
      },
    });
    return new Promise((resolve, reject) => {
      const req = https.request(
        this.config.webhook!.url,
        { method: 'POST', agent: this.webhookAgent, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } },
        (res) => {
          readBody(res).then((t) => resolve(JSON.parse(t) as ReviewAnswer), reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  async listen(): Promise<number> {
    const [cert, key, ca] = await Promise.all(['apiserver.crt', 'apiserver.key', 'ca.crt'].map((f) => readFile(path.join(this.config.certDir, f), 'utf8')));
    const server = https.createServer({ cert, key, ca, requestCert: true, rejectUnauthorized: true, keepAliveTimeout: 60_000 }, (req, res) => {
      const withWebhook = req.url === '/floor-webhook';
      if (req.method !== 'POST' || !(withWebhook || req.url === '/floor')) return answer(res, 404, '{"message":"POST /floor or /floor-webhook"}');
      if (withWebhook && !this.config.webhook) return answer(res, 400, '{"message":"no webhook configured"}');
      readBody(req)
        .then((text) => this.create(text, withWebhook))
        .then(
          (r) => answer(res, r.status, r.body),
          (err: Error) => answer(res, 500, JSON.stringify({ message: err.message })),
        )
        // an answer that cannot be written (the client went away) ends the connection, not the process
        .catch(() => res.destroy());
    });
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve((server.address() as import('node:net').AddressInfo).port));
    });
  }
}

async function main(config: CreateFloorConfig): Promise<void> {
  const send = (m: CreateFloorMessage): void => void process.send?.(m);
  try {
    const floor = new CreateFloor(config);
    await floor.watch();
    send({ type: 'ready', port: await floor.listen() });
  } catch (err) {
    send({ type: 'failed', message: (err as Error).message });
    process.exit(1);
  }
  // The parent going away (even by SIGKILL) closes the channel: nothing outlives the benchmark.
  process.on('disconnect', () => process.exit(0));
}

if (process.send === undefined || process.argv[2] === undefined) {
  process.stderr.write('create-floor-child: run me with child_process.fork, with the configuration as JSON in argv[2]\n');
  process.exit(2);
}
void main(JSON.parse(process.argv[2]!) as CreateFloorConfig);
