// kube's handler chain as one express middleware. Every app.use layer costs the router a path match, a prefix trim,
// parameter processing and a promise check per request; the filters of a resource request (about ten) are mounted
// on "/" and run in a fixed order, so they run here one after another instead, with the router's error contract.
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * One middleware that runs `filters` in order: a filter continues the chain by calling next(), ends the request by
 * answering without calling it, and fails it by calling next(err), throwing, or returning a rejected promise, all
 * of which reach express's error handlers, as they do from a router layer. After the last filter the request goes
 * on to the app's next layer.
 */
export function filterChain(filters: readonly RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, done: NextFunction): void => {
    let index = 0;
    const next = (err?: unknown): void => {
      if (err !== undefined && err !== null) {
        done(err);
        return;
      }
      const filter = filters[index++];
      if (!filter) {
        done();
        return;
      }
      try {
        const ret: unknown = filter(req, res, next);
        // the router's rejection contract: a rejected promise is next(err) (a falsy reason becomes an Error)
        if (ret instanceof Promise) ret.then(undefined, (reason: unknown) => done(reason || new Error('Rejected promise')));
      } catch (thrown) {
        done(thrown);
      }
    };
    next();
  };
}
