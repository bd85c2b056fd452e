// Structured logs: one JSON object per line on stdout, with klog-style verbosity (--v).
export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** logs only when --v >= level */
  v(level: number): { info(msg: string, fields?: Record<string, unknown>): void };
}

export function newLogger(verbosity: number, write: (line: string) => void = (l) => process.stdout.write(l + '\n')): Logger {
  const emit = (level: string, msg: string, fields?: Record<string, unknown>) => write(JSON.stringify({ ts: new Date().toISOString(), level, msg, ...fields }));
  const quiet = { info() {} };
  return {
    info: (msg, fields) => emit('info', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
    v: (level) => (verbosity >= level ? { info: (msg, fields) => emit('info', msg, { v: level, ...fields }) } : quiet),
  };
}
