// metav1.Time as kube serializes it (RFC 3339, whole seconds, UTC), for the timestamps every write stamps
// (creationTimestamp, managedFields[].time): formatted once per second rather than once per request.

/** RFC 3339 in whole seconds: "2006-01-02T15:04:05Z". */
export function rfc3339Seconds(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

let lastSecond = -1;
let lastSecondText = '';

/** The current second, formatted; the same string while the second lasts. */
export function currentRfc3339Seconds(): string {
  const second = Math.floor(Date.now() / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastSecondText = rfc3339Seconds(new Date(second * 1000));
  }
  return lastSecondText;
}
