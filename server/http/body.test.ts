import express, { type Request, type RequestHandler } from 'express';
import request from 'supertest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { maxRequestBodyBytes, rawBodyReader } from './body.js';
import { writeJSON } from './responses.js';

/** An app that answers with what the reader left in req.body, and whether the fallback (express.raw) read it. */
function appWith(): express.Express {
  const app = express();
  const raw = express.raw({ type: () => true, limit: maxRequestBodyBytes });
  const fallback: RequestHandler = (req, res, next) => {
    res.setHeader('X-Fallback', 'yes');
    return raw(req, res, next);
  };
  app.use(rawBodyReader(fallback));
  app.use((req: Request, res) => {
    const body = req.body as unknown;
    res.json({ isBuffer: Buffer.isBuffer(body), text: Buffer.isBuffer(body) ? body.toString('utf8') : null });
  });
  app.use((err: { type?: string; status?: number }, _req: Request, res: express.Response, _next: express.NextFunction) => {
    res.status(err.status ?? 500).json({ type: err.type });
  });
  return app;
}

/** A POST through node's own client, so the headers and chunks are exactly these. */
async function rawPost(headers: Record<string, string>, chunks: Array<string | Buffer>): Promise<{ status: number; fallback: unknown; body: string }> {
  const server = appWith().listen(0);
  try {
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    return await new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/x', headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, fallback: res.headers['x-fallback'], body: text }));
      });
      req.on('error', reject);
      for (const c of chunks) req.write(c);
      req.end();
    });
  } finally {
    server.close();
  }
}

describe('rawBodyReader', () => {
  it('reads a body with a Content-Length itself, as a Buffer', async () => {
    const r = await request(appWith()).post('/x').set('Content-Type', 'application/json').send('{"a":1}');
    expect(r.status).toBe(200);
    expect(r.headers['x-fallback']).toBeUndefined();
    expect(r.body).toEqual({ isBuffer: true, text: '{"a":1}' });
  });

  it('hands a compressed body to express.raw, which inflates it', async () => {
    const body = gzipSync('{"b":2}');
    const r = await rawPost({ 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', 'Content-Length': String(body.length) }, [body]);
    expect(r.fallback).toBe('yes');
    expect(JSON.parse(r.body)).toEqual({ isBuffer: true, text: '{"b":2}' });
  });

  it('hands a body over the limit to express.raw, which answers 413 entity.too.large', async () => {
    const r = await request(appWith()).post('/x').set('Content-Type', 'application/json').send('x'.repeat(maxRequestBodyBytes + 1));
    expect(r.headers['x-fallback']).toBe('yes');
    expect(r.status).toBe(413);
    expect(r.body).toEqual({ type: 'entity.too.large' });
  });

  it('hands a chunked body (no Content-Length) to express.raw', async () => {
    const r = await rawPost({ 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' }, ['{"c":', '3}']);
    expect(r.fallback).toBe('yes');
    expect(JSON.parse(r.body)).toEqual({ isBuffer: true, text: '{"c":3}' });
  });

  it('leaves req.body unset for a request without a body', async () => {
    const r = await request(appWith()).get('/x');
    expect(r.body).toEqual({ isBuffer: false, text: null });
  });
});

describe('writeJSON', () => {
  const app = express();
  app.all('/obj', (_req, res) => writeJSON(res, 201, { kind: 'ConfigMap', data: { 'ü': 'é' } }));

  it("sends the JSON with express's content type and the byte length", async () => {
    const r = await request(app).post('/obj');
    expect(r.status).toBe(201);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(r.headers['content-length']).toBe(String(Buffer.byteLength(JSON.stringify({ kind: 'ConfigMap', data: { 'ü': 'é' } }))));
    expect(r.body).toEqual({ kind: 'ConfigMap', data: { 'ü': 'é' } });
  });

  it('sends no body to a HEAD request', async () => {
    const r = await request(app).head('/obj');
    expect(r.status).toBe(201);
    expect(r.text).toBeUndefined();
  });
});
