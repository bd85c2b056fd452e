// Decoding a conversion webhook's answer as kube's webhook REST client does, and the response checks.
import { convertedObjectsFromResponse, conversionReviewVersionFor, decodeConversionReview } from './review.js';

const decode = (body: string, version: 'v1' | 'v1beta1' = 'v1') => decodeConversionReview(Buffer.from(body), 'application/json', 200, version);

describe('conversionReviewVersionFor', () => {
  it.each<[string[], string | undefined]>([
    [['v1', 'v1beta1'], 'v1'],
    [['v1beta1', 'v1'], 'v1beta1'],
    [['v2', 'v1beta1'], 'v1beta1'],
    [['v2'], undefined],
  ])('%j → %s', (accepted, expected) => expect(conversionReviewVersionFor(accepted)).toBe(expected));
});

describe('decodeConversionReview', () => {
  it('decodes a v1 answer', () => {
    const r = decode('{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"uid":"u","convertedObjects":[{"kind":"A"}],"result":{"status":"Success"}}}');
    expect(r).toEqual({
      ok: true,
      review: { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response: { uid: 'u', convertedObjects: [{ kind: 'A' }], result: { status: 'Success', message: '' } } },
    });
  });

  it('reads YAML bodies, as the client sniffs the content', () => {
    const r = decode('apiVersion: apiextensions.k8s.io/v1beta1\nkind: ConversionReview\nresponse:\n  uid: u\n  result:\n    status: Success\n', 'v1beta1');
    expect(r.ok && r.review.response?.result.status).toBe('Success');
  });

  it('defaults a missing apiVersion and kind from the ConversionReview version decoded into', () => {
    const r = decode('{"response":{"uid":"u","result":{"status":"Success"}}}', 'v1beta1');
    expect(r).toEqual({ ok: true, review: { apiVersion: '', kind: '', response: { uid: 'u', convertedObjects: [], result: { status: 'Success', message: '' } } } });
  });

  it.each<[string, string]>([
    ['', '0-length response with status code: 200 and content type: application/json'],
    ['{"apiVersion":', "couldn't get version/kind; json parse error: unexpected end of JSON input"],
    ['{"apiVersion":"v1","kind":"Pod"}', 'no kind "Pod" is registered for version "v1" in scheme "pkg/runtime/scheme.go:100"'],
    ['{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"ConversionReview"}', 'converting (v1beta1.ConversionReview) to (v1.ConversionReview): unknown conversion'],
    ['{"apiVersion":"v1","kind":"Status","status":"Failure"}', 'converting (v1.Status) to (v1.ConversionReview): unknown conversion'],
    [
      '{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"uid":3}}',
      'json: cannot unmarshal number into Go struct field ConversionResponse.response.uid of type types.UID',
    ],
    [
      '{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"convertedObjects":{}}}',
      'json: cannot unmarshal object into Go struct field ConversionResponse.response.convertedObjects of type []runtime.RawExtension',
    ],
    [
      '{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"result":{"code":"500"}}}',
      'json: cannot unmarshal string into Go struct field Status.response.result.code of type int32',
    ],
  ])('%j fails with %j', (body, error) => {
    expect(decode(body)).toEqual({ ok: false, error });
  });
});

describe('convertedObjectsFromResponse', () => {
  const review = (over: Record<string, unknown> = {}) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    response: { uid: 'u', convertedObjects: [], result: { status: 'Success', message: '' } },
    ...over,
  });

  it('checks the GVK of v1 answers only', () => {
    const wrong = review({ apiVersion: 'apiextensions.k8s.io/v1beta1' });
    expect(convertedObjectsFromResponse('u', 'v1', wrong)).toEqual({
      ok: false,
      error: 'expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got apiextensions.k8s.io/v1beta1, Kind=ConversionReview',
    });
    expect(convertedObjectsFromResponse('other', 'v1beta1', wrong)).toEqual({ ok: true, objects: [] });
  });

  it('says what the status was when a failure has no message', () => {
    const r = review({ response: { uid: 'u', convertedObjects: [], result: { status: '', message: '' } } });
    expect(convertedObjectsFromResponse('u', 'v1', r)).toEqual({ ok: false, error: "response.result.status was '', not 'Success'" });
  });
});
