import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import request from 'supertest';
import { filterChain } from './filter-chain.js';

/** An app with the chain, a route after it and an error handler, recording which filters ran. */
function appWith(filters: RequestHandler[], ran: string[]): express.Express {
  const app = express();
  app.use(filterChain(filters));
  app.get('/after', (_req, res) => {
    ran.push('route');
    res.send('after');
  });
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    res.status(500).send(`error: ${err instanceof Error ? err.message : String(err)}`);
  });
  return app;
}

const passing =
  (name: string, ran: string[]): RequestHandler =>
  (_req, _res, next) => {
    ran.push(name);
    next();
  };

describe('filterChain', () => {
  it('runs the filters in order, then the app\'s next layer', async () => {
    const ran: string[] = [];
    const res = await request(appWith([passing('a', ran), passing('b', ran), passing('c', ran)], ran)).get('/after');
    expect(res.text).toBe('after');
    expect(ran).toEqual(['a', 'b', 'c', 'route']);
  });

  it('stops at a filter that answers without calling next', async () => {
    const ran: string[] = [];
    const answering: RequestHandler = (_req, res) => {
      ran.push('answer');
      res.status(403).send('no');
    };
    const res = await request(appWith([passing('a', ran), answering, passing('c', ran)], ran)).get('/after');
    expect(res.status).toBe(403);
    expect(ran).toEqual(['a', 'answer']);
  });

  it('asynchronous filters continue the chain when they call next', async () => {
    const ran: string[] = [];
    const later: RequestHandler = async (_req, _res, next) => {
      await Promise.resolve();
      ran.push('async');
      next();
    };
    const res = await request(appWith([later, passing('b', ran)], ran)).get('/after');
    expect(res.text).toBe('after');
    expect(ran).toEqual(['async', 'b', 'route']);
  });

  it.each([
    [
      'next(err)',
      ((_req, _res, next) => {
        next(new Error('passed on'));
      }) as RequestHandler,
      'error: passed on',
    ],
    [
      'a throw',
      (() => {
        throw new Error('thrown');
      }) as RequestHandler,
      'error: thrown',
    ],
    [
      'a rejected promise',
      (async () => {
        await Promise.resolve();
        throw new Error('rejected');
      }) as RequestHandler,
      'error: rejected',
    ],
    ['a promise rejected without a reason', (() => Promise.reject(undefined)) as RequestHandler, 'error: Rejected promise'],
  ])('sends %s to the error handlers, skipping the rest', async (_what, failing, text) => {
    const ran: string[] = [];
    const res = await request(appWith([passing('a', ran), failing, passing('c', ran)], ran)).get('/after');
    expect(res.status).toBe(500);
    expect(res.text).toBe(text);
    expect(ran).toEqual(['a']);
  });
});
